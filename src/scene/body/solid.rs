//! `kind = "solid"`: a volumetric solid of linear tetrahedra (neo-Hookean or corotated), each a
//! potential on its own clock; frames write its boundary surface.

use super::mesh::transform_points;
use super::{BodySpec, Geometry, Kind, Motion, Placed};
use crate::force::ForceSpec;
use crate::math::{Compact, Vec3};
use crate::mesh::{self, TetMesh};
use crate::model::BodyKind;
use crate::potential::{Lame, SolidMaterial, Tetrahedron};
use crate::scene::context::Ctx;
use crate::scene::schema::{BoxResolution, Generator, MeshSpec, ScriptSpec, Transform};
use crate::scene::SceneError;
use serde::Deserialize;
use std::path::Path;

/// The keys of a solid. The order of the fields is the order messages list them in.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SolidBody {
    /// Placement.
    #[serde(default)]
    transform: Transform,
    /// The `box` or `ball` generator, or a TetGen `.node`/`.ele` path relative to the scene file.
    mesh: Option<MeshSpec>,
    /// Mass per volume, kg/m³.
    density: Option<f64>,
    /// `"neo-hookean"` (the default) or `"corotated"`.
    material: Option<String>,
    /// Young's modulus, Pa.
    youngs_modulus: Option<f64>,
    /// Poisson ratio.
    poisson_ratio: Option<f64>,
    /// Clock period of the tetrahedra, s (default: stable estimate).
    stretch_period: Option<f64>,
    /// `"explicit"` (the default: every potential on its own clock) or `"phantom"` (the elastic
    /// and damping potentials on a phantom mesh with one implicit step, Phantom §3.2).
    integration: Option<String>,
    /// Initial velocity, m/s.
    #[serde(default)]
    #[serde(deserialize_with = "crate::scene::exact::array")]
    velocity: [f64; 3],
    /// Initial rigid spin about the centre of mass, rad/s.
    #[serde(default)]
    #[serde(deserialize_with = "crate::scene::exact::array")]
    angular_velocity: [f64; 3],
    /// Per-vertex initial velocities, m/s.
    #[serde(default, deserialize_with = "crate::scene::exact::option_list")]
    velocities: Option<Vec<[f64; 3]>>,
    /// Held vertex indices.
    #[serde(default)]
    fixed: Vec<i64>,
    /// Scripted linear motions.
    #[serde(default)]
    scripted: Vec<ScriptSpec>,
}

impl Kind for SolidBody {
    const NAME: &'static str = "solid";
}

impl BodySpec for SolidBody {
    fn integration(&self) -> Option<&str> {
        self.integration.as_deref()
    }

    fn motion(&self) -> Motion<'_> {
        Motion {
            velocity: self.velocity,
            angular_velocity: self.angular_velocity,
            velocities: self.velocities.as_deref(),
            fixed: &self.fixed,
            scripted: &self.scripted,
        }
    }

    fn geometry(&self, ctx: &Ctx, place: &str, base: &Path) -> Result<Geometry, SceneError> {
        let mesh = self.tet_mesh(ctx, place, base)?;
        let density = ctx.positive(place, "density", self.density, "give the solid's mass per volume in kg/m³")?;
        let masses = mesh.lumped_masses(density);
        if let Some(i) = masses.iter().position(|&w| w <= 0.0) {
            return Err(ctx.err(
                format!("{place}.mesh"),
                format!("vertex {i} belongs to no tetrahedron, so it has no mass; remove unused vertices"),
            ));
        }
        let n = mesh.positions.len();
        let triangles = mesh.boundary();
        Ok(Geometry {
            kind: BodyKind::Solid { tets: mesh.tets, triangles },
            positions: mesh.positions,
            masses,
            velocities: vec![Vec3::zeros(); n],
        })
    }

    fn potentials(
        &self,
        ctx: &Ctx,
        place: &str,
        body: &Placed<'_>,
        forces: &mut Vec<ForceSpec>,
    ) -> Result<(), SceneError> {
        let BodyKind::Solid { tets, .. } = body.kind else { unreachable!("a solid builds a solid") };
        let material = match self.material.as_deref() {
            None | Some("neo-hookean") => SolidMaterial::NeoHookean,
            Some("corotated") => SolidMaterial::Corotated,
            Some(other) => {
                return Err(ctx.err(
                    format!("{place}.material"),
                    format!("unknown material \"{other}\"; use \"neo-hookean\" or \"corotated\""),
                ))
            }
        };
        let young = ctx.positive(place, "youngs_modulus", self.youngs_modulus, "give Young's modulus in Pa")?;
        let poisson = self.poisson_ratio.unwrap_or(0.3);
        if !(poisson > -1.0 && poisson < 0.5) {
            return Err(
                ctx.err(format!("{place}.poisson_ratio"), format!("must be in (-1, 0.5), got {}", Compact(poisson)))
            );
        }
        let lame = Lame::from_young_poisson(young, poisson);
        let period = ctx.period(place, "stretch_period", self.stretch_period, body.common_period)?;
        for (t, tet) in tets.iter().enumerate() {
            let rest = tet.map(|i| body.positions[i as usize]);
            let element = Tetrahedron::new(tet.map(|i| body.global(i)), rest, material, lame).ok_or_else(|| {
                ctx.err(
                    format!("{place}.mesh"),
                    format!("tetrahedron {t} {tet:?} is degenerate (zero volume); fix the mesh"),
                )
            })?;
            forces.push(ForceSpec::new(Box::new(element), period));
        }
        Ok(())
    }
}

impl SolidBody {
    /// The tetrahedral mesh: the `box` generator (also for bars), the `ball` generator or a
    /// TetGen `.node`/`.ele` pair; placed by `transform`.
    fn tet_mesh(&self, ctx: &Ctx, place: &str, base: &Path) -> Result<TetMesh, SceneError> {
        let key = format!("{place}.mesh");
        let mut m = match &self.mesh {
            None => {
                return Err(
                    ctx.err(place.to_string(), "`mesh` is required: a box generator or a TetGen .node/.ele file")
                )
            }
            Some(MeshSpec::File(f)) => {
                let path = base.join(f);
                if !matches!(path.extension().and_then(|e| e.to_str()), Some("ele" | "node")) {
                    return Err(ctx.err(
                        &key,
                        format!(
                            "{f}: a solid needs a tetrahedral mesh: a TetGen NAME.node / NAME.ele pair (give either file)"
                        ),
                    ));
                }
                mesh::read_tetgen(&path).map_err(|e| ctx.err(&key, e.to_string()))?
            }
            Some(MeshSpec::Generator(Generator::Box { size, resolution })) => {
                let r = match resolution {
                    None => [1, 1, 1],
                    Some(BoxResolution::Uniform(n)) => [*n; 3],
                    Some(BoxResolution::PerAxis(r)) => *r,
                };
                mesh::box_tets(*size, r).map_err(|e| ctx.err(&key, e.to_string()))?
            }
            Some(MeshSpec::Generator(Generator::Ball { radius, resolution })) => {
                mesh::ball_tets(*radius, *resolution).map_err(|e| ctx.err(&key, e.to_string()))?
            }
            Some(MeshSpec::Generator(_)) => {
                return Err(ctx.err(
                    &key,
                    "solids are meshed by the box generator (boxes and bars), the ball generator or a TetGen file",
                ))
            }
        };
        m.positions = transform_points(ctx, place, "mesh", &self.transform, std::mem::take(&mut m.positions))?;
        Ok(m)
    }
}
