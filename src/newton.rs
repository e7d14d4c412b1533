//! Newton's method on an incremental potential: per-stencil PSD projection, a sparse linear solve
//! ([`LinearSolver`]: sparse Cholesky or Jacobi-preconditioned conjugate gradient), backtracking
//! line search (A-search §5; Li et al. 2020). Shared by both backends: the synchronous backend's
//! steps (`sync/`, with IPC barriers through [`BarrierContact`]) and the AVI's phantom meshes'
//! implicit steps (`avi/phantom.rs`, Phantom §3.2), so neither imports the other.

use crate::math::{Real, Vec3};
use crate::potential::{gather, Potential};
use nalgebra::{DMatrix, DVector, SymmetricEigen};
use nalgebra_sparse::CscMatrix;
use smallvec::SmallVec;
use std::sync::Mutex;

mod pattern;
pub use pattern::{AssemblyCache, BlockPattern};

/// How each Newton iteration solves H d = −g for its step d (H the PSD-projected Hessian of Φ
/// plus the mass term, so symmetric positive definite). A-search §5 solves these systems with
/// Jacobi-preconditioned conjugate gradient; both are here, and the default is the one that is
/// faster on the benchmark scenes (`benches/sync.rs`, docs/performance.md).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LinearSolver {
    /// Sparse Cholesky factorisation (faer's `Llt`, fill-reducing AMD ordering), exact to
    /// round-off. Scene key `linear_solver = "cholesky"`.
    Cholesky,
    /// Conjugate gradient preconditioned by H's diagonal, as in A-search §5 (faer's
    /// `matrix_free::conjugate_gradient`), run to a relative residual of
    /// [`PCG_RELATIVE_TOLERANCE`]. Scene key `linear_solver = "pcg"`. The default: 1.1× faster
    /// than Cholesky on the 192-dof bench cube and 9× on the 3993-dof one (docs/performance.md).
    #[default]
    JacobiPcg,
}

impl LinearSolver {
    /// Every solver with its name in scene files.
    pub const NAMES: [(&'static str, LinearSolver); 2] =
        [("cholesky", LinearSolver::Cholesky), ("pcg", LinearSolver::JacobiPcg)];

    /// The solver called `name` in scene files (`"cholesky"` or `"pcg"`).
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|&(_, s)| s)
    }

    /// Its name in scene files.
    pub fn name(self) -> &'static str {
        Self::NAMES.iter().find(|(_, s)| *s == self).map(|&(n, _)| n).expect("every solver is named")
    }
}

/// The conjugate gradient stops when ‖H d + g‖ ≤ 1e-10 ‖g‖. Newton stops on ‖d‖∞ ≤ 0.01 h and the
/// line search needs a descent direction; with this residual the direction's relative error is at
/// most κ(H)·1e-10, below 1e-4 unless κ(H) > 10⁶, so Newton takes the same iterates as with the
/// exact solve (tested against Cholesky). An Eisenstat–Walker forcing term would save CG
/// iterations in the early Newton iterations but change the iterates.
pub const PCG_RELATIVE_TOLERANCE: Real = 1e-10;

/// The conjugate gradient gives up after `max(1000, 2n)` iterations on an n × n system (in exact
/// arithmetic it ends in n), and the Newton solve fails with [`NewtonError::Pcg`].
pub fn pcg_max_iterations(n: usize) -> usize {
    (2 * n).max(1000)
}

/// Tunables of the Newton solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewtonParameters {
    /// Stop when the Newton step's largest component is at most `tolerance · h` (m); A-search
    /// uses 0.01 (with h in seconds, a velocity scale of 1 cm/s).
    pub tolerance: Real,
    /// Give up after this many iterations (the step is then taken as is and reported).
    pub max_iterations: usize,
    /// How the linear system of each iteration is solved.
    pub linear_solver: LinearSolver,
}

impl Default for NewtonParameters {
    fn default() -> Self {
        NewtonParameters { tolerance: 0.01, max_iterations: 100, linear_solver: LinearSolver::default() }
    }
}

/// What one Newton solve did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NewtonReport {
    /// Newton iterations (linear solves).
    pub iterations: usize,
    /// Whether the tolerance was met.
    pub converged: bool,
    /// Wall-clock seconds spent factoring and solving the linear systems.
    pub linear_solve_seconds: f64,
    /// Conjugate-gradient iterations summed over the linear solves (0 with Cholesky).
    pub pcg_iterations: usize,
    /// The largest component of the last Newton step, m (0 before any).
    pub last_step: Real,
}

/// Why a Newton solve failed. The step is not taken; the simulation cannot continue with the same
/// parameters.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum NewtonError {
    /// The projected Hessian could not be factored (not positive definite).
    Factorization(String),
    /// The Jacobi-preconditioned conjugate gradient did not reach [`PCG_RELATIVE_TOLERANCE`]
    /// (iteration limit [`pcg_max_iterations`], or a system found not positive definite).
    Pcg(String),
    /// The incremental potential is not finite at the start point.
    NonFinite,
}

impl std::fmt::Display for NewtonError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NewtonError::Factorization(e) => write!(f, "the Newton system could not be factored ({e})"),
            NewtonError::Pcg(e) => write!(
                f,
                "the conjugate gradient did not solve the Newton system ({e}); use linear_solver = \"cholesky\" \
                 or a smaller timestep"
            ),
            NewtonError::NonFinite => write!(f, "the incremental potential is not finite (an inverted element?)"),
        }
    }
}

/// Contact that Φ includes as barrier potentials at x and that caps every line-search step at
/// what continuous collision detection certifies intersection-free: the synchronous backend's IPC
/// contact (A-search §5).
pub trait BarrierContact: Sync {
    /// The barrier potentials of every pair close enough to be active at `x` (all vertices).
    fn active_barriers(&self, x: &[Vec3]) -> Vec<Box<dyn Potential>>;

    /// The largest fraction α ∈ [0, 1] of the step `x → x + step` (per vertex) certified
    /// intersection-free.
    fn max_step(&self, x: &[Vec3], step: &[Vec3]) -> Real;
}

/// Φ(x) = (w/2)‖x − x̃‖²_M + s·V(a·x + (1 − a)·x_n) over the free vertices; every implicit
/// integrator of the synchronous backend is a choice of (x̃, w, s, a) (see `integrators.rs`).
pub struct IncrementalPotential<'a> {
    /// The potentials V (dissipative ones included: their dissipation function is part of Φ).
    pub potentials: &'a [Box<dyn Potential>],
    /// Lumped masses per vertex, kg.
    pub masses: &'a [Real],
    /// For each vertex, its index among the free vertices, or `None` if held or scripted.
    pub free: &'a [Option<usize>],
    /// The inertial target x̃ (held vertices: their prescribed position).
    pub target: &'a [Vec3],
    /// x_n, the start of the step.
    pub anchor: &'a [Vec3],
    /// w, 1/s².
    pub inertia_weight: Real,
    /// s.
    pub potential_weight: Real,
    /// a: V is evaluated at a·x + (1 − a)·x_n.
    pub blend: Real,
    /// IPC contact: barriers at x (weight s) and a CCD-filtered line search.
    pub contact: Option<&'a dyn BarrierContact>,
    /// Which semidefinite form of each potential's Hessian the Newton systems assemble.
    pub hessian_form: HessianForm,
    /// What the caller keeps across solves of this problem (the Hessian's block pattern and its
    /// Cholesky analysis); `None`: both are made anew for each Newton system.
    pub assembly: Option<&'a Mutex<AssemblyCache>>,
}

