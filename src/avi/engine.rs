//! The event loop: pop → drift the stencil → kick → push the next tick (ACM Algorithm 1).

use super::contact::{ContactManager, ContactSettings, Schedule};
use super::phantom::PhantomMeshes;
use crate::error::SimulationError;
use crate::events::{Clock, EventQueue, Filing, PeriodLadder};
use crate::force::{ForceSpec, PeriodChoice};
use crate::ids::{BodyId, PairId};
use crate::ids::{ForceId, VertexId};
use crate::ledger::{KickKind, Ledger};
use crate::math::{Compact, Real, Time, Vec3};
use crate::model::{Body, Model, Vertices};
use crate::observe::{EventKind, EventRecord, Frame, FrameStats, Observer};
use crate::potential::{CompressionBarrier, Potential};
use crate::stats::Counters;
use slotmap::SlotMap;
use smallvec::SmallVec;
use std::collections::BTreeMap;

mod checkpoint;
mod resonance;

/// What an entry of the event queue stands for.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EventKey {
    /// The next tick of a potential's clock: the potential and its registration index (0, 1, …),
    /// under which the queue files its ticks.
    Force(ForceId, u32),
    /// The next frame.
    Frame,
    /// The next tick of a penalty layer: (pair, layer l).
    Layer(PairId, u32),
    /// The failure of a pair's separating-slab certificate.
    Certificate(PairId),
    /// The failure of a broad-phase certificate: a vertex's hash-grid certificate (Phantom §4)
    /// or a k-DOP front record's (ACM §5.5).
    BroadPhase(u32),
    /// A phantom body's implicit step (Phantom §3.2, eq. 7): the body's index among the phantom
    /// bodies.
    Implicit(u32),
    /// A phantom body's constraint impulses (Phantom §3.2, eqs. 6 and 8), right after its
    /// implicit step at the same tick.
    Constraint(u32),
}

/// The queue's classes ([`EventQueue::with_classes`]): force ticks and frames fire most often and
/// sit in the dense class (the frame at index 0, potential `i` at `i + 1`); slab certificates and
/// first-layer ticks (both by pair handle), broad-phase certificates (by vertex or front record)
/// and layers 2 to 1 + [`DEEP_LAYER_SLOTS`] (by pair handle and layer) each have an indexed
/// class, 20 bytes per entry; still deeper layers, which few pairs reach, and phantom steps sit
/// in the sparse class. The pop order is that of a single heap.
const SPARSE_EVENT_CLASSES: usize = 1;
const INDEXED_EVENT_CLASSES: usize = 4;

/// Layers 2 ..= 1 + this of a pair share one indexed class, under handle
/// `DEEP_LAYER_SLOTS · pair + l − 2`. On the knots more than half of all layer ticks are of layers
/// 2 to 5 (`overhand-knot`: 0.74 M of 1.31 M), which the sparse class's hashed heap popped and
/// pushed for about 600 instructions.
const DEEP_LAYER_SLOTS: u32 = 4;

/// Forces that must share a period before they get a lane of the event queue's dense class.
const MIN_LANE_FORCES: usize = 16;

fn file_event(key: &EventKey) -> Filing {
    match *key {
        EventKey::Frame => Filing::Dense(0),
        EventKey::Force(_, index) => Filing::Dense(index as usize + 1),
        EventKey::Layer(pair, 1) => Filing::Indexed(2, pair.handle()),
        // a product below u32::MAX, the indexed classes' reserved handle
        EventKey::Layer(pair, l)
            if (2..2 + DEEP_LAYER_SLOTS).contains(&l) && pair.handle() < u32::MAX / DEEP_LAYER_SLOTS =>
        {
            Filing::Indexed(3, pair.handle() * DEEP_LAYER_SLOTS + (l - 2))
        }
        EventKey::Layer(..) => Filing::Sparse(0),
        EventKey::Certificate(pair) => Filing::Indexed(0, pair.handle()),
        EventKey::BroadPhase(id) => Filing::Indexed(1, id),
        // two per phantom body and tick
        EventKey::Implicit(_) | EventKey::Constraint(_) => Filing::Sparse(0),
    }
}

/// The event filed under an indexed class and handle: the inverse of [`file_event`] there.
fn unfile_event(class: usize, handle: u32) -> EventKey {
    match class {
        0 => EventKey::Certificate(PairId::from_handle(handle)),
        1 => EventKey::BroadPhase(handle),
        2 => EventKey::Layer(PairId::from_handle(handle), 1),
        _ => EventKey::Layer(PairId::from_handle(handle / DEEP_LAYER_SLOTS), 2 + handle % DEEP_LAYER_SLOTS),
    }
}

