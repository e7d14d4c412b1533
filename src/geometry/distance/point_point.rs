//! Distance between two points.

use crate::math::{Real, Vec3};

/// Squared distance `|a − b|²` between two points.
#[inline]
pub fn distance_squared_point_point(a: Vec3, b: Vec3) -> Real {
    (a - b).norm_squared()
}

/// Distance `|a − b|` between two points.
#[inline]
pub fn distance_point_point(a: Vec3, b: Vec3) -> Real {
    (a - b).norm()
}

/// `[∂d/∂a, ∂d/∂b] = [n, −n]` with `n = (a − b)/|a − b|`; `None` when the points coincide (to
/// 1e-150, see the [module docs](super)).
#[inline]
pub fn gradient_distance_point_point(a: Vec3, b: Vec3) -> Option<[Vec3; 2]> {
    let n = super::unit(a - b)?;
    Some([n, -n])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::geometry::distance::reference::{assert_gradient, point};
    use proptest::prelude::*;

    #[test]
    fn closed_form() {
        let a = Vec3::new(1.0, 2.0, 3.0);
        let b = Vec3::new(4.0, 6.0, 3.0);
        assert_eq!(distance_point_point(a, b), 5.0);
        assert_eq!(distance_squared_point_point(a, b), 25.0);
        let [ga, gb] = gradient_distance_point_point(a, b).unwrap();
        assert_eq!(ga, Vec3::new(-0.6, -0.8, 0.0));
        assert_eq!(gb, -ga);
        assert!(gradient_distance_point_point(a, a).is_none());
        // Tiny distances have a gradient down to 1e-150, below which the square is subnormal.
        let o = Vec3::zeros();
        assert_eq!(gradient_distance_point_point(Vec3::new(0.0, 0.0, 1e-140), o).unwrap()[0], Vec3::z());
        assert!(gradient_distance_point_point(Vec3::new(0.0, 0.0, 1e-160), o).is_none());
    }

    proptest! {
        #[test]
        fn gradient_matches_finite_differences((a, b) in (point(), point()).prop_filter("apart", |(a, b)| (a - b).norm() > 1e-2)) {
            let g = gradient_distance_point_point(a, b).unwrap();
            assert_gradient([a, b], |[a, b]| distance_point_point(a, b), |_| (), g);
        }
    }
}
