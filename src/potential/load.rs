//! A load: a prescribed force on chosen vertices, E = −Σᵢ f(t)·xᵢ.
//!
//! ACM §8 pulls the reef knot's ends apart by a prescribed force rather than a prescribed
//! velocity; a load is that force. The total force F is shared equally by the listed vertices
//! (f = F/n each). It acts from `start` to `stop`, rising linearly over its first `ramp` seconds
//! so that a pull does not strike the body all at once:
//!
//! f(t) = F/n · clamp((t − start)/ramp, 0, 1) on start ≤ t < stop, 0 outside.
//!
//! Like [`super::Wind`] the potential is linear in the positions (zero Hessian, no stable-step
//! limit), ticks on its own clock, and is a force from outside the system: its energy is not part
//! of `potential` and its kicks are booked as `external_work` (`crate::ledger`).

use super::{Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::DMatrix;

/// When a load acts and how it rises.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LoadSchedule {
    /// The total force at full strength, N.
    pub force: Vec3,
    /// When it starts to act, s.
    pub start: Real,
    /// When it stops, s (may be +∞).
    pub stop: Real,
    /// Seconds over which it rises from zero to full strength (0: at once).
    pub ramp: Real,
}

impl LoadSchedule {
    /// The total force at time `t`, N.
    pub fn force_at(&self, t: Real) -> Vec3 {
        if t < self.start || t >= self.stop {
            return Vec3::zeros();
        }
        let rise = if self.ramp > 0.0 { ((t - self.start) / self.ramp).min(1.0) } else { 1.0 };
        self.force * rise
    }
}

/// A prescribed force shared equally by a set of vertices.
#[derive(Clone, Debug)]
pub struct Load {
    stencil: Stencil,
    schedule: LoadSchedule,
    /// The force on each vertex at the time of the last [`Potential::set_time`], N.
    per_vertex: Vec3,
}

impl Load {
    /// `schedule`'s force shared by `vertices`, at t = 0.
    ///
    /// # Panics
    /// If `vertices` is empty.
    pub fn new(vertices: impl IntoIterator<Item = VertexId>, schedule: LoadSchedule) -> Self {
        let stencil: Stencil = vertices.into_iter().collect();
        assert!(!stencil.is_empty(), "a load acts on at least one vertex");
        let mut load = Load { stencil, schedule, per_vertex: Vec3::zeros() };
        load.set_time(0.0);
        load
    }
}

impl Potential for Load {
    fn kind(&self) -> &'static str {
        "load"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        -x.iter().map(|x| self.per_vertex.dot(x)).sum::<Real>()
    }

    fn gradient(&self, _x: &[Vec3], grad: &mut [Vec3]) {
        grad.fill(-self.per_vertex);
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
        self.per_vertex = self.schedule.force_at(t) / self.stencil.len() as Real;
    }

    fn tick_state(&self) -> Vec<Real> {
        self.per_vertex.as_slice().to_vec()
    }

    fn restore_tick_state(&mut self, state: &[Real]) -> bool {
        let [x, y, z] = *state else { return false };
        self.per_vertex = Vec3::new(x, y, z);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn schedule(ramp: Real) -> LoadSchedule {
        LoadSchedule { force: Vec3::new(0.0, 0.0, -3.0), start: 1.0, stop: 2.0, ramp }
    }

    #[test]
    fn it_acts_between_start_and_stop_and_rises_over_its_ramp() {
        let s = schedule(0.5);
        assert_eq!(s.force_at(0.999), Vec3::zeros());
        assert_eq!(s.force_at(1.25), Vec3::new(0.0, 0.0, -1.5));
        assert_eq!(s.force_at(1.5), Vec3::new(0.0, 0.0, -3.0));
        assert_eq!(s.force_at(1.999), Vec3::new(0.0, 0.0, -3.0));
        assert_eq!(s.force_at(2.0), Vec3::zeros());
        assert_eq!(schedule(0.0).force_at(1.0), Vec3::new(0.0, 0.0, -3.0));
    }

    #[test]
    fn the_vertices_share_the_total_force() {
        let mut load = Load::new((0..3).map(VertexId), schedule(0.0));
        load.set_time(1.5);
        let mut g = [Vec3::zeros(); 3];
        load.gradient(&[Vec3::zeros(); 3], &mut g);
        let total: Vec3 = g.iter().map(|g| -g).sum();
        assert!((total - Vec3::new(0.0, 0.0, -3.0)).norm() < 1e-15, "{total}");
        let x = [Vec3::new(0.0, 0.0, 1.0); 3];
        assert!((load.energy(&x) - 3.0).abs() < 1e-15, "E = −F·x for a common position");
    }
}