/// A potential with its clock.
#[derive(Debug)]
struct Force {
    potential: Box<dyn Potential>,
    clock: Clock,
    counter_slot: usize,
    /// Its registration index, under which the queue files its ticks ([`EventKey::Force`]).
    queue_index: u32,
}

/// Scratch for one kick (engines hold scratch, the model holds state).
#[derive(Debug, Default)]
struct KickWorkspace {
    positions: Vec<Vec3>,
    gradient: Vec<Vec3>,
}

/// A damper books its dissipation over windows of this many times the longest elastic period on
/// its vertices, the saw-tooth's longest period (see `potential::damping`). The strain change over
/// a window still carries up to one saw-tooth amplitude, so longer windows book less of the
/// saw-tooth's exchange, but they also average away real vibrations faster than the window. Two
/// periods is the compromise measured in docs/scene-format.md ("The energy ledger"): `hanging-cloth`
/// closes to 0.4 % over 2 s, a pulled damped ribbon to 2 % of the scripts' work, `sheet-on-sphere`
/// to 4 % (one period: 1 %, 5 %, 2 %; four: 0.09 %, 0.8 %, 8 %).
const LEDGER_WINDOW_PERIODS: Real = 2.0;

/// The AVI engine: potentials with clocks, the event queue, and frame output as events.
#[derive(Debug)]
pub struct AviEngine {
    forces: SlotMap<ForceId, Force>,
    queue: EventQueue<EventKey>,
    frame_clock: Clock,
    frame_rate: Real,
    frame_slot: usize,
    counters: Counters,
    ledger: Ledger,
    workspace: KickWorkspace,
    /// Per kind of potential, how many of that kind share each vertex: the mass shares of the
    /// stable-step estimates, kept to check a stretched element against its period.
    valence: std::collections::HashMap<&'static str, Vec<u32>>,
    snapshot: Vec<Vec3>,
    contact: Option<Box<ContactManager>>,
    contact_requests: Vec<Schedule>,
    phantoms: Option<Box<PhantomMeshes>>,
    audit: bool,
    profile: bool,
    /// Rescheduling time inside the event being processed (profiled runs).
    rescheduling: std::time::Duration,
    layer_slot: usize,
    certificate_slot: usize,
    broad_phase_slot: usize,
    implicit_slot: usize,
    constraint_slot: usize,
    /// Per vertex, the longest period a penalty layer on it may take (`resonance`), handed to
    /// the contact manager (and again after a checkpoint restores it).
    layer_period_limits: Vec<Real>,
}

