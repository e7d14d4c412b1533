//! Kinetic separating slabs (ACM §5.1; report §6, Algorithms 2–5).
//!
//! A slab is the region between two parallel planes `n·x = c_low(t)` and `n·x = c_high(t)`,
//! `c_high − c_low = η`, moving along its normal `n` at constant speed. While every vertex of
//! primitive A stays on the low side and every vertex of primitive B on the high side, the convex
//! hulls of A and B are at least η apart, so no penalty layer of thickness ≤ η can be active: the
//! slab *certifies* that layer's inactivity. It fails when the first vertex may reach its plane.

use super::VagueTrajectory;
use crate::math::{Real, Vec3};

/// Which side of the slab a vertex must stay on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SlabSide {
    /// `n·x ≤ c_low(t)` (primitive A).
    Low,
    /// `n·x ≥ c_high(t)` (primitive B).
    High,
}

/// A separating slab of thickness η, created at `t0`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Slab {
    /// Unit normal, pointing from A to B.
    pub normal: Vec3,
    /// `c_low` at `t0`, m.
    pub low: Real,
    /// Thickness η, m (`c_high = c_low + η`).
    pub thickness: Real,
    /// Speed of both planes along `normal`, m/s.
    pub speed: Real,
    /// Creation time, s.
    pub t0: Real,
}

impl Slab {
    /// The slab of thickness `thickness` centred between the closest points `pa` (on A) and `pb`
    /// (on B) at time `t0`, perpendicular to `pb − pa` and moving at `speed` along it. `None`
    /// when the closest points are closer than `thickness` (no such slab separates A from B).
    ///
    /// The planes through `pa` and `pb` perpendicular to `pb − pa` support the two convex
    /// primitives, so every vertex of A is on the low side and every vertex of B on the high
    /// side (up to round-off, which [`Slab::failure_time`] treats as immediate failure).
    pub fn between(pa: Vec3, pb: Vec3, thickness: Real, speed: Real, t0: Real) -> Option<Slab> {
        let d = (pb - pa).norm();
        if !(d >= thickness && d > 0.0) {
            return None;
        }
        let normal = (pb - pa) / d;
        Some(Slab::centred(normal, normal.dot(&pa), normal.dot(&pb), thickness, speed, t0))
    }

    /// The slab of `thickness` on unit `normal` centred between the supports `low_support` (of A)
    /// and `high_support` (of B) at `t0`, moving at `speed`: it separates A from B at `t0` if
    /// the supports are at least `thickness` apart.
    pub fn centred(
        normal: Vec3,
        low_support: Real,
        high_support: Real,
        thickness: Real,
        speed: Real,
        t0: Real,
    ) -> Slab {
        let middle = 0.5 * (low_support + high_support);
        Slab { normal, low: middle - 0.5 * thickness, thickness, speed, t0 }
    }

    /// The plane offset a vertex on `side` must respect at time `t`.
    pub fn plane(&self, side: SlabSide, t: Real) -> Real {
        let c = self.low + self.speed * (t - self.t0);
        match side {
            SlabSide::Low => c,
            SlabSide::High => c + self.thickness,
        }
    }

    /// The earliest time ≥ `t0` at which a vertex following any trajectory of `trajectory`'s tube
    /// (which starts at `t0`) may reach its plane; `None` if it never can. A vertex already on
    /// the wrong side (by any amount, round-off included) fails at `t0`.
    pub fn vertex_failure_time(&self, side: SlabSide, trajectory: &VagueTrajectory) -> Option<Real> {
        // signed clearance from the plane and the worst-case closing speed toward it
        let (clearance, closing) = match side {
            SlabSide::Low => (
                self.plane(SlabSide::Low, self.t0) - self.normal.dot(&trajectory.x0),
                trajectory.max_speed_along(&self.normal) - self.speed,
            ),
            SlabSide::High => (
                self.normal.dot(&trajectory.x0) - self.plane(SlabSide::High, self.t0),
                trajectory.max_speed_along(&-self.normal) + self.speed,
            ),
        };
        if clearance <= 0.0 {
            return Some(self.t0);
        }
        (closing > 0.0).then(|| self.t0 + clearance / closing)
    }

