//! Vertex state as structure-of-arrays: `(x, v, t_last, mass)` per vertex (ACM §3, Algorithm 1).

use super::LinearPath;
use crate::ids::VertexId;
use crate::math::{Real, Vec3};

/// How a vertex moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// Integrated: drifts with its velocity, kicked by potentials.
    Free,
    /// Held in place (infinite mass).
    Fixed,
    /// Moved along a prescribed path (infinite mass).
    Scripted(LinearPath),
}

/// All vertices of a model.
///
/// Each vertex stores its position and velocity as last seen at its own time `t_last`; between
/// events its trajectory is the straight line `x + v (t − t_last)`.
#[derive(Clone, Debug, Default)]
pub struct Vertices {
    positions: Vec<Vec3>,
    velocities: Vec<Vec3>,
    /// Velocity of each free vertex on the interval that ended at `t_last`: its velocity before
    /// any kick at `t_last` ([`Vertices::arrival_velocity`]).
    arrivals: Vec<Vec3>,
    t_last: Vec<Real>,
    masses: Vec<Real>,
    inverse_masses: Vec<Real>,
    motions: Vec<Motion>,
}

impl Vertices {
    /// Appends a free vertex at `x` with velocity `v` and mass `m` (kg, > 0), at time 0.
    pub fn push(&mut self, x: Vec3, v: Vec3, m: Real) {
        self.positions.push(x);
        self.velocities.push(v);
        self.arrivals.push(v);
        self.t_last.push(0.0);
        self.masses.push(m);
        self.inverse_masses.push(1.0 / m);
        self.motions.push(Motion::Free);
    }

    /// Number of vertices.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// True when there are no vertices.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// Holds vertex `i` in place (zero velocity, infinite mass for kicks; its mass is kept for
    /// reports). Call before the simulation starts.
    pub fn fix(&mut self, i: VertexId) {
        let k = i.index();
        self.motions[k] = Motion::Fixed;
        self.velocities[k] = Vec3::zeros();
        self.inverse_masses[k] = 0.0;
    }

    /// Moves vertex `i` along `path` from now on (infinite mass for kicks). Call at t = 0.
    pub fn script(&mut self, i: VertexId, path: LinearPath) {
        let k = i.index();
        self.motions[k] = Motion::Scripted(path);
        self.positions[k] = path.position(self.t_last[k]);
        self.velocities[k] = path.velocity(self.t_last[k]);
        self.inverse_masses[k] = 0.0;
    }

    /// Advances vertex `i` along its trajectory to time `t` (≥ its `t_last`). The only writer of
    /// positions (STYLE habit 9).
    #[inline]
    pub fn drift_to(&mut self, i: VertexId, t: Real) {
        let k = i.index();
        debug_assert!(t >= self.t_last[k], "drift backwards in time: vertex {k} from {} to {t}", self.t_last[k]);
        match self.motions[k] {
            Motion::Free => {
                if t > self.t_last[k] {
                    self.arrivals[k] = self.velocities[k];
                }
                self.positions[k] += self.velocities[k] * (t - self.t_last[k]);
            }
            Motion::Fixed => {}
            Motion::Scripted(path) => {
                self.positions[k] = path.position(t);
                self.velocities[k] = path.velocity(t);
            }
        }
        self.t_last[k] = t;
    }

    /// Where vertex `i` is at time `t`, without advancing it (`t ≥ t_last`).
    #[inline]
    pub fn position_at(&self, i: VertexId, t: Real) -> Vec3 {
        let k = i.index();
        match self.motions[k] {
            Motion::Free => self.positions[k] + self.velocities[k] * (t - self.t_last[k]),
            Motion::Fixed => self.positions[k],
            Motion::Scripted(path) => path.position(t),
        }
    }

    /// Applies an impulse per unit of "h·gradient": v ← v − M⁻¹ `impulse` (no effect on held or
    /// scripted vertices). `impulse` is h·∂V/∂x for the kick of a potential with period h.
    #[inline]
    pub fn kick(&mut self, i: VertexId, impulse: Vec3) {
        let k = i.index();
        self.velocities[k] -= impulse * self.inverse_masses[k];
    }

    /// Position recorded at `t_last`.
    pub fn position(&self, i: VertexId) -> Vec3 {
        self.positions[i.index()]
    }

    /// Current velocity (valid on the interval after `t_last`).
    pub fn velocity(&self, i: VertexId) -> Vec3 {
        self.velocities[i.index()]
    }

