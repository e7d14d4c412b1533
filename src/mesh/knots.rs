//! Knot centre lines made by the project (issue 22), swept into ribbons: the overhand knot's
//! control points trace its crossings and are joined by a centripetal Catmull–Rom spline; the
//! reef knot's two strands and the bowline ([`bowline_centre_line`]) are closed-form
//! curves. The knots are open (free tails, to be
//! pulled), so they tie a knot only once their ends are joined far outside, as a rope's are by
//! the hands that pull it.

use super::bowline::bowline_centre_line;
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
    /// A loose reef (square) knot of two ribbons: two interlocked bights, each turning around
    /// the other's two legs, the first with its ends led out along −x, the second along +x
    /// ([`reef_centre_lines`]).
    Reef,
    /// A loose bowline tied around a cylinder along y behind it (at −x), its standing part led out
    /// along +x ([`bowline_centre_line`]; the cylinder is a body of its own).
    Bowline,
}

impl KnotShape {
    /// The names scene files use (`shape = "overhand"`), with their shapes.
    pub const NAMES: [(&'static str, KnotShape); 3] =
        [("overhand", KnotShape::Overhand), ("reef", KnotShape::Reef), ("bowline", KnotShape::Bowline)];

    /// The shape called `name`, if any.
    pub fn from_name(name: &str) -> Option<KnotShape> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    /// How many ribbons the knot is tied from.
    pub fn strands(self) -> usize {
        match self {
            KnotShape::Overhand | KnotShape::Bowline => 1,
            KnotShape::Reef => 2,
        }
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

/// Samples per unit of the reef knot's bight radius along its closed-form centre lines, before
/// the sweep resamples them at even arc length: fine enough that the polyline's arc length is the
/// curve's to 1e-5.
const REEF_SAMPLES_PER_RADIUS: Real = 400.0;

/// The smoothstep 3u² − 2u³ on [0, 1], 0 below and 1 above: a rise with zero slope at both ends.
fn smoothstep(u: Real) -> Real {
    let u = u.clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

/// The reef knot's two centre lines, m, as dense polylines: a loose reef (square) knot, `size`
/// across each bight's turn (its centre line's diameter), with straight tails of length `tail`.
///
/// Strand 0 is a bight that turns about (a, 0) with radius r = size/2 at z = −h, its legs
/// at y = ±c led out along −x as tails at z = −h; strand 1 is strand 0 turned half about the y
/// axis ((x, y, z) → (−x, y, −z)). Each leg runs at y = ±c where it passes under the other
/// bight's turn, swings out to y = ±r over |x| < ℓ (a smoothstep, crossing the other strand's
/// leg at x = 0), and joins its own turn at x = a. Strand 0 passes over strand 1 where the legs
/// cross (its legs rise to +h over −a < x < −ℓ, and fall back to −h over ℓ < x < a, where the
/// other strand's leg runs r − c away in y) and under it at the four crossings of a turn with
/// the other's legs: the reef knot's six crossings, and not the granny's, because the knot is
/// symmetric under the mirror y → −y (the reef knot is its own mirror image; the granny is not).
///
/// The proportions (c = 0.353 r, ℓ = 0.7 r, a = r, h = 0.088 r) keep a flat ribbon of
/// width w ≤ r/1.7 whole and its strands apart: the legs' swing bends the centre line in the
/// ribbon's plane no tighter than a radius of 0.86 w (so the inner edge does not fold), the height
/// swaps happen where the other strand's leg runs r − c ≥ 1.1 w away in y, and strands cross
/// 2h ≥ 0.3 w apart in z. The knot part of each strand is then about 10.1 r long: a loose reef
/// knot of flat ribbons takes about 17 widths of each. Sample 0 of each strand is the far end of its tail at
/// y = +c; its last, the far end of the tail at y = −c.
pub fn reef_centre_lines(size: Real, tail: Real) -> [Vec<Vec3>; 2] {
    let r = size / 2.0;
    let (c, l, a, h) = (0.353 * r, 0.7 * r, r, 0.088 * r);
    // where a leg at y = c passes under the other bight's turn, and where its tail begins
    let under = -a - (r * r - c * c).sqrt();
    let start = under - 0.25 * r;
    let leg = |x: Real| -> Vec3 {
        let y = c + (r - c) * smoothstep((x + l) / (2.0 * l));
        let z = -h + 2.0 * h * smoothstep((x + a) / (a - l)) - 2.0 * h * smoothstep((x - l) / (a - l));
        Vec3::new(x, y, z)
    };
    let n = |length: Real| ((length / r * REEF_SAMPLES_PER_RADIUS).ceil() as usize).max(2);
    let mut upper: Vec<Vec3> = Vec::new();
    let tail_samples = n(tail);
    upper.extend((0..tail_samples).map(|k| Vec3::new(start - tail + tail * k as Real / tail_samples as Real, c, -h)));
    let leg_samples = n(a - start);
    upper.extend((0..leg_samples).map(|k| leg(start + (a - start) * k as Real / leg_samples as Real)));
    let turn_samples = n(0.5 * PI * r);
    upper.extend((0..turn_samples).map(|k| {
        let angle = 0.5 * PI * k as Real / turn_samples as Real;
        Vec3::new(a + r * angle.sin(), r * angle.cos(), -h)
    }));
    let mut first = upper.clone();
    first.push(Vec3::new(a + r, 0.0, -h));
    first.extend(upper.iter().rev().map(|p| Vec3::new(p.x, -p.y, p.z)));
    let second = first.iter().map(|p| Vec3::new(-p.x, p.y, -p.z)).collect();
    [first, second]
}

/// Checks a knot's `size` and `tail` (m): finite and > 0.
fn check_knot_sizes(size: Real, tail: Real) -> Result<(), GeneratorError> {
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
    Ok(())
}

/// The centre lines of `shape`'s strands (one per ribbon, [`KnotShape::strands`]), `size` across
/// with tails of length `tail` (m), as dense polylines.
pub fn knot_centre_lines(shape: KnotShape, size: Real, tail: Real) -> Result<Vec<Vec<Vec3>>, GeneratorError> {
    check_knot_sizes(size, tail)?;
    Ok(match shape {
        KnotShape::Overhand => vec![catmull_rom(&overhand_control_points(size, tail), SAMPLES_PER_PIECE)?],
        KnotShape::Reef => reef_centre_lines(size, tail).into(),
        KnotShape::Bowline => vec![bowline_centre_line(size, tail).0],
    })
}

/// The `knot` generator: one ribbon swept (see [`sweep`]) along each of `shape`'s centre lines
/// ([`knot_centre_lines`]), ribbon after ribbon. Vertex `(s·(segments + 1) + k)·across + j` is
/// ribbon `s`'s sample `k`'s `j`-th vertex across; sample 0 is the far end of a ribbon's first
/// tail, sample `segments` the far end of its last. The gaps between its parts are checked
/// against the contact thickness when the scene is built (`scene/`), which knows η(1).
pub fn knot(shape: KnotShape, size: Real, tail: Real, strip: &Sweep) -> Result<TriMesh, GeneratorError> {
    let mut mesh = TriMesh { positions: Vec::new(), triangles: Vec::new() };
    for curve in knot_centre_lines(shape, size, tail)? {
        let ribbon = sweep(strip, &curve)?;
        let offset = mesh.positions.len() as u32;
        mesh.positions.extend(ribbon.positions);
        mesh.triangles.extend(ribbon.triangles.iter().map(|t| t.map(|i| i + offset)));
    }
    Ok(mesh)
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

    #[test]
    fn the_reef_knots_strands_are_a_half_turn_apart_and_mirror_symmetric() {
        let [a, b] = reef_centre_lines(0.068, 0.04);
        assert_eq!(a.len(), b.len());
        let n = a.len();
        for k in 0..n {
            // strand 1 is strand 0 turned half about y; each is symmetric under y → −y
            assert_eq!(b[k], Vec3::new(-a[k].x, a[k].y, -a[k].z));
            let (p, q) = (a[k], a[n - 1 - k]);
            assert!((p.x - q.x).abs() < 1e-15 && (p.y + q.y).abs() < 1e-15 && (p.z - q.z).abs() < 1e-15, "{k}");
        }
        // the first strand's tails end at −x, 4 cm beyond the knot; its turn reaches x = a + r
        let r = 0.034;
        assert!((a[0].x - (-r - (r * r - 0.353f64.powi(2) * r * r).sqrt() - 0.25 * r - 0.04)).abs() < 1e-12);
        let reach = a.iter().map(|p| p.x).fold(Real::MIN, Real::max);
        assert!((reach - 2.0 * r).abs() < 1e-12, "{reach}");
        // a smooth curve: no two consecutive samples farther apart than a few per radius
        assert!(a.windows(2).all(|w| (w[1] - w[0]).norm() < 0.01 * r));
        let strip = Sweep { width: 0.02, segments: 312, across: 17, twist_deg: 0.0 };
        let m = knot(KnotShape::Reef, 0.068, 0.04, &strip).unwrap();
        assert_eq!(m.positions.len(), 2 * 313 * 17, "ACM's 10 642 vertices");
        assert_eq!(KnotShape::Reef.strands(), 2);
    }
}
