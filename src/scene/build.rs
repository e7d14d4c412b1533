//! From a parsed scene file to a model and potentials, with every value checked: the sections
//! here, each body by its kind in `body/`.

use super::body::{self, ParsedBody};
use super::context::{quoted_or, Ctx};
use super::memory::MemoryPlan;
use super::schema::{self, SceneFile};
use super::{Backend, Scene, SceneError};
use crate::avi::phantom::DEFAULT_IMPLICIT_STEP;
use crate::avi::{BroadPhaseKind, ContactSettings, ContactVariant, PhantomSettings};
use crate::contact::LayerSchedule;
use crate::events::PeriodLadder;
use crate::ids::VertexId;
use crate::math::{Compact, Real, Vec3};
use crate::model::Model;
use crate::simulation::SimulationParameters;
use crate::sync::{
    ContactModel, EnergyTarget, IntegratorKind, IpcParameters, LinearSolver, SolverKind, SyncParameters,
};
use std::path::Path;

/// The smallest `[contact] broad_phase_slack` accepted, as a fraction of η(1).
const MIN_SLACK_PER_THICKNESS: f64 = 1e-3;

/// Builds the scene: `raw`'s sections, then `bodies` in order.
pub(super) fn build(
    raw: SceneFile,
    bodies: Vec<ParsedBody>,
    file: &str,
    base: &Path,
    name: String,
) -> Result<Scene, SceneError> {
    let memory = MemoryPlan::new(raw.contact.is_some()).map_err(|message| SceneError {
        file: file.to_string(),
        place: None,
        message,
    })?;
    let contact_thickness = raw.contact.as_ref().map(|c| c.thickness.unwrap_or(LayerSchedule::default().thickness));
    let ctx = Ctx { file, memory, contact_thickness, warnings: Default::default() };
    let sim = &raw.simulation;
    let mut warnings = Vec::new();
    let Simulation { period_ladder, gravity, common_period, implicit_step } = check_simulation(&ctx, sim)?;
    let backend = match sim.backend.as_deref() {
        None => Backend::NAMES[0].1,
        Some(name) => Backend::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Backend::NAMES.iter().map(|(n, _)| *n).collect();
            ctx.err("simulation.backend", format!("unknown backend \"{name}\"; use {}", quoted_or(&names)))
        })?,
    };
    if let Some(c) = &raw.contact {
        check_contact(&ctx, c)?;
        warnings.extend(contact_warnings(file, c));
    }
    let mut sync = sync_parameters(&ctx, raw.sync.as_ref())?;
    match &raw.contact {
        None => sync.contact = None, // IPC only for scenes with [contact]
        Some(c) => {
            if let Some(ipc) = &mut sync.contact {
                ipc.friction = c.friction.unwrap_or(0.0);
            }
            if let Some(name) = &c.model {
                sync.contact_model =
                    ContactModel::NAMES.iter().find(|(n, _)| n == name).map(|&(_, m)| m).ok_or_else(|| {
                        let names: Vec<&str> = ContactModel::NAMES.iter().map(|(n, _)| *n).collect();
                        ctx.err("contact.model", format!("unknown contact model \"{name}\"; use {}", quoted_or(&names)))
                    })?;
                if sync.contact_model == ContactModel::PredictorCorrector && backend != Backend::Sync {
                    return Err(ctx.err(
                        "contact.model",
                        "\"predictor-corrector\" is the synchronous backend's contact (Higher-order §4); the AVI \
                         backend's contact is its penalty layers: set [simulation] backend = \"sync\" or remove the key",
                    ));
                }
            }
        }
    }
    if bodies.is_empty() {
        return Err(ctx.err("body", "the scene has no [[body]]; add at least one body"));
    }

    let mut model = Model::new();
    let mut forces = Vec::new();
    let mut phantom =
        PhantomSettings { implicit_step: implicit_step.unwrap_or(DEFAULT_IMPLICIT_STEP), ..Default::default() };
    for (index, parsed) in bodies.iter().enumerate() {
        let place = format!("body[{index}] \"{}\"", parsed.name);
        if bodies[..index].iter().any(|b| b.name == parsed.name) {
            return Err(ctx.err(format!("{place}.name"), "another body has the same name; body names must be unique"));
        }
        let (id, integration) =
            body::build_body(&ctx, &place, parsed, base, gravity, common_period, &mut model, &mut forces)?;
        if integration == body::Integration::Phantom {
            phantom.bodies.push(id);
        }
    }
    warnings.extend(ctx.warnings.take());
    super::wind::add_winds(&ctx, &raw.wind, &model, common_period, &mut forces)?;
    super::loads::add_loads(&ctx, &raw.load, &model, common_period, &mut forces)?;
    if implicit_step.is_some() && phantom.bodies.is_empty() {
        warnings.push(
            "[simulation] implicit_step is set, but no body has integration = \"phantom\": it is not used".to_string(),
        );
    }
    if raw.contact.is_none() {
        if let Some((index, parsed)) = bodies.iter().enumerate().find(|(_, b)| b.inextensible().is_some()) {
            return Err(ctx.err(
                format!("body[{index}] \"{}\".inextensible", parsed.name),
                "inextensible edges are enforced by penalty layers: add a [contact] table (its stiffness is their r(1))",
            ));
        }
    }
    if let (Some(_), Some(d)) = (&raw.contact, raw.sync.as_ref().and_then(|s| s.barrier_distance)) {
        let across = scene_size(&model);
        if d > across {
            return Err(ctx.err(
                "sync.barrier_distance",
                format!(
                    "d̂ = {} m is larger than the whole scene ({} m across); it is the distance below which a pair \
                     feels the IPC barrier, so every pair would feel it from the start (and its energy, about \
                     κ·d̂²·ln(d̂/d), overflows for huge d̂); give a small distance, below the gaps between the \
                     bodies (default {} m)",
                    Compact(d),
                    Compact::rounded(across, 4),
                    IpcParameters::default().activation
                ),
            ));
        }
    }
    if let Some(tolerance) = raw.sync.as_ref().and_then(|s| s.newton_tolerance) {
        let across = scene_size(&model);
        let step = tolerance * sync.timestep;
        if step >= across && across > 0.0 {
            return Err(ctx.err(
                "sync.newton_tolerance",
                format!(
                    "Newton stops once its step is below newton_tolerance · timestep = {} m, more than the whole \
                     scene ({} m across): every solve would stop after one iteration, unconverged; give a \
                     tolerance well below {} m/s (default {} m/s)",
                    Compact::rounded(step, 4),
                    Compact::rounded(across, 4),
                    Compact::rounded(across / sync.timestep, 4),
                    Compact(crate::sync::NewtonParameters::default().tolerance)
                ),
            ));
        }
    }
    let contact_violation = raw.contact.as_ref().and_then(|c| {
        let thickness = c.thickness.unwrap_or(0.01);
        // No guarantee can hold from a start inside the layers (or intersecting): the AVI
        // backend refuses it; the synchronous backend's barrier only needs a positive gap and
        // checks that itself.
        let v = crate::contact::closest_violation(&model, thickness)?;
        let what = if v.gap <= 0.0 { "intersect" } else { "are closer than the contact thickness" };
        let message = format!(
            "at t = 0, {} and {} {what} (gap {:.3e} m, thickness η(1) = {} m); move the bodies apart or \
             lower [contact] thickness",
            describe(&model, &v.a),
            describe(&model, &v.b),
            v.gap,
            Compact(thickness)
        );
        Some(SceneError { file: file.to_string(), place: Some("contact.thickness".into()), message })
    });
    let contact = raw.contact.as_ref().map(|c| contact_settings(&ctx, c)).transpose()?;
    let parameters = SimulationParameters {
        duration: sim.duration,
        frame_rate: sim.frame_rate,
        gravity,
        safety_factor: sim.safety_factor,
        period_ladder,
        contact,
        phantom,
    };
    Ok(Scene { name, path: None, model, forces, parameters, backend, sync, warnings, contact_violation })
}

