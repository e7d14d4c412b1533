//! The initial-state check of contact scenes (issue 3, "bad input"): every pair of contact
//! primitives must start farther apart than the outermost layer's thickness η(1), or the layers
//! would start active (or the bodies already interpenetrate) and the no-interpenetration guarantee
//! could not hold from t = 0.
//!
//! Primitives: the vertices, edges and triangles of every triangulated body (shells, obstacles, the
//! boundary of solids), the vertices and segments of chains, and particles (spheres). Pairs that share a vertex are not contact pairs
//! (ACM §4). A hash grid over axis-aligned boxes inflated by η keeps the check near-linear.

use crate::geometry::distance::{distance_edge_edge, distance_point_point, distance_point_triangle};
use crate::ids::VertexId;
use crate::kds::hash_grid::{CellBox, HashGrid};
use crate::math::{Real, Vec3};
use crate::mesh::edges;
use crate::model::{BodyKind, Model};

/// A contact primitive, by global vertex ids.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Primitive {
    /// A mesh vertex.
    Vertex(VertexId),
    /// A mesh edge.
    Edge([VertexId; 2]),
    /// A mesh triangle.
    Triangle([VertexId; 3]),
    /// A particle (a sphere of `radius` around the vertex).
    Particle(VertexId, Real),
}

impl Primitive {
    fn vertices(&self) -> &[VertexId] {
        match self {
            Primitive::Vertex(v) | Primitive::Particle(v, _) => std::slice::from_ref(v),
            Primitive::Edge(e) => e,
            Primitive::Triangle(t) => t,
        }
    }

    fn radius(&self) -> Real {
        if let Primitive::Particle(_, r) = self {
            *r
        } else {
            0.0
        }
    }
}

/// Two primitives closer than allowed at the start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TooClose {
    /// One primitive.
    pub a: Primitive,
    /// The other.
    pub b: Primitive,
    /// Their gap (distance minus radii), m; ≤ 0 means they intersect.
    pub gap: Real,
}

/// Every contact primitive of `model`: the one list that the AVI broad phase, the start check and
/// IPC contact all use. Per body, in body order: its particles, or its vertices (those on a
/// triangle or segment, ascending), its segments (a chain's springs, a mesh's triangle edges) and
/// its triangles.
pub fn primitives(model: &Model) -> Vec<Primitive> {
    let mut out = Vec::new();
    for body in model.bodies.values() {
        let id = |local: u32| VertexId(body.vertices.start + local);
        match &body.kind {
            BodyKind::Particles { radius } => {
                out.extend(body.vertices.clone().map(|v| Primitive::Particle(VertexId(v), *radius)))
            }
            kind => {
                let triangles = kind.triangles();
                // a chain's segments are its springs; a mesh's are its triangles' edges
                let segments = match kind {
                    BodyKind::Chain { edges } => edges.clone(),
                    _ => edges(triangles),
                };
                let mut used: Vec<u32> = triangles.iter().flatten().chain(segments.iter().flatten()).copied().collect();
                used.sort_unstable();
                used.dedup();
                out.extend(used.into_iter().map(|v| Primitive::Vertex(id(v))));
                out.extend(segments.into_iter().map(|e| Primitive::Edge(e.map(id))));
                out.extend(triangles.iter().map(|t| Primitive::Triangle(t.map(id))));
            }
        }
    }
    out
}

/// The gap between two primitives at positions `x`, or `None` if they are not a contact pair
/// (they share a vertex, or the pair kinds do not touch: vertex–vertex, vertex–edge, …).
fn gap(a: &Primitive, b: &Primitive, x: &[Vec3]) -> Option<Real> {
    if a.vertices().iter().any(|v| b.vertices().contains(v)) {
        return None;
    }
    let p = |v: VertexId| x[v.index()];
    let d = match (a, b) {
        (Primitive::Vertex(v) | Primitive::Particle(v, _), Primitive::Triangle(t))
        | (Primitive::Triangle(t), Primitive::Vertex(v) | Primitive::Particle(v, _)) => {
            distance_point_triangle(p(*v), p(t[0]), p(t[1]), p(t[2]))
        }
        (Primitive::Edge(e), Primitive::Edge(f)) => distance_edge_edge(p(e[0]), p(e[1]), p(f[0]), p(f[1])),
        (Primitive::Particle(u, _), Primitive::Particle(v, _)) => distance_point_point(p(*u), p(*v)),
        _ => return None,
    };
    Some(d - a.radius() - b.radius())
}

/// A primitive whose padded box covers more cells than this, or than there are primitives, is not
/// entered cell by cell: it is tested against every primitive (a large obstacle triangle under
/// fine meshes, say), which then costs less than scanning its cells. Without the second bound, 400
/// overlapping spheres 10 m across over a block of 0.1 m tetrahedra (1 266 primitives) each
/// covered 3 375 cells that all held the other spheres: 375 M candidates (now 1.1 M), 1.2 s, and
/// a timeout in CI's fuzz run.
const LARGE_CELLS: u64 = 4096;

