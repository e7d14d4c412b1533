//! Phantom meshes: stiff elastic potentials on an implicit step while contact stays asynchronous
//! (Phantom §3.2, eqs. 4–8).
//!
//! A phantom body's elastic and damping potentials (its kind's own: membrane, hinge, tetrahedra,
//! springs, bars) leave the clocks. They act on a *phantom* copy q̃ of the body's vertices, all on
//! one implicit step h (`[simulation] implicit_step`); gravity, scripts, penalty layers, friction
//! and inextensibility stay explicit on the *primary* vertices q, which the frames show. The
//! kinetic energy is split equally (§3.2 condition 3): primary and phantom each carry half of a
//! vertex's mass. At every tick tᵢ = i·h two events couple them:
//!
//! - **implicit** (eq. 7's solve): the phantom takes a variational midpoint step (α = ½),
//!   p̃ᵢ₊½ = p̃ᵢ₋½ − Gᵢ − λᵢh with Gᵢ = (h/2)(∇V(q̃ᵢ₊½) + ∇V(q̃ᵢ₋½)), q̃ᵢ₊½ the midpoint of the
//!   step. With the constraint impulse of eq. 8 eliminated, the step minimises
//!   ½‖x − y‖²_M + h²·V((q̃ᵢ + x)/2) over the next positions x, with the whole mass M and y the
//!   mass-weighted mean of where primary and phantom would drift, less the lagged half of Gᵢ:
//!   the synchronous backend's [`IncrementalPotential`] and Newton solve, reused.
//! - **constraint** (eqs. 6 and 8): the impulse λᵢh that makes primary and phantom, each moving
//!   on at its new velocity, meet again at tᵢ₊₁, in closed form from the primary's velocity now;
//!   the primary gets +λᵢh (eq. 6), the phantom −λᵢh − Gᵢ. Between ticks the primary moves under
//!   its explicit forces only, so the meshes drift apart by what contact does to the primary and
//!   the next constraint pulls them together; without explicit kicks they agree exactly.
//!
//! Linear momentum is conserved to round-off whatever the Newton solve's accuracy: Gᵢ sums to
//! zero (every potential is translation invariant) and the constraint impulses cancel in pairs.
//! Angular momentum: the midpoint rule conserves the discrete momentum map
//! Σ q̃ × m̃ṽ − (h²/4) Σ ṽᵢ₊½ × ∇V(q̃ᵢ₊½), which [`PhantomMeshes::measure`] reports (Marsden and
//! West 2001, §1.5); the constraint impulses carry the torque (qᵢ − q̃ᵢ) × λᵢh, zero while the
//! meshes agree at the tick.

use crate::error::SimulationError;
use crate::events::Clock;
use crate::force::ForceSpec;
use crate::ids::{BodyId, VertexId};
use crate::ledger::{KickKind, Ledger};
use crate::math::{Compact, Real, Time, Vec3};
use crate::model::Model;
use crate::newton::{
    AssemblyCache, HessianForm, IncrementalPotential, KeptFactor, KeptFactorState, LinearSolver, NewtonParameters,
    NewtonReport,
};
use crate::observe::FrameStats;
use crate::potential::{assemble_gradient, gather, restore_tick_states, Potential};
use std::ops::Range;

/// The default implicit step h of phantom bodies, s (Phantom §5 uses 10⁻³ s).
pub const DEFAULT_IMPLICIT_STEP: Real = 1e-3;

/// Iterations before a solve may stop within [`PhantomSettings::loose_tolerance`].
pub const FIRST_ITERATIONS: usize = 20;

