//! The seam between the [`Simulation`](crate::Simulation) facade and its backends: the
//! [`Backend`] trait every engine implements (the AVI's, the synchronous one's, and the next),
//! the facts a backend reports for `summary.json`, and [`BackendKind`], the table of backend
//! names.
//!
//! The model holds the state (positions, velocities, masses, held and scripted vertices); a
//! backend holds its potentials, its schedule and its bookkeeping, and advances the model.

use crate::checkpoint::CheckpointError;
use crate::error::SimulationError;
use crate::interrupt::{Interrupt, InterruptCause};
use crate::ledger::Ledger;
use crate::math::{Real, Time, Vec3};
use crate::model::Model;
use crate::observe::{EventRecord, FrameStats, Observer};
use crate::potential::Potential;
use crate::stats::Counters;
use crate::workload::EventRate;
use std::collections::BTreeMap;

/// Which backend integrates a scene (`[simulation] backend`, `avicontact run --backend`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BackendKind {
    /// The asynchronous variational integrator.
    Avi,
    /// The synchronous backend (IPC + implicit integrators).
    Sync,
}

impl BackendKind {
    /// Every backend with its name in scene files and on the command line, the default first.
    pub const NAMES: [(&'static str, BackendKind); 2] = [("avi", BackendKind::Avi), ("sync", BackendKind::Sync)];

    /// The backend called `name`.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|&(_, kind)| kind)
    }

    /// Its name in scene files.
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, kind)| *kind == self).map(|&(n, _)| n).expect("every backend is named")
    }
}

/// What a backend reports about a run beyond its counters: the backend-specific fields of
/// `summary.json` (`None`, or 0, where the backend has no such thing).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BackendFacts {
    /// The synchronous integrator's name.
    pub integrator: Option<&'static str>,
    /// How the synchronous implicit solves are carried out: `"newton"` or `"local-global"`.
    pub solver: Option<&'static str>,
    /// The Newton linear solver's name.
    pub linear_solver: Option<&'static str>,
    /// Newton iterations so far.
    pub newton_iterations: Option<u64>,
    /// Wall-clock seconds in linear solves so far.
    pub linear_solve_seconds: Option<f64>,
    /// Phantom implicit steps that ended at their iteration limit within the loose tolerance
    /// (`avi::PhantomSettings::loose_tolerance`), not the tight one.
    pub implicit_loose_steps: Option<u64>,
    /// The deepest penalty layer activated (0: none).
    pub deepest_layer: u32,
    /// The smallest gap (distance minus radii) between contact primitives seen at a contact
    /// event, m.
    pub smallest_distance: Option<Real>,
    /// The largest estimated heap size of the contact bookkeeping seen at a frame, per vertex of
    /// the model, bytes.
    pub contact_peak_bytes_per_vertex: Option<f64>,
    /// That peak by part, per vertex, bytes.
    pub contact_peak_parts_per_vertex: Option<BTreeMap<&'static str, f64>>,
    /// What kicks cost the contact certificates (ACM §5.2–§5.3): `recertified` (certificates
    /// recomputed because a kick left a vertex's tube), `slabs_kept` (slab certificates such a
    /// kick could not make fail sooner, left as they were) and `kicks_inside_tubes` (kicked
    /// vertices whose velocity stayed in their tube: nothing recomputed).
    pub contact_rescheduling: Option<BTreeMap<&'static str, u64>>,
}

/// The error of a run stopped by `interrupt` after its event at `now`.
pub(crate) fn interruption(interrupt: &Interrupt, now: Time) -> SimulationError {
    let cause = interrupt.cause().unwrap_or(InterruptCause::Requested);
    SimulationError::Interrupted { cause, time: now.seconds() }
}

/// A backend: integrates the potentials of a model, event by event, and hands every event and
/// frame to an observer. [`Simulation`](crate::Simulation) holds one behind this trait, so the
/// facade and the command line work with any backend. It is `Send` and `Sync`, so a simulation can move to
/// another thread (the Python package runs it with the interpreter's lock released).
pub trait Backend: std::fmt::Debug + std::any::Any + Send + Sync {
    /// Its name, as `summary.json` writes it ([`BackendKind::name`] for the built-in ones).
    fn name(&self) -> &'static str;

    /// The potentials being integrated.
    fn potentials(&self) -> Box<dyn Iterator<Item = &dyn Potential> + '_>;

