//! Vague trajectories (ACM §5.3): a vertex's straight-line trajectory from its state at time
//! `t0`, with a tube of velocity uncertainty ε around it.

use crate::math::{Real, Vec3};

/// `x(t) = x0 + (v0 + u(t)) (t − t0)` for any `u` with `‖u(t)‖ ≤ ε`: the tube of trajectories a
/// certificate must stay valid for. With ε = 0 it is the exact linear trajectory of the AVI
/// between kicks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VagueTrajectory {
    /// Position at `t0`, m.
    pub x0: Vec3,
    /// Nominal velocity, m/s.
    pub v0: Vec3,
    /// Velocity tolerance ε ≥ 0, m/s: kicks that keep ‖v − v0‖ ≤ ε need no rescheduling.
    pub tolerance: Real,
}

impl VagueTrajectory {
    /// The exact linear trajectory through `x0` with velocity `v0`.
    pub fn linear(x0: Vec3, v0: Vec3) -> Self {
        VagueTrajectory { x0, v0, tolerance: 0.0 }
    }

    /// Largest possible speed along unit direction `n`: `n·v0 + ε`.
    pub fn max_speed_along(&self, n: &Vec3) -> Real {
        n.dot(&self.v0) + self.tolerance
    }

    /// True while a velocity `v` stays inside the tube (no rescheduling needed).
    pub fn admits(&self, v: &Vec3) -> bool {
        (v - self.v0).norm() <= self.tolerance
    }
}
