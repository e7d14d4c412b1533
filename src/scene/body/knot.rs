//! The start check of generated knots (issue 22): a knot ribbon must start with every pair of its
//! contact primitives that share no vertex (the pairs the engine's self-contact holds, ACM §4)
//! well apart, both between the knot's strands and between mesh neighbours.
//!
//! Between neighbours the rule is IPC's (d̂ below every rest distance of the mesh): a pair of
//! neighbours whose rest distance is within a few η(1), such as a vertex and the triangle across
//! its own triangle's edge, switches penalty layers on as the ribbon is squeezed in its plane, and
//! those layers act between parts the membrane already holds apart (the blow-up of issue 22).

use super::rest_gaps::{closest_rest_pair, describe_primitive, primitive_vertices};
use crate::geometry::intersect::intersect_triangle_triangle;
use crate::math::{Compact, Real, Vec3};
use crate::mesh::TriMesh;
use crate::scene::context::Ctx;
use crate::scene::SceneError;

/// How far apart, in units of η(1), every pair of a generated knot's contact primitives that
/// share no vertex must start: wider than the margin other shells are warned about
/// ([`REST_GAP_MARGIN`]), since the generator can be told what to change.
pub(super) const KNOT_GAP_MARGIN: Real = 3.0;

/// Pairs whose vertices lie within this many samples of each other along the ribbon are mesh
/// neighbours; farther ones are parts of different strands.
const NEIGHBOUR_SAMPLES: u32 = 2;

/// Refuses a knot mesh (vertex `k·across + j` at sample `k`, strip `width` wide) whose closest pair
/// of primitives sharing no vertex starts closer than [`KNOT_GAP_MARGIN`]·η(1), or, in a scene
/// without `[contact]` (where nothing holds the strands apart), two of whose triangles intersect. The message names the key that fixes it: `segments` or
/// `across` for mesh neighbours (larger triangles), `size` for strands (a looser knot).
///
/// A knot of several ribbons (the reef knot) has `samples` samples per ribbon, ribbon after ribbon;
/// pairs on different ribbons are strands, never neighbours.
pub(super) fn check_gaps(
    ctx: &Ctx,
    key: &str,
    mesh: &TriMesh,
    across: u32,
    samples: u32,
    width: Real,
) -> Result<(), SceneError> {
    let Some(eta) = ctx.contact_thickness else {
        // no layers to keep apart: only an intersection is refused
        return match first_intersection(mesh) {
            None => Ok(()),
            Some((s, t)) => Err(ctx.err(
                format!("{key}.size"),
                format!(
                    "at rest, triangles {s} {:?} and {t} {:?} intersect: the knot is tied too tight for its `width`; \
                     make `size` larger or `width` smaller",
                    mesh.triangles[s], mesh.triangles[t]
                ),
            )),
        };
    };
    let limit = KNOT_GAP_MARGIN * eta;
    let Some(v) = closest_rest_pair(mesh, limit) else { return Ok(()) };
    let (vertices, describe) = (primitive_vertices, describe_primitive);
    let (a, b) = (vertices(&v.a), vertices(&v.b));
    // samples apart along one ribbon; pairs on two ribbons are never neighbours
    let along_ribbon = |i: u32, j: u32| {
        let (s, t) = (i / across, j / across);
        if s / samples == t / samples {
            s.abs_diff(t)
        } else {
            u32::MAX
        }
    };
    let apart = a.iter().flat_map(|&i| b.iter().map(move |&j| along_ribbon(i, j))).min().unwrap_or(0);
    let what =
        if v.gap <= 0.0 { "intersect".to_string() } else { format!("are {} m apart", Compact::rounded(v.gap, 3)) };
    let pair = format!("at rest, {} and {} {what}", describe(&v.a), describe(&v.b));
    let bound = format!(
        "every pair sharing no vertex must start at least {KNOT_GAP_MARGIN}·η(1) = {} m apart ([contact] thickness {} m)",
        Compact::rounded(limit, 4),
        Compact(eta)
    );
    // the flat strip's spacings: across, and along the centre line (the mean of each cross-section)
    let spacing = width / (across - 1) as Real;
    let centre: Vec<Vec3> =
        mesh.positions.chunks(across as usize).map(|s| s.iter().sum::<Vec3>() / across as Real).collect();
    // the mean piece along each ribbon (not across the seam from one ribbon to the next)
    let pieces = centre.chunks(samples as usize).flat_map(|ribbon| ribbon.windows(2));
    let count = pieces.clone().count().max(1);
    let along = pieces.map(|w| (w[1] - w[0]).norm()).sum::<Real>() / count as Real;
    // a flat strip's triangle height: the rest gap of a vertex and the triangle across its own
    // triangle's edge; bends in the strip's plane squeeze it on their inner side
    let height = spacing * along / (spacing * spacing + along * along).sqrt();
    let both = "(fewer `segments` or `across` make larger triangles; a larger `size` or a smaller `width` \
                bends the strip less)";
    if apart <= NEIGHBOUR_SAMPLES && v.gap >= 0.5 * height {
        // mesh neighbours at about their triangles' height: the triangles are too small for the layers
        let (fix_key, fix) = if along <= spacing {
            ("segments", format!("use fewer `segments` (pieces now {} m long)", Compact::rounded(along, 3)))
        } else {
            ("across", format!("use fewer `across` (vertices now {} m apart across)", Compact::rounded(spacing, 3)))
        };
        Err(ctx.err(
            format!("{key}.{fix_key}"),
            format!(
                "{pair}, mesh neighbours {apart} sample(s) apart along the ribbon; {bound}, or penalty layers switch \
                 on between neighbours as the ribbon is squeezed; {fix}, or lower [contact] thickness {both}"
            ),
        ))
    } else if apart <= NEIGHBOUR_SAMPLES {
        // neighbours squeezed far below their triangles' height: the strip bends sharply in its plane
        Err(ctx.err(
            format!("{key}.size"),
            format!(
                "{pair}, mesh neighbours {apart} sample(s) apart along the ribbon, below half their triangles' \
                 height ({} m): the ribbon bends too sharply here for its width, the knot is tied too tight; \
                 {bound}; make `size` larger or `width` smaller, or lower [contact] thickness {both}",
                Compact::rounded(height, 3)
            ),
        ))
    } else {
        let strands = if apart == u32::MAX {
            "on two ribbons".to_string()
        } else {
            format!("on strands {apart} samples apart along the ribbon")
        };
        Err(ctx.err(
            format!("{key}.size"),
            format!(
                "{pair}, {strands}: the knot is tied too tight; {bound}; make `size` larger or `width` smaller, or \
                 lower [contact] thickness"
            ),
        ))
    }
}