/// Which semidefinite form of each potential's Hessian the Newton systems assemble.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HessianForm {
    /// The potential's own semidefinite form ([`Potential::psd_hessian`]), else its exact
    /// Hessian with negative eigenvalues clamped: Newton converges fast near the minimum.
    #[default]
    Projected,
    /// The potential's Gauss–Newton form where it has one ([`Potential::gauss_newton_hessian`],
    /// hinges), else as `Projected`: cheaper to assemble, for solves that keep their factor
    /// across many iterations (the phantom meshes').
    GaussNewton,
    /// Projective Dynamics' constant matrix ([`Potential::projective_hessian`]) for potentials
    /// that have one; the others contribute nothing (the local/global solver admits only
    /// potentials Newton would assemble no Hessian for: `sync/local_global.rs`). The same matrix
    /// at every x: factorised once.
    Projective,
}

impl IncrementalPotential<'_> {
    fn evaluation_point(&self, x: &[Vec3]) -> Vec<Vec3> {
        x.iter().zip(self.anchor).map(|(x, xn)| x * self.blend + xn * (1.0 - self.blend)).collect()
    }

    /// Φ(x).
    pub fn value(&self, x: &[Vec3]) -> Real {
        let y = self.evaluation_point(x);
        let mut local = Vec::new();
        let potential: Real = self
            .potentials
            .iter()
            .map(|p| {
                gather(p.stencil(), &y, &mut local);
                p.energy(&local)
            })
            .sum();
        let inertia: Real = (0..x.len())
            .filter(|&i| self.free[i].is_some())
            .map(|i| self.masses[i] * (x[i] - self.target[i]).norm_squared())
            .sum();
        let contact: Real = self
            .contact
            .map(|c| {
                c.active_barriers(x)
                    .iter()
                    .map(|b| {
                        gather(b.stencil(), x, &mut local);
                        b.energy(&local)
                    })
                    .sum()
            })
            .unwrap_or(0.0);
        0.5 * self.inertia_weight * inertia + self.potential_weight * (potential + contact)
    }

    /// The potential terms of Φ with where they are evaluated and their weight in Φ's derivatives
    /// (`chain` is a or a² for the gradient or Hessian): the potentials at y (weight s·chain) and the
    /// contact `barriers` at x (weight s).
    fn terms<'b>(
        &'b self,
        y: &'b [Vec3],
        x: &'b [Vec3],
        barriers: &'b [Box<dyn Potential>],
        chain: Real,
    ) -> impl Iterator<Item = (&'b dyn Potential, &'b [Vec3], Real)> + 'b {
        let scale = self.potential_weight * chain;
        self.potentials
            .iter()
            .map(move |p| (p.as_ref(), y, scale))
            .chain(barriers.iter().map(move |b| (b.as_ref(), x, self.potential_weight)))
    }

    /// ∇Φ over the free degrees of freedom (3 per free vertex), with the active `barriers` at x.
    fn gradient(&self, x: &[Vec3], barriers: &[Box<dyn Potential>], dofs: usize) -> DVector<Real> {
        let y = self.evaluation_point(x);
        let mut g = DVector::zeros(dofs);
        let (mut local, mut local_grad) = (Vec::new(), Vec::new());
        for (p, at, scale) in self.terms(&y, x, barriers, self.blend) {
            gather(p.stencil(), at, &mut local);
            local_grad.clear();
            local_grad.resize(local.len(), Vec3::zeros());
            p.gradient(&local, &mut local_grad);
            for (v, gl) in p.stencil().iter().zip(&local_grad) {
                if let Some(k) = self.free[v.index()] {
                    for a in 0..3 {
                        g[3 * k + a] += scale * gl[a];
                    }
                }
            }
        }
        for (i, f) in self.free.iter().enumerate() {
            if let Some(k) = f {
                let r = (x[i] - self.target[i]) * (self.inertia_weight * self.masses[i]);
                for a in 0..3 {
                    g[3 * k + a] += r[a];
                }
            }
        }
        g
    }

    /// ∇²Φ over the free degrees of freedom, each potential's Hessian restricted to its free
    /// vertices and projected to be positive semidefinite (negative eigenvalues clamped to zero),
    /// so the system is positive definite.
    fn hessian(&self, x: &[Vec3], barriers: &[Box<dyn Potential>], dofs: usize) -> CscMatrix<Real> {
        let y = self.evaluation_point(x);
        let free_of = |p: &dyn Potential| -> SmallVec<[usize; 4]> {
            p.stencil().iter().filter_map(|v| self.free[v.index()]).collect()
        };
        // a linear potential (a body's gravity) adds nothing to the Hessian: its stencil, all of
        // the body, would make the pattern and the Cholesky factor dense
        let elastic =
            || self.potentials.iter().filter(|p| !p.is_linear()).map(|p| free_of(p.as_ref())).collect::<Vec<_>>();
        let pattern = match self.assembly {
            Some(cache) => lock(cache).pattern(self.free, dofs / 3, elastic),
            None => {
                let stencils = elastic();
                std::sync::Arc::new(BlockPattern::new(dofs / 3, stencils.iter().map(|s| &s[..])))
            }
        };
        // contact barriers come and go: a pair of vertices no elastic stencil couples gets a
        // pattern of its own for this system
        let contacts: Vec<SmallVec<[usize; 4]>> = barriers.iter().map(|b| free_of(b.as_ref())).collect();
        let pattern = if pattern.covers(contacts.iter().map(|s| &s[..])) {
            pattern
        } else {
            std::sync::Arc::new(pattern.with(contacts.iter().map(|s| &s[..])))
        };
        let mut values = vec![0.0; pattern.stored()];
        let mut local = Vec::new();
        for (p, at, scale) in self.terms(&y, x, barriers, self.blend * self.blend) {
            gather(p.stencil(), at, &mut local);
            // a semidefinite form of the potential's, or the exact Hessian to project
            let own = match self.hessian_form {
                HessianForm::GaussNewton => p.gauss_newton_hessian(&local).or_else(|| p.psd_hessian(&local)),
                HessianForm::Projected => p.psd_hessian(&local),
                HessianForm::Projective => match p.projective_hessian() {
                    Some(h) => Some(h),
                    None => continue,
                },
            };
            let (h, semidefinite) = match own {
                Some(h) => (h, true),
                None => match p.hessian(&local) {
                    Some(h) => (h, false),
                    None => continue,
                },
            };
            // project the block of the stencil's free vertices only: held vertices' rows are
            // dropped anyway, and an obstacle's coordinates would otherwise mix round-off into it
            // (a block of a semidefinite matrix is semidefinite: no projection)
            let free: SmallVec<[(usize, usize); 4]> =
                p.stencil().iter().enumerate().filter_map(|(a, v)| self.free[v.index()].map(|k| (a, k))).collect();
            if free.is_empty() {
                continue;
            }
            let block = if free.len() == p.stencil().len() {
                h
            } else {
                DMatrix::from_fn(3 * free.len(), 3 * free.len(), |r, c| {
                    h[(3 * free[r / 3].0 + r % 3, 3 * free[c / 3].0 + c % 3)]
                })
            };
            let h = if semidefinite { block } else { project_psd(block) };
            for (a, &(_, ka)) in free.iter().enumerate() {
                for (b, &(_, kb)) in free.iter().enumerate() {
                    pattern.add_block(&mut values, ka, kb, |i, j| scale * h[(3 * a + i, 3 * b + j)]);
                }
            }
        }
        for (i, f) in self.free.iter().enumerate() {
            if let Some(k) = f {
                let m = self.inertia_weight * self.masses[i];
                pattern.add_block(&mut values, *k, *k, |i, j| if i == j { m } else { 0.0 });
            }
        }
        pattern.matrix(values)
    }

    /// The largest fraction of the Newton step `d` that keeps every potential in its domain
    /// ([`Potential::feasible_step`], at the evaluation point, which moves by a·d) and, with
    /// contact, every pair apart (CCD).
    fn feasible_step(&self, x: &[Vec3], d: &DVector<Real>) -> Real {
        let per_vertex: Vec<Vec3> = self
            .free
            .iter()
            .map(|f| f.map_or(Vec3::zeros(), |k| Vec3::new(d[3 * k], d[3 * k + 1], d[3 * k + 2])))
            .collect();
        let y = self.evaluation_point(x);
        let dy: Vec<Vec3> = per_vertex.iter().map(|d| d * self.blend).collect();
        let (mut at, mut along) = (Vec::new(), Vec::new());
        let elastic = self.potentials.iter().fold(1.0, |step: Real, p| {
            gather(p.stencil(), &y, &mut at);
            gather(p.stencil(), &dy, &mut along);
            step.min(p.feasible_step(&at, &along))
        });
        match self.contact {
            None => elastic,
            Some(contact) => elastic.min(contact.max_step(x, &per_vertex)),
        }
    }

    /// A Newton start: x_n + t·(x̃ − x_n) for the largest t ≤ 1 that every potential's
    /// [`Potential::feasible_step`] (and, with contact, CCD) allows from x_n, so the start is as
    /// close to the inertial target as it can be while every element stays in its domain and,
    /// with contact, every pair apart (a neo-Hookean element
    /// that x̃ would invert has infinite Φ there, and Newton could not start). `x` holds x_n (held
    /// vertices at their prescribed positions) and receives the start.
    pub fn move_to_feasible_start(&self, x: &mut [Vec3]) {
        let dofs = 3 * self.free.iter().flatten().count();
        let mut d = DVector::zeros(dofs);
        for (i, f) in self.free.iter().enumerate() {
            if let Some(k) = f {
                let dx = self.target[i] - x[i];
                d.fixed_rows_mut::<3>(3 * k).copy_from(&dx);
            }
        }
        let t = self.feasible_step(x, &d);
        apply(x, self.free, &d, t);
    }

    /// The Newton system at `x`: the PSD-projected Hessian H and the gradient g of Φ over the free
    /// degrees of freedom (3 per free vertex, in free-vertex order), with the contact barriers
    /// active at `x`. The Newton step solves H d = −g ([`solve_newton_system`]).
    pub fn newton_system(&self, x: &[Vec3]) -> (CscMatrix<Real>, DVector<Real>) {
        let dofs = 3 * self.free.iter().flatten().count();
        // the active set is found once per iterate and shared by gradient and Hessian
        let barriers = self.contact.map(|c| c.active_barriers(x)).unwrap_or_default();
        (self.hessian(x, &barriers, dofs), self.gradient(x, &barriers, dofs))
    }

    /// ∇Φ(x) over the free degrees of freedom, with the barriers active at `x`.
    pub(crate) fn gradient_at(&self, x: &[Vec3]) -> DVector<Real> {
        let dofs = 3 * self.free.iter().flatten().count();
        let barriers = self.contact.map(|c| c.active_barriers(x)).unwrap_or_default();
        self.gradient(x, &barriers, dofs)
    }

    /// Minimises Φ starting from `x` (held vertices already at their prescribed positions),
    /// stopping when the step is below `tolerance · h`.
    pub fn minimize(&self, x: &mut [Vec3], h: Real, params: &NewtonParameters) -> Result<NewtonReport, NewtonError> {
        let mut report = NewtonReport::default();
        let Some((_, mut value)) = self.start(x, &mut report)? else { return Ok(report) };
        while report.iterations < params.max_iterations {
            let (hessian, g) = self.newton_system(x);
            let solve_start = std::time::Instant::now();
            let (d, pcg_iterations) = match (params.linear_solver, self.assembly) {
                (LinearSolver::Cholesky, Some(cache)) => {
                    let mut d = -&g;
                    let factor = lock(cache).analysis.factor_with_kept_analysis(&hessian)?;
                    solve_in_place(&factor, d.as_mut_slice());
                    (d, 0)
                }
                _ => solve_newton_system(&hessian, &(-&g), params.linear_solver)?,
            };
            report.linear_solve_seconds += solve_start.elapsed().as_secs_f64();
            report.pcg_iterations += pcg_iterations;
            report.iterations += 1;
            report.last_step = d.amax();
            match self.take_step(x, &d, &g, &mut value, params.tolerance * h) {
                Step::Taken => {}
                Step::Converged => {
                    report.converged = true;
                    return Ok(report);
                }
            }
        }
        Ok(report)
    }

    /// [`minimize`](Self::minimize) with the factorised Hessian kept across iterations and solves
    /// as the preconditioner of nonlinear conjugate gradients, as Phantom §4 solves its implicit
    /// steps: each iteration takes the preconditioned gradient z = H₀⁻¹∇Φ(x) with the kept factor
    /// H₀ (SPD), the direction p = −z + βp₋ (Polak–Ribière+, restarted whenever p does not
    /// descend), a secant step along p from the directional derivatives at 0 and 1, and the same
    /// line search as Newton's. Where H₀ is Φ's Hessian this is a Newton step (β ≈ 0, secant
    /// step ≈ 1); where Φ is not convex (a shell buckling) and a semidefinite H₀ makes the plain
    /// chord iteration converge linearly and slowly, the conjugate directions speed it up.
    /// Converged when |z| ≤ tolerance · h. The factor is rebuilt at x when there is none for this
    /// problem's size, when it is [`KeptFactor::REFRESH_AFTER`] solves old, and, once per solve,
    /// after [`KeptFactor::STALE_AFTER`] iterations without convergence. Always sparse Cholesky.
    pub fn minimize_with_kept_factor(
        &self,
        x: &mut [Vec3],
        h: Real,
        params: &NewtonParameters,
        kept: &mut KeptFactor,
    ) -> Result<NewtonReport, NewtonError> {
        let mut report = NewtonReport::default();
        let Some((dofs, mut value)) = self.start(x, &mut report)? else { return Ok(report) };
        kept.age += 1;
        if kept.dofs != dofs || kept.age > KeptFactor::REFRESH_AFTER || kept.went_stale {
            kept.factor = None;
        }
        kept.went_stale = false;
        // iterations on the current factor, and the first preconditioned gradient's length on it
        let (mut on_factor, mut first_length) = (0, Real::INFINITY);
        // the previous iteration's gradient, preconditioned gradient and direction
        let mut previous: Option<(DVector<Real>, DVector<Real>, DVector<Real>)> = None;
        while report.iterations < params.max_iterations {
            let solve_start = std::time::Instant::now();
            let g = match &kept.factor {
                Some(_) => self.gradient_at(x),
                None => {
                    on_factor = 0;
                    previous = None;
                    let (hessian, g) = self.newton_system(x);
                    kept.factor = Some(kept.factor_with_kept_analysis(&hessian)?);
                    kept.source = Some(hessian);
                    kept.dofs = dofs;
                    kept.age = 0;
                    kept.refreshes += 1;
                    g
                }
            };
            let mut z = g.clone();
            solve_in_place(kept.factor.as_ref().expect("a factor was just made"), z.as_mut_slice());
            report.linear_solve_seconds += solve_start.elapsed().as_secs_f64();
            report.iterations += 1;
            let length = z.amax();
            report.last_step = length;
            on_factor += 1;
            if on_factor == 1 {
                first_length = length;
            }
            if length <= params.tolerance * h {
                apply(x, self.free, &z, -1.0);
                report.converged = true;
                return Ok(report);
            }
            let mut p = -&z;
            if let Some((g0, z0, p0)) = &previous {
                let beta = (z.dot(&(&g - g0)) / z0.dot(g0)).max(0.0);
                if beta.is_finite() {
                    let conjugate = &p + p0 * beta;
                    if g.dot(&conjugate) < 0.0 {
                        p = conjugate;
                    }
                }
            }
            // the secant step along p: Φ'(0) = g·p < 0, Φ'(1) from the gradient at x + p
            let slope = g.dot(&p);
            let mut trial = x.to_vec();
            apply(&mut trial, self.free, &p, 1.0);
            let far = self.gradient_at(&trial).dot(&p);
            let alpha = if far > slope { (slope / (slope - far)).clamp(0.1, 4.0) } else { 1.0 };
            let d = &p * alpha;
            if let Step::Converged = self.take_step(x, &d, &g, &mut value, 0.0) {
                // no step along a descent direction changes Φ or x: the minimum to round-off
                report.converged = true;
                return Ok(report);
            }
            if on_factor >= KeptFactor::STALE_AFTER && length > KeptFactor::STALE_GAIN * first_length {
                // this many iterations on the factor have not gained what a factor of Φ's own
                // Hessian gains: it no longer describes Φ near x (a stale one, or one made far
                // from the minimum); rebuild it here, and at the start of the next solve
                kept.factor = None;
                kept.went_stale = true;
            }
            previous = Some((g, z, p));
        }
        Ok(report)
    }

    /// The start of a solve at `x`: its degrees of freedom and Φ(x), or `None` (converged) when
    /// there is none to move; an error when Φ(x) is not finite.
    fn start(&self, x: &[Vec3], report: &mut NewtonReport) -> Result<Option<(usize, Real)>, NewtonError> {
        let dofs = 3 * self.free.iter().flatten().count();
        let value = self.value(x);
        if !value.is_finite() {
            return Err(NewtonError::NonFinite);
        }
        if dofs == 0 {
            report.converged = true;
            return Ok(None);
        }
        Ok(Some((dofs, value)))
    }

    /// One Newton iteration's step from `x` along `d` (g = ∇Φ(x), `value` = Φ(x), updated):
    /// converged when d is below `tolerance` (m) or no longer moves x, else a backtracking
    /// (Armijo) line search; with contact it starts from the largest fraction CCD certifies
    /// intersection-free.
    fn take_step(
        &self,
        x: &mut [Vec3],
        d: &DVector<Real>,
        g: &DVector<Real>,
        value: &mut Real,
        tolerance: Real,
    ) -> Step {
        if d.amax() <= tolerance {
            apply(x, self.free, d, 1.0);
            return Step::Converged;
        }
        let slope = g.dot(d);
        let mut step = self.feasible_step(x, d);
        let full = step;
        let start = x.to_vec();
        loop {
            apply(x, self.free, d, step);
            if *x == start[..] {
                // the step no longer moves any coordinate: converged to round-off
                return Step::Converged;
            }
            let trial = self.value(x);
            // Near the minimum the decrease asked for can fall below Φ's round-off (a stiff
            // potential's energy is a small difference of large lengths), and Armijo's test
            // compares noise: there the gradient's norm is the merit instead
            let undecidable = (1e-4 * step * slope).abs() <= 16.0 * Real::EPSILON * value.abs().max(trial.abs());
            if trial.is_finite() && trial <= *value + 1e-4 * step * slope && !undecidable {
                *value = trial;
                return Step::Taken;
            }
            // the full step is taken when it at least halves the gradient, and any step that
            // lowers it once Armijo cannot tell
            if trial.is_finite() && (step == full || undecidable) {
                let after = self.gradient_at(x).norm();
                if after <= 0.5 * g.norm() || (undecidable && after < g.norm()) {
                    *value = trial;
                    return Step::Taken;
                }
            }
            x.copy_from_slice(&start);
            step *= 0.5;
            if step < 1e-12 {
                // no decrease possible at round-off: we are at the minimum
                return Step::Converged;
            }
        }
    }
}

