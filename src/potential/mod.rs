//! Potentials on stencils (ACM §3).
//!
//! A [`Potential`] acts on a small ordered set of vertices, its *stencil*, and gives energy, gradient,
//! Hessian and a stable-step estimate from the stencil's positions alone. The AVI engine kicks each
//! stencil with the gradient on the potential's own clock; the synchronous backend sums the same
//! potentials with [`assemble_gradient`] and [`assemble_hessian`]. There is never a second copy of
//! a force.
//!
//! | potential | stencil | paper |
//! |---|---|---|
//! | [`Gravity`] | every free vertex of a body | ACM §5.2 (a large stencil) |
//! | [`Spring`] | an edge (2) | ACM §3, Phantom §5.1 (FPU) |
//! | [`NeoHookeanBar`] | an edge (2) | 1D neo-Hookean (A-search §5.5's collision study) |
//! | [`Membrane`] | a triangle (3) | constant-strain triangle, St. Venant–Kirchhoff |
//! | [`Hinge`] | two triangles sharing an edge (4) | discrete shells, Grinspun et al. 2003 |
//! | [`Tetrahedron`] | a tetrahedron (4) | linear FEM; neo-Hookean (A-search §5) or fixed corotated |
//! | [`IpcBarrier`] | point–triangle or edge–edge (4) | IPC log barrier (Li et al. 2020; A-search §5), synchronous backend |
//! | [`LaggedFriction`] | a contact stencil (2 or 4) | lagged IPC friction (Li et al. 2020), synchronous backend |
//! | [`Wall`] | one vertex | one-sided quadratic wall (A-search Appendix E) |
//! | [`Damping`] | as the elastic potential it damps | ACM §6.1 (Verlet identity on its own clock) |
//! | [`Wind`] | every free vertex of a shell | Phantom §5 (the cape in wind): pressure along a direction, gusting |
//! | [`Load`] | chosen free vertices | ACM §8 (the reef knot pulled by a prescribed force) |

mod ad;
mod bar;
mod barrier;
mod cst;
mod damping;
#[cfg(test)]
mod derivative_tests;
mod friction;
mod gravity;
mod hinge;
mod load;
mod solid;
mod spring;
mod wall;
mod wind;

pub use ad::hessian_of;
pub use bar::{CompressionBarrier, NeoHookeanBar, KNEE};
pub use barrier::{barrier, mollifier, ContactPair, IpcBarrier};
pub use cst::{Membrane, MembraneMaterial};
pub use damping::{Damping, StrainMeasure};
pub use friction::LaggedFriction;
pub use gravity::Gravity;
pub use hinge::Hinge;
pub use load::{Load, LoadSchedule};
pub use solid::{Lame, SolidMaterial, Tetrahedron};
pub use spring::Spring;
pub use wall::Wall;
pub use wind::{Gusts, Wind};

use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::DMatrix;
use smallvec::SmallVec;

/// The vertices a potential depends on, in the order its local arrays use.
pub type Stencil = SmallVec<[VertexId; 4]>;

/// Puts back each potential's [`Potential::tick_state`] from `states` (one per potential, in
/// order), for a checkpoint; the error names what does not fit.
pub fn restore_tick_states(potentials: &mut [Box<dyn Potential>], states: &[Vec<Real>]) -> Result<(), String> {
    if states.len() != potentials.len() {
        return Err(format!("{} potentials saved, {} in the scene", states.len(), potentials.len()));
    }
    for (potential, state) in potentials.iter_mut().zip(states) {
        if !potential.restore_tick_state(state) {
            return Err(format!("the state of a {} has the wrong shape", potential.kind()));
        }
    }
    Ok(())
}

/// An energy on a stencil of vertices.
///
/// All methods take the stencil's positions `x` in stencil order (`x.len() == stencil().len()`).
/// Energies are in joules, gradients in newtons (∂E/∂x, so the force is minus the gradient).
pub trait Potential: Send + Sync + std::fmt::Debug {
    /// Short name of the potential's kind, used for event statistics (`"membrane"`, `"hinge"`, …).
    fn kind(&self) -> &'static str;

    /// The vertices this potential depends on.
    fn stencil(&self) -> &[VertexId];

    /// Energy at positions `x`.
    fn energy(&self, x: &[Vec3]) -> Real;

