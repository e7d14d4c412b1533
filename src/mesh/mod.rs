//! Meshes: triangle meshes (storage, topology, generators, OBJ input) and tetrahedral meshes
//! (box generator, TetGen input).
//!
//! Pure data and pure functions: no ids, no simulation state. `scene/` turns scene keys into calls
//! of the generators here; `model/` turns meshes into vertices and potentials.

mod bowline;
mod generators;
mod knots;
mod obj;
mod solids;
mod spline;
mod tet;
mod topology;

pub use bowline::{bowline_centre_line, BowlineCylinder};
pub use generators::{
    box_surface, cylinder, grid, hat, icosphere, lattice, line, ribbon, spikes, sweep, GeneratorError, Sweep,
    MAX_VERTICES,
};
pub use knots::{knot, knot_centre_lines, overhand_control_points, reef_centre_lines, KnotShape};
pub use obj::{parse_obj, read_obj, ObjError};
pub use solids::{platonic, torus, Platonic};
pub use spline::catmull_rom;
pub use tet::{ball_tets, box_tets, parse_tetgen, read_tetgen, TetGenError, TetMesh};
pub use topology::{edges, hinges, HingeStencil};

use crate::math::{Real, Vec3};

/// A triangle mesh: positions and counter-clockwise vertex-index triples.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TriMesh {
    /// Vertex positions, m.
    pub positions: Vec<Vec3>,
    /// Triangles as indices into `positions`.
    pub triangles: Vec<[u32; 3]>,
}

impl TriMesh {
    /// Area of triangle `t`.
    pub fn triangle_area(&self, t: usize) -> Real {
        let [a, b, c] = self.triangles[t].map(|i| self.positions[i as usize]);
        0.5 * (b - a).cross(&(c - a)).norm()
    }

    /// Index of the first triangle whose area is at most `tolerance` times its longest edge
    /// squared (a degenerate triangle), if any.
    pub fn find_degenerate_triangle(&self, tolerance: Real) -> Option<usize> {
        (0..self.triangles.len()).find(|&t| {
            let [a, b, c] = self.triangles[t].map(|i| self.positions[i as usize]);
            let longest = (b - a).norm_squared().max((c - b).norm_squared()).max((a - c).norm_squared());
            let area = self.triangle_area(t);
            area.is_nan() || area <= tolerance * longest
        })
    }

    /// Lumped masses: each triangle's mass (`density` × area) split equally among its three
    /// vertices. A vertex in no triangle gets 0.
    pub fn lumped_masses(&self, density: Real) -> Vec<Real> {
        let mut masses = vec![0.0; self.positions.len()];
        for (t, tri) in self.triangles.iter().enumerate() {
            let share = density * self.triangle_area(t) / 3.0;
            for &i in tri {
                masses[i as usize] += share;
            }
        }
        masses
    }
}
