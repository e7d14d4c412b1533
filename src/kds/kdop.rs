//! k-DOPs over vague trajectories (ACM §5.5–5.6): a set of vertices bounded along 13 fixed axes
//! (a 26-DOP: the 3 coordinate axes, the 6 face diagonals and the 4 body diagonals), and the two
//! certificates the kinetic hierarchy needs between two such sets:
//!
//! - **non-overlap**: some axis separates the sets by more than a threshold. Each extent is
//!   bounded by its *linear envelope* (§5.6, Fig. 9): the upper extent by its current value plus
//!   the largest upward speed of any vertex, the lower one likewise, so the gap along an axis is
//!   bounded below by a line and fails at one subtraction and one division. The certificate holds
//!   while *any* axis separates; each axis separates from now until its line drops to the reach,
//!   so the union is the latest of these times. [`separating_axis`] short-circuits to the most
//!   useful axes (§5.6): it walks the axes in a learned order, stops at the first axis that does
//!   not improve the bound, then tries one random unused axis and promotes it if it helps.
//! - **overlap**: the sets stay closer than a threshold along every axis. The extents are bounded
//!   on the other side by their current leaders' tubes, so [`overlap_time`] is conservative too.
//!
//! A vertex's tube (ACM §5.3) is its position now and a velocity within `tolerance` of a nominal
//! one; every bound here holds for every trajectory in the tubes. Spheres enter with their radius.

use crate::math::{Real, Vec3};

/// Number of k-DOP axes (k = 26).
pub const AXES: usize = 13;

/// The k-DOP axes, unit vectors: x, y, z; the face diagonals; the body diagonals.
pub fn axis(i: usize) -> Vec3 {
    const F: Real = std::f64::consts::FRAC_1_SQRT_2;
    const B: Real = 0.577_350_269_189_625_8; // 1/√3
    match i {
        0 => Vec3::new(1.0, 0.0, 0.0),
        1 => Vec3::new(0.0, 1.0, 0.0),
        2 => Vec3::new(0.0, 0.0, 1.0),
        3 => Vec3::new(F, F, 0.0),
        4 => Vec3::new(F, -F, 0.0),
        5 => Vec3::new(F, 0.0, F),
        6 => Vec3::new(F, 0.0, -F),
        7 => Vec3::new(0.0, F, F),
        8 => Vec3::new(0.0, F, -F),
        9 => Vec3::new(B, B, B),
        10 => Vec3::new(B, B, -B),
        11 => Vec3::new(B, -B, B),
        12 => Vec3::new(-B, B, B),
        _ => panic!("k-DOP axis {i} out of range"),
    }
}

/// The axes in their natural order: the starting order of a new certificate.
pub const NATURAL_ORDER: [u8; AXES] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];

/// One vertex as a k-DOP sees it: its vague tube, and the radius of the primitive it belongs to.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct TubePoint {
    /// Position now, m.
    pub x: Vec3,
    /// Nominal velocity, m/s.
    pub v: Vec3,
    /// Velocity tolerance ε, m/s.
    pub tolerance: Real,
    /// Radius (0 but for spheres), m.
    pub radius: Real,
}

/// A set of tube points along one axis: its extent now and the slopes of its envelopes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct AxisExtent {
    /// Lowest point now (radius included), m.
    lo: Real,
    /// Highest point now, m.
    hi: Real,
    /// Slowest possible speed of any point (the lower extent's envelope slope), m/s.
    lo_speed: Real,
    /// Fastest possible speed of any point (the upper extent's envelope slope), m/s.
    hi_speed: Real,
    /// Fastest possible speed of the current lowest point: the lower extent can rise no faster.
    lo_leader_speed: Real,
    /// Slowest possible speed of the current highest point: the upper extent can fall no faster.
    hi_leader_speed: Real,
}

fn extent(points: &[TubePoint], d: &Vec3) -> AxisExtent {
    let mut e = AxisExtent {
        lo: Real::INFINITY,
        hi: Real::NEG_INFINITY,
        lo_speed: Real::INFINITY,
        hi_speed: Real::NEG_INFINITY,
        lo_leader_speed: 0.0,
        hi_leader_speed: 0.0,
    };
    for p in points {
        let (x, v) = (d.dot(&p.x), d.dot(&p.v));
        if x - p.radius < e.lo {
            e.lo = x - p.radius;
            e.lo_leader_speed = v + p.tolerance;
        }
        if x + p.radius > e.hi {
            e.hi = x + p.radius;
            e.hi_leader_speed = v - p.tolerance;
        }
        e.lo_speed = e.lo_speed.min(v - p.tolerance);
        e.hi_speed = e.hi_speed.max(v + p.tolerance);
    }
    e
}

