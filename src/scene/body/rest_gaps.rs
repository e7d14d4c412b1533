//! The rest gaps of a shell's own mesh (issue 22): pairs of its contact primitives that share no
//! vertex (the pairs self-contact holds, ACM §4) and start within a few η(1) of each other.
//!
//! IPC's rule is that the contact distance stays below every such rest distance. A pair of mesh
//! neighbours closer than a few η(1), such as a boundary ear (a vertex in one triangle only) and
//! the triangle across its own triangle's edge, switches penalty layers on between parts the
//! membrane already holds apart as soon as the mesh is squeezed, and the small triangles that make
//! such pairs are the ones whose stiffness outgrows their clocks as they deform. Generated knots
//! refuse a start within 3·η(1) (`knot.rs`, which knows the key that fixes it); any other shell
//! mesh is warned about within [`REST_GAP_MARGIN`]·η(1), naming the pair and the fixes.

use crate::contact::{closest_violation, Primitive, TooClose};
use crate::math::{Compact, Real, Vec3};
use crate::mesh::TriMesh;
use crate::model::{Body, BodyKind, Model};
use crate::scene::context::Ctx;

/// How far apart, in units of η(1), every pair of a shell's contact primitives that share no
/// vertex should start: closer gives a warning. Boundary ears and slivers fall within it; a
/// regular cloth whose triangles are a little over twice as high as η(1) does not.
pub(super) const REST_GAP_MARGIN: Real = 2.0;

/// The closest pair of `mesh`'s contact primitives that share no vertex and start closer than
/// `limit` (m), if any.
pub(super) fn closest_rest_pair(mesh: &TriMesh, limit: Real) -> Option<TooClose> {
    let n = mesh.positions.len();
    let mut model = Model::new();
    model.add_body(
        Body::new("mesh", BodyKind::Shell { triangles: mesh.triangles.clone() }),
        &mesh.positions,
        &vec![Vec3::zeros(); n],
        &vec![1.0; n],
    );
    closest_violation(&model, limit)
}

/// The mesh's vertex indices of a primitive.
pub(super) fn primitive_vertices(p: &Primitive) -> Vec<u32> {
    match p {
        Primitive::Vertex(a) | Primitive::Particle(a, _) => vec![a.0],
        Primitive::Edge(e) => e.iter().map(|a| a.0).collect(),
        Primitive::Triangle(t) => t.iter().map(|a| a.0).collect(),
    }
}

/// "vertex 4", "edge (4, 7)" or "triangle [4, 7, 9]", in the mesh's numbering.
pub(super) fn describe_primitive(p: &Primitive) -> String {
    let ids = primitive_vertices(p);
    match p {
        Primitive::Vertex(_) | Primitive::Particle(..) => format!("vertex {}", ids[0]),
        Primitive::Edge(_) => format!("edge ({}, {})", ids[0], ids[1]),
        Primitive::Triangle(_) => format!("triangle {ids:?}"),
    }
}

/// Warns (at `key`) when two of a shell mesh's primitives that share no vertex start closer than
/// [`REST_GAP_MARGIN`]·η(1) but not closer than η(1) (closer is refused when the scene is built).
pub(super) fn warn_close_neighbours(ctx: &Ctx, key: &str, mesh: &TriMesh) {
    let Some(eta) = ctx.contact_thickness else { return };
    let limit = REST_GAP_MARGIN * eta;
    let Some(pair) = closest_rest_pair(mesh, limit) else { return };
    if pair.gap < eta {
        return;
    }
    // the shortest edge of the triangles the pair touches: what a remesh should keep above `limit`
    let touched: Vec<u32> = [&pair.a, &pair.b].into_iter().flat_map(primitive_vertices).collect();
    let shortest = mesh
        .triangles
        .iter()
        .filter(|t| t.iter().any(|i| touched.contains(i)))
        .flat_map(|t| [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])])
        .map(|(i, j)| (mesh.positions[i as usize] - mesh.positions[j as usize]).norm())
        .fold(Real::INFINITY, Real::min);
    ctx.warn(
        key,
        format!(
            "at rest, {} and {} share no vertex and are {} m apart, within {REST_GAP_MARGIN}·η(1) = {} m ([contact] \
             thickness {} m; the shortest edge around them is {} m). Self-contact acts between them, so penalty \
             layers switch on between mesh neighbours as soon as the mesh is squeezed, and triangles this small \
             (slivers, boundary ears: a vertex in one triangle only) stiffen beyond their clocks as they deform. \
             Keep η(1) below every rest gap (IPC's rule: lower [contact] thickness below {} m), or remesh without \
             slivers and ears",
            describe_primitive(&pair.a),
            describe_primitive(&pair.b),
            Compact::rounded(pair.gap, 3),
            Compact::rounded(limit, 3),
            Compact(eta),
            Compact::rounded(shortest, 3),
            Compact::rounded(pair.gap / REST_GAP_MARGIN, 2),
        ),
    );
}
