//! A one-dimensional neo-Hookean bar element: E = L·EA·((λ² − 1)/4 − (ln λ)/2), λ = l/L.
//!
//! The uniaxial restriction of the solids' neo-Hookean law (`solid.rs`) with Poisson ratio 0
//! (μ = E/2, Lamé λ = 0): ψ(λ) = μ/2 (λ² − 1) − μ ln λ per unit rest volume, times the cross-section
//! A and the rest length L. Its small-strain stiffness is EA/L, like a spring of k = EA/L, and its
//! energy grows without bound as the element is crushed to zero length. It is the material of
//! A-search §5.5's one-dimensional collision study (a bar of wave speed √(E/ρ) hitting a wall).

use super::ad::{hessian_of, AdScalar};
use super::{first_root_in_unit_interval, Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::{DMatrix, Vector3};
use smallvec::smallvec;

/// A neo-Hookean bar between two vertices.
#[derive(Clone, Debug)]
pub struct NeoHookeanBar {
    stencil: Stencil,
    /// Axial stiffness EA (Young's modulus times cross-section), N.
    pub axial_stiffness: Real,
    /// Rest length L, m.
    pub rest_length: Real,
}

impl NeoHookeanBar {
    /// A bar between `a` and `b` of axial stiffness `axial_stiffness` (N) and rest length
    /// `rest_length` (m, > 0).
    pub fn new(a: VertexId, b: VertexId, axial_stiffness: Real, rest_length: Real) -> Self {
        NeoHookeanBar { stencil: smallvec![a, b], axial_stiffness, rest_length }
    }

    /// The energy, generic over the AD scalar: its one definition (the Hessian differentiates it).
    fn energy_generic<T: AdScalar>(&self, x: &[Vector3<T>]) -> T {
        let e = x[1] - x[0];
        let stretch_squared = e.dot(&e) / (self.rest_length * self.rest_length);
        if stretch_squared.re() <= 0.0 {
            return T::from(Real::INFINITY);
        }
        // ln λ = ½ ln λ²
        ((stretch_squared - 1.0) * 0.25 - stretch_squared.ln() * 0.25) * (self.rest_length * self.axial_stiffness)
    }
}

impl Potential for NeoHookeanBar {
    fn kind(&self) -> &'static str {
        "bar"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        self.energy_generic(x)
    }

    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        // dE/dl = EA/2 (λ − 1/λ); ∇l = ±e/l
        let e = x[1] - x[0];
        let l = e.norm();
        let stretch = l / self.rest_length;
        let g = e * (0.5 * self.axial_stiffness * (stretch - 1.0 / stretch) / l);
        grad[0] = -g;
        grad[1] = g;
    }

    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        Some(hessian_of::<6>(x, |x| self.energy_generic(x)))
    }

    /// The first τ at which the bar's length falls to a tenth of its current length (in one
    /// dimension a bar passes through zero length without ever being infinite at a step's ends).
    fn feasible_step(&self, x: &[Vec3], dx: &[Vec3]) -> Real {
        let (e, de) = (x[1] - x[0], dx[1] - dx[0]);
        // |e + τ de|² − (0.1 |e|)²
        first_root_in_unit_interval([0.99 * e.norm_squared(), 2.0 * e.dot(&de), de.norm_squared(), 0.0])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar() -> NeoHookeanBar {
        NeoHookeanBar::new(VertexId(0), VertexId(1), 10.0, 0.5)
    }

    #[test]
    fn rest_is_unstressed_and_small_strains_act_like_a_spring_of_ea_over_l() {
        let b = bar();
        let rest = [Vec3::zeros(), Vec3::new(0.3, 0.4, 0.0)];
        assert!(b.energy(&rest).abs() < 1e-15);
        let mut g = [Vec3::zeros(); 2];
        b.gradient(&rest, &mut g);
        assert!(g[0].norm() < 1e-14);
        // stretch by s: E ≈ ½ (EA/L) s²
        let s = 1e-4;
        let stretched = [Vec3::zeros(), Vec3::new(0.5 + s, 0.0, 0.0)];
        let spring = 0.5 * (10.0 / 0.5) * s * s;
        assert!((b.energy(&stretched) - spring).abs() < 1e-3 * spring);
    }

    #[test]
    fn a_step_through_zero_length_is_cut_before_the_bar_is_crushed() {
        let b = bar();
        let x = [Vec3::zeros(), Vec3::new(0.0, 0.0, 0.5)];
        // the second end moves to −0.5 (through the first): cut where the length is 0.05
        let t = b.feasible_step(&x, &[Vec3::zeros(), Vec3::new(0.0, 0.0, -1.0)]);
        assert!((t - 0.45).abs() < 1e-12, "{t}");
        // stretching or a mild shortening is not cut
        assert_eq!(b.feasible_step(&x, &[Vec3::zeros(), Vec3::new(0.0, 0.0, 1.0)]), 1.0);
        assert_eq!(b.feasible_step(&x, &[Vec3::zeros(), Vec3::new(0.0, 0.0, -0.3)]), 1.0);
    }

    #[test]
    fn crushing_costs_unbounded_energy_and_the_gradient_resists_it() {
        let b = bar();
        let mut last = 0.0;
        for l in [0.25, 0.05, 0.005, 0.0005] {
            let x = [Vec3::zeros(), Vec3::new(l, 0.0, 0.0)];
            let e = b.energy(&x);
            assert!(e > last, "energy at l = {l}: {e}");
            last = e;
            let mut g = [Vec3::zeros(); 2];
            b.gradient(&x, &mut g);
            assert!(g[1].x < 0.0, "a crushed bar pushes its ends apart");
        }
        assert_eq!(b.energy(&[Vec3::zeros(), Vec3::zeros()]), Real::INFINITY);
    }
}