/// What a Newton iteration's line search did.
enum Step {
    Taken,
    Converged,
}

/// A sparse Cholesky factor of Φ's Hessian kept across Newton iterations and solves
/// ([`IncrementalPotential::minimize_with_kept_factor`]), with how often it was rebuilt, and
/// the symbolic analysis (ordering and elimination tree) of its sparsity pattern, kept while the
/// pattern stays (a body's stencils do not change).
#[derive(Default)]
pub struct KeptFactor {
    factor: Option<faer::sparse::linalg::solvers::Llt<usize, Real>>,
    /// The matrix `factor` was made of, kept for a checkpoint ([`KeptFactor::state`]), which
    /// factors it again on resume: the same arrays through the same code give the same factor.
    source: Option<CscMatrix<Real>>,
    analysis: Option<(Vec<usize>, Vec<usize>, faer::sparse::linalg::solvers::SymbolicLlt<usize>)>,
    dofs: usize,
    /// Solves since the factor was made.
    age: usize,
    /// The last solve had to rebuild the factor after [`KeptFactor::STALE_AFTER`] iterations: the
    /// next one starts with a new factor.
    went_stale: bool,
    /// Factorisations so far.
    pub refreshes: u64,
}

impl KeptFactor {
    /// Solves after which the factor is rebuilt even when it still converges fast (Phantom §4
    /// uses 50).
    pub const REFRESH_AFTER: usize = 50;

