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

    proptest! {
        #![proptest_config(ProptestConfig { cases: 96, .. ProptestConfig::default() })]

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