impl AviEngine {
    /// Registers `specs` on clocks and schedules their first ticks and the frame at t = 0.
    ///
    /// `safety` scales stable-step estimates (0 < safety ≤ 1), which `ladder` then rounds down so
    /// that like elements share a period; frames are taken at k / `frame_rate`.
    pub fn new(
        model: &Model,
        specs: Vec<ForceSpec>,
        safety: Real,
        ladder: PeriodLadder,
        frame_rate: Real,
    ) -> Result<Self, SimulationError> {
        if !(safety > 0.0 && safety <= 1.0) {
            return Err(SimulationError::BadParameter {
                name: "safety_factor",
                message: format!("must be in (0, 1], got {}", Compact(safety)),
            });
        }
        if !(frame_rate.is_finite() && frame_rate > 0.0) {
            return Err(SimulationError::BadParameter {
                name: "frame_rate",
                message: format!("must be a finite number > 0, got {}", Compact(frame_rate)),
            });
        }
        let frame_period = 1.0 / frame_rate;
        // Resolve periods: explicit ones, then stability estimates, then the fallback for
        // potentials without a limit.
        let valence = valences(model, &specs);
        let mut periods: Vec<Option<Real>> = Vec::with_capacity(specs.len());
        let mut local_x = Vec::new();
        let mut local_m = Vec::new();
        for spec in &specs {
            periods.push(match spec.period {
                PeriodChoice::Fixed(h) => Some(h),
                PeriodChoice::Stable => {
                    let stencil = spec.potential.stencil();
                    let shares = &valence[spec.potential.kind()];
                    local_x.clear();
                    local_x.extend(stencil.iter().map(|&v| model.vertices.position(v)));
                    local_m.clear();
                    local_m
                        .extend(stencil.iter().map(|&v| model.vertices.effective_mass(v) / shares[v.index()] as Real));
                    spec.potential.stable_step(&local_x, &local_m).map(|h| ladder.round_down(h * safety))
                }
            });
        }
        // elastic clocks clear of the resonances of multiple time stepping (`resonance`): no
        // slower than twice a fast neighbour, and within a body in ratios of powers of two
        let elastic = |spec: &ForceSpec| !spec.potential.is_dissipative() && spec.period == PeriodChoice::Stable;
        resonance::cap_at_fast_neighbours(model.vertices.len(), &specs, &mut periods, elastic);
        resonance::snap_to_body_octaves(model, &specs, &mut periods, elastic);
        resonance::cap_at_fast_neighbours(model.vertices.len(), &specs, &mut periods, elastic);
        let layer_period_limits = resonance::layer_period_limits(model.vertices.len(), &specs, &periods);
        // A damping force differences positions over one period of its own clock (ACM §6.1), so
        // that period must resolve the fastest motion of its vertices: it never exceeds the
        // smallest stable period of the elastic potentials that share a vertex with it. It books
        // what it dissipates over windows of LEDGER_WINDOW_PERIODS times the longest of those
        // periods (see `potential::damping`). Per vertex: (smallest, longest) elastic period.
        let mut vertex_limit = vec![Real::INFINITY; model.vertices.len()];
        let mut vertex_window = vec![0.0 as Real; model.vertices.len()];
        for (spec, period) in specs.iter().zip(&periods) {
            if let (false, Some(h)) = (spec.potential.is_dissipative(), period) {
                for v in spec.potential.stencil() {
                    vertex_limit[v.index()] = vertex_limit[v.index()].min(*h);
                    vertex_window[v.index()] = vertex_window[v.index()].max(*h);
                }
            }
        }
        for (spec, period) in specs.iter().zip(periods.iter_mut()) {
            if spec.potential.is_dissipative() && spec.period == PeriodChoice::Stable {
                let limit =
                    spec.potential.stencil().iter().map(|v| vertex_limit[v.index()]).fold(Real::INFINITY, Real::min);
                *period = match *period {
                    Some(h) => Some(h.min(limit)),
                    None if limit.is_finite() => Some(limit),
                    None => None,
                };
            }
        }
        let ledger_windows: Vec<Real> = specs
            .iter()
            .map(|spec| match spec.potential.is_dissipative() {
                true => spec.potential.stencil().iter().map(|v| vertex_window[v.index()]).fold(0.0, Real::max),
                false => 0.0,
            })
            .collect();
        let fallback =
            periods.iter().flatten().copied().filter(|h| h.is_finite() && *h > 0.0).fold(Real::INFINITY, Real::min);
        let fallback = if fallback.is_finite() { fallback } else { frame_period / 10.0 };

        let mut engine = AviEngine {
            forces: SlotMap::with_capacity_and_key(specs.len()),
            queue: EventQueue::with_classes(SPARSE_EVENT_CLASSES, file_event, specs.len() + 1)
                .with_indexed_classes(INDEXED_EVENT_CLASSES, unfile_event),
            frame_clock: Clock::new(frame_period),
            frame_rate,
            frame_slot: 0,
            counters: Counters::default(),
            ledger: Ledger::default(),
            workspace: KickWorkspace::default(),
            valence,
            snapshot: Vec::new(),
            contact: None,
            contact_requests: Vec::new(),
            phantoms: None,
            audit: false,
            profile: false,
            rescheduling: std::time::Duration::ZERO,
            layer_slot: 0,
            certificate_slot: 0,
            broad_phase_slot: 0,
            implicit_slot: 0,
            constraint_slot: 0,
            layer_period_limits,
        };
        engine.frame_slot = engine.counters.slot("frame");
        // forces of one period tick in step, so they share a lane of the queue (first in, first
        // out); a period shared by few forces is not worth a lane
        let mut sharing: BTreeMap<u64, usize> = BTreeMap::new();
        for period in &periods {
            *sharing.entry(period.unwrap_or(fallback).to_bits()).or_default() += 1;
        }
        let mut lanes: BTreeMap<u64, u32> = BTreeMap::new();
        for (queue_index, ((mut spec, period), window)) in
            (0u32..).zip(specs.into_iter().zip(periods).zip(ledger_windows))
        {
            let h = period.unwrap_or(fallback);
            if sharing[&h.to_bits()] >= MIN_LANE_FORCES {
                let next = lanes.len() as u32;
                let lane = *lanes.entry(h.to_bits()).or_insert(next);
                engine.queue.assign_lane(queue_index as usize + 1, lane);
            }
            if !(h.is_finite() && h > 0.0) {
                return Err(SimulationError::BadPeriod {
                    kind: spec.potential.kind(),
                    stencil: spec.potential.stencil().iter().map(|v| v.0).collect(),
                    period: h,
                });
            }
            spec.potential.bind_period(h);
            spec.potential.bind_ledger_window(window * LEDGER_WINDOW_PERIODS);
            let counter_slot = engine.counters.slot(spec.potential.kind());
            let clock = Clock::new(h);
            let first = clock.next_time();
            if spec.potential.is_external() {
                // its energy at the start: the ledger books its jumps from here (crate::ledger)
                let x: Vec<Vec3> = spec.potential.stencil().iter().map(|&v| model.vertices.position(v)).collect();
                engine.ledger.external_shifts += spec.potential.energy(&x);
            }
            let id = engine.forces.insert(Force { potential: spec.potential, clock, counter_slot, queue_index });
            engine.queue.schedule(EventKey::Force(id, queue_index), first)?;
        }
        engine.queue.schedule(EventKey::Frame, Time::ZERO)?;
        Ok(engine)
    }

