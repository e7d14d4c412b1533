//! A body's surface mesh (generators and OBJ files, for shells and obstacles) and the placement
//! every kind applies to its points (`transform`).

use crate::math::{Compact, Real, Vec3};
use crate::mesh::{self, TriMesh};
use crate::scene::context::{quoted_or, Ctx};
use crate::scene::schema::{BoxResolution, Generator, MeshSpec, Transform};
use crate::scene::SceneError;
use nalgebra::Rotation3;
use std::path::Path;

/// Relative area below which a triangle counts as degenerate (area ≤ tol · longest edge²).
const DEGENERATE_TOLERANCE: Real = 1e-10;

/// Spline samples per piece between a smooth ribbon's path points, before the sweep resamples
/// them at even arc length.
const RIBBON_SAMPLES_PER_PIECE: u32 = 32;

/// A shell's or obstacle's triangle mesh, placed by `transform`: any generator but `line` and
/// `ball`, or an OBJ file relative to `base`; degenerate triangles are refused.
pub(super) fn load_mesh(
    ctx: &Ctx,
    place: &str,
    spec: Option<&MeshSpec>,
    transform: &Transform,
    base: &Path,
) -> Result<TriMesh, SceneError> {
    let key = format!("{place}.mesh");
    let generated = |r: Result<TriMesh, mesh::GeneratorError>| r.map_err(|e| ctx.err(&key, e.to_string()));
    let mut m = match spec {
        None => return Err(ctx.err(place.to_string(), "`mesh` is required: a generator table or an OBJ path")),
        Some(MeshSpec::File(f)) => {
            let path = base.join(f);
            mesh::read_obj(&path).map_err(|e| ctx.err(&key, format!("{}: {e}", path.display())))?
        }
        Some(MeshSpec::Generator(g)) => match g {
            Generator::Grid { size, resolution } => generated(mesh::grid(*size, *resolution))?,
            Generator::Plane { size } => generated(mesh::grid(*size, [2, 2]))?,
            Generator::Icosphere { radius, subdivisions } => generated(mesh::icosphere(*radius, *subdivisions))?,
            Generator::Box { size, resolution } => {
                let n = match resolution {
                    None => 1,
                    Some(BoxResolution::Uniform(n)) => *n,
                    Some(BoxResolution::PerAxis(r)) => *r.iter().max().unwrap_or(&1),
                };
                generated(mesh::box_surface(*size, n))?
            }
            Generator::Cylinder { radius, height, segments, rings, caps } => {
                generated(mesh::cylinder(*radius, *height, *segments, *rings, *caps))?
            }
            Generator::Hat { radius, height, brim, segments, rings } => {
                generated(mesh::hat(*radius, *height, *brim, *segments, *rings))?
            }
            Generator::Ribbon { width, segments, path, across, twist, smooth } => {
                let pts: Vec<Vec3> = path.iter().map(|p| ctx.finite_vec(&key, "path", *p)).collect::<Result<_, _>>()?;
                let strip = mesh::Sweep { width: *width, segments: *segments, across: *across, twist_deg: *twist };
                if *smooth {
                    generated(mesh::catmull_rom(&pts, RIBBON_SAMPLES_PER_PIECE).and_then(|c| mesh::sweep(&strip, &c)))?
                } else {
                    generated(mesh::sweep(&strip, &pts))?
                }
            }
            Generator::Knot { shape, size, tail, width, segments, across, twist } => {
                let Some(shape) = mesh::KnotShape::from_name(shape) else {
                    let names: Vec<&str> = mesh::KnotShape::NAMES.iter().map(|(n, _)| *n).collect();
                    return Err(ctx.err(
                        format!("{key}.shape"),
                        format!("unknown knot shape \"{shape}\"; use {}", quoted_or(&names)),
                    ));
                };
                let strip = mesh::Sweep { width: *width, segments: *segments, across: *across, twist_deg: *twist };
                generated(mesh::knot(shape, *size, *tail, &strip))?
            }
            Generator::Platonic { solid, radius, subdivisions } => {
                let Some(solid) = mesh::Platonic::from_name(solid) else {
                    let names: Vec<&str> = mesh::Platonic::NAMES.iter().map(|(n, _)| *n).collect();
                    return Err(ctx.err(
                        format!("{key}.solid"),
                        format!("unknown platonic solid \"{solid}\"; use {}", quoted_or(&names)),
                    ));
                };
                generated(mesh::platonic(solid, *radius, *subdivisions))?
            }
            Generator::Torus { major, minor, segments, sides } => {
                generated(mesh::torus(*major, *minor, *segments, *sides))?
            }
            Generator::Spikes { size, count, height, apex_deg } => {
                generated(mesh::spikes(*size, *count, *height, *apex_deg))?
            }
            Generator::Line { .. } => {
                return Err(ctx.err(&key, "the line generator is for chains; shells and obstacles need triangles"))
            }
            Generator::Ball { .. } => {
                return Err(ctx.err(&key, "the ball generator is for solids; use icosphere for a spherical surface"))
            }
        },
    };
    m.positions = transform_points(ctx, place, "mesh", transform, std::mem::take(&mut m.positions))?;
    if let Some(t) = m.triangles.iter().position(|t| t.iter().any(|&i| i as usize >= m.positions.len())) {
        return Err(ctx.err(&key, format!("triangle {t} refers to a vertex that does not exist")));
    }
    if let Some(t) = m.find_degenerate_triangle(DEGENERATE_TOLERANCE) {
        let fix = match spec {
            Some(MeshSpec::Generator(_)) => {
                "the generator's keys make slivers: one of its lengths or angles is far smaller than the others \
                 (an area at most 1e-10 of the longest edge squared); make it larger"
            }
            _ => "fix the mesh",
        };
        return Err(
            ctx.err(&key, format!("triangle {t} {:?} is degenerate (zero or near-zero area); {fix}", m.triangles[t]))
        );
    }
    if let Some(MeshSpec::Generator(Generator::Knot { width, across, segments, .. })) = spec {
        // after the transform: its scale changes the gaps, not η(1)
        super::knot::check_gaps(ctx, &key, &m, *across, segments + 1, *width * transform.scale)?;
    }
    Ok(m)
}

