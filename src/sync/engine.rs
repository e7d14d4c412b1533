//! The synchronous time loop: fixed steps t_n = n·h; frames report the state at the end of the
//! step that reaches their time.

use super::corrector::Corrector;
use super::integrators::{
    AlphaMethod, Bdf2, Blend, DiagonallyImplicitRk, EnergyTarget, ImplicitEuler, ImplicitMidpoint, Integrator, Ros3pl,
    Step, Trapezoid,
};
use super::ipc::{IpcContact, IpcParameters};
use super::local_global::LocalGlobal;
use crate::checkpoint::{decode, encode, CheckpointError};
use crate::error::SimulationError;
use crate::force::ForceSpec;
use crate::ids::VertexId;
use crate::ledger::Ledger;
use crate::math::{Compact, Real, Time, Vec3};
use crate::model::{Model, Motion};
use crate::newton::{IncrementalPotential, NewtonParameters};
use crate::observe::{EventKind, EventRecord, Frame, FrameStats, Observer, StepEstimate};
use crate::potential::{assemble_energy, assemble_gradient, restore_tick_states, Potential};
use crate::stats::{CounterTallies, Counters};

/// The integrators of the synchronous backend.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum IntegratorKind {
    /// Backward Euler.
    ImplicitEuler,
    /// Second-order backward differentiation.
    Bdf2,
    /// Implicit midpoint.
    ImplicitMidpoint,
    /// The trapezoidal rule.
    Trapezoid,
    /// decoupled symplectic method on implicit Euler (A-search §4.3).
    A1,
    /// SDIRK2 (Higher-order §3.2).
    Sdirk2,
    /// TR-BDF2 (Higher-order §3.2).
    TrBdf2,
    /// ROS3PL, the four-stage third-order Rosenbrock method (Higher-order §3.2.4, §5.2).
    Ros3pl,
    /// Dinev et al.'s energy-tracking blend of implicit midpoint with backward / forward Euler.
    Blend,
    /// A-search with an energy target (A-search §4.4, Algorithm 1).
    ASearch {
        /// What the energy should do.
        target: EnergyTarget,
        /// [α_min, α_max].
        alpha_range: (Real, Real),
    },
}

impl IntegratorKind {
    /// A-search with its defaults: keep the starting energy, α in [0, 1.1].
    pub const A_SEARCH: IntegratorKind =
        IntegratorKind::ASearch { target: EnergyTarget::Conserve, alpha_range: (0.0, 1.1) };

    /// Every integrator with its name in scene files (`[sync] integrator`) and in
    /// `avicontact compare --runs sync:<name>`, in the order messages list them; A-search with
    /// its defaults ([`IntegratorKind::A_SEARCH`]).
    pub const NAMES: [(&'static str, IntegratorKind); 10] = [
        ("implicit-euler", IntegratorKind::ImplicitEuler),
        ("bdf2", IntegratorKind::Bdf2),
        ("implicit-midpoint", IntegratorKind::ImplicitMidpoint),
        ("trapezoid", IntegratorKind::Trapezoid),
        ("a1", IntegratorKind::A1),
        ("a-search", IntegratorKind::A_SEARCH),
        ("blend", IntegratorKind::Blend),
        ("sdirk2", IntegratorKind::Sdirk2),
        ("tr-bdf2", IntegratorKind::TrBdf2),
        ("ros3pl", IntegratorKind::Ros3pl),
    ];

    /// The integrator called `name` (A-search with its defaults).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|&(_, kind)| kind)
    }

