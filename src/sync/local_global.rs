//! Dinev et al.'s local/global solver (Stabilizing §4.2): the Projective Dynamics alternative
//! to Newton for the implicit-midpoint solve and the backward-Euler stabilisation of the
//! energy-tracking blend; for implicit Euler it is Projective Dynamics itself (Bouaziz et al.
//! 2014), the paper's baseline.
//!
//! Every potential with curvature must be a projective energy (w/2)‖G x − p‖², p ∈ 𝓜
//! ([`Potential::projective_hessian`]: Hookean springs, the as-rigid-as-possible corotated law).
//! Then with L = Σ w GᵀG the step's objective Φ (x̃, w, s, a as in `integrators.rs`) has the
//! constant matrix A = w·M + s·a²·L, and one iteration
//!
//! x ← x − A⁻¹ ∇Φ(x)
//!
//! is exactly a local step (project every G x onto its manifold: ∇Φ holds w·Gᵀ(G y − p*) for
//! each element) followed by the global solve (eq. 28 for backward Euler, eq. 30 for implicit
//! midpoint: A ∝ M + h²L and M + (h²/4)L). A is factorised once (sparse Cholesky) and kept for
//! as long as the step size and the set of free vertices stay the same. Potentials with no
//! Hessian (gravity, loads, wind) enter through ∇Φ alone, exactly as they do in Newton's
//! systems.
//!
//! The iterations are a fixed number (the paper: 10 for the midpoint solve, 1 for the
//! backward-Euler correction, started from the midpoint result), not run to a tolerance: the
//! result is an approximate solve, as in Projective Dynamics. Each iteration keeps the linear
//! momentum of a free body to round-off (L's rows sum to zero), not its angular momentum.

use crate::math::{Real, Vec3};
use crate::newton::{FactoredSystem, HessianForm, IncrementalPotential, LinearSolver, NewtonError, NewtonReport};
use crate::potential::Potential;

/// The local/global solver's iteration counts and its kept factorisations.
#[derive(Debug)]
pub struct LocalGlobal {
    /// Iterations of the implicit-midpoint solve (the paper's 10).
    pub iterations: usize,
    /// Iterations of the blend's backward-Euler correction, started from the midpoint result
    /// (the paper's 1).
    pub correction_iterations: usize,
    kept: Vec<KeptSystem>,
}

/// A factorised A = w·M + s·a²·L with what it was made for.
struct KeptSystem {
    inertia_weight: Real,
    curvature_weight: Real,
    free: Vec<Option<usize>>,
    system: FactoredSystem,
}

impl std::fmt::Debug for KeptSystem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeptSystem")
            .field("inertia_weight", &self.inertia_weight)
            .field("curvature_weight", &self.curvature_weight)
            .finish_non_exhaustive()
    }
}

impl LocalGlobal {
    /// The paper's counts: 10 midpoint iterations, 1 correction iteration.
    pub const PAPER_ITERATIONS: usize = 10;

    /// A solver taking `iterations` for the midpoint solve and one for the correction.
    pub fn new(iterations: usize) -> Self {
        LocalGlobal { iterations, correction_iterations: 1, kept: Vec::new() }
    }

    /// Runs `iterations` local/global iterations on `phi` from `x` (held vertices already at
    /// their prescribed positions). The report counts the iterations as Newton's would and is
    /// always `converged`: the count, not a tolerance, ends the solve.
    pub(crate) fn minimize(
        &mut self,
        phi: &IncrementalPotential<'_>,
        x: &mut [Vec3],
        iterations: usize,
    ) -> Result<NewtonReport, NewtonError> {
        let start = std::time::Instant::now();
        let system = self.system_for(phi, x)?;
        let mut report = NewtonReport { converged: true, ..Default::default() };
        for _ in 0..iterations {
            let gradient = phi.gradient_at(x);
            let (d, _) = system.solve(&gradient)?;
            for (i, k) in phi.free.iter().enumerate() {
                if let Some(k) = k {
                    x[i] -= d.fixed_rows::<3>(3 * k);
                }
            }
            report.iterations += 1;
            report.last_step = d.amax();
        }
        report.linear_solve_seconds = start.elapsed().as_secs_f64();
        Ok(report)
    }

    /// The kept factorisation of `phi`'s matrix, made now if there is none for its weights and
    /// free vertices.
    fn system_for(&mut self, phi: &IncrementalPotential<'_>, x: &[Vec3]) -> Result<&FactoredSystem, NewtonError> {
        let curvature_weight = phi.potential_weight * phi.blend * phi.blend;
        let found = self.kept.iter().position(|k| {
            k.inertia_weight == phi.inertia_weight && k.curvature_weight == curvature_weight && k.free == phi.free
        });
        let index = match found {
            Some(index) => index,
            None => {
                let projective = IncrementalPotential { hessian_form: HessianForm::Projective, ..*phi };
                let system = FactoredSystem::new(projective.newton_system(x).0, LinearSolver::Cholesky, None)?;
                // a step size or free set that changed for good leaves its systems behind: keep
                // the two a blend step uses
                if self.kept.len() == 2 {
                    self.kept.remove(0);
                }
                self.kept.push(KeptSystem {
                    inertia_weight: phi.inertia_weight,
                    curvature_weight,
                    free: phi.free.to_vec(),
                    system,
                });
                self.kept.len() - 1
            }
        };
        Ok(&self.kept[index].system)
    }
}

/// The first potential with curvature that has no projective form, if any: the local/global
/// solver cannot take a scene with one (Newton assembles a Hessian for it; the fixed matrix
/// would leave it out).
pub fn first_without_projective_form<'a>(
    potentials: &'a [Box<dyn Potential>],
    x: &[Vec3],
) -> Option<&'a dyn Potential> {
    let mut local = Vec::new();
    potentials.iter().map(|p| p.as_ref()).find(|p| {
        if p.projective_hessian().is_some() {
            return false;
        }
        crate::potential::gather(p.stencil(), x, &mut local);
        p.hessian(&local).is_some()
    })
}
