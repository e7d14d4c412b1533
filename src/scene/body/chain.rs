//! `kind = "chain"`: vertices on a line joined edge by edge by springs (the Fermi–Pasta–Ulam
//! chain) or by neo-Hookean bars, with optional damping of every edge's length.

use super::mesh::transform_points;
use super::{BodySpec, Geometry, Kind, Motion, Placed};
use crate::force::ForceSpec;
use crate::math::{Real, Vec3};
use crate::mesh;
use crate::model::BodyKind;
use crate::potential::{Damping, NeoHookeanBar, Potential, Spring, StrainMeasure};
use crate::scene::context::Ctx;
use crate::scene::schema::{Generator, MeshSpec, ScriptSpec, Transform};
use crate::scene::SceneError;
use serde::Deserialize;
use std::path::Path;

/// The keys of a chain. The order of the fields is the order messages list them in.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ChainBody {
    /// Placement.
    #[serde(default)]
    transform: Transform,
    /// `{ generator = "line", … }`.
    mesh: Option<MeshSpec>,
    /// Mass of every vertex, kg.
    mass: Option<f64>,
    /// Inextensibility slack s in (0, 1) (ACM §7; AVI with `[contact]`).
    inextensible: Option<f64>,
    /// Spring stiffnesses, cycled along the chain, N/m.
    spring_stiffness: Option<Vec<f64>>,
    /// Quartic stiffnesses, cycled along the chain, N/m³.
    spring_quartic: Option<Vec<f64>>,
    /// Viscous damping of every edge's length rate, N·s/m.
    spring_damping: Option<f64>,
    /// `"spring"` (the default) or `"neo-hookean"`.
    material: Option<String>,
    /// Axial stiffness EA of a neo-Hookean chain, N.
    axial_stiffness: Option<f64>,
    /// Clock period of the springs or bars, s (default: stable estimate).
    stretch_period: Option<f64>,
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

impl Kind for ChainBody {
    const NAME: &'static str = "chain";
}

/// How a chain's edges resist stretching.
enum ChainLaw {
    /// Springs, stiffnesses cycled along the chain.
    Springs { stiffness: Vec<Real>, quartic: Vec<Real> },
    /// Neo-Hookean bars of axial stiffness EA (N).
    NeoHookean { axial_stiffness: Real },
}

impl BodySpec for ChainBody {
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

