//! Test-only reference and strategies for the CCD tests. The reference shares no code with the
//! CCD: it samples the distance (from [`crate::geometry::distance`]) along the plain
//! `start.lerp(end, t)` trajectories, densely, and uses the samples only as the CCD's contract
//! allows: a sample in `[0, t*]` whose gap is below `s²/2` of the initial gap would be a contact
//! (up to that tolerance) no later than `t*`.

use super::{Outcome, GAP_FRACTION};
use crate::math::{Real, Vec3};
use proptest::prelude::*;

/// Samples per sweep.
const SAMPLES: usize = 20_000;

/// Checks `outcome` against the gap `gap_at(t) = d(t) − ξ` on `[0, max_time]`, and against a
/// contact known (by construction) to happen at `known_contact` or earlier.
pub fn check(outcome: Outcome, gap_at: impl Fn(Real) -> Real, max_time: Real, known_contact: Option<Real>) {
    let gap0 = gap_at(0.0);
    if gap0 <= 0.0 {
        assert_eq!(outcome, Outcome::Impact(0.0), "touching at t = 0 (gap {gap0:e})");
        return;
    }
    if let Some(tc) = known_contact.filter(|&tc| tc <= max_time) {
        let t = outcome.time();
        assert!(t.is_some_and(|t| t <= tc + 1e-12), "{outcome:?} after the constructed contact at {tc}");
    }
    // Never late: the gap stays above `tol` on [0, t*] (on [0, max_time] when clear), sampled
    // on the whole range and again densely on [0, t*] alone, for a t* far below max_time.
    let tol = 0.5 * GAP_FRACTION * GAP_FRACTION * gap0;
    let end = match outcome {
        Outcome::Impact(t) | Outcome::Capped(t) => {
            assert!((0.0..=max_time).contains(&t), "{outcome:?} outside [0, {max_time}]");
            t
        }
        Outcome::Clear => max_time,
    };
    for range in [max_time, end] {
        for i in 0..=SAMPLES {
            let t = range * i as Real / SAMPLES as Real;
            if t > end {
                break;
            }
            let gap = gap_at(t);
            assert!(gap > tol, "{outcome:?}: gap {gap:e} ≤ {tol:e} (initial {gap0:e}) at t = {t}, before the report");
        }
    }
    // Close at an impact.
    if let Outcome::Impact(t) = outcome {
        let gap = gap_at(t);
        assert!(gap <= GAP_FRACTION * gap0 + 1e-12, "{outcome:?}: gap {gap:e} still large (initial {gap0:e})");
    }
}

/// A vertex trajectory `[start, end]` through `at` at time `t_at` with velocity `v`.
pub fn through(at: Vec3, v: Vec3, t_at: Real) -> [Vec3; 2] {
    let start = at - v * t_at;
    [start, start + v]
}

/// A point with coordinates in `[-r, r]`.
pub fn vec3(r: Real) -> impl Strategy<Value = Vec3> {
    [-r..=r, -r..=r, -r..=r].prop_map(Vec3::from)
}

/// A unit vector (away from the degenerate zero draw).
pub fn unit() -> impl Strategy<Value = Vec3> {
    vec3(1.0).prop_filter_map("a direction", |v| v.try_normalize(1e-3))
}

/// A random linear trajectory in the unit box, moving by up to 2 per coordinate.
pub fn trajectory() -> impl Strategy<Value = [Vec3; 2]> {
    (vec3(1.0), vec3(2.0)).prop_map(|(x, v)| [x, x + v])
}

/// `min_separation`: zero half the time.
pub fn min_separation() -> impl Strategy<Value = Real> {
    prop_oneof![Just(0.0), 0.0..0.05]
}

/// A tiny positive initial distance, 1e-10 to 1e-4 (log-uniform).
pub fn tiny() -> impl Strategy<Value = Real> {
    (-10.0..-4.0).prop_map(|e: Real| (10.0 as Real).powf(e))
}