/// Which bodies integrate their elastic potentials on a phantom mesh, and how (Phantom §3.2).
///
/// Each implicit step is solved by nonlinear conjugate gradients preconditioned with a sparse
/// Cholesky factor of Φ's Hessian kept across steps
/// ([`IncrementalPotential::minimize_with_kept_factor`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PhantomSettings {
    /// h, the one step of every implicit potential and of the constraints, s (`[simulation]
    /// implicit_step`).
    pub implicit_step: Real,
    /// The phantom bodies (`integration = "phantom"`).
    pub bodies: Vec<BodyId>,
    /// The Newton solve of each implicit step. Its tolerance is tight by default (10⁻⁹ m/s, a step
    /// of 10⁻¹² m at h = 10⁻³ s): the midpoint rule's momentum map is conserved to the solve's
    /// accuracy. Each iteration on the kept factor costs two gradients and two triangular solves,
    /// so up to 200 are allowed (a ribbon knotted tight needed more than 50 at times).
    pub newton: NewtonParameters,
    /// A solve that has not met `newton.tolerance` after [`FIRST_ITERATIONS`] (or after all its
    /// iterations) is taken when its last Newton step is below this · h, m/s (default 10⁻³: 1 µm
    /// at h = 1 ms; the synchronous backend stops at 10⁻² m/s), and counted (`summary.json`
    /// `implicit_loose_steps`). A shell buckling in contact, or cloth compressed as it hangs,
    /// makes Φ non-convex there, and Newton with a semidefinite Hessian converges linearly,
    /// slowly. Linear momentum does not depend on it (the impulses are midpoint forces, which sum
    /// to zero whatever the solve's accuracy); the discrete angular momentum map is met to the
    /// solve's accuracy.
    pub loose_tolerance: Real,
}

impl Default for PhantomSettings {
    fn default() -> Self {
        PhantomSettings {
            implicit_step: DEFAULT_IMPLICIT_STEP,
            bodies: Vec::new(),
            newton: NewtonParameters { tolerance: 1e-9, max_iterations: 200, linear_solver: LinearSolver::Cholesky },
            loose_tolerance: 1e-3,
        }
    }
}

impl PhantomSettings {
    /// True when `body` is a phantom body.
    pub fn is_phantom(&self, body: BodyId) -> bool {
        self.bodies.contains(&body)
    }

    /// Refuses an implicit step that is not a finite number > 0.
    pub fn validate(&self) -> Result<(), SimulationError> {
        if self.bodies.is_empty() || (self.implicit_step.is_finite() && self.implicit_step > 0.0) {
            Ok(())
        } else {
            Err(SimulationError::BadParameter {
                name: "implicit_step",
                message: format!("must be a finite number of seconds > 0, got {}", Compact(self.implicit_step)),
            })
        }
    }
}

/// One phantom body: its phantom vertices and its implicit potentials.
#[derive(Debug)]
struct PhantomBody {
    name: String,
    /// The primary vertices (global ids), one phantom vertex each (local index = id − start).
    vertices: Range<u32>,
    /// The body's elastic and damping potentials, on the phantom (stencils in global ids).
    potentials: Vec<Box<dyn Potential>>,
    /// q̃ at `tick_time`, per local vertex.
    positions: Vec<Vec3>,
    /// ṽ since `tick_time`, per local vertex.
    velocities: Vec<Vec3>,
    /// m̃: each phantom vertex's half of the mass, kg (the primary keeps the other half).
    masses: Vec<Real>,
    /// ∇V at the midpoint of the last completed step (its lagged half enters the next Gᵢ), local.
    last_gradient: Vec<Vec3>,
    /// The step being taken: ∇V at its midpoint and Gᵢ, local (between the implicit and the
    /// constraint event of one tick).
    pending_gradient: Vec<Vec3>,
    pending_impulse: Vec<Vec3>,
    /// Time of the last tick, s.
    tick_time: Real,
    /// The implicit clock: tick i at i·h, from tick 0 at t = 0 (the step from 0 to h is the
    /// first of the midpoint rule, which starts with half the force of its first midpoint: the
    /// discrete Legendre transform of the initial velocities).
    clock: Clock,
    /// The index of the next tick (the clock's ticks are counted from 1; this one from 0).
    next_tick: u64,
    /// The Cholesky factor of the last Hessian, kept across steps (Phantom §4).
    kept: KeptFactor,
    /// The Hessian's block pattern, kept across steps (not in a checkpoint: made again, to the
    /// same bits, from the same stencils).
    assembly: std::sync::Mutex<AssemblyCache>,
}

impl PhantomBody {
    fn local(&self, v: VertexId) -> usize {
        (v.0 - self.vertices.start) as usize
    }

