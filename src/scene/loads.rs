//! `[[load]]`: each table checked and made into a [`Load`] potential on the free vertices it
//! names (ACM §8's knots pulled by a prescribed force; `docs/scene-format.md`).

use super::context::{quoted_or, Ctx};
use super::schema::LoadSection;
use super::SceneError;
use crate::force::ForceSpec;
use crate::ids::VertexId;
use crate::math::{Compact, Real};
use crate::model::{BodyKind, Model, Motion};
use crate::potential::{Load, LoadSchedule};

/// Adds one [`Load`] per `[[load]]` table to `forces`.
pub(super) fn add_loads(
    ctx: &Ctx,
    loads: &[LoadSection],
    model: &Model,
    common_period: Option<Real>,
    forces: &mut Vec<ForceSpec>,
) -> Result<(), SceneError> {
    for (k, load) in loads.iter().enumerate() {
        let place = format!("load[{k}]");
        let schedule = schedule(ctx, &place, load)?;
        let period = ctx.period(&place, "period", load.period, common_period)?;
        let vertices = vertices(ctx, &place, load, model)?;
        forces.push(ForceSpec::new(Box::new(Load::new(vertices, schedule)), period));
    }
    Ok(())
}

/// The table's force and its times, checked.
fn schedule(ctx: &Ctx, place: &str, load: &LoadSection) -> Result<LoadSchedule, SceneError> {
    let force = ctx.finite_vec(place, "force", load.force)?;
    if !(load.start.is_finite() && load.start >= 0.0 && load.stop > load.start) {
        return Err(ctx.err(
            place.to_string(),
            format!("needs 0 ≤ start < stop (s), got start = {}, stop = {}", Compact(load.start), Compact(load.stop)),
        ));
    }
    let ramp = ctx.non_negative(place, "ramp", Some(load.ramp), "give the seconds over which the force rises")?;
    Ok(LoadSchedule { force, start: load.start, stop: load.stop, ramp })
}

/// The model's ids of the vertices the table names (every free vertex of its body by default),
/// each free: a held or scripted vertex has infinite mass and no force would move it.
fn vertices(ctx: &Ctx, place: &str, load: &LoadSection, model: &Model) -> Result<Vec<VertexId>, SceneError> {
    let Some((_, body)) = model.bodies.iter().find(|(_, b)| b.name == load.body) else {
        let known: Vec<&str> = model.bodies.values().map(|b| b.name.as_str()).collect();
        return Err(ctx.err(
            format!("{place}.body"),
            format!("no body is named \"{}\"; the bodies are {}", load.body, quoted_or(&known)),
        ));
    };
    if matches!(body.kind, BodyKind::Obstacle { .. }) {
        return Err(ctx.err(
            format!("{place}.body"),
            format!(
                "body \"{}\" is an obstacle, with infinite mass: no force moves it; load a body with mass",
                body.name
            ),
        ));
    }
    let first = body.vertices.start;
    let n = body.vertices.len();
    let is_free = |local: u32| model.vertices.motion(VertexId(first + local)) == Motion::Free;
    let Some(list) = &load.vertices else {
        let free: Vec<VertexId> = (0..n as u32).filter(|&i| is_free(i)).map(|i| VertexId(first + i)).collect();
        if free.is_empty() {
            return Err(ctx.err(
                format!("{place}.body"),
                format!("every vertex of body \"{}\" is held or scripted: no force moves them", body.name),
            ));
        }
        return Ok(free);
    };
    if list.is_empty() {
        return Err(ctx.err(
            format!("{place}.vertices"),
            "is empty, so the load acts on nothing; list the vertices to pull, or drop the key to load the whole body",
        ));
    }
    let mut ids = Vec::with_capacity(list.len());
    for (j, &i) in list.iter().enumerate() {
        let key = format!("{place}.vertices[{j}]");
        if !(i >= 0 && (i as usize) < n) {
            return Err(ctx.err(
                key,
                format!("vertex index {i} is out of range: body \"{}\" has {n} vertices (0..={})", body.name, n - 1),
            ));
        }
        let local = i as u32;
        if !is_free(local) {
            return Err(ctx.err(
                key,
                format!(
                    "vertex {i} of body \"{}\" is held or scripted, with infinite mass: no force moves it; \
                     load free vertices, or drop it from `fixed`/`scripted`",
                    body.name
                ),
            ));
        }
        let id = VertexId(first + local);
        if ids.contains(&id) {
            return Err(ctx.err(key, format!("vertex {i} is listed twice; list each vertex once")));
        }
        ids.push(id);
    }
    Ok(ids)
}
