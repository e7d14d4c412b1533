//! Kinetic data structures: certificates that say *when* a fact may stop holding (ACM §5).
//! They never change the trajectory; they only decide which penalty-layer clocks must be on the
//! queue (law 5 in `docs/design.md`).
//!
//! Contract of every certificate: *may fail early, must never fail late*. `None` is a certificate
//! that never fails.

pub mod hash_grid;
pub mod kdop;
pub mod slab;
pub mod trajectory;

pub use slab::{Slab, SlabDirection, SlabSide, StoredSlab};
pub use trajectory::VagueTrajectory;
