//! Knot centre lines made by the project (issue 22): control points that trace a knot's
//! crossings, joined by a centripetal Catmull–Rom spline and swept into a ribbon. The knots are
//! open (two free tails, to be pulled), so they tie a knot only once their ends are joined far
//! outside, as a rope's are by the hands that pull it.

use super::generators::{sweep, Sweep};
use super::spline::catmull_rom;
use super::{GeneratorError, TriMesh};
use crate::math::{Compact, Real, Vec3};
use std::f64::consts::PI;

/// The knots the `knot` generator ties.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum KnotShape {
    /// An open overhand knot: a trefoil cut open at one lobe, its two ends led out as straight
    /// tails along −x and +x.
    Overhand,
}

impl KnotShape {
    /// The names scene files use (`shape = "overhand"`), with their shapes.
    pub const NAMES: [(&'static str, KnotShape); 1] = [("overhand", KnotShape::Overhand)];

    /// The shape called `name`, if any.
    pub fn from_name(name: &str) -> Option<KnotShape> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }
}

/// Control points per trefoil lobe; the spline through them stays within a few percent of the
/// trefoil.
const POINTS_PER_LOBE: usize = 6;

/// Spline samples per piece between control points, before the sweep resamples at even arc
/// length: fine enough that the polyline's arc length is the spline's to 1e-4.
const SAMPLES_PER_PIECE: u32 = 32;

/// The trefoil T(t) = (sin t + 2 sin 2t, cos t − 2 cos 2t, −sin 3t): three lobes of outer radius
/// 3 at t = π/3, π, 5π/3, height ±1 at its crossings, in units of a sixth of the knot's size.
fn trefoil(t: Real) -> Vec3 {
    Vec3::new(t.sin() + 2.0 * (2.0 * t).sin(), t.cos() - 2.0 * (2.0 * t).cos(), -(3.0 * t).sin())
}

/// The open overhand knot's control points, m: the trefoil scaled to `size` across (outer
/// diameter of its lobes), cut open at the lobe at −y (t ∈ (π − ½, π + ½) left out), each cut end
/// turned away from the other and led out as a straight tail of length `tail` along +x (the
/// start) and −x (the end), at z = 0, on the line y = −3.8·size/6.
///
/// The trefoil maps onto itself reversed under the half turn about y ((x, y, z) → (−x, y, −z),
/// t → 2π − t), and so do the tails: the knot is symmetric, and its two ends are pulled alike.
/// The closest strands of the trefoil are 1.21·size/6 apart (centre line to centre line).
pub fn overhand_control_points(size: Real, tail: Real) -> Vec<Vec3> {
    let u = size / 6.0;
    let cut = 0.5;
    let lobes = 3 * POINTS_PER_LOBE;
    let (t0, t1) = (PI + cut, 3.0 * PI - cut);
    let knot: Vec<Vec3> = (0..=lobes).map(|k| trefoil(t0 + (t1 - t0) * k as Real / lobes as Real)).collect();
    // the start's tail, from its far end to the knot, in trefoil units (the end's is its mirror)
    let lead =
        [Vec3::new(3.2, -3.8, 0.0), Vec3::new(2.2, -3.7, 0.4), Vec3::new(1.3, -3.3, 0.7), Vec3::new(1.0, -2.55, 0.95)];
    let far = lead[0] + Vec3::new(tail / u, 0.0, 0.0);
    let mirror = |p: &Vec3| Vec3::new(-p.x, p.y, -p.z);
    let mut points = vec![far];
    points.extend(lead);
    points.extend(knot);
    points.extend(lead.iter().rev().map(mirror));
    points.push(mirror(&far));
    points.iter().map(|p| p * u).collect()
}

/// The control points of `shape`, `size` across with tails of length `tail` (m).
pub fn knot_control_points(shape: KnotShape, size: Real, tail: Real) -> Result<Vec<Vec3>, GeneratorError> {
    if !(size.is_finite() && size > 0.0) {
        return Err(GeneratorError {
            key: "size",
            message: format!("must be a finite number > 0, got {}", Compact(size)),
        });
    }
    if !(tail.is_finite() && tail > 0.0) {
        return Err(GeneratorError {
            key: "tail",
            message: format!("must be a finite length > 0 (the straight end to pull on), got {}", Compact(tail)),
        });
    }
    Ok(match shape {
        KnotShape::Overhand => overhand_control_points(size, tail),
    })
}

/// The `knot` generator: a ribbon swept (see [`sweep`]) along the spline through `shape`'s
/// control points. Vertex `k·across + j` is sample `k`'s `j`-th vertex across; sample 0 is the far
/// end of the first tail, sample `segments` the far end of the last. The gaps between its parts are
/// checked against the contact thickness when the scene is built (`scene/`), which knows η(1).
pub fn knot(shape: KnotShape, size: Real, tail: Real, strip: &Sweep) -> Result<TriMesh, GeneratorError> {
    let points = knot_control_points(shape, size, tail)?;
    let curve = catmull_rom(&points, SAMPLES_PER_PIECE)?;
    sweep(strip, &curve)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_overhand_knot_is_symmetric_and_passes_its_lobes() {
        let p = overhand_control_points(0.06, 0.05);
        let n = p.len();
        for k in 0..n {
            let (a, b) = (p[k], p[n - 1 - k]);
            assert!((a.x + b.x).abs() < 1e-12 && (a.y - b.y).abs() < 1e-12 && (a.z + b.z).abs() < 1e-12, "{k}");
        }
        // the tails end 5 cm beyond the lead-in, along ±x
        assert!((p[0].x - (3.2 * 0.01 + 0.05)).abs() < 1e-12 && p[0].z == 0.0);
        // the two lobes left whole reach the knot's outer radius
        let outer = p.iter().map(|q| q.xy().norm()).filter(|r| *r < 0.035).fold(0.0, Real::max);
        assert!((outer - 0.03).abs() < 1e-3, "outer radius {outer}");
    }

    #[test]
    fn knot_sizes_are_checked_with_their_keys() {
        let strip = Sweep { width: 0.01, segments: 60, across: 3, twist_deg: 0.0 };
        assert_eq!(knot(KnotShape::Overhand, 0.0, 0.05, &strip).unwrap_err().key, "size");
        assert_eq!(knot(KnotShape::Overhand, 0.06, -1.0, &strip).unwrap_err().key, "tail");
        assert_eq!(knot(KnotShape::Overhand, 0.06, 0.05, &Sweep { across: 1, ..strip }).unwrap_err().key, "across");
        let m = knot(KnotShape::Overhand, 0.06, 0.05, &strip).unwrap();
        assert_eq!((m.positions.len(), m.triangles.len()), (61 * 3, 60 * 2 * 2));
        assert_eq!(KnotShape::from_name("overhand"), Some(KnotShape::Overhand));
        assert_eq!(KnotShape::from_name("granny"), None);
    }
}
