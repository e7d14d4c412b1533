//! From a parsed scene file to a model and potentials, with every value checked.

use super::schema::{self, BodySection, Generator, MeshSpec, ParticleGenerator, PositionsSpec, SceneFile};
use super::{Backend, Scene, SceneError};
use crate::avi::{BroadPhaseKind, ContactSettings, ContactVariant, ForceSpec, PeriodChoice};
use crate::contact::LayerSchedule;
use crate::events::PeriodLadder;
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use crate::mesh::{self, TriMesh};
use crate::model::{Body, BodyKind, LinearPath, Model};
use crate::potential::{
    Damping, Gravity, Hinge, Lame, Membrane, MembraneMaterial, NeoHookeanBar, Potential, SolidMaterial, Spring,
    StrainMeasure, Tetrahedron,
};
use crate::simulation::SimulationParameters;
use crate::sync::{EnergyTarget, IntegratorKind, IpcParameters, LinearSolver, SyncParameters};
use nalgebra::Rotation3;
use std::path::Path;

/// Relative area below which a triangle counts as degenerate (area ≤ tol · longest edge²).
const DEGENERATE_TOLERANCE: Real = 1e-10;

/// The smallest `[contact] broad_phase_slack` accepted, as a fraction of η(1).
const MIN_SLACK_PER_THICKNESS: f64 = 1e-3;

/// Error context: the file, and the key path being built.
struct Ctx<'a> {
    file: &'a str,
}

impl Ctx<'_> {
    fn err(&self, place: impl Into<String>, message: impl Into<String>) -> SceneError {
        SceneError { file: self.file.to_string(), place: Some(place.into()), message: message.into() }
    }

    fn finite_vec(&self, place: &str, key: &str, v: [f64; 3]) -> Result<Vec3, SceneError> {
        if v.iter().all(|c| c.is_finite()) {
            Ok(Vec3::from(v))
        } else {
            Err(self.err(
                format!("{place}.{key}"),
                format!("{v:?} has a NaN or infinite component; give three finite numbers"),
            ))
        }
    }

    fn positive(&self, place: &str, key: &str, value: Option<f64>, what: &str) -> Result<Real, SceneError> {
        match value {
            Some(v) if v.is_finite() && v > 0.0 => Ok(v),
            Some(v) => Err(self.err(format!("{place}.{key}"), format!("must be a finite number > 0, got {v}; {what}"))),
            None => Err(self.err(place.to_string(), format!("`{key}` is required; {what}"))),
        }
    }

    fn non_negative(&self, place: &str, key: &str, value: Option<f64>, what: &str) -> Result<Real, SceneError> {
        match value {
            None => Ok(0.0),
            Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
            Some(v) => Err(self.err(format!("{place}.{key}"), format!("must be a finite number ≥ 0, got {v}; {what}"))),
        }
    }

    fn period(
        &self,
        place: &str,
        key: &str,
        value: Option<f64>,
        common: Option<Real>,
    ) -> Result<PeriodChoice, SceneError> {
        match value.or(common) {
            None => Ok(PeriodChoice::Stable),
            Some(h) if h.is_finite() && h > 0.0 => Ok(PeriodChoice::Fixed(h)),
            Some(h) => {
                Err(self.err(format!("{place}.{key}"), format!("must be a finite period in seconds > 0, got {h}")))
            }
        }
    }
}