    /// Writes ∂E/∂x into `grad` (same length as `x`, overwritten, not accumulated).
    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]);

    /// The dense 3n×3n Hessian ∂²E/∂x² (vertex-major: rows `3i..3i+3` are vertex `i`), or `None`
    /// when it is identically zero (a linear potential such as gravity).
    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>>;

    /// Whether the energy is linear in the positions (gravity, a load, wind): its Hessian is
    /// identically zero, so a Newton system's sparsity pattern leaves its stencil out. A body's
    /// gravity couples every vertex of the body; in the pattern it would make the sparse
    /// Cholesky factor dense (`newton/pattern.rs`). `false` (the default) for any potential
    /// with curvature.
    fn is_linear(&self) -> bool {
        false
    }

    /// A positive-semidefinite stand-in for [`Potential::hessian`] that the potential can form
    /// more cheaply than the synchronous backend's projection of the whole stencil Hessian (an
    /// element projecting its stress derivative in its own smaller space), equal to the Hessian
    /// wherever that part is already semidefinite; `None` (the default) to let the backend
    /// project the exact Hessian's free block.
    fn psd_hessian(&self, _x: &[Vec3]) -> Option<DMatrix<Real>> {
        None
    }

    /// A Gauss–Newton form of the Hessian, JᵀWJ with W ≥ 0, for potentials that are a weighted
    /// square of a strain s(x) (W = ∂²E/∂s², J = ∂s/∂x): positive semidefinite by construction,
    /// equal to the Hessian at rest strain, and as cheap as the gradient. It drops the term
    /// (∂E/∂s)·∂²s/∂x², so Newton with it converges linearly away from rest. `None` (the
    /// default): the potential has none. The phantom meshes' implicit steps use it where there
    /// is one (`avi/phantom.rs`).
    fn gauss_newton_hessian(&self, _x: &[Vec3]) -> Option<DMatrix<Real>> {
        None
    }

    /// Projective Dynamics' constant matrix w·GᵀG over the stencil, for a potential whose energy
    /// is exactly min over p ∈ 𝓜 of (w/2)‖G x − p‖² (a constraint manifold 𝓜, a linear
    /// operator G: Stabilizing §4.2 after Bouaziz et al. 2014). Its gradient is then
    /// w·Gᵀ(G x − p*) with p* the projection of G x onto 𝓜, so the local/global solver's
    /// iteration with this matrix is the local step and global solve of §4.2 exactly
    /// (`sync/local_global.rs`). `None` (the default): the potential has no such form.
    fn projective_hessian(&self) -> Option<DMatrix<Real>> {
        None
    }

    /// Largest clock period for which explicit kicks of this potential alone are stable at
    /// positions `x` with vertex masses `masses` (`Real::INFINITY` for a held vertex), or `None`
    /// when the potential imposes no limit.
    ///
    /// The default takes the largest eigenvalue λ of M^{-1/2} H M^{-1/2} and returns 2/√λ, the
    /// stability limit of leapfrog for the linearised local system (ACM §3).
    fn stable_step(&self, x: &[Vec3], masses: &[Real]) -> Option<Real> {
        let h = self.hessian(x)?;
        let lambda = mass_scaled_spectral_radius(&h, masses);
        (lambda > 0.0).then(|| 2.0 / lambda.sqrt())
    }

    /// A lower bound on [`Potential::stable_step`] at `x` with `masses`, cheaper than it, or
    /// `None` (the default) when the potential has none. The AVI engine's clock check
    /// ([`Potential::may_outgrow_its_clock`]) takes the exact step only when this bound is below
    /// the threshold.
    fn stable_step_at_least(&self, _x: &[Vec3], _masses: &[Real]) -> Option<Real> {
        None
    }

    /// The largest fraction t ∈ (0, 1] of the displacement `dx` (per stencil vertex) that the
    /// positions `x + τ·dx`, τ ∈ [0, t], can take without leaving the potential's domain (an
    /// element crushed through zero length or volume, where its energy is infinite but a step can
    /// jump over it). 1 for potentials defined everywhere. The synchronous backend's line search
    /// starts from the smallest of these, as it does from the CCD bound of contact (Li et al.
    /// 2020's filtered line search).
    fn feasible_step(&self, _x: &[Vec3], _dx: &[Vec3]) -> Real {
        1.0
    }

    /// True for dissipative potentials (damping): their "energy" is the dissipation function
    /// D = b/(2h)·|s(x) − s_prev|² on the clock's last period (ACM §6.1), not part of the
    /// mechanical energy reported in `stats.csv`.
    fn is_dissipative(&self) -> bool {
        false
    }

    /// True for a force from outside the system ([`Wind`], [`Load`]): its energy is not part of
    /// the mechanical energy in `stats.csv`; the work it does is booked as `external_work`, as its
    /// energy's jumps when its force changes less its energy at the frame (`crate::ledger`).
    fn is_external(&self) -> bool {
        false
    }

    /// Moves a time-dependent potential (an external force that varies, such as gusting
    /// [`Wind`] or a ramped [`Load`]) to time `t`, s, before it is evaluated; a no-op for every
    /// other potential.
    fn set_time(&mut self, _t: Real) {}

    /// Whether the potential may, at `x`, be stiffer than the clock period chosen for it at rest
    /// (ACM §3: a period is a stable step, and stiffness that grows with strain shrinks the
    /// stable step): `true` once its strain is past the range where the rest period is sure to
    /// hold. The AVI engine then compares [`Potential::stable_step`] at `x` with the period and
    /// stops the run, naming the element, rather than let explicit kicks blow up. `false` (the
    /// default) for potentials whose stiffness stays bounded (linear springs, gravity, hinges
    /// with their softening).
    fn may_outgrow_its_clock(&self, _x: &[Vec3]) -> bool {
        false
    }

    /// True for a potential whose rest shape yields at the end of its ticks (a plastic
    /// [`Hinge`]): [`Potential::end_tick`] then returns the elastic energy the yield takes out,
    /// on every backend.
    fn is_plastic(&self) -> bool {
        false
    }

    /// What the potential changes as its clock ticks, as numbers, for a checkpoint
    /// (`docs/checkpoints.md`): a damper's strain window, a varying external force's present
    /// value. Empty (the default) for potentials that are functions of positions alone.
    fn tick_state(&self) -> Vec<Real> {
        Vec::new()
    }

    /// Puts back what [`Potential::tick_state`] returned; false (nothing changed) when `state` is
    /// not of this potential's shape.
    fn restore_tick_state(&mut self, state: &[Real]) -> bool {
        state.is_empty()
    }

    /// Hands the part of the potential whose stiffness is unbounded to penalty layers on the AVI
    /// and keeps the rest, whose stiffness is bounded (see [`CompressionBarrier`]): `None` (the
    /// default) for potentials whose clock period covers every configuration they meet.
    fn split_compression_barrier(&mut self) -> Option<CompressionBarrier> {
        None
    }

    /// Tells the potential the period of the clock it ticks on. Only dissipative potentials, which
    /// difference positions over one period (ACM §6.1), need it.
    fn bind_period(&mut self, _period: Real) {}

    /// Called after every kick with the positions the kick used: dissipative potentials remember
    /// them as the previous positions of their own clock (the Verlet identity, ACM §6). Returns
    /// the energy the potential books as dissipated at this tick (0 for conservative potentials;
    /// see [`Potential::bind_ledger_window`]).
    fn end_tick(&mut self, _x: &[Vec3]) -> Real {
        0.0
    }

    /// Tells a dissipative potential the window over which it averages its strain rate to book
    /// what it dissipates: at the end of each window of duration T it returns b·|Δs|²/T from
    /// [`Potential::end_tick`], Δs the strain change over the window (a quadrature of the
    /// dissipation ∫ b ṡ² dt, non-negative by construction). Without a call the window is one
    /// period.
    fn bind_ledger_window(&mut self, _window: Real) {}
}

