//! Conservative continuous collision detection (CCD): the first time of impact of two primitives
//! whose vertices move linearly, never reported late.
//!
//! One primitive pair per file: [`point_triangle`] and [`edge_edge`]. Each vertex
//! is given as `[start, end]`, its positions at t = 0 and t = 1 of the trajectory
//! `x(t) = start + t (end − start)`; times are in units of that trajectory (t = 1 at `end`) and
//! `max_time` may exceed 1.
//!
//! ## Contract: may report early, must never report late
//! With `d(t)` the distance between the primitives and `ξ = min_separation ≥ 0`:
//!
//! * `Some(0.0)` when `d(0) ≤ ξ` already (and for non-finite input);
//! * `Some(t*)`, `t* ∈ [0, max_time]`, with `d > ξ` on `[0, t*]`: in exact arithmetic
//!   `d − ξ ≥ s² (d(0) − ξ)` there, and at `t*` itself `d(t*) − ξ ≤ s (d(0) − ξ)` (the primitives
//!   are close), `s` being [`GAP_FRACTION`]. Only after [`MAX_ITERATIONS`] steps (a long grazing
//!   approach) may `t*` be returned with the primitives still far apart; it stays conservative;
//! * `None` when `d > ξ` on all of `[0, max_time]` (then also `d − ξ ≥ s² (d(0) − ξ)` there).
//!
//! So a `t*` is never after the true first time the distance reaches `ξ`, and the configuration at
//! `t*` keeps a positive gap, as the IPC line search needs (Li et al. 2020, §4.1 and §5).
//!
//! ## Method: additive CCD
//! Li, Kaufman and Jiang, "Codimensional Incremental Potential Contact", SIGGRAPH 2021,
//! §5 and Algorithm 1 (ACCD). The distance depends only on the vertices' relative positions, so the
//! mean displacement of the four vertices is subtracted first (a common translation). After that,
//! the distance between the primitives changes at most at rate
//! `l_p = max |Δx| over one primitive + max |Δx| over the other` (the closest points are convex
//! combinations of each side's vertices). Starting at t = 0, each iteration advances
//! `t ← t + (1 − s)(d(t) − ξ)/l_p`: on that step the gap `d − ξ` can shrink by at most
//! `(1 − s)(d(t) − ξ)`, so it stays `≥ s (d(t) − ξ) > 0` and no contact is passed. The loop stops
//! when `d(t) − ξ ≤ s (d(0) − ξ)` (return `t`) or when the next step would reach `max_time`
//! (return `None`). A head-on approach takes a handful of iterations (two for a point falling
//! straight onto a triangle); only nearly tangential motion at a tiny gap needs many, hence the
//! cap. The distances are [`crate::geometry::distance`]'s; nothing is allocated.

pub mod edge_edge;
pub mod point_triangle;

#[cfg(test)]
mod reference;

pub use edge_edge::toi_edge_edge;
pub use point_triangle::toi_point_triangle;

use crate::math::{Real, Vec3};

/// `s` of additive CCD: the search stops once the gap `d − ξ` is at most this fraction of its
/// initial value, and each step spends at most `1 − s` of the current gap (Li et al. 2021, §5).
pub const GAP_FRACTION: Real = 0.1;

/// Iteration cap of additive CCD; reaching it returns the current (still conservative) time.
pub const MAX_ITERATIONS: u32 = 1_000_000;

/// How an additive CCD search ended.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    /// The gap fell to [`GAP_FRACTION`] of its initial value at this time (or was ≤ 0 at t = 0).
    Impact(Real),
    /// [`MAX_ITERATIONS`] steps reached this time without contact.
    Capped(Real),
    /// No contact on `[0, max_time]`.
    Clear,
}

impl Outcome {
    /// The reported time of impact.
    fn time(self) -> Option<Real> {
        match self {
            Outcome::Impact(t) | Outcome::Capped(t) => Some(t),
            Outcome::Clear => None,
        }
    }
}

/// Additive CCD (Li et al. 2021, Algorithm 1) for four vertices moving from `start` to `end`, the
/// first `split` of them forming one primitive and the rest the other; `distance` measures the two
/// primitives of a configuration.
fn additive_ccd(
    start: [Vec3; 4],
    end: [Vec3; 4],
    split: usize,
    distance: impl Fn(&[Vec3; 4]) -> Real,
    min_separation: Real,
    max_time: Real,
) -> Outcome {
    debug_assert!(min_separation >= 0.0 && max_time >= 0.0, "ξ = {min_separation}, max_time = {max_time}");
    let mut step: [Vec3; 4] = std::array::from_fn(|i| end[i] - start[i]);
    let mean = (step[0] + step[1] + step[2] + step[3]) / 4.0;
    step.iter_mut().for_each(|v| *v -= mean);
    let max_norm = |side: &[Vec3]| side.iter().map(|v| v.norm()).fold(0.0, Real::max);
    let l_p = max_norm(&step[..split]) + max_norm(&step[split..]);

    let gap0 = distance(&start) - min_separation;
    if gap0.is_nan() || gap0 <= 0.0 || !l_p.is_finite() {
        return Outcome::Impact(0.0);
    }
    if l_p == 0.0 {
        return Outcome::Clear; // no relative motion
    }
    let target = GAP_FRACTION * gap0;
    let (mut t, mut gap) = (0.0, gap0);
    for _ in 0..MAX_ITERATIONS {
        t += (1.0 - GAP_FRACTION) * gap / l_p;
        if t >= max_time {
            return Outcome::Clear;
        }
        gap = distance(&std::array::from_fn(|i| start[i] + step[i] * t)) - min_separation;
        if gap <= target {
            return Outcome::Impact(t);
        }
    }
    Outcome::Capped(t)
}
