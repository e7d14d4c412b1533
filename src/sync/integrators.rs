//! The synchronous integrators, each a small piece on the shared Newton machinery.
//!
//! Every implicit step minimises an incremental potential Φ(x) = (w/2)‖x − x̃‖²_M +
//! s·V(a·x + (1 − a)·x_n) ([`IncrementalPotential`]) and then sets the velocity:
//!
//! | integrator | x̃ | w | s | a | v_{n+1} |
//! |---|---|---|---|---|---|
//! | implicit Euler | x_n + h v_n | 1/h² | 1 | 1 | (x − x_n)/h |
//! | BDF2 (IE first) | (4x_n − x_{n−1})/3 + 2h(4v_n − v_{n−1})/9 | 9/(4h²) | 1 | 1 | (3x − 4x_n + x_{n−1})/(2h) |
//! | implicit midpoint | x_n + h v_n | 2/h² | 2 | ½ | 2(x − x_n)/h − v_n |
//! | trapezoid | x_n + h v_n − (h²/4) M⁻¹∇V(x_n) | 4/h² | 1 | 1 | 2(x − x_n)/h − v_n |
//! | A-1, A-search (A-search §4, Algorithm 1) | as implicit Euler | | | | w − αΔv, Δv = hM⁻¹(∇P(x_n) − ∇P(x_{n+1})) |
//! | SDIRK2, TR-BDF2 ([`DiagonallyImplicitRk`]) | per stage | 1/(h a_ii)² | 1 | 1 | the last stage's |
//! | blend ([`Blend`]) | implicit midpoint, then backward or forward Euler | | | | blended by α |
//!
//! ROS3PL ([`Ros3pl`]) minimises nothing: a Rosenbrock method solves one linear system per stage.
//!
//! A-1 fixes α = 1; A-search picks α each step so the energy meets its target (root of a
//! quadratic closest to 1, clipped to [α_min, α_max]); damping stays in the implicit solve and out
//! of the correction, and the energy target is lowered by what damping dissipates.

use super::ipc::IpcContact;
use super::local_global::LocalGlobal;
use crate::math::{Real, Vec3};
use crate::newton::{FactoredSystem, IncrementalPotential, NewtonError, NewtonParameters};
use crate::observe::StepEstimate;
use crate::potential::{assemble_gradient, gather, Potential};
use nalgebra::DVector;

/// The state and context of one step.
pub struct Step<'a> {
    /// The potentials (dissipative ones included).
    pub potentials: &'a mut [Box<dyn Potential>],
    /// Lumped masses per vertex, kg.
    pub masses: &'a [Real],
    /// Free-vertex index per vertex (`None`: held or scripted).
    pub free: &'a [Option<usize>],
    /// In: x_n. Out: x_{n+1}.
    pub x: &'a mut [Vec3],
    /// In: v_n. Out: v_{n+1}.
    pub v: &'a mut [Vec3],
    /// Every vertex's prescribed position at t_{n+1} (used for held and scripted vertices).
    pub prescribed: &'a [Vec3],
    /// Time step h, s.
    pub h: Real,
    /// Newton tunables.
    pub newton: NewtonParameters,
    /// IPC contact, if the scene has contact.
    pub contact: Option<&'a IpcContact>,
    /// The Newton systems' block pattern and Cholesky analysis, kept across steps.
    pub assembly: Option<&'a std::sync::Mutex<crate::newton::AssemblyCache>>,
}

/// What one step did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepReport {
    /// Newton iterations.
    pub newton_iterations: usize,
    /// Whether Newton met its tolerance.
    pub converged: bool,
    /// Energy dissipated by damping during the step (2·D(x_{n+1}) summed), J.
    pub dissipated: Real,
    /// The α of A-1 / A-search.
    pub alpha: Option<Real>,
    /// Wall-clock seconds in linear solves.
    pub linear_solve_seconds: f64,
    /// The embedded error estimate of methods that have one (ROS3PL).
    pub estimate: Option<StepEstimate>,
}

/// A synchronous time integrator.
pub trait Integrator: std::fmt::Debug + Send + Sync {
    /// Its name as written in scene files.
    fn name(&self) -> &'static str;