    /// Time of the last processed event.
    pub fn now(&self) -> Time {
        self.queue.now()
    }

    /// Time of the next event, if any.
    pub fn next_time(&self) -> Option<Time> {
        self.queue.peek().map(|(_, t)| t)
    }

    /// Event counts and wall time so far.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Mutable counters (the facade adds wall time).
    pub fn counters_mut(&mut self) -> &mut Counters {
        &mut self.counters
    }

    /// Energy removed by damping kicks so far, J.
    pub fn dissipated(&self) -> Real {
        self.ledger().dissipated
    }

    /// The energy ledger so far: damping and friction, and the work of scripted vertices, in
    /// potentials and in contact ([`Ledger`]).
    pub fn ledger(&self) -> Ledger {
        self.contact.as_ref().map_or(self.ledger, |c| self.ledger.plus(c.ledger()))
    }

    /// The registered potentials with their ids and clock periods.
    pub fn forces(&self) -> impl Iterator<Item = (ForceId, &dyn Potential, Real)> {
        self.forces.iter().map(|(id, f)| (id, f.potential.as_ref(), f.clock.period()))
    }

    /// All potentials, for energy measurement and assembly.
    pub fn potentials(&self) -> impl Iterator<Item = &dyn Potential> {
        self.forces.values().map(|f| f.potential.as_ref())
    }

    /// Processes the next event: the loop body of Algorithm 1. Returns what was processed, or
    /// `None` when the queue is empty.
    pub fn step<O: Observer + ?Sized>(
        &mut self,
        model: &mut Model,
        observer: &mut O,
    ) -> Result<Option<EventRecord>, SimulationError> {
        match self.queue.pop() {
            Some((key, t)) => self.process(key, t, model, observer).map(Some),
            None => Ok(None),
        }
    }

    /// [`AviEngine::step`] if the next event is at or before `limit` (s); else `None`, and
    /// nothing changes.
    pub fn step_no_later<O: Observer + ?Sized>(
        &mut self,
        limit: Real,
        model: &mut Model,
        observer: &mut O,
    ) -> Result<Option<EventRecord>, SimulationError> {
        match self.queue.pop_no_later(limit) {
            Some((key, t)) => self.process(key, t, model, observer).map(Some),
            None => Ok(None),
        }
    }

    /// Processes event `key`, just popped at `t`.
    fn process<O: Observer + ?Sized>(
        &mut self,
        mut key: EventKey,
        t: Time,
        model: &mut Model,
        observer: &mut O,
    ) -> Result<EventRecord, SimulationError> {
        // A frame due at the same time as other events goes after them, so it always sees the
        // velocities after every kick at its time (a deferral, not an event): the next of them
        // runs now and the frame goes back in the queue. Each deferral runs an event, so the frame
        // comes last in either tie order (after `reverse_ties` it ties first again and defers
        // again).
        if key == EventKey::Frame && self.queue.peek().is_some_and(|(_, next)| next == t) {
            let (other, _) = self.queue.pop().expect("an event was peeked");
            self.queue.schedule(EventKey::Frame, t)?;
            key = other;
        }
        let start = self.profile.then(std::time::Instant::now);
        self.rescheduling = std::time::Duration::ZERO;
        let (record, kicked) = match key {
            EventKey::Force(id, _) => (self.tick_force(id, t, model)?, Some(Kicked::Force(id))),
            EventKey::Frame => (self.take_frame(t, model, observer)?, None),
            EventKey::Layer(pair, l) => {
                let (record, kicked) = self.tick_layer(pair, l, t, model)?;
                (record, kicked.then_some(Kicked::Pair(pair)))
            }
            EventKey::Certificate(pair) => (self.fail_certificate(pair, t, model)?, None),
            EventKey::BroadPhase(id) => (self.fail_broad_phase(id, t, model)?, None),
            EventKey::Implicit(body) => (self.implicit_step(body, t, model)?, None),
            EventKey::Constraint(body) => (self.constrain(body, t, model)?, Some(Kicked::Phantom(body))),
        };
        if let Some(kicked) = kicked {
            self.reschedule_contingent(kicked, t, model)?;
        }
        if let Some(start) = start {
            // the event's own time, and apart from it the re-certification its kicks caused
            let total = start.elapsed();
            let label = if record.kind == EventKind::Force { "force" } else { record.label };
            self.counters.add_seconds(label, (total - self.rescheduling).as_secs_f64());
            self.counters.rescheduling_seconds += self.rescheduling.as_secs_f64();
        }
        if self.audit {
            if let Some(contact) = &self.contact {
                contact.audit(model, t).map_err(SimulationError::Audit)?;
            }
        }
        observer.on_event(&record);
        Ok(record)
    }

