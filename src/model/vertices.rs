//! Vertex state as structure-of-arrays: `(x, v, t_last, mass)` per vertex (ACM §3, Algorithm 1).

use super::LinearPath;
use crate::ids::VertexId;
use crate::math::{Real, Vec3};

/// How a vertex moves.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum Motion {
    /// Integrated: drifts with its velocity, kicked by potentials.
    Free,
    /// Held in place (infinite mass).
    Fixed,
    /// Moved along a prescribed path (infinite mass).
    Scripted(LinearPath),
    /// Free until `path.start`, then scripted from wherever it is at that instant: the path's
    /// `origin` is ignored and replaced by that position ([`Vertices::script_from_start`]).
    FreeUntil(LinearPath),
}

/// All vertices of a model.
///
/// Each vertex stores its position and velocity as last seen at its own time `t_last`; between
/// events its trajectory is the straight line `x + v (t − t_last)`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default)]
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

    /// Leaves vertex `i` free until `path.start` and scripts it from then on, starting from
    /// wherever it is at `path.start` (`path.origin` is ignored). Its mass counts for kicks and
    /// stable steps until then. Call at t = 0, with `path.start` > 0.
    pub fn script_from_start(&mut self, i: VertexId, path: LinearPath) {
        self.motions[i.index()] = Motion::FreeUntil(path);
    }

    /// Scripts a [`Motion::FreeUntil`] vertex `k` from its position at `start` on, once the
    /// vertex has reached `start` (its `t_last` ≤ `start` ≤ the time it is drifting to).
    fn capture(&mut self, k: usize, path: LinearPath, start: Real) {
        let origin = self.free_position(k, start);
        self.arrivals[k] = self.velocities[k];
        self.positions[k] = origin;
        self.velocities[k] = path.velocity(start);
        self.t_last[k] = start;
        self.inverse_masses[k] = 0.0;
        self.motions[k] = Motion::Scripted(LinearPath { origin, start, ..path });
    }

    /// How vertex `i` moves at time `t` ≥ its `t_last`: [`Motion::Free`] or
    /// [`Motion::Scripted`] for a [`Motion::FreeUntil`] vertex, before or from its start (with
    /// the origin it will have); [`motion`](Self::motion) otherwise.
    #[inline]
    pub fn motion_at(&self, i: VertexId, t: Real) -> Motion {
        let k = i.index();
        match &self.motions[k] {
            Motion::FreeUntil(path) if t >= path.start => {
                Motion::Scripted(LinearPath { origin: self.free_position(k, path.start), ..*path })
            }
            Motion::FreeUntil(_) => Motion::Free,
            m => *m,
        }
    }

    /// True if vertex `i` is free at time `t`: [`Self::motion_at`] is [`Motion::Free`] (asked once
    /// per kicked vertex, so without building the motion).
    #[inline]
    pub fn is_free_at(&self, i: VertexId, t: Real) -> bool {
        match &self.motions[i.index()] {
            Motion::Free => true,
            Motion::FreeUntil(path) => t < path.start,
            Motion::Fixed | Motion::Scripted(_) => false,
        }
    }

    /// The synchronous backend's capture: a [`Motion::FreeUntil`] vertex whose start is at or
    /// before its `t_last` is scripted from where it is now, its path shifted to start now (steps
    /// need not fall on the start). True if the vertex was captured.
    pub fn capture_at_step(&mut self, i: VertexId) -> bool {
        let k = i.index();
        match self.motions[k] {
            Motion::FreeUntil(path) if path.start <= self.t_last[k] => {
                let now = self.t_last[k];
                self.capture(k, LinearPath { start: now, stop: path.stop.max(now), ..path }, now);
                true
            }
            _ => false,
        }
    }

    /// Advances vertex `i` along its trajectory to time `t` (≥ its `t_last`). The only writer of
    /// positions.
    #[inline]
    pub fn drift_to(&mut self, i: VertexId, t: Real) {
        let k = i.index();
        debug_assert!(t >= self.t_last[k], "drift backwards in time: vertex {k} from {} to {t}", self.t_last[k]);
        if let Motion::FreeUntil(path) = self.motions[k] {
            if t >= path.start {
                // scripted from its start on (the match below then takes it along the path to t);
                // no recursion, so that the common free case inlines into every caller
                self.capture(k, path, path.start);
            }
        }
        match self.motions[k] {
            Motion::Free | Motion::FreeUntil(_) => {
                if t > self.t_last[k] {
                    self.arrivals[k] = self.velocities[k];
                }
                self.positions[k] = self.free_position(k, t);
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
            Motion::Free => self.free_position(k, t),
            Motion::Fixed => self.positions[k],
            Motion::Scripted(path) => path.position(t),
            Motion::FreeUntil(_) => match self.motion_at(i, t) {
                Motion::Scripted(path) => path.position(t),
                _ => self.free_position(k, t),
            },
        }
    }

    /// Where free vertex `k`'s straight line from `t_last` is at `t`.
    #[inline]
    fn free_position(&self, k: usize, t: Real) -> Vec3 {
        self.positions[k] + self.velocities[k] * (t - self.t_last[k])
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

    /// Velocity on the interval that starts at `t` ≥ `t_last`, without advancing the vertex (a
    /// scripted vertex's path velocity there).
    pub fn velocity_at(&self, i: VertexId, t: Real) -> Vec3 {
        match &self.motions[i.index()] {
            Motion::FreeUntil(path) if t >= path.start => path.velocity(t),
            Motion::Scripted(path) => path.velocity(t),
            _ => self.velocities[i.index()],
        }
    }

    /// The velocity with which vertex `i` arrived at `t_last`, before any kick there: the same
    /// whatever order the events at `t_last` run in. Velocity-dependent contact responses (the
    /// biphasic restitution layer, friction, layer retirement; ACM §6.2–6.3) read it, so
    /// simultaneous events commute (law 8) and every broad phase gives the same trajectory
    /// (law 5). Held and scripted vertices are never kicked: their current velocity.
    pub fn arrival_velocity(&self, i: VertexId) -> Vec3 {
        let k = i.index();
        match self.motions[k] {
            Motion::Free | Motion::FreeUntil(_) => self.arrivals[k],
            Motion::Fixed | Motion::Scripted(_) => self.velocities[k],
        }
    }

    /// The velocity vertex `i` arrives at `t` ≥ `t_last` with, without advancing it: what
    /// [`arrival_velocity`](Self::arrival_velocity) returns after [`drift_to`](Self::drift_to)`(i, t)`
    /// (for a free vertex, its velocity if `t` is after `t_last`, else the one it arrived with).
    pub fn arrival_velocity_at(&self, i: VertexId, t: Real) -> Vec3 {
        let k = i.index();
        match self.is_free_at(i, t) {
            true if t <= self.t_last[k] => self.arrivals[k],
            true => self.velocities[k],
            false => self.velocity_at(i, t),
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

    /// 1/[`Vertices::effective_mass`]: 0 for held and scripted vertices.
    pub fn inverse_mass(&self, i: VertexId) -> Real {
        self.inverse_masses[i.index()]
    }

    /// Mass seen by kicks: the lumped mass for free vertices, +∞ for held and scripted ones (a
    /// [`Motion::FreeUntil`] vertex's changes at its start).
    pub fn effective_mass(&self, i: VertexId) -> Real {
        1.0 / self.inverse_masses[i.index()]
    }

    /// How vertex `i` moves.
    pub fn motion(&self, i: VertexId) -> Motion {
        self.motions[i.index()]
    }

    /// [`Self::motion`] in place, without copying it.
    #[inline]
    pub fn motion_ref(&self, i: VertexId) -> &Motion {
        &self.motions[i.index()]
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
    /// Held and scripted vertices only have their time advanced ([`drift_to`] semantics). A
    /// [`Motion::FreeUntil`] vertex is free until [`capture_at_step`](Self::capture_at_step).
    ///
    /// [`drift_to`]: Vertices::drift_to
    pub fn set_synchronous_state(&mut self, i: VertexId, x: Vec3, v: Vec3, t: Real) {
        let k = i.index();
        if matches!(self.motions[k], Motion::Free | Motion::FreeUntil(_)) {
            self.positions[k] = x;
            self.velocities[k] = v;
            self.arrivals[k] = v;
            self.t_last[k] = t;
        } else {
            self.drift_to(i, t);
        }
    }

    /// Sets the lumped mass of vertex `i` (kg, > 0) before a run: the AVI gives a phantom body's
    /// primary vertices half their mass (Phantom §3.2). A held or scripted vertex keeps its
    /// infinite kick mass.
    pub fn set_mass(&mut self, i: VertexId, m: Real) {
        let k = i.index();
        self.masses[k] = m;
        if self.inverse_masses[k] > 0.0 {
            self.inverse_masses[k] = 1.0 / m;
        }
    }

    /// Sets the velocity of a free vertex (initial conditions; not for use during a run).
    pub fn set_velocity(&mut self, i: VertexId, v: Vec3) {
        if matches!(self.motions[i.index()], Motion::Free | Motion::FreeUntil(_)) {
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
    fn the_arrival_velocity_at_a_time_is_what_a_drift_there_would_record() {
        let path = LinearPath { origin: Vec3::zeros(), velocity: Vec3::y(), start: 3.0, stop: 4.0 };
        let mut v = Vertices::default();
        v.push(Vec3::zeros(), Vec3::x(), 2.0);
        v.push(Vec3::zeros(), Vec3::x(), 2.0);
        v.script_from_start(VertexId(1), path);
        for u in [VertexId(0), VertexId(1)] {
            v.drift_to(u, 1.0);
            v.kick(u, Vec3::x() * 2.0); // at rest from t = 1
        }
        for (u, t) in [(VertexId(0), 1.0), (VertexId(0), 2.0), (VertexId(1), 1.0), (VertexId(1), 3.5)] {
            let ahead = v.arrival_velocity_at(u, t);
            let mut drifted = v.clone();
            drifted.drift_to(u, t);
            assert_eq!(ahead, drifted.arrival_velocity(u), "vertex {u:?} at {t}");
        }
        // at t_last, the velocity it arrived with (before the kick); later, the one it has now
        assert_eq!(v.arrival_velocity_at(VertexId(0), 1.0), Vec3::x());
        assert_eq!(v.arrival_velocity_at(VertexId(0), 2.0), Vec3::zeros());
        assert_eq!(v.arrival_velocity_at(VertexId(1), 3.5), Vec3::y(), "scripted from its start");
    }

    #[test]
    fn a_vertex_free_until_its_script_starts_is_kicked_then_follows_the_path_from_where_it_was() {
        let path = LinearPath { origin: Vec3::repeat(99.0), velocity: Vec3::y(), start: 2.0, stop: 4.0 };
        let mut v = Vertices::default();
        v.push(Vec3::zeros(), Vec3::x(), 2.0);
        v.push(Vec3::zeros(), Vec3::x(), 2.0);
        let (a, b) = (VertexId(0), VertexId(1));
        v.script_from_start(a, path);
        v.script_from_start(b, path);
        // free before the start: it drifts and takes kicks with its mass
        v.drift_to(a, 1.0);
        v.kick(a, Vec3::x() * -2.0);
        assert_eq!(v.velocity(a), Vec3::x() * 2.0);
        assert!(matches!(v.motion_at(a, 1.5), Motion::Free));
        // its position at the start (1 + 2·1 = 3 on x) is the path's origin, seen ahead of time
        let expected = |t: Real| Vec3::x() * 3.0 + Vec3::y() * (t - 2.0).clamp(0.0, 2.0);
        for t in [2.0, 3.0, 5.0] {
            assert_eq!(v.position_at(a, t), expected(t), "t = {t}");
        }
        assert_eq!(v.velocity_at(a, 3.0), Vec3::y());
        assert_eq!(v.velocity_at(a, 1.5), Vec3::x() * 2.0);
        // drifting past the start scripts it: kicks are ignored, the mass is infinite
        v.drift_to(a, 3.0);
        assert_eq!(v.position(a), expected(3.0));
        assert_eq!(v.velocity(a), Vec3::y());
        assert!(matches!(v.motion(a), Motion::Scripted(p) if p.origin == Vec3::x() * 3.0 && p.start == 2.0));
        v.kick(a, Vec3::z());
        assert_eq!(v.velocity(a), Vec3::y(), "a scripted vertex ignores kicks");
        assert_eq!(v.effective_mass(a), Real::INFINITY);
        v.drift_to(a, 5.0);
        assert_eq!(v.position(a), expected(5.0));
        // never touched until after its start: the same path, found lazily
        assert_eq!(v.position_at(b, 3.5), Vec3::x() * 2.0 + Vec3::y() * 1.5);
        v.drift_to(b, 3.5);
        assert_eq!(v.position(b), Vec3::x() * 2.0 + Vec3::y() * 1.5);
    }

    #[test]
    fn the_synchronous_capture_starts_the_path_at_the_first_step_after_the_start() {
        let path = LinearPath { origin: Vec3::zeros(), velocity: Vec3::y(), start: 0.25, stop: Real::INFINITY };
        let mut v = Vertices::default();
        v.push(Vec3::zeros(), Vec3::zeros(), 1.0);
        let a = VertexId(0);
        v.script_from_start(a, path);
        v.set_synchronous_state(a, Vec3::x(), Vec3::x(), 0.2);
        assert!(!v.capture_at_step(a), "a step that begins before the start leaves it free");
        v.set_synchronous_state(a, Vec3::x() * 2.0, Vec3::x(), 0.3);
        assert!(v.capture_at_step(a));
        assert!(!v.capture_at_step(a), "captured once");
        assert_eq!(v.position_at(a, 0.5), Vec3::x() * 2.0 + Vec3::y() * (0.5 - 0.3));
        assert_eq!(v.effective_mass(a), Real::INFINITY);
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
