//! Membrane (stretching) energy of a shell: the constant-strain triangle with the
//! St. Venant–Kirchhoff law in plane stress.
//!
//! Each triangle keeps its rest shape as a 2D frame: `Dm` holds the rest edges `X₁ − X₀`, `X₂ − X₀`
//! in an orthonormal basis of the rest plane, and the deformation gradient is the 3×2 matrix
//! F = [x₁ − x₀, x₂ − x₀]·Dm⁻¹. With the Green strain E = ½(FᵀF − I) the energy is
//!
//! Ψ = A·(μ‖E‖²_F + ½λ tr(E)²),
//!
//! A the rest area, μ = Y/(2(1+ν)) and λ = Yν/(1−ν²) the plane-stress Lamé parameters of the 2D
//! stretching stiffness Y (N/m) and Poisson ratio ν (e.g. Volino et al. 2009, "A simple approach to
//! nonlinear tensile stiffness for accurate cloth simulation"; Sifakis & Barbič 2012 course notes
//! for the F·S·Dm⁻ᵀ gradient). The gradient is hand-written (the AVI hot path); the Hessian is the
//! exact AD Hessian of the same generic energy ([`super::hessian_of`]); the Newton systems assemble
//! its semidefinite form in closed form ([`Membrane::psd_hessian`]).

use super::ad::{hessian_of, AdScalar};
use super::{Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::{DMatrix, Matrix2, Matrix3, Matrix3x2, Vector3};
use smallvec::smallvec;

/// Stretching material of a membrane (plane stress, St. Venant–Kirchhoff).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MembraneMaterial {
    /// 2D stretching stiffness Y (Young's modulus × thickness), N/m.
    pub youngs_modulus: Real,
    /// Poisson ratio ν, dimensionless, in (−1, ½].
    pub poisson_ratio: Real,
}

impl Default for MembraneMaterial {
    /// A light woven cloth: Y = 750 N/m, ν = 0.3.
    fn default() -> Self {
        MembraneMaterial { youngs_modulus: 750.0, poisson_ratio: 0.3 }
    }
}

impl MembraneMaterial {
    /// The plane-stress Lamé parameters (μ, λ) = (Y/(2(1+ν)), Yν/(1−ν²)), N/m.
    pub fn lame(&self) -> (Real, Real) {
        let (y, nu) = (self.youngs_modulus, self.poisson_ratio);
        (y / (2.0 * (1.0 + nu)), y * nu / (1.0 - nu * nu))
    }
}

/// A constant-strain membrane triangle on stencil `[x₀, x₁, x₂]`.
#[derive(Clone, Debug)]
pub struct Membrane {
    stencil: Stencil,
    /// Inverse of the rest edge matrix in the rest frame, Dm⁻¹ (1/m).
    dm_inv: Matrix2<Real>,
    /// Rest area A, m².
    rest_area: Real,
    /// Lamé μ, N/m.
    mu: Real,
    /// Lamé λ (plane stress), N/m.
    lambda: Real,
}

impl Membrane {
    /// A membrane triangle on `vertices` with rest positions `rest_positions` (same order).
    ///
    /// `None` when the rest triangle is degenerate: area ≤ 1e-14 × (longest edge)², or not finite.
    pub fn new(vertices: [VertexId; 3], rest_positions: [Vec3; 3], material: &MembraneMaterial) -> Option<Self> {
        let [x0, x1, x2] = rest_positions;
        let (e1, e2) = (x1 - x0, x2 - x0);
        let normal = e1.cross(&e2);
        let area = 0.5 * normal.norm();
        let longest2 = e1.norm_squared().max(e2.norm_squared()).max((x2 - x1).norm_squared());
        if !(area.is_finite() && area > 1e-14 * longest2) {
            return None;
        }
        // Orthonormal rest frame (u, v) in the triangle's plane, u along the first edge.
        let u = e1.normalize();
        let v = normal.normalize().cross(&u);
        let dm = Matrix2::new(e1.dot(&u), e2.dot(&u), e1.dot(&v), e2.dot(&v));
        let dm_inv = dm.try_inverse()?;
        let (mu, lambda) = material.lame();
        Some(Membrane {
            stencil: smallvec![vertices[0], vertices[1], vertices[2]],
            dm_inv,
            rest_area: area,
            mu,
            lambda,
        })
    }

    /// Rest area A, m².
    pub fn rest_area(&self) -> Real {
        self.rest_area
    }