    /// Its name in scene files, whatever its parameters.
    pub fn name(self) -> &'static str {
        let this = std::mem::discriminant(&self);
        Self::NAMES
            .iter()
            .find(|(_, kind)| std::mem::discriminant(kind) == this)
            .map(|&(n, _)| n)
            .expect("every integrator is named")
    }

    /// Whether `[sync] solver = "local-global"` applies to it: implicit midpoint and the blend
    /// (Stabilizing §4.2), and backward Euler, where it is Projective Dynamics.
    pub fn takes_local_global(self) -> bool {
        matches!(self, IntegratorKind::ImplicitEuler | IntegratorKind::ImplicitMidpoint | IntegratorKind::Blend)
    }

    fn build(self, solver: SolverKind) -> Box<dyn Integrator> {
        let local_global = match solver {
            SolverKind::LocalGlobal { iterations } if self.takes_local_global() => Some(LocalGlobal::new(iterations)),
            _ => None,
        };
        match self {
            IntegratorKind::ImplicitEuler => Box::new(ImplicitEuler { local_global }),
            IntegratorKind::Bdf2 => Box::<Bdf2>::default(),
            IntegratorKind::ImplicitMidpoint => Box::new(ImplicitMidpoint { local_global }),
            IntegratorKind::Trapezoid => Box::new(Trapezoid),
            IntegratorKind::A1 => Box::new(AlphaMethod::a1()),
            IntegratorKind::Sdirk2 => Box::new(DiagonallyImplicitRk::sdirk2()),
            IntegratorKind::TrBdf2 => Box::new(DiagonallyImplicitRk::tr_bdf2()),
            IntegratorKind::Ros3pl => Box::new(Ros3pl),
            IntegratorKind::Blend => Box::new(Blend::with_solver(local_global)),
            IntegratorKind::ASearch { target, alpha_range } => Box::new(AlphaMethod::a_search(target, alpha_range)),
        }
    }
}

/// How the implicit solves of a step are carried out (`[sync] solver`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SolverKind {
    /// Newton's method to its tolerance (`"newton"`, the default).
    #[default]
    Newton,
    /// Dinev et al.'s local/global solver (Stabilizing §4.2, `"local-global"`): `iterations` for
    /// the implicit-midpoint (or implicit-Euler) solve, one for the blend's backward-Euler
    /// correction; only for implicit midpoint, the blend and implicit Euler (Projective Dynamics),
    /// and only for potentials with a projective form.
    LocalGlobal {
        /// Iterations of the midpoint solve (`local_global_iterations`, the paper's 10).
        iterations: usize,
    },
}

impl SolverKind {
    /// Every solver with its name in scene files.
    pub const NAMES: [(&'static str, SolverKind); 2] = [
        ("newton", SolverKind::Newton),
        ("local-global", SolverKind::LocalGlobal { iterations: LocalGlobal::PAPER_ITERATIONS }),
    ];

    /// Its name in scene files.
    pub fn name(self) -> &'static str {
        match self {
            SolverKind::Newton => "newton",
            SolverKind::LocalGlobal { .. } => "local-global",
        }
    }
}

/// The synchronous backend's contact (`[contact] model`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContactModel {
    /// IPC's barriers and CCD inside every implicit solve (`"ipc"`, the default).
    #[default]
    Ipc,
    /// Löschner et al.'s predictor–corrector (`"predictor-corrector"`, Higher-order §4): the
    /// integrator steps without contact, then a QP corrects the step ([`super::corrector`]).
    PredictorCorrector,
}

