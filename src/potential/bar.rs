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
    /// True once [`Potential::split_compression_barrier`] has handed the bar's stiffness below
    /// the knee to penalty layers: the bar then keeps only Q, whose stiffness is bounded.
    split: bool,
}

/// The stretch λ* = 1/√2 below which a split bar's stiffness is carried by
/// [`CompressionBarrier`] layers; the bar's own stiffness then stays at most
/// E''(λ*) = (EA/2L)(1 + 1/λ*²) = 1.5·EA/L.
pub const KNEE: Real = std::f64::consts::FRAC_1_SQRT_2;

/// The part of a neo-Hookean bar's energy whose stiffness is unbounded, split into nested layers
/// for the AVI (ACM §4 applied to the material's own barrier).
///
/// With ℓ the length, L the rest length and ℓ* = λ*·L the knee ([`KNEE`]), the bar's energy is
/// E(ℓ) = Q(ℓ) + B(ℓ). Q is E above the knee and its tangent line below it, so its stiffness is
/// at most E''(ℓ*) at every length and one clock period, estimated once, stays stable; below
/// the knee its force is constant. B = E − Q is zero above the knee and has B'' = E'' =
/// EA/(2L) + EA·L/(2ℓ²) below it, unbounded as ℓ → 0. Layer l = 1, 2, … owns the band
/// η(l + 1) ≤ ℓ ≤ η(l), η(l) = ℓ*·2^(−(l−1)/2): B_l is the double integral of B'' over its band
/// (zero above it, its force constant below it), so Σ_l B_l = B exactly; each B_l is zero with
/// zero slope where its layer switches on (as ACM's layers are), and its stiffness is at most
/// B''(η(l + 1)), which sets the layer's clock. A bar crushed faster than its own clock can
/// resolve is then stopped by ever finer clocks instead of being stepped through zero length,
/// and the coarse clock's force does not change while the bar is below the knee (where a chain
/// end rattling against an obstacle moves fastest).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct CompressionBarrier {
    /// The bar's first vertex.
    pub a: VertexId,
    /// The bar's second vertex.
    pub b: VertexId,
    /// Rest length L, m.
    pub rest: Real,
    /// Axial stiffness EA, N.
    pub axial_stiffness: Real,
}

impl CompressionBarrier {
    /// η(l) = ℓ*·2^(−(l−1)/2), m: the top of layer l's band (η(1) = ℓ* = λ*·L). Layers
    /// numbered from 1.
    pub fn thickness(&self, l: u32) -> Real {
        self.rest * KNEE * (-0.5 * (l as Real - 1.0)).exp2()
    }

    /// B''(ℓ) = EA/(2L) + EA·L/(2ℓ²) below the knee, N/m.
    fn stiffness_at(&self, length: Real) -> Real {
        0.5 * self.axial_stiffness * (1.0 / self.rest + self.rest / (length * length))
    }

    /// The largest stiffness of layer l, B''(η(l + 1)), N/m.
    pub fn curvature(&self, l: u32) -> Real {
        self.stiffness_at(self.thickness(l + 1))
    }

    /// dB_l/dℓ at length `length` (≤ 0: the layer pushes the ends apart), N.
    pub fn slope(&self, l: u32, length: Real) -> Real {
        let (a, b) = (self.thickness(l + 1), self.thickness(l));
        if length >= b {
            return 0.0;
        }
        // −∫_s^b B''(u) du, s = max(ℓ, a)
        let s = length.max(a);
        -0.5 * self.axial_stiffness * ((b - s) / self.rest + self.rest * (1.0 / s - 1.0 / b))
    }

    /// B_l at length `length`, J.
    pub fn energy(&self, l: u32, length: Real) -> Real {
        let (a, b) = (self.thickness(l + 1), self.thickness(l));
        if length >= b {
            return 0.0;
        }
        // ∫_s^b (u − s) B''(u) du, s = max(ℓ, a), then the constant force below the band
        let s = length.max(a);
        let in_band = 0.5
            * self.axial_stiffness
            * (0.5 * (b - s) * (b - s) / self.rest + self.rest * ((b / s).ln() + s / b - 1.0));
        in_band + self.slope(l, s) * (length - s)
    }
}

impl NeoHookeanBar {
    /// A bar between `a` and `b` of axial stiffness `axial_stiffness` (N) and rest length
    /// `rest_length` (m, > 0).
    pub fn new(a: VertexId, b: VertexId, axial_stiffness: Real, rest_length: Real) -> Self {
        NeoHookeanBar { stencil: smallvec![a, b], axial_stiffness, rest_length, split: false }
    }

