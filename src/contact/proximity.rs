//! The initial-state check of contact scenes (issue 3, "bad input"): every pair of contact
//! primitives must start farther apart than the outermost layer's thickness η(1), or the layers
//! would start active (or the bodies already interpenetrate) and the no-interpenetration guarantee
//! could not hold from t = 0.
//!
//! Primitives: the vertices, edges and triangles of every triangulated body (shells, obstacles, the
//! boundary of solids), the vertices and segments of chains, and particles (spheres). Pairs that share a vertex are not contact pairs
//! (ACM §4). A sweep over axis-aligned boxes inflated by η keeps the check near-linear.

use crate::geometry::distance::{distance_edge_edge, distance_point_point, distance_point_triangle};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use crate::mesh::edges;
use crate::model::{BodyKind, Model, Motion};

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

/// The closest pair of primitives whose gap is below `thickness` at the model's initial
/// positions, or `None` when the scene starts clear.
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
    let mut order: Vec<usize> = (0..prims.len()).collect();
    order.sort_by(|&i, &j| boxes[i].0.x.total_cmp(&boxes[j].0.x).then(i.cmp(&j)));
    let mut worst: Option<TooClose> = None;
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].0.x > boxes[i].1.x {
                break;
            }
            if !(1..3).all(|d| boxes[j].0[d] <= boxes[i].1[d] && boxes[i].0[d] <= boxes[j].1[d]) {
                continue;
            }
            // pairs that cannot move at all hold no contact pair (an obstacle's own parts may touch)
            let held =
                |p: &Primitive| p.vertices().iter().all(|&v| !matches!(model.vertices.motion_at(v, 0.0), Motion::Free));
            if held(&prims[i]) && held(&prims[j]) {
                continue;
            }
            if let Some(g) = gap(&prims[i], &prims[j], &x) {
                if g < thickness && worst.is_none_or(|w| g < w.gap) {
                    worst = Some(TooClose { a: prims[i], b: prims[j], gap: g });
                }
            }
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Body;

    fn sheet(model: &mut Model, z: Real) {
        let m = crate::mesh::grid([1.0, 1.0], [3, 3]).unwrap();
        let x: Vec<Vec3> = m.positions.iter().map(|p| p + Vec3::z() * z).collect();
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
}
