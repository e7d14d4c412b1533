//! Errors of the library core. It depends on `math` and on the plain records of contact failures
//! (`contact::failure`), never on an engine, so both backends can return a [`SimulationError`].
//! File paths and line numbers are added only at the edges (`scene/`, `output/`, the CLI).

use crate::interrupt::InterruptCause;
use crate::math::{Compact, Real, Time};
use std::fmt;

/// The error type observers return; it stops the run and is reported to the caller.
pub type ObserverError = Box<dyn std::error::Error + Send + Sync>;

/// Why the queue refused a request. The queue is unchanged after an error.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum QueueError {
    /// The requested time is before the time of the last popped event.
    InThePast {
        /// The requested time.
        requested: Time,
        /// The queue's current time.
        now: Time,
    },
    /// The event is already scheduled; use `reschedule` to move it.
    AlreadyScheduled,
    /// The event is not in the queue.
    NotScheduled,
}

impl fmt::Display for QueueError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueueError::InThePast { requested, now } => {
                write!(f, "cannot schedule an event at {requested}: the simulation is already at {now}")
            }
            QueueError::AlreadyScheduled => {
                write!(f, "the event is already scheduled; reschedule it instead")
            }
            QueueError::NotScheduled => write!(f, "the event is not scheduled"),
        }
    }
}

impl std::error::Error for QueueError {}

/// Why a simulation could not be built or could not go on.
#[derive(Debug)]
#[non_exhaustive]
pub enum SimulationError {
    /// A potential's clock period is not a finite positive number. Cannot start.
    BadPeriod {
        /// The potential's kind (`"membrane"`, …).
        kind: &'static str,
        /// Its stencil as global vertex indices.
        stencil: Vec<u32>,
        /// The period that was computed or given, s.
        period: f64,
    },
    /// A simulation parameter is out of range. Cannot start.
    BadParameter {
        /// The parameter's name.
        name: &'static str,
        /// What is wrong and what to use.
        message: String,
    },
    /// A phantom body's implicit step failed (Newton did not converge, or the forces are not
    /// finite; Phantom §3.2). Cannot continue.
    ImplicitSolve {
        /// The body's name.
        body: String,
        /// The tick's time, s.
        time: Real,
        /// Why.
        reason: String,
    },
    /// Positions or velocities became non-finite: a clock period is too long for its potential.
    /// Cannot continue.
    Diverged {
        /// The frame time at which it was noticed, s.
        time: f64,
    },
    /// An element stiffened by its strain past its clock: its stable step is below the period
    /// fixed for it at rest, so explicit kicks would blow up (a ribbon pulled far past its rest
    /// length). Cannot continue.
    ClockOutgrown {
        /// The potential's kind (`"membrane"`).
        kind: &'static str,
        /// The body's name.
        body: String,
        /// Its vertices, numbered within the body.
        vertices: Vec<u32>,
        /// When, s.
        time: Real,
        /// Its clock period, s.
        period: Real,
        /// Its stable step there, s.
        stable: Real,
    },
    /// Contact handling cannot go on: a layer period fell toward round-off (ACM §9, "Zeno") or
    /// a pair touched. Cannot continue.
    Contact(crate::contact::ContactError),
    /// Audit mode found a contact pair without a guard (a bug in the contact manager).
    Audit(crate::contact::AuditFailure),
    /// A contact pair starts closer than the outermost layer's thickness (or intersecting).
    /// Cannot start.
    InitialContact(crate::contact::StartError),
    /// The event queue refused a request (a broken engine invariant). Cannot continue.
    Queue(QueueError),
    /// An observer failed (e.g. a full disk). The trajectory is intact; the run stops.
    Observer(ObserverError),
    /// The run's [`Interrupt`](crate::interrupt::Interrupt) was raised (Ctrl-C, SIGTERM, or
    /// another thread): it stopped after the event in progress. The state is consistent; lower
    /// the flag and advance again to go on.
    Interrupted {
        /// Who raised it.
        cause: InterruptCause,
        /// Time of the last processed event, s.
        time: f64,
    },
}

impl SimulationError {
    /// True when stepping may go on after this error (only observer failures and interrupts
    /// leave the engine in a consistent state).
    pub fn can_continue(&self) -> bool {
        matches!(self, SimulationError::Observer(_) | SimulationError::Interrupted { .. })
    }
}

impl fmt::Display for SimulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimulationError::BadPeriod { kind, stencil, period } => write!(
                f,
                "the {kind} potential on vertices {stencil:?} has clock period {} s; periods must be finite and > 0 \
                 (check its stiffness and the masses of its vertices, or set the period explicitly)",
                Compact(*period)
            ),
            SimulationError::BadParameter { name, message } => write!(f, "`{name}`: {message}"),
            SimulationError::Diverged { time } if *time == 0.0 => write!(
                f,
                "the energy at t = 0 s is not finite: a value of the scene is too extreme for f64 (a huge velocity, \
                 stiffness, density or gravity, or a tiny mass, whose products in the energy overflow); bring it \
                 nearer to physical values"
            ),
            SimulationError::Diverged { time } => write!(
                f,
                "the simulation diverged before t = {} s (non-finite energy): a clock period is too long for its \
                 potential (lower [simulation] safety_factor or the explicit periods), or a value of the scene is so \
                 extreme that energies overflow f64 (a huge stiffness, density, velocity or gravity, or a tiny mass: \
                 bring it nearer to physical values)",
                Compact(*time)
            ),
            SimulationError::ImplicitSolve { body, time, reason } => {
                write!(f, "the implicit step of phantom body \"{body}\" at t = {} s failed: {reason}", Compact(*time))
            }
            SimulationError::ClockOutgrown { kind, body, vertices, time, period, stable } => write!(
                f,
                "the {kind} of body \"{body}\" on its vertices {vertices:?} has stiffened past its clock at t = {} s: \
                 stretched, its stable step is now {} of its period of {} s, so explicit kicks would blow up from \
                 here (ACM §3). Pull or load the body less far or more slowly, shorten its period (lower [simulation] \
                 safety_factor, or the period key that sets it: docs/scene-format.md, \"Clock periods\"), or put the \
                 body on implicit steps ([[body]] integration = \"phantom\")",
                Compact(*time),
                Compact::rounded(*stable / *period, 4),
                Compact::rounded(*period, 3)
            ),
            SimulationError::Contact(e) => write!(f, "contact: {e}"),
            SimulationError::Audit(e) => write!(f, "{e}"),
            SimulationError::InitialContact(e) => write!(f, "contact: {e}"),
            SimulationError::Queue(e) => write!(f, "event queue: {e}"),
            SimulationError::Observer(e) => write!(f, "writing output failed: {e}"),
            SimulationError::Interrupted { cause, time } => {
                write!(f, "interrupted by {cause} at t = {time} s, after the event in progress")
            }
        }
    }
}

impl std::error::Error for SimulationError {}

impl From<QueueError> for SimulationError {
    fn from(e: QueueError) -> Self {
        SimulationError::Queue(e)
    }
}
