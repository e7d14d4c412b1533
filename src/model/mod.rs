//! The model: plain data for bodies and their vertices (layer L2 of `docs/design.md`). The model
//! owns the state; engines keep only scratch.
//!
//! Vertices are stored as structure-of-arrays in [`Vertices`]; each keeps the state of ACM §3:
//! position `x` and velocity `v` as recorded at its own time `t_last`, plus its lumped mass.
//! [`Vertices::drift_to`] is the only writer of positions. Bodies name their vertex range and
//! topology. Potentials are not part of the model: they live with the backend that integrates them.

mod body;
mod scripted;
mod vertices;

pub use body::{Body, BodyKind};
pub use scripted::LinearPath;
pub use vertices::{Motion, Vertices};

use crate::ids::{BodyId, VertexId};
use crate::math::{Real, Vec3};
use slotmap::SlotMap;

/// Bodies and vertices of a simulation.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// All vertices of all bodies, body after body.
    pub vertices: Vertices,
    /// The bodies, in insertion order (`bodies.iter()` visits them in that order: nothing is
    /// ever removed).
    pub bodies: SlotMap<BodyId, Body>,
}

impl Model {
    /// An empty model.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a body whose vertices start at `positions` with `velocities` and `masses` (kg, > 0;
    /// `+∞` for obstacle vertices); returns its id. `body.vertices` is overwritten with the global
    /// range the vertices receive.
    ///
    /// # Panics
    /// If the three slices differ in length.
    pub fn add_body(&mut self, mut body: Body, positions: &[Vec3], velocities: &[Vec3], masses: &[Real]) -> BodyId {
        assert!(
            positions.len() == velocities.len() && positions.len() == masses.len(),
            "add_body needs one velocity and one mass per position"
        );
        let first = self.vertices.len() as u32;
        for ((x, v), m) in positions.iter().zip(velocities).zip(masses) {
            self.vertices.push(*x, *v, *m);
        }
        body.vertices = first..first + positions.len() as u32;
        self.bodies.insert(body)
    }

    /// The global id of local vertex `local` of `body`.
    pub fn vertex(&self, body: BodyId, local: u32) -> VertexId {
        VertexId(self.bodies[body].vertices.start + local)
    }

    /// Mass of `body`'s free vertices, kg (0 for an obstacle).
    pub fn body_mass(&self, body: BodyId) -> Real {
        self.bodies[body]
            .vertices
            .clone()
            .map(VertexId)
            .filter(|&v| self.vertices.effective_mass(v).is_finite())
            .fold(0.0, |sum, v| sum + self.vertices.mass(v))
    }

    /// How many of `body`'s vertices are held or scripted (infinite kick mass).
    pub fn held_vertices(&self, body: BodyId) -> usize {
        self.bodies[body].vertices.clone().filter(|&i| !self.vertices.effective_mass(VertexId(i)).is_finite()).count()
    }
}
