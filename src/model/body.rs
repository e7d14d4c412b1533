//! A body: a named range of vertices with its topology.

use crate::math::Real;
use std::ops::Range;

/// What a body is made of, with the topology its potentials and outputs need.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum BodyKind {
    /// A thin shell: a triangle mesh (membrane + bending).
    Shell {
        /// Triangles as local vertex indices.
        triangles: Vec<[u32; 3]>,
    },
    /// A chain of vertices joined by springs (e.g. the Fermi–Pasta–Ulam chain, Phantom §5.1).
    Chain {
        /// Edges as local vertex indices.
        edges: Vec<[u32; 2]>,
    },
    /// Free particles (spheres for contact).
    Particles {
        /// Radius of every particle, m.
        radius: Real,
    },
    /// A volumetric solid: linear tetrahedra (neo-Hookean or corotated).
    Solid {
        /// Tetrahedra as local vertex indices, positively oriented.
        tets: Vec<[u32; 4]>,
        /// The boundary surface (outward triangles), for output and contact.
        triangles: Vec<[u32; 3]>,
    },
    /// An obstacle: a triangle mesh of infinite mass, static or scripted.
    Obstacle {
        /// Triangles as local vertex indices.
        triangles: Vec<[u32; 3]>,
    },
}

impl BodyKind {
    /// The kind's name as written in scene files.
    pub fn name(&self) -> &'static str {
        match self {
            BodyKind::Shell { .. } => "shell",
            BodyKind::Chain { .. } => "chain",
            BodyKind::Particles { .. } => "particles",
            BodyKind::Obstacle { .. } => "obstacle",
            BodyKind::Solid { .. } => "solid",
        }
    }

    /// Triangles of shells and obstacles, and the boundary surface of solids (empty for other
    /// kinds).
    pub fn triangles(&self) -> &[[u32; 3]] {
        match self {
            BodyKind::Shell { triangles } | BodyKind::Obstacle { triangles } | BodyKind::Solid { triangles, .. } => {
                triangles
            }
            _ => &[],
        }
    }
}

/// A body of the model.
#[derive(Clone, Debug, PartialEq)]
pub struct Body {
    /// Name from the scene file, used in outputs and messages.
    pub name: String,
    /// Kind and topology.
    pub kind: BodyKind,
    /// Global indices of the body's vertices (set by [`Model::add_body`](super::Model::add_body)).
    pub vertices: Range<u32>,
    /// Inextensibility slack s (ACM §7): with contact simulated on the AVI backend, every edge
    /// keeps its length within (1 ± s) of its initial length by nested penalty layers.
    pub inextensibility: Option<Real>,
}

impl Body {
    /// A body named `name` of kind `kind`; its vertex range is set when it is added to a model.
    pub fn new(name: impl Into<String>, kind: BodyKind) -> Self {
        Body { name: name.into(), kind, vertices: 0..0, inextensibility: None }
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.vertices.len()
    }
}