pub(super) fn build(raw: SceneFile, file: &str, base: &Path, name: String) -> Result<Scene, SceneError> {
    let ctx = Ctx { file };
    let sim = &raw.simulation;
    let mut warnings = Vec::new();
    if !(sim.duration.is_finite() && sim.duration > 0.0) {
        return Err(
            ctx.err("simulation.duration", format!("must be a finite number of seconds > 0, got {}", sim.duration))
        );
    }
    if !(sim.frame_rate.is_finite() && sim.frame_rate > 0.0) {
        return Err(ctx.err(
            "simulation.frame_rate",
            format!("must be a finite number of frames per second > 0, got {}", sim.frame_rate),
        ));
    }
    if !(sim.safety_factor > 0.0 && sim.safety_factor <= 1.0) {
        return Err(ctx.err("simulation.safety_factor", format!("must be in (0, 1], got {}", sim.safety_factor)));
    }
    let Some(period_ladder) = PeriodLadder::with_rungs(sim.period_rungs) else {
        return Err(ctx.err(
            "simulation.period_rungs",
            format!(
                "must be 0 (exact stable estimates) or a power of two up to {}, got {}; the default is {}",
                PeriodLadder::MAX_RUNGS,
                sim.period_rungs,
                PeriodLadder::DEFAULT.rungs()
            ),
        ));
    };
    let gravity = ctx.finite_vec("simulation", "gravity", sim.gravity)?;
    let common_period = match sim.period {
        None => None,
        Some(h) if h.is_finite() && h > 0.0 => Some(h),
        Some(h) => return Err(ctx.err("simulation.period", format!("must be a finite period in seconds > 0, got {h}"))),
    };
    let backend = match sim.backend.as_deref() {
        None | Some("avi") => Backend::Avi,
        Some("sync") => Backend::Sync,
        Some(other) => {
            return Err(ctx.err("simulation.backend", format!("unknown backend \"{other}\"; use \"avi\" or \"sync\"")))
        }
    };
    if let Some(c) = &raw.contact {
        check_contact(&ctx, c)?;
        if let (Some(kind @ ("kdop" | "all-pairs")), Some(_)) = (c.broad_phase.as_deref(), c.cell_size) {
            warnings.push(format!(
                "{file}: contact.cell_size: only the hash grid has cells; broad_phase = \"{kind}\" ignores it"
            ));
        }
        if let (Some("all-pairs"), Some(_)) = (c.broad_phase.as_deref(), c.broad_phase_slack) {
            warnings.push(format!(
                "{file}: contact.broad_phase_slack: all pairs keep every pair for the whole run; broad_phase = \"all-pairs\" ignores it"
            ));
        }
    }
    let mut sync = sync_parameters(&ctx, raw.sync.as_ref())?;
    match &raw.contact {
        None => sync.contact = None, // IPC only for scenes with [contact]
        Some(c) => {
            if let Some(ipc) = &mut sync.contact {
                ipc.friction = c.friction.unwrap_or(0.0);
            }
        }
    }
    if raw.bodies.is_empty() {
        return Err(ctx.err("body", "the scene has no [[body]]; add at least one body"));
    }

    let mut model = Model::new();
    let mut forces = Vec::new();
    for (index, body) in raw.bodies.iter().enumerate() {
        let place = format!("body[{index}] \"{}\"", body.name);
        if raw.bodies[..index].iter().any(|b| b.name == body.name) {
            return Err(ctx.err(format!("{place}.name"), "another body has the same name; body names must be unique"));
        }
        build_body(&ctx, &place, body, base, gravity, common_period, &mut model, &mut forces)?;
    }
    if raw.contact.is_none() {
        if let Some((index, body)) = raw.bodies.iter().enumerate().find(|(_, b)| b.inextensible.is_some()) {
            return Err(ctx.err(
                format!("body[{index}] \"{}\".inextensible", body.name),
                "inextensible edges are enforced by penalty layers: add a [contact] table (its stiffness is their r(1))",
            ));
        }
    }
    let mut contact_violation = None;
    if let Some(c) = &raw.contact {
        let thickness = c.thickness.unwrap_or(0.01);
        if let Some(v) = crate::contact::closest_violation(&model, thickness) {
            // No guarantee can hold from a start inside the layers (or intersecting): the AVI
            // backend refuses it; the synchronous backend's barrier only needs a positive gap and
            // checks that itself.
            let what = if v.gap <= 0.0 { "intersect" } else { "are closer than the contact thickness" };
            let message = format!(
                "at t = 0, {} and {} {what} (gap {:.3e} m, thickness η(1) = {thickness} m); move the bodies apart or \
                 lower [contact] thickness",
                describe(&model, &v.a),
                describe(&model, &v.b),
                v.gap
            );
            contact_violation =
                Some(SceneError { file: file.to_string(), place: Some("contact.thickness".into()), message });
        }
    }
    let contact = match &raw.contact {
        None => None,
        Some(c) => Some(ContactSettings {
            layers: LayerSchedule {
                thickness: c.thickness.unwrap_or(LayerSchedule::default().thickness),
                stiffness: c.stiffness.unwrap_or(LayerSchedule::default().stiffness),
            },
            safety: match c.safety_factor {
                None => ContactSettings::DEFAULT_SAFETY,
                Some(f) if f > 0.0 && f <= 1.0 => f,
                Some(f) => {
                    return Err(ctx.err(
                        "contact.safety_factor",
                        format!("must be in (0, 1], got {f}; layer l ticks every safety_factor · 2/√(r(l)·Σ1/m), and a bounce needs many ticks (default {})", ContactSettings::DEFAULT_SAFETY),
                    ))
                }
            },
            tolerance: match c.tolerance {
                None => ContactSettings::DEFAULT_TOLERANCE,
                t => ctx.non_negative("contact", "tolerance", t, "the vague-trajectory tolerance ε is in m/s (ACM §5.3)")?,
            },
            profitability: match c.profitability {
                None => 1.1,
                Some(p) if p.is_finite() && p > 1.0 => p,
                Some(p) => {
                    return Err(ctx.err(
                        "contact.profitability",
                        format!("must be a finite number > 1, got {p}; a slab for layer l is built only when the gap exceeds this factor times η(l) (ACM §5.1 uses 1.1)"),
                    ))
                }
            },
            restitution: c.restitution.unwrap_or(1.0),
            friction: c.friction.unwrap_or(0.0),
            variant: ContactVariant::RegularLayers,
            broad_phase: match c.broad_phase.as_deref() {
                Some("all-pairs") => BroadPhaseKind::AllPairs,
                Some("kdop") => BroadPhaseKind::Kdop,
                _ => BroadPhaseKind::HashGrid {
                    cell_size: match c.cell_size {
                        None => None,
                        size => Some(ctx.positive(
                            "contact",
                            "cell_size",
                            size,
                            "the hash grid's cell side in m (default: twice the mean edge length)",
                        )?),
                    },
                },
            },
            broad_phase_slack: match c.broad_phase_slack {
                None => None,
                slack => {
                    let what = "the broad phase's hysteresis in m (default: a twentieth of the hash grid's cell, a tenth of the default cell for kdop); remove the key for the default";
                    let slack = ctx.positive("contact", "broad_phase_slack", slack, what)?;
                    let thickness = c.thickness.unwrap_or(LayerSchedule::default().thickness);
                    let least = MIN_SLACK_PER_THICKNESS * thickness;
                    if slack < least {
                        return Err(ctx.err(
                            "contact.broad_phase_slack",
                            format!("must be at least {MIN_SLACK_PER_THICKNESS}·thickness = {least:e} m, got {slack:e}; a smaller slack re-covers primitives after motions far below the contact's resolution, and near the coordinates' round-off they cannot move on at all; {what}"),
                        ));
                    }
                    Some(slack)
                }
            },
        }),
    };
    let parameters = SimulationParameters {
        duration: sim.duration,
        frame_rate: sim.frame_rate,
        gravity,
        safety_factor: sim.safety_factor,
        period_ladder,
        contact,
    };
    Ok(Scene { name, path: None, model, forces, parameters, backend, sync, warnings, contact_violation })
}