impl ContactModel {
    /// Every model with its name in scene files.
    pub const NAMES: [(&'static str, ContactModel); 2] =
        [("ipc", ContactModel::Ipc), ("predictor-corrector", ContactModel::PredictorCorrector)];
}

/// Tunables of the synchronous backend (the scene's `[sync]` table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SyncParameters {
    /// Which integrator.
    pub integrator: IntegratorKind,
    /// Time step h, s.
    pub timestep: Real,
    /// Newton tunables.
    pub newton: NewtonParameters,
    /// Newton's method or the local/global solver.
    pub solver: SolverKind,
    /// IPC contact (`None`: bodies pass through each other).
    pub contact: Option<IpcParameters>,
    /// With `contact`: IPC, or the predictor–corrector that takes its place.
    pub contact_model: ContactModel,
}

impl Default for SyncParameters {
    fn default() -> Self {
        SyncParameters {
            integrator: IntegratorKind::A_SEARCH,
            timestep: 1.0 / 120.0,
            newton: NewtonParameters::default(),
            solver: SolverKind::Newton,
            contact: None,
            contact_model: ContactModel::Ipc,
        }
    }
}

/// The local/global solver takes implicit midpoint and the blend (Stabilizing §4.2), no contact
/// (it has no line search for CCD to bound), and potentials whose curvature it can fix in one
/// matrix: projective forms ([`Potential::projective_hessian`]) or none. Anything else is
/// refused, naming the integrator or potential and what to change.
fn refuse_what_local_global_cannot_take(
    parameters: &SyncParameters,
    potentials: &[Box<dyn Potential>],
    x: &[Vec3],
) -> Result<(), SimulationError> {
    let SolverKind::LocalGlobal { iterations } = parameters.solver else { return Ok(()) };
    let integrator = parameters.integrator.name();
    if !parameters.integrator.takes_local_global() {
        return Err(SimulationError::BadParameter {
            name: "sync.solver",
            message: format!(
                "\"local-global\" solves implicit midpoint, the blend (Stabilizing §4.2) and implicit Euler \
                 (Projective Dynamics), not \"{integrator}\"; choose integrator \"implicit-midpoint\", \"blend\" \
                 or \"implicit-euler\", or solver \"newton\""
            ),
        });
    }
    if iterations == 0 {
        return Err(SimulationError::BadParameter {
            name: "sync.local_global_iterations",
            message: "must be at least 1 (the paper uses 10)".into(),
        });
    }
    if parameters.contact.is_some() && parameters.contact_model == ContactModel::Ipc {
        return Err(SimulationError::BadParameter {
            name: "sync.solver",
            message: format!(
                "\"local-global\" with \"{integrator}\" takes a fixed number of iterations with no line search, so \
                 IPC contact (the scene's [contact] table) cannot guard its steps; use solver \"newton\", set \
                 [contact] model = \"predictor-corrector\", or remove [contact]"
            ),
        });
    }
    if let Some(p) = super::local_global::first_without_projective_form(potentials, x) {
        return Err(SimulationError::BadParameter {
            name: "sync.solver",
            message: format!(
                "\"local-global\" needs every potential in Projective Dynamics form, and this scene's {} \
                 potentials have none; the forms are Hookean springs (no quartic term), the corotated solid with \
                 poisson_ratio = 0 (as-rigid-as-possible) and potentials without curvature (gravity, loads, wind); \
                 change those bodies or use solver \"newton\"",
                p.kind()
            ),
        });
    }
    Ok(())
}

/// ROS3PL is linearly implicit: it takes no Newton solve that IPC's line search could guard, and
/// its stages take forces of positions, not the damping potentials' dissipation functions of a
/// step's positions. Scenes with either are refused, naming the integrator and what to change.
fn refuse_what_ros3pl_cannot_take(
    parameters: &SyncParameters,
    potentials: &[Box<dyn Potential>],
) -> Result<(), SimulationError> {
    if parameters.contact.is_some() && parameters.contact_model == ContactModel::Ipc {
        return Err(SimulationError::BadParameter {
            name: "sync.integrator",
            message: "\"ros3pl\" is a Rosenbrock method: it solves one linear system per stage and no Newton \
                      problem, so IPC contact (the scene's [contact] table on the synchronous backend) cannot \
                      guard its steps; choose an implicit integrator such as \"sdirk2\" or \"implicit-euler\", set \
                      [contact] model = \"predictor-corrector\", or remove [contact]"
                .into(),
        });
    }
    if let Some(damping) = potentials.iter().find(|p| p.is_dissipative()) {
        return Err(SimulationError::BadParameter {
            name: "sync.integrator",
            message: format!(
                "\"ros3pl\" takes forces of positions only, and this scene has damping ({} potentials); \
                 set the bodies' damping to 0 or choose an implicit integrator such as \"sdirk2\"",
                damping.kind()
            ),
        });
    }
    Ok(())
}

/// Each vertex's index among the free vertices (those with a finite mass for kicks), or `None`.
fn free_indices(model: &Model) -> Vec<Option<usize>> {
    let mut next = 0;
    (0..model.vertices.len() as u32)
        .map(|i| {
            model.vertices.effective_mass(VertexId(i)).is_finite().then(|| {
                next += 1;
                next - 1
            })
        })
        .collect()
}

/// The synchronous engine: all vertices advance together by implicit steps.
#[derive(Debug)]
pub struct SyncEngine {
    potentials: Vec<Box<dyn Potential>>,
    integrator: Box<dyn Integrator>,
    parameters: SyncParameters,
    contact: Option<IpcContact>,
    /// The predictor–corrector's contact QP, in IPC's place (`[contact] model`).
    corrector: Option<Corrector>,
    masses: Vec<Real>,
    free: Vec<Option<usize>>,
    /// Vertices free until their script starts, not captured yet.
    awaiting_capture: Vec<VertexId>,
    x: Vec<Vec3>,
    v: Vec<Vec3>,
    steps: u64,
    frame_rate: Real,
    frames: u64,
    counters: Counters,
    step_slot: usize,
    frame_slot: usize,
    dissipated: Real,
    external_work: Real,
    /// The external forces' energy at the start plus its jumps (crate::ledger).
    external_shifts: Real,
    newton_iterations: u64,
    linear_solve_seconds: f64,
    last_alpha: Option<Real>,
    snapshot: Vec<Vec3>,
    /// The Newton systems' block pattern and Cholesky analysis, kept across steps (not in a
    /// checkpoint: made again, to the same bits, from the same stencils).
    assembly: std::sync::Mutex<crate::newton::AssemblyCache>,
}

impl SyncEngine {
    /// Takes the potentials of `forces` (their AVI clock choices are ignored: every potential is
    /// evaluated at every step) and the model's initial state.
    pub fn new(
        model: &Model,
        forces: Vec<ForceSpec>,
        parameters: SyncParameters,
        frame_rate: Real,
    ) -> Result<Self, SimulationError> {
        let h = parameters.timestep;
        if !(h.is_finite() && h > 0.0) {
            return Err(SimulationError::BadParameter {
                name: "sync.timestep",
                message: format!("must be a finite number of seconds > 0, got {}", Compact(h)),
            });
        }
        if !(frame_rate.is_finite() && frame_rate > 0.0) {
            return Err(SimulationError::BadParameter {
                name: "frame_rate",
                message: format!("must be a finite number > 0, got {}", Compact(frame_rate)),
            });
        }
        let n = model.vertices.len();
        let mut potentials: Vec<Box<dyn Potential>> = forces.into_iter().map(|f| f.potential).collect();
        for p in &mut potentials {
            p.bind_period(h); // damping differences positions over one step
        }
        if parameters.integrator == IntegratorKind::Ros3pl {
            refuse_what_ros3pl_cannot_take(&parameters, &potentials)?;
        }
        let free = free_indices(model);
        let x: Vec<Vec3> = (0..n).map(|i| model.vertices.position(VertexId(i as u32))).collect();
        refuse_what_local_global_cannot_take(&parameters, &potentials, &x)?;
        let mut counters = Counters::default();
        let frame_slot = counters.slot("frame");
        let step_slot = counters.slot("step");
        let contact = parameters
            .contact
            .filter(|_| parameters.contact_model == ContactModel::Ipc)
            .map(|c| IpcContact::new(model, c));
        let corrector = (parameters.contact.is_some() && parameters.contact_model == ContactModel::PredictorCorrector)
            .then(|| Corrector::new(model));
        if let Some(c) = &contact {
            let IpcParameters { activation, stiffness, .. } = *c.parameters();
            if !(activation.is_finite() && activation > 0.0 && stiffness.is_finite() && stiffness > 0.0) {
                return Err(SimulationError::BadParameter {
                    name: "sync.barrier_distance",
                    message: format!(
                        "IPC needs d̂ > 0 and κ > 0, got d̂ = {}, κ = {}",
                        Compact(activation),
                        Compact(stiffness)
                    ),
                });
            }
            let x0: Vec<Vec3> = (0..n).map(|i| model.vertices.position(VertexId(i as u32))).collect();
            let mut local = Vec::new();
            for b in c.active_barrier_pairs(&x0) {
                crate::potential::gather(b.stencil(), &x0, &mut local);
                if b.energy(&local).is_finite() {
                    continue;
                }
                let vertices: Vec<u32> = b.stencil().iter().map(|v| v.0).collect();
                let distance = b.distance_squared(&local).sqrt();
                return Err(if distance > 0.0 {
                    SimulationError::BadParameter {
                        name: "sync.barrier_distance",
                        message: format!(
                            "the IPC barrier of the pair on vertices {vertices:?}, {} m apart at the start, has no \
                             finite energy with d̂ = {} m and κ = {} N/m: its energy, about κ·d̂²·ln(d̂/d), \
                             overflows; lower sync.barrier_distance (a small distance, below the gaps between the \
                             bodies) or sync.barrier_stiffness",
                            Compact::rounded(distance, 4),
                            Compact(activation),
                            Compact(stiffness)
                        ),
                    }
                } else {
                    SimulationError::BadParameter {
                        name: "contact",
                        message: format!(
                            "the initial state intersects (vertices {vertices:?} touch); IPC needs an \
                             intersection-free start"
                        ),
                    }
                });
            }
        }
        // the external forces' energy at the start: `external_shifts` books the jumps of that energy
        // from here on (crate::ledger)
        let external_shifts = assemble_energy(potentials.iter().filter(|p| p.is_external()).map(|p| p.as_ref()), &x);
        Ok(SyncEngine {
            contact,
            corrector,
            integrator: parameters.integrator.build(parameters.solver),
            potentials,
            parameters,
            masses: model.vertices.masses().to_vec(),
            free,
            awaiting_capture: (0..n as u32)
                .map(VertexId)
                .filter(|&i| matches!(model.vertices.motion(i), Motion::FreeUntil(_)))
                .collect(),
            x,
            v: model.vertices.velocities().to_vec(),
            steps: 0,
            frame_rate,
            frames: 0,
            counters,
            step_slot,
            frame_slot,
            dissipated: 0.0,
            external_work: 0.0,
            external_shifts,
            newton_iterations: 0,
            linear_solve_seconds: 0.0,
            last_alpha: None,
            snapshot: Vec::new(),
            assembly: Default::default(),
        })
    }