    /// The Green strain E = ½(FᵀF − I) at positions `x` (symmetric, dimensionless).
    pub fn green_strain(&self, x: &[Vec3]) -> Matrix2<Real> {
        let [e00, e01, e11] = self.green_strain_generic(x);
        Matrix2::new(e00, e01, e01, e11)
    }

    /// Writes into `grad` the gradient of `scale`·½‖E(x) − E_ref‖²_F (1/m per unit of `scale`),
    /// the force of membrane damping (ACM §6.1). Same code path as the elastic force.
    pub fn strain_gradient(&self, x: &[Vec3], strain_ref: &Matrix2<Real>, scale: Real, grad: &mut [Vec3]) {
        let f = self.deformation_gradient(x);
        let e = green_strain_of(&f);
        self.gradient_of_contraction(&f, &(e - strain_ref), scale, grad);
    }

    /// Writes into `grad` the gradient of the contraction S : E(x) with a fixed symmetric 2×2 `s`,
    /// times `scale`: the columns of scale·F·S·Dm⁻ᵀ are the gradients of x₁ and x₂, and x₀ gets
    /// minus their sum. Shared by the elastic force (S = 2μE + λ tr(E) I, the second
    /// Piola–Kirchhoff stress), the damping force (S = E − E_ref) and the damping stable step.
    pub fn contraction_gradient(&self, x: &[Vec3], s: &Matrix2<Real>, scale: Real, grad: &mut [Vec3]) {
        self.gradient_of_contraction(&self.deformation_gradient(x), s, scale, grad);
    }

    /// F = [x₁ − x₀, x₂ − x₀]·Dm⁻¹.
    fn deformation_gradient(&self, x: &[Vec3]) -> Matrix3x2<Real> {
        Matrix3x2::from_columns(&[x[1] - x[0], x[2] - x[0]]) * self.dm_inv
    }

    fn gradient_of_contraction(&self, f: &Matrix3x2<Real>, s: &Matrix2<Real>, scale: Real, grad: &mut [Vec3]) {
        let g = f * (s * (self.dm_inv.transpose() * scale));
        let (g1, g2) = (g.column(0).into_owned(), g.column(1).into_owned());
        grad[0] = -(g1 + g2);
        grad[1] = g1;
        grad[2] = g2;
    }

    /// The Green strain's entries (E₀₀, E₀₁, E₁₁), generic over the AD scalar.
    pub(crate) fn green_strain_generic<T: AdScalar>(&self, x: &[Vector3<T>]) -> [T; 3] {
        let (e1, e2) = (x[1] - x[0], x[2] - x[0]);
        let d = &self.dm_inv;
        let f0 = e1 * T::from(d[(0, 0)]) + e2 * T::from(d[(1, 0)]);
        let f1 = e1 * T::from(d[(0, 1)]) + e2 * T::from(d[(1, 1)]);
        [(f0.dot(&f0) - 1.0) * 0.5, f0.dot(&f1) * 0.5, (f1.dot(&f1) - 1.0) * 0.5]
    }

    /// Ψ = A·(μ‖E‖²_F + ½λ tr(E)²), the one definition of the energy.
    fn energy_generic<T: AdScalar>(&self, x: &[Vector3<T>]) -> T {
        let [e00, e01, e11] = self.green_strain_generic(x);
        let frobenius2 = e00 * e00 + e01 * e01 * 2.0 + e11 * e11;
        let trace = e00 + e11;
        (frobenius2 * self.mu + trace * trace * (0.5 * self.lambda)) * self.rest_area
    }
}

/// E = ½(FᵀF − I).
fn green_strain_of(f: &Matrix3x2<Real>) -> Matrix2<Real> {
    (f.transpose() * f - Matrix2::identity()) * 0.5
}

/// The largest principal stretch up to which a membrane's rest period is taken on trust
/// ([`Potential::may_outgrow_its_clock`]).
const OUTGROW_STRETCH: Real = 1.1;