    /// Advances `step.x`, `step.v` by one step.
    fn step(&mut self, step: Step<'_>) -> Result<StepReport, NewtonError>;

    /// What the integrator carries from one step to the next (BDF2's previous state, an energy
    /// target), as numbers, for a checkpoint; empty (the default) for one-step methods.
    fn carried_state(&self) -> Vec<Real> {
        Vec::new()
    }

    /// Puts back what [`Integrator::carried_state`] returned; false (nothing changed) when
    /// `state` is not of this integrator's shape.
    fn restore_carried_state(&mut self, state: &[Real]) -> bool {
        state.is_empty()
    }
}

/// An optional number as checkpoint numbers: `[]` or `[value]`.
fn optional(value: Option<Real>) -> Vec<Real> {
    value.into_iter().collect()
}

/// The inverse of [`optional`]; `None` when `state` has more than one number.
fn from_optional(state: &[Real]) -> Option<Option<Real>> {
    match *state {
        [] => Some(None),
        [value] => Some(Some(value)),
        _ => None,
    }
}

/// Minimises Φ for (x̃, w, s, a) about `anchor` = x_n, starting from `guess` (or, with contact,
/// from x_n; without, from x̃ or as near it as every element's domain allows), with held
/// vertices at their prescribed positions; touches neither the state nor damping references.
/// By Newton's method, or with `local_global` = (solver, iterations) by that many local/global
/// iterations (Stabilizing §4.2).
#[allow(clippy::too_many_arguments)]
fn minimize_stage(
    step: &Step<'_>,
    anchor: &[Vec3],
    target: &[Vec3],
    w: Real,
    s: Real,
    a: Real,
    guess: Option<&[Vec3]>,
    local_global: Option<(&mut LocalGlobal, usize)>,
) -> Result<(Vec<Vec3>, crate::newton::NewtonReport), NewtonError> {
    // Newton must start where Φ is finite and, with contact, intersection-free: from the guess;
    // with contact from x_n (starting nearer x̃ cost more iterations on the bouncing balls);
    // without, from x̃, or from x_n moved toward it as far as every element's domain allows
    let start = guess.unwrap_or(anchor);
    let mut x: Vec<Vec3> =
        (0..anchor.len()).map(|i| if step.free[i].is_some() { start[i] } else { step.prescribed[i] }).collect();
    let phi = IncrementalPotential {
        potentials: step.potentials,
        masses: step.masses,
        free: step.free,
        target,
        anchor,
        inertia_weight: w,
        potential_weight: s,
        blend: a,
        contact: step.contact.map(|c| c as &dyn crate::newton::BarrierContact),
        hessian_form: crate::newton::HessianForm::Projected,
        assembly: step.assembly,
    };
    if guess.is_none() && step.contact.is_none() {
        phi.move_to_feasible_start(&mut x);
    }
    let report = match local_global {
        Some((solver, iterations)) => solver.minimize(&phi, &mut x, iterations)?,
        None => phi.minimize(&mut x, step.h, &step.newton)?,
    };
    Ok((x, report))
}

/// Ends a step for the damping potentials: the work of each dissipation function at the
/// evaluation positions `y` (2·D(y)), then `y` becomes their reference for the next step; and
/// for plastic hinges, which yield at `y` and book the energy that takes out
/// ([`crate::potential::Hinge`]).
fn finish_damping(potentials: &mut [Box<dyn Potential>], y: &[Vec3]) -> Real {
    let mut local = Vec::new();
    let mut dissipated = 0.0;
    for p in potentials.iter_mut().filter(|p| p.is_dissipative() || p.is_plastic()) {
        gather(p.stencil(), y, &mut local);
        if p.is_dissipative() {
            dissipated += 2.0 * p.energy(&local);
            // the AVI's windowed booking; a step books 2·D(y) above instead
            let _ = p.end_tick(&local);
        } else {
            dissipated += p.end_tick(&local);
        }
    }
    dissipated
}

/// One-solve step: minimises Φ for (x̃, w, s, a) (by Newton, or as [`minimize_stage`] with
/// `local_global`), writes x_{n+1} into `step.x`, ends the step for damping, and returns x_n
/// with the report.
fn solve(
    step: &mut Step<'_>,
    target: &[Vec3],
    (w, s, a): (Real, Real, Real),
    local_global: Option<(&mut LocalGlobal, usize)>,
) -> Result<(Vec<Vec3>, StepReport), NewtonError> {
    let anchor = step.x.to_vec();
    let (x, report) = minimize_stage(step, &anchor, target, w, s, a, None, local_global)?;
    let y: Vec<Vec3> = x.iter().zip(&anchor).map(|(x, xn)| x * a + xn * (1.0 - a)).collect();
    let dissipated = finish_damping(step.potentials, &y);
    step.x.copy_from_slice(&x);
    Ok((
        anchor,
        StepReport {
            newton_iterations: report.iterations,
            converged: report.converged,
            dissipated,
            alpha: None,
            linear_solve_seconds: report.linear_solve_seconds,
            estimate: None,
        },
    ))
}

fn inertial_target(step: &Step<'_>) -> Vec<Vec3> {
    step.x.iter().zip(step.v.iter()).map(|(x, v)| x + v * step.h).collect()
}

/// v_{n+1} = 2(x_{n+1} − x_n)/h − v_n: the velocity of the symmetric (midpoint, trapezoid) rules.
fn symmetric_velocity(step: &mut Step<'_>, xn: &[Vec3]) {
    let h = step.h;
    for ((v, x), xn) in step.v.iter_mut().zip(step.x.iter()).zip(xn) {
        *v = (x - xn) * (2.0 / h) - *v;
    }
}

/// Backward (implicit) Euler: first order, dissipative. Solved by Newton, or with
/// `local_global` by local/global iterations: Projective Dynamics itself (Bouaziz et al. 2014,
/// Stabilizing §4.2 eq. 28), the baseline the paper times its blend against.
#[derive(Debug, Default)]
pub struct ImplicitEuler {
    /// The local/global solver in place of Newton's method, if chosen.
    pub local_global: Option<LocalGlobal>,
}

impl Integrator for ImplicitEuler {
    fn name(&self) -> &'static str {
        "implicit-euler"
    }

