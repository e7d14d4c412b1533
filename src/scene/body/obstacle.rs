//! `kind = "obstacle"`: a triangle mesh of infinite mass, every vertex held unless a script moves
//! it; no potentials, no gravity.

use super::mesh::load_mesh;
use super::{BodySpec, Geometry, Kind, Motion};
use crate::math::{Real, Vec3};
use crate::model::BodyKind;
use crate::scene::context::Ctx;
use crate::scene::schema::{MeshSpec, ScriptSpec, Transform};
use crate::scene::SceneError;
use serde::Deserialize;
use std::path::Path;

/// The keys of an obstacle. `velocity`, `angular_velocity` and `fixed` are taken only where they
/// say nothing (`[0, 0, 0]`, `[]`): an obstacle is held.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ObstacleBody {
    /// Placement.
    #[serde(default)]
    transform: Transform,
    /// A generator table (not `line` or `ball`) or an OBJ path relative to the scene file.
    mesh: Option<MeshSpec>,
    /// Scripted linear motions.
    #[serde(default)]
    scripted: Vec<ScriptSpec>,
    /// Refused unless zero.
    #[serde(default)]
    #[serde(deserialize_with = "crate::scene::exact::array")]
    velocity: [f64; 3],
    /// Refused unless zero.
    #[serde(default)]
    #[serde(deserialize_with = "crate::scene::exact::array")]
    angular_velocity: [f64; 3],
    /// Refused unless empty (every vertex is held).
    #[serde(default)]
    fixed: Vec<i64>,
}

impl Kind for ObstacleBody {
    const NAME: &'static str = "obstacle";
    const SILENT_KEYS: &'static [&'static str] = &["velocity", "angular_velocity", "fixed"];
}

impl BodySpec for ObstacleBody {
    fn motion(&self) -> Motion<'_> {
        Motion {
            velocity: self.velocity,
            angular_velocity: self.angular_velocity,
            velocities: None,
            fixed: &self.fixed,
            scripted: &self.scripted,
        }
    }

    fn misapplied(&self) -> Option<&'static str> {
        if self.velocity != [0.0; 3] {
            Some("velocity")
        } else if self.angular_velocity != [0.0; 3] {
            Some("angular_velocity")
        } else if !self.fixed.is_empty() {
            Some("fixed")
        } else {
            None
        }
    }

    fn geometry(&self, ctx: &Ctx, place: &str, base: &Path) -> Result<Geometry, SceneError> {
        let mesh = load_mesh(ctx, place, self.mesh.as_ref(), &self.transform, base)?;
        let n = mesh.positions.len();
        Ok(Geometry {
            kind: BodyKind::Obstacle { triangles: mesh.triangles },
            positions: mesh.positions,
            masses: vec![Real::INFINITY; n],
            velocities: vec![Vec3::zeros(); n],
        })
    }
}