    fn ids(&self) -> impl Iterator<Item = VertexId> {
        self.vertices.clone().map(VertexId)
    }
}

/// One phantom body's raw state, for checks that recompute what the engine measures.
#[derive(Clone, Debug)]
pub struct PhantomState<'a> {
    /// The body's name.
    pub name: &'a str,
    /// Its primary vertices (global ids); phantom vertex k belongs to primary `vertices.start + k`.
    pub vertices: Range<u32>,
    /// The implicit step h, s.
    pub step: Real,
    /// Time of the last tick, s: `positions` are there, and `velocities` hold since.
    pub tick_time: Real,
    /// q̃ at `tick_time` (a held or scripted vertex's phantom is the vertex itself, at rest in
    /// `velocities`).
    pub positions: &'a [Vec3],
    /// ṽ since `tick_time`.
    pub velocities: &'a [Vec3],
    /// m̃, kg: half of each vertex's mass (the primary carries the other half).
    pub masses: &'a [Real],
    /// ∇V at the midpoint of the last step: the momentum map's correction (module docs).
    pub midpoint_gradient: &'a [Vec3],
}

/// The phantom meshes in a checkpoint ([`PhantomMeshes::checkpoint`]).
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct PhantomCheckpoint {
    bodies: Vec<PhantomBodyState>,
    totals: PhantomTotals,
}

/// One phantom body's changing state: its phantom vertices, its step in progress, its clock,
/// its potentials' tick states and its kept Cholesky factor.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct PhantomBodyState {
    positions: Vec<Vec3>,
    velocities: Vec<Vec3>,
    last_gradient: Vec<Vec3>,
    pending_gradient: Vec<Vec3>,
    pending_impulse: Vec<Vec3>,
    tick_time: Real,
    clock: Clock,
    next_tick: u64,
    tick_states: Vec<Vec<Real>>,
    kept: KeptFactorState,
}

/// Totals of the implicit solves, for `summary.json` and `avicontact info`.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PhantomTotals {
    /// Implicit steps taken (all bodies).
    pub steps: u64,
    /// Newton iterations summed over them.
    pub newton_iterations: u64,
    /// Wall seconds in the linear solves.
    pub linear_solve_seconds: f64,
    /// Steps that stopped within [`PhantomSettings::loose_tolerance`] instead of the tight one.
    pub loose_steps: u64,
}

/// Every phantom body of a simulation with its clock (Phantom §3.2, §4).
#[derive(Debug)]
pub struct PhantomMeshes {
    settings: PhantomSettings,
    bodies: Vec<PhantomBody>,
    totals: PhantomTotals,
    /// Scratch over all vertices of the model (the potentials' stencils are global).
    scratch: Scratch,
}

#[derive(Debug, Default)]
struct Scratch {
    masses: Vec<Real>,
    free: Vec<Option<usize>>,
    target: Vec<Vec3>,
    anchor: Vec<Vec3>,
    x: Vec<Vec3>,
    gradient: Vec<Vec3>,
}

/// What [`PhantomMeshes::split`] leaves on the clocks and what it makes implicit.
pub struct Split {
    /// Potentials of explicit bodies, and the explicit ones of phantom bodies (gravity).
    pub explicit: Vec<ForceSpec>,
    /// The phantom meshes, or `None` when no body is phantom.
    pub phantoms: Option<PhantomMeshes>,
}