    /// The certificate's failure time: the earliest vertex failure over A's vertices (`low`) and
    /// B's (`high`), all given as tubes starting at `t0`. May be early, never late.
    pub fn failure_time<'a>(
        &self,
        low: impl IntoIterator<Item = &'a VagueTrajectory>,
        high: impl IntoIterator<Item = &'a VagueTrajectory>,
    ) -> Option<Real> {
        let lows = low.into_iter().filter_map(|tr| self.vertex_failure_time(SlabSide::Low, tr));
        let highs = high.into_iter().filter_map(|tr| self.vertex_failure_time(SlabSide::High, tr));
        lows.chain(highs).reduce(Real::min)
    }
}

/// A slab's direction as the contact bookkeeping keeps it between events: its normal rounded to
/// `f32`, 12 bytes. A slab to be kept is built on the unit normal [`SlabDirection::normal`] gives,
/// which any unit normal may be (ACM §5.1). Its planes need not be kept: while the slab holds,
/// the supports of the two sides along the normal are at least its thickness apart, so a slab
/// centred between them at any later time is valid too ([`Slab::centred`]).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct SlabDirection([f32; 3]);

impl SlabDirection {
    /// `normal` rounded.
    pub fn round(normal: &Vec3) -> Self {
        SlabDirection([normal.x as f32, normal.y as f32, normal.z as f32])
    }

    /// The unit normal of a slab on this direction (normalised in `f64`: the same for the same
    /// direction).
    pub fn normal(self) -> Vec3 {
        Vec3::new(self.0[0] as Real, self.0[1] as Real, self.0[2] as Real).normalize()
    }
}

/// A slab's planes in 16 bytes, for a record kept per contact pair: where its two planes will be
/// at `until` (the latest time its failure event may be queued for) and their speed, in single
/// precision, rounded so that the planes it gives are never on the far side of the true ones from
/// their vertices (the low plane rounded down, the high one up, `until` later; the speed's
/// rounding is allowed for when the planes are used). It answers one question: does a vertex's
/// tube stay clear of its plane until `until` ([`StoredSlab::keeps_clear`])? A yes holds for the
/// true slab too. Its normal is kept elsewhere (a [`SlabDirection`]).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct StoredSlab {
    low: f32,
    high: f32,
    speed: f32,
    until: f32,
}

impl Default for StoredSlab {
    /// A stored slab that keeps nothing clear.
    fn default() -> Self {
        StoredSlab { low: 0.0, high: 0.0, speed: 0.0, until: f32::NEG_INFINITY }
    }
}

impl StoredSlab {
    /// `slab`'s planes at `until` (s; its failure time; +∞ or NaN store a slab that keeps
    /// nothing clear, since no rounding of the speed holds for ever).
    pub fn new(slab: &Slab, until: Real) -> StoredSlab {
        let until = round_f32(until, true);
        if !until.is_finite() {
            return StoredSlab::default();
        }
        let at = Real::from(until);
        let low = slab.plane(SlabSide::Low, at);
        let high = slab.plane(SlabSide::High, at);
        StoredSlab { low: round_f32(low, false), high: round_f32(high, true), speed: slab.speed as f32, until }
    }

    /// The latest time its failure event may be queued for (s, rounded later; −∞: none).
    pub fn until(&self) -> Real {
        Real::from(self.until)
    }

