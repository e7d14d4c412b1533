//! Scripted motion: vertices moved along prescribed paths, with infinite mass.

use crate::math::{Real, Vec3};

/// A straight path at constant `velocity` from `start` to `stop` (s), resting before and after:
/// position(t) = origin + velocity · clamp(t − start, 0, stop − start).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct LinearPath {
    /// Position at t ≤ `start`, m.
    pub origin: Vec3,
    /// Velocity while moving, m/s.
    pub velocity: Vec3,
    /// When the motion starts, s.
    pub start: Real,
    /// When the motion stops, s (may be +∞).
    pub stop: Real,
}

impl LinearPath {
    /// Position at time `t`.
    pub fn position(&self, t: Real) -> Vec3 {
        let s = (t - self.start).max(0.0).min(self.stop - self.start);
        self.origin + self.velocity * s
    }

    /// Velocity on the interval that starts at `t` (right limit).
    pub fn velocity(&self, t: Real) -> Vec3 {
        if t >= self.start && t < self.stop {
            self.velocity
        } else {
            Vec3::zeros()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rests_moves_and_stops() {
        let p = LinearPath { origin: Vec3::zeros(), velocity: Vec3::x(), start: 1.0, stop: 3.0 };
        assert_eq!(p.position(0.5), Vec3::zeros());
        assert_eq!(p.position(2.0), Vec3::x());
        assert_eq!(p.position(10.0), Vec3::x() * 2.0);
        assert_eq!(p.velocity(0.0), Vec3::zeros());
        assert_eq!(p.velocity(1.0), Vec3::x());
        assert_eq!(p.velocity(3.0), Vec3::zeros());
    }
}