    /// The integrator's name.
    pub fn integrator(&self) -> &'static str {
        self.integrator.name()
    }

    /// The parameters.
    pub fn parameters(&self) -> &SyncParameters {
        &self.parameters
    }

    /// The potentials.
    pub fn potentials(&self) -> impl Iterator<Item = &dyn Potential> {
        self.potentials.iter().map(|p| p.as_ref())
    }

    /// Time of the current state, n·h.
    pub fn now(&self) -> Time {
        Time::new(self.steps as Real * self.parameters.timestep).expect("finite")
    }

    fn next_frame_time(&self) -> Real {
        self.frames as Real / self.frame_rate
    }

    /// Time of the next event (a frame or the end of the next step).
    pub fn next_time(&self) -> Time {
        let step_end = (self.steps + 1) as Real * self.parameters.timestep;
        Time::new(self.next_frame_time().min(step_end)).expect("finite")
    }

    /// Steps, frames and wall time.
    pub fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Mutable counters (the facade adds wall time).
    pub fn counters_mut(&mut self) -> &mut Counters {
        &mut self.counters
    }

    /// Energy dissipated by damping so far, J.
    pub fn dissipated(&self) -> Real {
        self.dissipated
    }

    /// The energy ledger so far: what damping and IPC's lagged friction took out (2·D at the end
    /// of each step), and the work scripted vertices did against the conservative potentials
    /// and the IPC barriers (the trapezoid rule over each step).
    pub fn ledger(&self) -> Ledger {
        Ledger { dissipated: self.dissipated, external_work: self.external_work, external_shifts: self.external_shifts }
    }

