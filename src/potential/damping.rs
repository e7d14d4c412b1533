//! Viscous damping as a dissipation potential on its own clock (ACM §6.1).
//!
//! A strain measure s(x) of a spring, membrane or hinge is damped by
//!
//! D(x) = b/(2h) ‖s(x) − s_ref‖²,
//!
//! where h is the period of the damping clock and s_ref the strain at the clock's previous tick
//! (the Verlet identity: (s_k − s_{k−1})/h is the strain rate over the last period). The kick
//! −h ∇D = −b (s_k − s_{k−1}) ∇s depends on positions at the damping clock's ticks only, so it is
//! independent of how other clocks interleave (ACM §6, law 8); and because s is invariant under
//! translations and rotations, ∇s carries zero net force and zero net torque, so linear and angular
//! momentum are conserved exactly.
//!
//! | measure | s | ‖·‖² | b's unit |
//! |---|---|---|---|
//! | [`StrainMeasure::Length`] | edge length ‖x₁ − x₀‖ | square | N·s/m |
//! | [`StrainMeasure::GreenStrain`] | Green strain E | rest area × squared Frobenius norm | N·s/m |
//! | [`StrainMeasure::DihedralAngle`] | bending angle θ | square (difference wrapped to [−π, π]) | N·m·s |
//!
//! **What it books as dissipated.** A kick's own change of kinetic energy is not the energy the
//! damper takes out: asynchronous clocks give every vertex a saw-tooth velocity (each force's
//! impulse arrives in one lump per period), a damping tick takes part of the saw-tooth's energy,
//! and the next elastic kicks put it back; booked kick by kick, `dissipated` counted that
//! exchange too and grew far beyond the energy the trajectory lost. The damper books instead
//! b·‖Δs‖²/T at the end of each window of duration T (by default one period; the AVI engine
//! makes it twice the longest period of the elastic clocks on the damper's vertices, so
//! that it spans several teeth of the saw-tooth), Δs the strain
//! change over the window: a quadrature of the dissipation ∫ b ṡ² dt over the averaged strain
//! path, never negative, so `dissipated` never decreases.
//!
//! The geometry (length, Green strain, angle and their gradients) is that of [`Spring`],
//! [`Membrane`] and [`Hinge`]; nothing is re-derived here.

use super::ad::{hessian_of, AdScalar};
use super::{mass_scaled_spectral_radius, Hinge, Membrane, Potential, Spring};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::{DMatrix, Matrix2, Vector3};
use std::f64::consts::{FRAC_1_SQRT_2, TAU};

/// The strain a [`Damping`] damps, with the potential whose stencil and geometry it reuses.
#[derive(Clone, Debug)]
pub enum StrainMeasure {
    /// Length of a spring's edge (stencil `[a, b]`).
    Length(Spring),
    /// Green strain of a membrane triangle (stencil `[x₀, x₁, x₂]`).
    GreenStrain(Membrane),
    /// Bending angle of a hinge (stencil `[x₀, x₁, x₂, x₃]`).
    DihedralAngle(Hinge),
}

/// Viscous damping of a [`StrainMeasure`], a dissipative potential (ACM §6.1).
#[derive(Clone, Debug)]
pub struct Damping {
    measure: StrainMeasure,
    /// Damping coefficient b (unit depends on the measure, see the module docs).
    coefficient: Real,
    /// s_ref: strain at the previous tick of this clock, as (s, 0, 0) for scalar measures and
    /// (E₀₀, E₀₁, E₁₁) for the Green strain.
    reference: [Real; 3],
    /// Clock period h, s (NaN until [`Potential::bind_period`]).
    period: Real,
    /// The ledger's window ([`Potential::bind_ledger_window`]): the strain at its start, its
    /// length in ticks of this clock, and the ticks of the current window so far.
    window_start: [Real; 3],
    window_ticks: u32,
    window_ticks_done: u32,
}

impl Damping {
    /// Damping of `measure` with coefficient `coefficient` (b ≥ 0), its reference strain taken at
    /// the initial stencil positions `x`. Call [`Potential::bind_period`] before evaluating it.
    pub fn new(measure: StrainMeasure, coefficient: Real, x: &[Vec3]) -> Self {
        let mut damping = Damping {
            measure,
            coefficient,
            reference: [0.0; 3],
            period: Real::NAN,
            window_start: [0.0; 3],
            window_ticks: 1,
            window_ticks_done: 0,
        };
        damping.reference = damping.strain(x);
        damping.window_start = damping.reference;
        damping
    }

