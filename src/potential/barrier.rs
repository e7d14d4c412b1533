//! The IPC log barrier on a contact stencil (Li et al. 2020, as used by A-search §5):
//! B = κ · m(x) · b(d², d̂²) with b(s, ŝ) = −(s − ŝ)² ln(s / ŝ) for s < ŝ (0 beyond), on the squared
//! distance of a point–triangle or edge–edge pair; m is the edge–edge mollifier that fades the
//! barrier out as two edges become parallel (m = 1 for point–triangle).
//!
//! The barrier law is scalar and apart from the geometry: distances and their
//! gradients come from `geometry::distance`; the exact Hessian differentiates, with hyper-dual
//! numbers, the squared-distance formula of the closest feature pair (point–point, point–line,
//! point–plane, line–line), which is smooth wherever that feature pair stays the closest one.

use super::ad::{hessian_of, AdScalar};
use super::{Potential, Stencil};
use crate::geometry::distance::{closest_edge_edge, closest_point_triangle, PointTriangleRegion};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::{DMatrix, Vector3};

/// The scalar barrier b(s) = −(s − ŝ)² ln(s/ŝ) for 0 < s < ŝ, and its first two derivatives.
pub fn barrier(s: Real, s_hat: Real) -> (Real, Real, Real) {
    if s >= s_hat {
        return (0.0, 0.0, 0.0);
    }
    let (d, l) = (s - s_hat, (s / s_hat).ln());
    (-d * d * l, -2.0 * d * l - d * d / s, -2.0 * l - 4.0 * d / s + d * d / (s * s))
}

/// The edge–edge mollifier m(c) = (2 − c/ε)·c/ε for c < ε, else 1, of c = |e_a × e_b|², and its
/// derivative.
pub fn mollifier(c: Real, eps: Real) -> (Real, Real) {
    if c >= eps {
        (1.0, 0.0)
    } else {
        let r = c / eps;
        ((2.0 - r) * r, (2.0 - 2.0 * r) / eps)
    }
}

/// Which pair the barrier acts on.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ContactPair {
    /// Stencil [p, t0, t1, t2].
    PointTriangle,
    /// Stencil [a0, a1, b0, b1] with the mollifier threshold ε = 10⁻³·|ā|²·|b̄|² (rest lengths).
    EdgeEdge {
        /// ε of the mollifier.
        eps: Real,
    },
}

/// The IPC barrier of one contact pair.
#[derive(Clone, Debug)]
pub struct IpcBarrier {
    stencil: Stencil,
    /// Pair kind.
    pub pair: ContactPair,
    /// d̂², m².
    pub activation_squared: Real,
    /// κ, J (the barrier's stiffness).
    pub stiffness: Real,
}

impl IpcBarrier {
    /// The barrier between point `p` and triangle `t`.
    pub fn point_triangle(p: VertexId, t: [VertexId; 3], activation: Real, stiffness: Real) -> Self {
        IpcBarrier {
            stencil: [p, t[0], t[1], t[2]].into_iter().collect(),
            pair: ContactPair::PointTriangle,
            activation_squared: activation * activation,
            stiffness,
        }
    }

    /// The barrier between edges `a` and `b`, with rest positions for the mollifier.
    pub fn edge_edge(a: [VertexId; 2], b: [VertexId; 2], rest: [Vec3; 4], activation: Real, stiffness: Real) -> Self {
        let eps = 1e-3 * (rest[1] - rest[0]).norm_squared() * (rest[3] - rest[2]).norm_squared();
        IpcBarrier {
            stencil: [a[0], a[1], b[0], b[1]].into_iter().collect(),
            pair: ContactPair::EdgeEdge { eps },
            activation_squared: activation * activation,
            stiffness,
        }
    }

    /// The squared distance of the pair at `x`.
    pub fn distance_squared(&self, x: &[Vec3]) -> Real {
        match self.pair {
            ContactPair::PointTriangle => closest_point_triangle(x[0], x[1], x[2], x[3]).distance_squared,
            ContactPair::EdgeEdge { .. } => closest_edge_edge(x[0], x[1], x[2], x[3]).distance_squared,
        }
    }

    /// The closest feature pair at `x`, as the stencil indices spanning each side.
    fn features(&self, x: &[Vec3]) -> (Vec<usize>, Vec<usize>) {
        match self.pair {
            ContactPair::PointTriangle => match closest_point_triangle(x[0], x[1], x[2], x[3]).region {
                PointTriangleRegion::Face => (vec![0], vec![1, 2, 3]),
                PointTriangleRegion::Edge(k) => (vec![0], vec![1 + k, 1 + (k + 1) % 3]),
                PointTriangleRegion::Vertex(k) => (vec![0], vec![1 + k]),
            },
            ContactPair::EdgeEdge { .. } => {
                let c = closest_edge_edge(x[0], x[1], x[2], x[3]);
                let side = |u: Real, first: usize| {
                    if u <= 0.0 {
                        vec![first]
                    } else if u >= 1.0 {
                        vec![first + 1]
                    } else {
                        vec![first, first + 1]
                    }
                };
                (side(c.s, 0), side(c.t, 2))
            }
        }
    }