    /// Each potential with the period it is evaluated at, s (the AVI: its clock's; the
    /// synchronous backend: the time step).
    fn periods(&self) -> Box<dyn Iterator<Item = (&dyn Potential, Real)> + '_>;

    /// Energy removed by damping so far, J.
    fn dissipated(&self) -> Real;

    /// The energy ledger so far ([`crate::ledger`]): by default what [`Backend::dissipated`]
    /// says and no external work.
    fn ledger(&self) -> Ledger {
        Ledger { dissipated: self.dissipated(), ..Ledger::default() }
    }

    /// Energy of the contact model at `positions` (every vertex at one time), J: the AVI's
    /// penalty layers (ACM §4), the synchronous backend's IPC barriers; 0 without contact. A
    /// frame's potential energy is the potentials' plus this.
    fn contact_energy(&self, _positions: &[Vec3]) -> Real {
        0.0
    }

    /// Adds to a frame's numbers at time `t` what the backend holds beyond the model's vertices:
    /// the AVI's phantom meshes (Phantom §3.2: the other half of the mass, the implicit
    /// potentials at the phantom positions). Nothing by default.
    fn measure_own_state(&self, _model: &Model, _t: Real, _stats: &mut FrameStats) {}

    /// Event counts and wall time so far.
    fn counters(&self) -> &Counters;

    /// Mutable counters (the facade adds wall time).
    fn counters_mut(&mut self) -> &mut Counters;

    /// Time of the last processed event (the synchronous backend: of the current state).
    fn now(&self) -> Time;

    /// Time of the next event, if any.
    fn next_time(&self) -> Option<Time>;

    /// Processes exactly one event, whatever its time; `None` when there is none.
    fn step(&mut self, model: &mut Model, observer: &mut dyn Observer) -> Result<Option<EventRecord>, SimulationError>;

    /// Processes every event at or before `t` (s), reading `interrupt` before each one (a relaxed
    /// load): once it is raised, returns [`SimulationError::Interrupted`] with the time of the
    /// last processed event, leaving the rest for a later call.
    fn advance_to(
        &mut self,
        model: &mut Model,
        t: Real,
        observer: &mut dyn Observer,
        interrupt: &Interrupt,
    ) -> Result<(), SimulationError> {
        while self.next_time().is_some_and(|next| next.seconds() <= t) {
            if interrupt.is_requested() {
                return Err(interruption(interrupt, self.now()));
            }
            self.step(model, observer)?;
        }
        Ok(())
    }

    /// Audit mode: after every event, check the backend's invariants and stop the run at the
    /// first failure. A backend without one ignores it.
    fn set_audit(&mut self, _on: bool) {}

    /// Profiling: wall time by event kind in the counters. A backend that does not profile
    /// ignores it.
    fn set_profile(&mut self, _on: bool) {}

    /// What the backend reports about the run so far, for `summary.json`.
    fn facts(&self, model: &Model) -> BackendFacts;

    /// Events per simulated second at the start, by source, for the work estimate that
    /// `avicontact run` checks before a run ([`crate::workload`]; none by default).
    fn event_rates(&self, _model: &Model) -> Vec<EventRate> {
        Vec::new()
    }

    /// Appends the backend's whole state to `out`, for a checkpoint ([`crate::checkpoint`]):
    /// with the model's vertices, enough to continue bit-identically in a backend rebuilt from
    /// the same scene. Unsupported by default.
    fn save_state(&self, _out: &mut Vec<u8>) -> Result<(), CheckpointError> {
        Err(CheckpointError::Unsupported(format!("the {} backend yet: run without --checkpoint-every", self.name())))
    }

    /// Puts back what [`Backend::save_state`] wrote, into a backend rebuilt from the same scene.
    fn restore_state(&mut self, _bytes: &[u8]) -> Result<(), CheckpointError> {
        Err(CheckpointError::Unsupported(format!("the {} backend yet", self.name())))
    }

    /// Lines for `avicontact info` after the potentials and their periods (none by default).
    fn describe(&self) -> Vec<String> {
        Vec::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backends_are_named_as_in_scene_files() {
        for (name, kind) in BackendKind::NAMES {
            assert_eq!(BackendKind::from_name(name), Some(kind));
            assert_eq!(kind.name(), name);
        }
        assert_eq!(BackendKind::from_name("gpu"), None);
    }
}
