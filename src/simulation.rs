//! The facade (layer L5 of `docs/design.md`): a model, a backend behind the
//! [`Backend`] seam (the AVI, the synchronous one, or your own), and
//! observers, which the library calls rather than owning the loop.
//!
//! ```no_run
//! use avicontact::prelude::*;
//! let scene = avicontact::scene::load("hanging-cloth").expect("built-in scene");
//! let mut sim = Simulation::new(scene.model, scene.forces, scene.parameters).expect("valid scene");
//! sim.run(&mut ()).expect("run");
//! println!("{} events", sim.counters().events);
//! ```

use crate::avi::phantom::Split;
use crate::avi::{AviEngine, ContactSettings, PhantomMeshes, PhantomSettings};
use crate::backend::{Backend, BackendFacts};
use crate::checkpoint::{decode, encode, hash_bytes, CheckpointError};
use crate::error::SimulationError;
use crate::events::PeriodLadder;
use crate::force::ForceSpec;
use crate::ids::VertexId;
use crate::interrupt::Interrupt;
use crate::ledger::Ledger;
use crate::math::{Compact, Real, Time, Vec3};
use crate::model::{Model, Vertices};
use crate::observe::{EventRecord, FrameStats, Observer};
use crate::potential::Potential;
use crate::stats::Counters;
use crate::sync::{SyncEngine, SyncParameters};
use crate::workload::{frame_bytes, Workload};
use std::any::Any;
use std::time::Instant;

/// Tunables of a run, with defaults.
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
    /// Bodies whose elastic potentials the AVI integrates on a phantom mesh with one implicit
    /// step (Phantom §3.2; none by default). The synchronous backend integrates every potential
    /// implicitly anyway and ignores it.
    pub phantom: PhantomSettings,
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
            phantom: PhantomSettings::default(),
        }
    }
}

