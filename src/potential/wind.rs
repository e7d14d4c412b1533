//! Wind: a pressure p(t) along a fixed direction d̂ on a shell's area, E = −p(t) Σᵢ aᵢ d̂·xᵢ.
//!
//! The force per area of Phantom §5's cape in a strong wind: every free vertex i carries the
//! lumped rest area aᵢ (a third of each triangle around it), so a triangle feels p·A·d̂ whatever
//! its orientation. The potential is linear in the positions (zero Hessian, no stable-step limit)
//! and ticks on its own clock like gravity; unlike gravity it is a force from outside the system,
//! so its energy is not part of `potential` in `stats.csv` and the work its kicks do is booked as
//! `external_work` (`crate::ledger`).
//!
//! Gusts: p(t) = p₀·(1 + g·s(t)) with s(t) = 0.6·sin(2πt/T) + 0.4·sin(2π·φ·t/T + 1), φ the
//! golden ratio: two incommensurate waves, so the gusts never repeat, |s| ≤ 1, and p stays
//! within p₀(1 ± g). Deterministic: the same scene gives the same wind.

use super::{Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::DMatrix;

/// The golden ratio: the second gust wave's frequency relative to the first.
const GOLDEN: Real = 1.618_033_988_749_895;

/// How strong the wind blows and how it gusts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Gusts {
    /// Mean pressure p₀, Pa (N/m²).
    pub pressure: Real,
    /// Unit direction the wind blows towards.
    pub direction: Vec3,
    /// Relative gust amplitude g ∈ [0, 1]: p(t) ∈ p₀(1 ± g).
    pub gust: Real,
    /// Period T of the slower gust wave, s.
    pub gust_period: Real,
}

impl Gusts {
    /// The pressure at time `t`, Pa.
    pub fn pressure_at(&self, t: Real) -> Real {
        let phase = std::f64::consts::TAU * t / self.gust_period;
        let s = 0.6 * phase.sin() + 0.4 * (GOLDEN * phase + 1.0).sin();
        self.pressure * (1.0 + self.gust * s)
    }
}

/// Wind on a set of vertices with their lumped areas.
#[derive(Clone, Debug)]
pub struct Wind {
    stencil: Stencil,
    areas: Vec<Real>,
    gusts: Gusts,
    /// The force per area at the time of the last [`Potential::set_time`], N/m² along d̂.
    force_per_area: Vec3,
}

impl Wind {
    /// Wind `gusts` on `vertices`, each with its lumped rest area (m², same order), at t = 0.
    ///
    /// # Panics
    /// If there is not one area per vertex.
    pub fn new(vertices: impl IntoIterator<Item = VertexId>, areas: Vec<Real>, gusts: Gusts) -> Self {
        let stencil: Stencil = vertices.into_iter().collect();
        assert_eq!(stencil.len(), areas.len(), "one area per wind vertex");
        let force_per_area = gusts.direction * gusts.pressure_at(0.0);
        Wind { stencil, areas, gusts, force_per_area }
    }

    /// The lumped area of every vertex of a triangle mesh: a third of each triangle's area
    /// (m², indexed like the `positions`).
    pub fn lumped_areas(positions: &[Vec3], triangles: &[[u32; 3]]) -> Vec<Real> {
        let mut areas = vec![0.0; positions.len()];
        for t in triangles {
            let [a, b, c] = t.map(|i| positions[i as usize]);
            let third = (b - a).cross(&(c - a)).norm() / 6.0;
            for &i in t {
                areas[i as usize] += third;
            }
        }
        areas
    }
}

impl Potential for Wind {
    fn kind(&self) -> &'static str {
        "wind"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        -x.iter().zip(&self.areas).map(|(x, a)| a * self.force_per_area.dot(x)).sum::<Real>()
    }

    fn gradient(&self, _x: &[Vec3], grad: &mut [Vec3]) {
        for (g, a) in grad.iter_mut().zip(&self.areas) {
            *g = -*a * self.force_per_area;
        }
    }

    fn hessian(&self, _x: &[Vec3]) -> Option<DMatrix<Real>> {
        None
    }

    fn is_linear(&self) -> bool {
        true
    }

    fn is_external(&self) -> bool {
        true
    }

    fn set_time(&mut self, t: Real) {
        self.force_per_area = self.gusts.direction * self.gusts.pressure_at(t);
    }

    fn tick_state(&self) -> Vec<Real> {
        self.force_per_area.as_slice().to_vec()
    }

    fn restore_tick_state(&mut self, state: &[Real]) -> bool {
        let [x, y, z] = *state else { return false };
        self.force_per_area = Vec3::new(x, y, z);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gusts(gust: Real) -> Gusts {
        Gusts { pressure: 20.0, direction: Vec3::new(0.0, 1.0, 0.0), gust, gust_period: 0.5 }
    }

    #[test]
    fn a_unit_square_feels_the_pressure_times_its_area() {
        let x = [Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
        let areas = Wind::lumped_areas(&x, &[[0, 1, 2], [0, 2, 3]]);
        assert!((areas.iter().sum::<Real>() - 1.0).abs() < 1e-15);
        let wind = Wind::new((0..4).map(VertexId), areas, gusts(0.0));
        let mut g = vec![Vec3::zeros(); 4];
        wind.gradient(&x, &mut g);
        let force: Vec3 = g.iter().map(|g| -g).sum();
        assert!((force - Vec3::new(0.0, 20.0, 0.0)).norm() < 1e-12, "{force}");
    }

    #[test]
    fn gusts_stay_within_their_amplitude_and_vary() {
        let gusts = gusts(0.5);
        let p: Vec<Real> = (0..2000).map(|k| gusts.pressure_at(k as Real * 1e-3)).collect();
        let (lo, hi) = p.iter().fold((Real::INFINITY, 0.0 as Real), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        assert!(lo >= 10.0 - 1e-12 && hi <= 30.0 + 1e-12, "{lo} {hi}");
        assert!(hi - lo > 10.0, "the gusts should swing most of their range: {lo} {hi}");
    }

    #[test]
    fn the_force_follows_the_time_it_is_set_to() {
        let mut wind = Wind::new([VertexId(0)], vec![2.0], gusts(0.5));
        let mut g = [Vec3::zeros()];
        wind.set_time(0.1);
        wind.gradient(&[Vec3::zeros()], &mut g);
        assert_eq!(g[0], -2.0 * gusts(0.5).pressure_at(0.1) * Vec3::new(0.0, 1.0, 0.0));
    }
}