impl PhantomMeshes {
    /// Takes the potentials of `settings.bodies` out of `specs` onto phantom meshes and gives
    /// each free vertex of those bodies half its mass (the other half is its phantom's).
    pub fn split(
        model: &mut Model,
        specs: Vec<ForceSpec>,
        settings: PhantomSettings,
    ) -> Result<Split, SimulationError> {
        if settings.bodies.is_empty() {
            return Ok(Split { explicit: specs, phantoms: None });
        }
        settings.validate()?;
        let h = settings.implicit_step;
        let mut bodies: Vec<PhantomBody> = settings
            .bodies
            .iter()
            .map(|&id| {
                let body = &model.bodies[id];
                let n = body.vertex_count();
                PhantomBody {
                    name: body.name.clone(),
                    vertices: body.vertices.clone(),
                    potentials: Vec::new(),
                    positions: body.vertices.clone().map(|i| model.vertices.position(VertexId(i))).collect(),
                    velocities: body.vertices.clone().map(|i| model.vertices.velocity(VertexId(i))).collect(),
                    masses: vec![0.0; n],
                    last_gradient: vec![Vec3::zeros(); n],
                    pending_gradient: vec![Vec3::zeros(); n],
                    pending_impulse: vec![Vec3::zeros(); n],
                    tick_time: 0.0,
                    clock: Clock::new(h),
                    next_tick: 0,
                    kept: KeptFactor::default(),
                    assembly: Default::default(),
                }
            })
            .collect();
        let mut explicit = Vec::with_capacity(specs.len());
        for mut spec in specs {
            match spec.body.and_then(|b| settings.bodies.iter().position(|&p| p == b)) {
                Some(k) => {
                    spec.potential.bind_period(h);
                    spec.potential.bind_ledger_window(2.0 * h);
                    bodies[k].potentials.push(spec.potential);
                }
                None => explicit.push(spec),
            }
        }
        for body in &mut bodies {
            for (local, i) in body.vertices.clone().enumerate() {
                let v = VertexId(i);
                let half = 0.5 * model.vertices.mass(v);
                body.masses[local] = half;
                model.vertices.set_mass(v, half);
            }
        }
        let n = model.vertices.len();
        let scratch = Scratch {
            masses: vec![0.0; n],
            free: vec![None; n],
            target: vec![Vec3::zeros(); n],
            anchor: vec![Vec3::zeros(); n],
            x: vec![Vec3::zeros(); n],
            gradient: vec![Vec3::zeros(); n],
        };
        Ok(Split {
            explicit,
            phantoms: Some(PhantomMeshes { settings, bodies, totals: PhantomTotals::default(), scratch }),
        })
    }

    /// The settings the meshes were made with.
    pub fn settings(&self) -> &PhantomSettings {
        &self.settings
    }

    /// Number of phantom bodies.
    pub fn len(&self) -> usize {
        self.bodies.len()
    }

    /// True when there is no phantom body.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// Every phantom body's name, vertex count and implicit potentials.
    pub fn describe(&self) -> impl Iterator<Item = (&str, usize, &[Box<dyn Potential>])> {
        self.bodies.iter().map(|b| (b.name.as_str(), b.vertices.len(), b.potentials.as_slice()))
    }

    /// Every implicit potential.
    pub fn potentials(&self) -> impl Iterator<Item = &dyn Potential> {
        self.bodies.iter().flat_map(|b| b.potentials.iter().map(|p| p.as_ref()))
    }

