//! The loose bowline's centre line, tied around a cylinder (ACM §8's bowline, issue 22): a path
//! of closed-form pieces (straights, circular arcs in the plane, vertical half circles), so that
//! a flat ribbon swept along it ([`sweep`](super::generators::sweep)) lies in the xy plane
//! wherever the knot is, and flat on the cylinder where it wraps it.
//!
//! In the plane, heights change only by smoothstep ramps on straight pieces and turns are made at
//! constant height; the two vertical half circles (the wrap round the cylinder and the collar's
//! fold) turn in a vertical plane. So every piece is planar and the sweep's rotation-minimising
//! frame keeps the ribbon's side horizontal. The strands cross on five levels, −2δ … +2δ with δ = 0.05·size.

use crate::math::{Real, Vec3};
use std::f64::consts::PI;

/// Dense samples per unit of `size` along the centre line, before the sweep resamples it at even
/// arc length: fine enough that the polyline's arc length is the curve's to 1e-6.
const SAMPLES_PER_SIZE: Real = 3000.0;

/// The smoothstep 3u² − 2u³ on [0, 1], 0 below and 1 above.
fn smoothstep(u: Real) -> Real {
    let u = u.clamp(0.0, 1.0);
    u * u * (3.0 - 2.0 * u)
}

/// Draws the centre line piece by piece: a position in the plane, a heading and a height.
struct Turtle {
    /// Where the path is, in the xy plane, m.
    at: [Real; 2],
    /// Heading in the xy plane, rad from +x.
    heading: Real,
    /// Height, m.
    z: Real,
    /// Samples per metre of path.
    density: Real,
    points: Vec<Vec3>,
}

impl Turtle {
    fn new(at: [Real; 2], heading: Real, z: Real, size: Real) -> Self {
        Turtle { at, heading, z, density: SAMPLES_PER_SIZE / size, points: vec![Vec3::new(at[0], at[1], z)] }
    }

    fn samples(&self, length: Real) -> usize {
        ((length * self.density).ceil() as usize).max(2)
    }

    /// A straight of `length` along the heading whose height rises by `rise` (a smoothstep over
    /// the whole straight; 0: level).
    fn line(&mut self, length: Real, rise: Real) {
        let n = self.samples(length);
        let (dx, dy) = (self.heading.cos(), self.heading.sin());
        for k in 1..=n {
            let s = length * k as Real / n as Real;
            let z = self.z + rise * smoothstep(s / length);
            self.points.push(Vec3::new(self.at[0] + dx * s, self.at[1] + dy * s, z));
        }
        self.at = [self.at[0] + dx * length, self.at[1] + dy * length];
        self.z += rise;
    }

    /// A straight along ±x (the heading's) to `x`, rising by `rise`.
    fn along_x_to(&mut self, x: Real, rise: Real) {
        self.line((x - self.at[0]) / self.heading.cos(), rise);
    }

    /// A straight along ±y (the heading's) to `y`, rising by `rise`.
    fn along_y_to(&mut self, y: Real, rise: Real) {
        self.line((y - self.at[1]) / self.heading.sin(), rise);
    }

    /// A level circular arc of `radius` turning by `angle` (rad; positive: left).
    fn arc(&mut self, radius: Real, angle: Real) {
        let side = angle.signum();
        let centre = [self.at[0] - side * radius * self.heading.sin(), self.at[1] + side * radius * self.heading.cos()];
        let start = (self.at[1] - centre[1]).atan2(self.at[0] - centre[0]);
        let n = self.samples(radius * angle.abs());
        let on = |phi: Real| [centre[0] + radius * phi.cos(), centre[1] + radius * phi.sin()];
        for k in 1..=n {
            let [x, y] = on(start + angle * k as Real / n as Real);
            self.points.push(Vec3::new(x, y, self.z));
        }
        self.at = on(start + angle);
        self.heading += angle;
    }

    /// A vertical half circle of `radius` in the plane of the heading: the path turns back and
    /// ends 2·`radius` higher (`up`) or lower.
    fn half_turn(&mut self, radius: Real, up: bool) {
        let (dx, dy) = (self.heading.cos(), self.heading.sin());
        let sign = if up { 1.0 } else { -1.0 };
        let n = self.samples(PI * radius);
        for k in 1..=n {
            let f = PI * k as Real / n as Real;
            let reach = radius * f.sin();
            let z = self.z + sign * radius * (1.0 - f.cos());
            self.points.push(Vec3::new(self.at[0] + dx * reach, self.at[1] + dy * reach, z));
        }
        self.z += sign * 2.0 * radius;
        self.heading += PI;
    }
}

