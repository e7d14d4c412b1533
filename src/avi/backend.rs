//! The AVI engine behind the [`Backend`] seam.

use super::engine::AviEngine;
use crate::backend::{interruption, Backend, BackendFacts, BackendKind};
use crate::checkpoint::CheckpointError;
use crate::error::SimulationError;
use crate::interrupt::Interrupt;
use crate::ledger::Ledger;
use crate::math::{Compact, Real, Time, Vec3};
use crate::model::Model;
use crate::observe::{EventRecord, FrameStats, Observer};
use crate::potential::Potential;
use crate::stats::Counters;
use crate::workload::EventRate;
use std::collections::BTreeMap;

impl Backend for AviEngine {
    fn name(&self) -> &'static str {
        BackendKind::Avi.name()
    }

    fn potentials(&self) -> Box<dyn Iterator<Item = &dyn Potential> + '_> {
        Box::new(AviEngine::potentials(self))
    }

    fn periods(&self) -> Box<dyn Iterator<Item = (&dyn Potential, Real)> + '_> {
        Box::new(self.forces().map(|(_, potential, h)| (potential, h)))
    }

    fn dissipated(&self) -> Real {
        AviEngine::dissipated(self)
    }

    fn ledger(&self) -> Ledger {
        AviEngine::ledger(self)
    }

    fn contact_energy(&self, positions: &[Vec3]) -> Real {
        self.contact().map_or(0.0, |contact| contact.energy(positions))
    }

    fn measure_own_state(&self, model: &Model, t: Real, stats: &mut FrameStats) {
        if let Some(phantoms) = self.phantoms() {
            phantoms.measure(model, t, stats);
        }
    }

    fn counters(&self) -> &Counters {
        AviEngine::counters(self)
    }

    fn counters_mut(&mut self) -> &mut Counters {
        AviEngine::counters_mut(self)
    }

    fn now(&self) -> Time {
        AviEngine::now(self)
    }

    fn next_time(&self) -> Option<Time> {
        AviEngine::next_time(self)
    }

    /// The trait's loop, with one look at the queue per event instead of a peek and a pop.
    fn advance_to(
        &mut self,
        model: &mut Model,
        t: Real,
        observer: &mut dyn Observer,
        interrupt: &Interrupt,
    ) -> Result<(), SimulationError> {
        loop {
            if interrupt.is_requested() {
                // as the trait's loop: interrupted only with an event left to run before `t`
                if !self.next_time().is_some_and(|next| next.seconds() <= t) {
                    return Ok(());
                }
                return Err(interruption(interrupt, self.now()));
            }
            if self.step_no_later(t, model, observer)?.is_none() {
                return Ok(());
            }
        }
    }

    fn step(&mut self, model: &mut Model, observer: &mut dyn Observer) -> Result<Option<EventRecord>, SimulationError> {
        AviEngine::step(self, model, observer)
    }

    fn set_audit(&mut self, on: bool) {
        AviEngine::set_audit(self, on);
    }

    fn set_profile(&mut self, on: bool) {
        AviEngine::set_profile(self, on);
    }

    fn facts(&self, model: &Model) -> BackendFacts {
        let vertices = model.vertices.len();
        let contact = self.contact();
        let implicit = self.phantoms().map(|p| p.totals());
        BackendFacts {
            linear_solver: self.phantoms().map(|p| p.settings().newton.linear_solver.name()),
            newton_iterations: implicit.map(|t| t.newton_iterations),
            linear_solve_seconds: implicit.map(|t| t.linear_solve_seconds),
            implicit_loose_steps: implicit.map(|t| t.loose_steps),
            deepest_layer: contact.map_or(0, |c| c.deepest_layer()),
            smallest_distance: contact.map(|c| c.smallest_gap()).filter(|g| g.is_finite()),
            contact_peak_bytes_per_vertex: contact.map(|c| c.peak_bookkeeping_bytes() as f64 / vertices.max(1) as f64),
            contact_peak_parts_per_vertex: contact.map(|c| c.peak_bookkeeping_parts().per_vertex(vertices)),
            contact_rescheduling: contact.map(|c| {
                BTreeMap::from([
                    ("recertified", c.reschedules()),
                    ("slabs_kept", c.slab_keeps()),
                    ("kicks_inside_tubes", c.vague_skips()),
                ])
            }),
            ..BackendFacts::default()
        }
    }

    /// Force clocks (Σ 1/h) and, with contact, the broad phase's certificates: a vertex's tube
    /// leaves the ball of the slack around its anchor after slack / (speed + ε).
    fn event_rates(&self, model: &Model) -> Vec<EventRate> {
        let mut rates = vec![EventRate {
            source: "force clocks",
            per_second: self.forces().map(|(_, _, h)| 1.0 / h).fold(0.0, |sum, rate| sum + rate),
            keys: "safety_factor, the period keys or the mesh resolution",
        }];
        if let Some(phantoms) = self.phantoms() {
            rates.push(EventRate {
                source: "implicit and constraint events",
                per_second: 2.0 * phantoms.len() as Real / phantoms.settings().implicit_step,
                keys: "[simulation] implicit_step",
            });
        }
        if let Some(contact) = self.contact() {
            rates.push(EventRate {
                source: "broad-phase certificates",
                per_second: contact.broad_phase_events_per_second(model),
                keys: "the speeds (max_speed, velocity), contact.tolerance or contact.cell_size",
            });
        }
        rates
    }

    /// Force events per simulated second, and the contact bookkeeping at the start.
    fn save_state(&self, out: &mut Vec<u8>) -> Result<(), CheckpointError> {
        AviEngine::save_state(self, out)
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<(), CheckpointError> {
        AviEngine::restore_state(self, bytes)
    }

    fn describe(&self) -> Vec<String> {
        let mut events_per_second = 0.0;
        for (_, _, h) in self.forces() {
            events_per_second += 1.0 / h;
        }
        let mut lines = vec![format!("force events per simulated second (AVI): {events_per_second:.3e}")];
        if let Some(phantoms) = self.phantoms() {
            let h = phantoms.settings().implicit_step;
            for (name, vertices, potentials) in phantoms.describe() {
                let mut kinds: Vec<&str> = potentials.iter().map(|p| p.kind()).collect();
                kinds.sort_unstable();
                kinds.dedup();
                lines.push(format!(
                    "phantom body \"{name}\" (Phantom §3.2): {vertices} vertices, {} potentials ({}) on one implicit \
                     step h_imp = {} s, {:.3e} implicit and constraint events per simulated second",
                    potentials.len(),
                    kinds.join(", "),
                    Compact(h),
                    2.0 / h
                ));
            }
        }
        if let Some(contact) = self.contact() {
            let c = contact.settings();
            let broad = match contact.cell_size() {
                None if contact.is_kdop() => format!(
                    "k-DOP hierarchy, slack {:.3e} m, {} certificates at the start",
                    contact.broad_phase_slack(),
                    contact.kdop_certificates()
                ),
                None => "all pairs".to_string(),
                Some(c) => format!(
                    "hash grid, cell {c:.4} m, slack {:.3e} m, {} cells occupied",
                    contact.broad_phase_slack(),
                    contact.occupied_cells()
                ),
            };
            lines.push(format!(
                "contact (AVI penalty layers): {} pairs at the start (contact.csv's `pairs` at t = 0; {broad}), η(1) = {} m, r(1) = {} N/m, \
                 layer safety {}, ε = {} m/s, restitution {}, friction {}",
                contact.pair_count(),
                Compact(c.layers.thickness),
                Compact(c.layers.stiffness),
                Compact(c.safety),
                Compact(c.tolerance),
                Compact(c.restitution),
                Compact(c.friction)
            ));
        }
        lines
    }
}
