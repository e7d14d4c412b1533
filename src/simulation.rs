//! The facade: a model, a backend (the AVI or the synchronous one) and observers (DESIGN L5;
//! STYLE habit 15).
//!
//! ```no_run
//! use avicontact::prelude::*;
//! let scene = avicontact::scene::load("hanging-cloth").expect("built-in scene");
//! let mut sim = Simulation::new(scene.model, scene.forces, scene.parameters).expect("valid scene");
//! sim.run(&mut ()).expect("run");
//! println!("{} events", sim.counters().events);
//! ```

use crate::avi::{AviEngine, ContactSettings};
use crate::error::SimulationError;
use crate::events::PeriodLadder;
use crate::force::ForceSpec;
use crate::math::{Real, Time, Vec3};
use crate::model::Model;
use crate::observe::{EventRecord, Observer};
use crate::potential::Potential;
use crate::stats::Counters;
use crate::sync::{SyncEngine, SyncParameters};
use std::time::Instant;

/// Tunables of a run, with defaults (STYLE habit 4).
#[derive(Clone, Debug, PartialEq)]
pub struct SimulationParameters {
    /// Simulated seconds to run, s.
    pub duration: Real,
    /// Frames per simulated second.
    pub frame_rate: Real,
    /// Gravitational acceleration, m/s² (applied by the scene builder as gravity potentials).
    pub gravity: Vec3,
    /// Factor applied to every stable-step estimate (0 < s ≤ 1; AVI only).
    pub safety_factor: Real,
    /// Rounds stable-step estimates (after `safety_factor`) down so that like elements share a
    /// period (AVI only).
    pub period_ladder: PeriodLadder,
    /// Contact on the AVI backend (penalty layers and certificates), or `None`.
    pub contact: Option<ContactSettings>,
}

impl Default for SimulationParameters {
    fn default() -> Self {
        SimulationParameters {
            duration: 1.0,
            frame_rate: 60.0,
            gravity: Vec3::new(0.0, 0.0, -9.8),
            safety_factor: 0.5,
            period_ladder: PeriodLadder::DEFAULT,
            contact: None,
        }
    }
}

/// The backend a simulation runs on.
#[derive(Debug)]
enum Engine {
    Avi(AviEngine),
    Sync(SyncEngine),
}

/// A model integrated by the AVI engine or by the synchronous backend.
#[derive(Debug)]
pub struct Simulation {
    model: Model,
    engine: Engine,
    parameters: SimulationParameters,
}

impl Simulation {
    /// Puts `forces` on clocks (see [`PeriodChoice`](crate::force::PeriodChoice)) and schedules the
    /// first frame at t = 0: the AVI backend.
    pub fn new(
        model: Model,
        forces: Vec<ForceSpec>,
        parameters: SimulationParameters,
    ) -> Result<Self, SimulationError> {
        check_duration(&parameters)?;
        let mut engine =
            AviEngine::new(&model, forces, parameters.safety_factor, parameters.period_ladder, parameters.frame_rate)?;
        if let Some(contact) = parameters.contact {
            engine = engine.with_contact(&model, contact)?;
        }
        Ok(Simulation { model, engine: Engine::Avi(engine), parameters })
    }

    /// The same model and potentials on the synchronous backend: every potential is evaluated at
    /// every step of `sync.timestep` (the AVI clock choices are ignored).
    pub fn new_sync(
        model: Model,
        forces: Vec<ForceSpec>,
        parameters: SimulationParameters,
        sync: SyncParameters,
    ) -> Result<Self, SimulationError> {
        check_duration(&parameters)?;
        let engine = SyncEngine::new(&model, forces, sync, parameters.frame_rate)?;
        Ok(Simulation { model, engine: Engine::Sync(engine), parameters })
    }

    /// The model (AVI: vertex positions are each at their own `t_last`).
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The AVI engine (potentials and their clocks), when running on it.
    pub fn avi(&self) -> Option<&AviEngine> {
        match &self.engine {
            Engine::Avi(e) => Some(e),
            Engine::Sync(_) => None,
        }
    }