    /// Drift the stencil to `t`, kick it with h·∇V, schedule the next tick (Algorithm 1, 3–10).
    fn tick_force(&mut self, id: ForceId, t: Time, model: &mut Model) -> Result<EventRecord, SimulationError> {
        let AviEngine { forces, queue, counters, ledger, workspace, valence, .. } = self;
        let force = &mut forces[id];
        let k = force.clock.advance();
        debug_assert_eq!(force.clock.time_of(k), t, "law 4: a force event off its clock");
        let h = force.clock.period();
        let vertices = &mut model.vertices;
        let stencil = force.potential.stencil();
        workspace.positions.clear();
        for &v in stencil {
            vertices.drift_to(v, t.seconds());
            workspace.positions.push(vertices.position(v));
        }
        workspace.gradient.clear();
        workspace.gradient.resize(stencil.len(), Vec3::zeros());
        if force.potential.is_external() {
            // the force changes here, at these positions: the jump of its energy (crate::ledger)
            let before = force.potential.energy(&workspace.positions);
            force.potential.set_time(t.seconds());
            ledger.external_shifts += force.potential.energy(&workspace.positions) - before;
        }
        let stencil = force.potential.stencil();
        force.potential.gradient(&workspace.positions, &mut workspace.gradient);
        if force.potential.may_outgrow_its_clock(&workspace.positions) {
            let shares = &valence[force.potential.kind()];
            check_clock(
                force.potential.as_ref(),
                &workspace.positions,
                h,
                t.seconds(),
                vertices,
                &model.bodies,
                shares,
            )?;
        }
        let kind = if force.potential.is_dissipative() { KickKind::Viscous } else { KickKind::Conservative };
        ledger.kick_stencil(vertices, stencil, &workspace.gradient, h, t.seconds(), kind);
        ledger.dissipated += force.potential.end_tick(&workspace.positions);
        queue.schedule(EventKey::Force(id, force.queue_index), force.clock.next_time())?;
        counters.count(force.counter_slot);
        Ok(EventRecord {
            time: t,
            kind: EventKind::Force,
            force: Some(id),
            label: force.potential.kind(),
            tick: k,
            period: h,
        })
    }

    /// Hands a snapshot at `t` to the observer and schedules the next frame. The trajectory is
    /// untouched: positions are evaluated, not drifted.
    fn take_frame<O: Observer + ?Sized>(
        &mut self,
        t: Time,
        model: &Model,
        observer: &mut O,
    ) -> Result<EventRecord, SimulationError> {
        let index = self.frame_clock.ticks();
        self.counters.count(self.frame_slot);
        self.snapshot.clear();
        self.snapshot
            .extend((0..model.vertices.len()).map(|i| model.vertices.position_at(VertexId(i as u32), t.seconds())));
        let mut stats =
            FrameStats::measure(model, &self.snapshot, self.potentials(), self.ledger(), self.counters.events);
        if let Some(phantoms) = &self.phantoms {
            phantoms.measure(model, t.seconds(), &mut stats);
        }
        let mut contact_stats = None;
        if let Some(contact) = &mut self.contact {
            stats.potential += contact.energy(&self.snapshot);
            // the queue's sparse and indexed classes hold only contact events: layers, certificates,
            // broad phase
            contact_stats = Some(contact.note_memory(self.queue.sparse_and_indexed_heap_bytes()));
        }
        if !(stats.kinetic.is_finite() && stats.potential.is_finite()) {
            return Err(SimulationError::Diverged { time: t.seconds() });
        }
        let frame = Frame { index, time: t, positions: &self.snapshot, model, stats, contact: contact_stats };
        let result = observer.on_frame(&frame);
        self.frame_clock.advance();
        // Frame k is at k / frame_rate (a division, exact whenever k / rate is representable, so
        // a frame due at the end of the run is not lost to the round-off of k · (1 / rate)).
        let next = Time::new(self.frame_clock.ticks() as Real / self.frame_rate).expect("finite frame time");
        self.queue.schedule(EventKey::Frame, next)?;
        result.map_err(SimulationError::Observer)?;
        Ok(EventRecord {
            time: t,
            kind: EventKind::Frame,
            force: None,
            label: "frame",
            tick: index,
            period: self.frame_clock.period(),
        })
    }
}

