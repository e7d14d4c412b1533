//! Vague trajectories (ACM §5.3): a vertex's straight-line trajectory from its state at time
//! `t0`, with a tube of velocity uncertainty ε around it.

use crate::math::{Real, Vec3};

/// `x(t) = x0 + (v0 + u(t)) (t − t0)` for any `u` with `‖u(t)‖ ≤ ε`: the tube of trajectories a
/// certificate must stay valid for. With ε = 0 it is the exact linear trajectory of the AVI
/// between kicks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VagueTrajectory {
    /// Position at `t0`, m.
    pub x0: Vec3,
    /// Nominal velocity, m/s.
    pub v0: Vec3,
    /// Velocity tolerance ε ≥ 0, m/s: kicks that keep ‖v − v0‖ ≤ ε need no rescheduling.
    pub tolerance: Real,
}

impl VagueTrajectory {
    /// The exact linear trajectory through `x0` with velocity `v0`.
    pub fn linear(x0: Vec3, v0: Vec3) -> Self {
        VagueTrajectory { x0, v0, tolerance: 0.0 }
    }

    /// Largest possible speed along unit direction `n`: `n·v0 + ε`.
    pub fn max_speed_along(&self, n: &Vec3) -> Real {
        n.dot(&self.v0) + self.tolerance
    }

    /// True while a velocity `v` stays inside the tube (no rescheduling needed).
    pub fn admits(&self, v: &Vec3) -> bool {
        (v - self.v0).norm() <= self.tolerance
    }

    /// How long after `t0` every trajectory of the tube is sure to stay within `radius` of
    /// `centre`, s: +∞ for a tube that cannot move, 0 if `x0` is already outside. Exact: at time s
    /// the tube's trajectories fill the ball of radius ε·s around `x0 + v0·s`, which stays in the
    /// ball around `centre` while ‖a + v0·s‖ + ε·s ≤ `radius` (a = `x0 − centre`); the left side is
    /// convex in s, so it crosses once, at the smallest positive root of
    /// (‖v0‖² − ε²)·s² + 2(a·v0 + radius·ε)·s + ‖a‖² − radius² = 0. Shortened by a relative 10⁻¹²
    /// against round-off, so that it is never late.
    pub fn ball_exit_time(&self, centre: &Vec3, radius: Real) -> Real {
        let a = self.x0 - centre;
        let distance = a.norm();
        if distance >= radius {
            return 0.0;
        }
        // ‖a‖² − radius², without the cancellation of the difference of squares near the sphere
        let c = (distance - radius) * (distance + radius);
        let (v, e) = (self.v0, self.tolerance);
        let quadratic = v.norm_squared() - e * e;
        let half_linear = a.dot(&v) + radius * e;
        let root = (half_linear * half_linear - quadratic * c).max(0.0).sqrt();
        // the smallest positive root, in the form without cancellation for each sign of the
        // linear term (negative only when the quadratic term is positive: a tube that moves
        // inward faster than ε)
        let exit = if half_linear >= 0.0 {
            let denominator = half_linear + root;
            if denominator > 0.0 {
                -c / denominator
            } else {
                return Real::INFINITY; // the tube cannot move
            }
        } else {
            (root - half_linear) / quadratic
        };
        exit * (1.0 - 1e-12)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vec3() -> impl Strategy<Value = Vec3> {
        (-1.0..1.0f64, -1.0..1.0f64, -1.0..1.0f64).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    proptest! {
        /// Every trajectory of the tube (velocity v0 + u, ‖u‖ ≤ ε, here random constant ones)
        /// stays in the ball until the exit time, the worst one reaches the sphere exactly then,
        /// and so does the outward radial trajectory from the centre.
        #[test]
        fn a_tube_stays_in_the_ball_until_its_exit_time(
            centre in vec3(),
            offset in vec3(),
            v0 in vec3(),
            u in vec3(),
            tolerance in 0.0..0.5f64,
            radius in 0.01..2.0f64,
            fraction in 0.0..1.0f64,
        ) {
            let x0 = centre + offset * (0.5 * radius);
            let tube = VagueTrajectory { x0, v0, tolerance };
            let exit = tube.ball_exit_time(&centre, radius);
            prop_assert!(exit > 0.0 && exit.is_finite());
            let u = if u.norm() > 0.0 { u * (tolerance * fraction / u.norm()) } else { u };
            for tau in [0.25 * exit, 0.5 * exit, exit] {
                let x = x0 + (v0 + u) * tau;
                prop_assert!((x - centre).norm() <= radius * (1.0 + 1e-12), "left the ball at {tau} < {exit}");
            }
            // the worst trajectory, the constant u of norm ε along a + v0·exit, reaches the sphere then
            let reach = x0 - centre + v0 * exit;
            if reach.norm() > 0.0 {
                let worst = reach + reach * (tolerance * exit / reach.norm());
                prop_assert!((worst.norm() - radius).abs() <= 1e-9 * radius, "{} left room at {exit}", radius - worst.norm());
            }
            // from the centre, moving straight out at the fastest speed the tube allows
            let from_centre = VagueTrajectory { x0: centre, v0, tolerance };
            let t = from_centre.ball_exit_time(&centre, radius);
            if v0.norm() > 0.0 {
                let fastest = v0 * ((v0.norm() + tolerance) / v0.norm());
                prop_assert!(((fastest * t).norm() - radius).abs() <= 2e-12 * radius);
            }
        }
    }

    proptest! {
        /// A tube starting a hair inside the sphere (10⁻¹⁵ to 10⁻⁶ of the radius), moving in any
        /// direction, inward faster than ε included: the exit time is finite and never late.
        #[test]
        fn a_tube_next_to_the_sphere_exits_in_time(
            direction in vec3(),
            v0 in vec3(),
            tolerance in 0.0..0.5f64,
            radius in 0.001..2.0f64,
            depth in -15.0..-6.0f64,
        ) {
            prop_assume!(direction.norm() > 1e-3 && v0.norm() + tolerance > 1e-6);
            let centre = Vec3::new(0.3, -0.2, 0.1);
            let x0 = centre + direction * (radius * (1.0 - 10f64.powf(depth)) / direction.norm());
            let tube = VagueTrajectory { x0, v0, tolerance };
            let exit = tube.ball_exit_time(&centre, radius);
            prop_assert!(exit.is_finite() && exit >= 0.0, "{exit}");
            // the farthest any trajectory of the tube can be from the centre then
            let farthest = (x0 - centre + v0 * exit).norm() + tolerance * exit;
            prop_assert!(farthest <= radius * (1.0 + 1e-14), "{} of the radius outside at {exit}", farthest / radius - 1.0);
        }
    }

    #[test]
    fn a_tube_outside_the_ball_exits_at_once_and_a_still_one_never() {
        let centre = Vec3::zeros();
        let outside = VagueTrajectory::linear(Vec3::new(2.0, 0.0, 0.0), Vec3::zeros());
        assert_eq!(outside.ball_exit_time(&centre, 1.0), 0.0);
        let still = VagueTrajectory::linear(Vec3::new(0.5, 0.0, 0.0), Vec3::zeros());
        assert_eq!(still.ball_exit_time(&centre, 1.0), Real::INFINITY);
    }
}