/// A model integrated by a backend: the AVI engine, the synchronous one, or any other
/// [`Backend`].
#[derive(Debug)]
pub struct Simulation {
    model: Model,
    backend: Box<dyn Backend>,
    parameters: SimulationParameters,
    interrupt: Interrupt,
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
        let mut model = model;
        // phantom bodies' elastic potentials leave the clocks for their implicit steps, and their
        // vertices give half their mass to their phantoms
        let Split { explicit: mut forces, phantoms } =
            PhantomMeshes::split(&mut model, forces, parameters.phantom.clone())?;
        // With contact, a potential whose stiffness is unbounded (a neo-Hookean bar crushed
        // toward zero length) keeps only a part of bounded stiffness on its clock and hands the
        // rest to penalty layers (see `CompressionBarrier`): its clock period, estimated once,
        // then holds at every length
        let mut barriers = Vec::new();
        if parameters.contact.is_some() {
            barriers.extend(forces.iter_mut().filter_map(|spec| spec.potential.split_compression_barrier()));
        }
        let mut engine =
            AviEngine::new(&model, forces, parameters.safety_factor, parameters.period_ladder, parameters.frame_rate)?;
        if let Some(phantoms) = phantoms {
            engine = engine.with_phantoms(phantoms)?;
        }
        if let Some(contact) = parameters.contact {
            engine = engine.with_contact_and_barriers(&model, contact, &barriers)?;
        }
        Ok(Simulation { model, backend: Box::new(engine), parameters, interrupt: Interrupt::new() })
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
        Ok(Simulation { model, backend: Box::new(engine), parameters, interrupt: Interrupt::new() })
    }

    /// `model` on a backend built for it (any [`Backend`]), run for `parameters.duration`.
    pub fn with_backend(
        model: Model,
        backend: Box<dyn Backend>,
        parameters: SimulationParameters,
    ) -> Result<Self, SimulationError> {
        check_duration(&parameters)?;
        Ok(Simulation { model, backend, parameters, interrupt: Interrupt::new() })
    }

    /// The flag that stops [`advance_to`](Self::advance_to) and [`run`](Self::run) after the event
    /// in progress (each simulation has its own, not raised). Clone it to raise it from another
    /// thread or a signal handler.
    pub fn interrupt(&self) -> &Interrupt {
        &self.interrupt
    }

    /// Uses `interrupt` as this simulation's stop flag (e.g. one flag for several simulations, or
    /// one a signal handler was registered with before the simulation was built).
    pub fn set_interrupt(&mut self, interrupt: Interrupt) {
        self.interrupt = interrupt;
    }

    /// The model (AVI: vertex positions are each at their own `t_last`).
    pub fn model(&self) -> &Model {
        &self.model
    }

    /// The backend.
    pub fn backend(&self) -> &dyn Backend {
        self.backend.as_ref()
    }

    /// The backend, mutable (e.g. to switch on its audit mode).
    pub fn backend_mut(&mut self) -> &mut dyn Backend {
        self.backend.as_mut()
    }

    /// The AVI engine (potentials and their clocks), when running on it.
    pub fn avi(&self) -> Option<&AviEngine> {
        (self.backend.as_ref() as &dyn Any).downcast_ref()
    }

    /// The AVI engine, mutable (e.g. to make it pop simultaneous events in reverse).
    pub fn avi_mut(&mut self) -> Option<&mut AviEngine> {
        (self.backend.as_mut() as &mut dyn Any).downcast_mut()
    }

    /// The synchronous engine, when running on it.
    pub fn sync(&self) -> Option<&SyncEngine> {
        (self.backend.as_ref() as &dyn Any).downcast_ref()
    }

    /// The backend's name: `"avi"` or `"sync"` (see [`Backend::name`]).
    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    /// The potentials being integrated.
    pub fn potentials(&self) -> Box<dyn Iterator<Item = &dyn Potential> + '_> {
        self.backend.potentials()
    }

    /// Energy removed by damping so far, J.
    pub fn dissipated(&self) -> Real {
        self.backend.dissipated()
    }

    /// The energy ledger so far: dissipated energy and the work of scripted vertices
    /// ([`crate::ledger`]).
    pub fn ledger(&self) -> Ledger {
        self.backend.ledger()
    }

    /// Moves the end of the run to `duration` s (finite and > 0), as `resume --duration` does:
    /// the duration says only where [`run`](Self::run) stops, so a run taken on past its old end
    /// makes the events of one started with the new duration.
    pub fn set_duration(&mut self, duration: f64) -> Result<(), SimulationError> {
        let parameters = SimulationParameters { duration, ..self.parameters.clone() };
        check_duration(&parameters)?;
        self.parameters = parameters;
        Ok(())
    }

    /// The parameters the simulation was built with (the duration as last set).
    pub fn parameters(&self) -> &SimulationParameters {
        &self.parameters
    }

    /// Event counts and wall time so far.
    pub fn counters(&self) -> &Counters {
        self.backend.counters()
    }

    /// What the backend reports about the run so far (`summary.json`'s backend-specific fields).
    pub fn facts(&self) -> BackendFacts {
        self.backend.facts(&self.model)
    }

    /// What a run of the scene's duration will take, estimated from the state now: events per
    /// simulated second by source, frames and their bytes ([`crate::workload`]).
    pub fn workload(&self) -> Workload {
        let model = &self.model;
        let triangles = model.bodies.values().map(|b| b.kind.triangles().len()).sum();
        Workload {
            duration: self.parameters.duration,
            frame_rate: self.parameters.frame_rate,
            rates: self.backend.event_rates(model),
            frame_bytes: frame_bytes(model.vertices.len(), triangles),
        }
    }

    /// Every vertex's position at [`now`](Self::now), as a frame takes it: on the AVI each vertex
    /// is evaluated along its drift from its own last kick (the trajectory is not touched).
    pub fn positions(&self) -> Vec<Vec3> {
        let (vertices, t) = (&self.model.vertices, self.now().seconds());
        (0..vertices.len()).map(|i| vertices.position_at(VertexId(i as u32), t)).collect()
    }

    /// Energy and momentum at [`now`](Self::now), measured as a frame measures them: after
    /// `advance_to` a frame's time, the numbers of that frame's row of `stats.csv`, bit for bit.
    pub fn measure(&self) -> FrameStats {
        let positions = self.positions();
        let counters = self.backend.counters();
        let mut stats = FrameStats::measure(&self.model, &positions, self.potentials(), self.ledger(), counters.events);
        self.backend.measure_own_state(&self.model, self.now().seconds(), &mut stats);
        stats.potential += self.backend.contact_energy(&positions);
        stats
    }

    /// The simulation's whole state between two events, for a checkpoint
    /// ([`crate::checkpoint`]): every vertex, then the backend's state
    /// ([`Backend::save_state`]). [`restore_state`](Self::restore_state) puts it back into a
    /// simulation built from the same scene, which then continues bit-identically.
    pub fn save_state(&self) -> Result<Vec<u8>, CheckpointError> {
        let mut out = Vec::new();
        encode(&self.model.vertices, &mut out)?;
        self.backend.save_state(&mut out)?;
        Ok(out)
    }

    /// Puts back a state [`save_state`](Self::save_state) took of a simulation built from the
    /// same scene (check [`fingerprint`](Self::fingerprint) first).
    pub fn restore_state(&mut self, state: &[u8]) -> Result<(), CheckpointError> {
        let (vertices, rest): (Vertices, _) = decode(state, "vertices")?;
        if vertices.len() != self.model.vertices.len() {
            return Err(CheckpointError::Mismatch(format!(
                "{} vertices saved, {} in the scene",
                vertices.len(),
                self.model.vertices.len()
            )));
        }
        self.backend.restore_state(rest)?;
        self.model.vertices = vertices;
        Ok(())
    }

    /// A hash of what the simulation was built from: its vertices, bodies, parameters and every
    /// potential's kind, stencil and period. Taken at the start, it tells a checkpoint's scene
    /// from an edited one (a changed mesh file included).
    pub fn fingerprint(&self) -> u64 {
        let mut bytes = Vec::new();
        // encoding into a vector cannot fail for these types
        let _ = encode(&self.model.vertices, &mut bytes);
        let bodies: Vec<_> = self.model.bodies.values().collect();
        // the duration says where the run stops, not where it starts: `resume --duration` may change it
        let start = SimulationParameters { duration: 0.0, ..self.parameters.clone() };
        bytes.extend(format!("{bodies:?}{start:?}{}", self.backend.name()).bytes());
        for (potential, period) in self.backend.periods() {
            bytes.extend(potential.kind().bytes());
            bytes.extend(potential.stencil().iter().flat_map(|v| v.0.to_le_bytes()));
            bytes.extend(period.to_le_bytes());
        }
        hash_bytes(&bytes)
    }

    /// Time of the last processed event (sync: of the current state).
    pub fn now(&self) -> Time {
        self.backend.now()
    }

    /// Processes exactly one event (sync: one step or one frame), whatever its time.
    pub fn step_event<O: Observer + ?Sized>(
        &mut self,
        observer: &mut O,
    ) -> Result<Option<EventRecord>, SimulationError> {
        let mut observer = observer;
        self.backend.step(&mut self.model, &mut observer)
    }

    /// Processes every event at or before `t` (s). Before each event it reads the
    /// [`interrupt`](Self::interrupt) flag; once that is raised it stops with
    /// [`SimulationError::Interrupted`], the events after the last processed one left for the next
    /// call.
    pub fn advance_to<O: Observer + ?Sized>(&mut self, t: Real, observer: &mut O) -> Result<(), SimulationError> {
        if !t.is_finite() {
            return Err(SimulationError::BadParameter {
                name: "advance_to",
                message: format!("the target time must be a finite number of seconds, got {}", Compact(t)),
            });
        }
        let start = Instant::now();
        let mut observer = observer;
        let result = self.backend.advance_to(&mut self.model, t, &mut observer, &self.interrupt);
        self.backend.counters_mut().wall_seconds += start.elapsed().as_secs_f64();
        result
    }

    /// Runs to the end of the scene's duration (or until the [`interrupt`](Self::interrupt) flag
    /// is raised, as [`advance_to`](Self::advance_to)).
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
            message: format!("must be a finite number of seconds > 0, got {}", Compact(parameters.duration)),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::observe::{EventKind, Frame, FrameStats};

    /// A backend of one's own: it takes a frame every 0.1 s and integrates nothing.
    #[derive(Debug, Default)]
    struct FramesOnly {
        counters: Counters,
        frames: u64,
        positions: Vec<crate::math::Vec3>,
    }

    impl Backend for FramesOnly {
        fn name(&self) -> &'static str {
            "frames-only"
        }
        fn potentials(&self) -> Box<dyn Iterator<Item = &dyn Potential> + '_> {
            Box::new(std::iter::empty())
        }
        fn periods(&self) -> Box<dyn Iterator<Item = (&dyn Potential, Real)> + '_> {
            Box::new(std::iter::empty())
        }
        fn dissipated(&self) -> Real {
            0.0
        }
        fn counters(&self) -> &Counters {
            &self.counters
        }
        fn counters_mut(&mut self) -> &mut Counters {
            &mut self.counters
        }
        fn now(&self) -> Time {
            Time::new(self.frames.saturating_sub(1) as Real * 0.1).expect("finite")
        }
        fn next_time(&self) -> Option<Time> {
            Time::new(self.frames as Real * 0.1)
        }
        fn step(
            &mut self,
            model: &mut Model,
            observer: &mut dyn Observer,
        ) -> Result<Option<EventRecord>, SimulationError> {
            let time = self.next_time().expect("always a next frame");
            let slot = self.counters.slot("frame");
            self.counters.count(slot);
            self.positions = model.vertices.positions().to_vec();
            let stats = FrameStats::measure(
                model,
                &self.positions,
                std::iter::empty(),
                Default::default(),
                self.counters.events,
            );
            let frame = Frame { index: self.frames, time, positions: &self.positions, model, stats, contact: None };
            observer.on_frame(&frame).map_err(SimulationError::Observer)?;
            self.frames += 1;
            let record = EventRecord {
                time,
                kind: EventKind::Frame,
                force: None,
                label: "frame",
                tick: self.frames - 1,
                period: 0.1,
            };
            observer.on_event(&record);
            Ok(Some(record))
        }
        fn facts(&self, _model: &Model) -> BackendFacts {
            BackendFacts::default()
        }
    }

    /// Counts frames.
    #[derive(Default)]
    struct Frames(u64);

    impl Observer for Frames {
        fn on_frame(&mut self, _frame: &Frame<'_>) -> Result<(), crate::observe::ObserverError> {
            self.0 += 1;
            Ok(())
        }
    }

    #[test]
    fn a_backend_of_ones_own_runs_behind_the_facade() {
        let scene = crate::scene::load("spinning-shell").expect("built-in scene");
        let parameters = SimulationParameters { duration: 0.5, ..scene.parameters };
        let mut sim = Simulation::with_backend(scene.model, Box::new(FramesOnly::default()), parameters)
            .expect("a valid duration");
        let mut frames = Frames::default();
        sim.run(&mut frames).expect("the run");
        assert_eq!(frames.0, 6, "frames at 0, 0.1, …, 0.5 s");
        assert_eq!(sim.backend_name(), "frames-only");
        assert_eq!(sim.counters().events, 6);
        assert!(sim.avi().is_none() && sim.sync().is_none());
        assert_eq!(sim.facts(), BackendFacts::default());
    }

    /// Raises an interrupt at its `at`-th event, and remembers that event's time.
    struct RaiseAt {
        interrupt: Interrupt,
        at: u64,
        seen: u64,
        time: f64,
    }

    impl Observer for RaiseAt {
        fn on_event(&mut self, event: &EventRecord) {
            self.seen += 1;
            if self.seen == self.at {
                self.interrupt.request_signal(2);
                self.time = event.time.seconds();
            }
        }
    }

    #[test]
    fn an_interrupted_run_stops_after_the_event_and_goes_on_to_the_same_state() {
        let build = || {
            let scene = crate::scene::load("hanging-cloth").expect("built-in scene");
            Simulation::new(scene.model, scene.forces, scene.parameters).expect("the AVI")
        };
        let mut whole = build();
        whole.advance_to(0.05, &mut ()).expect("the run");
        let mut sim = build();
        let mut raise = RaiseAt { interrupt: sim.interrupt().clone(), at: 10_000, seen: 0, time: -1.0 };
        match sim.advance_to(0.05, &mut raise) {
            Err(e @ SimulationError::Interrupted { .. }) => {
                assert!(e.can_continue());
                let SimulationError::Interrupted { cause, time } = e else { unreachable!() };
                assert_eq!(cause, crate::interrupt::InterruptCause::Signal(2));
                assert_eq!(time, raise.time, "stops right after the event in progress");
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(sim.counters().events, 10_000);
        assert!(sim.counters().wall_seconds > 0.0);
        sim.interrupt().clear();
        sim.advance_to(0.05, &mut ()).expect("goes on");
        assert_eq!(sim.counters().events, whole.counters().events);
        assert_eq!(sim.model().vertices.positions(), whole.model().vertices.positions(), "bit-identical");
    }

    /// The stats of every frame.
    #[derive(Default)]
    struct FrameRows(Vec<FrameStats>);

    impl Observer for FrameRows {
        fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), crate::observe::ObserverError> {
            self.0.push(frame.stats);
            Ok(())
        }
    }

    #[test]
    fn measuring_after_a_frame_gives_that_frames_numbers_bit_for_bit() {
        // with contact on both backends: penalty layers on the AVI, IPC barriers on the sync one
        for (scene, backend) in [
            ("sheet-on-sphere", crate::backend::BackendKind::Avi),
            ("sheet-on-block", crate::backend::BackendKind::Sync),
        ] {
            let scene = crate::scene::load(scene).expect("built-in scene");
            let frame_rate = scene.parameters.frame_rate;
            let mut sim = scene.into_simulation(backend).expect("builds");
            let mut rows = FrameRows::default();
            for k in 0..6 {
                sim.advance_to(k as Real * 4.0 / frame_rate, &mut rows).expect("runs");
                let frame = rows.0.last().expect("a frame at the target");
                let now = sim.measure();
                assert_eq!(sim.now().seconds(), k as Real * 4.0 / frame_rate);
                assert_eq!(
                    (now.kinetic, now.potential, now.dissipated, now.external_work),
                    (frame.kinetic, frame.potential, frame.dissipated, frame.external_work)
                );
                assert_eq!((now.momentum, now.angular_momentum), (frame.momentum, frame.angular_momentum));
            }
            assert!(rows.0.last().expect("frames").potential != rows.0[0].potential, "something moved");
        }
    }

    #[test]
    fn the_built_in_backends_are_reached_through_the_facade() {
        let scene = crate::scene::load("hanging-cloth").expect("built-in scene");
        let sim = Simulation::new(scene.model, scene.forces, scene.parameters).expect("the AVI");
        assert_eq!(sim.backend_name(), "avi");
        assert!(sim.avi().is_some() && sim.sync().is_none());
        assert_eq!(sim.backend().periods().count(), sim.potentials().count());
        let lines = sim.backend().describe();
        assert!(lines[0].starts_with("force events per simulated second (AVI): "), "{lines:?}");
        let scene = crate::scene::load("bar-collision").expect("built-in scene");
        let sim = Simulation::new_sync(scene.model, scene.forces, scene.parameters, scene.sync)
            .expect("the synchronous backend");
        assert_eq!(sim.backend_name(), "sync");
        assert!(sim.sync().is_some() && sim.avi().is_none());
        assert_eq!(sim.facts().integrator, Some("a-search"));
        assert_eq!(sim.facts().newton_iterations, Some(0));
    }
}