/// Which side of an axis gap a set lies on: the first set of [`separating_axis`] is always the
/// lower one along the gap's signed axis, the second the upper one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    /// The first set, `a`: its upper extent bounds the gap from below.
    Lower,
    /// The second set, `b`: its lower extent bounds the gap from above.
    Upper,
}

/// A separating axis with the linear envelope of its gap: `gap + (upper_speed − lower_speed)·τ`
/// bounds the gap from below for τ ≥ 0 while every vertex stays in its tube. Along the signed
/// axis (the axis, or its opposite if `flipped`) the first set lies below the second.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct AxisGap {
    /// Index of the axis.
    pub axis: u8,
    /// True if the gap is measured along −axis (the first set lies above the second along +axis).
    pub flipped: bool,
    /// Gap between the lower set's upper extent and the upper set's lower extent now, m.
    pub gap: Real,
    /// Fastest possible speed of the lower set's points along the axis, m/s.
    pub lower_speed: Real,
    /// Slowest possible speed of the upper set's points along the axis, m/s.
    pub upper_speed: Real,
}

impl AxisGap {
    /// Time from now until the envelope of the gap falls to `reach` (+∞: it never does), s.
    pub fn time_to(&self, reach: Real) -> Real {
        let closing = self.lower_speed - self.upper_speed;
        if self.gap <= reach {
            0.0
        } else if closing > 0.0 {
            (self.gap - reach) / closing
        } else {
            Real::INFINITY
        }
    }

    /// The same bound `dt` later: the gap moves along its envelope.
    pub fn advance(&mut self, dt: Real) {
        self.gap += (self.upper_speed - self.lower_speed) * dt;
    }

    /// Widens the envelope for a vertex of the set on `side` whose tube was re-centred on
    /// velocity `v` (tolerance ε): the envelope stays a bound for the new tube as well. Returns
    /// false if the envelope already bounded the new tube (its failure time is unchanged).
    pub fn admit(&mut self, side: Side, v: &Vec3, tolerance: Real) -> bool {
        let d = axis(self.axis as usize);
        let sign = if self.flipped { -1.0 } else { 1.0 };
        let s = sign * d.dot(v);
        match side {
            Side::Lower if s + tolerance > self.lower_speed => self.lower_speed = s + tolerance,
            Side::Upper if s - tolerance < self.upper_speed => self.upper_speed = s - tolerance,
            _ => return false,
        }
        true
    }
}

/// The better of the two directions of axis `i` between `a` and `b`, if either separates them by
/// more than `threshold` now.
fn axis_gap(a: &[TubePoint], b: &[TubePoint], i: usize, threshold: Real) -> Option<AxisGap> {
    let d = axis(i);
    let (ea, eb) = (extent(a, &d), extent(b, &d));
    let a_below = AxisGap {
        axis: i as u8,
        flipped: false,
        gap: eb.lo - ea.hi,
        lower_speed: ea.hi_speed,
        upper_speed: eb.lo_speed,
    };
    let a_above = AxisGap {
        axis: i as u8,
        flipped: true,
        gap: ea.lo - eb.hi,
        lower_speed: -ea.lo_speed,
        upper_speed: -eb.hi_speed,
    };
    let best = if a_below.gap >= a_above.gap { a_below } else { a_above };
    (best.gap > threshold).then_some(best)
}

/// Non-overlap certificate with adaptive short-circuit (ACM §5.5–5.6): the axis whose envelope
/// keeps `a` and `b` farther apart than `reach` for longest, among those that separate them by more
/// than `threshold` (≥ `reach`) now, or `None` if no axis does.
///
/// `order` is the certificate's learned axis order: axes are tried in it until one fails to improve
/// the bound; then, unless the bound is already endless, the unused axis
/// `order[first unused + random % unused]` is tried and, if it improves the bound, moved to the
/// front. If the tried axes separate nothing, every axis is tried
/// before giving up, so `None` means that no axis separates the sets.
pub fn separating_axis(
    a: &[TubePoint],
    b: &[TubePoint],
    order: &mut [u8; AXES],
    threshold: Real,
    reach: Real,
    random: u64,
) -> Option<AxisGap> {
    let mut best: Option<(AxisGap, Real)> = None;
    let better = |gap: &AxisGap, best: &Option<(AxisGap, Real)>| {
        let time = gap.time_to(reach);
        best.as_ref().is_none_or(|(_, t)| time > *t).then_some(time)
    };
    // walk the learned order until an axis fails to improve the bound
    let mut tried = 0;
    while tried < AXES {
        let gap = axis_gap(a, b, order[tried] as usize, threshold);
        tried += 1;
        let Some((gap, time)) = gap.and_then(|gap| better(&gap, &best).map(|time| (gap, time))) else { break };
        best = Some((gap, time));
        if time == Real::INFINITY {
            break;
        }
    }
    let settled = best.as_ref().is_some_and(|(_, time)| *time == Real::INFINITY);
    if tried < AXES && !settled {
        // one random unused axis, promoted to the front if it improves the bound
        let pick = tried + (random % (AXES - tried) as u64) as usize;
        if let Some(gap) = axis_gap(a, b, order[pick] as usize, threshold) {
            if let Some(time) = better(&gap, &best) {
                best = Some((gap, time));
                order[..=pick].rotate_right(1);
            }
        }
    }
    if best.is_none() {
        // the learned axes failed: before declaring overlap, try them all
        for k in 0..AXES {
            if let Some(gap) = axis_gap(a, b, order[k] as usize, threshold) {
                if let Some(time) = better(&gap, &best) {
                    best = Some((gap, time));
                    order[..=k].rotate_right(1);
                }
            }
        }
    }
    best.map(|(gap, _)| gap)
}

