//! The facade: a model, the AVI backend and observers (DESIGN L5; STYLE habit 15).
//!
//! ```no_run
//! use avicontact::prelude::*;
//! let scene = avicontact::scene::load("hanging-cloth").expect("built-in scene");
//! let mut sim = Simulation::new(scene.model, scene.forces, scene.parameters).expect("valid scene");
//! sim.run(&mut ()).expect("run");
//! println!("{} events", sim.counters().events);
//! ```

use crate::avi::{AviEngine, ForceSpec};
use crate::error::SimulationError;
use crate::math::{Real, Time, Vec3};
use crate::model::Model;
use crate::observe::{EventRecord, Observer};
use crate::stats::Counters;
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
    /// Factor applied to every stable-step estimate (0 < s ≤ 1).
    pub safety_factor: Real,
}

impl Default for SimulationParameters {
    fn default() -> Self {
        SimulationParameters { duration: 1.0, frame_rate: 60.0, gravity: Vec3::new(0.0, 0.0, -9.8), safety_factor: 0.5 }
    }
}

/// A model integrated by the AVI engine.
#[derive(Debug)]
pub struct Simulation {
    model: Model,
    engine: AviEngine,
    parameters: SimulationParameters,
}

impl Simulation {
    /// Puts `forces` on clocks (see [`PeriodChoice`](crate::avi::PeriodChoice)) and schedules the
    /// first frame at t = 0.
    pub fn new(
        model: Model,
        forces: Vec<ForceSpec>,
        parameters: SimulationParameters,
    ) -> Result<Self, SimulationError> {
        if !(parameters.duration.is_finite() && parameters.duration > 0.0) {
            return Err(SimulationError::BadParameter {
                name: "duration",
                message: format!("must be a finite number of seconds > 0, got {}", parameters.duration),
            });
        }
        let engine = AviEngine::new(&model, forces, parameters.safety_factor, parameters.frame_rate)?;
        Ok(Simulation { model, engine, parameters })
    }

    /// The model (vertex positions are each at their own `t_last`).
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The engine (potentials, clocks, counters).
    pub fn engine(&self) -> &AviEngine {
        &self.engine
    }

    /// The parameters the simulation was built with.
    pub fn parameters(&self) -> &SimulationParameters {
        &self.parameters
    }

    /// Event counts and wall time so far.
    pub fn counters(&self) -> &Counters {
        self.engine.counters()
    }

    /// Time of the last processed event.
    pub fn now(&self) -> Time {
        self.engine.now()
    }

    /// Processes exactly one event, whatever its time.
    pub fn step_event<O: Observer + ?Sized>(
        &mut self,
        observer: &mut O,
    ) -> Result<Option<EventRecord>, SimulationError> {
        self.engine.step(&mut self.model, observer)
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
        let result = (|| {
            while let Some(next) = self.engine.next_time() {
                if next.seconds() > t {
                    break;
                }
                self.engine.step(&mut self.model, observer)?;
            }
            Ok(())
        })();
        self.engine.counters_mut().wall_seconds += start.elapsed().as_secs_f64();
        result
    }

    /// Runs to the end of the scene's duration.
    pub fn run<O: Observer + ?Sized>(&mut self, observer: &mut O) -> Result<(), SimulationError> {
        self.advance_to(self.parameters.duration, observer)
    }
}
