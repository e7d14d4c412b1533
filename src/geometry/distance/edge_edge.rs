//! Distance between two edges (closed segments, zero-length ones included).

use super::point_edge::closest_point_edge;
use crate::math::{Real, Vec3};

/// Below this sine of the angle between them, edges are treated as parallel: their distance is
/// then the least of the four endpoint–edge distances, which overestimates it by at most
/// `PARALLEL_SINE` times the longer edge's length (only where the edges' projections cross).
const PARALLEL_SINE: Real = 1e-12;

/// The closest points of edges `a0 a1` and `b0 b1`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeEdgeClosest {
    /// The parameter of [`pa`](Self::pa) along edge a, in [0, 1].
    pub s: Real,
    /// The parameter of [`pb`](Self::pb) along edge b, in [0, 1].
    pub t: Real,
    /// The closest point of edge a, `a0 + s (a1 − a0)`.
    pub pa: Vec3,
    /// The closest point of edge b, `b0 + t (b1 − b0)`.
    pub pb: Vec3,
    /// `|pa − pb|²`.
    pub distance_squared: Real,
}

impl EdgeEdgeClosest {
    /// The distance between the edges.
    #[inline]
    pub fn distance(&self) -> Real {
        self.distance_squared.sqrt()
    }

    /// [`gradient_distance_edge_edge`] of the edges this was found for, without finding the
    /// closest points again.
    #[inline]
    pub fn gradient(&self) -> Option<[Vec3; 4]> {
        let n = super::unit(self.pa - self.pb)?;
        Some([n * (1.0 - self.s), n * self.s, -n * (1.0 - self.t), -n * self.t])
    }
}

