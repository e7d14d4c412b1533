//! A body's surface mesh (generators and OBJ files, for shells and obstacles) and the placement
//! every kind applies to its points (`transform`).

use crate::math::{Real, Vec3};
use crate::mesh::{self, TriMesh};
use crate::scene::context::Ctx;
use crate::scene::schema::{BoxResolution, Generator, MeshSpec, Transform};
use crate::scene::SceneError;
use nalgebra::Rotation3;
use std::path::Path;

/// Relative area below which a triangle counts as degenerate (area ≤ tol · longest edge²).
const DEGENERATE_TOLERANCE: Real = 1e-10;

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
            Generator::Cylinder { radius, height, segments } => generated(mesh::cylinder(*radius, *height, *segments))?,
            Generator::Ribbon { width, segments, path } => {
                let pts: Vec<Vec3> = path.iter().map(|p| ctx.finite_vec(&key, "path", *p)).collect::<Result<_, _>>()?;
                generated(mesh::ribbon(*width, *segments, &pts))?
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
    m.positions = transform_points(ctx, place, transform, std::mem::take(&mut m.positions))?;
    if let Some(t) = m.triangles.iter().position(|t| t.iter().any(|&i| i as usize >= m.positions.len())) {
        return Err(ctx.err(&key, format!("triangle {t} refers to a vertex that does not exist")));
    }
    if let Some(t) = m.find_degenerate_triangle(DEGENERATE_TOLERANCE) {
        return Err(ctx.err(
            &key,
            format!("triangle {t} {:?} is degenerate (zero or near-zero area); fix the mesh", m.triangles[t]),
        ));
    }
    Ok(m)
}

/// Places `points`: scale, then rotate about x, y and z (degrees), then translate.
pub(super) fn transform_points(
    ctx: &Ctx,
    place: &str,
    t: &Transform,
    mut points: Vec<Vec3>,
) -> Result<Vec<Vec3>, SceneError> {
    let translate = ctx.finite_vec(place, "transform.translate", t.translate)?;
    let angles = ctx.finite_vec(place, "transform.rotate_deg", t.rotate_deg)?.map(|a| a.to_radians());
    if !(t.scale.is_finite() && t.scale > 0.0) {
        return Err(
            ctx.err(format!("{place}.transform.scale"), format!("must be a finite number > 0, got {}", t.scale))
        );
    }
    let r = Rotation3::from_axis_angle(&Vec3::z_axis(), angles.z)
        * Rotation3::from_axis_angle(&Vec3::y_axis(), angles.y)
        * Rotation3::from_axis_angle(&Vec3::x_axis(), angles.x);
    for p in &mut points {
        *p = r * (*p * t.scale) + translate;
    }
    Ok(points)
}
