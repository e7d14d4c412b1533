//! Exact closed triangle–triangle intersection.

use super::intersect_segment_triangle;
use crate::math::Vec3;

/// Whether the closed triangles `t` and `u` share a point (exact; touching counts).
///
/// Two closed triangles intersect iff an edge of one meets the other (this covers crossing,
/// touching and coplanar overlap; for coplanar triangles one inside the other, the inner one's
/// edges meet the outer one).
pub fn intersect_triangle_triangle(t: [&Vec3; 3], u: [&Vec3; 3]) -> bool {
    (0..3).any(|k| intersect_segment_triangle(t[k], t[(k + 1) % 3], u))
        || (0..3).any(|k| intersect_segment_triangle(u[k], u[(k + 1) % 3], t))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(t: &[Vec3; 3]) -> [&Vec3; 3] {
        [&t[0], &t[1], &t[2]]
    }

    #[test]
    fn crossing_separated_touching_and_coplanar() {
        let t = [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)];
        let piercing = [Vec3::new(0.2, 0.2, -1.0), Vec3::new(0.2, 0.2, 1.0), Vec3::new(0.3, -1.0, 0.0)];
        assert!(intersect_triangle_triangle(r(&t), r(&piercing)));
        let above = t.map(|v| v + Vec3::new(0.0, 0.0, 1e-300));
        assert!(!intersect_triangle_triangle(r(&t), r(&above)), "parallel, a tiny gap");
        let inner = [Vec3::new(0.1, 0.1, 0.0), Vec3::new(0.2, 0.1, 0.0), Vec3::new(0.1, 0.2, 0.0)];
        assert!(intersect_triangle_triangle(r(&t), r(&inner)), "coplanar, one inside the other");
        let beside = [Vec3::new(1.0, 1.0, 0.0), Vec3::new(2.0, 1.0, 0.0), Vec3::new(1.0, 2.0, 0.0)];
        assert!(!intersect_triangle_triangle(r(&t), r(&beside)), "coplanar neighbours of a grid");
        let touching = [Vec3::new(0.5, 0.5, 0.0), Vec3::new(1.0, 1.0, 1.0), Vec3::new(1.0, 1.0, -1.0)];
        assert!(intersect_triangle_triangle(r(&t), r(&touching)), "a corner on the hypotenuse");
    }
}
