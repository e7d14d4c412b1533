//! Contact as discrete penalty layers (ACM §4; report §5): a conceptually infinite stack of
//! nested quadratic potentials per pair of primitives, each on its own clock.
//!
//! This module holds the laws only, as data apart from the geometry: the layer
//! schedule η(l), r(l) and each layer's clock period h(l). Which layers are on the queue is
//! decided by certificates (`kds/`) and the contact manager.

pub mod failure;
pub mod layers;
pub mod proximity;

pub use failure::{AuditFailure, BroadPhaseStall, ContactError, PairReport, Penetration, StartError, VertexReport};
pub use layers::{LayerSchedule, ZenoError};
pub use proximity::{closest_violation, Primitive, TooClose};