    /// True if a vertex on `side`, at offset `offset` along the normal at time `t` and moving
    /// toward its plane at no more than `toward` (m/s, a tube's [`VagueTrajectory::max_speed_along`]
    /// that way), stays strictly clear of the plane from `t` to `until`. Both are straight lines
    /// in time, so the two ends decide; the speed's single-precision rounding (relative 2⁻²⁴) and
    /// this arithmetic's round-off are taken off the clearance.
    pub fn keeps_clear(&self, side: SlabSide, offset: Real, toward: Real, t: Real) -> bool {
        let until = Real::from(self.until);
        // not before `t` (and neither NaN)
        let (Some(std::cmp::Ordering::Greater) | Some(std::cmp::Ordering::Equal)) = until.partial_cmp(&t) else {
            return false;
        };
        let (speed, span) = (Real::from(self.speed), until - t);
        let plane_end = Real::from(match side {
            SlabSide::Low => self.low,
            SlabSide::High => self.high,
        });
        let travel = speed * span;
        let allowance = span * speed.abs() * Real::powi(2.0, -22)
            + 1e-14 * (plane_end.abs() + travel.abs() + offset.abs() + (toward * span).abs());
        // the plane's offset now and at `until`, and the vertex's farthest reach toward it
        let plane_now = plane_end - travel;
        match side {
            SlabSide::Low => offset + allowance < plane_now && offset + toward * span + allowance < plane_end,
            SlabSide::High => offset - allowance > plane_now && offset - toward * span - allowance > plane_end,
        }
    }
}

/// `x` in single precision, rounded up (`up`) or down; infinities and NaN pass through.
fn round_f32(x: Real, up: bool) -> f32 {
    let f = x as f32;
    match (up, Real::from(f).partial_cmp(&x)) {
        (true, Some(std::cmp::Ordering::Less)) => f.next_up(),
        (false, Some(std::cmp::Ordering::Greater)) => f.next_down(),
        _ => f,
    }
}

/// The supports of two point sets along `normal`: the largest `normal·x` over `low` and the
/// smallest over `high`. Their difference bounds the distance between the sets' convex hulls
/// from below.
pub fn supports<'a>(
    normal: &Vec3,
    low: impl IntoIterator<Item = &'a Vec3>,
    high: impl IntoIterator<Item = &'a Vec3>,
) -> (Real, Real) {
    let low = low.into_iter().map(|x| normal.dot(x)).fold(Real::NEG_INFINITY, Real::max);
    let high = high.into_iter().map(|x| normal.dot(x)).fold(Real::INFINITY, Real::min);
    (low, high)
}