    /// Iterations on one factor after which it is rebuilt at the current iterate if they have
    /// not shortened the preconditioned gradient by [`KeptFactor::STALE_GAIN`] (the next solve
    /// then starts with a new factor too). With a factor of the step's own Hessian the conjugate
    /// gradients gain a factor of 10 to 30 per iteration on the `cape` scene's cloth; a factor made
    /// steps ago, or far from the minimum where the cloth buckles, gains 1.5 to 3
    /// (docs/performance.md).
    pub const STALE_AFTER: usize = 3;

    /// The gain that [`KeptFactor::STALE_AFTER`] iterations on a good factor make at least.
    pub const STALE_GAIN: Real = 1e-2;

    /// What a checkpoint keeps of the factor: the matrix it was made of (`None` when there is no
    /// factor) and the counts.
    pub fn state(&self) -> KeptFactorState {
        KeptFactorState {
            matrix: self.factor.as_ref().and(self.source.as_ref()).map(|a| {
                let (column_offsets, row_indices, values) = a.csc_data();
                CscArrays {
                    size: a.nrows(),
                    column_offsets: column_offsets.to_vec(),
                    row_indices: row_indices.to_vec(),
                    values: values.to_vec(),
                }
            }),
            dofs: self.dofs,
            age: self.age,
            went_stale: self.went_stale,
            refreshes: self.refreshes,
        }
    }