    fn step(&mut self, mut step: Step<'_>) -> Result<StepReport, NewtonError> {
        let target = inertial_target(&step);
        let h = step.h;
        let local_global = self.local_global.as_mut().map(|s| {
            let iterations = s.iterations;
            (s, iterations)
        });
        let (xn, report) = solve(&mut step, &target, (1.0 / (h * h), 1.0, 1.0), local_global)?;
        for ((v, x), xn) in step.v.iter_mut().zip(step.x.iter()).zip(&xn) {
            *v = (x - xn) / h;
        }
        Ok(report)
    }
}

/// BDF2: second order, dissipative; its first step is implicit Euler.
#[derive(Debug, Default)]
pub struct Bdf2 {
    previous: Option<(Vec<Vec3>, Vec<Vec3>)>,
}

impl Integrator for Bdf2 {
    fn name(&self) -> &'static str {
        "bdf2"
    }

    fn step(&mut self, mut step: Step<'_>) -> Result<StepReport, NewtonError> {
        let h = step.h;
        let (xn, vn) = (step.x.to_vec(), step.v.to_vec());
        let report = match self.previous.take() {
            None => ImplicitEuler::default().step(step.reborrow())?,
            Some((xp, vp)) => {
                let target: Vec<Vec3> = (0..xn.len())
                    .map(|i| (xn[i] * 4.0 - xp[i]) / 3.0 + (vn[i] * 4.0 - vp[i]) * (2.0 * h / 9.0))
                    .collect();
                let (_, report) = solve(&mut step, &target, (9.0 / (4.0 * h * h), 1.0, 1.0), None)?;
                for i in 0..xn.len() {
                    step.v[i] = (step.x[i] * 3.0 - xn[i] * 4.0 + xp[i]) / (2.0 * h);
                }
                report
            }
        };
        self.previous = Some((xn, vn));
        Ok(report)
    }

    fn carried_state(&self) -> Vec<Real> {
        let Some((x, v)) = &self.previous else { return Vec::new() };
        x.iter().chain(v).flat_map(|p| [p.x, p.y, p.z]).collect()
    }

    fn restore_carried_state(&mut self, state: &[Real]) -> bool {
        if !state.len().is_multiple_of(6) {
            return false;
        }
        let points: Vec<Vec3> = state.chunks_exact(3).map(|c| Vec3::new(c[0], c[1], c[2])).collect();
        let (x, v) = points.split_at(points.len() / 2);
        self.previous = (!state.is_empty()).then(|| (x.to_vec(), v.to_vec()));
        true
    }
}

/// Implicit midpoint: second order, symplectic, energy-conserving for quadratic energies.
/// Solved by Newton, or with `local_global` by Dinev et al.'s local/global iterations
/// (Stabilizing §4.2).
#[derive(Debug, Default)]
pub struct ImplicitMidpoint {
    /// The local/global solver in place of Newton's method, if chosen.
    pub local_global: Option<LocalGlobal>,
}

impl Integrator for ImplicitMidpoint {
    fn name(&self) -> &'static str {
        "implicit-midpoint"
    }

    fn step(&mut self, mut step: Step<'_>) -> Result<StepReport, NewtonError> {
        let target = inertial_target(&step);
        let h = step.h;
        let local_global = self.local_global.as_mut().map(|s| {
            let iterations = s.iterations;
            (s, iterations)
        });
        let (xn, report) = solve(&mut step, &target, (2.0 / (h * h), 2.0, 0.5), local_global)?;
        symmetric_velocity(&mut step, &xn);
        Ok(report)
    }
}

/// The trapezoidal rule: second order, symplectic for linear systems.
#[derive(Debug, Default)]
pub struct Trapezoid;

impl Integrator for Trapezoid {
    fn name(&self) -> &'static str {
        "trapezoid"
    }

    fn step(&mut self, mut step: Step<'_>) -> Result<StepReport, NewtonError> {
        let h = step.h;
        let grad = conservative_gradient(step.potentials, step.contact, step.x);
        let target: Vec<Vec3> =
            (0..step.x.len()).map(|i| step.x[i] + step.v[i] * h - grad[i] * (h * h / (4.0 * step.masses[i]))).collect();
        let (xn, report) = solve(&mut step, &target, (4.0 / (h * h), 1.0, 1.0), None)?;
        symmetric_velocity(&mut step, &xn);
        Ok(report)
    }
}

/// The energy an A-search step aims for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum EnergyTarget {
    /// Keep the starting energy (minus what damping dissipates).
    Conserve,
    /// From `start` on, decay exponentially toward `ground` (J) with half-life `half_life` (s).
    Decay {
        /// s.
        half_life: Real,
        /// s.
        start: Real,
        /// J.
        ground: Real,
    },
}