    /// The AVI engine, mutable (e.g. to switch on its audit mode).
    pub fn avi_mut(&mut self) -> Option<&mut AviEngine> {
        match &mut self.engine {
            Engine::Avi(e) => Some(e),
            Engine::Sync(_) => None,
        }
    }

    /// The synchronous engine, when running on it.
    pub fn sync(&self) -> Option<&SyncEngine> {
        match &self.engine {
            Engine::Sync(e) => Some(e),
            Engine::Avi(_) => None,
        }
    }

    /// `"avi"` or `"sync"`.
    pub fn backend_name(&self) -> &'static str {
        match &self.engine {
            Engine::Avi(_) => "avi",
            Engine::Sync(_) => "sync",
        }
    }

    /// The potentials being integrated.
    pub fn potentials(&self) -> Box<dyn Iterator<Item = &dyn Potential> + '_> {
        match &self.engine {
            Engine::Avi(e) => Box::new(e.potentials()),
            Engine::Sync(e) => Box::new(e.potentials()),
        }
    }

    /// Energy removed by damping so far, J.
    pub fn dissipated(&self) -> Real {
        match &self.engine {
            Engine::Avi(e) => e.dissipated(),
            Engine::Sync(e) => e.dissipated(),
        }
    }

    /// The parameters the simulation was built with.
    pub fn parameters(&self) -> &SimulationParameters {
        &self.parameters
    }

    /// Event counts and wall time so far.
    pub fn counters(&self) -> &Counters {
        match &self.engine {
            Engine::Avi(e) => e.counters(),
            Engine::Sync(e) => e.counters(),
        }
    }

    /// Time of the last processed event (sync: of the current state).
    pub fn now(&self) -> Time {
        match &self.engine {
            Engine::Avi(e) => e.now(),
            Engine::Sync(e) => e.now(),
        }
    }

    /// Processes exactly one event (sync: one step or one frame), whatever its time.
    pub fn step_event<O: Observer + ?Sized>(
        &mut self,
        observer: &mut O,
    ) -> Result<Option<EventRecord>, SimulationError> {
        match &mut self.engine {
            Engine::Avi(e) => e.step(&mut self.model, observer),
            Engine::Sync(e) => e.step(&mut self.model, observer),
        }
    }

    /// Processes every event at or before `t` (s).
    pub fn advance_to<O: Observer + ?Sized>(&mut self, t: Real, observer: &mut O) -> Result<(), SimulationError> {
        if !t.is_finite() {
            return Err(SimulationError::BadParameter {
                name: "advance_to",
                message: format!("the target time must be a finite number of seconds, got {t}"),
            });
        }
        let start = Instant::now();
        let result = (|| loop {
            let next = match &self.engine {
                Engine::Avi(e) => e.next_time(),
                Engine::Sync(e) => Some(e.next_time()),
            };
            match next {
                Some(next) if next.seconds() <= t => {
                    self.step_event(observer)?;
                }
                _ => return Ok(()),
            }
        })();
        let wall = start.elapsed().as_secs_f64();
        match &mut self.engine {
            Engine::Avi(e) => e.counters_mut().wall_seconds += wall,
            Engine::Sync(e) => e.counters_mut().wall_seconds += wall,
        }
        result
    }

    /// Runs to the end of the scene's duration.
    pub fn run<O: Observer + ?Sized>(&mut self, observer: &mut O) -> Result<(), SimulationError> {
        self.advance_to(self.parameters.duration, observer)
    }
}

fn check_duration(parameters: &SimulationParameters) -> Result<(), SimulationError> {
    if parameters.duration.is_finite() && parameters.duration > 0.0 {
        Ok(())
    } else {
        Err(SimulationError::BadParameter {
            name: "duration",
            message: format!("must be a finite number of seconds > 0, got {}", parameters.duration),
        })
    }
}