    /// The energy, generic over the AD scalar: its one definition (the Hessian differentiates it).
    fn energy_generic<T: AdScalar>(&self, x: &[Vector3<T>]) -> T {
        let e = x[1] - x[0];
        let stretch_squared = e.dot(&e) / (self.rest_length * self.rest_length);
        if stretch_squared.re() <= 0.0 {
            return T::from(Real::INFINITY);
        }
        let scale = self.rest_length * self.axial_stiffness;
        if self.split && stretch_squared.re() < KNEE * KNEE {
            // Q below the knee: E's tangent line at λ* (E(λ*) + E'(λ*)(λ − λ*), per L·EA)
            let k = KNEE;
            let value = (k * k - 1.0) * 0.25 - k.ln() * 0.5;
            let slope = 0.5 * k - 0.5 / k;
            return ((stretch_squared.sqrt() - k) * slope + value) * scale;
        }
        // ln λ = ½ ln λ²
        ((stretch_squared - 1.0) * 0.25 - stretch_squared.ln() * 0.25) * scale
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
        let force = if self.split && stretch < KNEE {
            // dQ/dl = EA·E'(λ*) per L·EA: constant below the knee
            0.5 * self.axial_stiffness * (KNEE - 1.0 / KNEE)
        } else {
            0.5 * self.axial_stiffness * (stretch - 1.0 / stretch)
        };
        let g = e * (force / l);
        grad[0] = -g;
        grad[1] = g;
    }

    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        Some(hessian_of::<6>(x, |x| self.energy_generic(x)))
    }

    /// Split: from the largest axial stiffness of Q at any length, E''(ℓ*) = (EA/2L)(1 + 1/λ*²)
    /// (a stretched bar's transverse stiffness E'/ℓ stays below EA/2L; a compressed one's is
    /// negative, the bar buckling). Unsplit: the linearised limit at `x`, which holds only near
    /// it: E'' grows as 1/λ² when the bar is crushed.
    fn stable_step(&self, x: &[Vec3], masses: &[Real]) -> Option<Real> {
        if !self.split {
            let h = self.hessian(x)?;
            let lambda = super::mass_scaled_spectral_radius(&h, masses);
            return (lambda > 0.0).then(|| 2.0 / lambda.sqrt());
        }
        let stiffness = 0.5 * self.axial_stiffness / self.rest_length * (1.0 + 1.0 / (KNEE * KNEE));
        let inverse_mass: Real = masses.iter().map(|m| 1.0 / m).sum();
        (inverse_mass > 0.0).then(|| 2.0 / (stiffness * inverse_mass).sqrt())
    }

    /// Keeps Q and hands B, the stiffening below the knee, to penalty layers (AVI only: the
    /// synchronous backend's Newton solves see the whole bar).
    fn split_compression_barrier(&mut self) -> Option<CompressionBarrier> {
        self.split = true;
        Some(CompressionBarrier {
            a: self.stencil[0],
            b: self.stencil[1],
            rest: self.rest_length,
            axial_stiffness: self.axial_stiffness,
        })
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

    #[test]
    fn the_split_bar_and_its_compression_layers_add_up_to_the_whole_bar() {
        // E(ℓ) = Q(ℓ) + Σ_l B_l(ℓ) and the same for the forces, at lengths from above the rest
        // length down to a hundredth of it (bands 1 to 14 on)
        let whole = bar();
        let mut split = bar();
        let barrier = split.split_compression_barrier().expect("a bar splits");
        assert_eq!(barrier.thickness(1), KNEE * 0.5);
        for length in [0.8, 0.5, 0.4, 0.353, 0.3, 0.2, 0.1, 0.05, 0.0177, 0.01, 0.005] {
            let x = [Vec3::zeros(), Vec3::new(0.0, length, 0.0)];
            let layers: Real = (1..60).map(|l| barrier.energy(l, length)).sum();
            let e = whole.energy(&x);
            assert!((split.energy(&x) + layers - e).abs() < 1e-12 * e.max(1.0), "energy at {length}");
            let slope: Real = (1..60).map(|l| barrier.slope(l, length)).sum();
            let (mut g, mut gs) = ([Vec3::zeros(); 2], [Vec3::zeros(); 2]);
            whole.gradient(&x, &mut g);
            split.gradient(&x, &mut gs);
            assert!((gs[1].y + slope - g[1].y).abs() < 1e-10 * g[1].y.abs().max(1.0), "force at {length}");
            // the layers above the length are off: zero energy and force
            let n = (1..60).take_while(|&l| barrier.thickness(l) > length).count() as u32;
            assert_eq!(barrier.energy(n + 1, length), 0.0);
            assert_eq!(barrier.slope(n + 1, length), 0.0);
        }
        // each layer starts at zero with zero slope, and its stiffness stays below its bound
        for l in 1..10 {
            let top = barrier.thickness(l);
            assert_eq!(barrier.energy(l, top), 0.0);
            assert_eq!(barrier.slope(l, top), 0.0);
            let (a, d) = (barrier.thickness(l + 1), 1e-7 * top);
            let stiffness = (barrier.slope(l, a) - barrier.slope(l, a + d)) / -d;
            assert!((stiffness - barrier.curvature(l)).abs() < 1e-5 * barrier.curvature(l), "layer {l}");
        }
    }

    #[test]
    fn the_split_bar_has_one_stable_period_at_every_length() {
        // unsplit, the estimate at rest (EA/L per unit inverse mass) is 2.5x too long once the bar
        // is crushed to a fifth of its length; split, the bar's own stiffness never exceeds
        // E''(λ*) = 1.5 EA/L, which its period is estimated from
        let mut b = bar();
        let rest = [Vec3::zeros(), Vec3::new(0.0, 0.0, 0.5)];
        let masses = [1.0, 1.0];
        let at_rest = b.stable_step(&rest, &masses).unwrap();
        assert!((at_rest - 2.0 / (20.0 * 2.0 as Real).sqrt()).abs() < 1e-9);
        let crushed = [Vec3::zeros(), Vec3::new(0.0, 0.0, 0.1)];
        assert!(b.stable_step(&crushed, &masses).unwrap() < at_rest / 2.5);
        b.split_compression_barrier();
        let h = b.stable_step(&rest, &masses).unwrap();
        assert!((h - 2.0 / (1.5 * 20.0 * 2.0 as Real).sqrt()).abs() < 1e-12);
        for length in [0.1, 0.2, 0.35, 0.5, 1.0, 2.0] {
            let x = [Vec3::zeros(), Vec3::new(0.0, 0.0, length)];
            let hessian = b.hessian(&x).unwrap();
            let axial = hessian[(5, 5)];
            assert!(axial <= 1.5 * 20.0 * (1.0 + 1e-12), "stiffness {axial} at {length}");
        }
    }
}