/// Spectral radius of M^{-1/2} H M^{-1/2} for a vertex-major Hessian and per-vertex masses
/// (held vertices, with infinite mass, drop out).
///
/// # Panics
/// If `h` is not 3n × 3n for n = `masses.len()`.
pub fn mass_scaled_spectral_radius(h: &DMatrix<Real>, masses: &[Real]) -> Real {
    let n = h.nrows();
    assert_eq!(n, 3 * masses.len(), "Hessian size must be 3 × stencil size");
    let mut scaled = h.clone();
    for r in 0..n {
        for c in 0..n {
            let s = (masses[r / 3] * masses[c / 3]).sqrt();
            scaled[(r, c)] = if s.is_finite() { h[(r, c)] / s } else { 0.0 };
        }
    }
    let sym = (&scaled + scaled.transpose()) * 0.5;
    sym.symmetric_eigenvalues().iter().fold(0.0, |m: Real, e| m.max(e.abs()))
}

/// Total energy of the non-dissipative potentials among `potentials` at global positions `x`.
pub fn assemble_energy<'a>(potentials: impl IntoIterator<Item = &'a dyn Potential>, x: &[Vec3]) -> Real {
    let mut local = Vec::new();
    potentials
        .into_iter()
        .filter(|p| !p.is_dissipative())
        .map(|p| {
            gather(p.stencil(), x, &mut local);
            p.energy(&local)
        })
        .sum()
}

/// Adds the gradients of `potentials` at global positions `x` into the global `grad`.
pub fn assemble_gradient<'a>(potentials: impl IntoIterator<Item = &'a dyn Potential>, x: &[Vec3], grad: &mut [Vec3]) {
    let mut local = Vec::new();
    let mut local_grad = Vec::new();
    for p in potentials {
        gather(p.stencil(), x, &mut local);
        local_grad.clear();
        local_grad.resize(local.len(), Vec3::zeros());
        p.gradient(&local, &mut local_grad);
        for (v, g) in p.stencil().iter().zip(&local_grad) {
            grad[v.index()] += g;
        }
    }
}

