//! Exact closed segment–triangle intersection.

use super::{drop_axis, orient3d, point_in_triangle_2d, projection_axis, segments_intersect_2d};
use crate::math::Vec3;

/// Whether the closed segment `pq` and the closed triangle `abc` share a point (exact; touching
/// counts). A degenerate triangle (collinear corners) is treated as its three edges.
pub fn intersect_segment_triangle(p: &Vec3, q: &Vec3, [a, b, c]: [&Vec3; 3]) -> bool {
    let (sp, sq) = (orient3d(a, b, c, p), orient3d(a, b, c, q));
    if sp * sq > 0 {
        return false; // both ends strictly on one side of the plane
    }
    if sp == 0 && sq == 0 {
        // coplanar (or a degenerate triangle): exact 2D tests in a non-degenerate projection
        let axis = projection_axis(a, b, c);
        let (p2, q2) = (drop_axis(p, axis), drop_axis(q, axis));
        let (a2, b2, c2) = (drop_axis(a, axis), drop_axis(b, axis), drop_axis(c, axis));
        return point_in_triangle_2d(p2, a2, b2, c2)
            || segments_intersect_2d(p2, q2, a2, b2)
            || segments_intersect_2d(p2, q2, b2, c2)
            || segments_intersect_2d(p2, q2, c2, a2);
    }
    // The segment crosses or touches the plane: it meets the triangle iff the line pq passes on
    // the same side of (or through) all three edges.
    let (s1, s2, s3) = (orient3d(p, q, a, b), orient3d(p, q, b, c), orient3d(p, q, c, a));
    (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri() -> [Vec3; 3] {
        [Vec3::new(0.0, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0), Vec3::new(0.0, 1.0, 0.0)]
    }

    #[test]
    fn crossing_missing_and_touching() {
        let t = tri();
        let r = [&t[0], &t[1], &t[2]];
        let through = |x: f64, y: f64| intersect_segment_triangle(&Vec3::new(x, y, -1.0), &Vec3::new(x, y, 1.0), r);
        assert!(through(0.2, 0.2));
        assert!(!through(0.6, 0.6));
        assert!(through(0.5, 0.5), "through the hypotenuse: touching counts");
        assert!(through(0.0, 0.0), "through a corner");
        // ends exactly on the plane, inside and outside
        assert!(intersect_segment_triangle(&Vec3::new(0.1, 0.1, 0.0), &Vec3::new(0.1, 0.1, 1.0), r));
        assert!(!intersect_segment_triangle(&Vec3::new(2.0, 2.0, 0.0), &Vec3::new(2.0, 2.0, 1.0), r));
        // coplanar: crossing an edge, and fully outside
        assert!(intersect_segment_triangle(&Vec3::new(-1.0, 0.3, 0.0), &Vec3::new(0.5, 0.3, 0.0), r));
        assert!(!intersect_segment_triangle(&Vec3::new(-1.0, 2.0, 0.0), &Vec3::new(2.0, 2.0, 0.0), r));
        // a hair above the plane never counts
        let eps = f64::EPSILON;
        assert!(!intersect_segment_triangle(&Vec3::new(-1.0, 0.3, eps), &Vec3::new(0.5, 0.3, eps), r));
    }
}