fn sync_parameters(ctx: &Ctx, s: Option<&schema::SyncSection>) -> Result<SyncParameters, SceneError> {
    let mut p = SyncParameters { contact: Some(IpcParameters::default()), ..SyncParameters::default() };
    let Some(s) = s else { return Ok(p) };
    const AVAILABLE: [&str; 9] =
        ["implicit-euler", "bdf2", "implicit-midpoint", "trapezoid", "a1", "a-search", "blend", "sdirk2", "tr-bdf2"];
    if s.timestep.is_some() {
        p.timestep = ctx.positive("sync", "timestep", s.timestep, "the synchronous time step is in seconds")?;
    }
    let mut ipc = IpcParameters::default();
    if s.barrier_distance.is_some() {
        ipc.activation =
            ctx.positive("sync", "barrier_distance", s.barrier_distance, "the IPC barrier distance d̂ is in metres")?;
    }
    if s.barrier_stiffness.is_some() {
        ipc.stiffness =
            ctx.positive("sync", "barrier_stiffness", s.barrier_stiffness, "the IPC stiffness κ is in N/m")?;
    }
    p.contact = Some(ipc); // used only when the scene has [contact]
    if s.newton_tolerance.is_some() {
        p.newton.tolerance =
            ctx.positive("sync", "newton_tolerance", s.newton_tolerance, "Newton stops at a step of tolerance · h")?;
    }
    if let Some(n) = s.newton_max_iterations {
        if n == 0 {
            return Err(ctx.err("sync.newton_max_iterations", "must be at least 1"));
        }
        p.newton.max_iterations = n as usize;
    }
    if let Some(name) = &s.linear_solver {
        p.newton.linear_solver = LinearSolver::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = LinearSolver::NAMES.iter().map(|(n, _)| *n).collect();
            ctx.err("sync.linear_solver", format!("unknown linear solver \"{name}\"; use one of {}", names.join(", ")))
        })?;
    }
    let alpha_range = match s.alpha_range {
        None => (0.0, 1.1),
        Some([lo, hi]) if lo.is_finite() && hi.is_finite() && lo <= 1.0 && 1.0 <= hi => (lo, hi),
        Some(r) => {
            return Err(ctx.err("sync.alpha_range", format!("must be finite [α_min, α_max] around 1, got {r:?}")))
        }
    };
    let target = match &s.energy_target {
        None => EnergyTarget::Conserve,
        Some(t) => {
            let start = ctx.non_negative("sync.energy_target", "start", t.start, "the start time is in seconds")?;
            let ground = match t.ground {
                None => 0.0,
                Some(g) if g.is_finite() => g,
                Some(g) => return Err(ctx.err("sync.energy_target.ground", format!("must be finite, got {g}"))),
            };
            match t.decay_half_life {
                None => EnergyTarget::Conserve,
                Some(_) => EnergyTarget::Decay {
                    half_life: ctx.positive(
                        "sync.energy_target",
                        "decay_half_life",
                        t.decay_half_life,
                        "the half-life is in seconds",
                    )?,
                    start,
                    ground,
                },
            }
        }
    };
    p.integrator = match s.integrator.as_deref() {
        None | Some("a-search") => IntegratorKind::ASearch { target, alpha_range },
        Some("implicit-euler") => IntegratorKind::ImplicitEuler,
        Some("bdf2") => IntegratorKind::Bdf2,
        Some("implicit-midpoint") => IntegratorKind::ImplicitMidpoint,
        Some("trapezoid") => IntegratorKind::Trapezoid,
        Some("a1") => IntegratorKind::A1,
        Some("blend") => IntegratorKind::Blend,
        Some("sdirk2") => IntegratorKind::Sdirk2,
        Some("tr-bdf2") => IntegratorKind::TrBdf2,
        Some(name) => {
            return Err(ctx
                .err("sync.integrator", format!("unknown integrator \"{name}\"; use one of {}", AVAILABLE.join(", "))))
        }
    };
    Ok(p)
}

fn check_contact(ctx: &Ctx, c: &schema::ContactSection) -> Result<(), SceneError> {
    ctx.positive(
        "contact",
        "thickness",
        c.thickness.or(Some(0.01)),
        "η(1) is the outermost layer's thickness in metres",
    )?;
    ctx.positive("contact", "stiffness", c.stiffness.or(Some(1000.0)), "r(1) is the outermost layer's stiffness")?;
    if let Some(e) = c.restitution {
        if !(0.0..=1.0).contains(&e) {
            return Err(ctx.err("contact.restitution", format!("must be in [0, 1], got {e}")));
        }
    }
    ctx.non_negative("contact", "friction", c.friction, "the Coulomb coefficient μ is ≥ 0")?;
    match c.broad_phase.as_deref() {
        None | Some("hash-grid" | "kdop" | "all-pairs") => Ok(()),
        Some(other) => Err(ctx.err(
            "contact.broad_phase",
            format!("unknown broad phase \"{other}\"; use \"hash-grid\", \"kdop\" or \"all-pairs\""),
        )),
    }
}

