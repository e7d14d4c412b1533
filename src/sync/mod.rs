//! The synchronous backend (layer L4 of `docs/design.md`): implicit integrators on the same
//! potentials as the AVI, summed through one assembly, so a scene can be run both ways and
//! compared.
//!
//! Every step minimises an incremental potential with Newton's method (per-stencil PSD
//! projection, sparse Cholesky or Jacobi-PCG ([`LinearSolver`]), backtracking line search). Scenes with `[contact]` get IPC contact
//! ([`ipc`]): log barriers on close point–triangle and edge–edge pairs and a CCD-filtered line
//! search, so every accepted iterate is intersection-free. Implicit midpoint and the blend can take
//! Dinev et al.'s local/global solver in Newton's place ([`local_global`], `[sync] solver`).
//! `[contact] model = "predictor-corrector"` replaces IPC by Löschner et al.'s contact QP after
//! an unconstrained step ([`corrector`]).

mod backend;
pub mod corrector;
mod engine;
pub mod integrators;
pub mod ipc;
pub mod local_global;

pub use crate::newton::{LinearSolver, NewtonError, NewtonParameters};
pub use engine::{ContactModel, IntegratorKind, SolverKind, SyncEngine, SyncParameters};
pub use integrators::{EnergyTarget, Integrator, StepReport};
pub use ipc::{IpcContact, IpcParameters};
