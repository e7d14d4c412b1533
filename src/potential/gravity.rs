//! Uniform gravity on a body's free vertices: E = −Σ mᵢ g·xᵢ.
//!
//! One potential per body with a large stencil (ACM §5.2 calls such stencils out: they are why
//! contingent rescheduling caches support lists). Its Hessian is zero, so it imposes no stable
//! step; the scene or the engine chooses its period.

use super::{Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::DMatrix;

/// Gravity acting on a set of vertices with their masses.
#[derive(Clone, Debug)]
pub struct Gravity {
    stencil: Stencil,
    masses: Vec<Real>,
    /// Gravitational acceleration, m/s².
    pub acceleration: Vec3,
}

impl Gravity {
    /// Gravity `acceleration` (m/s²) on `vertices`, with `masses` (kg) in the same order.
    ///
    /// # Panics
    /// If there is not one mass per vertex.
    pub fn new(vertices: impl IntoIterator<Item = VertexId>, masses: Vec<Real>, acceleration: Vec3) -> Self {
        let stencil: Stencil = vertices.into_iter().collect();
        assert_eq!(stencil.len(), masses.len(), "one mass per gravity vertex");
        Gravity { stencil, masses, acceleration }
    }
}

impl Potential for Gravity {
    fn kind(&self) -> &'static str {
        "gravity"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        -x.iter().zip(&self.masses).map(|(x, m)| m * self.acceleration.dot(x)).sum::<Real>()
    }

    fn gradient(&self, _x: &[Vec3], grad: &mut [Vec3]) {
        for (g, m) in grad.iter_mut().zip(&self.masses) {
            *g = -*m * self.acceleration;
        }
    }

    fn hessian(&self, _x: &[Vec3]) -> Option<DMatrix<Real>> {
        None
    }

    fn is_linear(&self) -> bool {
        true
    }
}