    /// The factor [`state`](Self::state) describes, factored again from its matrix.
    pub fn from_state(state: KeptFactorState) -> Result<Self, NewtonError> {
        let mut kept = KeptFactor {
            dofs: state.dofs,
            age: state.age,
            went_stale: state.went_stale,
            refreshes: state.refreshes,
            ..Default::default()
        };
        if let Some(CscArrays { size, column_offsets, row_indices, values }) = state.matrix {
            let a = CscMatrix::try_from_csc_data(size, size, column_offsets, row_indices, values)
                .map_err(|e| NewtonError::Factorization(format!("a checkpoint's matrix: {e}")))?;
            kept.factor = Some(kept.factor_with_kept_analysis(&a)?);
            kept.source = Some(a);
        }
        Ok(kept)
    }

    /// Factors `a` by sparse Cholesky (faer's LLᵀ: approximate-minimum-degree ordering,
    /// supernodal or simplicial by the fill it finds, reading `a`'s lower triangle through a
    /// zero-copy view), reusing the symbolic analysis when `a` has the pattern analysed last.
    fn factor_with_kept_analysis(
        &mut self,
        a: &CscMatrix<Real>,
    ) -> Result<faer::sparse::linalg::solvers::Llt<usize, Real>, NewtonError> {
        use faer::sparse::linalg::solvers::{Llt, SymbolicLlt};
        use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
        use faer::Side;

        let n = a.nrows();
        let (col_offsets, row_indices, values) = a.csc_data();
        let symbolic = SymbolicSparseColMatRef::new_checked(n, n, col_offsets, None, row_indices);
        let failed = |e: String| NewtonError::Factorization(e);
        let same = self.analysis.as_ref().is_some_and(|(c, r, _)| c == col_offsets && r == row_indices);
        if !same {
            let analysis = SymbolicLlt::try_new(symbolic, Side::Lower).map_err(|e| failed(format!("{e:?}")))?;
            self.analysis = Some((col_offsets.to_vec(), row_indices.to_vec(), analysis));
        }
        let analysis = self.analysis.as_ref().expect("analysed above").2.clone();
        Llt::try_new_with_symbolic(analysis, SparseColMatRef::new(symbolic, values), Side::Lower)
            .map_err(|e| failed(format!("{e:?}")))
    }
}

/// A square sparse matrix's compressed-column arrays, for a checkpoint.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
struct CscArrays {
    size: usize,
    column_offsets: Vec<usize>,
    row_indices: Vec<usize>,
    values: Vec<Real>,
}

/// A [`KeptFactor`] in a checkpoint: the matrix it factors, and its counts.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KeptFactorState {
    matrix: Option<CscArrays>,
    dofs: usize,
    age: usize,
    went_stale: bool,
    refreshes: u64,
}

impl std::fmt::Debug for KeptFactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptFactor")
            .field("factored", &self.factor.is_some())
            .field("analysed", &self.analysis.is_some())
            .field("dofs", &self.dofs)
            .field("age", &self.age)
            .field("refreshes", &self.refreshes)
            .finish()
    }
}

/// Solves H d = `rhs` for a symmetric positive definite `hessian` with `solver`; returns d and the
/// conjugate-gradient iterations it took (0 for Cholesky).
pub fn solve_newton_system(
    hessian: &CscMatrix<Real>,
    rhs: &DVector<Real>,
    solver: LinearSolver,
) -> Result<(DVector<Real>, usize), NewtonError> {
    match solver {
        LinearSolver::Cholesky => Ok((solve_cholesky(hessian, rhs)?, 0)),
        LinearSolver::JacobiPcg => {
            solve_jacobi_pcg(hessian, rhs, PCG_RELATIVE_TOLERANCE, pcg_max_iterations(rhs.len()))
        }
    }
}

/// A symmetric positive definite system matrix made ready once and solved for several
/// right-hand sides in turn: a Rosenbrock step's stages share one matrix (Higher-order §3.2.4).
/// With Cholesky the matrix is factorised once (with the caller's kept symbolic analysis, if
/// any); with Jacobi-PCG each right-hand side is solved from d = 0.
pub struct FactoredSystem {
    matrix: CscMatrix<Real>,
    factor: Option<faer::sparse::linalg::solvers::Llt<usize, Real>>,
    solver: LinearSolver,
}