/// The first pair of triangles of `mesh` that share no vertex and intersect (exact orientation
/// predicates, as `avicontact check` tests frames), found by a sweep along x over their boxes.
fn first_intersection(mesh: &TriMesh) -> Option<(usize, usize)> {
    let corners = |t: usize| mesh.triangles[t].map(|i| &mesh.positions[i as usize]);
    let boxes: Vec<(Vec3, Vec3)> = (0..mesh.triangles.len())
        .map(|t| {
            let [a, b, c] = corners(t);
            (a.inf(b).inf(c), a.sup(b).sup(c))
        })
        .collect();
    let mut order: Vec<usize> = (0..boxes.len()).collect();
    order.sort_by(|&i, &j| boxes[i].0.x.total_cmp(&boxes[j].0.x).then(i.cmp(&j)));
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if boxes[j].0.x > boxes[i].1.x {
                break;
            }
            let overlap = (1..3).all(|d| boxes[j].0[d] <= boxes[i].1[d] && boxes[i].0[d] <= boxes[j].1[d]);
            let shared = mesh.triangles[i].iter().any(|v| mesh.triangles[j].contains(v));
            if overlap && !shared && intersect_triangle_triangle(corners(i), corners(j)) {
                return Some((i.min(j), i.max(j)));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::scene::{parse, Scene, SceneError};
    use std::path::Path;

    fn knot(contact: &str, mesh: &str) -> Result<Scene, SceneError> {
        let text = format!(
            "[simulation]\ngravity = [0.0, 0.0, 0.0]\n{contact}\n[[body]]\nname = \"k\"\nkind = \"shell\"\n\
             mesh = {{ generator = \"knot\", shape = \"overhand\", {mesh} }}\ndensity = 0.4\nstretching = 400.0"
        );
        parse(&text, "t.toml", Path::new("."), "t".into())
    }

    const LOOSE: &str = "size = 0.07, tail = 0.05, width = 0.01, segments = 80, across = 3";

    #[test]
    fn a_loose_knot_builds_with_its_gaps_above_the_margin() {
        let s = knot("[contact]\nthickness = 0.0005", LOOSE).unwrap();
        assert_eq!(s.model.vertices.len(), 81 * 3);
        assert!(s.contact_violation.is_none());
    }

    #[test]
    fn a_knot_tied_too_tight_for_its_width_is_refused_naming_size() {
        let e =
            knot("[contact]\nthickness = 0.0005", "size = 0.03, tail = 0.05, width = 0.01, segments = 40, across = 3")
                .map(drop)
                .expect_err("refused");
        assert_eq!(e.place.as_deref(), Some("body[0] \"k\".mesh.size"), "{e}");
        assert!(e.message.contains("too tight") && e.message.contains("`size` larger"), "{e}");
        // without [contact] only an intersection is refused: this one intersects
        let e = knot("", "size = 0.01, tail = 0.05, width = 0.01, segments = 40, across = 3")
            .map(drop)
            .expect_err("refused");
        assert!(e.message.contains("intersect"), "{e}");
        assert!(knot("", LOOSE).is_ok());
    }

    #[test]
    fn neighbours_within_a_few_thicknesses_are_refused_naming_the_resolution() {
        // a large, gently bent knot: 5 mm across, 1.25 mm along, triangles 1.2 mm high, below
        // 3·η(1) = 1.5 mm
        let e =
            knot("[contact]\nthickness = 0.0005", "size = 0.2, tail = 0.05, width = 0.01, segments = 800, across = 3")
                .map(drop)
                .expect_err("refused");
        assert_eq!(e.place.as_deref(), Some("body[0] \"k\".mesh.segments"), "{e}");
        assert!(e.message.contains("mesh neighbours") && e.message.contains("fewer `segments`"), "{e}");
        let e =
            knot("[contact]\nthickness = 0.0005", "size = 0.2, tail = 0.05, width = 0.01, segments = 150, across = 12")
                .map(drop)
                .expect_err("refused");
        assert_eq!(e.place.as_deref(), Some("body[0] \"k\".mesh.across"), "{e}");
        // the same mesh is fine with thinner layers
        assert!(knot(
            "[contact]\nthickness = 0.0001",
            "size = 0.2, tail = 0.05, width = 0.01, segments = 800, across = 3"
        )
        .is_ok());
        // the same resolution on a tight knot: the bends squeeze the triangles, and `size` is named
        let e =
            knot("[contact]\nthickness = 0.0005", "size = 0.07, tail = 0.05, width = 0.01, segments = 300, across = 3")
                .map(drop)
                .expect_err("refused");
        assert_eq!(e.place.as_deref(), Some("body[0] \"k\".mesh.size"), "{e}");
        assert!(e.message.contains("bends too sharply"), "{e}");
    }

    #[test]
    fn a_reef_knot_builds_two_ribbons_and_one_too_wide_for_its_size_is_refused() {
        let text = |width: f64| {
            format!(
                "[contact]\nthickness = 0.00025\n[[body]]\nname = \"k\"\nkind = \"shell\"\ndensity = 0.4\n\
                 stretching = 400.0\nmesh = {{ generator = \"knot\", shape = \"reef\", size = 0.034, tail = 0.02, \
                 width = {width}, segments = 100, across = 3 }}"
            )
        };
        let s = parse(&text(0.01), "t.toml", Path::new("."), "t".into()).unwrap();
        assert_eq!(s.model.vertices.len(), 2 * 101 * 3);
        // wider ribbons on the same knot: the legs of one ribbon overlap
        let e = parse(&text(0.014), "t.toml", Path::new("."), "t".into()).map(drop).expect_err("refused");
        assert_eq!(e.place.as_deref(), Some("body[0] \"k\".mesh.size"), "{e}");
        assert!(e.message.contains("too tight") && e.message.contains("`width` smaller"), "{e}");
    }

    #[test]
    fn an_unknown_shape_is_refused_with_the_shapes_there_are() {
        let text = "[[body]]\nname = \"k\"\nkind = \"shell\"\ndensity = 0.4\nstretching = 400.0\n\
                    mesh = { generator = \"knot\", shape = \"granny\", size = 0.07, tail = 0.05, width = 0.01, segments = 80 }";
        let e = parse(text, "t.toml", Path::new("."), "t".into()).map(drop).expect_err("refused");
        assert_eq!(e.place.as_deref(), Some("body[0] \"k\".mesh.shape"), "{e}");
        assert!(e.message.contains("\"overhand\"") && e.message.contains("\"reef\""), "{e}");
    }
}