    /// κ·m·b(s) with s the squared distance of the feature pair `(a, b)`, generic over the AD
    /// scalar: the energy whose Hessian is returned.
    fn energy_generic<T: AdScalar>(&self, x: &[Vector3<T>], (a, b): &(Vec<usize>, Vec<usize>)) -> T {
        let s = squared_distance_generic(x, a, b);
        let s_hat = self.activation_squared;
        if s.re() >= s_hat {
            return T::from(0.0);
        }
        let d = s - s_hat;
        let energy = -(d * d) * (s / s_hat).ln() * self.stiffness;
        match self.pair {
            ContactPair::PointTriangle => energy,
            ContactPair::EdgeEdge { eps } => {
                let w = (x[1] - x[0]).cross(&(x[3] - x[2]));
                let c = w.dot(&w);
                if c.re() >= eps {
                    energy
                } else {
                    let r = c / eps;
                    energy * (-r + 2.0) * r
                }
            }
        }
    }
}

/// Squared distance between the affine hulls of the stencil points `a` and `b` (1 or 2 or 3
/// points each), generic: point–point, point–line, point–plane or line–line.
fn squared_distance_generic<T: AdScalar>(x: &[Vector3<T>], a: &[usize], b: &[usize]) -> T {
    match (a.len(), b.len()) {
        (1, 1) => {
            let d = x[a[0]] - x[b[0]];
            d.dot(&d)
        }
        (1, 2) | (2, 1) => {
            let (p, e) = if a.len() == 1 { (a[0], b) } else { (b[0], a) };
            let (e0, e1) = (x[e[0]], x[e[1]]);
            let (c, e) = ((x[p] - e0).cross(&(e1 - e0)), e1 - e0);
            c.dot(&c) / e.dot(&e)
        }
        (1, 3) => {
            let n = (x[b[1]] - x[b[0]]).cross(&(x[b[2]] - x[b[0]]));
            let h = (x[a[0]] - x[b[0]]).dot(&n);
            h * h / n.dot(&n)
        }
        _ => {
            let n = (x[a[1]] - x[a[0]]).cross(&(x[b[1]] - x[b[0]]));
            let h = (x[b[0]] - x[a[0]]).dot(&n);
            h * h / n.dot(&n)
        }
    }
}

