//! Kinetic data structures: certificates that say *when* a fact may stop holding (ACM §5;
//! STYLE habit 7). They never change the trajectory; they only decide which penalty-layer clocks
//! must be on the queue (DESIGN law 5).
//!
//! Contract of every certificate: *may fail early, must never fail late*. `None` is a certificate
//! that never fails.

pub mod hash_grid;
pub mod kdop;
pub mod slab;
pub mod trajectory;

pub use slab::{Slab, SlabDirection, SlabSide};
pub use trajectory::VagueTrajectory;