/// Overlap certificate: a time from now before which no axis can separate `a` and `b` by more than
/// `threshold` (0 if one already does; +∞ if none ever can). Conservative: each extent is bounded
/// on its far side by the tube of its current leader.
pub fn overlap_time(a: &[TubePoint], b: &[TubePoint], threshold: Real) -> Real {
    let mut first = Real::INFINITY;
    for i in 0..AXES {
        let d = axis(i);
        let (ea, eb) = (extent(a, &d), extent(b, &d));
        // gap with a below b can grow no faster than b's lowest point rises and a's highest falls
        for (gap, opening) in [
            (eb.lo - ea.hi, eb.lo_leader_speed - ea.hi_leader_speed),
            (ea.lo - eb.hi, ea.lo_leader_speed - eb.hi_leader_speed),
        ] {
            if gap > threshold {
                return 0.0;
            }
            if opening > 0.0 {
                first = first.min((threshold - gap) / opening);
            }
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn still(x: [Real; 3]) -> TubePoint {
        TubePoint { x: Vec3::from(x), v: Vec3::zeros(), tolerance: 0.0, radius: 0.0 }
    }

    #[test]
    fn axes_are_unit_and_distinct() {
        for i in 0..AXES {
            assert!((axis(i).norm() - 1.0).abs() < 1e-15);
            for j in 0..i {
                assert!(axis(i).dot(&axis(j)).abs() < 1.0 - 1e-3, "axes {i} and {j} are parallel");
            }
        }
    }

    #[test]
    fn a_diagonal_separates_what_the_box_axes_cannot() {
        // two points across the diagonal of a unit square: every coordinate extent of the
        // triangle overlaps the point's, the face diagonal (1, 1)/√2 separates them
        let triangle = [still([0.0, 0.0, 0.0]), still([1.0, 0.0, 0.0]), still([0.0, 1.0, 0.0])];
        let point = [still([0.9, 0.9, 0.0])];
        let mut order = NATURAL_ORDER;
        let gap = separating_axis(&triangle, &point, &mut order, 0.1, 0.1, 0).expect("separated");
        assert_eq!(gap.axis, 3);
        assert!((gap.gap - (1.8 - 1.0) * std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
        assert_eq!(gap.time_to(0.1), Real::INFINITY);
        // learned: the diagonal now comes first
        assert_eq!(order[0], 3);
        assert!(separating_axis(&triangle, &[still([0.4, 0.4, 0.0])], &mut order, 0.1, 0.1, 0).is_none());
    }

    #[test]
    fn an_approaching_pair_fails_when_its_envelope_reaches_the_reach() {
        let a = [still([0.0, 0.0, 0.0])];
        let b = [TubePoint { x: Vec3::new(0.0, 0.0, 1.0), v: Vec3::new(0.0, 0.0, -1.0), tolerance: 0.5, radius: 0.1 }];
        // the short-circuit may settle for a weaker axis; with z first in the order, no other axis
        // can beat it
        let mut order = NATURAL_ORDER;
        order[..=2].rotate_right(1);
        let gap = separating_axis(&a, &b, &mut order, 0.2, 0.2, 7).expect("separated along z");
        assert_eq!(gap.axis, 2);
        // gap 0.9 closes at up to 1.5 m/s: 0.7 m to the reach in 0.4667 s
        assert!((gap.time_to(0.2) - 0.7 / 1.5).abs() < 1e-12);
    }

    #[test]
    fn admitting_a_faster_tube_brings_the_failure_forward() {
        let a = [still([0.0, 0.0, 0.0])];
        let b = [still([0.0, 0.0, 1.0])];
        let mut order = NATURAL_ORDER;
        let mut gap = separating_axis(&a, &b, &mut order, 0.1, 0.1, 0).expect("separated");
        assert_eq!(gap.time_to(0.1), Real::INFINITY);
        gap.advance(0.5);
        assert!(gap.admit(Side::Lower, &Vec3::new(0.0, 0.0, 2.0), 0.0));
        assert!((gap.time_to(0.1) - 0.45).abs() < 1e-12);
        // a slower tube is already bounded
        assert!(!gap.admit(Side::Lower, &Vec3::new(0.0, 0.0, 1.0), 0.0));
        // the same pair the other way round: the gap is measured along −z, b is the lower set
        let mut order = NATURAL_ORDER;
        let mut flipped = separating_axis(&b, &a, &mut order, 0.1, 0.1, 0).expect("separated");
        assert!(flipped.flipped);
        flipped.advance(0.5);
        assert!(flipped.admit(Side::Upper, &Vec3::new(0.0, 0.0, 2.0), 0.0));
        assert!((flipped.time_to(0.1) - 0.45).abs() < 1e-12);
    }

    fn tube_point() -> impl Strategy<Value = TubePoint> {
        (prop::array::uniform3(-1.0..1.0f64), prop::array::uniform3(-2.0..2.0f64), 0.0..0.5f64, 0.0..0.1f64)
            .prop_map(|(x, v, tolerance, radius)| TubePoint { x: Vec3::from(x), v: Vec3::from(v), tolerance, radius })
    }

    /// A trajectory in the tube: the nominal velocity plus a drift of length ≤ ε that turns
    /// with time (so it is not a straight line).
    fn sampled(p: &TubePoint, drift: &Vec3, t: Real) -> Vec3 {
        let u = drift * p.tolerance;
        let turning = Vec3::new(
            u.x * (3.0 * t).cos() - u.y * (3.0 * t).sin(),
            u.x * (3.0 * t).sin() + u.y * (3.0 * t).cos(),
            u.z,
        );
        p.x + (p.v + turning) * t
    }

    /// Distance between the sets' points, radii included: the reference shares no code with the
    /// k-DOP bounds.
    fn closest(a: &[TubePoint], b: &[TubePoint], da: &[Vec3], db: &[Vec3], t: Real) -> Real {
        let mut d = Real::INFINITY;
        for (p, u) in a.iter().zip(da) {
            for (q, w) in b.iter().zip(db) {
                d = d.min((sampled(p, u, t) - sampled(q, w, t)).norm() - p.radius - q.radius);
            }
        }
        d
    }

    fn unit_drift() -> impl Strategy<Value = Vec3> {
        prop::array::uniform3(-1.0..1.0f64).prop_map(|u| {
            let u = Vec3::from(u);
            if u.norm() > 1.0 {
                u / u.norm()
            } else {
                u
            }
        })
    }

    proptest! {
        /// Never late: before the non-overlap certificate fails, every pair of points (one from
        /// each set, on any trajectories in their tubes) stays farther apart than the reach.
        #[test]
        fn non_overlap_certificates_are_never_late(
            a in prop::collection::vec(tube_point(), 1..5),
            b in prop::collection::vec(tube_point().prop_map(|mut p| { p.x.z += 2.5; p }), 1..5),
            da in prop::collection::vec(unit_drift(), 5),
            db in prop::collection::vec(unit_drift(), 5),
            random in 0u64..100,
        ) {
            let reach = 0.05;
            let mut order = NATURAL_ORDER;
            if let Some(gap) = separating_axis(&a, &b, &mut order, reach, reach, random) {
                let fail = gap.time_to(reach).min(10.0);
                for k in 0..=50 {
                    let t = fail * k as Real / 50.0;
                    prop_assert!(closest(&a, &b, &da, &db, t) > reach * (1.0 - 1e-9), "close at {t} before {fail}");
                }
            }
        }

        /// Never late either: before the overlap certificate fails, no axis separates the sets'
        /// sampled points by more than the threshold.
        #[test]
        fn overlap_certificates_are_never_late(
            a in prop::collection::vec(tube_point(), 1..5),
            b in prop::collection::vec(tube_point(), 1..5),
            da in prop::collection::vec(unit_drift(), 5),
            db in prop::collection::vec(unit_drift(), 5),
        ) {
            let threshold = 0.1;
            let fail = overlap_time(&a, &b, threshold).min(10.0);
            if fail == 0.0 {
                // already apart along some axis
                prop_assert!((0..AXES).any(|i| axis_gap(&a, &b, i, threshold * (1.0 - 1e-12)).is_some()));
                return Ok(());
            }
            for k in 0..=50 {
                let t = fail * k as Real / 50.0;
                let at = |set: &[TubePoint], drift: &[Vec3]| -> Vec<TubePoint> {
                    set.iter().zip(drift).map(|(p, u)| TubePoint { x: sampled(p, u, t), ..*p }).collect()
                };
                let (a_t, b_t) = (at(&a, &da), at(&b, &db));
                for i in 0..AXES {
                    prop_assert!(axis_gap(&a_t, &b_t, i, threshold * (1.0 + 1e-9)).is_none(), "axis {i} separates at {t} before {fail}");
                }
            }
        }
    }
}
