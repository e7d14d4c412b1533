//! Observers: how a simulation hands events and frames to the outside; the library calls them
//! rather than owning the loop, and counts what happened itself.
//!
//! An [`Observer`] receives every processed event (cheap: one call per event; an engine driven
//! directly takes it as a generic parameter, and there the `()` observer compiles to nothing)
//! and every frame, a snapshot of all vertices at one time with its energy and momentum
//! ([`FrameStats`]).

use crate::ids::ForceId;
use crate::ledger::Ledger;
use crate::math::{Real, Time, Vec3};
use crate::model::Model;
use crate::potential::{gather, Potential};

/// What kind of event was processed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EventKind {
    /// A potential's clock ticked: its stencil was drifted and kicked (ACM Algorithm 1, lines 3–10).
    Force,
    /// A frame was taken (no effect on the trajectory).
    Frame,
    /// A synchronous step advanced every vertex (the synchronous backend).
    Step,
    /// A penalty layer ticked (ACM §4): its pair was drifted and, if penetrated, kicked.
    Layer,
    /// A separating-slab certificate failed (ACM §5.1): renewed, or layers activated.
    Certificate,
    /// A broad-phase certificate failed: a vertex was re-anchored and its primitives' hash-grid
    /// cells re-covered (Phantom §4), or a k-DOP front record was reconfirmed, descended or
    /// coarsened (ACM §5.5).
    BroadPhase,
    /// A phantom body took its implicit step (Phantom §3.2, eq. 7).
    Implicit,
    /// A phantom body's primary and phantom vertices got their constraint impulses (Phantom
    /// §3.2, eqs. 6 and 8).
    Constraint,
}

impl EventKind {
    /// Its name in lower case: `force`, `frame`, `step`, `layer`, `certificate`, `broad-phase`,
    /// `implicit`, `constraint`.
    pub fn name(self) -> &'static str {
        match self {
            EventKind::Force => "force",
            EventKind::Frame => "frame",
            EventKind::Step => "step",
            EventKind::Layer => "layer",
            EventKind::Certificate => "certificate",
            EventKind::BroadPhase => "broad-phase",
            EventKind::Implicit => "implicit",
            EventKind::Constraint => "constraint",
        }
    }
}

/// One processed event, as seen by observers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventRecord {
    /// When it happened.
    pub time: Time,
    /// What it was.
    pub kind: EventKind,
    /// The potential that ticked (for force events).
    pub force: Option<ForceId>,
    /// The potential's kind name (`"membrane"`, …) or `"frame"`.
    pub label: &'static str,
    /// Index k of the tick on the event's clock (the event is at k·h).
    pub tick: u64,
    /// The period h of the event's clock, s.
    pub period: Real,
}

/// The embedded error estimate of one synchronous step (ROS3PL, Higher-order §3.2.4): the
/// difference between the step's solution and the embedded lower-order one. Each value is the
/// largest over the free vertices.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepEstimate {
    /// |Δx|, m.
    pub position: Real,
    /// |Δv|, m/s.
    pub velocity: Real,
}

/// Energy and momentum of one frame. Velocities are the AVI's piecewise-constant velocities as
/// they stand after every event up to the frame time.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameStats {
    /// ½ Σ m v² over all vertices with finite kick mass, J.
    pub kinetic: Real,
    /// Sum of the non-dissipative potentials' energies at the frame positions, J.
    pub potential: Real,
    /// Energy taken out so far by damping (ACM §6.1) and friction (ACM §6.3), J: the work of their
    /// kicks against the motion of every vertex ([`crate::ledger`]).
    pub dissipated: Real,
    /// Work done on the system by scripted vertices so far, J ([`crate::ledger`]).
    /// `total + dissipated − external_work` is the starting energy up to the integrator's
    /// oscillation.
    pub external_work: Real,
    /// Σ m v over free vertices, kg·m/s.
    pub momentum: Vec3,
    /// Σ x × m v about the origin over free vertices, kg·m²/s.
    pub angular_momentum: Vec3,
    /// Events processed so far (all kinds).
    pub events: u64,
}

impl FrameStats {
    /// `kinetic + potential`, J.
    pub fn total(&self) -> Real {
        self.kinetic + self.potential
    }

