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

    fn stable_step(&self, x: &[Vec3], masses: &[Real]) -> Option<Real> {
        // Axial stiffness at rest dominates for a stretched-or-not spring; use the current one.
        let s = (x[1] - x[0]).norm() - self.rest_length;
        let (_, k_axial) = self.derivatives(s);
        let inv_mass: Real = masses.iter().map(|m| 1.0 / m).sum();
        let omega2 = k_axial * inv_mass;
        (omega2 > 0.0).then(|| 2.0 / omega2.sqrt())
    }
}