/// The diagonal of the box around every vertex of `model`, m.
fn scene_size(model: &Model) -> Real {
    let mut lo = Vec3::repeat(Real::INFINITY);
    let mut hi = Vec3::repeat(Real::NEG_INFINITY);
    for i in 0..model.vertices.len() {
        let x = model.vertices.position(VertexId(i as u32));
        lo = lo.inf(&x);
        hi = hi.sup(&x);
    }
    (hi - lo).norm()
}

/// What `[simulation]` gives the bodies, checked.
struct Simulation {
    period_ladder: PeriodLadder,
    gravity: Vec3,
    /// `period`: one common clock period.
    common_period: Option<Real>,
    /// `implicit_step`: the phantom bodies' step.
    implicit_step: Option<Real>,
}

fn check_simulation(ctx: &Ctx, sim: &schema::SimulationSection) -> Result<Simulation, SceneError> {
    if !(sim.duration.is_finite() && sim.duration > 0.0) {
        return Err(ctx.err(
            "simulation.duration",
            format!("must be a finite number of seconds > 0, got {}", Compact(sim.duration)),
        ));
    }
    if !(sim.frame_rate.is_finite() && sim.frame_rate > 0.0) {
        return Err(ctx.err(
            "simulation.frame_rate",
            format!("must be a finite number of frames per second > 0, got {}", Compact(sim.frame_rate)),
        ));
    }
    if !(sim.safety_factor > 0.0 && sim.safety_factor <= 1.0) {
        return Err(
            ctx.err("simulation.safety_factor", format!("must be in (0, 1], got {}", Compact(sim.safety_factor)))
        );
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
        Some(h) => {
            return Err(
                ctx.err("simulation.period", format!("must be a finite period in seconds > 0, got {}", Compact(h)))
            )
        }
    };
    let implicit_step = match sim.implicit_step {
        None => None,
        Some(h) if h.is_finite() && h > 0.0 => Some(h),
        Some(h) => {
            return Err(ctx.err(
                "simulation.implicit_step",
                format!(
                    "must be a finite step in seconds > 0, got {}; it is the one step of the phantom bodies' \
                     elastic potentials (default {} s)",
                    Compact(h),
                    DEFAULT_IMPLICIT_STEP
                ),
            ))
        }
    };
    Ok(Simulation { period_ladder, gravity, common_period, implicit_step })
}

