//! The synchronous engine behind the [`Backend`] seam.

use super::engine::SyncEngine;
use crate::backend::{Backend, BackendFacts, BackendKind};
use crate::checkpoint::CheckpointError;
use crate::error::SimulationError;
use crate::ledger::Ledger;
use crate::math::{Real, Time, Vec3};
use crate::model::Model;
use crate::observe::{EventRecord, Observer};
use crate::potential::Potential;
use crate::stats::Counters;
use crate::workload::EventRate;

impl Backend for SyncEngine {
    fn save_state(&self, out: &mut Vec<u8>) -> Result<(), CheckpointError> {
        SyncEngine::save_state(self, out)
    }

    fn restore_state(&mut self, bytes: &[u8]) -> Result<(), CheckpointError> {
        SyncEngine::restore_state(self, bytes)
    }

    fn name(&self) -> &'static str {
        BackendKind::Sync.name()
    }

    fn potentials(&self) -> Box<dyn Iterator<Item = &dyn Potential> + '_> {
        Box::new(SyncEngine::potentials(self))
    }

    fn periods(&self) -> Box<dyn Iterator<Item = (&dyn Potential, Real)> + '_> {
        let h = self.parameters().timestep;
        Box::new(SyncEngine::potentials(self).map(move |potential| (potential, h)))
    }

    fn dissipated(&self) -> Real {
        SyncEngine::dissipated(self)
    }

    fn contact_energy(&self, positions: &[Vec3]) -> Real {
        self.barrier_energy(positions)
    }

    fn ledger(&self) -> Ledger {
        SyncEngine::ledger(self)
    }

    fn counters(&self) -> &Counters {
        SyncEngine::counters(self)
    }

    fn counters_mut(&mut self) -> &mut Counters {
        SyncEngine::counters_mut(self)
    }

    fn now(&self) -> Time {
        SyncEngine::now(self)
    }

    fn next_time(&self) -> Option<Time> {
        Some(SyncEngine::next_time(self))
    }

    fn step(&mut self, model: &mut Model, observer: &mut dyn Observer) -> Result<Option<EventRecord>, SimulationError> {
        SyncEngine::step(self, model, observer)
    }

    /// Every potential is evaluated at least once per step.
    fn event_rates(&self, _model: &Model) -> Vec<EventRate> {
        vec![EventRate {
            source: "potential evaluations in time steps",
            per_second: self.potentials().count() as Real / self.parameters().timestep,
            keys: "[sync] timestep",
        }]
    }

    fn facts(&self, _model: &Model) -> BackendFacts {
        BackendFacts {
            integrator: Some(self.integrator()),
            solver: Some(self.parameters().solver.name()),
            // the local/global solver factorises its matrices once, by Cholesky
            linear_solver: Some(match self.parameters().solver {
                crate::sync::SolverKind::LocalGlobal { .. } => crate::sync::LinearSolver::Cholesky.name(),
                crate::sync::SolverKind::Newton => self.parameters().newton.linear_solver.name(),
            }),
            newton_iterations: Some(self.newton_iterations()),
            linear_solve_seconds: Some(self.linear_solve_seconds()),
            ..BackendFacts::default()
        }
    }
}
