//! Distance from a point to a triangle (closed, degenerate ones included).

use super::point_edge::closest_point_edge;
use crate::math::{Real, Vec3};

/// The feature of triangle `t0 t1 t2` that holds the closest point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PointTriangleRegion {
    /// The interior of the face (or, on a tie, its boundary).
    Face,
    /// The interior of edge `k`, from `t_k` to `t_{(k+1) mod 3}`.
    Edge(usize),
    /// Vertex `t_k`.
    Vertex(usize),
}

/// The point of triangle `t0 t1 t2` closest to a point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PointTriangleClosest {
    /// The closest point, `Σ barycentric[k] · t_k`.
    pub point: Vec3,
    /// Its barycentric coordinates: non-negative, summing to 1.
    pub barycentric: [Real; 3],
    /// The feature it lies on.
    pub region: PointTriangleRegion,
    /// The squared distance from the query point to [`point`](Self::point).
    pub distance_squared: Real,
}

impl PointTriangleClosest {
    /// The distance from the query point to the triangle.
    #[inline]
    pub fn distance(&self) -> Real {
        self.distance_squared.sqrt()
    }

    /// [`gradient_distance_point_triangle`] at the query point `p` this was found for, without
    /// finding the closest point again.
    #[inline]
    pub fn gradient(&self, p: Vec3) -> Option<[Vec3; 4]> {
        let n = super::unit(p - self.point)?;
        let [b0, b1, b2] = self.barycentric;
        Some([n, -n * b0, -n * b1, -n * b2])
    }
}

/// The point of triangle `t0 t1 t2` closest to `p`.
///
/// The candidates are the projection of `p` onto the triangle's plane, if its barycentric
/// coordinates (from sub-triangle areas, without dividing by a small area first) are all
/// non-negative, and the closest points of the three edges; the nearest wins, the face on a tie.
/// Each candidate is a point of the triangle, so a misclassification by round-off near an edge of
/// a sliver or a nearly degenerate triangle costs only round-off: the edge candidate is as good.
/// A triangle of zero area is the union of its edges.
#[inline]
pub fn closest_point_triangle(p: Vec3, t0: Vec3, t1: Vec3, t2: Vec3) -> PointTriangleClosest {
    let t = [t0, t1, t2];
    let mut best = PointTriangleClosest {
        point: t0,
        barycentric: [1.0, 0.0, 0.0],
        region: PointTriangleRegion::Vertex(0),
        distance_squared: Real::INFINITY,
    };

    // Face: barycentric coordinates times |n|² as triple products, relative to t0 so that far points
    // stay accurate; a subnormal |n|² (a triangle of no area, to round-off) has no face.
    let (e1, e2, r) = (t1 - t0, t2 - t0, p - t0);
    let n = e1.cross(&e2);
    let area2 = n.norm_squared();
    let w1 = r.dot(&e2.cross(&n));
    let w2 = r.dot(&n.cross(&e1));
    let w0 = area2 - w1 - w2;
    if area2.is_normal() && w0 >= 0.0 && w1 >= 0.0 && w2 >= 0.0 {
        let (b1, b2) = (w1 / area2, w2 / area2);
        let point = t0 + e1 * b1 + e2 * b2;
        best = PointTriangleClosest {
            point,
            barycentric: [w0 / area2, b1, b2],
            region: PointTriangleRegion::Face,
            distance_squared: (p - point).norm_squared(),
        };
    }

    // Edges.
    for k in 0..3 {
        let next = (k + 1) % 3;
        let c = closest_point_edge(p, t[k], t[next]);
        if c.distance_squared < best.distance_squared {
            let mut barycentric = [0.0; 3];
            barycentric[k] = 1.0 - c.t;
            barycentric[next] = c.t;
            let region = if c.t == 0.0 {
                PointTriangleRegion::Vertex(k)
            } else if c.t == 1.0 {
                PointTriangleRegion::Vertex(next)
            } else {
                PointTriangleRegion::Edge(k)
            };
            best = PointTriangleClosest { point: c.point, barycentric, region, distance_squared: c.distance_squared };
        }
    }
    best
}