/// A-1 (α fixed at 1) and A-search (α chosen per step), A-search §4 and Algorithm 1.
#[derive(Debug)]
pub struct AlphaMethod {
    /// `None`: A-1. `Some`: A-search with this target.
    pub search: Option<EnergyTarget>,
    /// [α_min, α_max], default [0, 1.1].
    pub alpha_range: (Real, Real),
    /// The current energy target E_n, J (set on the first step from the state).
    target: Option<Real>,
    /// Time of the next step's end, s.
    time: Real,
}

impl AlphaMethod {
    ///
    pub fn a1() -> Self {
        AlphaMethod { search: None, alpha_range: (0.0, 1.1), target: None, time: 0.0 }
    }

    /// A-search with `target` and α clipped to `alpha_range`.
    pub fn a_search(target: EnergyTarget, alpha_range: (Real, Real)) -> Self {
        AlphaMethod { search: Some(target), alpha_range, target: None, time: 0.0 }
    }
}

/// ∇P(x) of the conservative potentials (damping excluded, contact barriers included), per vertex.
fn conservative_gradient(potentials: &[Box<dyn Potential>], contact: Option<&IpcContact>, x: &[Vec3]) -> Vec<Vec3> {
    let mut g = vec![Vec3::zeros(); x.len()];
    assemble_gradient(potentials.iter().filter(|p| !p.is_dissipative()).map(|p| p.as_ref()), x, &mut g);
    if let Some(c) = contact {
        let barriers = c.active_barriers(x);
        assemble_gradient(barriers.iter().map(|b| b.as_ref()), x, &mut g);
    }
    g
}

/// P(x) of the conservative potentials (contact barriers included).
fn conservative_energy(potentials: &[Box<dyn Potential>], contact: Option<&IpcContact>, x: &[Vec3]) -> Real {
    let barriers = contact.map(|c| c.active_barriers(x)).unwrap_or_default();
    crate::potential::assemble_energy(
        potentials.iter().map(|p| p.as_ref()).chain(barriers.iter().map(|b| b.as_ref())),
        x,
    )
}

impl Integrator for AlphaMethod {
    fn name(&self) -> &'static str {
        if self.search.is_some() {
            "a-search"
        } else {
            "a1"
        }
    }

    fn carried_state(&self) -> Vec<Real> {
        let mut state = vec![self.time];
        state.extend(optional(self.target));
        state
    }

    fn restore_carried_state(&mut self, state: &[Real]) -> bool {
        let Some((&time, target)) = state.split_first() else { return false };
        let Some(target) = from_optional(target) else { return false };
        (self.time, self.target) = (time, target);
        true
    }

    fn step(&mut self, mut step: Step<'_>) -> Result<StepReport, NewtonError> {
        let h = step.h;
        let n = step.x.len();
        let free: Vec<usize> = (0..n).filter(|&i| step.free[i].is_some()).collect();
        let kinetic =
            |v: &[Vec3], masses: &[Real]| free.iter().map(|&i| 0.5 * masses[i] * v[i].norm_squared()).sum::<Real>();
        if self.target.is_none() {
            self.target =
                Some(conservative_energy(step.potentials, step.contact, step.x) + kinetic(step.v, step.masses));
        }
        let grad_n = conservative_gradient(step.potentials, step.contact, step.x);
        let target = inertial_target(&step);
        let (xn, mut report) = solve(&mut step, &target, (1.0 / (h * h), 1.0, 1.0), None)?;
        let w: Vec<Vec3> = (0..n).map(|i| (step.x[i] - xn[i]) / h).collect();
        let grad_next = conservative_gradient(step.potentials, step.contact, step.x);
        let dv: Vec<Vec3> =
            (0..n)
                .map(|i| {
                    if step.free[i].is_some() {
                        (grad_n[i] - grad_next[i]) * (h / step.masses[i])
                    } else {
                        Vec3::zeros()
                    }
                })
                .collect();
        self.time += h;
        let alpha = match self.search {
            None => 1.0,
            Some(goal) => {
                // E_{n+1}: conservation minus damping losses, or the decay toward the ground level
                let previous = self.target.unwrap_or(0.0);
                let next = match goal {
                    EnergyTarget::Conserve => previous - report.dissipated,
                    EnergyTarget::Decay { half_life, start, ground } if self.time > start => {
                        ground
                            + (-h * std::f64::consts::LN_2 / half_life).exp() * (previous - ground - report.dissipated)
                    }
                    EnergyTarget::Decay { .. } => previous - report.dissipated,
                };
                self.target = Some(next);
                // next = P(x) + ½‖w − αΔv‖²_M: a quadratic in α; take the root closest to 1
                let p = conservative_energy(step.potentials, step.contact, step.x);
                let (mut a2, mut a1, mut a0) = (0.0, 0.0, p - next);
                for &i in &free {
                    let m = step.masses[i];
                    a2 += 0.5 * m * dv[i].norm_squared();
                    a1 -= m * w[i].dot(&dv[i]);
                    a0 += 0.5 * m * w[i].norm_squared();
                }
                let alpha = if a2 <= Real::EPSILON * a0.abs().max(1e-300) {
                    1.0
                } else {
                    let disc = a1 * a1 - 4.0 * a2 * a0;
                    if disc < 0.0 {
                        -a1 / (2.0 * a2) // no exact root: the α closest to the target
                    } else {
                        let r = disc.sqrt();
                        let (r1, r2) = ((-a1 - r) / (2.0 * a2), (-a1 + r) / (2.0 * a2));
                        if (r1 - 1.0).abs() <= (r2 - 1.0).abs() {
                            r1
                        } else {
                            r2
                        }
                    }
                };
                alpha.clamp(self.alpha_range.0, self.alpha_range.1)
            }
        };
        for i in 0..n {
            step.v[i] = w[i] - dv[i] * alpha;
        }
        report.alpha = Some(alpha);
        Ok(report)
    }
}

