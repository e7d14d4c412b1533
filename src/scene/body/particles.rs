//! `kind = "particles"`: free spheres of one radius and mass, at listed points or on a seeded
//! lattice; their only potential is gravity.

use super::mesh::transform_points;
use super::{BodySpec, Geometry, Kind, Motion};
use crate::math::{Compact, Vec3};
use crate::mesh;
use crate::model::BodyKind;
use crate::scene::context::Ctx;
use crate::scene::schema::{ParticleGenerator, PositionsSpec, ScriptSpec, Transform};
use crate::scene::SceneError;
use serde::Deserialize;
use std::path::Path;

/// The keys of a particle set. The order of the fields is the order messages list them in.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ParticlesBody {
    /// Placement.
    #[serde(default)]
    transform: Transform,
    /// Particle radius, m.
    radius: Option<f64>,
    /// Mass of every particle, kg.
    mass: Option<f64>,
    /// A list of points or a lattice generator.
    positions: Option<PositionsSpec>,
    /// Initial velocity, m/s.
    #[serde(default)]
    #[serde(deserialize_with = "crate::scene::exact::array")]
    velocity: [f64; 3],
    /// Initial rigid spin about the centre of mass, rad/s.
    #[serde(default)]
    #[serde(deserialize_with = "crate::scene::exact::array")]
    angular_velocity: [f64; 3],
    /// Per-particle initial velocities, m/s.
    #[serde(default, deserialize_with = "crate::scene::exact::option_list")]
    velocities: Option<Vec<[f64; 3]>>,
    /// Held particle indices.
    #[serde(default)]
    fixed: Vec<i64>,
    /// Scripted linear motions.
    #[serde(default)]
    scripted: Vec<ScriptSpec>,
}

impl Kind for ParticlesBody {
    const NAME: &'static str = "particles";
}

impl BodySpec for ParticlesBody {
    fn motion(&self) -> Motion<'_> {
        Motion {
            velocity: self.velocity,
            angular_velocity: self.angular_velocity,
            velocities: self.velocities.as_deref(),
            fixed: &self.fixed,
            scripted: &self.scripted,
        }
    }

    fn geometry(&self, ctx: &Ctx, place: &str, _base: &Path) -> Result<Geometry, SceneError> {
        let radius = ctx.positive(place, "radius", self.radius, "give the particle radius in metres")?;
        let (lo, hi) = super::mesh::SIZE_RANGE;
        if !(lo..=hi).contains(&radius) {
            return Err(ctx.err(
                format!("{place}.radius"),
                format!(
                    "{} m is outside the sizes a body may have ({} m to {} m: contact distances are radius sums, \
                     and their squares must neither underflow nor overflow f64); give the radius in metres",
                    Compact(radius),
                    Compact(lo),
                    Compact(hi)
                ),
            ));
        }
        let m = ctx.positive(place, "mass", self.mass, "give the mass of each particle in kg")?;
        let (points, velocities) = self.points(ctx, place)?;
        let n = points.len();
        Ok(Geometry { kind: BodyKind::Particles { radius }, positions: points, masses: vec![m; n], velocities })
    }
}

impl ParticlesBody {
    /// The placed points, with the lattice's random velocities (zeros for a list).
    fn points(&self, ctx: &Ctx, place: &str) -> Result<(Vec<Vec3>, Vec<Vec3>), SceneError> {
        let key = format!("{place}.positions");
        let (points, velocities) = match &self.positions {
            None => {
                return Err(ctx.err(
                    place.to_string(),
                    "`positions` is required for particles: a list of points or a lattice generator",
                ))
            }
            Some(PositionsSpec::List(list)) => {
                let pts: Vec<Vec3> = list.iter().map(|p| ctx.finite_vec(&key, "[…]", *p)).collect::<Result<_, _>>()?;
                if pts.is_empty() {
                    return Err(ctx.err(&key, "the list is empty; give at least one point"));
                }
                let n = pts.len();
                (pts, vec![Vec3::zeros(); n])
            }
            Some(PositionsSpec::Generator(ParticleGenerator::Lattice { min, max, count, seed, max_speed })) => {
                let lo = ctx.finite_vec(&key, "min", *min)?;
                let hi = ctx.finite_vec(&key, "max", *max)?;
                if (0..3).any(|k| hi[k].is_nan() || lo[k].is_nan() || hi[k] < lo[k]) {
                    return Err(ctx.err(format!("{key}.max"), "must be ≥ `min` on every axis"));
                }
                if *count == 0 {
                    return Err(ctx.err(format!("{key}.count"), "must be at least 1"));
                }
                if !(max_speed.is_finite() && *max_speed >= 0.0) {
                    return Err(ctx.err(
                        format!("{key}.max_speed"),
                        format!("must be a finite speed ≥ 0, got {}", Compact(*max_speed)),
                    ));
                }
                mesh::lattice(lo, hi, *count, *seed, *max_speed).map_err(|e| ctx.err(&key, e.to_string()))?
            }
        };
        Ok((transform_points(ctx, place, "positions", &self.transform, points)?, velocities))
    }
}
