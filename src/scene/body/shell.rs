//! `kind = "shell"`: a thin shell of triangles with a membrane per triangle, a hinge per interior
//! edge (with `bending`), and their damping.

use super::mesh::load_mesh;
use super::{BodySpec, Geometry, Kind, Motion, Placed};
use crate::force::ForceSpec;
use crate::math::{Compact, Vec3};
use crate::mesh;
use crate::model::BodyKind;
use crate::potential::{Damping, Hinge, Membrane, MembraneMaterial, StrainMeasure};
use crate::scene::context::Ctx;
use crate::scene::schema::{Generator, MeshSpec, ScriptSpec, Transform};
use crate::scene::SceneError;
use serde::Deserialize;
use std::path::Path;

/// The keys of a shell. The order of the fields is the order messages list them in.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ShellBody {
    /// Placement.
    #[serde(default)]
    transform: Transform,
    /// A generator table (not `line` or `ball`) or an OBJ path relative to the scene file.
    mesh: Option<MeshSpec>,
    /// Mass per area, kg/m².
    density: Option<f64>,
    /// Membrane (2D Young's) modulus, N/m.
    stretching: Option<f64>,
    /// The membrane's Poisson ratio.
    poisson_ratio: Option<f64>,
    /// Hinge stiffness, N·m.
    bending: Option<f64>,
    /// Viscous damping of the membrane strain rate.
    stretch_damping: Option<f64>,
    /// Viscous damping of the bending-angle rate.
    bend_damping: Option<f64>,
    /// Yield angle of plastic hinges, rad (none: elastic).
    bending_yield: Option<f64>,
    /// Inextensibility slack s in (0, 1) (ACM §7; AVI with `[contact]`).
    inextensible: Option<f64>,
    /// Clock period of the membranes, s (default: stable estimate).
    stretch_period: Option<f64>,
    /// Clock period of the hinges, s.
    bend_period: Option<f64>,
    /// Clock period of the damping potentials, s.
    damping_period: Option<f64>,
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

impl Kind for ShellBody {
    const NAME: &'static str = "shell";
}

impl BodySpec for ShellBody {
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

    fn inextensible(&self) -> Option<f64> {
        self.inextensible
    }

    fn geometry(&self, ctx: &Ctx, place: &str, base: &Path) -> Result<Geometry, SceneError> {
        let mesh = load_mesh(ctx, place, self.mesh.as_ref(), &self.transform, base)?;
        if !matches!(self.mesh, Some(MeshSpec::Generator(Generator::Knot { .. }))) {
            // a generated knot refuses such a start itself (`knot.rs`)
            super::rest_gaps::warn_close_neighbours(ctx, &format!("{place}.mesh"), &mesh);
        }
        let density = ctx.positive(place, "density", self.density, "give the shell's mass per area in kg/m²")?;
        let masses = mesh.lumped_masses(density);
        if let Some(i) = masses.iter().position(|&w| w <= 0.0) {
            return Err(ctx.err(
                format!("{place}.mesh"),
                format!("vertex {i} belongs to no triangle, so it has no mass; remove unused vertices"),
            ));
        }
        let n = mesh.positions.len();
        Ok(Geometry {
            kind: BodyKind::Shell { triangles: mesh.triangles },
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
        let BodyKind::Shell { triangles } = body.kind else { unreachable!("a shell builds a shell") };
        let stretching = ctx.positive(
            place,
            "stretching",
            self.stretching,
            "give the membrane stiffness (2D Young's modulus) in N/m",
        )?;
        let poisson = self.poisson_ratio.unwrap_or(0.3);
        if !(poisson > -1.0 && poisson < 0.5) {
            return Err(
                ctx.err(format!("{place}.poisson_ratio"), format!("must be in (-1, 0.5), got {}", Compact(poisson)))
            );
        }
        let bending =
            ctx.non_negative(place, "bending", self.bending, "the hinge stiffness is ≥ 0 (0 turns bending off)")?;
        let stretch_damping =
            ctx.non_negative(place, "stretch_damping", self.stretch_damping, "damping coefficients are ≥ 0")?;
        let bend_damping =
            ctx.non_negative(place, "bend_damping", self.bend_damping, "damping coefficients are ≥ 0")?;
        let bending_yield = match self.bending_yield {
            None => None,
            Some(y) if y.is_finite() && y > 0.0 => Some(y),
            Some(y) => {
                return Err(ctx.err(
                    format!("{place}.bending_yield"),
                    format!("must be a finite angle in radians > 0 (the hinges yield beyond it), got {}", Compact(y)),
                ))
            }
        };
        if bending_yield.is_some() && bending == 0.0 {
            return Err(ctx.err(
                format!("{place}.bending_yield"),
                "plastic hinges need `bending` > 0: give the hinge stiffness, or remove bending_yield".to_string(),
            ));
        }
        let stretch_period = ctx.period(place, "stretch_period", self.stretch_period, body.common_period)?;
        let bend_period = ctx.period(place, "bend_period", self.bend_period, body.common_period)?;
        let damping_period = ctx.period(place, "damping_period", self.damping_period, body.common_period)?;
        let material = MembraneMaterial { youngs_modulus: stretching, poisson_ratio: poisson };
        for (t, tri) in triangles.iter().enumerate() {
            let ids = tri.map(|i| body.global(i));
            let rest = tri.map(|i| body.positions[i as usize]);
            let membrane = Membrane::new(ids, rest, &material).ok_or_else(|| {
                ctx.err(
                    format!("{place}.mesh"),
                    format!("triangle {t} {tri:?} is degenerate (zero area); remove or fix it"),
                )
            })?;
            if stretch_damping > 0.0 {
                let d = Damping::new(StrainMeasure::GreenStrain(membrane.clone()), stretch_damping, &rest);
                forces.push(ForceSpec::new(Box::new(d), damping_period));
            }
            forces.push(ForceSpec::new(Box::new(membrane), stretch_period));
        }
        if bending > 0.0 || bend_damping > 0.0 {
            for hinge in mesh::hinges(triangles) {
                let ids = hinge.map(|i| body.global(i));
                let rest = hinge.map(|i| body.positions[i as usize]);
                let h = Hinge::new(ids, rest, bending).ok_or_else(|| {
                    ctx.err(
                        format!("{place}.mesh"),
                        format!("the hinge on vertices {hinge:?} has a degenerate triangle; fix the mesh"),
                    )
                })?;
                if bend_damping > 0.0 {
                    let d = Damping::new(StrainMeasure::DihedralAngle(h.clone()), bend_damping, &rest);
                    forces.push(ForceSpec::new(Box::new(d), damping_period));
                }
                if bending > 0.0 {
                    let h = match bending_yield {
                        Some(y) => h.with_yield(y),
                        None => h,
                    };
                    forces.push(ForceSpec::new(Box::new(h), bend_period));
                }
            }
        }
        Ok(())
    }
}