    /// Measures a snapshot: `positions` are all vertices at one time, velocities and masses come
    /// from `model`. Held and scripted vertices (infinite kick mass) are left out of kinetic
    /// energy and momentum.
    pub fn measure<'a>(
        model: &Model,
        positions: &[Vec3],
        potentials: impl IntoIterator<Item = &'a dyn Potential>,
        ledger: Ledger,
        events: u64,
    ) -> FrameStats {
        let v = &model.vertices;
        let mut stats = FrameStats {
            dissipated: ledger.dissipated,
            external_work: ledger.external_work + ledger.external_shifts,
            events,
            ..Default::default()
        };
        for (i, x) in positions.iter().enumerate() {
            let id = crate::ids::VertexId(i as u32);
            if !v.effective_mass(id).is_finite() {
                continue;
            }
            let (m, vel) = (v.mass(id), v.velocity(id));
            stats.kinetic += 0.5 * m * vel.norm_squared();
            stats.momentum += vel * m;
            stats.angular_momentum += x.cross(&(vel * m));
        }
        let mut local = Vec::new();
        for p in potentials {
            if p.is_external() {
                // the work of an external force is its shifts less its energy now (crate::ledger)
                gather(p.stencil(), positions, &mut local);
                stats.external_work -= p.energy(&local);
            } else if !p.is_dissipative() {
                gather(p.stencil(), positions, &mut local);
                stats.potential += p.energy(&local);
            }
        }
        stats
    }
}

/// A snapshot of all vertices at one frame time.
#[derive(Clone, Copy, Debug)]
pub struct Frame<'a> {
    /// Frame number, from 0 at t = 0.
    pub index: u64,
    /// Frame time.
    pub time: Time,
    /// Every vertex's position at `time`.
    pub positions: &'a [Vec3],
    /// The model (bodies, velocities, masses).
    pub model: &'a Model,
    /// Energy and momentum.
    pub stats: FrameStats,
    /// The contact bookkeeping now (AVI runs with contact; `None` otherwise).
    pub contact: Option<ContactFrameStats>,
}

/// The contact bookkeeping of an AVI run at a frame: what is alive now, so a run shows
/// certificates, layers and memory coming and going with contact (issue 4; ACM §5, Phantom §4).
/// `avicontact run` writes one row of `contact.csv` per frame from it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactFrameStats {
    /// Live contact pairs: each holds a separating-slab certificate or active penalty layers.
    pub pairs: usize,
    /// Active penalty layers, over all pairs.
    pub layers: usize,
    /// Live k-DOP front records, each with its certificate (0 for the other broad phases).
    pub kdop_records: usize,
    /// Occupied hash-grid cells (0 for the other broad phases).
    pub occupied_cells: usize,
    /// Estimated heap bytes of the contact bookkeeping (`ContactManager::bookkeeping_bytes`).
    pub bookkeeping_bytes: usize,
}

pub use crate::error::ObserverError;

/// Receives events and frames from a running simulation.
pub trait Observer {
    /// Called after every processed event.
    fn on_event(&mut self, _event: &EventRecord) {}

    /// Called at every frame time (including t = 0).
    fn on_frame(&mut self, _frame: &Frame<'_>) -> Result<(), ObserverError> {
        Ok(())
    }

    /// Called after a synchronous step whose integrator estimates its error (ROS3PL), with the
    /// step's end time and its estimate, before [`Observer::on_event`].
    fn on_step_estimate(&mut self, _time: Time, _estimate: &StepEstimate) {}
}

/// The do-nothing observer.
impl Observer for () {}

impl<A: Observer, B: Observer> Observer for (A, B) {
    fn on_event(&mut self, event: &EventRecord) {
        self.0.on_event(event);
        self.1.on_event(event);
    }

    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        self.0.on_frame(frame)?;
        self.1.on_frame(frame)
    }

    fn on_step_estimate(&mut self, time: Time, estimate: &StepEstimate) {
        self.0.on_step_estimate(time, estimate);
        self.1.on_step_estimate(time, estimate);
    }
}

impl<O: Observer + ?Sized> Observer for &mut O {
    fn on_event(&mut self, event: &EventRecord) {
        (**self).on_event(event)
    }

    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        (**self).on_frame(frame)
    }

    fn on_step_estimate(&mut self, time: Time, estimate: &StepEstimate) {
        (**self).on_step_estimate(time, estimate)
    }
}