/// Squared distance from `p` to triangle `t0 t1 t2`.
#[inline]
pub fn distance_squared_point_triangle(p: Vec3, t0: Vec3, t1: Vec3, t2: Vec3) -> Real {
    closest_point_triangle(p, t0, t1, t2).distance_squared
}

/// Distance from `p` to triangle `t0 t1 t2`.
#[inline]
pub fn distance_point_triangle(p: Vec3, t0: Vec3, t1: Vec3, t2: Vec3) -> Real {
    closest_point_triangle(p, t0, t1, t2).distance()
}

/// `[∂d/∂p, ∂d/∂t0, ∂d/∂t1, ∂d/∂t2] = [n, −β₀ n, −β₁ n, −β₂ n]` with `n` the unit vector from the
/// closest point to `p` and `β` its barycentric coordinates (see the [module docs](super));
/// continuous across feature changes; `None` when `p` lies on the triangle.
#[inline]
pub fn gradient_distance_point_triangle(p: Vec3, t0: Vec3, t1: Vec3, t2: Vec3) -> Option<[Vec3; 4]> {
    closest_point_triangle(p, t0, t1, t2).gradient(p)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::distance::reference::{
        assert_gradient, assert_minimum, near_offset, point, proper_triangle, ref_point_triangle, sampled, triangle,
        SPIKE_APEX,
    };
    use proptest::prelude::*;
    use PointTriangleRegion::{Edge, Face, Vertex};

    fn check(p: Vec3, [t0, t1, t2]: [Vec3; 3]) -> PointTriangleClosest {
        let c = closest_point_triangle(p, t0, t1, t2);
        let (e1, e2) = (t1 - t0, t2 - t0);
        let n = 100;
        let grid = sampled(n, true, |x, y| (p - (t0 + e1 * x + e2 * y)).norm());
        let longest = e1.norm().max(e2.norm()).max((t2 - t1).norm());
        let tol = 1e-12 * (1.0 + (p - t0).norm());
        assert_minimum(c.distance(), ref_point_triangle(p, t0, t1, t2), grid, longest / n as Real, tol);
        let b = c.barycentric;
        assert!(b.iter().all(|&bk| bk >= 0.0) && (b[0] + b[1] + b[2] - 1.0).abs() <= 1e-12, "{b:?}");
        assert!((t0 * b[0] + t1 * b[1] + t2 * b[2] - c.point).norm() <= 1e-12 * (1.0 + longest));
        c
    }

    #[test]
    fn closed_form() {
        let t = [Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
        let c = check(Vec3::new(0.25, 0.25, -2.0), t);
        assert_eq!((c.region, c.distance(), c.barycentric), (Face, 2.0, [0.5, 0.25, 0.25]));
        let c = check(Vec3::new(0.5, -1.0, 0.0), t);
        assert_eq!((c.region, c.distance(), c.barycentric), (Edge(0), 1.0, [0.5, 0.5, 0.0]));
        let c = check(Vec3::new(1.0, 1.0, 0.0), t);
        assert_eq!((c.region, c.barycentric), (Edge(1), [0.0, 0.5, 0.5]));
        assert!((c.distance() - 0.5f64.sqrt()).abs() < 1e-15);
        let c = check(Vec3::new(2.0, -1.0, 1.0), t);
        assert_eq!((c.region, c.point, c.distance_squared), (Vertex(1), t[1], 3.0));
        let c = check(Vec3::new(-1.0, -1.0, 0.0), t);
        assert_eq!((c.region, c.distance_squared), (Vertex(0), 2.0));
        let [t0, t1, t2] = t;
        let g = gradient_distance_point_triangle(Vec3::new(0.25, 0.25, -2.0), t0, t1, t2).unwrap();
        let down = Vec3::new(0.0, 0.0, -1.0);
        assert_eq!(g, [down, -down * 0.5, -down * 0.25, -down * 0.25]);
        assert!(gradient_distance_point_triangle(Vec3::new(0.25, 0.25, 0.0), t0, t1, t2).is_none());
        assert!(gradient_distance_point_triangle(t1, t0, t1, t2).is_none());
    }

    /// The report's spikes: apex 3.47°, legs of length 1 along ±1.735° from the x axis.
    #[test]
    fn spike_with_a_3_47_degree_apex() {
        let h = 0.5 * SPIKE_APEX;
        let t = [Vec3::zeros(), Vec3::new(h.cos(), h.sin(), 0.0), Vec3::new(h.cos(), -h.sin(), 0.0)];
        // Above the thin interior: the height.
        for x in [1e-3, 0.1, 0.5, 0.99] {
            let c = check(Vec3::new(x, 0.0, 0.3), t);
            assert_eq!(c.region, Face);
            assert!((c.distance() - 0.3).abs() < 1e-15);
        }
        // Beside a leg, in the plane and above it: the distance to the leg's line.
        for x in [0.05, 0.5, 0.9] {
            let p = Vec3::new(x, 0.2, 0.1);
            let lateral = p.y * h.cos() - p.x * h.sin();
            let c = check(p, t);
            assert_eq!(c.region, Edge(0));
            assert!((c.distance() - (lateral * lateral + p.z * p.z).sqrt()).abs() < 1e-14);
        }
        // Beyond the apex and beyond the base.
        let c = check(Vec3::new(-0.5, 0.01, 0.2), t);
        assert_eq!(c.region, Vertex(0));
        let c = check(Vec3::new(1.5, 0.0, 0.0), t);
        assert_eq!(c.region, Edge(1));
        assert!((c.distance() - (1.5 - h.cos())).abs() < 1e-15);
    }

    #[test]
    fn degenerate_triangles_are_their_edges_and_never_nan() {
        let (a, b) = (Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0));
        let degenerate = [
            [a, b, Vec3::new(0.5, 0.0, 0.0)],
            [a, b, Vec3::new(3.0, 0.0, 0.0)],
            [a, b, b],
            [a, a, a],
            [a, b, Vec3::new(0.5, 1e-300, 0.0)],
            [a, b, Vec3::new(0.5, 1e-160, 1e-160)],
            [a, Vec3::new(1e-300, 0.0, 0.0), Vec3::new(0.0, 1e-300, 0.0)],
        ];
        for t in degenerate {
            for p in [
                Vec3::new(0.5, 0.0, 0.0),
                Vec3::new(0.3, 0.4, 0.0),
                Vec3::new(0.7, 0.2, -0.3),
                Vec3::new(-2.0, 0.0, 0.0),
            ] {
                let c = check(p, t);
                assert!(c.point.iter().chain(&c.barycentric).all(|v| v.is_finite()), "{c:?}");
                let [t0, t1, t2] = t;
                if let Some(g) = gradient_distance_point_triangle(p, t0, t1, t2) {
                    assert!(g.iter().flat_map(|v| v.iter()).all(|v| v.is_finite()));
                }
            }
        }
    }

    proptest! {
        #[test]
        fn is_the_minimum_distance(t in triangle(), (x, y, offset) in near_offset(), far in point()) {
            let [t0, t1, t2] = t;
            check(t0 + (t1 - t0) * x + (t2 - t0) * y + offset, t);
            check(far, t);
        }

        #[test]
        fn gradient_matches_finite_differences((p, [t0, t1, t2]) in (proper_triangle(), near_offset()).prop_filter_map(
            "a point away from a triangle with altitudes above 1e-2",
            |([t0, t1, t2], (x, y, offset))| {
                let longest = (t1 - t0).norm().max((t2 - t0).norm()).max((t2 - t1).norm());
                let p = t0 + (t1 - t0) * x + (t2 - t0) * y + offset;
                let ok = (t1 - t0).cross(&(t2 - t0)).norm() / longest > 1e-2 && distance_point_triangle(p, t0, t1, t2) > 1e-2;
                ok.then_some((p, [t0, t1, t2]))
            },
        )) {
            let g = gradient_distance_point_triangle(p, t0, t1, t2).unwrap();
            let region = |[p, t0, t1, t2]: [Vec3; 4]| closest_point_triangle(p, t0, t1, t2).region;
            assert_gradient([p, t0, t1, t2], |[p, t0, t1, t2]| distance_point_triangle(p, t0, t1, t2), region, g);
        }
    }
}