/// How far below its period an element's stable step (estimated with the mass shares its period
/// was estimated with) may fall before the run stops: at half, ω·h = 4 and a leapfrog kick
/// multiplies a mode by about 14 per tick. Not at 1: the estimate is conservative, and an element
/// squeezed for a few ticks to 0.7 of its period (a sliver in a knot) recovers.
const OUTGROWN: Real = 0.5;

/// Stops the run when `potential`, stretched at `x` at time `t`, has a stable step below
/// [`OUTGROWN`] times its period `h`: explicit kicks would blow up.
fn check_clock(
    potential: &dyn Potential,
    x: &[Vec3],
    h: Real,
    t: Real,
    vertices: &Vertices,
    bodies: &SlotMap<BodyId, Body>,
    shares: &[u32],
) -> Result<(), SimulationError> {
    let stencil = potential.stencil();
    let masses: SmallVec<[Real; 4]> =
        stencil.iter().map(|&v| vertices.effective_mass(v) / shares[v.index()].max(1) as Real).collect();
    if potential.stable_step_at_least(x, &masses).is_some_and(|least| least >= OUTGROWN * h) {
        return Ok(());
    }
    match potential.stable_step(x, &masses) {
        Some(stable) if stable < OUTGROWN * h => {
            let first = stencil[0].0;
            let (body, start) = bodies
                .values()
                .find(|b| b.vertices.contains(&first))
                .map(|b| (b.name.clone(), b.vertices.start))
                .unwrap_or_default();
            Err(SimulationError::ClockOutgrown {
                kind: potential.kind(),
                body,
                vertices: stencil.iter().map(|v| v.0 - start).collect(),
                time: t,
                period: h,
                stable,
            })
        }
        _ => Ok(()),
    }
}

/// For every potential kind, how many potentials of that kind have each vertex in their stencil.
///
/// Stable steps are estimated element by element with each vertex's mass divided by this count:
/// the element's own share of the lumped mass, as in the element-wise CFL condition of AVIs
/// (Lew et al. 2003). With the whole vertex mass, an element would ignore that its neighbours of
/// the same kind push the same vertex, and asynchronous clocks near that bound go unstable.
fn valences(model: &Model, specs: &[ForceSpec]) -> std::collections::HashMap<&'static str, Vec<u32>> {
    let mut counts: std::collections::HashMap<&'static str, Vec<u32>> = Default::default();
    for spec in specs {
        let c = counts.entry(spec.potential.kind()).or_insert_with(|| vec![0; model.vertices.len()]);
        for v in spec.potential.stencil() {
            c[v.index()] += 1;
        }
    }
    counts
}

impl AviEngine {
    /// Adds contact (penalty layers and certificates, ACM §4–§5) to a fresh engine: certifies
    /// every pair at t = 0, activating layers where no slab is profitable. Refuses a start with a
    /// pair closer than η(1).
    pub fn with_contact(self, model: &Model, settings: ContactSettings) -> Result<Self, SimulationError> {
        self.with_contact_and_barriers(model, settings, &[])
    }

    /// [`with_contact`](Self::with_contact), with the compression barriers split off the bars
    /// among the engine's potentials ([`Potential::split_compression_barrier`]) on layers of
    /// their own.
    pub fn with_contact_and_barriers(
        mut self,
        model: &Model,
        settings: ContactSettings,
        barriers: &[CompressionBarrier],
    ) -> Result<Self, SimulationError> {
        let mut contact = ContactManager::with_barriers(model, settings, barriers);
        contact.limit_layer_periods(self.layer_period_limits.clone());
        let requests = contact.start(model).map_err(SimulationError::InitialContact)?;
        apply(&mut self.queue, &requests)?;
        self.layer_slot = self.counters.slot("layer");
        self.certificate_slot = self.counters.slot("certificate");
        self.broad_phase_slot = self.counters.slot(contact.broad_phase_label());
        self.contact = Some(Box::new(contact));
        Ok(self)
    }

    /// Audit mode: after every event, check that every contact pair is guarded by active layers
    /// or a slab that still separates it ([`ContactManager::audit`]); a failure stops the run.
    pub fn set_audit(&mut self, on: bool) {
        self.audit = on;
    }

    /// Pops events at equal times in the reverse of their scheduling order, those already
    /// scheduled included ([`EventQueue::reverse_ties`]): a check of law 8, under which
    /// simultaneous events give the same trajectory in any order, up to round-off.
    pub fn reverse_ties(&mut self) {
        self.queue.reverse_ties();
    }

