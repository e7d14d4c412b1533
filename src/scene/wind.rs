//! `[[wind]]`: each table checked and made into a [`Wind`] potential per shell it blows on
//! (Phantom §5's cape in wind; `docs/scene-format.md`).

use super::context::{quoted_or, Ctx};
use super::schema::WindSection;
use super::SceneError;
use crate::force::ForceSpec;
use crate::ids::VertexId;
use crate::math::{Compact, Real, Vec3};
use crate::model::{BodyKind, Model};
use crate::potential::{Gusts, Wind};

/// Adds one [`Wind`] per `[[wind]]` table and shell it names (every shell by default) to `forces`.
pub(super) fn add_winds(
    ctx: &Ctx,
    winds: &[WindSection],
    model: &Model,
    common_period: Option<Real>,
    forces: &mut Vec<ForceSpec>,
) -> Result<(), SceneError> {
    for (k, wind) in winds.iter().enumerate() {
        let place = format!("wind[{k}]");
        let gusts = gusts(ctx, &place, wind)?;
        let period = ctx.period(&place, "period", wind.period, common_period)?;
        for body in bodies(ctx, &place, wind, model)? {
            let b = &model.bodies[body];
            let first = b.vertices.start;
            let positions: Vec<Vec3> = b.vertices.clone().map(|i| model.vertices.position(VertexId(i))).collect();
            let areas = Wind::lumped_areas(&positions, b.kind.triangles());
            let (free, areas): (Vec<VertexId>, Vec<Real>) = areas
                .into_iter()
                .enumerate()
                .map(|(i, a)| (VertexId(first + i as u32), a))
                .filter(|(v, a)| model.vertices.effective_mass(*v).is_finite() && *a > 0.0)
                .unzip();
            if !free.is_empty() {
                forces.push(ForceSpec::new(Box::new(Wind::new(free, areas, gusts)), period));
            }
        }
    }
    Ok(())
}

/// The table's pressure, direction and gusts, checked.
fn gusts(ctx: &Ctx, place: &str, wind: &WindSection) -> Result<Gusts, SceneError> {
    let pressure = ctx.positive(place, "pressure", Some(wind.pressure), "give the mean pressure in Pa (N/m²)")?;
    let direction = ctx.finite_vec(place, "direction", wind.direction)?;
    if direction.norm() == 0.0 {
        return Err(ctx.err(
            format!("{place}.direction"),
            "is the zero vector; give the direction the wind blows towards, e.g. [1.0, 0.0, 0.0]",
        ));
    }
    if !(wind.gust.is_finite() && (0.0..=1.0).contains(&wind.gust)) {
        return Err(ctx.err(
            format!("{place}.gust"),
            format!(
                "must be within [0, 1] (the pressure swings within pressure·(1 ± gust)), got {}",
                Compact(wind.gust)
            ),
        ));
    }
    let gust_period =
        ctx.positive(place, "gust_period", Some(wind.gust_period), "give the gusts' period in seconds")?;
    Ok(Gusts { pressure, direction: direction.normalize(), gust: wind.gust, gust_period })
}

/// The bodies the table names (every shell when it names none), each a shell.
fn bodies(ctx: &Ctx, place: &str, wind: &WindSection, model: &Model) -> Result<Vec<crate::ids::BodyId>, SceneError> {
    let is_shell = |kind: &BodyKind| matches!(kind, BodyKind::Shell { .. });
    let Some(names) = &wind.bodies else {
        let shells: Vec<_> = model.bodies.iter().filter(|(_, b)| is_shell(&b.kind)).map(|(id, _)| id).collect();
        if shells.is_empty() {
            return Err(ctx.err(
                place.to_string(),
                "the scene has no shell for the wind to blow on (wind is a force per area of a shell)",
            ));
        }
        return Ok(shells);
    };
    let mut ids = Vec::new();
    for (j, name) in names.iter().enumerate() {
        let key = format!("{place}.bodies[{j}]");
        let Some((id, body)) = model.bodies.iter().find(|(_, b)| &b.name == name) else {
            let known: Vec<&str> = model.bodies.values().map(|b| b.name.as_str()).collect();
            return Err(ctx.err(key, format!("no body is named \"{name}\"; the bodies are {}", quoted_or(&known))));
        };
        if !is_shell(&body.kind) {
            return Err(ctx.err(
                key,
                format!(
                    "body \"{name}\" is a {}; wind is a force per area of a shell, name shells only",
                    body.kind.name()
                ),
            ));
        }
        ids.push(id);
    }
    Ok(ids)
}