impl Step<'_> {
    /// The same step, borrowed again (to hand it to another integrator).
    fn reborrow(&mut self) -> Step<'_> {
        Step {
            potentials: self.potentials,
            masses: self.masses,
            free: self.free,
            x: self.x,
            v: self.v,
            prescribed: self.prescribed,
            h: self.h,
            newton: self.newton,
            contact: self.contact,
            assembly: self.assembly,
        }
    }
}

/// A stiffly accurate diagonally implicit Runge–Kutta method (Higher-order §3.2): SDIRK2
/// (Alexander's two-stage, L-stable, γ = 1 − 1/√2) or TR-BDF2 (a trapezoid stage to t_n + γh,
/// γ = 2 − √2, then a BDF2 stage). Each implicit stage i solves
/// X_i = x̃_i + (h a_ii)² M⁻¹F(X_i), an implicit-Euler-like incremental potential with
/// x̃_i = x_n + h Σ_{j<i} a_ij V_j + h a_ii (v_n + h Σ_{j<i} a_ij M⁻¹F_j); the last stage is the
/// step. Damping is part of each stage's solve and its references move once per step.
#[derive(Debug)]
pub struct DiagonallyImplicitRk {
    name: &'static str,
    /// The lower-triangular Butcher matrix (rows are stages; the last row is also b).
    a: Vec<Vec<Real>>,
}

impl DiagonallyImplicitRk {
    /// SDIRK2: A = ((γ, 0), (1 − γ, γ)), γ = 1 − 1/√2.
    pub fn sdirk2() -> Self {
        let g = 1.0 - std::f64::consts::FRAC_1_SQRT_2;
        DiagonallyImplicitRk { name: "sdirk2", a: vec![vec![g], vec![1.0 - g, g]] }
    }

    /// TR-BDF2: A = ((0), (γ/2, γ/2), (w, w, γ/2)), γ = 2 − √2, w = 1/(2(2 − γ)).
    pub fn tr_bdf2() -> Self {
        let g = 2.0 - std::f64::consts::SQRT_2;
        let w = 1.0 / (2.0 * (2.0 - g));
        DiagonallyImplicitRk { name: "tr-bdf2", a: vec![vec![0.0], vec![0.5 * g, 0.5 * g], vec![w, w, 0.5 * g]] }
    }
}

impl Integrator for DiagonallyImplicitRk {
    fn name(&self) -> &'static str {
        self.name
    }

    fn step(&mut self, step: Step<'_>) -> Result<StepReport, NewtonError> {
        let h = step.h;
        let n = step.x.len();
        let (xn, vn) = (step.x.to_vec(), step.v.to_vec());
        let inverse_mass: Vec<Real> =
            (0..n).map(|i| if step.free[i].is_some() { 1.0 / step.masses[i] } else { 0.0 }).collect();
        let mut stage_v: Vec<Vec<Vec3>> = Vec::new();
        let mut stage_a: Vec<Vec<Vec3>> = Vec::new(); // M⁻¹F at each stage
        let mut report = StepReport { converged: true, ..Default::default() };
        let mut last_x = xn.clone();
        for row in &self.a {
            let i = row.len() - 1;
            let aii = row[i];
            let (mut x_sum, mut a_sum) = (vec![Vec3::zeros(); n], vec![Vec3::zeros(); n]);
            for j in 0..i {
                for k in 0..n {
                    x_sum[k] += stage_v[j][k] * (h * row[j]);
                    a_sum[k] += stage_a[j][k] * (h * row[j]);
                }
            }
            let (x, v) = if aii == 0.0 {
                (xn.clone(), vn.clone()) // explicit first stage
            } else {
                let target: Vec<Vec3> = (0..n).map(|k| xn[k] + x_sum[k] + (vn[k] + a_sum[k]) * (h * aii)).collect();
                let guess = last_x.clone();
                let (x, r) =
                    minimize_stage(&step, &xn, &target, 1.0 / (h * aii * h * aii), 1.0, 1.0, Some(&guess), None)?;
                report.newton_iterations += r.iterations;
                report.converged &= r.converged;
                report.linear_solve_seconds += r.linear_solve_seconds;
                let v: Vec<Vec3> = (0..n).map(|k| (x[k] - xn[k] - x_sum[k]) / (h * aii)).collect();
                (x, v)
            };
            let g = conservative_gradient(step.potentials, step.contact, &x);
            stage_a.push((0..n).map(|k| -g[k] * inverse_mass[k]).collect());
            stage_v.push(v);
            last_x = x;
        }
        report.dissipated = finish_damping(step.potentials, &last_x);
        step.x.copy_from_slice(&last_x);
        step.v.copy_from_slice(stage_v.last().expect("at least one stage"));
        Ok(report)
    }
}

