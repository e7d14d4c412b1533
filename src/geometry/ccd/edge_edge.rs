//! Time of impact of two edges (closed segments, zero-length ones included) moving linearly.

use super::{additive_ccd, Outcome};
use crate::geometry::distance::distance_edge_edge;
use crate::math::{Real, Vec3};

/// A conservative time of impact of edges `a0 a1` and `b0 b1`, each vertex moving linearly from
/// `[start, end]` (its positions at t = 0 and t = 1), by additive CCD (Li et al. 2021, §5):
/// `None` when the distance stays above `min_separation` on `[0, max_time]`; otherwise a time
/// `t* ∈ [0, max_time]` never after the first time the distance reaches `min_separation`, at which
/// the gap has shrunk to at most a tenth of its initial value (see [the contract](super)).
/// `Some(0.0)` when the distance starts at or below `min_separation`. Parallel edges need no
/// special case: the search only evaluates distances.
///
/// `min_separation ≥ 0` and `max_time ≥ 0` (checked in debug builds).
pub fn toi_edge_edge(
    a0: [Vec3; 2],
    a1: [Vec3; 2],
    b0: [Vec3; 2],
    b1: [Vec3; 2],
    min_separation: Real,
    max_time: Real,
) -> Option<Real> {
    ccd_edge_edge(a0, a1, b0, b1, min_separation, max_time).time()
}