    /// Newton iterations so far.
    pub fn newton_iterations(&self) -> u64 {
        self.newton_iterations
    }

    /// Wall-clock seconds spent in linear solves so far.
    pub fn linear_solve_seconds(&self) -> f64 {
        self.linear_solve_seconds
    }

    /// The first Newton system of an implicit-Euler step from the current state, for benchmarks
    /// and tests of the linear solvers: the PSD-projected Hessian H and the gradient g of Φ at
    /// x̃ = x_n + h v_n (held and scripted vertices where they are now; contact left out, as x̃
    /// may intersect). See [`IncrementalPotential::newton_system`].
    pub fn newton_system(&self) -> (nalgebra_sparse::CscMatrix<Real>, nalgebra::DVector<Real>) {
        let h = self.parameters.timestep;
        let target: Vec<Vec3> = self
            .x
            .iter()
            .zip(&self.v)
            .zip(&self.free)
            .map(|((x, v), f)| if f.is_some() { x + v * h } else { *x })
            .collect();
        let phi = IncrementalPotential {
            potentials: &self.potentials,
            masses: &self.masses,
            free: &self.free,
            target: &target,
            anchor: &self.x,
            inertia_weight: 1.0 / (h * h),
            potential_weight: 1.0,
            blend: 1.0,
            contact: None,
            hessian_form: crate::newton::HessianForm::Projected,
            assembly: None,
        };
        phi.newton_system(&target)
    }