/// Where the bowline's cylinder goes, m: its axis runs along y through (x, z) = (`axis_x`,
/// `axis_z`), its `radius`, and the plane y = `centre_y` in which the big loop wraps it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BowlineCylinder {
    /// x of the axis, m.
    pub axis_x: Real,
    /// z of the axis, m.
    pub axis_z: Real,
    /// Radius, m; the loop's centre line wraps it at `radius + size/12`.
    pub radius: Real,
    /// y of the plane the loop wraps it in, m.
    pub centre_y: Real,
}

/// The loose bowline's centre line (dense polyline, m) and the cylinder its big loop goes around,
/// `size` the small loop's width (centre line to centre line, along x) and `tail` the standing
/// part's straight length beyond the knot. Ribbons up to `size`/3 wide fit; the knot spans about
/// 2.4·`size` × 1.7·`size`, and the line is about 18·`size` long. `size` and `tail` must be
/// finite and > 0 ([`knot_centre_lines`](super::knot_centre_lines) checks them).
///
/// Sample 0 is the standing part's far end, at +x (pulled along +x); the last is the free tail's
/// end, inside the big loop. The rope: the standing part S comes in along −x and crosses over leg
/// B and under the tail; the small loop (the "rabbit hole") turns left, its end passing under
/// leg A where it leaves (X1, the working side on top); leg A runs round to the cylinder, over its
/// top, down its back and under it (in the plane y = `centre_y`); leg B comes back along +x,
/// under the loop's west side and over its east side (up through the hole), turns north under S
/// and folds back over it (the collar, a vertical half turn of radius 0.075·`size`); the tail
/// then runs back down through the hole, stacked 3·δ above B, and out under leg A. Along the rope
/// its crossings read O1 U2 U3 O4 O5 U6 U7 O3 O8 U5 O6 U1 O2 O7 U4 U8 (Gauss code).
pub fn bowline_centre_line(size: Real, tail: Real) -> (Vec<Vec3>, BowlineCylinder) {
    // the layout's unit: the widest ribbon it admits
    let u = size / 3.0;
    let r = u; // every in-plane turn's radius (centre line): the widest ribbon's width
    let gap = 0.2 * u; // in-plane gap between the edges of neighbouring strands on one level
    let delta = 0.15 * u; // the step between the five levels
    let y_bundle = -1.2 * u; // leg B and the tail through the small loop
    let y_bottom = -2.4 * u; // the small loop's south edge
    let north = 0.7 * u; // leg A's run north of X1 before it turns west
    let collar = 3.1 * u; // x of the collar's fold around the standing part
    let radius = u; // the cylinder's
    let clearance = 0.25 * u; // the big loop wraps the cylinder at radius + clearance
    let tail_turn = PI / 3.0; // the free tail's S-bend
    let tail_end_run = 0.1 * u;
    let ramp = 2.4 * u; // the legs' ramps to and from the cylinder
    let leg_turn = 70.0 * PI / 180.0; // leg A's S-bend over to y_bundle
    let tail_clear = 0.6 * u; // the free tail's end stays this far from the cylinder

    let top = size - r; // the small loop's north straight, x from −top to 0
    let west = -top - r; // x of its west side (−size)
    let edge = 0.5 * u + gap; // half the widest ribbon, and a gap
    let axis_z = -delta;
    let wrap = radius + clearance;
    let (z_over, z_under) = (axis_z + wrap, axis_z - wrap);

    let mut t = Turtle::new([collar + r + tail, 0.0], PI, -delta, size);
    // 1. the standing part, at −δ, to X1 (the origin), under the collar
    t.along_x_to(0.0, 0.0);
    // 2. the small loop: west, rising to 0, then three left turns and north back across X1
    t.line(edge, 0.0);
    t.line(top - edge, delta);
    t.arc(r, PI / 2.0);
    t.line(-y_bottom - 2.0 * r, 0.0);
    t.arc(r, PI / 2.0);
    t.line(top - r, 0.0);
    t.arc(r, PI / 2.0);
    t.along_y_to(0.0, 0.0);
    // 3. leg A: north, west, up to the cylinder's top, and an S-bend over to y_bundle
    t.line(north, 0.0);
    t.arc(r, PI / 2.0);
    let y_a = t.at[1];
    t.line(ramp, z_over);
    let run = (y_a - y_bundle - 2.0 * r * (1.0 - leg_turn.cos())) / leg_turn.sin();
    t.arc(r, leg_turn);
    t.line(run, 0.0);
    t.arc(r, -leg_turn);
    let leg_a_end = t.at[0];
    // where the cylinder goes: clear of leg A's S-bend, of leg B's ramp and of the free tail
    let tail_run = (-y_bundle - 2.0 * r * (1.0 - tail_turn.cos())) / tail_turn.sin();
    let tail_end = west - edge - 2.0 * r * tail_turn.sin() - tail_run * tail_turn.cos() - tail_end_run;
    let ramp_b_start = west - edge - ramp;
    let axis_x = -(-leg_a_end + radius).max(-ramp_b_start + radius).max(-tail_end + radius + tail_clear);
    t.along_x_to(axis_x, 0.0);
    // 4. the wrap: down the cylinder's back and under it
    t.half_turn(wrap, false);
    // 5. leg B: east, up to −2δ, through the hole (−2δ → +δ), down to −2δ, north under S
    t.along_x_to(ramp_b_start, 0.0);
    t.along_x_to(west - edge, -2.0 * delta - z_under);
    let hole = -2.0 * edge - west;
    t.along_x_to(west + edge, 0.0);
    t.along_x_to(-edge, 3.0 * delta);
    t.along_x_to(edge, 0.0);
    t.along_x_to(collar - r, -3.0 * delta);
    t.arc(r, PI / 2.0);
    t.along_y_to(0.5 * u, 0.0);
    // 6. the collar: folded up and back over the standing part (−2δ → +δ)
    t.half_turn(1.5 * delta, true);
    // 7. the tail: south over S, west on top of B through the hole (+2δ → −δ), out under leg A
    t.along_y_to(y_bundle + r, 0.0);
    t.arc(r, -PI / 2.0);
    t.along_x_to(edge, delta);
    t.along_x_to(-edge, 0.0);
    debug_assert!((hole - (-edge - (west + edge))).abs() < 1e-12 * size);
    t.along_x_to(west + edge, -3.0 * delta);
    t.along_x_to(west - edge, 0.0);
    t.arc(r, -tail_turn);
    t.line(tail_run, 0.0);
    t.arc(r, tail_turn);
    t.along_x_to(tail_end, 0.0);
    (t.points, BowlineCylinder { axis_x, axis_z, radius, centre_y: y_bundle })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bowline_matches_its_design_and_clears_its_cylinder() {
        let (line, cylinder) = bowline_centre_line(0.06, 0.05);
        let length: Real = line.windows(2).map(|w| (w[1] - w[0]).norm()).sum();
        // the design's figures (size 0.06, tail 0.05): 1.0772 m of rope, the axis at x = −0.14495
        assert!((length - 1.0772).abs() < 1e-3, "{length}");
        assert!((cylinder.axis_x + 0.14495).abs() < 1e-4, "{cylinder:?}");
        assert_eq!((cylinder.axis_z, cylinder.radius, cylinder.centre_y), (-0.003, 0.02, -0.024));
        assert!((line[0] - Vec3::new(0.132, 0.0, -0.003)).norm() < 1e-12, "the standing end {}", line[0]);
        let end = line.last().unwrap();
        assert!((end - Vec3::new(-0.112950, 0.0, -0.003)).norm() < 1e-5, "the tail's end {end}");
        // every sample clears the cylinder (its axis along y) by the wrap's clearance, less
        // nothing but round-off, and the rope never steps more than its sampling
        for p in &line {
            let d = ((p.x - cylinder.axis_x).powi(2) + (p.z - cylinder.axis_z).powi(2)).sqrt();
            assert!(d > cylinder.radius + 0.0048, "{p} is {d} from the axis");
        }
        assert!(line.windows(2).all(|w| (w[1] - w[0]).norm() < 0.06 / 2000.0));
        // the knot (east of leg A's ramp) lies on the five levels −2δ … +2δ, δ = 3 mm
        assert!(line.iter().filter(|p| p.x > -0.02).all(|p| p.z.abs() <= 0.006 + 1e-12));
    }
}