/// The slab speed that balances the two primitives' mean normal velocities, so neither side
/// reaches its plane much sooner than the other (the report's slabs "have constant normal
/// velocity").
pub fn balanced_speed(normal: &Vec3, low: &[VagueTrajectory], high: &[VagueTrajectory]) -> Real {
    let mean = |side: &[VagueTrajectory]| {
        if side.is_empty() {
            0.0
        } else {
            side.iter().map(|tr| normal.dot(&tr.v0)).sum::<Real>() / side.len() as Real
        }
    };
    0.5 * (mean(low) + mean(high))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn vec() -> impl Strategy<Value = Vec3> {
        (-1.0..1.0, -1.0..1.0, -1.0..1.0).prop_map(|(x, y, z)| Vec3::new(x, y, z))
    }

    /// Distance from a point to the segment `ab`, by dense sampling (a reference that shares no
    /// code with the slab).
    fn sampled_distance_point_segment(p: Vec3, a: Vec3, b: Vec3) -> Real {
        (0..=2000).map(|k| (p - (a + (b - a) * (k as Real / 2000.0))).norm()).fold(Real::INFINITY, Real::min)
    }

    #[test]
    fn a_direction_gives_a_unit_normal_near_the_one_it_was_rounded_from() {
        let joining = Vec3::new(0.3, -0.4, 1.2).normalize();
        let normal = SlabDirection::round(&joining).normal();
        assert!((normal.norm() - 1.0).abs() < 1e-15);
        assert!((normal - joining).norm() < 1e-7);
        assert_eq!(SlabDirection::round(&joining).normal(), normal, "the same normal every time");
        assert_eq!(std::mem::size_of::<SlabDirection>(), 12);
    }

    #[test]
    fn a_centred_slab_separates_the_supports_it_is_built_between() {
        let (low, high) = supports(&Vec3::z(), &[Vec3::new(0.0, 0.0, 0.1), Vec3::new(1.0, 0.0, 0.3)], &[Vec3::z()]);
        assert_eq!((low, high), (0.3, 1.0));
        let slab = Slab::centred(Vec3::z(), low, high, 0.5, 0.0, 0.0);
        assert!((slab.plane(SlabSide::Low, 0.0) - 0.4).abs() < 1e-15);
        assert!((slab.plane(SlabSide::High, 0.0) - 0.9).abs() < 1e-15);
    }

    #[test]
    fn a_point_falling_on_a_floor_fails_when_it_reaches_the_slab() {
        // point at height 1 falling at 1 m/s onto the floor point at the origin; η = 0.1, static slab
        let slab = Slab::between(Vec3::zeros(), Vec3::z(), 0.1, 0.0, 0.0).unwrap();
        let floor = VagueTrajectory::linear(Vec3::zeros(), Vec3::zeros());
        let point = VagueTrajectory::linear(Vec3::z(), -Vec3::z());
        let t = slab.failure_time([&floor], [&point]).unwrap();
        assert!((t - 0.45).abs() < 1e-12, "the point enters the slab's upper plane at z = 0.55: {t}");
        // vagueness can only bring failure earlier
        let vague = VagueTrajectory { tolerance: 0.5, ..point };
        assert!(slab.failure_time([&floor], [&vague]).unwrap() < t);
        // separating primitives never fail
        let leaving = VagueTrajectory::linear(Vec3::z(), Vec3::z());
        assert_eq!(slab.failure_time([&floor], [&leaving]), None);
        // too close for the thickness: no slab
        assert!(Slab::between(Vec3::zeros(), Vec3::z() * 0.05, 0.1, 0.0, 0.0).is_none());
    }

    /// Points of the convex hull of 1–3 vertices (a point, a segment or a triangle), sampled on a
    /// barycentric grid of `n` steps per side.
    fn hull_samples(x: &[Vec3], n: usize) -> Vec<Vec3> {
        match x {
            [p] => vec![*p],
            [a, b] => (0..=n).map(|k| a + (b - a) * (k as Real / n as Real)).collect(),
            [a, b, c] => (0..=n)
                .flat_map(|i| (0..=n - i).map(move |j| (i, j)))
                .map(|(i, j)| {
                    let (u, v) = (i as Real / n as Real, j as Real / n as Real);
                    a + (b - a) * u + (c - a) * v
                })
                .collect(),
            _ => unreachable!("primitives have 1 to 3 vertices"),
        }
    }

    /// The distance between two hulls by sampling, with the closest samples (shares no code with
    /// the slab or the distance module).
    fn sampled_hull_distance(low: &[Vec3], high: &[Vec3], n: usize) -> (Real, Vec3, Vec3) {
        let (a, b) = (hull_samples(low, n), hull_samples(high, n));
        let mut best = (Real::INFINITY, Vec3::zeros(), Vec3::zeros());
        for p in &a {
            for q in &b {
                let d = (q - p).norm();
                if d < best.0 {
                    best = (d, *p, *q);
                }
            }
        }
        best
    }

    #[test]
    fn a_stored_slab_keeps_a_vertex_with_room_clear_and_refuses_one_that_reaches_its_plane() {
        // planes at 0.2 and 0.3 at t = 0, moving at 0.1 m/s; failure asked for at 1 s
        let slab = Slab { normal: Vec3::x(), low: 0.2, thickness: 0.1, speed: 0.1, t0: 0.0 };
        let stored = StoredSlab::new(&slab, 1.0);
        assert_eq!(std::mem::size_of::<StoredSlab>(), 16);
        // at 0.5 s the low plane is at 0.25: a vertex at 0.1 may close in at 0.2 m/s (0.2 at 1 s,
        // the plane 0.3), not at 0.5 m/s (0.35)
        assert!(stored.keeps_clear(SlabSide::Low, 0.1, 0.2, 0.5));
        assert!(!stored.keeps_clear(SlabSide::Low, 0.1, 0.5, 0.5));
        // the high plane is at 0.35 then: a vertex at 0.5 may close in at 0.1 m/s, not at 0.3
        assert!(stored.keeps_clear(SlabSide::High, 0.5, 0.1, 0.5));
        assert!(!stored.keeps_clear(SlabSide::High, 0.5, 0.3, 0.5));
        // no failure asked for: nothing is kept
        assert!(!StoredSlab::new(&slab, Real::INFINITY).keeps_clear(SlabSide::Low, -1.0, 0.0, 0.5));
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

        /// A stored slab only says a vertex stays clear when it does of the true slab's plane, in
        /// double precision, at every sampled instant up to the failure time (the vertex moving
        /// toward its plane at its largest speed), wherever the slab is and however fast.
        #[test]
        fn a_stored_slab_keeps_clear_only_what_the_true_slab_keeps_clear(
            origin_exponent in -3i32..4,
            low in -1.0..1.0f64,
            thickness in 1e-4..0.1f64,
            speed in -2.0..2.0f64,
            t0 in 0.0..100.0f64,
            until_after in 0.0..2.0f64,
            at in 0.0..1.0f64,
            room in -1e-6..1e-3f64,
            toward in -1.0..1.0f64,
            high in proptest::bool::ANY,
        ) {
            let origin = Real::powi(10.0, origin_exponent);
            let slab = Slab { normal: Vec3::x(), low: origin + low, thickness, speed, t0 };
            let until = t0 + until_after;
            let stored = StoredSlab::new(&slab, until);
            let t = t0 + at * until_after;
            let side = if high { SlabSide::High } else { SlabSide::Low };
            // a vertex `room` short of its plane now, closing in at `toward` (only the sign of
            // the room relative to the plane matters to the check; both are tried)
            let offset = match side {
                SlabSide::Low => slab.plane(side, t) - room,
                SlabSide::High => slab.plane(side, t) + room,
            };
            if stored.keeps_clear(side, offset, toward, t) {
                for k in 0..=64 {
                    let s = t + (until - t) * k as Real / 64.0;
                    let reach = match side {
                        SlabSide::Low => offset + toward * (s - t),
                        SlabSide::High => offset - toward * (s - t),
                    };
                    let plane = slab.plane(side, s);
                    let clear = match side { SlabSide::Low => reach < plane, SlabSide::High => reach > plane };
                    prop_assert!(clear, "kept, but at {s} s the vertex reaches {reach} and the plane is at {plane}");
                }
            }
        }

        /// Certificates are conservative for each pair kind of the contact manager (issue 3):
        /// vertex–triangle (1 against 3), edge–edge (2 against 2) and sphere–sphere (1 against 1).
        /// The slab is built as the manager builds it (supports along the closest-point direction,
        /// centred in the gap); the hulls, moved along random trajectories inside their tubes, stay
        /// at least η apart by a sampled distance until the computed failure time.
        #[test]
        fn slab_failure_is_never_late_for_each_pair_kind(
            kind in 0usize..3,
            x in proptest::collection::vec(vec(), 4),
            v in proptest::collection::vec(vec(), 4),
            kick in proptest::collection::vec(vec(), 4),
            thickness in 0.01..0.2f64,
            tolerance in 0.0..0.5f64,
        ) {
            let lows = [1usize, 2, 1][kind];
            let count = [4usize, 4, 2][kind];
            let (x, v, kick) = (&x[..count], &v[..count], &kick[..count]);
            let n = 24;
            let (_, pa, pb) = sampled_hull_distance(&x[..lows], &x[lows..], n);
            let Some(normal) = (pb - pa).try_normalize(1e-9) else { return Ok(()) };
            let low_support = x[..lows].iter().map(|p| normal.dot(p)).fold(Real::NEG_INFINITY, Real::max);
            let high_support = x[lows..].iter().map(|p| normal.dot(p)).fold(Real::INFINITY, Real::min);
            prop_assume!(high_support - low_support > 1.1 * thickness);
            let tubes: Vec<VagueTrajectory> =
                x.iter().zip(v).map(|(&x0, &v0)| VagueTrajectory { x0, v0, tolerance }).collect();
            let (low, high) = tubes.split_at(lows);
            let middle = 0.5 * (low_support + high_support);
            let slab = Slab {
                normal,
                low: middle - 0.5 * thickness,
                thickness,
                speed: balanced_speed(&normal, low, high),
                t0: 0.0,
            };
            let Some(t_fail) = slab.failure_time(low, high) else { return Ok(()) };
            // each vertex moves at v₀ plus a constant deviation of norm just under ε
            let steps = 40;
            for k in 1..=steps {
                let t = t_fail * k as Real / steps as Real;
                let moved: Vec<Vec3> = tubes
                    .iter()
                    .zip(kick)
                    .map(|(tr, u)| {
                        let deviation = u.try_normalize(1e-12).map_or(Vec3::zeros(), |u| u * tolerance * 0.999);
                        tr.x0 + (tr.v0 + deviation) * t
                    })
                    .collect();
                let (d, _, _) = sampled_hull_distance(&moved[..lows], &moved[lows..], 12);
                prop_assert!(d >= thickness - 1e-9, "distance {d} < η = {thickness} at t = {t} before failure at {t_fail}");
            }
        }

        /// Certificates are conservative (issue 3): a point and a segment on random linear
        /// trajectories, kicked by random velocity changes inside the tube, stay at least η apart
        /// until the computed failure time.
        #[test]
        fn slab_failure_is_never_late(
            p in vec(), a in vec(), b in vec(),
            vp in vec(), va in vec(), vb in vec(),
            kicks in proptest::collection::vec((vec(), vec(), vec()), 4),
            thickness in 0.01..0.3f64,
            tolerance in 0.0..0.5f64,
        ) {
            let d0 = sampled_distance_point_segment(p, a, b);
            prop_assume!(d0 > thickness * 1.2);
            // closest point on the segment, found by sampling (any supporting pair works)
            let s = (0..=2000).map(|k| k as Real / 2000.0)
                .min_by(|s, t| (p - (a + (b - a) * *s)).norm().total_cmp(&(p - (a + (b - a) * *t)).norm()))
                .unwrap();
            let pb = a + (b - a) * s;
            // a sampled closest point may leave the segment a hair across the low plane; the slab
            // then fails at once, which is conservative
            let Some(slab) = Slab::between(pb, p, thickness, 0.0, 0.0) else { return Ok(()) };
            let seg = [VagueTrajectory { x0: a, v0: va, tolerance }, VagueTrajectory { x0: b, v0: vb, tolerance }];
            let pt = VagueTrajectory { x0: p, v0: vp, tolerance };
            let speed = balanced_speed(&slab.normal, &seg, &[pt]);
            let slab = Slab { speed, ..slab };
            let Some(t_fail) = slab.failure_time(&seg, [&pt]) else { return Ok(()) };
            // simulate trajectories inside the tube: piecewise-constant velocity perturbations of
            // norm ≤ ε, switching at four random instants before t_fail
            let scale = |u: Vec3| if u.norm() > 0.0 { u * (tolerance / u.norm()) * 0.999 } else { u };
            let steps = 400;
            let (mut xa, mut xb, mut xp) = (a, b, p);
            for k in 0..steps {
                let dt = t_fail / steps as Real;
                let phase = (k * kicks.len()) / steps;
                let (ua, ub, up) = kicks[phase];
                xa += (va + scale(ua)) * dt;
                xb += (vb + scale(ub)) * dt;
                xp += (vp + scale(up)) * dt;
                let d = sampled_distance_point_segment(xp, xa, xb);
                // sampling the segment overestimates the distance by at most half a sample step
                prop_assert!(d >= thickness - (xb - xa).norm() / 2000.0 - 1e-9,
                    "distance {d} < η = {thickness} at t = {} before failure time {t_fail}", (k + 1) as Real * dt);
            }
        }
    }
}