    /// The work the scripted vertices `moving` did over the step that took them from their
    /// positions in `x_before` to those in `self.x`: the trapezoid rule for ∫ ∇V·dx along each
    /// path, V the conservative potentials and the IPC barriers active at either end. Exact for
    /// potentials linear along the step; a barrier that switches on and off within one step (a
    /// bounce resolved inside the implicit solve) is seen at the step's ends only.
    fn scripted_work(&self, x_before: &[Vec3], moving: &[usize]) -> Real {
        let (g_before, g_after) = (self.conservative_gradient(x_before), self.conservative_gradient(&self.x));
        moving
            .iter()
            .map(|&i| (g_before[i] + g_after[i]).dot(&(self.x[i] - x_before[i])) * 0.5)
            .fold(0.0, |sum, w| sum + w)
    }

    /// ∇V at `x` of the conservative potentials, the IPC barriers active at `x` included.
    fn conservative_gradient(&self, x: &[Vec3]) -> Vec<Vec3> {
        let mut g = vec![Vec3::zeros(); x.len()];
        assemble_gradient(self.potentials.iter().filter(|p| !p.is_dissipative()).map(|p| p.as_ref()), x, &mut g);
        if let Some(c) = &self.contact {
            let barriers = c.active_barriers(x);
            let mut contact = vec![Vec3::zeros(); x.len()];
            assemble_gradient(barriers.iter().map(|p| p.as_ref()), x, &mut contact);
            for (g, c) in g.iter_mut().zip(contact) {
                *g += c;
            }
        }
        g
    }

    /// The energy of the IPC barriers active at `x` (0 without contact): part of `potential` in
    /// `stats.csv`, as the AVI's penalty layers are.
    pub(crate) fn barrier_energy(&self, x: &[Vec3]) -> Real {
        self.contact.as_ref().map_or(0.0, |c| assemble_energy(c.active_barriers(x).iter().map(|p| p.as_ref()), x))
    }

    /// α of the last A-1 / A-search step.
    pub fn last_alpha(&self) -> Option<Real> {
        self.last_alpha
    }

    /// Processes the next event: a frame if one is due by the current state's time, else one
    /// step. A frame reports the state at the end of the step that reached its time (the state
    /// of an implicit integrator is only defined at step ends), so with `1/frame_rate` a
    /// multiple of h frames fall exactly on their times.
    pub fn step<O: Observer + ?Sized>(
        &mut self,
        model: &mut Model,
        observer: &mut O,
    ) -> Result<Option<EventRecord>, SimulationError> {
        let h = self.parameters.timestep;
        let t_state = self.steps as Real * h;
        let record = if self.next_frame_time() <= t_state + 1e-9 * h {
            self.take_frame(model, observer)?
        } else {
            let (record, estimate) = self.advance(model)?;
            if let Some(estimate) = estimate {
                observer.on_step_estimate(record.time, &estimate);
            }
            record
        };
        observer.on_event(&record);
        Ok(Some(record))
    }

