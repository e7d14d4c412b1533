//! Lagged IPC friction (Li et al. 2020 §5; A-search §4.5 "lagged IPC friction"): a dissipative
//! potential on a contact stencil whose normal force λ, tangent plane and closest-point weights
//! are frozen at the start of the step,
//! D(x) = μ λ f₀(‖Tᵀ Σᵢ wᵢ (xᵢ − xᵢⁿ)‖), with f₀ the C¹ smoothing of |·| below ε_v h
//! (f₀(y) = y²/ε − y³/(3ε²) + ε/3 for y < ε = ε_v h, y beyond).
//!
//! It is dissipative: left out of the mechanical energy and of A-search's α correction, part of
//! every implicit solve, and its work over a step (≈ 2D) is bookkept as dissipated energy.

use super::ad::{hessian_of, AdScalar};
use super::{Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::{DMatrix, Vector3};

/// Friction on one contact stencil for one step.
#[derive(Clone, Debug)]
pub struct LaggedFriction {
    stencil: Stencil,
    /// Closest-point weights: + for one side, − for the other (Σ wᵢ xᵢ is the relative position).
    weights: Vec<Real>,
    /// Positions at the start of the step.
    start: Vec<Vec3>,
    /// Orthonormal tangent basis of the contact plane.
    tangents: [Vec3; 2],
    /// μ·λ, N.
    scale: Real,
    /// ε = ε_v·h, m: below this tangential displacement per step the contact sticks smoothly.
    smoothing: Real,
}

impl LaggedFriction {
    /// Friction on `stencil` with closest-point `weights`, contact `normal` (any length), start
    /// positions `start`, Coulomb `mu`, normal force `lambda` (N) and smoothing `epsilon` (m).
    pub fn new(
        stencil: &[VertexId],
        weights: Vec<Real>,
        normal: Vec3,
        start: Vec<Vec3>,
        mu: Real,
        lambda: Real,
        epsilon: Real,
    ) -> Self {
        let n = normal.try_normalize(1e-300).unwrap_or_else(Vec3::z);
        let helper = if n.x.abs() < 0.9 { Vec3::x() } else { Vec3::y() };
        let t0 = n.cross(&helper).normalize();
        let t1 = n.cross(&t0);
        LaggedFriction {
            stencil: stencil.iter().copied().collect(),
            weights,
            start,
            tangents: [t0, t1],
            scale: mu * lambda,
            smoothing: epsilon,
        }
    }

    /// The tangential relative displacement over the step, generic.
    fn slip<T: AdScalar>(&self, x: &[Vector3<T>]) -> (T, T) {
        let mut u = Vector3::from_element(T::from(0.0));
        for ((xi, si), w) in x.iter().zip(&self.start).zip(&self.weights) {
            u += (xi - si.map(T::from)) * T::from(*w);
        }
        let [a, b] = self.tangents.map(|t| u.dot(&t.map(T::from)));
        (a, b)
    }

    fn energy_generic<T: AdScalar>(&self, x: &[Vector3<T>]) -> T {
        let (a, b) = self.slip(x);
        let y2 = a * a + b * b;
        let eps = self.smoothing;
        let f0 = if y2.re() >= eps * eps {
            y2.sqrt()
        } else {
            // y²/ε − y³/(3ε²) + ε/3, with y³ = y²·√y² (smooth at y = 0 through y²)
            let y = if y2.re() > 0.0 { y2.sqrt() } else { T::from(0.0) };
            y2 / eps - y2 * y / (3.0 * eps * eps) + eps / 3.0
        };
        f0 * self.scale
    }
}

impl Potential for LaggedFriction {
    fn kind(&self) -> &'static str {
        "ipc_friction"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        self.energy_generic(x)
    }

    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        let (a, b) = self.slip(x);
        let y = (a * a + b * b).sqrt();
        let eps = self.smoothing;
        // f₁(y)/y, finite at y = 0: (2/ε − y/ε²) below ε, 1/y beyond
        let f1_over_y = if y >= eps { 1.0 / y } else { 2.0 / eps - y / (eps * eps) };
        let direction = (self.tangents[0] * a + self.tangents[1] * b) * (self.scale * f1_over_y);
        for (g, w) in grad.iter_mut().zip(&self.weights) {
            *g = direction * *w;
        }
    }

    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        let n = x.len();
        let h = match n {
            4 => hessian_of::<12>(x, |y| self.energy_generic(y)),
            2 => hessian_of::<6>(x, |y| self.energy_generic(y)),
            _ => unreachable!("friction stencils have 2 or 4 vertices"),
        };
        Some(h)
    }

    fn stable_step(&self, _x: &[Vec3], _masses: &[Real]) -> Option<Real> {
        None // implicit backend only
    }

    fn is_dissipative(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> [VertexId; 4] {
        std::array::from_fn(|i| VertexId(i as u32))
    }

    #[test]
    fn gradient_and_hessian_match_finite_differences_sticking_and_sliding() {
        let start = vec![Vec3::new(0.2, 0.3, 0.001), Vec3::zeros(), Vec3::x(), Vec3::y()];
        let f = LaggedFriction::new(&ids(), vec![1.0, -0.5, -0.2, -0.3], Vec3::z(), start.clone(), 0.4, 2.0, 1e-3);
        for slip in [Vec3::new(3e-4, -2e-4, 0.0), Vec3::new(0.02, 0.01, 0.005)] {
            let mut x = start.clone();
            x[0] += slip;
            x[1] -= slip * 0.3;
            let mut g = [Vec3::zeros(); 4];
            f.gradient(&x, &mut g);
            let h = f.hessian(&x).unwrap();
            let step = 1e-8;
            for i in 0..4 {
                for a in 0..3 {
                    let (mut xp, mut xm) = (x.clone(), x.clone());
                    xp[i][a] += step;
                    xm[i][a] -= step;
                    let fd = (f.energy(&xp) - f.energy(&xm)) / (2.0 * step);
                    assert!(
                        (fd - g[i][a]).abs() < 1e-5 * (1.0 + g[i][a].abs()),
                        "gradient {i},{a}: {} vs {fd}",
                        g[i][a]
                    );
                    let (mut gp, mut gm) = ([Vec3::zeros(); 4], [Vec3::zeros(); 4]);
                    f.gradient(&xp, &mut gp);
                    f.gradient(&xm, &mut gm);
                    for j in 0..4 {
                        for b in 0..3 {
                            let fd = (gp[j][b] - gm[j][b]) / (2.0 * step);
                            let exact = h[(3 * j + b, 3 * i + a)];
                            assert!(
                                (fd - exact).abs() < 1e-3 * (1.0 + exact.abs()),
                                "Hessian ({j},{b}),({i},{a}): {exact} vs {fd}"
                            );
                        }
                    }
                }
            }
            // the force opposes the slip and, sliding, has magnitude μλ
            let force_on_point = -g[0];
            assert!(force_on_point.dot(&slip) < 0.0);
        }
        // normal motion causes no friction
        let mut x = start.clone();
        x[0].z += 0.01;
        let mut g = [Vec3::zeros(); 4];
        f.gradient(&x, &mut g);
        assert!(g.iter().all(|g| g.norm() < 1e-12));
    }
}