/// ROS3PL (Lang and Teleaga 2008; Higher-order §3.2.4, §5.2): a four-stage Rosenbrock method.
/// It is third order, L-stable and stiffly accurate, and it has an embedded second-order solution
/// for an error estimate. A Rosenbrock method solves no nonlinear system. Each step takes the
/// Jacobian of y' = F(y), y = (x, v), F = (v, M⁻¹f(x)), once at y_n, and each stage solves one
/// linear system with the matrix of that step. In Hairer and Wanner's form (IV.7.4), stage i
/// solves (I/(hγ) − J)·k_i = F(y_n + Σ_j a_ij k_j) + Σ_j (c_ij/h)·k_j, and
/// y_{n+1} = y_n + Σ m_i k_i. With k_i = (U_i, V_i) and ∂f/∂x = −H, the velocity part is
/// (M/(hγ)² + H)·V_i = (f_i + M Σ_j (c_ij/h) V_j)/(hγ) − H·R_i, where
/// R_i = v_n + Σ_j a_ij V_j + Σ_j (c_ij/h) U_j. The position part follows as U_i = hγ(R_i + V_i).
///
/// - **Hessian.** H is Newton's PSD-projected Hessian at x_n. It is exact wherever the element
///   Hessians are semidefinite. Elsewhere the method is a W-method, and ROS3PL keeps only second
///   order with an inexact Jacobian.
/// - **Scripted vertices.** They sit at x_n + α_i·(x_{n+1} − x_n) in stage i. The ∂f/∂t term is
///   left out, as no potential here depends on time within a step.
/// - **Refused.** IPC contact needs a line-searched Newton solve, and damping is a dissipation
///   function of the step's positions rather than a force of velocity; scenes with either are
///   refused ([`crate::sync::SyncEngine::new`]).
///
/// The report's [`StepReport::estimate`] is the difference between the third- and second-order
/// solutions: the largest over the free vertices in position and in velocity.
#[derive(Debug, Default)]
pub struct Ros3pl;

/// ROS3PL's coefficients in Hairer and Wanner's transformed form.
mod ros3pl {
    use crate::math::Real;
    /// γ, the diagonal of Γ.
    pub const GAMMA: Real = 0.435866521508459;
    /// a_ij (strictly lower triangular): stage i is evaluated at y_n + Σ_j a_ij k_j.
    pub const A: [[Real; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [1.147140180139521, 0.0, 0.0],
        [2.463070773030053, 1.147140180139521, 0.0],
        [2.463070773030053, 1.147140180139521, 0.0],
    ];
    /// c_ij (strictly lower triangular).
    pub const C: [[Real; 3]; 4] = [
        [0.0, 0.0, 0.0],
        [-2.631861185781065, 0.0, 0.0],
        [-1.302364158113095, 2.769432022251304, 0.0],
        [-1.5525689587324, 2.587743501215153, -1.41699329835202],
    ];
    /// Where each stage's scripted vertices are, as a fraction of the step (α_i = Σ_j α_ij).
    pub const ALPHA: [Real; 4] = [0.0, 0.5, 1.0, 1.0];
    /// m_i: the third-order solution.
    pub const M: [Real; 4] = [2.463070773030053, 1.147140180139521, 0.0, 1.0];
    /// m̂_i: the embedded second-order solution.
    pub const M_HAT: [Real; 4] = [2.346947683513665, 0.456530569451895, 0.056949243945495, 0.738684936166224];
}

impl Integrator for Ros3pl {
    fn name(&self) -> &'static str {
        "ros3pl"
    }

