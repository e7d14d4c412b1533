//! Smooth curves through control points: centripetal Catmull–Rom splines, the centre lines that
//! `ribbon` (with `smooth = true`) and `knot` sweep their strips along (issue 22).

use super::GeneratorError;
use crate::math::{Real, Vec3};

/// A dense polyline on the centripetal Catmull–Rom spline through `points` (Barry–Goldman
/// pyramid, knot spacing |pᵢ₊₁ − pᵢ|^½), `per_piece` samples per piece between consecutive
/// control points, the last control point included. The centripetal spacing never forms cusps or
/// self-intersections within a piece, so a knot's control points trace its crossings without
/// loops of their own. The ends take phantom points reflected through the end points
/// (p₋₁ = 2p₀ − p₁), so the curve leaves each end along its end chord.
///
/// Errors (key `path`): fewer than two points, or two equal consecutive points.
pub fn catmull_rom(points: &[Vec3], per_piece: u32) -> Result<Vec<Vec3>, GeneratorError> {
    if points.len() < 2 {
        return Err(GeneratorError { key: "path", message: "needs at least two points".into() });
    }
    if let Some(k) = points.windows(2).position(|w| {
        let d = (w[1] - w[0]).norm();
        d.is_nan() || d <= 0.0
    }) {
        return Err(GeneratorError {
            key: "path",
            message: format!("points {k} and {} are equal (or not finite); consecutive points must differ", k + 1),
        });
    }
    let per_piece = per_piece.max(1);
    let n = points.len();
    let at = |i: isize| -> Vec3 {
        if i < 0 {
            2.0 * points[0] - points[1]
        } else if i as usize >= n {
            2.0 * points[n - 1] - points[n - 2]
        } else {
            points[i as usize]
        }
    };
    let mut out = Vec::with_capacity((n - 1) * per_piece as usize + 1);
    for i in 0..n - 1 {
        let p = [at(i as isize - 1), at(i as isize), at(i as isize + 1), at(i as isize + 2)];
        let mut t = [0.0; 4];
        for k in 1..4 {
            t[k] = t[k - 1] + (p[k] - p[k - 1]).norm().sqrt();
        }
        let lerp =
            |a: Vec3, b: Vec3, ta: Real, tb: Real, s: Real| a * ((tb - s) / (tb - ta)) + b * ((s - ta) / (tb - ta));
        for step in 0..per_piece {
            let s = t[1] + (t[2] - t[1]) * (step as Real / per_piece as Real);
            let a1 = lerp(p[0], p[1], t[0], t[1], s);
            let a2 = lerp(p[1], p[2], t[1], t[2], s);
            let a3 = lerp(p[2], p[3], t[2], t[3], s);
            let b1 = lerp(a1, a2, t[0], t[2], s);
            let b2 = lerp(a2, a3, t[1], t[3], s);
            out.push(lerp(b1, b2, t[1], t[2], s));
        }
    }
    out.push(points[n - 1]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spline_passes_through_its_control_points_and_keeps_a_straight_line_straight() {
        let pts = [Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 0.5), Vec3::new(0.0, 2.0, 0.0)];
        let curve = catmull_rom(&pts, 8).unwrap();
        assert_eq!(curve.len(), 3 * 8 + 1);
        for (i, p) in pts.iter().enumerate() {
            assert!((curve[8 * i] - p).norm() < 1e-12, "control point {i}");
        }
        let line = catmull_rom(&[Vec3::zeros(), Vec3::x(), Vec3::x() * 3.0], 5).unwrap();
        assert!(line.iter().all(|p| p.y == 0.0 && p.z == 0.0 && p.x >= 0.0 && p.x <= 3.0));
        assert!(line.windows(2).all(|w| w[1].x > w[0].x), "monotone along a straight line");
    }

    #[test]
    fn repeated_or_missing_points_are_refused_with_the_key() {
        assert_eq!(catmull_rom(&[Vec3::zeros()], 4).unwrap_err().key, "path");
        let e = catmull_rom(&[Vec3::zeros(), Vec3::x(), Vec3::x()], 4).unwrap_err();
        assert!(e.message.contains("points 1 and 2"), "{e}");
        assert!(catmull_rom(&[Vec3::zeros(), Vec3::new(Real::NAN, 0.0, 0.0)], 4).is_err());
    }
}