impl FactoredSystem {
    /// Makes `matrix` ready for `solver`: factorised now for Cholesky.
    pub fn new(
        matrix: CscMatrix<Real>,
        solver: LinearSolver,
        assembly: Option<&Mutex<AssemblyCache>>,
    ) -> Result<Self, NewtonError> {
        let factor = match (solver, assembly) {
            (LinearSolver::Cholesky, Some(cache)) => Some(lock(cache).analysis.factor_with_kept_analysis(&matrix)?),
            (LinearSolver::Cholesky, None) => Some(KeptFactor::default().factor_with_kept_analysis(&matrix)?),
            (LinearSolver::JacobiPcg, _) => None,
        };
        Ok(FactoredSystem { matrix, factor, solver })
    }

    /// The product of the matrix with `x`, by faer's sparse product (the library of the solves).
    pub fn multiply(&self, x: &DVector<Real>) -> DVector<Real> {
        use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
        let n = self.matrix.nrows();
        let (col_offsets, row_indices, values) = self.matrix.csc_data();
        let a =
            SparseColMatRef::new(SymbolicSparseColMatRef::new_checked(n, n, col_offsets, None, row_indices), values);
        let mut y = DVector::zeros(n);
        faer::sparse::linalg::matmul::sparse_dense_matmul(
            faer::MatMut::from_column_major_slice_mut(y.as_mut_slice(), n, 1),
            faer::Accum::Replace,
            a,
            faer::MatRef::from_column_major_slice(x.as_slice(), n, 1),
            1.0,
            faer::Par::Seq,
        );
        y
    }

    /// The solution d of `matrix`·d = `rhs`, and the conjugate-gradient iterations it took (0 for
    /// Cholesky).
    pub fn solve(&self, rhs: &DVector<Real>) -> Result<(DVector<Real>, usize), NewtonError> {
        match &self.factor {
            Some(factor) => {
                let mut d = rhs.clone();
                solve_in_place(factor, d.as_mut_slice());
                Ok((d, 0))
            }
            None => solve_newton_system(&self.matrix, rhs, self.solver),
        }
    }
}

/// The cache, locked (one thread solves at a time; a poisoned lock still holds a valid cache,
/// since nothing in it is left half-written by a panic).
fn lock(cache: &Mutex<AssemblyCache>) -> std::sync::MutexGuard<'_, AssemblyCache> {
    cache.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Solves in place with a Cholesky factor.
fn solve_in_place(factor: &faer::sparse::linalg::solvers::Llt<usize, Real>, b: &mut [Real]) {
    use faer::linalg::solvers::Solve;
    let n = b.len();
    factor.solve_in_place(faer::MatMut::from_column_major_slice_mut(b, n, 1));
}

/// Solves `a` d = `b` by sparse Cholesky, analysed and factored anew
/// ([`KeptFactor::factor_with_kept_analysis`] on an empty one).
fn solve_cholesky(a: &CscMatrix<Real>, b: &DVector<Real>) -> Result<DVector<Real>, NewtonError> {
    let mut d = b.clone();
    solve_in_place(&KeptFactor::default().factor_with_kept_analysis(a)?, d.as_mut_slice());
    Ok(d)
}

/// Jacobi-preconditioned conjugate gradient from d = 0 on a zero-copy faer view of `a`'s CSC
/// arrays, sequential, until ‖a d − b‖ ≤ `tolerance`·‖b‖ or `max_iterations`.
fn solve_jacobi_pcg(
    a: &CscMatrix<Real>,
    b: &DVector<Real>,
    tolerance: Real,
    max_iterations: usize,
) -> Result<(DVector<Real>, usize), NewtonError> {
    use faer::dyn_stack::{MemBuffer, MemStack};
    use faer::matrix_free::conjugate_gradient::{conjugate_gradient, conjugate_gradient_scratch, CgError, CgParams};
    use faer::matrix_free::InitialGuessStatus;
    use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};

    let n = b.len();
    assert!(a.nrows() == n && a.ncols() == n, "H is {}×{}, the right-hand side has {n} rows", a.nrows(), a.ncols());
    // the preconditioner applies diag(H)⁻¹; an SPD matrix has a positive diagonal
    let mut inverse_diagonal = faer::Col::<Real>::zeros(n);
    for i in 0..n {
        let d = a.get_entry(i, i).map_or(0.0, |e| e.into_value());
        if !(d.is_finite() && d > 0.0) {
            return Err(NewtonError::Pcg(format!("H has diagonal entry {d} at row {i}: not positive definite")));
        }
        inverse_diagonal[i] = 1.0 / d;
    }
    let (col_offsets, row_indices, values) = a.csc_data();
    let a = SparseColMatRef::new(SymbolicSparseColMatRef::new_checked(n, n, col_offsets, None, row_indices), values);
    let precond = inverse_diagonal.as_diagonal();
    let par = faer::Par::Seq;
    let mut buffer = MemBuffer::new(conjugate_gradient_scratch(precond, a, 1, par));
    let mut d = DVector::zeros(n);
    let params = CgParams {
        // not `Zero`: faer 0.24.4 then leaves the first residual uninitialised (it should be b);
        // from d = 0 it computes r = b − A·0, one mat-vec more
        initial_guess: InitialGuessStatus::MaybeNonZero,
        abs_tolerance: 0.0,
        rel_tolerance: tolerance,
        max_iters: max_iterations,
        ..CgParams::default()
    };
    let result = conjugate_gradient(
        faer::MatMut::from_column_major_slice_mut(d.as_mut_slice(), n, 1),
        precond,
        a,
        faer::MatRef::from_column_major_slice(b.as_slice(), n, 1),
        params,
        |_| {},
        par,
        MemStack::new(&mut buffer),
    );
    match result {
        Ok(info) => Ok((d, info.iter_count)),
        Err(CgError::NoConvergence { rel_residual, .. }) => Err(NewtonError::Pcg(format!(
            "relative residual {rel_residual:.2e} after {max_iterations} iterations, asked {tolerance:.0e}"
        ))),
        Err(CgError::NonPositiveDefiniteOperator) => Err(NewtonError::Pcg("H is not positive definite".into())),
        Err(CgError::NonPositiveDefinitePreconditioner) => {
            Err(NewtonError::Pcg("diag(H) is not positive definite".into()))
        }
    }
}

fn apply(x: &mut [Vec3], free: &[Option<usize>], d: &DVector<Real>, step: Real) {
    for (xi, f) in x.iter_mut().zip(free) {
        if let Some(k) = f {
            *xi += Vec3::new(d[3 * k], d[3 * k + 1], d[3 * k + 2]) * step;
        }
    }
}