    /// The velocity with which vertex `i` arrived at `t_last`, before any kick there: the same
    /// whatever order the events at `t_last` run in. Velocity-dependent contact responses (the
    /// biphasic restitution layer, friction, layer retirement; ACM §6.2–6.3) read it, so
    /// simultaneous events commute (law 8) and every broad phase gives the same trajectory
    /// (law 5). Held and scripted vertices are never kicked: their current velocity.
    pub fn arrival_velocity(&self, i: VertexId) -> Vec3 {
        let k = i.index();
        match self.motions[k] {
            Motion::Free => self.arrivals[k],
            Motion::Fixed | Motion::Scripted(_) => self.velocities[k],
        }
    }

    /// Time at which the position was recorded.
    pub fn t_last(&self, i: VertexId) -> Real {
        self.t_last[i.index()]
    }

    /// Lumped mass, kg (also for held and scripted vertices).
    pub fn mass(&self, i: VertexId) -> Real {
        self.masses[i.index()]
    }

    /// Mass seen by kicks: the lumped mass for free vertices, +∞ for held and scripted ones.
    pub fn effective_mass(&self, i: VertexId) -> Real {
        1.0 / self.inverse_masses[i.index()]
    }

    /// How vertex `i` moves.
    pub fn motion(&self, i: VertexId) -> Motion {
        self.motions[i.index()]
    }

    /// All recorded positions (each at its own `t_last`).
    pub fn positions(&self) -> &[Vec3] {
        &self.positions
    }

    /// All current velocities.
    pub fn velocities(&self) -> &[Vec3] {
        &self.velocities
    }

    /// All lumped masses.
    pub fn masses(&self) -> &[Real] {
        &self.masses
    }

    /// Centre-of-mass velocity of the free vertices, m/s: their momentum over their mass (zero
    /// when no vertex is free).
    pub fn centre_of_mass_velocity(&self) -> Vec3 {
        let free = || (0..self.len()).filter(|&k| matches!(self.motions[k], Motion::Free));
        let mass: Real = free().map(|k| self.masses[k]).sum();
        let momentum: Vec3 = free().map(|k| self.velocities[k] * self.masses[k]).sum();
        if mass > 0.0 {
            momentum / mass
        } else {
            Vec3::zeros()
        }
    }

    /// Sets the whole state of a free vertex at time `t`: the synchronous backend's step, which
    /// advances every vertex at once (the AVI writes positions only through [`drift_to`]).
    /// Held and scripted vertices only have their time advanced ([`drift_to`] semantics).
    ///
    /// [`drift_to`]: Vertices::drift_to
    pub fn set_synchronous_state(&mut self, i: VertexId, x: Vec3, v: Vec3, t: Real) {
        let k = i.index();
        if matches!(self.motions[k], Motion::Free) {
            self.positions[k] = x;
            self.velocities[k] = v;
            self.arrivals[k] = v;
            self.t_last[k] = t;
        } else {
            self.drift_to(i, t);
        }
    }

    /// Sets the velocity of a free vertex (initial conditions; not for use during a run).
    pub fn set_velocity(&mut self, i: VertexId, v: Vec3) {
        if matches!(self.motions[i.index()], Motion::Free) {
            self.velocities[i.index()] = v;
            self.arrivals[i.index()] = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_and_kick_follow_the_piecewise_linear_trajectory() {
        let mut v = Vertices::default();
        v.push(Vec3::zeros(), Vec3::x(), 2.0);
        v.push(Vec3::zeros(), Vec3::x(), 2.0);
        v.fix(VertexId(1));
        let a = VertexId(0);
        assert_eq!(v.position_at(a, 2.0), Vec3::x() * 2.0);
        v.drift_to(a, 1.0);
        v.kick(a, Vec3::x() * 2.0);
        assert_eq!(v.velocity(a), Vec3::zeros());
        v.drift_to(a, 5.0);
        assert_eq!(v.position(a), Vec3::x());
        v.kick(VertexId(1), Vec3::x());
        assert_eq!(v.velocity(VertexId(1)), Vec3::zeros(), "held vertices ignore kicks");
    }

    #[test]
    fn the_arrival_velocity_ignores_kicks_at_the_same_instant() {
        let mut v = Vertices::default();
        v.push(Vec3::zeros(), Vec3::x(), 1.0);
        let a = VertexId(0);
        v.kick(a, Vec3::x());
        assert_eq!(v.arrival_velocity(a), Vec3::x(), "kicks at t = 0 leave the initial velocity");
        v.drift_to(a, 1.0);
        v.kick(a, Vec3::y());
        v.drift_to(a, 1.0);
        v.kick(a, Vec3::z());
        assert_eq!(v.velocity(a), -Vec3::y() - Vec3::z());
        assert_eq!(v.arrival_velocity(a), Vec3::zeros(), "the velocity it reached t = 1 with");
        v.drift_to(a, 2.0);
        assert_eq!(v.arrival_velocity(a), -Vec3::y() - Vec3::z());
        assert_eq!(v.position(a), -Vec3::y() - Vec3::z());
    }
}
