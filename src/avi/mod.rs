//! The asynchronous variational integrator (ACM §3, Algorithm 1; Phantom §3.1).
//!
//! Every potential has its own regular clock. Events are drawn from one priority queue in causal
//! order; a force event drifts only its stencil's vertices to the event time and kicks them with
//! the potential's gradient times its period. With one common period for all potentials the
//! integrator is velocity Verlet (law 7).

mod backend;
pub mod contact;
mod engine;
pub mod phantom;

pub use crate::contact::{AuditFailure, ContactError, Penetration, StartError};
pub use crate::force::{ForceSpec, PeriodChoice};
pub use crate::ids::PairId;
pub use contact::{
    BookkeepingBytes, BroadPhaseKind, ContactManager, ContactSettings, ContactVariant, LayerOutcome, Schedule,
};
pub use engine::{AviEngine, EventKey};
pub use phantom::{PhantomMeshes, PhantomSettings, PhantomState};