    /// The damped strain measure.
    pub fn measure(&self) -> &StrainMeasure {
        &self.measure
    }

    /// Damping coefficient b.
    pub fn coefficient(&self) -> Real {
        self.coefficient
    }

    /// The bound clock period h, s (NaN if not bound yet).
    pub fn period(&self) -> Real {
        self.period
    }

    /// s(x) in the layout of `reference`.
    fn strain(&self, x: &[Vec3]) -> [Real; 3] {
        match &self.measure {
            StrainMeasure::Length(_) => [(x[1] - x[0]).norm(), 0.0, 0.0],
            StrainMeasure::GreenStrain(m) => {
                let e = m.green_strain(x);
                [e[(0, 0)], e[(0, 1)], e[(1, 1)]]
            }
            StrainMeasure::DihedralAngle(h) => [h.angle(x), 0.0, 0.0],
        }
    }

    /// b/h, the factor of the gradient.
    fn rate_factor(&self) -> Real {
        debug_assert!(self.period > 0.0, "Damping used before bind_period");
        self.coefficient / self.period
    }

    /// D(x) = b/(2h)‖s(x) − s_ref‖², the one definition of the dissipation function.
    fn energy_generic<T: AdScalar>(&self, x: &[Vector3<T>]) -> T {
        let half_rate = 0.5 * self.rate_factor();
        let r = &self.reference;
        match &self.measure {
            StrainMeasure::Length(_) => {
                let e = x[1] - x[0];
                let d = e.dot(&e).sqrt() - r[0];
                d * d * half_rate
            }
            StrainMeasure::GreenStrain(m) => {
                let [e00, e01, e11] = m.green_strain_generic(x);
                let (d00, d01, d11) = (e00 - r[0], e01 - r[1], e11 - r[2]);
                (d00 * d00 + d01 * d01 * 2.0 + d11 * d11) * (half_rate * m.rest_area())
            }
            StrainMeasure::DihedralAngle(_) => {
                let d = super::hinge::angle_generic(x) - r[0];
                // Wrap across the ±π cut by a constant shift (zero derivative).
                let d = d - (d.re() / TAU).round() * TAU;
                d * d * half_rate
            }
        }
    }
}

/// `a` wrapped to [−π, π].
fn wrap_angle(a: Real) -> Real {
    a - (a / TAU).round() * TAU
}