fn sync_parameters(ctx: &Ctx, s: Option<&schema::SyncSection>) -> Result<SyncParameters, SceneError> {
    let mut p = SyncParameters { contact: Some(IpcParameters::default()), ..SyncParameters::default() };
    let Some(s) = s else { return Ok(p) };
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
    if let Some(name) = &s.solver {
        p.solver = SolverKind::NAMES.iter().find(|(n, _)| n == name).map(|&(_, kind)| kind).ok_or_else(|| {
            let names: Vec<&str> = SolverKind::NAMES.iter().map(|(n, _)| *n).collect();
            ctx.err("sync.solver", format!("unknown solver \"{name}\"; use one of {}", names.join(", ")))
        })?;
    }
    if let Some(n) = s.local_global_iterations {
        let SolverKind::LocalGlobal { iterations } = &mut p.solver else {
            return Err(ctx.err(
                "sync.local_global_iterations",
                "applies to solver = \"local-global\" only; set that solver or remove the key",
            ));
        };
        if n == 0 {
            return Err(ctx.err("sync.local_global_iterations", "must be at least 1 (the paper uses 10)"));
        }
        *iterations = n as usize;
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
                Some(g) => {
                    return Err(ctx.err("sync.energy_target.ground", format!("must be finite, got {}", Compact(g))))
                }
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
        None => IntegratorKind::ASearch { target, alpha_range },
        Some(name) => match IntegratorKind::from_name(name) {
            Some(IntegratorKind::ASearch { .. }) => IntegratorKind::ASearch { target, alpha_range },
            Some(kind) => kind,
            None => {
                let names: Vec<&str> = IntegratorKind::NAMES.iter().map(|(n, _)| *n).collect();
                return Err(ctx.err(
                    "sync.integrator",
                    format!("unknown integrator \"{name}\"; use one of {}", names.join(", ")),
                ));
            }
        },
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
            return Err(ctx.err("contact.restitution", format!("must be in [0, 1], got {}", Compact(e))));
        }
    }
    ctx.non_negative("contact", "friction", c.friction, "the Coulomb coefficient μ is ≥ 0")?;
    match c.broad_phase.as_deref() {
        Some(name) if BroadPhaseKind::from_name(name, None).is_none() => Err(ctx.err(
            "contact.broad_phase",
            format!("unknown broad phase \"{name}\"; use {}", quoted_or(&BroadPhaseKind::NAMES)),
        )),
        _ => Ok(()),
    }
}

/// `[contact]`'s broad phase (its name checked by [`check_contact`]; the hash grid, the first of
/// [`BroadPhaseKind::NAMES`], when not given), with the hash grid's `cell_size` unchecked.
fn broad_phase(c: &schema::ContactSection) -> BroadPhaseKind {
    let name = c.broad_phase.as_deref().unwrap_or(BroadPhaseKind::NAMES[0]);
    BroadPhaseKind::from_name(name, c.cell_size).unwrap_or_default()
}