/// Calls `add(row, col, value)` for every nonzero of the global Hessian of `potentials` at global
/// positions `x` (global rows are `3 * vertex + axis`); duplicates are to be summed.
pub fn assemble_hessian<'a>(
    potentials: impl IntoIterator<Item = &'a dyn Potential>,
    x: &[Vec3],
    mut add: impl FnMut(usize, usize, Real),
) {
    let mut local = Vec::new();
    for p in potentials {
        gather(p.stencil(), x, &mut local);
        let Some(h) = p.hessian(&local) else { continue };
        let s = p.stencil();
        for (a, va) in s.iter().enumerate() {
            for (b, vb) in s.iter().enumerate() {
                for i in 0..3 {
                    for j in 0..3 {
                        let value = h[(3 * a + i, 3 * b + j)];
                        if value != 0.0 {
                            add(3 * va.index() + i, 3 * vb.index() + j, value);
                        }
                    }
                }
            }
        }
    }
}

/// Copies the positions of `stencil` out of the global array `x` into `local`.
pub fn gather(stencil: &[VertexId], x: &[Vec3], local: &mut Vec<Vec3>) {
    local.clear();
    local.extend(stencil.iter().map(|v| x[v.index()]));
}

/// The smallest τ ∈ (0, 1) with p(τ) = 0 for the polynomial p(τ) = c₀ + c₁τ + c₂τ² + c₃τ³ with
/// p(0) = c₀ > 0, approached from below (p > 0 on [0, τ]), or 1 when p stays positive on [0, 1):
/// the step bound of [`Potential::feasible_step`]. The interval is split at p's critical points,
/// so each piece is monotone and the first sign change is found by bisection.
pub(crate) fn first_root_in_unit_interval(c: [Real; 4]) -> Real {
    let p = |t: Real| c[0] + t * (c[1] + t * (c[2] + t * c[3]));
    // p′ = c₁ + 2c₂ τ + 3c₃ τ²
    let (a, b, q) = (3.0 * c[3], 2.0 * c[2], c[1]);
    let mut breaks: SmallVec<[Real; 4]> = SmallVec::new();
    // a cubic coefficient at round-off size (a rigid rotation's det B) is a quadratic's
    if a.abs() > 1e-12 * (b.abs() + q.abs()) {
        let disc = b * b - 4.0 * a * q;
        if disc >= 0.0 {
            // the cancellation-free pair of roots: s/a and q/s
            let s = -0.5 * (b + b.signum() * disc.sqrt());
            if s != 0.0 {
                breaks.extend([s / a, q / s]);
            }
        }
    } else if b != 0.0 {
        breaks.push(-q / b);
    }
    breaks.retain(|t| *t > 0.0 && *t < 1.0);
    breaks.sort_by(Real::total_cmp);
    breaks.push(1.0);
    let mut lo = 0.0;
    for hi in breaks {
        if p(hi) <= 0.0 {
            // p > 0 at lo, ≤ 0 at hi, monotone between: bisect, keeping p(lo) > 0
            let (mut l, mut h) = (lo, hi);
            for _ in 0..64 {
                let m = 0.5 * (l + h);
                if p(m) > 0.0 {
                    l = m
                } else {
                    h = m
                }
            }
            return l;
        }
        lo = hi;
    }
    1.0
}

#[cfg(test)]
mod root_tests {
    use super::first_root_in_unit_interval;

    #[test]
    fn finds_the_first_root_even_when_the_cubic_term_is_round_off() {
        // p = 0.9 − 1.9τ + τ² (+ 1e-20 τ³): roots 0.9 and 1, negative between, p(1) ≥ 0
        let t = first_root_in_unit_interval([0.9, -1.9, 1.0, 1e-20]);
        assert!((t - 0.9).abs() < 1e-12, "{t}");
        // the exact quadratic and a genuine cubic: p = 0.5 − 3τ + 3τ² + τ³ has its first root at
        // τ ≈ 0.2137
        assert!((first_root_in_unit_interval([0.9, -1.9, 1.0, 0.0]) - 0.9).abs() < 1e-12);
        let t = first_root_in_unit_interval([0.5, -3.0, 3.0, 1.0]);
        assert!((0.5 - 3.0 * t + 3.0 * t * t + t * t * t).abs() < 1e-12 && t < 0.3, "{t}");
        // positive throughout: no cut
        assert_eq!(first_root_in_unit_interval([1.0, 0.5, 0.1, 0.0]), 1.0);
        assert_eq!(first_root_in_unit_interval([1.0, -1.0, 0.3, 0.0]), 1.0);
    }
}