/// The nearest positive-semidefinite matrix to a symmetric `h` (negative eigenvalues set to 0).
///
/// Coordinates that `h` couples by no exact nonzero entry (the axes of an axis-aligned bar, say)
/// are projected as separate blocks, so the projection never mixes them through round-off: a
/// motion that stays exactly on a line or in a plane keeps doing so.
pub fn project_psd(h: DMatrix<Real>) -> DMatrix<Real> {
    let n = h.nrows();
    let sym = (&h + h.transpose()) * 0.5;
    // connected components of the coupling graph (union–find on exact nonzeros)
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for i in 0..n {
        for j in 0..i {
            if sym[(i, j)] != 0.0 {
                let (a, b) = (root(&mut parent, i), root(&mut parent, j));
                parent[a.max(b)] = a.min(b);
            }
        }
    }
    let clamp = |m: DMatrix<Real>| {
        let eigen = SymmetricEigen::new(m.clone());
        if eigen.eigenvalues.iter().all(|&l| l >= 0.0) {
            m
        } else {
            let clamped = eigen.eigenvalues.map(|l| l.max(0.0));
            &eigen.eigenvectors * DMatrix::from_diagonal(&clamped) * eigen.eigenvectors.transpose()
        }
    };
    if (0..n).all(|i| root(&mut parent, i) == root(&mut parent, 0)) {
        // one block, the usual case: no copies in and out
        return clamp(sym);
    }
    let mut out = DMatrix::zeros(n, n);
    let mut done = vec![false; n];
    for first in 0..n {
        if done[first] {
            continue;
        }
        let r = root(&mut parent, first);
        let block: Vec<usize> = (first..n).filter(|&i| root(&mut parent, i) == r).collect();
        block.iter().for_each(|&i| done[i] = true);
        let projected = clamp(DMatrix::from_fn(block.len(), block.len(), |a, b| sym[(block[a], block[b])]));
        for (a, &i) in block.iter().enumerate() {
            for (b, &j) in block.iter().enumerate() {
                out[(i, j)] = projected[(a, b)];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::VertexId;
    use crate::potential::Spring;
    use nalgebra_sparse::CooMatrix;

    #[test]
    fn psd_projection_clamps_negative_eigenvalues() {
        let h = DMatrix::from_row_slice(2, 2, &[1.0, 2.0, 2.0, 1.0]); // eigenvalues 3, −1
        let p = project_psd(h);
        let e = SymmetricEigen::new(p).eigenvalues;
        assert!(e.iter().all(|&l| l >= -1e-12));
        assert!(e.iter().any(|&l| (l - 3.0).abs() < 1e-12));
    }

    #[test]
    fn psd_projection_keeps_uncoupled_axes_exactly_apart() {
        // a compressed bar along z: axial stiffness 5, transverse −2 (projected to 0); x, y, z
        // never couple, so the projection must not couple them either
        let k = DMatrix::from_diagonal(&nalgebra::DVector::from_vec(vec![-2.0, -2.0, 5.0]));
        let mut h = DMatrix::zeros(6, 6);
        h.view_mut((0, 0), (3, 3)).copy_from(&k);
        h.view_mut((3, 3), (3, 3)).copy_from(&k);
        h.view_mut((0, 3), (3, 3)).copy_from(&(-&k));
        h.view_mut((3, 0), (3, 3)).copy_from(&(-&k));
        let p = project_psd(h.clone());
        for i in 0..6 {
            for j in 0..6 {
                let expected = if i % 3 == 2 && j % 3 == 2 { h[(i, j)] } else { 0.0 };
                assert_eq!(p[(i, j)], expected, "entry ({i}, {j})");
            }
        }
    }

    #[test]
    fn newton_finds_the_static_equilibrium_of_a_hanging_spring() {
        // vertex 0 held at the origin, vertex 1 (1 kg) on a spring k = 100 N/m, L = 1 m, with a
        // weight: minimise ½ k (l − L)² + m g z with no inertia (w → tiny)
        let potentials: Vec<Box<dyn Potential>> = vec![
            Box::new(Spring::new(VertexId(0), VertexId(1), 100.0, 0.0, 1.0)),
            Box::new(crate::potential::Gravity::new([VertexId(1)], vec![1.0], Vec3::new(0.0, 0.0, -9.8))),
        ];
        let masses = [1.0, 1.0];
        let free = [None, Some(0)];
        let target = [Vec3::zeros(), Vec3::new(0.0, 0.0, -1.0)];
        let phi = IncrementalPotential {
            potentials: &potentials,
            masses: &masses,
            free: &free,
            target: &target,
            anchor: &target,
            inertia_weight: 1e-9,
            potential_weight: 1.0,
            blend: 1.0,
            contact: None,
            hessian_form: HessianForm::Projected,
            assembly: None,
        };
        let mut x = target;
        let report = phi
            .minimize(&mut x, 1.0, &NewtonParameters { tolerance: 1e-12, max_iterations: 50, ..Default::default() })
            .unwrap();
        assert!(report.converged);
        assert!((x[1].z + 1.098).abs() < 1e-6, "stretched by m g / k: {}", x[1].z);
        // the report's last step is the converged one's, below the tolerance (and not the 0 of
        // "no step taken")
        assert!(report.last_step > 0.0 && report.last_step <= 1e-12, "{}", report.last_step);
    }

    #[test]
    fn a_bodys_gravity_leaves_the_newton_system_as_sparse_as_its_springs() {
        // a chain of 6 springs over 7 free vertices, with gravity on all of them: the system
        // couples neighbours only (7 diagonal and 12 off-diagonal 3 × 3 blocks), as if gravity
        // were not there, and not every vertex with every other (49 blocks)
        let n: u32 = 7;
        let mut potentials: Vec<Box<dyn Potential>> = (0..n - 1)
            .map(|i| Box::new(Spring::new(VertexId(i), VertexId(i + 1), 100.0, 0.0, 1.0)) as Box<dyn Potential>)
            .collect();
        potentials.push(Box::new(crate::potential::Gravity::new(
            (0..n).map(VertexId),
            vec![1.0; n as usize],
            Vec3::new(0.0, 0.0, -9.8),
        )));
        let masses = vec![1.0; n as usize];
        let free: Vec<Option<usize>> = (0..n as usize).map(Some).collect();
        let x: Vec<Vec3> = (0..n).map(|i| Vec3::new(1.1 * i as Real, 0.0, 0.0)).collect();
        for assembly in [None, Some(&Mutex::new(AssemblyCache::default()))] {
            let phi = IncrementalPotential {
                potentials: &potentials,
                masses: &masses,
                free: &free,
                target: &x,
                anchor: &x,
                inertia_weight: 1.0,
                potential_weight: 1.0,
                blend: 1.0,
                contact: None,
                hessian_form: HessianForm::Projected,
                assembly,
            };
            let (matrix, _) = phi.newton_system(&x);
            assert_eq!(matrix.nnz(), 9 * (n as usize + 2 * (n as usize - 1)));
        }
    }

    /// A random sparse SPD matrix D S D: S symmetric and strictly diagonally dominant with about
    /// six off-diagonal entries per row, D a diagonal spread over four decades (what Jacobi
    /// preconditioning undoes).
    fn random_spd(n: usize, seed: u64) -> CscMatrix<Real> {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
        let scale: Vec<Real> = (0..n).map(|_| 10f64.powf(rng.random_range(-2.0..2.0))).collect();
        let mut off = vec![0.0; n];
        let mut coo = CooMatrix::new(n, n);
        for i in 0..n {
            for _ in 0..3 {
                let j = rng.random_range(0..n);
                if j == i {
                    continue;
                }
                let v: Real = rng.random_range(-1.0..1.0);
                coo.push(i, j, v * scale[i] * scale[j]);
                coo.push(j, i, v * scale[i] * scale[j]);
                off[i] += v.abs();
                off[j] += v.abs();
            }
        }
        for i in 0..n {
            coo.push(i, i, (off[i] + rng.random_range(0.01..1.0)) * scale[i] * scale[i]);
        }
        CscMatrix::from(&coo)
    }

    #[test]
    fn pcg_solves_a_random_spd_system_to_the_asked_residual_and_agrees_with_cholesky() {
        let n = 300;
        let a = random_spd(n, 11);
        let b = DVector::from_fn(n, |i, _| ((i * 7919) % 101) as Real / 50.0 - 1.0);
        let (d_pcg, iterations) = solve_newton_system(&a, &b, LinearSolver::JacobiPcg).unwrap();
        let (d_chol, none) = solve_newton_system(&a, &b, LinearSolver::Cholesky).unwrap();
        assert_eq!(none, 0);
        assert!(iterations > 1 && iterations < n, "{iterations} CG iterations");
        // the recursively updated residual CG stops on and the true one agree to round-off
        let residual = (&a * &d_pcg - &b).norm() / b.norm();
        assert!(residual <= 2.0 * PCG_RELATIVE_TOLERANCE, "relative residual {residual:e}");
        let error = (&d_pcg - &d_chol).norm() / d_chol.norm();
        assert!(error < 1e-8, "PCG against Cholesky: relative difference {error:e}");
    }

    #[test]
    fn pcg_that_runs_out_of_iterations_is_a_newton_error() {
        let a = random_spd(100, 3);
        let b = DVector::from_element(100, 1.0);
        let e = solve_jacobi_pcg(&a, &b, PCG_RELATIVE_TOLERANCE, 2).unwrap_err();
        assert!(matches!(e, NewtonError::Pcg(_)), "{e:?}");
        assert!(e.to_string().contains("after 2 iterations"), "{e}");
        // a matrix with a non-positive diagonal entry is refused before iterating
        let mut coo = CooMatrix::new(2, 2);
        coo.push(0, 0, 1.0);
        coo.push(1, 1, -1.0);
        let e = solve_newton_system(&CscMatrix::from(&coo), &DVector::from_element(2, 1.0), LinearSolver::JacobiPcg);
        assert!(matches!(e, Err(NewtonError::Pcg(_))), "{e:?}");
    }

    #[test]
    fn linear_solvers_are_named_as_in_scene_files() {
        for (name, solver) in LinearSolver::NAMES {
            assert_eq!(LinearSolver::from_name(name), Some(solver));
            assert_eq!(solver.name(), name);
        }
        assert_eq!(LinearSolver::from_name("lu"), None);
    }

    #[test]
    fn newton_reaches_the_same_minimiser_with_either_linear_solver() {
        // a 4 × 4 × 4 lattice of 0.1 kg vertices joined by springs along edges and face diagonals,
        // its bottom layer held, sagging under gravity from a scrambled start: one implicit-Euler
        // step (h = 0.05 s) with springs in compression, so the PSD projection is exercised
        use rand::{RngExt, SeedableRng};
        let side = 4;
        let index = |i: usize, j: usize, k: usize| (i * side + j) * side + k;
        let mut rng = rand_pcg::Pcg64::seed_from_u64(5);
        let mut rest = Vec::new();
        for i in 0..side {
            for j in 0..side {
                for k in 0..side {
                    rest.push(Vec3::new(i as Real, j as Real, k as Real) * 0.1);
                }
            }
        }
        let mut potentials: Vec<Box<dyn Potential>> = Vec::new();
        for i in 0..side {
            for j in 0..side {
                for k in 0..side {
                    let a = index(i, j, k);
                    let neighbours = [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (0, 1, 1), (1, 0, 1)];
                    for (di, dj, dk) in neighbours {
                        if i + di < side && j + dj < side && k + dk < side {
                            let b = index(i + di, j + dj, k + dk);
                            let length = (rest[a] - rest[b]).norm();
                            potentials.push(Box::new(Spring::new(
                                VertexId(a as u32),
                                VertexId(b as u32),
                                50.0,
                                0.0,
                                length,
                            )));
                        }
                    }
                }
            }
        }
        let n = rest.len();
        let masses = vec![0.1; n];
        let mut next = 0;
        let free: Vec<Option<usize>> = (0..n)
            .map(|v| {
                (v % side != 0).then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect();
        let ids: Vec<VertexId> = (0..n as u32).map(VertexId).collect();
        potentials.push(Box::new(crate::potential::Gravity::new(ids, masses.clone(), Vec3::new(0.0, 0.0, -9.8))));
        let start: Vec<Vec3> = rest
            .iter()
            .zip(&free)
            .map(|(x, f)| {
                let jitter =
                    Vec3::new(rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0), rng.random_range(-1.0..1.0));
                if f.is_some() {
                    x + jitter * 0.03
                } else {
                    *x
                }
            })
            .collect();
        let h = 0.05;
        let phi = IncrementalPotential {
            potentials: &potentials,
            masses: &masses,
            free: &free,
            target: &start,
            anchor: &start,
            inertia_weight: 1.0 / (h * h),
            potential_weight: 1.0,
            blend: 1.0,
            contact: None,
            hessian_form: HessianForm::Projected,
            assembly: None,
        };
        let solve = |linear_solver| {
            let mut x = start.clone();
            let params = NewtonParameters { tolerance: 1e-6, max_iterations: 100, linear_solver };
            let report = phi.minimize(&mut x, h, &params).unwrap();
            assert!(report.converged, "{linear_solver:?}: {report:?}");
            (x, report)
        };
        let (x_chol, r_chol) = solve(LinearSolver::Cholesky);
        let (x_pcg, r_pcg) = solve(LinearSolver::JacobiPcg);
        assert!(r_chol.iterations > 2, "a nonlinear solve: {r_chol:?}");
        assert_eq!(r_chol.iterations, r_pcg.iterations, "the same Newton iterates");
        assert!(r_pcg.pcg_iterations > r_pcg.iterations && r_chol.pcg_iterations == 0);
        let moved = x_chol.iter().zip(&start).map(|(a, b)| (a - b).norm()).fold(0.0, Real::max);
        let gap = x_chol.iter().zip(&x_pcg).map(|(a, b)| (a - b).norm()).fold(0.0, Real::max);
        assert!(moved > 1e-3 && gap < 1e-10 * moved.max(1.0), "moved {moved:e}, solvers differ by {gap:e}");
    }
}
