//! Edge springs: E = ½ k (l − L)² + ¼ k₄ (l − L)⁴, with l the current and L the rest length.
//!
//! The quartic term gives the soft nonlinear springs of the Fermi–Pasta–Ulam chain (Phantom §5.1,
//! after Hairer–Lubich–Wanner); with `quartic = 0` it is a plain Hookean spring.

use super::{Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::{DMatrix, Matrix3};
use smallvec::smallvec;

/// A spring between two vertices.
#[derive(Clone, Debug)]
pub struct Spring {
    stencil: Stencil,
    /// Linear stiffness k, N/m.
    pub stiffness: Real,
    /// Quartic stiffness k₄, N/m³.
    pub quartic: Real,
    /// Rest length L, m.
    pub rest_length: Real,
}

impl Spring {
    /// A spring between `a` and `b` with rest length `rest_length`.
    pub fn new(a: VertexId, b: VertexId, stiffness: Real, quartic: Real, rest_length: Real) -> Self {
        Spring { stencil: smallvec![a, b], stiffness, quartic, rest_length }
    }

    /// dE/dl and d²E/dl² at stretch s = l − L.
    fn derivatives(&self, s: Real) -> (Real, Real) {
        (self.stiffness * s + self.quartic * s * s * s, self.stiffness + 3.0 * self.quartic * s * s)
    }
}

impl Potential for Spring {
    fn kind(&self) -> &'static str {
        "spring"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        let s = (x[1] - x[0]).norm() - self.rest_length;
        0.5 * self.stiffness * s * s + 0.25 * self.quartic * s.powi(4)
    }

    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        let e = x[1] - x[0];
        let l = e.norm();
        let (de, _) = self.derivatives(l - self.rest_length);
        let g = if l > 0.0 { e * (de / l) } else { Vec3::zeros() };
        grad[0] = -g;
        grad[1] = g;
    }

    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        let e = x[1] - x[0];
        let l = e.norm();
        let (de, dde) = self.derivatives(l - self.rest_length);
        let u = e / l;
        let uu = u * u.transpose();
        let block: Matrix3<Real> = uu * dde + (Matrix3::identity() - uu) * (de / l);
        let mut h = DMatrix::zeros(6, 6);
        for (a, sa) in [(0, 1.0), (1, -1.0)] {
            for (b, sb) in [(0, 1.0), (1, -1.0)] {
                h.fixed_view_mut::<3, 3>(3 * a, 3 * b).copy_from(&(block * (sa * sb)));
            }
        }
        Some(h)
    }

    /// A Hookean spring (no quartic term) is ½k‖e − p‖² minimised over the sphere |p| = L, with
    /// e = x₁ − x₀: w = k, G the edge difference (Stabilizing §4.2, after Liu et al. 2013).
    fn projective_hessian(&self) -> Option<DMatrix<Real>> {
        (self.quartic == 0.0).then(|| {
            let k = self.stiffness;
            DMatrix::from_fn(6, 6, |r, c| {
                if r % 3 != c % 3 {
                    0.0
                } else if r / 3 == c / 3 {
                    k
                } else {
                    -k
                }
            })
        })
    }

    fn stable_step(&self, x: &[Vec3], masses: &[Real]) -> Option<Real> {
        // Axial stiffness at rest dominates for a stretched-or-not spring; use the current one.
        let s = (x[1] - x[0]).norm() - self.rest_length;
        let (_, k_axial) = self.derivatives(s);
        let inv_mass: Real = masses.iter().map(|m| 1.0 / m).sum();
        let omega2 = k_axial * inv_mass;
        (omega2 > 0.0).then(|| 2.0 / omega2.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hookean_spring_is_projective_dynamics_with_the_sphere_as_its_manifold() {
        // ∇E = k·GᵀG x − k·Gᵀp with p = L·e/|e|: the rows of the free end carry k(e − p)
        let s = Spring::new(VertexId(0), VertexId(1), 300.0, 0.0, 0.5);
        let x = [Vec3::new(0.1, 0.2, -0.3), Vec3::new(0.9, -0.4, 0.2)];
        let mut g = [Vec3::zeros(); 2];
        s.gradient(&x, &mut g);
        let l = s.projective_hessian().unwrap();
        let lx = &l * nalgebra::DVector::from_iterator(6, x.iter().flat_map(|v| v.iter().copied()));
        let e = x[1] - x[0];
        let p = e.normalize() * 0.5;
        assert!((lx.fixed_rows::<3>(3) - g[1] - p * 300.0).norm() < 1e-9);
        assert!((lx.fixed_rows::<3>(0) - g[0] + p * 300.0).norm() < 1e-9);
        assert!(Spring::new(VertexId(0), VertexId(1), 300.0, 1.0, 0.5).projective_hessian().is_none());
    }
}