impl Potential for IpcBarrier {
    fn kind(&self) -> &'static str {
        "ipc_barrier"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        let s = self.distance_squared(x);
        if s <= 0.0 {
            return Real::INFINITY;
        }
        let (b, _, _) = barrier(s, self.activation_squared);
        let m = match self.pair {
            ContactPair::PointTriangle => 1.0,
            ContactPair::EdgeEdge { eps } => mollifier((x[1] - x[0]).cross(&(x[3] - x[2])).norm_squared(), eps).0,
        };
        self.stiffness * m * b
    }

    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        let s = self.distance_squared(x);
        if s >= self.activation_squared || s <= 0.0 {
            grad.iter_mut().for_each(|g| *g = Vec3::zeros());
            return;
        }
        // ∂s/∂x from the closest points (envelope theorem): s = |pa − pb|², pa = Σ αᵢ aᵢ, pb = Σ βⱼ bⱼ
        let (ds, c_and_dc) = match self.pair {
            ContactPair::PointTriangle => {
                let c = closest_point_triangle(x[0], x[1], x[2], x[3]);
                let r = match c.region {
                    // over the face: 2 h n / |n|² from the plane, exact along an exact normal (the
                    // closest point's round-off would tilt it)
                    PointTriangleRegion::Face => {
                        let n = (x[2] - x[1]).cross(&(x[3] - x[1]));
                        n * (2.0 * (x[0] - x[1]).dot(&n) / n.norm_squared())
                    }
                    _ => (x[0] - c.point) * 2.0,
                };
                ([r, -r * c.barycentric[0], -r * c.barycentric[1], -r * c.barycentric[2]], None)
            }
            ContactPair::EdgeEdge { eps } => {
                let c = closest_edge_edge(x[0], x[1], x[2], x[3]);
                let r = (c.pa - c.pb) * 2.0;
                let (ea, eb) = (x[1] - x[0], x[3] - x[2]);
                let w = ea.cross(&eb);
                let (dc_dea, dc_deb) = (eb.cross(&w) * 2.0, w.cross(&ea) * 2.0);
                (
                    [r * (1.0 - c.s), r * c.s, -r * (1.0 - c.t), -r * c.t],
                    Some((mollifier(w.norm_squared(), eps), [-dc_dea, dc_dea, -dc_deb, dc_deb])),
                )
            }
        };
        let (b, db, _) = barrier(s, self.activation_squared);
        let k = self.stiffness;
        match c_and_dc {
            None => {
                for (g, d) in grad.iter_mut().zip(&ds) {
                    *g = d * (k * db);
                }
            }
            Some(((m, dm), dc)) => {
                for ((g, d), c) in grad.iter_mut().zip(&ds).zip(&dc) {
                    *g = d * (k * m * db) + c * (k * b * dm);
                }
            }
        }
    }

    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        if self.distance_squared(x) >= self.activation_squared {
            return Some(DMatrix::zeros(12, 12));
        }
        let features = self.features(x);
        Some(hessian_of::<12>(x, |y| self.energy_generic(y, &features)))
    }

    fn stable_step(&self, _x: &[Vec3], _masses: &[Real]) -> Option<Real> {
        None // a barrier has no stable explicit step; it belongs to the implicit backend
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ids() -> [VertexId; 4] {
        std::array::from_fn(|i| VertexId(i as u32))
    }

    fn fd_check(p: &IpcBarrier, x: &[Vec3]) -> Result<(), TestCaseError> {
        let mut g = [Vec3::zeros(); 4];
        p.gradient(x, &mut g);
        let h = p.hessian(x).unwrap();
        let step = 1e-7;
        for i in 0..4 {
            for a in 0..3 {
                let (mut xp, mut xm) = (x.to_vec(), x.to_vec());
                xp[i][a] += step;
                xm[i][a] -= step;
                let fd = (p.energy(&xp) - p.energy(&xm)) / (2.0 * step);
                let scale = 1.0 + g[i][a].abs();
                prop_assert!((fd - g[i][a]).abs() < 1e-4 * scale, "gradient {i},{a}: {} vs {fd}", g[i][a]);
                let (mut gp, mut gm) = ([Vec3::zeros(); 4], [Vec3::zeros(); 4]);
                p.gradient(&xp, &mut gp);
                p.gradient(&xm, &mut gm);
                for j in 0..4 {
                    for b in 0..3 {
                        let fd = (gp[j][b] - gm[j][b]) / (2.0 * step);
                        let exact = h[(3 * j + b, 3 * i + a)];
                        prop_assert!(
                            (fd - exact).abs() < 1e-3 * (1.0 + exact.abs()),
                            "Hessian ({j},{b}),({i},{a}): {exact} vs {fd}"
                        );
                    }
                }
            }
        }
        Ok(())
    }

    #[test]
    fn barrier_is_positive_decreasing_and_zero_beyond_activation() {
        assert_eq!(barrier(2.0, 1.0), (0.0, 0.0, 0.0));
        let (b, db, ddb) = barrier(0.25, 1.0);
        assert!(b > 0.0 && db < 0.0 && ddb > 0.0);
        assert!(barrier(1e-12, 1.0).0 > barrier(1e-6, 1.0).0, "grows without bound as s → 0");
    }

    proptest! {
        #[test]
        fn point_triangle_barrier_derivatives(
            px in -0.3..1.0f64, py in -0.3..1.0f64, pz in 0.02..0.09f64, kappa in 1.0..100.0f64,
        ) {
            // a point above the unit right triangle, within d̂ = 0.1 of it, in any region
            let x = [Vec3::new(px, py, pz), Vec3::zeros(), Vec3::x(), Vec3::y()];
            let p = IpcBarrier::point_triangle(VertexId(0), [VertexId(1), VertexId(2), VertexId(3)], 0.1, kappa);
            let s = p.distance_squared(&x);
            prop_assume!(s < 0.009);
            // stay away from region boundaries, where the Hessian jumps
            let off = |v: f64| v.abs() > 1e-3;
            prop_assume!(off(px) && off(py) && off(px + py - 1.0));
            fd_check(&p, &x)?;
        }

        #[test]
        fn edge_edge_barrier_derivatives(
            angle in 0.005..1.5f64, h in 0.02..0.09f64, s in 0.1..0.9f64, t in 0.1..0.9f64, kappa in 1.0..100.0f64,
        ) {
            // edge a along x, edge b at height h crossing at an angle (small angles: mollifier active)
            let dir = Vec3::new(angle.cos(), angle.sin(), 0.0);
            let cross = Vec3::new(s, 0.0, h);
            let x = [Vec3::zeros(), Vec3::x(), cross - dir * t, cross + dir * (1.0 - t)];
            let rest = [Vec3::zeros(), Vec3::x(), Vec3::new(0.0, 0.0, 1.0), Vec3::new(0.0, 1.0, 1.0)];
            let p = IpcBarrier::edge_edge([VertexId(0), VertexId(1)], [VertexId(2), VertexId(3)], rest, 0.1, kappa);
            fd_check(&p, &x)?;
        }
    }

    #[test]
    fn energy_is_infinite_at_contact_and_zero_far_away() {
        let p = IpcBarrier::point_triangle(ids()[0], [ids()[1], ids()[2], ids()[3]], 0.1, 1.0);
        let t = [Vec3::zeros(), Vec3::x(), Vec3::y()];
        assert_eq!(p.energy(&[Vec3::new(0.2, 0.2, 0.0), t[0], t[1], t[2]]), Real::INFINITY);
        assert_eq!(p.energy(&[Vec3::new(0.2, 0.2, 0.5), t[0], t[1], t[2]]), 0.0);
    }
}
