//! Time of impact of a point and a triangle (closed, degenerate ones included) moving linearly.

use super::{additive_ccd, Outcome};
use crate::geometry::distance::distance_point_triangle;
use crate::math::{Real, Vec3};

/// A conservative time of impact of point `p` and triangle `t0 t1 t2`, each vertex moving linearly
/// from `[start, end]` (its positions at t = 0 and t = 1), by additive CCD (Li et al. 2021, §5):
/// `None` when the distance stays above `min_separation` on `[0, max_time]`; otherwise a time
/// `t* ∈ [0, max_time]` never after the first time the distance reaches `min_separation`, at which
/// the gap has shrunk to at most a tenth of its initial value (see [the contract](super)).
/// `Some(0.0)` when the distance starts at or below `min_separation`.
///
/// `min_separation ≥ 0` and `max_time ≥ 0` (checked in debug builds).
pub fn toi_point_triangle(
    p: [Vec3; 2],
    t0: [Vec3; 2],
    t1: [Vec3; 2],
    t2: [Vec3; 2],
    min_separation: Real,
    max_time: Real,
) -> Option<Real> {
    ccd_point_triangle(p, t0, t1, t2, min_separation, max_time).time()
}

/// [`toi_point_triangle`] with how the search ended.
fn ccd_point_triangle(
    p: [Vec3; 2],
    t0: [Vec3; 2],
    t1: [Vec3; 2],
    t2: [Vec3; 2],
    min_separation: Real,
    max_time: Real,
) -> Outcome {
    additive_ccd(
        [p[0], t0[0], t1[0], t2[0]],
        [p[1], t0[1], t1[1], t2[1]],
        1,
        |&[p, t0, t1, t2]| distance_point_triangle(p, t0, t1, t2),
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
    fn run([p, t0, t1, t2]: Case, xi: Real, max_time: Real, known_contact: Option<Real>) -> Outcome {
        let outcome = ccd_point_triangle(p, t0, t1, t2, xi, max_time);
        let at = |x: [Vec3; 2], t: Real| x[0].lerp(&x[1], t);
        let gap = |t| distance_point_triangle(at(p, t), at(t0, t), at(t1, t), at(t2, t)) - xi;
        check(outcome, gap, max_time, known_contact);
        outcome
    }

    fn v(x: Real, y: Real, z: Real) -> Vec3 {
        Vec3::new(x, y, z)
    }

    fn still(x: Vec3) -> [Vec3; 2] {
        [x, x]
    }

    fn unit_triangle() -> [[Vec3; 2]; 3] {
        [still(v(0., 0., 0.)), still(v(1., 0., 0.)), still(v(0., 1., 0.))]
    }

    #[test]
    fn point_falls_onto_triangle() {
        let [t0, t1, t2] = unit_triangle();
        let p = [v(0.25, 0.25, 1.), v(0.25, 0.25, -1.)];
        // Closing speed 2 = l_p: steps of 0.45 (gap 0.1, at the threshold up to round-off), 0.045.
        let o = run([p, t0, t1, t2], 0.0, 1.0, Some(0.5));
        let Outcome::Impact(t) = o else { panic!("{o:?}") };
        assert!((0.45 - 1e-12..=0.495 + 1e-12).contains(&t), "{t}");
        assert_eq!(toi_point_triangle(p, t0, t1, t2, 0.0, 1.0), Some(t));
        // With a separation of 0.2 the gap closes at t = 0.4.
        let o = run([p, t0, t1, t2], 0.2, 1.0, Some(0.4));
        assert!(matches!(o, Outcome::Impact(t) if t > 0.35), "{o:?}");
        // Stopping short of the contact.
        assert_eq!(run([p, t0, t1, t2], 0.0, 0.3, None), Outcome::Clear);
        // The triangle rising to meet the point: the same relative motion.
        let rise = |x: Vec3| [x, x + v(0., 0., 2.)];
        let o = run([still(v(0.25, 0.25, 1.)), rise(t0[0]), rise(t1[0]), rise(t2[0])], 0.0, 1.0, Some(0.5));
        assert!(matches!(o, Outcome::Impact(t) if (0.45 - 1e-12..=0.495 + 1e-12).contains(&t)), "{o:?}");
    }

    #[test]
    fn vertex_through_an_edge() {
        let [t0, t1, t2] = unit_triangle();
        // Through the midpoint of edge t0 t1, slanting across the plane: contact at t = 0.5.
        let p = [v(0.5, -1., 1.), v(0.5, 1., -1.)];
        let o = run([p, t0, t1, t2], 0.0, 1.0, Some(0.5));
        assert!(matches!(o, Outcome::Impact(t) if t > 0.4), "{o:?}");
        // In the plane, through a vertex of the triangle.
        let p = [v(-1., -1., 0.), v(1., 1., 0.)];
        run([p, t0, t1, t2], 0.0, 1.0, Some(0.5));
    }

    #[test]
    fn near_zero_initial_distance() {
        let [t0, t1, t2] = unit_triangle();
        for d0 in [1e-14, 1e-10, 1e-6] {
            let p = [v(0.3, 0.3, d0), v(0.3, 0.3, d0 - 1.)];
            let o = run([p, t0, t1, t2], 0.0, 1.0, Some(d0));
            assert!(matches!(o, Outcome::Impact(t) if t > 0.0 && t <= d0), "{o:?}");
            // Moving away: clear after a few dozen steps.
            let away = [v(0.3, 0.3, d0), v(0.3, 0.3, d0 + 1.)];
            assert_eq!(run([away, t0, t1, t2], 0.0, 1.0, None), Outcome::Clear);
        }
        // Touching, or within the separation, at t = 0.
        assert_eq!(toi_point_triangle(still(v(0.3, 0.3, 0.)), t0, t1, t2, 0.0, 1.0), Some(0.0));
        assert_eq!(toi_point_triangle(still(v(0.3, 0.3, 0.1)), t0, t1, t2, 0.1, 1.0), Some(0.0));
    }

    #[test]
    fn grazing_miss() {
        let [t0, t1, t2] = unit_triangle();
        // Sliding over the face at height 1e-3 and off it: the gap never shrinks.
        let p = [v(0.1, 0.2, 1e-3), v(1.5, 0.2, 1e-3)];
        assert_eq!(run([p, t0, t1, t2], 0.0, 1.0, None), Outcome::Clear);
        // Falling past edge t1 t2, 0.28 away at the closest (above a tenth of the start gap 1.04).
        let p = [v(0.7, 0.7, 1.), v(0.7, 0.7, -1.)];
        assert_eq!(run([p, t0, t1, t2], 0.0, 1.0, None), Outcome::Clear);
        // A miss by less than a tenth of the start gap is reported, early, as ACCD specifies:
        // falling 7e-4 past the edge.
        let p = [v(0.5005, 0.5005, 1.), v(0.5005, 0.5005, -1.)];
        assert!(matches!(run([p, t0, t1, t2], 0.0, 1.0, None), Outcome::Impact(t) if t < 0.5));
        // No relative motion.
        let p = still(v(0.2, 0.2, 1.));
        let shift = |x: [Vec3; 2]| [x[0], x[0] + v(3., -1., 2.)];
        assert_eq!(toi_point_triangle(shift(p), shift(t0), shift(t1), shift(t2), 0.0, 1.0), None);
    }

    /// Four trajectories with a contact at `tc`: the point at barycentric `bary` of the triangle
    /// (on edge t0 t1 when `bary[2] = 0`) at that time.
    fn contact_case(tri: [Vec3; 3], bary: [Real; 3], v: [Vec3; 4], tc: Real) -> Case {
        let sum = bary[0] + bary[1] + bary[2];
        let q = (tri[0] * bary[0] + tri[1] * bary[1] + tri[2] * bary[2]) / sum;
        [through(q, v[0], tc), through(tri[0], v[1], tc), through(tri[1], v[2], tc), through(tri[2], v[3], tc)]
    }

    fn velocities() -> impl Strategy<Value = [Vec3; 4]> {
        [vec3(2.0), vec3(2.0), vec3(2.0), vec3(2.0)]
    }

    proptest! {
        #[test]
        fn random_trajectories(case in [trajectory(), trajectory(), trajectory(), trajectory()], xi in min_separation()) {
            run(case, xi, 1.0, None);
        }

        #[test]
        fn contact_inside_the_triangle(
            tri in [vec3(1.0), vec3(1.0), vec3(1.0)], bary in [0.01..1.0, 0.01..1.0, 0.01..1.0],
            v in velocities(), tc in 0.05..1.0, xi in min_separation(), max_time in 0.0..1.5,
        ) {
            run(contact_case(tri, bary, v, tc), xi, max_time, Some(tc));
        }

        #[test]
        fn vertex_through_a_triangle_edge(
            tri in [vec3(1.0), vec3(1.0), vec3(1.0)], lambda in 0.0..=1.0,
            v in velocities(), tc in 0.05..1.0, xi in min_separation(),
        ) {
            run(contact_case(tri, [1.0 - lambda, lambda, 0.0], v, tc), xi, 1.0, Some(tc));
        }

        #[test]
        fn near_zero_initial_distance_random(
            tri in [vec3(1.0), vec3(1.0), vec3(1.0)], bary in [0.0..1.0, 0.0..1.0, 0.01..1.0],
            v in velocities(), dir in unit(), d0 in tiny(),
        ) {
            // Start within d0 of the triangle (a point on it, moved by d0).
            let [p, t0, t1, t2] = contact_case(tri, bary, v, 0.0);
            let p = [p[0] + dir * d0, p[1] + dir * d0];
            run([p, t0, t1, t2], 0.0, 1.0, None);
        }
    }
}
