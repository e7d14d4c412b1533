//! The synchronous backend (DESIGN L4 `sync/`): implicit integrators on the same potentials as
//! the AVI, summed through one assembly, so a scene can be run both ways and compared.
//!
//! Every step minimises an incremental potential with Newton's method (per-stencil PSD
//! projection, sparse Cholesky, backtracking line search). IPC barrier contact and CCD are the
//! next step of this backend (issue 5); scenes with `[contact]` run without contact here too.

mod engine;
pub mod integrators;
pub mod newton;

pub use engine::{IntegratorKind, SyncEngine, SyncParameters};
pub use integrators::{EnergyTarget, Integrator, StepReport};
pub use newton::{NewtonError, NewtonParameters};