/// [`toi_edge_edge`] with how the search ended.
fn ccd_edge_edge(
    a0: [Vec3; 2],
    a1: [Vec3; 2],
    b0: [Vec3; 2],
    b1: [Vec3; 2],
    min_separation: Real,
    max_time: Real,
) -> Outcome {
    additive_ccd(
        [a0[0], a1[0], b0[0], b1[0]],
        [a0[1], a1[1], b0[1], b1[1]],
        2,
        |&[a0, a1, b0, b1]| distance_edge_edge(a0, a1, b0, b1),
        min_separation,
        max_time,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::ccd::reference::{check, min_separation, through, tiny, trajectory, unit, vec3};
    use proptest::prelude::*;

    type Case = [[Vec3; 2]; 4];

    /// Runs the CCD on `case` and checks it against the sampled reference.
    fn run([a0, a1, b0, b1]: Case, xi: Real, max_time: Real, known_contact: Option<Real>) -> Outcome {
        let outcome = ccd_edge_edge(a0, a1, b0, b1, xi, max_time);
        let at = |x: [Vec3; 2], t: Real| x[0].lerp(&x[1], t);
        let gap = |t| distance_edge_edge(at(a0, t), at(a1, t), at(b0, t), at(b1, t)) - xi;
        check(outcome, gap, max_time, known_contact);
        outcome
    }

    fn v(x: Real, y: Real, z: Real) -> Vec3 {
        Vec3::new(x, y, z)
    }

    fn still(x: Vec3) -> [Vec3; 2] {
        [x, x]
    }

    fn falling(x: Vec3, dz: Real) -> [Vec3; 2] {
        [x, x + v(0., 0., dz)]
    }

    #[test]
    fn parallel_edges_approach() {
        let (a0, a1) = (still(v(0., 0., 0.)), still(v(1., 0., 0.)));
        // Edge b one above a, overlapping half of it, falling by 2: contact at t = 0.5.
        let (b0, b1) = (falling(v(0.5, 0., 1.), -2.), falling(v(1.5, 0., 1.), -2.));
        let o = run([a0, a1, b0, b1], 0.0, 1.0, Some(0.5));
        assert!(matches!(o, Outcome::Impact(t) if (0.45 - 1e-12..=0.495 + 1e-12).contains(&t)), "{o:?}");
        assert_eq!(toi_edge_edge(a0, a1, b0, b1, 0.0, 1.0), o.time());
        // Antiparallel and collinear, sliding into each other end to end: contact at t = 0.25.
        let (b0, b1) = ([v(2., 0., 0.), v(0., 0., 0.)], [v(1.5, 0., 0.), v(-0.5, 0., 0.)]);
        run([a0, a1, b0, b1], 0.0, 1.0, Some(0.25));
        // Parallel and overlapping, 1e-3 apart, sliding along: the gap never shrinks.
        let (b0, b1) = ([v(-2., 1e-3, 0.), v(-1.9, 1e-3, 0.)], [v(2., 1e-3, 0.), v(2.1, 1e-3, 0.)]);
        assert_eq!(run([a0, a1, b0, b1], 0.0, 1.0, None), Outcome::Clear);
    }

    #[test]
    fn crossing_edges() {
        let (a0, a1) = (still(v(0., 0., 0.)), still(v(1., 0., 0.)));
        let (b0, b1) = (falling(v(0.5, -1., 1.), -2.), falling(v(0.5, 1., 1.), -2.));
        let o = run([a0, a1, b0, b1], 0.0, 1.0, Some(0.5));
        assert!(matches!(o, Outcome::Impact(t) if t >= 0.45 - 1e-12), "{o:?}");
        // With separation 0.5 the gap closes at t = 0.25.
        run([a0, a1, b0, b1], 0.5, 1.0, Some(0.25));
        // Falling past the end of a, 0.2 away at the closest (start gap 1.02): a miss.
        let (b0, b1) = (falling(v(1.2, -1., 1.), -2.), falling(v(1.2, 1., 1.), -2.));
        assert_eq!(run([a0, a1, b0, b1], 0.0, 1.0, None), Outcome::Clear);
        // Missing by 1e-3, less than a tenth of the start gap: reported early, as ACCD specifies.
        let (b0, b1) = (falling(v(1.001, -1., 1.), -2.), falling(v(1.001, 1., 1.), -2.));
        assert!(matches!(run([a0, a1, b0, b1], 0.0, 1.0, None), Outcome::Impact(t) if t < 0.5));
    }

    #[test]
    fn near_zero_initial_distance() {
        let (a0, a1) = (still(v(0., 0., 0.)), still(v(1., 0., 0.)));
        for d0 in [1e-14, 1e-10, 1e-6] {
            let (b0, b1) = (falling(v(0.5, -1., d0), -1.), falling(v(0.5, 1., d0), -1.));
            let o = run([a0, a1, b0, b1], 0.0, 1.0, Some(d0));
            assert!(matches!(o, Outcome::Impact(t) if t > 0.0 && t <= d0), "{o:?}");
            // Sliding along a, parallel at distance d0: never touching, but steps of ~d0, so the
            // iteration cap ends the search early, still conservative.
            let (b0, b1) = ([v(0., d0, 0.), v(1., d0, 0.)], [v(1., d0, 0.), v(2., d0, 0.)]);
            assert!(matches!(run([a0, a1, b0, b1], 0.0, 1.0, None), Outcome::Capped(t) if t < 1.0));
        }
        assert_eq!(toi_edge_edge(a0, a1, still(v(0.5, -1., 0.)), still(v(0.5, 1., 0.)), 0.0, 1.0), Some(0.0));
    }

    /// Edges `a` (at time `tc`) and `b = q − λ u … q + (1 − λ) u` through the point `q` of `a` at
    /// parameter `s`, each vertex with its velocity.
    fn contact_case(a: [Vec3; 2], s: Real, u: Vec3, lambda: Real, v: [Vec3; 4], tc: Real) -> Case {
        let q = a[0].lerp(&a[1], s);
        let (b0, b1) = (q - u * lambda, q + u * (1.0 - lambda));
        [through(a[0], v[0], tc), through(a[1], v[1], tc), through(b0, v[2], tc), through(b1, v[3], tc)]
    }

    proptest! {
        #[test]
        fn random_trajectories(case in [trajectory(), trajectory(), trajectory(), trajectory()], xi in min_separation()) {
            run(case, xi, 1.0, None);
        }

        #[test]
        fn crossing_at_a_known_time(
            a in [vec3(1.0), vec3(1.0)], s in 0.0..=1.0, u in vec3(1.0), lambda in 0.0..=1.0,
            v in [vec3(2.0), vec3(2.0), vec3(2.0), vec3(2.0)], tc in 0.05..1.0, xi in min_separation(),
            max_time in 0.0..1.5,
        ) {
            run(contact_case(a, s, u, lambda, v, tc), xi, max_time, Some(tc));
        }

        #[test]
        fn parallel_edges(
            a in [vec3(1.0), vec3(1.0)], s in 0.0..=1.0, k in prop_oneof![-2.0..-0.2, 0.2..2.0], lambda in 0.0..=1.0,
            va in vec3(2.0), vb in vec3(2.0), tc in 0.05..1.0, xi in min_separation(),
        ) {
            // b parallel to a and overlapping it at tc; each edge translating, so parallel throughout.
            let u = (a[1] - a[0]) * k;
            run(contact_case(a, s, u, lambda, [va, va, vb, vb], tc), xi, 1.0, Some(tc));
        }

        #[test]
        fn near_zero_initial_distance_random(
            a in [vec3(1.0), vec3(1.0)], s in 0.0..=1.0, u in vec3(1.0), lambda in 0.0..=1.0,
            v in [vec3(2.0), vec3(2.0), vec3(2.0), vec3(2.0)], dir in unit(), d0 in tiny(), parallel in any::<bool>(),
        ) {
            // Touching at t = 0, then b moved by d0.
            let (u, v) = if parallel { ((a[1] - a[0]) * 0.7, [v[0], v[0], v[2], v[2]]) } else { (u, v) };
            let [a0, a1, b0, b1] = contact_case(a, s, u, lambda, v, 0.0);
            let shift = |x: [Vec3; 2]| [x[0] + dir * d0, x[1] + dir * d0];
            run([a0, a1, shift(b0), shift(b1)], 0.0, 1.0, None);
        }
    }
}