impl Potential for Damping {
    fn kind(&self) -> &'static str {
        match self.measure {
            StrainMeasure::Length(_) => "spring_damping",
            StrainMeasure::GreenStrain(_) => "membrane_damping",
            StrainMeasure::DihedralAngle(_) => "hinge_damping",
        }
    }

    fn stencil(&self) -> &[VertexId] {
        match &self.measure {
            StrainMeasure::Length(p) => p.stencil(),
            StrainMeasure::GreenStrain(p) => p.stencil(),
            StrainMeasure::DihedralAngle(p) => p.stencil(),
        }
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        self.energy_generic(x)
    }

    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        let rate = self.rate_factor();
        let r = &self.reference;
        match &self.measure {
            StrainMeasure::Length(_) => {
                let e = x[1] - x[0];
                let l = e.norm();
                let g = if l > 0.0 { e * (rate * (l - r[0]) / l) } else { Vec3::zeros() };
                grad[0] = -g;
                grad[1] = g;
            }
            StrainMeasure::GreenStrain(m) => {
                let reference = Matrix2::new(r[0], r[1], r[1], r[2]);
                m.strain_gradient(x, &reference, rate * m.rest_area(), grad);
            }
            StrainMeasure::DihedralAngle(h) => {
                let d = wrap_angle(h.angle(x) - r[0]);
                h.angle_gradient(x, grad);
                for g in grad.iter_mut() {
                    *g *= rate * d;
                }
            }
        }
    }

    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        Some(match self.measure {
            StrainMeasure::Length(_) => hessian_of::<6>(x, |x| self.energy_generic(x)),
            StrainMeasure::GreenStrain(_) => hessian_of::<9>(x, |x| self.energy_generic(x)),
            StrainMeasure::DihedralAngle(_) => hessian_of::<12>(x, |x| self.energy_generic(x)),
        })
    }

    /// Explicit damping limit 2/λ, λ the largest eigenvalue of M^{-1/2} C M^{-1/2} with the
    /// damping matrix C = b ∇s ∇sᵀ (× rest area for the Green strain): the kick is
    /// Δv = −h M⁻¹ C v to first order, forward Euler on v̇ = −M⁻¹ C v (not 2/√λ: it is first order).
    fn stable_step(&self, x: &[Vec3], masses: &[Real]) -> Option<Real> {
        let n = x.len();
        let mut c = DMatrix::zeros(3 * n, 3 * n);
        let mut g = [Vec3::zeros(); 4];
        let mut add = |g: &[Vec3], weight: Real| {
            for (i, gi) in g.iter().enumerate() {
                for (j, gj) in g.iter().enumerate() {
                    let block = gi * gj.transpose() * weight;
                    let mut view = c.fixed_view_mut::<3, 3>(3 * i, 3 * j);
                    view += block;
                }
            }
        };
        match &self.measure {
            StrainMeasure::Length(_) => {
                let u = (x[1] - x[0]).normalize();
                add(&[-u, u], self.coefficient);
            }
            StrainMeasure::GreenStrain(m) => {
                // Components (E₀₀, √2 E₀₁, E₁₁), whose Euclidean norm is the Frobenius norm of E;
                // component k is S_k : E for the symmetric S_k below.
                let s = FRAC_1_SQRT_2;
                for sk in
                    [Matrix2::new(1.0, 0.0, 0.0, 0.0), Matrix2::new(0.0, s, s, 0.0), Matrix2::new(0.0, 0.0, 0.0, 1.0)]
                {
                    m.contraction_gradient(x, &sk, 1.0, &mut g[..3]);
                    add(&g[..3], self.coefficient * m.rest_area());
                }
            }
            StrainMeasure::DihedralAngle(h) => {
                h.angle_gradient(x, &mut g);
                add(&g, self.coefficient);
            }
        }
        let lambda = mass_scaled_spectral_radius(&c, masses);
        (lambda > 0.0).then(|| 2.0 / lambda)
    }

    fn is_dissipative(&self) -> bool {
        true
    }

    fn bind_period(&mut self, period: Real) {
        self.period = period;
    }

    fn end_tick(&mut self, x: &[Vec3]) -> Real {
        self.reference = self.strain(x);
        self.window_ticks_done += 1;
        if self.window_ticks_done < self.window_ticks {
            return 0.0;
        }
        let duration = self.period * self.window_ticks_done as Real;
        let (now, start) = (&self.reference, &self.window_start);
        let squared = match &self.measure {
            StrainMeasure::Length(_) => (now[0] - start[0]).powi(2),
            StrainMeasure::GreenStrain(m) => {
                let (d00, d01, d11) = (now[0] - start[0], now[1] - start[1], now[2] - start[2]);
                m.rest_area() * (d00 * d00 + 2.0 * d01 * d01 + d11 * d11)
            }
            StrainMeasure::DihedralAngle(_) => wrap_angle(now[0] - start[0]).powi(2),
        };
        self.window_start = self.reference;
        self.window_ticks_done = 0;
        self.coefficient * squared / duration
    }

    fn tick_state(&self) -> Vec<Real> {
        let mut state = Vec::with_capacity(7);
        state.extend(self.reference);
        state.extend(self.window_start);
        state.push(self.window_ticks_done as Real);
        state
    }

    fn restore_tick_state(&mut self, state: &[Real]) -> bool {
        let [r0, r1, r2, w0, w1, w2, done] = *state else { return false };
        self.reference = [r0, r1, r2];
        self.window_start = [w0, w1, w2];
        self.window_ticks_done = done as u32;
        true
    }

    fn bind_ledger_window(&mut self, window: Real) {
        let ticks = (window / self.period).ceil();
        // a window shorter than one period, or not a number: one period
        self.window_ticks = if ticks >= 1.0 { ticks.min(u32::MAX as Real) as u32 } else { 1 };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::potential::MembraneMaterial;

    fn ids<const N: usize>() -> [VertexId; N] {
        std::array::from_fn(|i| VertexId(i as u32))
    }

    #[test]
    fn zero_at_the_reference_and_kinds_are_named() {
        let x = [Vec3::zeros(), Vec3::x(), Vec3::new(0.3, 0.8, 0.0), Vec3::new(0.6, -0.7, 0.2)];
        let measures = [
            StrainMeasure::Length(Spring::new(VertexId(0), VertexId(1), 1.0, 0.0, 1.0)),
            StrainMeasure::GreenStrain(Membrane::new(ids(), [x[0], x[1], x[2]], &MembraneMaterial::default()).unwrap()),
            StrainMeasure::DihedralAngle(Hinge::new(ids(), x, 1.0).unwrap()),
        ];
        let kinds = ["spring_damping", "membrane_damping", "hinge_damping"];
        for (measure, kind) in measures.into_iter().zip(kinds) {
            let mut d = Damping::new(measure, 0.5, &x);
            d.bind_period(1e-3);
            let n = d.stencil().len();
            assert_eq!(d.kind(), kind);
            assert!(d.is_dissipative());
            assert_eq!(d.energy(&x[..n]), 0.0);
            let mut g = [Vec3::zeros(); 4];
            d.gradient(&x[..n], &mut g[..n]);
            assert!(g.iter().all(|g| g.norm() < 1e-12));
            // After a tick at new positions, the reference follows them.
            let mut y = x;
            y[1] += Vec3::new(0.1, 0.05, -0.02);
            assert!(d.energy(&y[..n]) > 0.0);
            d.end_tick(&y[..n]);
            assert_eq!(d.energy(&y[..n]), 0.0);
        }
    }

    #[test]
    fn stable_step_uses_the_damping_matrix_of_the_hessian() {
        // At s = s_ref the Hessian of D is exactly C/h, so 2/λ(M^{-1/2} h H M^{-1/2}) is the limit.
        let x = [Vec3::zeros(), Vec3::new(1.0, 0.1, 0.0), Vec3::new(0.3, 0.8, 0.1), Vec3::new(0.6, -0.7, 0.2)];
        let masses = [1.0, 2.0, 0.5, Real::INFINITY];
        let measures = [
            StrainMeasure::Length(Spring::new(VertexId(0), VertexId(1), 1.0, 0.0, 1.0)),
            StrainMeasure::GreenStrain(Membrane::new(ids(), [x[0], x[1], x[2]], &MembraneMaterial::default()).unwrap()),
            StrainMeasure::DihedralAngle(Hinge::new(ids(), x, 1.0).unwrap()),
        ];
        for measure in measures {
            let n = match measure {
                StrainMeasure::Length(_) => 2,
                StrainMeasure::GreenStrain(_) => 3,
                StrainMeasure::DihedralAngle(_) => 4,
            };
            let mut d = Damping::new(measure, 0.7, &x[..n]);
            d.bind_period(0.01);
            let c = d.hessian(&x[..n]).unwrap() * 0.01;
            let expected = 2.0 / mass_scaled_spectral_radius(&c, &masses[..n]);
            let step = d.stable_step(&x[..n], &masses[..n]).unwrap();
            assert!((step - expected).abs() < 1e-9 * expected, "{}: {step} vs {expected}", d.kind());
        }
    }

    #[test]
    fn the_ledger_window_books_b_times_the_squared_strain_change_over_its_duration() {
        // a spring damper of b = 2 on a clock of 0.1 s, windows of 3 ticks (0.25 s rounds up)
        let x = [Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0)];
        let mut d = Damping::new(StrainMeasure::Length(Spring::new(VertexId(0), VertexId(1), 1.0, 0.0, 1.0)), 2.0, &x);
        d.bind_period(0.1);
        d.bind_ledger_window(0.25);
        let at = |l: Real| [Vec3::zeros(), Vec3::new(l, 0.0, 0.0)];
        // the length goes 1 → 1.3 → 0.9 → 1.2: only the window's end books, from its net change
        assert_eq!(d.end_tick(&at(1.3)), 0.0);
        assert_eq!(d.end_tick(&at(0.9)), 0.0);
        let booked = d.end_tick(&at(1.2));
        assert!((booked - 2.0 * 0.2f64.powi(2) / 0.3).abs() < 1e-12, "{booked}");
        // the next window starts where this one ended; shrinking books a positive amount too
        d.end_tick(&at(1.1));
        d.end_tick(&at(1.0));
        let booked = d.end_tick(&at(0.7));
        assert!((booked - 2.0 * 0.5f64.powi(2) / 0.3).abs() < 1e-12, "{booked}");
    }

    #[test]
    fn spring_damping_stable_step_is_first_order() {
        // C = b [[uuᵀ, −uuᵀ], [−uuᵀ, uuᵀ]]: λ(M⁻¹C) = b (1/m₀ + 1/m₁).
        let x = [Vec3::zeros(), Vec3::new(0.0, 2.0, 0.0)];
        let mut d = Damping::new(StrainMeasure::Length(Spring::new(VertexId(0), VertexId(1), 1.0, 0.0, 2.0)), 3.0, &x);
        d.bind_period(0.1);
        let h = d.stable_step(&x, &[1.0, 2.0]).unwrap();
        assert!((h - 2.0 / (3.0 * 1.5)).abs() < 1e-12);
    }
}
