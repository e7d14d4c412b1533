//! A one-sided quadratic wall on one vertex: E = ½ k g² for g = n·x − c < 0, else 0.
//!
//! The model problem of A-search Appendix E (a particle against a stiff one-sided spring), and a
//! simple frictionless floor for tests. Its Hessian is exact on either side of the kink.

use super::{Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::DMatrix;
use smallvec::smallvec;

/// A half-space wall `n·x ≥ c` acting on one vertex with stiffness `k` (N/m).
#[derive(Clone, Debug)]
pub struct Wall {
    stencil: Stencil,
    /// Unit normal n, pointing into the allowed side.
    pub normal: Vec3,
    /// Offset c, m.
    pub offset: Real,
    /// Stiffness k, N/m.
    pub stiffness: Real,
}

impl Wall {
    /// A wall on `vertex`; `normal` is normalised.
    pub fn new(vertex: VertexId, normal: Vec3, offset: Real, stiffness: Real) -> Self {
        Wall { stencil: smallvec![vertex], normal: normal.normalize(), offset, stiffness }
    }

    fn gap(&self, x: &[Vec3]) -> Real {
        self.normal.dot(&x[0]) - self.offset
    }
}

impl Potential for Wall {
    fn kind(&self) -> &'static str {
        "wall"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        let g = self.gap(x).min(0.0);
        0.5 * self.stiffness * g * g
    }

    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        grad[0] = self.normal * (self.stiffness * self.gap(x).min(0.0));
    }

    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        let active = if self.gap(x) < 0.0 { self.stiffness } else { 0.0 };
        Some(DMatrix::from_fn(3, 3, |i, j| active * self.normal[i] * self.normal[j]))
    }

    fn stable_step(&self, _x: &[Vec3], masses: &[Real]) -> Option<Real> {
        Some(2.0 / (self.stiffness / masses[0]).sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pushes_only_when_penetrating() {
        let w = Wall::new(VertexId(0), Vec3::x() * 2.0, 1.0, 100.0);
        let mut g = [Vec3::zeros()];
        w.gradient(&[Vec3::new(1.5, 0.0, 0.0)], &mut g);
        assert_eq!(g[0], Vec3::zeros());
        w.gradient(&[Vec3::new(0.9, 0.0, 0.0)], &mut g);
        assert!((g[0].x + 10.0).abs() < 1e-12, "force +k·0.1 out of the wall");
        assert!((w.energy(&[Vec3::new(0.9, 0.0, 0.0)]) - 0.5).abs() < 1e-12);
    }
}