#[allow(clippy::too_many_arguments)]
fn build_body(
    ctx: &Ctx,
    place: &str,
    b: &BodySection,
    base: &Path,
    gravity: Vec3,
    common_period: Option<Real>,
    model: &mut Model,
    forces: &mut Vec<ForceSpec>,
) -> Result<(), SceneError> {
    check_keys_apply(ctx, place, b)?;
    let velocity = ctx.finite_vec(place, "velocity", b.velocity)?;
    let spin = ctx.finite_vec(place, "angular_velocity", b.angular_velocity)?;
    let (kind, positions, masses, mut velocities) = match b.kind.as_str() {
        "shell" | "obstacle" => {
            let mesh = load_mesh(ctx, place, b, base)?;
            let triangles = mesh.triangles.clone();
            if b.kind == "obstacle" {
                let n = mesh.positions.len();
                (BodyKind::Obstacle { triangles }, mesh.positions, vec![Real::INFINITY; n], vec![Vec3::zeros(); n])
            } else {
                let density = ctx.positive(place, "density", b.density, "give the shell's mass per area in kg/m²")?;
                let masses = mesh.lumped_masses(density);
                if let Some(i) = masses.iter().position(|&w| w <= 0.0) {
                    return Err(ctx.err(
                        format!("{place}.mesh"),
                        format!("vertex {i} belongs to no triangle, so it has no mass; remove unused vertices"),
                    ));
                }
                let n = mesh.positions.len();
                (BodyKind::Shell { triangles }, mesh.positions, masses, vec![Vec3::zeros(); n])
            }
        }
        "chain" => {
            let points = match &b.mesh {
                Some(MeshSpec::Generator(Generator::Line { start, end, segments })) => {
                    let (s, e) =
                        (ctx.finite_vec(place, "mesh.start", *start)?, ctx.finite_vec(place, "mesh.end", *end)?);
                    transform_points(
                        ctx,
                        place,
                        b,
                        mesh::line(s, e, *segments).map_err(|e| ctx.err(format!("{place}.mesh"), e.to_string()))?,
                    )?
                }
                _ => {
                    return Err(ctx.err(
                        format!("{place}.mesh"),
                        "a chain needs mesh = { generator = \"line\", start = [..], end = [..], segments = N }",
                    ))
                }
            };
            let m = ctx.positive(place, "mass", b.mass, "give the mass of each chain vertex in kg")?;
            let n = points.len();
            let edges = (0..n as u32 - 1).map(|k| [k, k + 1]).collect();
            (BodyKind::Chain { edges }, points, vec![m; n], vec![Vec3::zeros(); n])
        }
        "particles" => {
            let radius = ctx.positive(place, "radius", b.radius, "give the particle radius in metres")?;
            let m = ctx.positive(place, "mass", b.mass, "give the mass of each particle in kg")?;
            let (points, vels) = particle_positions(ctx, place, b)?;
            let n = points.len();
            (BodyKind::Particles { radius }, points, vec![m; n], vels)
        }
        "solid" => {
            let mesh = load_tet_mesh(ctx, place, b, base)?;
            let density = ctx.positive(place, "density", b.density, "give the solid's mass per volume in kg/m³")?;
            let masses = mesh.lumped_masses(density);
            if let Some(i) = masses.iter().position(|&w| w <= 0.0) {
                return Err(ctx.err(
                    format!("{place}.mesh"),
                    format!("vertex {i} belongs to no tetrahedron, so it has no mass; remove unused vertices"),
                ));
            }
            let n = mesh.positions.len();
            let triangles = mesh.boundary();
            (BodyKind::Solid { tets: mesh.tets, triangles }, mesh.positions, masses, vec![Vec3::zeros(); n])
        }
        other => {
            return Err(ctx.err(
                format!("{place}.kind"),
                format!(
                    "unknown body kind \"{other}\"; use \"shell\", \"solid\", \"particles\", \"chain\" or \"obstacle\""
                ),
            ))
        }
    };
    // initial velocity: translation plus rigid spin about the centre of mass
    let total_mass: Real = masses.iter().filter(|m| m.is_finite()).sum();
    if spin != Vec3::zeros() && total_mass > 0.0 {
        let com: Vec3 = positions.iter().zip(&masses).filter(|(_, m)| m.is_finite()).map(|(x, m)| x * *m).sum::<Vec3>()
            / total_mass;
        for (v, x) in velocities.iter_mut().zip(&positions) {
            *v += spin.cross(&(x - com));
        }
    }
    for v in &mut velocities {
        *v += velocity;
    }
    if let Some(list) = &b.velocities {
        if list.len() != velocities.len() {
            return Err(ctx.err(
                format!("{place}.velocities"),
                format!(
                    "has {} entries but the body has {} vertices; give one [vx, vy, vz] per vertex",
                    list.len(),
                    velocities.len()
                ),
            ));
        }
        for (k, (v, extra)) in velocities.iter_mut().zip(list).enumerate() {
            *v += ctx.finite_vec(place, &format!("velocities[{k}]"), *extra)?;
        }
    }
    let is_obstacle = matches!(kind, BodyKind::Obstacle { .. });
    let mut body = Body::new(b.name.clone(), kind);
    if let Some(slack) = b.inextensible {
        if !(slack > 0.0 && slack < 1.0) {
            return Err(ctx.err(
                format!("{place}.inextensible"),
                format!("must be in (0, 1), got {slack}; it is the slack s: every edge keeps its length within (1 ± s) of its initial length"),
            ));
        }
        body.inextensibility = Some(slack);
    }
    let body_id = model.add_body(body, &positions, &velocities, &masses);
    let n = positions.len();
    let first = model.bodies[body_id].vertices.start;
    let global = |local: u32| VertexId(first + local);
    if is_obstacle {
        for k in 0..n as u32 {
            model.vertices.fix(global(k));
        }
    }
    // Each vertex is held or scripted at most once: a second entry would silently win.
    let mut claimed: std::collections::BTreeMap<u32, String> = Default::default();
    let mut claim = |local: u32, where_: String| -> Result<(), SceneError> {
        match claimed.insert(local, where_.clone()) {
            Some(first) => Err(ctx.err(
                where_,
                format!("vertex {local} is already held or scripted by {first}; give each vertex one motion"),
            )),
            None => Ok(()),
        }
    };
    for (k, &i) in b.fixed.iter().enumerate() {
        let local = index_in_range(ctx, &format!("{place}.fixed[{k}]"), i, n)?;
        claim(local, format!("{place}.fixed[{k}]"))?;
        model.vertices.fix(global(local));
    }
    for (s, script) in b.scripted.iter().enumerate() {
        let sp = format!("{place}.scripted[{s}]");
        let v = ctx.finite_vec(&sp, "velocity", script.velocity)?;
        if !(script.start.is_finite() && script.start >= 0.0 && script.stop > script.start) {
            return Err(
                ctx.err(sp, format!("needs 0 ≤ start < stop, got start = {}, stop = {}", script.start, script.stop))
            );
        }
        let free_before_start = match script.before_start.as_deref() {
            None | Some("held") => false,
            Some("free") if is_obstacle => {
                return Err(ctx.err(
                    format!("{sp}.before_start"),
                    "an obstacle has no mass to move freely with; use \"held\" or script a body with mass",
                ))
            }
            Some("free") if script.start <= 0.0 => {
                return Err(ctx.err(
                    format!("{sp}.before_start"),
                    "\"free\" needs start > 0 (with start = 0 the vertices are scripted from the beginning; drop the key)",
                ))
            }
            Some("free") if b.inextensible.is_some() => {
                return Err(ctx.err(
                    format!("{sp}.before_start"),
                    "\"free\" is not supported on inextensible bodies yet (their length certificates assume velocities change only by kicks); use \"held\"",
                ))
            }
            Some("free") => true,
            Some(other) => {
                return Err(ctx.err(
                    format!("{sp}.before_start"),
                    format!("unknown value \"{other}\"; use \"held\" (in place until start) or \"free\" (moving with the body until start)"),
                ))
            }
        };
        let locals: Vec<u32> = match &script.vertices {
            None => (0..n as u32).collect(),
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(k, &i)| index_in_range(ctx, &format!("{sp}.vertices[{k}]"), i, n))
                .collect::<Result<_, _>>()?,
        };
        for local in locals {
            claim(local, sp.clone())?;
            let origin = model.vertices.position(global(local));
            let path = LinearPath { origin, velocity: v, start: script.start, stop: script.stop };
            if free_before_start {
                model.vertices.script_from_start(global(local), path);
            } else {
                model.vertices.script(global(local), path);
            }
        }
    }
    if is_obstacle {
        return Ok(());
    }

    // potentials
    let free: Vec<VertexId> =
        (0..n as u32).map(global).filter(|&v| model.vertices.effective_mass(v).is_finite()).collect();
    if gravity != Vec3::zeros() && !free.is_empty() {
        let m = free.iter().map(|&v| model.vertices.mass(v)).collect();
        let period = common_period.map_or(PeriodChoice::Stable, PeriodChoice::Fixed);
        forces.push(ForceSpec { potential: Box::new(Gravity::new(free.iter().copied(), m, gravity)), period });
    }
    let body = &model.bodies[body_id];
    match &body.kind {
        BodyKind::Shell { triangles } => {
            let stretching = ctx.positive(
                place,
                "stretching",
                b.stretching,
                "give the membrane stiffness (2D Young's modulus) in N/m",
            )?;
            let poisson = b.poisson_ratio.unwrap_or(0.3);
            if !(poisson > -1.0 && poisson < 0.5) {
                return Err(ctx.err(format!("{place}.poisson_ratio"), format!("must be in (-1, 0.5), got {poisson}")));
            }
            let bending =
                ctx.non_negative(place, "bending", b.bending, "the hinge stiffness is ≥ 0 (0 turns bending off)")?;
            let stretch_damping =
                ctx.non_negative(place, "stretch_damping", b.stretch_damping, "damping coefficients are ≥ 0")?;
            let bend_damping =
                ctx.non_negative(place, "bend_damping", b.bend_damping, "damping coefficients are ≥ 0")?;
            let stretch_period = ctx.period(place, "stretch_period", b.stretch_period, common_period)?;
            let bend_period = ctx.period(place, "bend_period", b.bend_period, common_period)?;
            let damping_period = ctx.period(place, "damping_period", b.damping_period, common_period)?;
            let material = MembraneMaterial { youngs_modulus: stretching, poisson_ratio: poisson };
            for (t, tri) in triangles.iter().enumerate() {
                let ids = tri.map(global);
                let rest = tri.map(|i| positions[i as usize]);
                let membrane = Membrane::new(ids, rest, &material).ok_or_else(|| {
                    ctx.err(
                        format!("{place}.mesh"),
                        format!("triangle {t} {tri:?} is degenerate (zero area); remove or fix it"),
                    )
                })?;
                if stretch_damping > 0.0 {
                    let d = Damping::new(StrainMeasure::GreenStrain(membrane.clone()), stretch_damping, &rest);
                    forces.push(ForceSpec { potential: Box::new(d), period: damping_period });
                }
                forces.push(ForceSpec { potential: Box::new(membrane), period: stretch_period });
            }
            if bending > 0.0 || bend_damping > 0.0 {
                for hinge in mesh::hinges(triangles) {
                    let ids = hinge.map(global);
                    let rest = hinge.map(|i| positions[i as usize]);
                    let h = Hinge::new(ids, rest, bending).ok_or_else(|| {
                        ctx.err(
                            format!("{place}.mesh"),
                            format!("the hinge on vertices {hinge:?} has a degenerate triangle; fix the mesh"),
                        )
                    })?;
                    if bend_damping > 0.0 {
                        let d = Damping::new(StrainMeasure::DihedralAngle(h.clone()), bend_damping, &rest);
                        forces.push(ForceSpec { potential: Box::new(d), period: damping_period });
                    }
                    if bending > 0.0 {
                        forces.push(ForceSpec { potential: Box::new(h), period: bend_period });
                    }
                }
            }
        }
        BodyKind::Chain { edges } => {
            let law = chain_law(ctx, place, b, edges.len())?;
            let damping =
                ctx.non_negative(place, "spring_damping", b.spring_damping, "damping coefficients are ≥ 0")?;
            let period = ctx.period(place, "stretch_period", b.stretch_period, common_period)?;
            let damping_period = ctx.period(place, "damping_period", b.damping_period, common_period)?;
            for (e, [i, j]) in edges.iter().enumerate() {
                let (a, bb) = (global(*i), global(*j));
                let ends = [positions[*i as usize], positions[*j as usize]];
                let rest = (ends[1] - ends[0]).norm();
                // damping acts on the edge's length, whatever the law
                let length = |k| Spring::new(a, bb, k, 0.0, rest);
                let potential: Box<dyn Potential> = match &law {
                    ChainLaw::Springs { stiffness, quartic } => {
                        let (k, k4) = (stiffness[e % stiffness.len()], quartic[e % quartic.len()]);
                        if damping > 0.0 {
                            let d = Damping::new(StrainMeasure::Length(length(k)), damping, &ends);
                            forces.push(ForceSpec { potential: Box::new(d), period: damping_period });
                        }
                        Box::new(Spring::new(a, bb, k, k4, rest))
                    }
                    ChainLaw::NeoHookean { axial_stiffness } => {
                        if damping > 0.0 {
                            let d = Damping::new(StrainMeasure::Length(length(0.0)), damping, &ends);
                            forces.push(ForceSpec { potential: Box::new(d), period: damping_period });
                        }
                        Box::new(NeoHookeanBar::new(a, bb, *axial_stiffness, rest))
                    }
                };
                forces.push(ForceSpec { potential, period });
            }
        }
        BodyKind::Solid { tets, .. } => {
            let material = match b.material.as_deref() {
                None | Some("neo-hookean") => SolidMaterial::NeoHookean,
                Some("corotated") => SolidMaterial::Corotated,
                Some(other) => {
                    return Err(ctx.err(
                        format!("{place}.material"),
                        format!("unknown material \"{other}\"; use \"neo-hookean\" or \"corotated\""),
                    ))
                }
            };
            let young = ctx.positive(place, "youngs_modulus", b.youngs_modulus, "give Young's modulus in Pa")?;
            let poisson = b.poisson_ratio.unwrap_or(0.3);
            if !(poisson > -1.0 && poisson < 0.5) {
                return Err(ctx.err(format!("{place}.poisson_ratio"), format!("must be in (-1, 0.5), got {poisson}")));
            }
            let lame = Lame::from_young_poisson(young, poisson);
            let period = ctx.period(place, "stretch_period", b.stretch_period, common_period)?;
            for (t, tet) in tets.iter().enumerate() {
                let rest = tet.map(|i| positions[i as usize]);
                let element = Tetrahedron::new(tet.map(global), rest, material, lame).ok_or_else(|| {
                    ctx.err(
                        format!("{place}.mesh"),
                        format!("tetrahedron {t} {tet:?} is degenerate (zero volume); fix the mesh"),
                    )
                })?;
                forces.push(ForceSpec { potential: Box::new(element), period });
            }
        }
        _ => {}
    }
    Ok(())
}