impl Potential for Membrane {
    fn kind(&self) -> &'static str {
        "membrane"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        self.energy_generic(x)
    }

    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        let f = self.deformation_gradient(x);
        let e = green_strain_of(&f);
        let stress = e * (2.0 * self.mu) + Matrix2::identity() * (self.lambda * e.trace());
        self.gradient_of_contraction(&f, &stress, self.rest_area, grad);
    }

    /// A StVK membrane stiffens as it stretches: along a principal stretch σ its stiffness is
    /// (3σ² − 1)/2 times that at rest, so from σ = 1.1 on (1.3 times, the margin a safety factor
    /// of 0.9 leaves) its period is checked against its stable step.
    fn may_outgrow_its_clock(&self, x: &[Vec3]) -> bool {
        let e = self.green_strain(x);
        // the larger eigenvalue of the symmetric 2×2 E; σ² = 1 + 2·e_max
        let (mean, half) = (0.5 * (e[(0, 0)] + e[(1, 1)]), 0.5 * (e[(0, 0)] - e[(1, 1)]));
        let largest = mean + (half * half + e[(0, 1)] * e[(0, 1)]).sqrt();
        largest > 0.5 * (OUTGROW_STRETCH * OUTGROW_STRETCH - 1.0)
    }

    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        Some(hessian_of::<9>(x, |x| self.energy_generic(x)))
    }

    /// In closed form, no dual numbers or eigen-solver: d²Ψ[dF] = A·(2μ‖dE‖² + λ tr(dE)² +
    /// S : dFᵀdF) with dE = sym(FᵀdF). The first two terms are wᵀCw for w = (dE₀₀, dE₁₁, dE₀₁) and
    /// C = [[2μ+λ, λ, 0], [λ, 2μ+λ, 0], [0, 0, 4μ]], whose eigenvalues 2(μ+λ) = Y/(1−ν), 2μ and 4μ are
    /// positive for every ν in (−1, ½): semidefinite as they are. The stress term is S ⊗ I₃ on the
    /// columns of dF; S's negative eigenvalues (compression) are set to zero. So the form is exact
    /// wherever S ≥ 0 (a stretched membrane) and drops only the compressed directions' negative
    /// curvature (the membrane's own projection in its 2 × 2 stress space, as Teran et al. 2005 do
    /// for solids in F-space).
    fn psd_hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        let f = self.deformation_gradient(x);
        let e = green_strain_of(&f);
        let stress = e * (2.0 * self.mu) + Matrix2::identity() * (self.lambda * e.trace());
        // S's positive part
        let eigen = stress.symmetric_eigen();
        let positive = eigen.eigenvectors
            * Matrix2::from_diagonal(&eigen.eigenvalues.map(|l| l.max(0.0)))
            * eigen.eigenvectors.transpose();
        let (f0, f1) = (f.column(0).into_owned(), f.column(1).into_owned());
        let rows = [self.dm_inv.row(0).transpose(), self.dm_inv.row(1).transpose()];
        let g = [-(rows[0] + rows[1]), rows[0], rows[1]];
        // ∂w/∂x_a, rows dE₀₀, dE₁₁, dE₀₁: g_a0·f0ᵀ, g_a1·f1ᵀ, ½(g_a1·f0ᵀ + g_a0·f1ᵀ)
        let jacobian = |a: usize| {
            Matrix3::from_rows(&[
                (f0 * g[a][0]).transpose(),
                (f1 * g[a][1]).transpose(),
                ((f0 * g[a][1] + f1 * g[a][0]) * 0.5).transpose(),
            ])
        };
        let (mu, lambda) = (self.mu, self.lambda);
        let c = Matrix3::new(2.0 * mu + lambda, lambda, 0.0, lambda, 2.0 * mu + lambda, 0.0, 0.0, 0.0, 4.0 * mu);
        let j = [jacobian(0), jacobian(1), jacobian(2)];
        let mut h = DMatrix::zeros(9, 9);
        for a in 0..3 {
            let cj = c * j[a];
            for b in 0..3 {
                let block = (j[b].transpose() * cj
                    + Matrix3::identity() * (g[b].transpose() * positive * g[a])[(0, 0)])
                    * self.rest_area;
                h.fixed_view_mut::<3, 3>(3 * b, 3 * a).copy_from(&block);
            }
        }
        Some(h)
    }

    /// 2/√ρ̄ with ρ̄ ≥ ρ(M^{-1/2} H M^{-1/2}) from the factorisation H = A·Jᵀ C J, where
    /// C = ∂²Ψ/∂F² and J maps positions to F = Σₐ xₐ gₐᵀ (the gₐ from Dm⁻¹):
    /// ρ(M^{-1/2}HM^{-1/2}) ≤ A·ρ(C)·λ_max(Σₐ gₐgₐᵀ/mₐ). For StVK,
    /// d²Ψ[dF] = 2μ‖sym(FᵀdF)‖² + λ(F : dF)² + S : dFᵀdF, so
    /// −(λ⁻‖F‖² + s⁻) ≤ d²Ψ/‖dF‖² ≤ 2μσ²_max + λ⁺‖F‖² + s⁺ (S's eigenvalues s, FᵀF = 2E + I).
    /// Exact at rest on an equilateral triangle of equal masses; no eigen-solver, no dual numbers.
    fn stable_step_at_least(&self, x: &[Vec3], masses: &[Real]) -> Option<Real> {
        let e = self.green_strain(x);
        let eigen2 = |m: &Matrix2<Real>| {
            let (mean, half) = (0.5 * (m[(0, 0)] + m[(1, 1)]), 0.5 * (m[(0, 0)] - m[(1, 1)]));
            let r = (half * half + m[(0, 1)] * m[(0, 1)]).sqrt();
            (mean - r, mean + r)
        };
        let (e_low, e_high) = eigen2(&e);
        let trace = e.trace();
        let (s_low, s_high) =
            (2.0 * self.mu * e_low + self.lambda * trace, 2.0 * self.mu * e_high + self.lambda * trace);
        let (f2, sigma2) = (2.0 * trace + 2.0, 2.0 * e_high + 1.0);
        let above = 2.0 * self.mu * sigma2 + self.lambda.max(0.0) * f2 + s_high.max(0.0);
        let below = (-self.lambda).max(0.0) * f2 + (-s_low).max(0.0);
        let rows = [self.dm_inv.row(0).transpose(), self.dm_inv.row(1).transpose()];
        let g = [-(rows[0] + rows[1]), rows[0], rows[1]];
        let q = g.iter().zip(masses).fold(Matrix2::zeros(), |q, (g, &m)| q + g * g.transpose() / m);
        let rho = self.rest_area * above.max(below) * eigen2(&q).1;
        (rho > 0.0).then(|| 2.0 / rho.sqrt())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Rotation3;

    /// Uniform numbers in [0, 1) from a xorshift generator seeded with `seed`.
    fn uniform(mut seed: u64) -> impl FnMut() -> Real {
        move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as Real / (1u64 << 53) as Real
        }
    }

    fn ids() -> [VertexId; 3] {
        [VertexId(0), VertexId(1), VertexId(2)]
    }

    fn rest() -> [Vec3; 3] {
        [Vec3::new(0.1, 0.2, 0.3), Vec3::new(1.1, 0.25, 0.2), Vec3::new(0.3, 0.9, 0.5)]
    }

    #[test]
    fn zero_energy_and_force_at_rest_and_under_rigid_motion() {
        let m = Membrane::new(ids(), rest(), &MembraneMaterial::default()).unwrap();
        let rot = Rotation3::from_euler_angles(0.7, -1.2, 2.5);
        let shift = Vec3::new(3.0, -2.0, 1.0);
        for x in [rest().to_vec(), rest().iter().map(|p| rot * p + shift).collect()] {
            assert!(m.energy(&x).abs() < 1e-12);
            assert!(m.green_strain(&x).norm() < 1e-12);
            let mut g = [Vec3::zeros(); 3];
            m.gradient(&x, &mut g);
            assert!(g.iter().all(|g| g.norm() < 1e-10), "{g:?}");
        }
    }

    #[test]
    fn uniaxial_stretch_matches_closed_form() {
        // Unit right triangle in the xy-plane stretched by s along x: E = diag(½(s²−1), 0).
        let rest = [Vec3::zeros(), Vec3::x(), Vec3::y()];
        let material = MembraneMaterial::default();
        let m = Membrane::new(ids(), rest, &material).unwrap();
        let s: Real = 1.1;
        let x = [Vec3::zeros(), Vec3::x() * s, Vec3::y()];
        let e = 0.5 * (s * s - 1.0);
        let (mu, lambda) = material.lame();
        let expected = 0.5 * (mu * e * e + 0.5 * lambda * e * e);
        assert!((m.energy(&x) - expected).abs() < 1e-12 * expected.max(1.0));
        assert!((m.green_strain(&x)[(0, 0)] - e).abs() < 1e-14);
    }

    #[test]
    fn the_cheap_stable_step_is_below_the_exact_one_and_equal_to_it_at_rest_on_an_equilateral_triangle() {
        let equilateral = [Vec3::zeros(), Vec3::x(), Vec3::new(0.5, 0.75f64.sqrt(), 0.0)];
        let m = Membrane::new(ids(), equilateral, &MembraneMaterial::default()).unwrap();
        let masses = [0.3; 3];
        let (exact, bound) =
            (m.stable_step(&equilateral, &masses).unwrap(), m.stable_step_at_least(&equilateral, &masses).unwrap());
        assert!((bound - exact).abs() < 1e-9 * exact, "{bound} against {exact}");
        // a sliver, stretched, compressed, sheared, with mixed masses and Poisson ratios of both signs
        let mut next = uniform(0x9e37_79b9_7f4a_7c15);
        for case in 0..400 {
            let rest = [Vec3::zeros(), Vec3::x(), Vec3::new(next(), 0.02 + next(), 0.1 * next())];
            let material = MembraneMaterial { youngs_modulus: 1e3, poisson_ratio: -0.8 + 1.3 * next() };
            let m = Membrane::new(ids(), rest, &material).unwrap();
            let x: Vec<Vec3> =
                rest.iter().map(|p| p * (0.5 + next()) + Vec3::new(next(), next(), next()) * 0.4).collect();
            let masses = [0.1 + next(), 0.1 + next(), if case % 5 == 0 { Real::INFINITY } else { 0.1 + next() }];
            let (exact, bound) = (m.stable_step(&x, &masses).unwrap(), m.stable_step_at_least(&x, &masses).unwrap());
            assert!(bound <= exact * (1.0 + 1e-9), "case {case}: bound {bound} above the exact {exact}");
        }
    }

    #[test]
    fn the_closed_form_semidefinite_hessian_is_exact_when_stretched_and_drops_only_compression() {
        let mut next = uniform(0x2545_f491_4f6c_dd1d);
        for case in 0..200 {
            let rest = [Vec3::zeros(), Vec3::x(), Vec3::new(next(), 0.05 + next(), 0.1 * next())];
            let material = MembraneMaterial { youngs_modulus: 1e3, poisson_ratio: -0.8 + 1.25 * next() };
            let m = Membrane::new(ids(), rest, &material).unwrap();
            let rotation = Rotation3::from_euler_angles(next() * 6.0, next() * 6.0, next() * 6.0);
            // stretched along both rest axes by 1–30 %, or squashed by up to a half
            let stretched = case % 2 == 0;
            let (sx, sy) =
                if stretched { (1.01 + 0.3 * next(), 1.01 + 0.3 * next()) } else { (0.5 + 0.5 * next(), 0.5 + next()) };
            let x: Vec<Vec3> = rest.iter().map(|p| rotation * Vec3::new(p.x * sx, p.y * sy, p.z)).collect();
            let (exact, psd) = (m.hessian(&x).unwrap(), m.psd_hessian(&x).unwrap());
            let scale = exact.amax();
            let lowest = psd.clone().symmetric_eigenvalues().min();
            assert!(lowest >= -1e-9 * scale, "case {case}: eigenvalue {lowest} of {scale}");
            assert!((&psd - psd.transpose()).amax() <= 1e-12 * scale, "case {case}: not symmetric");
            let stress_negative = {
                let e = m.green_strain(&x);
                let (mu, lambda) = material.lame();
                (e * (2.0 * mu) + Matrix2::identity() * (lambda * e.trace())).symmetric_eigenvalues().min() < 0.0
            };
            if !stress_negative {
                assert!(
                    (&psd - &exact).amax() <= 1e-9 * scale,
                    "case {case}: differs from the exact Hessian under tension"
                );
            } else {
                // what it drops is semidefinite: psd − exact ≥ 0
                let dropped = (&psd - &exact).symmetric_eigenvalues().min();
                assert!(dropped >= -1e-9 * scale, "case {case}: psd − exact has eigenvalue {dropped}");
            }
        }
    }

    #[test]
    fn degenerate_rest_triangles_are_refused() {
        let material = MembraneMaterial::default();
        let line = [Vec3::zeros(), Vec3::x(), Vec3::x() * 2.0];
        assert!(Membrane::new(ids(), line, &material).is_none());
        let point = [Vec3::zeros(); 3];
        assert!(Membrane::new(ids(), point, &material).is_none());
        let sliver = [Vec3::zeros(), Vec3::x(), Vec3::new(0.5, 1e-9, 0.0)];
        assert!(Membrane::new(ids(), sliver, &material).is_some());
    }
}