    fn geometry(&self, ctx: &Ctx, place: &str, _base: &Path) -> Result<Geometry, SceneError> {
        let points = match &self.mesh {
            Some(MeshSpec::Generator(Generator::Line { start, end, segments })) => {
                let (s, e) = (ctx.finite_vec(place, "mesh.start", *start)?, ctx.finite_vec(place, "mesh.end", *end)?);
                let line = mesh::line(s, e, *segments).map_err(|e| ctx.err(format!("{place}.mesh"), e.to_string()))?;
                transform_points(ctx, place, "mesh", &self.transform, line)?
            }
            _ => {
                return Err(ctx.err(
                    format!("{place}.mesh"),
                    "a chain needs mesh = { generator = \"line\", start = [..], end = [..], segments = N }",
                ))
            }
        };
        let m = ctx.positive(place, "mass", self.mass, "give the mass of each chain vertex in kg")?;
        let n = points.len();
        let edges = (0..n as u32 - 1).map(|k| [k, k + 1]).collect();
        Ok(Geometry {
            kind: BodyKind::Chain { edges },
            positions: points,
            masses: vec![m; n],
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
        let BodyKind::Chain { edges } = body.kind else { unreachable!("a chain builds a chain") };
        let law = self.law(ctx, place, edges.len())?;
        let damping = ctx.non_negative(place, "spring_damping", self.spring_damping, "damping coefficients are ≥ 0")?;
        let period = ctx.period(place, "stretch_period", self.stretch_period, body.common_period)?;
        let damping_period = ctx.period(place, "damping_period", self.damping_period, body.common_period)?;
        for (e, [i, j]) in edges.iter().enumerate() {
            let (a, bb) = (body.global(*i), body.global(*j));
            let ends = [body.positions[*i as usize], body.positions[*j as usize]];
            let rest = (ends[1] - ends[0]).norm();
            // damping acts on the edge's length, whatever the law
            let length = |k| Spring::new(a, bb, k, 0.0, rest);
            let potential: Box<dyn Potential> = match &law {
                ChainLaw::Springs { stiffness, quartic } => {
                    let (k, k4) = (stiffness[e % stiffness.len()], quartic[e % quartic.len()]);
                    if damping > 0.0 {
                        let d = Damping::new(StrainMeasure::Length(length(k)), damping, &ends);
                        forces.push(ForceSpec::new(Box::new(d), damping_period));
                    }
                    Box::new(Spring::new(a, bb, k, k4, rest))
                }
                ChainLaw::NeoHookean { axial_stiffness } => {
                    if damping > 0.0 {
                        let d = Damping::new(StrainMeasure::Length(length(0.0)), damping, &ends);
                        forces.push(ForceSpec::new(Box::new(d), damping_period));
                    }
                    Box::new(NeoHookeanBar::new(a, bb, *axial_stiffness, rest))
                }
            };
            forces.push(ForceSpec::new(potential, period));
        }
        Ok(())
    }
}

impl ChainBody {
    /// The chain's `material` and its keys: `"spring"` (the default) with `spring_stiffness` and
    /// `spring_quartic` (none of the `springs` edges may have both zero), or `"neo-hookean"` with
    /// `axial_stiffness`.
    fn law(&self, ctx: &Ctx, place: &str, springs: usize) -> Result<ChainLaw, SceneError> {
        match self.material.as_deref() {
            None | Some("spring") => {
                if self.axial_stiffness.is_some() {
                    return Err(ctx.err(
                        format!("{place}.axial_stiffness"),
                        "applies to material = \"neo-hookean\" chains only; set the material or use spring_stiffness",
                    ));
                }
                let stiffness = self.spring_stiffness.clone().ok_or_else(|| {
                    ctx.err(place.to_string(), "`spring_stiffness` is required for a chain: a list of N/m values cycled along the chain, e.g. [1e4, 1.0]")
                })?;
                let quartic = self.spring_quartic.clone().unwrap_or_else(|| vec![0.0]);
                for (key, list) in [("spring_stiffness", &stiffness), ("spring_quartic", &quartic)] {
                    if list.is_empty() || list.iter().any(|k| !(k.is_finite() && *k >= 0.0)) {
                        return Err(ctx.err(
                            format!("{place}.{key}"),
                            format!("must be a non-empty list of finite numbers ≥ 0, got {list:?}"),
                        ));
                    }
                }
                if let Some(e) =
                    (0..springs).find(|e| stiffness[e % stiffness.len()] == 0.0 && quartic[e % quartic.len()] == 0.0)
                {
                    return Err(ctx.err(
                        format!("{place}.spring_stiffness"),
                        format!(
                            "spring {e} has zero linear and zero quartic stiffness; every spring needs one of them > 0"
                        ),
                    ));
                }
                Ok(ChainLaw::Springs { stiffness, quartic })
            }
            Some("neo-hookean") => {
                for (key, present) in [
                    ("spring_stiffness", self.spring_stiffness.is_some()),
                    ("spring_quartic", self.spring_quartic.is_some()),
                ] {
                    if present {
                        return Err(ctx.err(
                            format!("{place}.{key}"),
                            "does not apply to a material = \"neo-hookean\" chain; give its axial_stiffness (N) instead",
                        ));
                    }
                }
                let axial_stiffness = ctx.positive(
                    place,
                    "axial_stiffness",
                    self.axial_stiffness,
                    "give the bar's axial stiffness EA in N (Young's modulus × cross-section)",
                )?;
                Ok(ChainLaw::NeoHookean { axial_stiffness })
            }
            Some(other) => Err(ctx.err(
                format!("{place}.material"),
                format!("unknown chain material \"{other}\"; use \"spring\" or \"neo-hookean\""),
            )),
        }
    }
}