    fn step(&mut self, step: Step<'_>) -> Result<StepReport, NewtonError> {
        use ros3pl::{A, ALPHA, C, GAMMA, M, M_HAT};
        let (h, n) = (step.h, step.x.len());
        let hg = h * GAMMA;
        let (xn, vn) = (step.x.to_vec(), step.v.to_vec());
        let free: Vec<(usize, usize)> = (0..n).filter_map(|i| step.free[i].map(|k| (i, k))).collect();
        let dofs = 3 * free.len();
        let mut mass = DVector::zeros(dofs);
        for &(i, k) in &free {
            mass.fixed_rows_mut::<3>(3 * k).fill(step.masses[i]);
        }
        let solve_start = std::time::Instant::now();
        // M/(hγ)² + H at x_n: Φ's Newton matrix with w = 1/(hγ)², s = a = 1
        let phi = IncrementalPotential {
            potentials: step.potentials,
            masses: step.masses,
            free: step.free,
            target: &xn,
            anchor: &xn,
            inertia_weight: 1.0 / (hg * hg),
            potential_weight: 1.0,
            blend: 1.0,
            contact: None,
            hessian_form: crate::newton::HessianForm::Projected,
            assembly: step.assembly,
        };
        let system = FactoredSystem::new(phi.newton_system(&xn).0, step.newton.linear_solver, step.assembly)?;
        let mut linear_solve_seconds = solve_start.elapsed().as_secs_f64();
        let v_free = gather_free(&vn, &free, dofs);
        let (mut u, mut w): (Vec<DVector<Real>>, Vec<DVector<Real>>) = (Vec::new(), Vec::new());
        let mut force = DVector::zeros(dofs);
        for i in 0..4 {
            let sum = |k: &[DVector<Real>], weights: &[Real; 3]| -> DVector<Real> {
                k.iter().zip(weights).fold(DVector::zeros(dofs), |acc, (k, &c)| acc + k * c)
            };
            // stage 4 is evaluated where stage 3 was (a_4j = a_3j): its force is stage 3's
            if i == 0 || A[i] != A[i - 1] {
                let shift = sum(&u, &A[i]);
                let xi: Vec<Vec3> = (0..n)
                    .map(|p| match step.free[p] {
                        Some(k) => xn[p] + shift.fixed_rows::<3>(3 * k),
                        None => xn[p] + (step.prescribed[p] - xn[p]) * ALPHA[i],
                    })
                    .collect();
                let mut gradient = vec![Vec3::zeros(); n];
                assemble_gradient(step.potentials.iter().map(|p| p.as_ref()), &xi, &mut gradient);
                force = -gather_free(&gradient, &free, dofs);
            }
            let c_over_h = C[i].map(|c| c / h);
            let r = &v_free + sum(&w, &A[i]) + sum(&u, &c_over_h);
            let m_v = mass.component_mul(&sum(&w, &c_over_h));
            // H·r = (M/(hγ)² + H)·r − M·r/(hγ)²
            let h_r = system.multiply(&r) - mass.component_mul(&r) / (hg * hg);
            let rhs = (&force + m_v) / hg - h_r;
            let solve_start = std::time::Instant::now();
            let (v_i, _) = system.solve(&rhs)?;
            linear_solve_seconds += solve_start.elapsed().as_secs_f64();
            u.push((&r + &v_i) * hg);
            w.push(v_i);
        }
        let combine = |k: &[DVector<Real>], weights: [Real; 4]| -> DVector<Real> {
            k.iter().zip(weights).fold(DVector::zeros(dofs), |acc, (k, m)| acc + k * m)
        };
        let (dx, dv) = (combine(&u, M), combine(&w, M));
        let error_weights: [Real; 4] = std::array::from_fn(|i| M[i] - M_HAT[i]);
        let (ex, ev) = (combine(&u, error_weights), combine(&w, error_weights));
        let largest = |e: &DVector<Real>| (0..free.len()).map(|k| e.fixed_rows::<3>(3 * k).norm()).fold(0.0, Real::max);
        for p in 0..n {
            match step.free[p] {
                Some(k) => {
                    step.x[p] = xn[p] + dx.fixed_rows::<3>(3 * k);
                    step.v[p] = vn[p] + dv.fixed_rows::<3>(3 * k);
                }
                None => {
                    step.x[p] = step.prescribed[p];
                    step.v[p] = (step.prescribed[p] - xn[p]) / h;
                }
            }
        }
        Ok(StepReport {
            newton_iterations: 0,
            converged: true,
            dissipated: finish_damping(step.potentials, step.x),
            alpha: None,
            linear_solve_seconds,
            estimate: Some(StepEstimate { position: largest(&ex), velocity: largest(&ev) }),
        })
    }
}

/// The free vertices' entries of `values` (one per vertex) as one vector of 3 per free vertex,
/// `free` holding (vertex, free index) pairs.
fn gather_free(values: &[Vec3], free: &[(usize, usize)], dofs: usize) -> DVector<Real> {
    let mut out = DVector::zeros(dofs);
    for &(i, k) in free {
        out.fixed_rows_mut::<3>(3 * k).copy_from(&values[i]);
    }
    out
}

/// Dinev et al.'s energy-tracking blend (Stabilizing §4.1, §4.3, Algorithm 1): an implicit
/// midpoint step, blended with a backward Euler step (started from the midpoint result) when it
/// gained energy, or with a forward Euler step when it lost energy, α found by bisection so the
/// energy is within `tolerance`·|H| of the target; the target drops by what damping dissipates.
///
/// Both implicit solves are Newton's, or with `local_global` Dinev et al.'s local/global
/// iterations (Stabilizing §4.2: 10 for the midpoint solve, 1 for the backward-Euler correction).
#[derive(Debug)]
pub struct Blend {
    /// Relative energy tolerance ε of the bisection (the paper uses 0.01).
    pub tolerance: Real,
    /// The local/global solver in place of Newton's method, if chosen.
    pub local_global: Option<LocalGlobal>,
    target: Option<Real>,
}

impl Default for Blend {
    fn default() -> Self {
        Blend { tolerance: 0.01, local_global: None, target: None }
    }
}

impl Blend {
    /// The paper's ε = 1 %, solved by Newton (`None`) or the local/global solver.
    pub fn with_solver(local_global: Option<LocalGlobal>) -> Self {
        Blend { local_global, ..Default::default() }
    }