/// How a chain's edges resist stretching.
enum ChainLaw {
    /// Springs, stiffnesses cycled along the chain.
    Springs { stiffness: Vec<Real>, quartic: Vec<Real> },
    /// Neo-Hookean bars of axial stiffness EA (N).
    NeoHookean { axial_stiffness: Real },
}

/// A chain's `material` and its keys: `"spring"` (the default) with `spring_stiffness` and
/// `spring_quartic` (none of the `springs` edges may have both zero), or `"neo-hookean"` with
/// `axial_stiffness`.
fn chain_law(ctx: &Ctx, place: &str, b: &BodySection, springs: usize) -> Result<ChainLaw, SceneError> {
    match b.material.as_deref() {
        None | Some("spring") => {
            if b.axial_stiffness.is_some() {
                return Err(ctx.err(
                    format!("{place}.axial_stiffness"),
                    "applies to material = \"neo-hookean\" chains only; set the material or use spring_stiffness",
                ));
            }
            let stiffness = b.spring_stiffness.clone().ok_or_else(|| {
                ctx.err(place.to_string(), "`spring_stiffness` is required for a chain: a list of N/m values cycled along the chain, e.g. [1e4, 1.0]")
            })?;
            let quartic = b.spring_quartic.clone().unwrap_or_else(|| vec![0.0]);
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
            for (key, present) in
                [("spring_stiffness", b.spring_stiffness.is_some()), ("spring_quartic", b.spring_quartic.is_some())]
            {
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
                b.axial_stiffness,
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

/// Refuses keys that mean nothing for the body's kind (a typo trap otherwise: a `bending` on a
/// chain would be silently ignored).
fn check_keys_apply(ctx: &Ctx, place: &str, b: &BodySection) -> Result<(), SceneError> {
    let set: [(&str, bool); 25] = [
        ("mesh", b.mesh.is_some()),
        ("density", b.density.is_some()),
        ("stretching", b.stretching.is_some()),
        ("poisson_ratio", b.poisson_ratio.is_some()),
        ("bending", b.bending.is_some()),
        ("stretch_damping", b.stretch_damping.is_some()),
        ("bend_damping", b.bend_damping.is_some()),
        ("velocity", b.velocity != [0.0; 3]),
        ("angular_velocity", b.angular_velocity != [0.0; 3]),
        ("velocities", b.velocities.is_some()),
        ("fixed", !b.fixed.is_empty()),
        ("scripted", !b.scripted.is_empty()),
        ("material", b.material.is_some()),
        ("youngs_modulus", b.youngs_modulus.is_some()),
        ("radius", b.radius.is_some()),
        ("mass", b.mass.is_some()),
        ("positions", b.positions.is_some()),
        ("spring_stiffness", b.spring_stiffness.is_some()),
        ("spring_quartic", b.spring_quartic.is_some()),
        ("spring_damping", b.spring_damping.is_some()),
        ("axial_stiffness", b.axial_stiffness.is_some()),
        ("stretch_period", b.stretch_period.is_some()),
        ("bend_period", b.bend_period.is_some()),
        ("damping_period", b.damping_period.is_some()),
        ("inextensible", b.inextensible.is_some()),
    ];
    let motion = ["velocity", "angular_velocity", "velocities", "fixed", "scripted"];
    let allowed: Vec<&str> = match b.kind.as_str() {
        "shell" => [
            &[
                "mesh",
                "density",
                "stretching",
                "poisson_ratio",
                "bending",
                "stretch_damping",
                "bend_damping",
                "inextensible",
            ][..],
            &["stretch_period", "bend_period", "damping_period"],
            &motion,
        ]
        .concat(),
        "chain" => [
            &[
                "mesh",
                "mass",
                "inextensible",
                "spring_stiffness",
                "spring_quartic",
                "spring_damping",
                "material",
                "axial_stiffness",
                "stretch_period",
                "damping_period",
            ][..],
            &motion,
        ]
        .concat(),
        "particles" => [&["radius", "mass", "positions"][..], &motion].concat(),
        "obstacle" => vec!["mesh", "scripted"],
        "solid" => [&["mesh", "density", "material", "youngs_modulus", "poisson_ratio", "stretch_period"][..], &motion]
            .concat(),
        _ => return Ok(()), // the kind itself is refused with its own message
    };
    match set.iter().find(|(key, present)| *present && !allowed.contains(key)) {
        Some((key, _)) => Err(ctx.err(
            format!("{place}.{key}"),
            format!(
                "does not apply to a body of kind \"{}\"; remove it (keys for this kind: {})",
                b.kind,
                allowed.join(", ")
            ),
        )),
        None => Ok(()),
    }
}

/// A contact primitive as a user reads it: its kind, index and body.
fn describe(model: &Model, p: &crate::contact::Primitive) -> String {
    use crate::contact::Primitive;
    let first = p_vertex(p);
    let Some(body) = model.bodies.values().find(|b| b.vertices.contains(&first.0)) else {
        return format!("{p:?}");
    };
    let local = |v: VertexId| v.0 - body.vertices.start;
    match p {
        Primitive::Vertex(v) => format!("vertex {} of \"{}\"", local(*v), body.name),
        Primitive::Particle(v, _) => format!("particle {} of \"{}\"", local(*v), body.name),
        Primitive::Edge(e) => format!("edge ({}, {}) of \"{}\"", local(e[0]), local(e[1]), body.name),
        Primitive::Triangle(t) => {
            let tri = t.map(local);
            match body.kind.triangles().iter().position(|u| *u == tri) {
                Some(k) => format!("triangle {k} {tri:?} of \"{}\"", body.name),
                None => format!("triangle {tri:?} of \"{}\"", body.name),
            }
        }
    }
}

fn p_vertex(p: &crate::contact::Primitive) -> VertexId {
    use crate::contact::Primitive;
    match p {
        Primitive::Vertex(v) | Primitive::Particle(v, _) => *v,
        Primitive::Edge(e) => e[0],
        Primitive::Triangle(t) => t[0],
    }
}

fn index_in_range(ctx: &Ctx, place: &str, i: i64, n: usize) -> Result<u32, SceneError> {
    if i >= 0 && (i as usize) < n {
        Ok(i as u32)
    } else {
        Err(ctx.err(
            place.to_string(),
            format!("vertex index {i} is out of range: the body has {n} vertices (0..={})", n - 1),
        ))
    }
}

fn load_mesh(ctx: &Ctx, place: &str, b: &BodySection, base: &Path) -> Result<TriMesh, SceneError> {
    let key = format!("{place}.mesh");
    let generated = |r: Result<TriMesh, mesh::GeneratorError>| r.map_err(|e| ctx.err(&key, e.to_string()));
    let mut m = match &b.mesh {
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
                    Some(schema::BoxResolution::Uniform(n)) => *n,
                    Some(schema::BoxResolution::PerAxis(r)) => *r.iter().max().unwrap_or(&1),
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
    m.positions = transform_points(ctx, place, b, std::mem::take(&mut m.positions))?;
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

/// A solid's tetrahedral mesh: the `box` generator (also for bars) or a TetGen `.node`/`.ele` pair.
fn load_tet_mesh(ctx: &Ctx, place: &str, b: &BodySection, base: &Path) -> Result<mesh::TetMesh, SceneError> {
    let key = format!("{place}.mesh");
    let mut m = match &b.mesh {
        None => {
            return Err(ctx.err(place.to_string(), "`mesh` is required: a box generator or a TetGen .node/.ele file"))
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
                Some(schema::BoxResolution::Uniform(n)) => [*n; 3],
                Some(schema::BoxResolution::PerAxis(r)) => *r,
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
    m.positions = transform_points(ctx, place, b, std::mem::take(&mut m.positions))?;
    Ok(m)
}

fn transform_points(ctx: &Ctx, place: &str, b: &BodySection, mut points: Vec<Vec3>) -> Result<Vec<Vec3>, SceneError> {
    let t = &b.transform;
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

fn particle_positions(ctx: &Ctx, place: &str, b: &BodySection) -> Result<(Vec<Vec3>, Vec<Vec3>), SceneError> {
    let key = format!("{place}.positions");
    let (points, velocities) = match &b.positions {
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
                return Err(ctx.err(format!("{key}.max_speed"), format!("must be a finite speed ≥ 0, got {max_speed}")));
            }
            mesh::lattice(lo, hi, *count, *seed, *max_speed).map_err(|e| ctx.err(&key, e.to_string()))?
        }
    };
    Ok((transform_points(ctx, place, b, points)?, velocities))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(body: &str) -> Result<Scene, SceneError> {
        let text = format!("[simulation]\ngravity = [0.0, 0.0, 0.0]\n[[body]]\n{body}");
        super::super::parse(&text, "t.toml", Path::new("."), "t".into())
    }

    #[test]
    fn transform_scales_then_rotates_x_y_z_then_translates() {
        let s = scene(
            "name = \"p\"\nkind = \"particles\"\nradius = 0.1\nmass = 1.0\npositions = [[0.0, 1.0, 0.0]]\n\
             transform = { scale = 2.0, rotate_deg = [90.0, 0.0, 90.0], translate = [1.0, 0.0, 0.0] }",
        )
        .unwrap();
        // (0, 1, 0) ×2 → (0, 2, 0); about x by 90° → (0, 0, 2); about z by 90° → (0, 0, 2); + (1, 0, 0)
        let x = s.model.vertices.position(VertexId(0));
        assert!((x - Vec3::new(1.0, 0.0, 2.0)).norm() < 1e-12, "{x}");
    }

    #[test]
    fn lattice_is_seeded_and_within_bounds() {
        let body = "name = \"g\"\nkind = \"particles\"\nradius = 0.01\nmass = 1.0\n\
                    positions = { generator = \"lattice\", min = [0.0, 0.0, 0.0], max = [1.0, 2.0, 3.0], count = 50, seed = 3, max_speed = 2.0 }";
        let (a, b) = (scene(body).unwrap(), scene(body).unwrap());
        assert_eq!(a.model.vertices.len(), 50);
        assert_eq!(a.model.vertices.velocities(), b.model.vertices.velocities(), "same seed, same velocities");
        for (x, v) in a.model.vertices.positions().iter().zip(a.model.vertices.velocities()) {
            assert!((0..3).all(|k| x[k] >= 0.0 && x[k] <= [1.0, 2.0, 3.0][k]));
            assert!(v.norm() <= 2.0 + 1e-12);
        }
        let other = scene(&body.replace("seed = 3", "seed = 4")).unwrap();
        assert_ne!(a.model.vertices.velocities(), other.model.vertices.velocities());
    }

    #[test]
    fn a_script_can_leave_its_vertices_free_until_it_starts() {
        let sheet =
            "name = \"s\"\nkind = \"shell\"\nmesh = { generator = \"grid\", size = [1.0, 1.0], resolution = [3, 3] }\n\
                     density = 0.5\nstretching = 10.0\n";
        let with = |script: &str| {
            scene(&format!("{sheet}scripted = [{{ vertices = [0], velocity = [0.0, 1.0, 0.0], {script} }}]"))
        };
        let s = with("start = 1.0, before_start = \"free\"").unwrap();
        assert!(matches!(s.model.vertices.motion(VertexId(0)), crate::model::Motion::FreeUntil(p) if p.start == 1.0));
        assert!(s.model.vertices.effective_mass(VertexId(0)).is_finite(), "it has its mass until the start");
        let held = with("start = 1.0, before_start = \"held\"").unwrap();
        assert!(matches!(held.model.vertices.motion(VertexId(0)), crate::model::Motion::Scripted(_)));
        for (script, place, says) in [
            ("start = 1.0, before_start = \"loose\"", "scripted[0].before_start", "unknown value \"loose\""),
            ("before_start = \"free\"", "scripted[0].before_start", "needs start > 0"),
        ] {
            let e = with(script).unwrap_err();
            assert!(e.place.as_deref().is_some_and(|p| p.ends_with(place)), "{e}");
            assert!(e.message.contains(says), "{e}");
        }
        let obstacle = scene(
            "name = \"o\"\nkind = \"obstacle\"\nmesh = { generator = \"grid\", size = [1.0, 1.0], resolution = [2, 2] }\n\
             scripted = [{ velocity = [0.0, 1.0, 0.0], start = 1.0, before_start = \"free\" }]",
        )
        .unwrap_err();
        assert!(obstacle.message.contains("no mass"), "{obstacle}");
        let inextensible = scene(&format!(
            "{sheet}inextensible = 0.1\nscripted = [{{ vertices = [0], velocity = [0.0, 1.0, 0.0], start = 1.0, before_start = \"free\" }}]"
        ))
        .unwrap_err();
        assert!(inextensible.message.contains("inextensible"), "{inextensible}");
    }

    #[test]
    fn period_rungs_are_zero_or_a_power_of_two() {
        let with = |rungs: &str| {
            let text = format!(
                "[simulation]\nperiod_rungs = {rungs}\n[[body]]\nname = \"p\"\nkind = \"particles\"\nradius = 0.1\nmass = 1.0\npositions = [[0.0, 0.0, 0.0]]"
            );
            super::super::parse(&text, "t.toml", Path::new("."), "t".into())
        };
        assert_eq!(with("0").unwrap().parameters.period_ladder, PeriodLadder::EXACT);
        assert_eq!(with("64").unwrap().parameters.period_ladder.rungs(), 64);
        let e = with("12").unwrap_err();
        assert_eq!(e.place.as_deref(), Some("simulation.period_rungs"), "{e}");
        assert!(e.message.contains("power of two") && e.message.contains("got 12"), "{e}");
        assert!(with("-1").is_err(), "a negative count is refused by the parser");
    }

    #[test]
    fn shell_masses_are_lumped_from_density_and_area() {
        let s = scene(
            "name = \"s\"\nkind = \"shell\"\nmesh = { generator = \"grid\", size = [2.0, 1.0], resolution = [3, 3] }\n\
             density = 0.5\nstretching = 10.0",
        )
        .unwrap();
        let total: Real = s.model.vertices.masses().iter().sum();
        assert!((total - 0.5 * 2.0).abs() < 1e-12, "density × area = {total}");
        assert_eq!(s.forces.iter().filter(|f| f.potential.kind() == "membrane").count(), 8);
    }
}