/// The closest pair of primitives whose gap is below `thickness` at the model's initial
/// positions, or `None` when the scene starts clear (of equal gaps, the pair of lowest indices in
/// [`primitives`]' order).
///
/// Each primitive's box, inflated by half the thickness plus its radius, is listed in the cells of
/// a hash grid ([`HashGrid`], cells twice the median box), so pairs whose boxes miss are never
/// looked at; pairs of two held primitives are not either. Near-linear in the primitives: a
/// sweep along one axis instead took 4.6 s on a 40 962-vertex obstacle sphere, whose thin slices
/// hold thousands of primitives each, and a fuzzed scene with one timed out.
pub fn closest_violation(model: &Model, thickness: Real) -> Option<TooClose> {
    let x: Vec<Vec3> = (0..model.vertices.len()).map(|i| model.vertices.position(VertexId(i as u32))).collect();
    let prims = primitives(model);
    // boxes inflated by half the thickness plus the radius: pairs whose boxes miss are farther apart
    let boxes: Vec<(Vec3, Vec3)> = prims
        .iter()
        .map(|p| {
            let (lo, hi) = p
                .vertices()
                .iter()
                .fold((Vec3::repeat(Real::INFINITY), Vec3::repeat(Real::NEG_INFINITY)), |(lo, hi), v| {
                    (lo.inf(&x[v.index()]), hi.sup(&x[v.index()]))
                });
            let pad = Vec3::repeat(0.5 * thickness + p.radius());
            (lo - pad, hi + pad)
        })
        .collect();
    // pairs that cannot move at all hold no contact pair (an obstacle's own parts may touch)
    let held: Vec<bool> =
        prims.iter().map(|p| p.vertices().iter().all(|&v| !model.vertices.is_free_at(v, 0.0))).collect();
    let mut extents: Vec<Real> = boxes.iter().map(|(lo, hi)| (hi - lo).max()).filter(|e| e.is_finite()).collect();
    let median = match extents.len() {
        0 => return None,
        n => *extents.select_nth_unstable_by(n / 2, Real::total_cmp).1,
    };
    let cell = if median > 0.0 { 2.0 * median } else { 1.0 };
    let mut grid = HashGrid::new(cell);
    let cells: Vec<CellBox> = boxes.iter().map(|(lo, hi)| grid.cover(lo, hi)).collect();
    let large_cells = LARGE_CELLS.min(prims.len() as u64);
    let mut large = Vec::new();
    for (i, c) in cells.iter().enumerate() {
        if c.len() > large_cells {
            large.push(i);
        } else {
            grid.insert(i as u32, c);
        }
    }
    let overlap = |i: usize, j: usize| {
        let ((a_lo, a_hi), (b_lo, b_hi)) = (&boxes[i], &boxes[j]);
        (0..3).all(|d| b_lo[d] <= a_hi[d] && a_lo[d] <= b_hi[d])
    };
    // a pair is looked at from its free primitive of lowest index, once (`seen` by that one)
    let mut seen = vec![usize::MAX; prims.len()];
    let mut worst: Option<(Real, usize, usize)> = None;
    let mut consider = |i: usize, j: usize, seen: &mut [usize]| {
        if j == i || !(held[j] || j > i) || std::mem::replace(&mut seen[j], i) == i || !overlap(i, j) {
            return;
        }
        if let Some(g) = gap(&prims[i], &prims[j], &x) {
            let candidate = (g, i.min(j), i.max(j));
            let closer = |w: &(Real, usize, usize)| g.total_cmp(&w.0).then((candidate.1, candidate.2).cmp(&(w.1, w.2)));
            if g < thickness && worst.as_ref().is_none_or(|w| closer(w).is_lt()) {
                worst = Some(candidate);
            }
        }
    };
    for i in (0..prims.len()).filter(|&i| !held[i]) {
        if cells[i].len() > large_cells {
            (0..prims.len()).for_each(|j| consider(i, j, &mut seen));
        } else {
            for c in cells[i].cells() {
                grid.occupants(&c).iter().for_each(|&j| consider(i, j as usize, &mut seen));
            }
            large.iter().for_each(|&j| consider(i, j, &mut seen));
        }
    }
    worst.map(|(gap, i, j)| TooClose { a: prims[i], b: prims[j], gap })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Body, Motion};

    fn sheet(model: &mut Model, z: Real) {
        sheet_of(model, 1.0, 3, Vec3::z() * z);
    }

    /// A free square sheet `size` m across of `resolution` × `resolution` quads, moved by `shift`.
    fn sheet_of(model: &mut Model, size: Real, resolution: u32, shift: Vec3) {
        let m = crate::mesh::grid([size, size], [resolution, resolution]).unwrap();
        let x: Vec<Vec3> = m.positions.iter().map(|p| p + shift).collect();
        let n = x.len();
        model.add_body(
            Body::new("s", BodyKind::Shell { triangles: m.triangles }),
            &x,
            &vec![Vec3::zeros(); n],
            &vec![1.0; n],
        );
    }

    #[test]
    fn finds_the_closest_pair_and_ignores_a_single_clear_mesh() {
        let mut model = Model::new();
        sheet(&mut model, 0.0);
        assert_eq!(closest_violation(&model, 0.01), None, "one flat mesh: neighbours share vertices or are far");
        sheet(&mut model, 0.005);
        let v = closest_violation(&model, 0.01).unwrap();
        assert!((v.gap - 0.005).abs() < 1e-12);
        let mut particles = Model::new();
        particles.add_body(
            Body::new("p", BodyKind::Particles { radius: 0.1 }),
            &[Vec3::zeros(), Vec3::x() * 0.15],
            &[Vec3::zeros(); 2],
            &[1.0; 2],
        );
        let v = closest_violation(&particles, 0.01).unwrap();
        assert!(v.gap < 0.0, "overlapping spheres: {}", v.gap);
    }

    /// The grid finds the pair that testing every pair finds (the closest with a free primitive
    /// below the thickness, of equal gaps the lowest indices), among held floor triangles larger
    /// than `LARGE_CELLS` cells, a held fine sheet, a free sheet and free particles.
    #[test]
    fn the_grid_finds_the_pair_that_testing_every_pair_finds() {
        let mut random = 12345u64;
        let mut next = move || {
            random = random.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (random >> 11) as Real / (1u64 << 53) as Real
        };
        let thickness = 0.01;
        for case in 0..6 {
            let mut model = Model::new();
            let floor =
                [[-50.0, -50.0], [50.0, -50.0], [50.0, 50.0], [-50.0, 50.0]].map(|[x, y]| Vec3::new(x, y, -0.01));
            let obstacle = Body::new("floor", BodyKind::Obstacle { triangles: vec![[0, 1, 2], [0, 2, 3]] });
            model.add_body(obstacle, &floor, &[Vec3::zeros(); 4], &[1.0; 4]);
            for (z, resolution) in [(0.0, 12), (0.006 * case as Real - 0.004, 9)] {
                sheet_of(&mut model, 0.3, resolution, Vec3::new(0.01 * next(), 0.01 * next(), z));
            }
            let grains: Vec<Vec3> =
                (0..30).map(|_| Vec3::new(0.4 * next() - 0.2, 0.4 * next() - 0.2, 0.06 * next() - 0.02)).collect();
            model.add_body(
                Body::new("p", BodyKind::Particles { radius: 0.005 }),
                &grains,
                &[Vec3::zeros(); 30],
                &[1.0; 30],
            );
            // the floor and the first sheet are held
            for v in 0..4 + 13 * 13 {
                model.vertices.fix(VertexId(v));
            }
            let every = closest_of_every_pair(&model, thickness);
            let found = closest_violation(&model, thickness).map(|v| (v.gap, v.a, v.b));
            assert_eq!(found, every, "case {case}");
            assert!(case < 2 || every.is_some(), "case {case}: the sheets come within the thickness");
        }
    }

    /// What `closest_violation` must find, by testing every pair with a free primitive: the
    /// closest below `thickness`, of equal gaps the first in `primitives`' order.
    fn closest_of_every_pair(model: &Model, thickness: Real) -> Option<(Real, Primitive, Primitive)> {
        let prims = primitives(model);
        let x: Vec<Vec3> = (0..model.vertices.len()).map(|i| model.vertices.position(VertexId(i as u32))).collect();
        let held = |p: &Primitive| p.vertices().iter().all(|&v| !matches!(model.vertices.motion(v), Motion::Free));
        let mut every: Option<(Real, Primitive, Primitive)> = None;
        for i in 0..prims.len() {
            for j in i + 1..prims.len() {
                if held(&prims[i]) && held(&prims[j]) {
                    continue;
                }
                if let Some(g) = gap(&prims[i], &prims[j], &x) {
                    if g < thickness && every.is_none_or(|(best, ..)| g < best) {
                        every = Some((g, prims[i], prims[j]));
                    }
                }
            }
        }
        every
    }

    /// Spheres far larger than the mesh's cells, all overlapping (a fuzzed scene's start: 400 of
    /// them, 10 m across, over a block of 0.1 m tetrahedra, timed out CI's fuzz run while their
    /// boxes were listed cell by cell) are tested against every primitive instead, and the pair
    /// found is the one testing every pair finds. Here each sphere's box covers up to 1 331 cells:
    /// fewer than `LARGE_CELLS`, more than the 563 primitives.
    #[test]
    fn spheres_larger_than_the_cells_are_tested_against_every_primitive() {
        let mut model = Model::new();
        sheet_of(&mut model, 1.0, 10, Vec3::zeros());
        let grains: Vec<Vec3> = (0..40).map(|k| Vec3::new(0.1 * k as Real, 0.05 * (k % 7) as Real, 3.0)).collect();
        model.add_body(
            Body::new("grains", BodyKind::Particles { radius: 1.2 }),
            &grains,
            &[Vec3::zeros(); 40],
            &[1.0; 40],
        );
        let found = closest_violation(&model, 0.01).map(|v| (v.gap, v.a, v.b));
        assert_eq!(found, closest_of_every_pair(&model, 0.01));
        assert!(found.is_some_and(|(gap, ..)| gap < -2.0), "the spheres overlap by most of their size");
    }
}
