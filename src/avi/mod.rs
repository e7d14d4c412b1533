//! The asynchronous variational integrator (ACM §3, Algorithm 1; Phantom §3.1).
//!
//! Every potential has its own regular clock. Events are drawn from one priority queue in causal
//! order; a force event drifts only its stencil's vertices to the event time and kicks them with
//! the potential's gradient times its period. With one common period for all potentials the
//! integrator is velocity Verlet (law 7).

mod backend;
mod broad_phase;
pub mod contact_manager;
mod engine;
mod kdop_hierarchy;
mod pair_store;

pub use crate::force::{ForceSpec, PeriodChoice};
pub use broad_phase::BroadPhaseKind;
pub use contact_manager::{
    AuditFailure, BookkeepingBytes, ContactError, ContactManager, ContactSettings, ContactVariant, LayerOutcome,
    PairId, Penetration, Schedule, StartError,
};
pub use engine::{AviEngine, EventKey};
