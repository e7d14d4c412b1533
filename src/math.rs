//! Scalars, vectors and simulated time.
//!
//! `Real` is the one scalar of the crate. [`Time`] is a totally ordered, NaN-free
//! simulated time used as the event queue's primary key.

use std::cmp::Ordering;
use std::fmt;

/// The one floating-point scalar of the crate.
pub type Real = f64;
/// A 3D vector of [`Real`].
pub type Vec3 = nalgebra::Vector3<Real>;
/// A 3×3 matrix of [`Real`].
pub type Mat3 = nalgebra::Matrix3<Real>;

/// Simulated time in seconds: finite or +∞, never NaN, ordered with `total_cmp`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Time(Real);

impl Time {
    /// t = 0, the start of every simulation.
    pub const ZERO: Time = Time(0.0);
    /// A time that never comes: the failure time of a certificate that never fails.
    pub const NEVER: Time = Time(Real::INFINITY);

    /// A time from seconds; `None` for NaN (a NaN time would break the queue's order).
    pub fn new(seconds: Real) -> Option<Time> {
        if seconds.is_nan() {
            None
        } else {
            Some(Time(seconds))
        }
    }

    /// The time in seconds.
    pub fn seconds(self) -> Real {
        self.0
    }
}

impl PartialEq for Time {
    fn eq(&self, other: &Self) -> bool {
        self.0.total_cmp(&other.0).is_eq()
    }
}

impl Eq for Time {}

impl PartialOrd for Time {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Time {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}

impl fmt::Display for Time {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} s", self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nan_is_rejected_and_order_is_total() {
        assert!(Time::new(Real::NAN).is_none());
        let a = Time::new(-0.0).unwrap();
        let b = Time::new(0.0).unwrap();
        assert!(a < b, "total_cmp orders -0 before +0");
        assert!(Time::new(1.0).unwrap() < Time::NEVER);
    }
}