/// The sizes a body may have, m (its size: the largest distance of a point from its first
/// point). Lengths multiply in the potentials: a triangle's area is size², the cross product
/// behind it size⁴, a tetrahedron's volume size³; between 1e-50 and 1e50 m all of these are
/// normal f64 numbers. Outside, areas underflow to 0 or overflow to ∞ and a sound mesh would
/// be refused as degenerate.
pub(super) const SIZE_RANGE: (Real, Real) = (1e-50, 1e50);

/// The largest distance of a point of `points` from the first one (0 for fewer than two; ∞
/// when a difference of coordinates overflows): invariant under rotation and translation, and multiplied by
/// `scale`.
fn size(points: &[Vec3]) -> Real {
    let Some(first) = points.first() else { return 0.0 };
    let distance = |p: &Vec3| {
        // scaled by the largest component, so that squaring neither underflows nor overflows
        let d = p - first;
        let m = d.amax();
        if m > 0.0 && m.is_finite() {
            m * (d / m).norm()
        } else if m == 0.0 {
            0.0
        } else {
            Real::INFINITY
        }
    };
    points.iter().map(distance).fold(0.0, Real::max)
}

/// Places `points` (given by the key `source`: `mesh` or `positions`): scale, then rotate about
/// x, y and z (degrees), then translate. Refuses a placement that leaves the body outside
/// [`SIZE_RANGE`] (naming `transform.scale`, or `source` when the points themselves are out of
/// range), or puts it so far from the origin that its coordinates leave the range or its shape
/// is lost to round-off (naming `transform.translate`, or `source`).
pub(super) fn transform_points(
    ctx: &Ctx,
    place: &str,
    source: &str,
    t: &Transform,
    mut points: Vec<Vec3>,
) -> Result<Vec<Vec3>, SceneError> {
    let translate = ctx.finite_vec(place, "transform.translate", t.translate)?;
    let angles = ctx.finite_vec(place, "transform.rotate_deg", t.rotate_deg)?.map(|a| a.to_radians());
    if !(t.scale.is_finite() && t.scale > 0.0) {
        return Err(ctx.err(
            format!("{place}.transform.scale"),
            format!("must be a finite number > 0, got {}", Compact(t.scale)),
        ));
    }
    let (lo, hi) = SIZE_RANGE;
    let before = size(&points);
    let expected = before * t.scale;
    if before > 0.0 && !(lo..=hi).contains(&expected) {
        let why = if expected < lo {
            "at this size a triangle's area or a tetrahedron's volume underflows f64 to 0 (and a sound mesh looks \
             degenerate)"
        } else {
            "at this size areas and volumes overflow f64 to infinity"
        };
        let range = format!("bodies must measure between {} m and {} m", Compact(lo), Compact(hi));
        return Err(if (lo..=hi).contains(&before) {
            ctx.err(
                format!("{place}.transform.scale"),
                format!(
                    "scale {} makes the body {} m across (its points {} m across, times the scale); {why}; \
                     {range}, so give a scale between {} and {}",
                    Compact(t.scale),
                    Compact::rounded(expected, 4),
                    Compact::rounded(before, 4),
                    Compact::rounded(1.001 * lo / before, 4),
                    Compact::rounded(0.999 * hi / before, 4)
                ),
            )
        } else {
            ctx.err(
                format!("{place}.{source}"),
                format!(
                    "the body's points are {} m across{}; {why}; {range}: give its size, coordinates or positions \
                     in metres within that range",
                    if before.is_finite() {
                        Compact::rounded(before, 4).to_string()
                    } else {
                        format!("more than {}", Compact::rounded(Real::MAX, 2))
                    },
                    if t.scale == 1.0 {
                        String::new()
                    } else {
                        format!(" ({} m after scale {})", Compact::rounded(expected, 4), Compact(t.scale))
                    }
                ),
            )
        });
    }
    let r = Rotation3::from_axis_angle(&Vec3::z_axis(), angles.z)
        * Rotation3::from_axis_angle(&Vec3::y_axis(), angles.y)
        * Rotation3::from_axis_angle(&Vec3::x_axis(), angles.x);
    for p in &mut points {
        *p = r * (*p * t.scale) + translate;
    }
    let farthest = points.iter().map(|p| p.amax()).fold(0.0, Real::max);
    let after = size(&points);
    let key = if translate.amax() >= 0.5 * farthest { "transform.translate".to_string() } else { source.to_string() };
    if farthest.is_nan() || farthest > hi {
        return Err(ctx.err(
            format!("{place}.{key}"),
            format!(
                "puts points {} m from the origin; coordinates must stay within ±{} m (products of coordinates, \
                 such as squared distances, overflow f64 beyond)",
                Compact::rounded(farthest, 4),
                Compact(hi)
            ),
        ));
    }
    let drift = (after - expected).abs();
    if expected > 0.0 && (drift.is_nan() || drift > 1e-3 * expected) {
        return Err(ctx.err(
            format!("{place}.{key}"),
            format!(
                "puts the body {} m from the origin, where f64 resolves only about {} m: its shape, {} m across, \
                 collapses under round-off (it would come out {} m across, and its triangles degenerate); keep a \
                 body within about 1e12 times its size of the origin",
                Compact::rounded(farthest, 4),
                Compact::rounded(farthest * Real::EPSILON, 4),
                Compact::rounded(expected, 4),
                Compact::rounded(after, 4)
            ),
        ));
    }
    Ok(points)
}
