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
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default)]
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
        write!(f, "{} s", Compact(self.0))
    }
}

/// A number as messages print it: plain decimals (`{}`, the shortest that reads back exactly)
/// for magnitudes in [1e-4, 1e7) and for 0, NaN and ±∞; scientific notation (`{:e}`, also
/// exact) outside, so `1e308` prints as `1e308`, not as 309 digits.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Compact(pub Real);

impl Compact {
    /// `x` rounded to `digits` significant digits (at least 1), for a derived value that a
    /// message prints: `Compact::rounded(1.414213562373095e-200, 4)` prints `1.414e-200`.
    pub fn rounded(x: Real, digits: usize) -> Compact {
        let text = format!("{:.*e}", digits.max(1) - 1, x);
        Compact(text.parse().unwrap_or(x))
    }
}

impl fmt::Display for Compact {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = self.0.abs();
        if a == 0.0 || !a.is_finite() || (1e-4..1e7).contains(&a) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
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

    #[test]
    fn compact_numbers_are_short_and_exact() {
        let cases = [
            (1e308, "1e308"),
            (-1e308, "-1e308"),
            (1e-200, "1e-200"),
            (2.5e-7, "2.5e-7"),
            (0.01, "0.01"),
            (1e-4, "0.0001"),
            (200.0, "200"),
            (1234567.0, "1234567"),
            (1e7, "1e7"),
            (0.0, "0"),
            (Real::NAN, "NaN"),
            (Real::NEG_INFINITY, "-inf"),
        ];
        for (x, printed) in cases {
            assert_eq!(Compact(x).to_string(), printed);
        }
        assert_eq!(Time::new(1e300).unwrap().to_string(), "1e300 s");
        assert_eq!(Compact::rounded(1.414213562373095e-200, 4).to_string(), "1.414e-200");
        assert_eq!(Compact::rounded(2.8722813232690143, 4).to_string(), "2.872");
        assert_eq!(Compact::rounded(7.071067811865475e49, 4).to_string(), "7.071e49");
    }
}