    /// Profiling: wall time per event kind (all potentials together as `force`) and, apart, the
    /// re-certification of contact pairs after kicks ([`Counters::seconds_by_kind`],
    /// [`Counters::rescheduling_seconds`]). Costs two clock reads per event.
    pub fn set_profile(&mut self, on: bool) {
        self.profile = on;
    }

    /// The contact manager, if contact is simulated.
    pub fn contact(&self) -> Option<&ContactManager> {
        self.contact.as_deref()
    }

    /// A penalty layer's tick (report Algorithm 3). Also returns whether it kicked.
    fn tick_layer(
        &mut self,
        pair: PairId,
        l: u32,
        t: Time,
        model: &mut Model,
    ) -> Result<(EventRecord, bool), SimulationError> {
        let contact = self.contact.as_mut().expect("layer events exist only with contact");
        let requests = &mut self.contact_requests;
        requests.clear();
        let outcome = contact.layer_tick(pair, l, t, model, requests).map_err(SimulationError::Contact)?;
        apply(&mut self.queue, requests)?;
        self.counters.count(self.layer_slot);
        let record = EventRecord {
            time: t,
            kind: EventKind::Layer,
            force: None,
            label: "layer",
            tick: outcome.tick,
            period: outcome.period,
        };
        Ok((record, outcome.kicked))
    }

    /// Contingent rescheduling (ACM §5.2), the one place every kick goes through: the contact
    /// manager re-certifies the pairs of the kicked vertices that left their vague tubes.
    fn reschedule_contingent(&mut self, kicked: Kicked, t: Time, model: &Model) -> Result<(), SimulationError> {
        let AviEngine { contact: Some(contact), forces, queue, contact_requests, profile, rescheduling, .. } = self
        else {
            return Ok(());
        };
        let start = profile.then(std::time::Instant::now);
        contact_requests.clear();
        match kicked {
            Kicked::Force(id) => contact.after_kick(forces[id].potential.stencil(), t, model, contact_requests),
            Kicked::Pair(pair) => {
                let stencil = contact.stencil(pair);
                contact.after_kick(&stencil, t, model, contact_requests)
            }
            Kicked::Phantom(body) => {
                let stencil =
                    self.phantoms.as_ref().expect("constraint events exist only with phantoms").stencil(body as usize);
                contact.after_kick(&stencil, t, model, contact_requests)
            }
        }
        .map_err(SimulationError::Contact)?;
        // most kicks stay inside their vertices' tubes and request nothing
        if !contact_requests.is_empty() {
            apply(queue, contact_requests)?;
        }
        if let Some(start) = start {
            *rescheduling += start.elapsed();
        }
        Ok(())
    }

    /// A certificate failed (report Algorithm 4): a new slab, or layers switched on.
    fn fail_certificate(&mut self, pair: PairId, t: Time, model: &mut Model) -> Result<EventRecord, SimulationError> {
        let contact = self.contact.as_mut().expect("certificate events exist only with contact");
        let requests = contact.certificate_failed(pair, t, model).map_err(SimulationError::Contact)?;
        apply(&mut self.queue, &requests)?;
        self.counters.count(self.certificate_slot);
        Ok(EventRecord {
            time: t,
            kind: EventKind::Certificate,
            force: None,
            label: "certificate",
            tick: 0,
            period: 0.0,
        })
    }
}

impl AviEngine {
    /// A broad-phase certificate failed: a vertex is re-anchored and its primitives' hash-grid
    /// cells re-covered (Phantom §4), or a k-DOP front record is reconfirmed, descended or
    /// coarsened (ACM §5.5), and the pairs gained or lost made or removed.
    fn fail_broad_phase(&mut self, id: u32, t: Time, model: &mut Model) -> Result<EventRecord, SimulationError> {
        let contact = self.contact.as_mut().expect("broad-phase events exist only with contact");
        let requests = contact.broad_phase_event(id, t, model).map_err(SimulationError::Contact)?;
        let label = contact.broad_phase_label();
        apply(&mut self.queue, &requests)?;
        self.counters.count(self.broad_phase_slot);
        Ok(EventRecord { time: t, kind: EventKind::BroadPhase, force: None, label, tick: 0, period: 0.0 })
    }
}

impl AviEngine {
    /// Puts the elastic potentials of phantom bodies on their implicit steps (Phantom §3.2):
    /// schedules each body's first implicit tick.
    pub fn with_phantoms(mut self, phantoms: PhantomMeshes) -> Result<Self, SimulationError> {
        for body in 0..phantoms.len() {
            self.queue.schedule(EventKey::Implicit(body as u32), phantoms.next_tick(body))?;
        }
        self.implicit_slot = self.counters.slot("implicit");
        self.constraint_slot = self.counters.slot("constraint");
        self.phantoms = Some(Box::new(phantoms));
        Ok(self)
    }

