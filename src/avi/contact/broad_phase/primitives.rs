//! The primitives of a model for the broad phases: points, segments and triangles of the
//! triangulated bodies and chains, spheres of particle bodies (`contact::proximity::primitives`,
//! grouped by shape), and for each vertex the primitives it belongs to.

use crate::avi::contact::pair::{PairKind, Primitive, Shape};
use crate::contact::proximity::{primitives, Primitive as ModelPrimitive};
use crate::ids::VertexId;
use crate::math::Real;
use crate::model::{Model, Motion};
use smallvec::{smallvec, SmallVec};

/// The primitives of a model, and for each vertex the primitives it belongs to.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub(in crate::avi::contact) struct Primitives {
    list: Vec<Primitive>,
    /// Vertex `u`'s primitives are `of_vertex[first_of_vertex[u]..first_of_vertex[u + 1]]`, in
    /// increasing order.
    of_vertex: Vec<u32>,
    first_of_vertex: Vec<u32>,
}

impl Primitives {
    /// The primitives of `model`: triangles, then points, spheres and segments; with the lengths
    /// of the edges that can move and the largest sphere radius (for the default cell size).
    pub(in crate::avi::contact) fn of_model(model: &Model) -> (Primitives, Vec<Real>, Real) {
        let v = &model.vertices;
        let held = |u: VertexId| !matches!(v.motion_at(u, 0.0), Motion::Free);
        let fixed = |u: VertexId| matches!(v.motion(u), Motion::Fixed);
        // one list of primitives (`contact::proximity::primitives`), grouped by shape
        let mut spheres = Vec::new();
        let mut points = Vec::new();
        let mut segments = Vec::new();
        let mut triangles = Vec::new();
        let mut free_edge_lengths = Vec::new();
        for p in primitives(model) {
            match p {
                ModelPrimitive::Particle(u, r) => spheres.push((Shape::Sphere, smallvec![u], r)),
                ModelPrimitive::Vertex(u) => points.push((Shape::Point, smallvec![u], 0.0)),
                ModelPrimitive::Edge([a, b]) => {
                    if !(held(a) && held(b)) {
                        free_edge_lengths.push((v.position(b) - v.position(a)).norm());
                    }
                    segments.push((Shape::Segment, smallvec![a, b], 0.0));
                }
                ModelPrimitive::Triangle(t) => triangles.push((Shape::Triangle, t.into_iter().collect(), 0.0)),
            }
        }
        let largest_radius = spheres.iter().map(|&(_, _, r)| r).fold(0.0, Real::max);
        let list: Vec<Primitive> = triangles
            .into_iter()
            .chain(points)
            .chain(spheres)
            .chain(segments)
            .map(|(shape, vertices, radius): (Shape, SmallVec<[VertexId; 3]>, Real)| {
                let all = |test: &dyn Fn(VertexId) -> bool| vertices.iter().all(|&u| test(u));
                Primitive::new(shape, &vertices, radius, all(&fixed), all(&held))
            })
            .collect();
        let mut first_of_vertex = vec![0u32; v.len() + 1];
        for u in list.iter().flat_map(Primitive::vertices) {
            first_of_vertex[u.index() + 1] += 1;
        }
        for k in 1..first_of_vertex.len() {
            first_of_vertex[k] += first_of_vertex[k - 1];
        }
        let mut of_vertex = vec![0u32; first_of_vertex[v.len()] as usize];
        let mut next = first_of_vertex.clone();
        for (i, p) in list.iter().enumerate() {
            for u in p.vertices() {
                of_vertex[next[u.index()] as usize] = i as u32;
                next[u.index()] += 1;
            }
        }
        (Primitives { list, of_vertex, first_of_vertex }, free_edge_lengths, largest_radius)
    }

    /// Number of primitives.
    pub(in crate::avi::contact) fn len(&self) -> usize {
        self.list.len()
    }

    /// All primitives, by index.
    pub(in crate::avi::contact) fn all(&self) -> &[Primitive] {
        &self.list
    }

    /// Primitive `i`.
    pub(in crate::avi::contact) fn get(&self, i: u32) -> &Primitive {
        &self.list[i as usize]
    }

    /// The primitives vertex `u` belongs to.
    pub(in crate::avi::contact) fn of_vertex(&self, u: VertexId) -> &[u32] {
        &self.of_vertex[self.first_of_vertex[u.index()] as usize..self.first_of_vertex[u.index() + 1] as usize]
    }

    /// The contact pair between primitives `i` < `j`, if they form one.
    pub(in crate::avi::contact) fn pair_kind(&self, i: u32, j: u32) -> Option<PairKind> {
        PairKind::of_primitives(self.get(i), self.get(j))
    }

    /// The kind of the pair that primitives `i` < `j` hold ([`Primitives::pair_kind`] made it).
    pub(in crate::avi::contact) fn kind_of_pair(&self, i: u32, j: u32) -> PairKind {
        PairKind::of_shapes(self.get(i), self.get(j)).expect("a pair's primitives form one")
    }

    /// Heap bytes of the primitives and their vertex lists.
    pub(in crate::avi::contact) fn heap_bytes(&self) -> usize {
        self.list.capacity() * std::mem::size_of::<Primitive>()
            + (self.of_vertex.capacity() + self.first_of_vertex.capacity()) * 4
    }
}