    /// One step: its event record, and its error estimate if the integrator makes one.
    fn advance(&mut self, model: &mut Model) -> Result<(EventRecord, Option<StepEstimate>), SimulationError> {
        let h = self.parameters.timestep;
        let t_next = (self.steps + 1) as Real * h;
        // vertices free until a script starts are scripted from the first step that begins at
        // or after the start, from where they are then
        let waiting = self.awaiting_capture.len();
        self.awaiting_capture.retain(|&i| !model.vertices.capture_at_step(i));
        if self.awaiting_capture.len() < waiting {
            self.free = free_indices(model);
        }
        let prescribed: Vec<Vec3> = (0..self.x.len())
            .map(|i| {
                model.vertices.position_at(VertexId(i as u32), t_next.max(model.vertices.t_last(VertexId(i as u32))))
            })
            .collect();
        // lagged friction: frozen at the start of the step, removed after it
        let base = self.potentials.len();
        if let Some(c) = &self.contact {
            let friction = c.friction_potentials(&self.x, h);
            self.potentials.extend(friction);
        }
        // scripted vertices that move this step do work on the system (crate::ledger)
        let moving: Vec<usize> =
            (0..self.x.len()).filter(|&i| self.free[i].is_none() && prescribed[i] != self.x[i]).collect();
        let before = (!moving.is_empty()).then(|| self.x.clone());
        // external forces (wind, loads) act at the step's midpoint: the jump of their energy at
        // the current positions as they change is booked here, and their energy at the frame is
        // counted by `FrameStats::measure` (crate::ledger)
        let external: Vec<usize> = (0..base).filter(|&k| self.potentials[k].is_external()).collect();
        let external_energy = |potentials: &[Box<dyn Potential>], x: &[Vec3]| -> Real {
            assemble_energy(external.iter().map(|&k| potentials[k].as_ref()), x)
        };
        let external_before = external_energy(&self.potentials, &self.x);
        for &k in &external {
            self.potentials[k].set_time(t_next - 0.5 * h);
        }
        self.external_shifts += external_energy(&self.potentials, &self.x) - external_before;
        let x_start = self.corrector.is_some().then(|| self.x.clone());
        let report = self
            .integrator
            .step(Step {
                potentials: &mut self.potentials,
                masses: &self.masses,
                free: &self.free,
                x: &mut self.x,
                v: &mut self.v,
                prescribed: &prescribed,
                h,
                newton: self.parameters.newton,
                contact: self.contact.as_ref(),
                assembly: Some(&self.assembly),
            })
            .map_err(|e| SimulationError::BadParameter {
                name: "sync",
                message: format!("step {} failed: {e}", self.steps + 1),
            })?;
        if let (Some(corrector), Some(x_start)) = (&self.corrector, x_start) {
            corrector
                .correct(&self.potentials, &self.masses, &self.free, &x_start, &mut self.x, &mut self.v, h)
                .map_err(|e| SimulationError::BadParameter {
                    name: "contact.model",
                    message: format!("step {} failed: {e}", self.steps + 1),
                })?;
        }
        self.potentials.truncate(base);
        self.steps += 1;
        self.dissipated += report.dissipated;
        if let Some(x_before) = before {
            self.external_work += self.scripted_work(&x_before, &moving);
        }
        self.newton_iterations += report.newton_iterations as u64;
        self.linear_solve_seconds += report.linear_solve_seconds;
        self.last_alpha = report.alpha;
        for i in 0..self.x.len() {
            model.vertices.set_synchronous_state(VertexId(i as u32), self.x[i], self.v[i], t_next);
        }
        self.counters.count(self.step_slot);
        let record = EventRecord {
            time: Time::new(t_next).expect("finite"),
            kind: EventKind::Step,
            force: None,
            label: "step",
            tick: self.steps,
            period: h,
        };
        Ok((record, report.estimate))
    }

    fn take_frame<O: Observer + ?Sized>(
        &mut self,
        model: &Model,
        observer: &mut O,
    ) -> Result<EventRecord, SimulationError> {
        let t = self.steps as Real * self.parameters.timestep;
        self.snapshot.clone_from(&self.x);
        self.counters.count(self.frame_slot);
        let mut stats =
            FrameStats::measure(model, &self.snapshot, self.potentials(), self.ledger(), self.counters.events);
        stats.potential += self.barrier_energy(&self.snapshot);
        if !(stats.kinetic.is_finite() && stats.potential.is_finite()) {
            return Err(SimulationError::Diverged { time: t });
        }
        let time = Time::new(t).expect("finite");
        let frame = Frame { index: self.frames, time, positions: &self.snapshot, model, stats, contact: None };
        let result = observer.on_frame(&frame);
        self.frames += 1;
        result.map_err(SimulationError::Observer)?;
        Ok(EventRecord {
            time,
            kind: EventKind::Frame,
            force: None,
            label: "frame",
            tick: self.frames - 1,
            period: 1.0 / self.frame_rate,
        })
    }
}