    /// The local/global solver with the iterations of the midpoint solve, or with `correction`
    /// those of the backward-Euler correction; `None` for Newton.
    fn solver(&mut self, correction: bool) -> Option<(&mut LocalGlobal, usize)> {
        self.local_global.as_mut().map(|s| {
            let iterations = if correction { s.correction_iterations } else { s.iterations };
            (s, iterations)
        })
    }
}

impl Integrator for Blend {
    fn name(&self) -> &'static str {
        "blend"
    }

    fn carried_state(&self) -> Vec<Real> {
        optional(self.target)
    }

    fn restore_carried_state(&mut self, state: &[Real]) -> bool {
        let Some(target) = from_optional(state) else { return false };
        self.target = target;
        true
    }

    fn step(&mut self, step: Step<'_>) -> Result<StepReport, NewtonError> {
        let h = step.h;
        let n = step.x.len();
        let (xn, vn) = (step.x.to_vec(), step.v.to_vec());
        let free: Vec<usize> = (0..n).filter(|&i| step.free[i].is_some()).collect();
        let energy = |potentials: &[Box<dyn Potential>], x: &[Vec3], v: &[Vec3]| {
            conservative_energy(potentials, step.contact, x)
                + free.iter().map(|&i| 0.5 * step.masses[i] * v[i].norm_squared()).sum::<Real>()
        };
        let target = *self.target.get_or_insert_with(|| energy(step.potentials, &xn, &vn));
        // implicit midpoint
        let inertial: Vec<Vec3> = (0..n).map(|i| xn[i] + vn[i] * h).collect();
        let (x_im, r_im) = minimize_stage(&step, &xn, &inertial, 2.0 / (h * h), 2.0, 0.5, None, self.solver(false))?;
        let v_im: Vec<Vec3> = (0..n).map(|i| (x_im[i] - xn[i]) * (2.0 / h) - vn[i]).collect();
        let mut report = StepReport {
            newton_iterations: r_im.iterations,
            converged: r_im.converged,
            linear_solve_seconds: r_im.linear_solve_seconds,
            ..Default::default()
        };
        let e_im = energy(step.potentials, &x_im, &v_im);
        // the other end of the blend: backward Euler if midpoint overshot, forward Euler if it undershot
        let ((x0, v0), (x1, v1)) = if e_im > target {
            let (x_be, r) =
                minimize_stage(&step, &xn, &inertial, 1.0 / (h * h), 1.0, 1.0, Some(&x_im), self.solver(true))?;
            report.newton_iterations += r.iterations;
            report.converged &= r.converged;
            report.linear_solve_seconds += r.linear_solve_seconds;
            let v_be: Vec<Vec3> = (0..n).map(|i| (x_be[i] - xn[i]) / h).collect();
            ((x_im, v_im), (x_be, v_be)) // α = 0: midpoint, α = 1: backward Euler
        } else {
            let g = conservative_gradient(step.potentials, step.contact, &xn);
            let x_fe: Vec<Vec3> =
                (0..n).map(|i| if step.free[i].is_some() { xn[i] + vn[i] * h } else { step.prescribed[i] }).collect();
            let v_fe: Vec<Vec3> = (0..n)
                .map(|i| if step.free[i].is_some() { vn[i] - g[i] * (h / step.masses[i]) } else { Vec3::zeros() })
                .collect();
            ((x_fe, v_fe), (x_im, v_im)) // α = 0: forward Euler, α = 1: midpoint
        };
        let mix = |alpha: Real| -> (Vec<Vec3>, Vec<Vec3>) {
            (
                (0..n).map(|i| x0[i] * (1.0 - alpha) + x1[i] * alpha).collect(),
                (0..n).map(|i| v0[i] * (1.0 - alpha) + v1[i] * alpha).collect(),
            )
        };
        let residual = |alpha: Real| {
            let (x, v) = mix(alpha);
            energy(step.potentials, &x, &v) - target
        };
        // bisection on e(α) (monotone in practice, Stabilizing §4.1); no root → the damped end
        let (mut lo, mut hi) = (0.0, 1.0);
        let (r_lo, r_hi) = (residual(lo), residual(hi));
        let alpha = if r_lo.signum() == r_hi.signum() {
            if r_lo.abs() < r_hi.abs() {
                lo
            } else {
                hi
            }
        } else {
            let mut alpha = 0.5;
            for _ in 0..60 {
                alpha = 0.5 * (lo + hi);
                let r = residual(alpha);
                if r.abs() < self.tolerance * target.abs() {
                    break;
                }
                if r.signum() == r_lo.signum() {
                    lo = alpha;
                } else {
                    hi = alpha;
                }
            }
            alpha
        };
        let (x, v) = mix(alpha);
        report.dissipated = finish_damping(step.potentials, &x);
        self.target = Some(target - report.dissipated);
        report.alpha = Some(alpha);
        step.x.copy_from_slice(&x);
        step.v.copy_from_slice(&v);
        Ok(report)
    }
}