    /// The phantom meshes, if any body is phantom.
    pub fn phantoms(&self) -> Option<&PhantomMeshes> {
        self.phantoms.as_deref()
    }

    /// A phantom body's implicit step (Phantom §3.2, eq. 7); its constraint event follows at the
    /// same time.
    fn implicit_step(&mut self, body: u32, t: Time, model: &mut Model) -> Result<EventRecord, SimulationError> {
        let phantoms = self.phantoms.as_mut().expect("implicit events exist only with phantoms");
        let tick = phantoms.implicit(body as usize, t, model)?;
        self.queue.schedule(EventKey::Constraint(body), t)?;
        self.counters.count(self.implicit_slot);
        let period = phantoms.settings().implicit_step;
        Ok(EventRecord { time: t, kind: EventKind::Implicit, force: None, label: "implicit", tick, period })
    }

    /// A phantom body's constraint impulses (Phantom §3.2, eqs. 6 and 8); schedules its next
    /// implicit step.
    fn constrain(&mut self, body: u32, t: Time, model: &mut Model) -> Result<EventRecord, SimulationError> {
        let phantoms = self.phantoms.as_mut().expect("constraint events exist only with phantoms");
        let tick = phantoms.constrain(body as usize, t, model, &mut self.ledger)?;
        self.queue.schedule(EventKey::Implicit(body), phantoms.next_tick(body as usize))?;
        self.counters.count(self.constraint_slot);
        let period = phantoms.settings().implicit_step;
        Ok(EventRecord { time: t, kind: EventKind::Constraint, force: None, label: "constraint", tick, period })
    }
}

/// Whose stencil an event kicked.
#[derive(Clone, Copy, Debug)]
enum Kicked {
    /// A potential's.
    Force(ForceId),
    /// A contact pair's (a layer tick with a nonzero impulse).
    Pair(PairId),
    /// A phantom body's primary vertices (its constraint impulses).
    Phantom(u32),
}

/// Carries out the contact manager's queue requests.
fn apply(queue: &mut EventQueue<EventKey>, requests: &[Schedule]) -> Result<(), SimulationError> {
    // an impact check or grid certificate replaces any pending one of its key (`place`)
    for request in requests {
        match *request {
            Schedule::Certificate(pair, t) => queue.schedule_no_later(EventKey::Certificate(pair), t)?,
            Schedule::Layer(pair, l, t) => queue.schedule(EventKey::Layer(pair, l), t)?,
            Schedule::Impact(pair, t) => queue.place(EventKey::Layer(pair, 1), t)?,
            Schedule::BroadPhase(id, t) => queue.place(EventKey::BroadPhase(id), t)?,
            Schedule::ForgetBroadPhase(id) => {
                queue.cancel(&EventKey::BroadPhase(id));
            }
            Schedule::Forget(pair) => {
                // its slot may go to a new pair: none of its events may stay (a removed pair has
                // no layer, but the reflective variant's impact check uses layer 1's key)
                queue.cancel(&EventKey::Certificate(pair));
                queue.cancel(&EventKey::Layer(pair, 1));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn every_indexed_event_is_unfiled_as_itself_under_a_handle_of_its_own() {
        let mut taken = BTreeSet::new();
        for handle in [0, 1, 77, u32::MAX / DEEP_LAYER_SLOTS - 1, u32::MAX / DEEP_LAYER_SLOTS, u32::MAX - 1] {
            let pair = PairId::from_handle(handle);
            let layers = (1..=2 + DEEP_LAYER_SLOTS).map(|l| EventKey::Layer(pair, l));
            for key in [EventKey::Certificate(pair), EventKey::BroadPhase(handle)].into_iter().chain(layers) {
                match file_event(&key) {
                    Filing::Indexed(class, i) => {
                        assert_ne!(i, u32::MAX, "{key:?}: the reserved handle");
                        assert_eq!(unfile_event(class, i), key);
                        assert!(taken.insert((class, i)), "{key:?} shares class {class} handle {i}");
                    }
                    Filing::Sparse(0) => assert!(
                        matches!(key, EventKey::Layer(_, l) if l > 1 + DEEP_LAYER_SLOTS || handle >= u32::MAX / DEEP_LAYER_SLOTS),
                        "{key:?} is sparse"
                    ),
                    filing => panic!("{key:?} filed as {filing:?}"),
                }
            }
        }
    }
}