/// Keys a checked `[contact]` gives that its broad phase ignores.
fn contact_warnings(file: &str, c: &schema::ContactSection) -> Vec<String> {
    let mut warnings = Vec::new();
    let kind = broad_phase(c);
    if let (BroadPhaseKind::Kdop | BroadPhaseKind::AllPairs, Some(_)) = (kind, c.cell_size) {
        warnings.push(format!(
            "{file}: contact.cell_size: only the hash grid has cells; broad_phase = \"{}\" ignores it",
            kind.name()
        ));
    }
    if let (BroadPhaseKind::AllPairs, Some(_)) = (kind, c.broad_phase_slack) {
        warnings.push(format!(
            "{file}: contact.broad_phase_slack: all pairs keep every pair for the whole run; broad_phase = \"all-pairs\" ignores it"
        ));
    }
    warnings
}

/// `[contact]` as AVI contact settings, every value checked.
fn contact_settings(ctx: &Ctx, c: &schema::ContactSection) -> Result<ContactSettings, SceneError> {
    Ok(ContactSettings {
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
                    format!("must be in (0, 1], got {}; layer l ticks every safety_factor · 2/√(r(l)·Σ1/m), and a bounce needs many ticks (default {})", ContactSettings::DEFAULT_SAFETY, Compact(f)),
                ))
            }
        },
        tolerance: match c.tolerance {
            None => ContactSettings::DEFAULT_TOLERANCE,
            t => ctx.non_negative("contact", "tolerance", t, "the vague-trajectory tolerance ε is in m/s (ACM §5.3)")?,
        },
        profitability: match c.profitability {
            None => 1.1,
            Some(p) if p > 1.0 && p <= ContactSettings::MAX_PROFITABILITY => p,
            Some(p) => {
                return Err(ctx.err(
                    "contact.profitability",
                    format!(
                        "must be in (1, {}], got {}; it is a ratio, not a distance: a slab for layer l is built only \
                         when the gap exceeds this factor times η(l), otherwise layer l is switched on, so a pair \
                         starts with up to profitability⁴ layers and the broad phase reaches profitability·η(1) \
                         (ACM §5.1 uses 1.1, the default)",
                        ContactSettings::MAX_PROFITABILITY,
                        Compact(p)
                    ),
                ))
            }
        },
        restitution: c.restitution.unwrap_or(1.0),
        friction: c.friction.unwrap_or(0.0),
        variant: ContactVariant::RegularLayers,
        broad_phase: match broad_phase(c) {
            BroadPhaseKind::HashGrid { cell_size: Some(size) } => BroadPhaseKind::HashGrid {
                cell_size: Some(ctx.positive(
                    "contact",
                    "cell_size",
                    Some(size),
                    "the hash grid's cell side in m (default: twice the mean edge length)",
                )?),
            },
            other => other,
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
    })
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
    fn a_smooth_ribbon_takes_any_width_count_and_a_twist() {
        let ribbon = |extra: &str| {
            scene(&format!(
                "name = \"r\"\nkind = \"shell\"\ndensity = 0.1\nstretching = 10.0\nmesh = {{ generator = \"ribbon\", \
                 width = 0.02, segments = 12, path = [[0.0, 0.0, 0.0], [0.1, 0.05, 0.0], [0.2, 0.0, 0.02]]{extra} }}"
            ))
        };
        let s = ribbon(", across = 4, twist = 45.0, smooth = true").unwrap();
        assert_eq!(s.model.vertices.len(), 13 * 4);
        assert_eq!(s.forces.iter().filter(|f| f.potential.kind() == "membrane").count(), 12 * 3 * 2);
        // the spline passes through the middle control point: sample 6 of 12 is near it (even arc length)
        let mid = (0..4).map(|j| s.model.vertices.position(VertexId(6 * 4 + j))).sum::<Vec3>() / 4.0;
        assert!((mid - Vec3::new(0.1, 0.05, 0.0)).norm() < 0.01, "{mid}");
        assert_eq!(ribbon("").unwrap().model.vertices.len(), 13 * 2, "two across by default");
        let e = ribbon(", across = 1").map(drop).expect_err("refused");
        assert!(e.place.as_deref().is_some_and(|p| p.ends_with("mesh")) && e.message.contains("`across`"), "{e}");
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
