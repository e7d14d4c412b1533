//! Distance from a point to an edge (a closed segment).

use crate::math::{Real, Vec3};

/// The point of edge `e0 e1` closest to a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointEdgeClosest {
    /// The closest point, `e0 + t (e1 − e0)`.
    pub point: Vec3,
    /// Its parameter along the edge, in [0, 1]: 0 at `e0`, 1 at `e1` (0 for a zero-length edge).
    pub t: Real,
    /// The squared distance from the query point to [`point`](Self::point).
    pub distance_squared: Real,
}

impl PointEdgeClosest {
    /// The distance from the query point to the edge.
    #[inline]
    pub fn distance(&self) -> Real {
        self.distance_squared.sqrt()
    }
}

/// The point of edge `e0 e1` closest to `p`: the projection onto the edge's line, clamped to the
/// edge. A zero-length edge is the point `e0`.
#[inline]
pub fn closest_point_edge(p: Vec3, e0: Vec3, e1: Vec3) -> PointEdgeClosest {
    let e = e1 - e0;
    let len2 = e.norm_squared();
    let t = if len2 > 0.0 { ((p - e0).dot(&e) / len2).clamp(0.0, 1.0) } else { 0.0 };
    // From the nearer end, so that an endpoint is reproduced exactly.
    let point = if t <= 0.5 { e0 + e * t } else { e1 - e * (1.0 - t) };
    PointEdgeClosest { point, t, distance_squared: (p - point).norm_squared() }
}

/// Squared distance from `p` to edge `e0 e1`.
#[inline]
pub fn distance_squared_point_edge(p: Vec3, e0: Vec3, e1: Vec3) -> Real {
    closest_point_edge(p, e0, e1).distance_squared
}

/// Distance from `p` to edge `e0 e1`.
#[inline]
pub fn distance_point_edge(p: Vec3, e0: Vec3, e1: Vec3) -> Real {
    closest_point_edge(p, e0, e1).distance()
}

/// `[∂d/∂p, ∂d/∂e0, ∂d/∂e1] = [n, −(1 − t) n, −t n]` with `n` the unit vector from the closest
/// point to `p` (see the [module docs](super)); `None` when `p` lies on the edge.
#[inline]
pub fn gradient_distance_point_edge(p: Vec3, e0: Vec3, e1: Vec3) -> Option<[Vec3; 3]> {
    let c = closest_point_edge(p, e0, e1);
    let n = super::unit(p - c.point)?;
    Some([n, -n * (1.0 - c.t), -n * c.t])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::distance::reference::{assert_gradient, assert_minimum, point, ref_point_edge};
    use proptest::prelude::*;

    #[test]
    fn closed_form() {
        let (e0, e1) = (Vec3::zeros(), Vec3::new(2.0, 0.0, 0.0));
        let c = closest_point_edge(Vec3::new(0.5, 3.0, 4.0), e0, e1);
        assert_eq!((c.t, c.point, c.distance()), (0.25, Vec3::new(0.5, 0.0, 0.0), 5.0));
        let c = closest_point_edge(Vec3::new(-3.0, 4.0, 0.0), e0, e1);
        assert_eq!((c.t, c.point, c.distance()), (0.0, e0, 5.0));
        let c = closest_point_edge(Vec3::new(5.0, 0.0, -4.0), e0, e1);
        assert_eq!((c.t, c.point, c.distance()), (1.0, e1, 5.0));
        assert_eq!(distance_squared_point_edge(Vec3::new(1.0, 1.0, 0.0), e0, e1), 1.0);
        let [gp, g0, g1] = gradient_distance_point_edge(Vec3::new(0.5, 3.0, 4.0), e0, e1).unwrap();
        assert_eq!(gp, Vec3::new(0.0, 0.6, 0.8));
        assert_eq!((g0, g1), (-gp * 0.75, -gp * 0.25));
        assert!(gradient_distance_point_edge(Vec3::new(1.0, 0.0, 0.0), e0, e1).is_none());
    }

    #[test]
    fn degenerate_edges_are_points() {
        let e = Vec3::new(1.0, 1.0, 1.0);
        let c = closest_point_edge(Vec3::new(1.0, 1.0, 4.0), e, e);
        assert_eq!((c.t, c.point, c.distance()), (0.0, e, 3.0));
        let tiny = e + Vec3::new(1e-300, 0.0, 0.0);
        let c = closest_point_edge(Vec3::new(1.0, 1.0, 4.0), e, tiny);
        assert!(c.t.is_finite() && c.distance() == 3.0);
        assert!(gradient_distance_point_edge(e, e, e).is_none());
    }

    proptest! {
        #[test]
        fn is_the_minimum_distance(p in point(), e0 in point(), e1 in point(), shrink in prop_oneof![Just(1.0), 0.0..1e-6]) {
            let e1 = e0 + (e1 - e0) * shrink;
            let d = distance_point_edge(p, e0, e1);
            let n = 1000;
            let grid = (0..=n).map(|i| (p - e0.lerp(&e1, i as Real / n as Real)).norm()).fold(Real::INFINITY, Real::min);
            assert_minimum(d, ref_point_edge(p, e0, e1), grid, 0.5 * (e1 - e0).norm() / n as Real, 1e-12);
            let c = closest_point_edge(p, e0, e1);
            prop_assert!((0.0..=1.0).contains(&c.t));
            prop_assert!((c.point - e0.lerp(&e1, c.t)).norm() <= 1e-14);
        }

        #[test]
        fn gradient_matches_finite_differences([p, e0, e1] in [point(), point(), point()].prop_filter(
            "a point away from a long edge",
            |[p, e0, e1]| distance_point_edge(*p, *e0, *e1) > 1e-2 && (e1 - e0).norm() > 1e-2,
        )) {
            let g = gradient_distance_point_edge(p, e0, e1).unwrap();
            let end = |[p, e0, e1]: [Vec3; 3]| {
                let t = closest_point_edge(p, e0, e1).t;
                (t == 0.0, t == 1.0)
            };
            assert_gradient([p, e0, e1], |[p, e0, e1]| distance_point_edge(p, e0, e1), end, g);
        }
    }
}