    /// Every phantom body's raw state.
    pub fn states(&self) -> impl Iterator<Item = PhantomState<'_>> {
        self.bodies.iter().map(|b| PhantomState {
            name: &b.name,
            vertices: b.vertices.clone(),
            step: b.clock.period(),
            tick_time: b.tick_time,
            positions: &b.positions,
            velocities: &b.velocities,
            masses: &b.masses,
            midpoint_gradient: &b.last_gradient,
        })
    }

    /// Totals of the implicit solves so far.
    pub fn totals(&self) -> PhantomTotals {
        self.totals
    }

    /// Everything the implicit steps change, for a checkpoint ([`crate::checkpoint`]).
    pub(crate) fn checkpoint(&self) -> PhantomCheckpoint {
        PhantomCheckpoint {
            bodies: self
                .bodies
                .iter()
                .map(|b| PhantomBodyState {
                    positions: b.positions.clone(),
                    velocities: b.velocities.clone(),
                    last_gradient: b.last_gradient.clone(),
                    pending_gradient: b.pending_gradient.clone(),
                    pending_impulse: b.pending_impulse.clone(),
                    tick_time: b.tick_time,
                    clock: b.clock,
                    next_tick: b.next_tick,
                    tick_states: b.potentials.iter().map(|p| p.tick_state()).collect(),
                    kept: b.kept.state(),
                })
                .collect(),
            totals: self.totals,
        }
    }

    /// Puts back a [`checkpoint`](Self::checkpoint) of meshes made from the same scene; the
    /// error says what does not fit.
    pub(crate) fn restore(&mut self, checkpoint: PhantomCheckpoint) -> Result<(), String> {
        if checkpoint.bodies.len() != self.bodies.len() {
            return Err(format!(
                "{} phantom bodies saved, {} in the scene",
                checkpoint.bodies.len(),
                self.bodies.len()
            ));
        }
        for (body, state) in self.bodies.iter_mut().zip(checkpoint.bodies) {
            let n = body.masses.len();
            let fits = [&state.positions, &state.velocities, &state.last_gradient, &state.pending_gradient]
                .iter()
                .all(|v| v.len() == n)
                && state.pending_impulse.len() == n
                && state.clock.period().to_bits() == body.clock.period().to_bits();
            if !fits {
                return Err(format!("phantom body {}: the saved state does not fit its mesh", body.name));
            }
            restore_tick_states(&mut body.potentials, &state.tick_states)
                .map_err(|e| format!("phantom body {}: {e}", body.name))?;
            body.kept = KeptFactor::from_state(state.kept).map_err(|e| format!("phantom body {}: {e}", body.name))?;
            body.positions = state.positions;
            body.velocities = state.velocities;
            body.last_gradient = state.last_gradient;
            body.pending_gradient = state.pending_gradient;
            body.pending_impulse = state.pending_impulse;
            body.tick_time = state.tick_time;
            body.clock = state.clock;
            body.next_tick = state.next_tick;
        }
        self.totals = checkpoint.totals;
        Ok(())
    }

    /// The primary vertices of body `body`, which its constraint event kicks.
    pub fn stencil(&self, body: usize) -> Vec<VertexId> {
        self.bodies[body].ids().collect()
    }

    /// Where body `body`'s phantom vertex of primary vertex `v` is at time `t` (between its ticks).
    pub fn phantom_position(&self, model: &Model, body: usize, v: VertexId, t: Real) -> Vec3 {
        let b = &self.bodies[body];
        if model.vertices.inverse_mass(v) > 0.0 {
            let a = b.local(v);
            b.positions[a] + b.velocities[a] * (t - b.tick_time)
        } else {
            model.vertices.position_at(v, t)
        }
    }

    /// The implicit event of body `body` at its tick `t` (Phantom §3.2, eq. 7): drifts the
    /// phantom to `t`, solves the midpoint step with Newton, and keeps Gᵢ for the constraint
    /// event, which the caller schedules at the same time. Returns the tick index.
    pub fn implicit(&mut self, body: usize, t: Time, model: &mut Model) -> Result<u64, SimulationError> {
        let PhantomMeshes { settings, bodies, totals, scratch } = self;
        let b = &mut bodies[body];
        let k = b.next_tick;
        debug_assert_eq!(b.clock.time_of(k), t, "law 4: an implicit event off its clock");
        b.next_tick += 1;
        let (t, h) = (t.seconds(), b.clock.period());
        let vertices = &mut model.vertices;
        // the phantom drifts to the tick; primaries drift to it (their velocity before λᵢ)
        for a in 0..b.positions.len() {
            let v = VertexId(b.vertices.start + a as u32);
            vertices.drift_to(v, t);
            b.positions[a] = if vertices.inverse_mass(v) > 0.0 {
                b.positions[a] + b.velocities[a] * (t - b.tick_time)
            } else {
                vertices.position(v)
            };
        }
        b.tick_time = t;
        // Φ(x) = ½‖x − y‖²_M + h²·V((q̃ + x)/2), M the whole mass, y where the mass-weighted mean
        // of primary and phantom drifts to, less the lagged half of Gᵢ
        let mut dofs = 0;
        for (a, i) in b.vertices.clone().enumerate() {
            let v = VertexId(i);
            let gi = i as usize;
            if vertices.inverse_mass(v) > 0.0 {
                let (mp, mq) = (vertices.mass(v), b.masses[a]);
                let m = mp + mq;
                let primary = vertices.position(v) + vertices.velocity(v) * h;
                let phantom = b.positions[a] + b.velocities[a] * h;
                scratch.masses[gi] = m;
                scratch.free[gi] = Some(dofs);
                dofs += 1;
                scratch.target[gi] = (primary * mp + phantom * mq) / m - b.last_gradient[a] * (0.5 * h * h / m);
                scratch.anchor[gi] = b.positions[a];
                scratch.x[gi] = b.positions[a];
            } else {
                scratch.masses[gi] = vertices.mass(v);
                scratch.free[gi] = None;
                scratch.anchor[gi] = vertices.position_at(v, t);
                scratch.x[gi] = vertices.position_at(v, t + h);
                scratch.target[gi] = scratch.x[gi];
            }
        }
        let phi = IncrementalPotential {
            potentials: &b.potentials,
            masses: &scratch.masses,
            free: &scratch.free,
            target: &scratch.target,
            anchor: &scratch.anchor,
            inertia_weight: 1.0,
            potential_weight: h * h,
            blend: 0.5,
            contact: None,
            hessian_form: HessianForm::GaussNewton,
            assembly: Some(&b.assembly),
        };
        phi.move_to_feasible_start(&mut scratch.x);
        let failed = |reason: String| SimulationError::ImplicitSolve { body: b.name.clone(), time: t, reason };
        let loose = |r: &NewtonReport| r.last_step <= settings.loose_tolerance * h;
        let mut params = settings.newton;
        params.max_iterations = settings.newton.max_iterations.min(FIRST_ITERATIONS);
        let mut report = phi.minimize_with_kept_factor(&mut scratch.x, h, &params, &mut b.kept);
        if let Ok(first) = report {
            if !first.converged && !loose(&first) && settings.newton.max_iterations > FIRST_ITERATIONS {
                params.max_iterations = settings.newton.max_iterations - FIRST_ITERATIONS;
                report =
                    phi.minimize_with_kept_factor(&mut scratch.x, h, &params, &mut b.kept).map(|more| NewtonReport {
                        iterations: first.iterations + more.iterations,
                        linear_solve_seconds: first.linear_solve_seconds + more.linear_solve_seconds,
                        ..more
                    });
            }
        }
        // the free map must name this body's vertices only when the next body solves
        for i in b.vertices.clone() {
            scratch.free[i as usize] = None;
        }
        let report = report.map_err(|e| failed(e.to_string()))?;
        totals.steps += 1;
        totals.newton_iterations += report.iterations as u64;
        totals.linear_solve_seconds += report.linear_solve_seconds;
        if !report.converged {
            if !loose(&report) {
                return Err(failed(format!(
                    "Newton did not converge in {} iterations (last step {} m; the step is taken below {} m, \
                     or {} m loosely); lower [simulation] implicit_step",
                    report.iterations,
                    Compact::rounded(report.last_step, 3),
                    Compact::rounded(settings.newton.tolerance * h, 3),
                    Compact::rounded(settings.loose_tolerance * h, 3)
                )));
            }
            totals.loose_steps += 1;
        }
        // ∇V at the midpoint, and Gᵢ = (h/2)(∇V(q̃ᵢ₊½) + ∇V(q̃ᵢ₋½))
        for i in b.vertices.clone() {
            let gi = i as usize;
            scratch.x[gi] = (scratch.x[gi] + scratch.anchor[gi]) * 0.5;
            scratch.gradient[gi] = Vec3::zeros();
        }
        assemble_gradient(b.potentials.iter().map(|p| p.as_ref()), &scratch.x, &mut scratch.gradient);
        for (a, i) in b.vertices.clone().enumerate() {
            let g = scratch.gradient[i as usize];
            b.pending_gradient[a] = g;
            b.pending_impulse[a] = (g + b.last_gradient[a]) * (0.5 * h);
        }
        if !b.pending_impulse.iter().all(|g| g.iter().all(|c| c.is_finite())) {
            return Err(failed("the implicit forces are not finite (an inverted element?)".to_string()));
        }
        Ok(k)
    }

    /// The constraint event of body `body` at its tick `t` (Phantom §3.2, eqs. 6 and 8): the
    /// impulse λᵢh that makes primary and phantom meet at the next tick, applied to the primary
    /// (through the ledger) and, with −Gᵢ, to the phantom; the dampers end their tick. Returns
    /// the tick index.
    pub fn constrain(
        &mut self,
        body: usize,
        t: Time,
        model: &mut Model,
        ledger: &mut Ledger,
    ) -> Result<u64, SimulationError> {
        let PhantomMeshes { bodies, scratch, .. } = self;
        let b = &mut bodies[body];
        let (t, h) = (t.seconds(), b.clock.period());
        let vertices = &mut model.vertices;
        for a in 0..b.positions.len() {
            let v = VertexId(b.vertices.start + a as u32);
            let impulse = b.pending_impulse[a];
            if vertices.inverse_mass(v) > 0.0 {
                vertices.drift_to(v, t);
                let (mp, mq) = (vertices.mass(v), b.masses[a]);
                let reduced = mp * mq / (mp + mq);
                // q + h(v + λh/m_p) = q̃ + h(ṽ − (λh + Gᵢ)/m̃)  (eq. 8)
                let gap = (b.positions[a] - vertices.position(v)) / h + b.velocities[a] - vertices.velocity(v);
                let lambda_h = (gap - impulse / mq) * reduced;
                let before = vertices.velocity(v) - b.velocities[a];
                // the ledger's kicks are in h·∇V: v ← v − impulse/m
                ledger.kick(vertices, v, -lambda_h, t, KickKind::Conservative);
                b.velocities[a] -= (lambda_h + impulse) / mq;
                // Kinetic energy is that of the pair's centre of mass, which only Gᵢ moves (its
                // work is the midpoint rule's), plus ½μ|v − ṽ|² of their relative motion, which
                // only λᵢh changes: contact kicks put it in, the constraint takes it out as the
                // meshes close up (an inelastic internal impact), booked as dissipated
                let after = vertices.velocity(v) - b.velocities[a];
                ledger.dissipated += 0.5 * reduced * (before.norm_squared() - after.norm_squared());
            } else {
                // a held or scripted vertex: its phantom follows it; the implicit forces on it are
                // the script's work
                ledger.kick(vertices, v, impulse, t, KickKind::Conservative);
                b.velocities[a] = Vec3::zeros();
            }
        }
        std::mem::swap(&mut b.last_gradient, &mut b.pending_gradient);
        // the dampers' reference strain moves to this step's midpoint (which the implicit event
        // left in `scratch.x` at this body's vertices; other bodies touch only theirs); they book
        // what they took
        let mut local = Vec::new();
        for p in b.potentials.iter_mut().filter(|p| p.is_dissipative() || p.is_plastic()) {
            gather(p.stencil(), &scratch.x, &mut local);
            ledger.dissipated += p.end_tick(&local);
        }
        Ok(b.next_tick - 1)
    }

    /// The time of body `body`'s next implicit tick (the first is at t = 0).
    pub fn next_tick(&self, body: usize) -> Time {
        let b = &self.bodies[body];
        b.clock.time_of(b.next_tick)
    }

    /// Adds the phantoms to a frame's numbers at time `t`: their kinetic energy (the other half of
    /// the mass), momentum and the midpoint rule's momentum map (module docs), and the implicit
    /// potentials' energy at the phantom positions.
    pub fn measure(&self, model: &Model, t: Real, stats: &mut FrameStats) {
        let mut positions = vec![Vec3::zeros(); model.vertices.len()];
        let mut local = Vec::new();
        for (k, b) in self.bodies.iter().enumerate() {
            let h = b.clock.period();
            for (a, v) in b.ids().enumerate() {
                positions[v.index()] = self.phantom_position(model, k, v, t);
                if model.vertices.inverse_mass(v) > 0.0 {
                    let (m, vel) = (b.masses[a], b.velocities[a]);
                    stats.kinetic += 0.5 * m * vel.norm_squared();
                    stats.momentum += vel * m;
                    stats.angular_momentum +=
                        positions[v.index()].cross(&(vel * m)) - vel.cross(&b.last_gradient[a]) * (0.25 * h * h);
                }
            }
            for p in b.potentials.iter().filter(|p| !p.is_dissipative()) {
                gather(p.stencil(), &positions, &mut local);
                stats.potential += p.energy(&local);
            }
        }
    }
}