/// The closest points of edges `a0 a1` and `b0 b1`.
///
/// The candidates are the four endpoint–edge answers and, unless the edges are nearly parallel
/// (sine of their angle at most 1e-12), the interior answer: the closest point of line a to line
/// b, clamped to edge a, projected onto edge b, and that projected back onto edge a. The nearest
/// wins, the interior on a tie. If the lines' closest points lie inside both edges, the interior
/// answer is exact; otherwise the minimum over the parameter square lies on its boundary, which
/// the endpoint–edge answers cover; parallel edges always have a closest pair at an endpoint.
/// Every candidate is a pair of points of the edges, so round-off never makes the result
/// undershoot.
#[inline]
pub fn closest_edge_edge(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> EdgeEdgeClosest {
    let (u, v, w) = (a1 - a0, b1 - b0, b0 - a0);
    let mut best = EdgeEdgeClosest { s: 0.0, t: 0.0, pa: a0, pb: b0, distance_squared: Real::INFINITY };

    // Interior: (a0 + s u) − (b0 + t v) ∥ n; cross with v and dot with n. For nearly parallel
    // edges s is ill-conditioned (error ~ ε/sin θ), a slip along the lines that would show in the
    // distance were t computed the same way; projecting onto b and back onto a instead leaves an
    // error of order ε · length.
    let n = u.cross(&v);
    let n2 = n.norm_squared();
    if n2.is_normal() && n2 > PARALLEL_SINE * PARALLEL_SINE * u.norm_squared() * v.norm_squared() {
        let line = w.cross(&v).dot(&n) / n2;
        let s = line.clamp(0.0, 1.0);
        let cb = closest_point_edge(a0 + u * s, b0, b1);
        let ca = closest_point_edge(cb.point, a0, a1);
        best = EdgeEdgeClosest { s: ca.t, t: cb.t, pa: ca.point, pb: cb.point, distance_squared: ca.distance_squared };
        if s == line && cb.t > 0.0 && cb.t < 1.0 && ca.t > 0.0 && ca.t < 1.0 {
            // the lines' closest points lie inside both edges: the one minimum of the (convex)
            // squared distance, so no endpoint does better
            return best;
        }
    }

    // Endpoints against the other edge.
    let mut consider = |s: Real, t: Real, pa: Vec3, pb: Vec3, distance_squared: Real| {
        if distance_squared < best.distance_squared {
            best = EdgeEdgeClosest { s, t, pa, pb, distance_squared };
        }
    };
    for (s, pa) in [(0.0, a0), (1.0, a1)] {
        let c = closest_point_edge(pa, b0, b1);
        consider(s, c.t, pa, c.point, c.distance_squared);
    }
    for (t, pb) in [(0.0, b0), (1.0, b1)] {
        let c = closest_point_edge(pb, a0, a1);
        consider(c.t, t, c.point, pb, c.distance_squared);
    }
    best
}

/// Squared distance between edges `a0 a1` and `b0 b1`.
#[inline]
pub fn distance_squared_edge_edge(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> Real {
    closest_edge_edge(a0, a1, b0, b1).distance_squared
}

/// Distance between edges `a0 a1` and `b0 b1`.
#[inline]
pub fn distance_edge_edge(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> Real {
    closest_edge_edge(a0, a1, b0, b1).distance()
}

/// `[∂d/∂a0, ∂d/∂a1, ∂d/∂b0, ∂d/∂b1] = [(1 − s) n, s n, −(1 − t) n, −t n]` with
/// `n = (pa − pb)/d` (see the [module docs](super)); `None` when the edges touch. For exactly
/// parallel edges with a segment of closest pairs this is one one-sided derivative of a kink.
#[inline]
pub fn gradient_distance_edge_edge(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> Option<[Vec3; 4]> {
    closest_edge_edge(a0, a1, b0, b1).gradient()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::distance::reference::{
        assert_gradient, assert_minimum, edge_pair, point, ref_edge_edge, sampled,
    };
    use proptest::prelude::*;

    fn check([a0, a1, b0, b1]: [Vec3; 4]) -> EdgeEdgeClosest {
        let c = closest_edge_edge(a0, a1, b0, b1);
        let n = 200;
        let grid = sampled(n, false, |s, t| (a0.lerp(&a1, s) - b0.lerp(&b1, t)).norm());
        let spacing = 0.5 * ((a1 - a0).norm() + (b1 - b0).norm()) / n as Real;
        let tol = 1e-12 * (1.0 + (b0 - a0).norm());
        assert_minimum(c.distance(), ref_edge_edge(a0, a1, b0, b1), grid, spacing, tol);
        assert!((0.0..=1.0).contains(&c.s) && (0.0..=1.0).contains(&c.t), "{c:?}");
        assert!((a0.lerp(&a1, c.s) - c.pa).norm() <= 1e-14 && (b0.lerp(&b1, c.t) - c.pb).norm() <= 1e-14, "{c:?}");
        c
    }

    fn v(x: Real, y: Real, z: Real) -> Vec3 {
        Vec3::new(x, y, z)
    }

    #[test]
    fn closed_form() {
        let c = check([v(0., 0., 0.), v(1., 0., 0.), v(0.5, -1., 1.), v(0.5, 1., 1.)]);
        assert_eq!((c.s, c.t, c.pa, c.pb, c.distance()), (0.5, 0.5, v(0.5, 0., 0.), v(0.5, 0., 1.), 1.0));
        // T: an endpoint of b against the interior of a.
        let c = check([v(0., 0., 0.), v(1., 0., 0.), v(0.5, 1., 0.), v(0.5, 3., 0.)]);
        assert_eq!((c.s, c.t, c.distance()), (0.5, 0.0, 1.0));
        // Skew lines whose closest points lie outside: endpoint to endpoint.
        let c = check([v(0., 0., 0.), v(1., 0., 0.), v(2., -1., 1.), v(2., -3., 1.)]);
        assert_eq!((c.s, c.t, c.distance_squared), (1.0, 0.0, 3.0));
        let [ga0, ga1, gb0, gb1] =
            gradient_distance_edge_edge(v(0., 0., 0.), v(1., 0., 0.), v(0.5, -1., 1.), v(0.5, 1., 1.)).unwrap();
        let down = v(0., 0., -1.);
        assert_eq!([ga0, ga1, gb0, gb1], [down * 0.5, down * 0.5, -down * 0.5, -down * 0.5]);
        // Crossing edges touch: no gradient.
        assert!(gradient_distance_edge_edge(v(0., 0., 0.), v(1., 0., 0.), v(0.5, -1., 0.), v(0.5, 1., 0.)).is_none());
    }

    #[test]
    fn parallel_edges() {
        let (a0, a1) = (v(0., 0., 0.), v(2., 0., 0.));
        // Overlapping, same and opposite directions; collinear and apart; side by side and apart.
        for (b0, b1, d) in [
            (v(1., 1., 0.), v(3., 1., 0.), 1.0),
            (v(3., 0., 1.), v(1., 0., 1.), 1.0),
            (v(-1., 0., -1.), v(5., 0., -1.), 1.0),
            (v(3., 0., 0.), v(4., 0., 0.), 1.0),
            (v(5., 4., 0.), v(7., 4., 0.), 5.0),
            (v(-3., 0., 4.), v(-5., 0., 4.), 5.0),
        ] {
            let c = check([a0, a1, b0, b1]);
            assert_eq!(c.distance(), d, "{b0} {b1}");
            let g = gradient_distance_edge_edge(a0, a1, b0, b1).unwrap();
            assert!(g.iter().flat_map(|x| x.iter()).all(|x| x.is_finite()));
        }
    }

    /// b turns by θ about the common normal of its line and a's, crossing a's line at x = 0.5 in
    /// projection at height h: the distance is h for every θ, down to exactly parallel.
    #[test]
    fn nearly_parallel_edges() {
        for h in [0.0, 1e-9, 1e-3, 1.0] {
            for theta in [1e-2f64, 1e-5, 1e-8, 1e-10, 1e-11, 1e-12, 1e-13, 1e-15, 1e-300, 0.0] {
                let half = v(theta.cos(), theta.sin(), 0.0) * 0.75;
                let (b0, b1) = (v(0.5, 0., h) - half, v(0.5, 0., h) + half);
                let c = check([v(0., 0., 0.), v(1., 0., 0.), b0, b1]);
                assert!((c.distance() - h).abs() <= 1e-12, "h {h} θ {theta}: {c:?}");
            }
        }
    }

    #[test]
    fn degenerate_edges_never_give_nan() {
        let (a, b) = (v(0., 0., 0.), v(1., 0., 0.));
        for [a0, a1, b0, b1] in [
            [a, a, a, a],
            [a, a, b, b],
            [a, b, v(0.5, 1., 0.), v(0.5, 1., 0.)],
            [a, b, v(0.5, 1., 0.), v(0.5, 1. + 1e-300, 0.)],
            [a, v(1e-160, 0., 0.), v(0., 1e-160, 1.), v(0., 0., 1.)],
            [a, b, a, b],
            [a, b, b, a],
        ] {
            let c = check([a0, a1, b0, b1]);
            assert!([c.s, c.t, c.distance_squared].iter().chain(c.pa.iter()).chain(c.pb.iter()).all(|x| x.is_finite()));
            if let Some(g) = gradient_distance_edge_edge(a0, a1, b0, b1) {
                assert!(g.iter().flat_map(|x| x.iter()).all(|x| x.is_finite()));
            }
        }
    }

    proptest! {
        #[test]
        fn is_the_minimum_distance(edges in edge_pair()) {
            check(edges);
        }

        #[test]
        fn gradient_matches_finite_differences([a0, a1, b0, b1] in [point(), point(), point(), point()].prop_filter(
            "long, far apart edges at an angle",
            |[a0, a1, b0, b1]| {
                let (u, v) = (a1 - a0, b1 - b0);
                u.norm() > 1e-2 && v.norm() > 1e-2 && u.cross(&v).norm() > 0.1 * u.norm() * v.norm()
                    && distance_edge_edge(*a0, *a1, *b0, *b1) > 1e-2
            },
        )) {
            let g = gradient_distance_edge_edge(a0, a1, b0, b1).unwrap();
            let ends = |[a0, a1, b0, b1]: [Vec3; 4]| {
                let c = closest_edge_edge(a0, a1, b0, b1);
                [c.s, c.t].map(|x| (x == 0.0, x == 1.0))
            };
            assert_gradient([a0, a1, b0, b1], |[a0, a1, b0, b1]| distance_edge_edge(a0, a1, b0, b1), ends, g);
        }
    }
}
