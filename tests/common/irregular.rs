//! Irregular meshes as a modelling tool makes them (issue 22): slivers, boundary ears (a vertex in
//! one triangle only) and mixed edge lengths, here in an overhand-knot ribbon. Shared by
//! `tests/irregular.rs` and `tests/knots.rs`.
#![allow(dead_code)] // each test file uses a subset

use avicontact::math::Vec3;
use avicontact::mesh::{knot, KnotShape, Sweep};
use std::fmt::Write;

/// A small deterministic generator (a 64-bit LCG), so the meshes are the same on every machine.
struct Lcg(u64);

impl Lcg {
    /// A number in [0, 1).
    fn next(&mut self) -> f64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The irregular mesh's knobs.
pub struct Irregular {
    /// Base rows between two of the mesh's rows, drawn from this list.
    pub steps: &'static [usize],
    /// Interior vertices shift along the ribbon by up to this many base rows.
    pub shift: usize,
    /// Boundary ears: one every this many boundary edges (0: none), this far out, m.
    pub ear_every: usize,
    pub ear_height: f64,
}

/// An irregular ribbon: its vertices and triangles, the vertices of its two end rows, and the number
/// of vertices before the ears (rows of 3, vertex 3r + j of row r).
pub struct IrregularMesh {
    pub positions: Vec<Vec3>,
    pub triangles: Vec<[u32; 3]>,
    pub ends: [Vec<u32>; 2],
    pub grid_vertices: usize,
}

/// An overhand-knot ribbon (7 cm trefoil, 5 cm tails, 1 cm wide) made irregular: the rows of a fine
/// regular ribbon (`fine` samples along, 3 across) are taken at uneven steps, the middle column
/// shifted along the ribbon row by row, each quad split along a diagonal drawn at random, and
/// boundary ears added.
pub fn irregular_knot(fine: u32, knobs: &Irregular, seed: u64) -> IrregularMesh {
    let across = 3usize;
    let base = knot(KnotShape::Overhand, 0.07, 0.05, &Sweep { width: 0.01, segments: fine, across: 3, twist_deg: 0.0 })
        .unwrap();
    let at = |row: usize, j: usize| base.positions[row * across + j];
    let last = fine as usize;
    let mut random = Lcg(seed);
    // the rows taken, at uneven steps
    let mut rows = vec![0usize];
    while *rows.last().unwrap() < last {
        let step = knobs.steps[(random.next() * knobs.steps.len() as f64) as usize];
        rows.push((rows.last().unwrap() + step).min(last));
    }
    let mut positions = Vec::new();
    let mut previous_middle = 0usize;
    let mut index = vec![[0u32; 3]; rows.len()];
    for (r, &row) in rows.iter().enumerate() {
        for (j, slot) in index[r].iter_mut().enumerate() {
            let mut taken = row;
            if j == 1 && r > 0 && r + 1 < rows.len() && knobs.shift > 0 {
                // within the rows on either side, after the previous row's middle vertex
                let lo = (rows[r - 1] + 1).max(previous_middle + 1);
                let hi = rows[r + 1] - 1;
                let wish = row as i64 + ((random.next() * (2 * knobs.shift + 1) as f64) as i64 - knobs.shift as i64);
                taken = (wish.max(lo as i64).min(hi as i64)) as usize;
            }
            if j == 1 {
                previous_middle = taken;
            }
            *slot = positions.len() as u32;
            positions.push(at(taken, j));
        }
    }
    let mut triangles = Vec::new();
    let mut boundary_edge = 0usize;
    for r in 0..rows.len() - 1 {
        for j in 0..across - 1 {
            let (a, b, c, d) = (index[r][j], index[r][j + 1], index[r + 1][j], index[r + 1][j + 1]);
            if random.next() < 0.5 {
                triangles.push([a, c, b]);
                triangles.push([b, c, d]);
            } else {
                triangles.push([a, c, d]);
                triangles.push([a, d, b]);
            }
        }
        for (j, inner) in [(0usize, 1usize), (across - 1, across - 2)] {
            boundary_edge += 1;
            if knobs.ear_every == 0 || !boundary_edge.is_multiple_of(knobs.ear_every) || rows[r + 1] - rows[r] < 2 {
                continue;
            }
            // an ear on the boundary edge between rows r and r + 1: a vertex out beyond its middle
            let mid = (rows[r] + rows[r + 1]) / 2;
            let out = (at(mid, j) - at(mid, inner)).normalize();
            let (p, q) = (index[r][j], index[r + 1][j]);
            let middle = (positions[p as usize] + positions[q as usize]) * 0.5;
            let m = positions.len() as u32;
            positions.push(middle + out * knobs.ear_height);
            // the same orientation as the quad's triangles
            triangles.push(if j == 0 { [p, m, q] } else { [p, q, m] });
        }
    }
    let ends = [index[0].to_vec(), index[rows.len() - 1].to_vec()];
    IrregularMesh { positions, triangles, ends, grid_vertices: rows.len() * across }
}

pub fn obj(positions: &[Vec3], triangles: &[[u32; 3]]) -> String {
    let mut text = String::new();
    for p in positions {
        writeln!(text, "v {} {} {}", p.x, p.y, p.z).unwrap();
    }
    for t in triangles {
        writeln!(text, "f {} {} {}", t[0] + 1, t[1] + 1, t[2] + 1).unwrap();
    }
    text
}

/// A flat card as a modelling tool might mesh it: an `nx` × `ny` grid `width` wide along x and
/// `length` long along y from y = −0.044 m, whose interior vertices are moved by up to 0.3 of a
/// spacing in x and y (side vertices along y only; the first two rows, the clamped ones, and the
/// tip row stay), each quad split along a diagonal drawn at random. Vertex `i + nx·j` is in column
/// i, row j.
pub fn jittered_card(nx: usize, ny: usize, width: f64, length: f64, seed: u64) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let mut random = Lcg(seed);
    let (dx, dy) = (width / (nx - 1) as f64, length / (ny - 1) as f64);
    let mut positions = Vec::with_capacity(nx * ny);
    for j in 0..ny {
        for i in 0..nx {
            let (mut x, mut y) = (-width / 2.0 + i as f64 * dx, -0.044 + j as f64 * dy);
            let moved_row = j > 1 && j < ny - 1;
            if moved_row && i > 0 && i < nx - 1 {
                x += (random.next() - 0.5) * 0.6 * dx;
            }
            if moved_row {
                y += (random.next() - 0.5) * 0.6 * dy;
            }
            positions.push(Vec3::new(x, y, 0.0));
        }
    }
    let mut triangles = Vec::new();
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = (j * nx + i) as u32;
            let (b, c, d) = (a + 1, a + nx as u32, a + nx as u32 + 1);
            if random.next() < 0.5 {
                triangles.extend([[a, b, d], [a, d, c]]);
            } else {
                triangles.extend([[a, b, c], [b, d, c]]);
            }
        }
    }
    (positions, triangles)
}