/// What a synchronous run changes as it steps, in a checkpoint ([`crate::checkpoint`]).
#[derive(serde::Serialize, serde::Deserialize)]
struct SyncState {
    x: Vec<Vec3>,
    v: Vec<Vec3>,
    free: Vec<Option<usize>>,
    awaiting_capture: Vec<VertexId>,
    steps: u64,
    frames: u64,
    counters: CounterTallies,
    dissipated: Real,
    external_work: Real,
    external_shifts: Real,
    newton_iterations: u64,
    linear_solve_seconds: f64,
    last_alpha: Option<Real>,
    tick_states: Vec<Vec<Real>>,
    integrator: Vec<Real>,
}

impl SyncEngine {
    /// Appends the engine's state to `out` (a checkpoint).
    pub(super) fn save_state(&self, out: &mut Vec<u8>) -> Result<(), CheckpointError> {
        let state = SyncState {
            x: self.x.clone(),
            v: self.v.clone(),
            free: self.free.clone(),
            awaiting_capture: self.awaiting_capture.clone(),
            steps: self.steps,
            frames: self.frames,
            counters: self.counters.tallies(),
            dissipated: self.dissipated,
            external_work: self.external_work,
            external_shifts: self.external_shifts,
            newton_iterations: self.newton_iterations,
            linear_solve_seconds: self.linear_solve_seconds,
            last_alpha: self.last_alpha,
            tick_states: self.potentials.iter().map(|p| p.tick_state()).collect(),
            integrator: self.integrator.carried_state(),
        };
        encode(&state, out)
    }

    /// Puts back what [`save_state`](Self::save_state) wrote, into an engine built from the same
    /// scene.
    pub(super) fn restore_state(&mut self, bytes: &[u8]) -> Result<(), CheckpointError> {
        let mismatch = |what: String| CheckpointError::Mismatch(what);
        let (state, rest): (SyncState, _) = decode(bytes, "synchronous state")?;
        if !rest.is_empty() {
            return Err(mismatch(format!("{} bytes left over after the engine's state", rest.len())));
        }
        let n = self.x.len();
        if state.x.len() != n || state.v.len() != n || state.free.len() != self.free.len() {
            return Err(mismatch(format!("{} vertices saved, {n} in the scene", state.x.len())));
        }
        restore_tick_states(&mut self.potentials, &state.tick_states).map_err(mismatch)?;
        if !self.integrator.restore_carried_state(&state.integrator) {
            return Err(mismatch(format!("the {} integrator's state has the wrong shape", self.integrator.name())));
        }
        self.counters.restore_tallies(state.counters).map_err(mismatch)?;
        self.x = state.x;
        self.v = state.v;
        self.free = state.free;
        self.awaiting_capture = state.awaiting_capture;
        self.steps = state.steps;
        self.frames = state.frames;
        self.dissipated = state.dissipated;
        self.external_work = state.external_work;
        self.external_shifts = state.external_shifts;
        self.newton_iterations = state.newton_iterations;
        self.linear_solve_seconds = state.linear_solve_seconds;
        self.last_alpha = state.last_alpha;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integrators_are_named_as_in_scene_files() {
        for (name, kind) in IntegratorKind::NAMES {
            assert_eq!(IntegratorKind::from_name(name), Some(kind));
            assert_eq!(kind.name(), name);
            assert_eq!(
                kind.build(SolverKind::Newton).name(),
                name,
                "summary.json names the integrator as scene files do"
            );
        }
        let decay = EnergyTarget::Decay { half_life: 1.0, start: 0.0, ground: 0.0 };
        assert_eq!(IntegratorKind::ASearch { target: decay, alpha_range: (0.5, 1.5) }.name(), "a-search");
        assert_eq!(IntegratorKind::from_name("rk4"), None);
    }
}
