//! Certification (ACM §5.1–§5.3; report Algorithms 2 and 4): a pair whose next layer is idle is
//! proven so by a separating slab of that layer's thickness on its vertices' vague tubes (a rate
//! guard for an inextensible edge's length constraint), scheduled to fail no later than the tubes
//! may close the gap; a kick that leaves a tube re-bases the slabs of the pairs its vertex
//! supports. Where no slab is profitable, layers are switched on (`layers.rs`).

use super::manager::ContactManager;
use super::pair::{Between, Guard, PairKind, Proximity};
use super::schedule::Schedule;
use super::settings::ContactVariant;
use super::tube::{tubes_at, vertex_tube};
use crate::contact::{ContactError, Penetration};
use crate::ids::{PairId, VertexId};
use crate::kds::slab::{balanced_speed, supports};
use crate::kds::{Slab, SlabDirection, SlabSide, StoredSlab, VagueTrajectory};
use crate::math::{Real, Time, Vec3};
use crate::model::Model;
use smallvec::SmallVec;

/// A slab in a gap narrower than `profitability`·η(l) still guards layer l when it would last
/// this many of the layer's periods on the vertices' tubes: it then costs less than the ticks
/// of an idle layer it replaces (a certificate event and a re-certification, against ticks that
/// each measure the pair). Where it would fail sooner, the layer ticks (ACM §5.1's 11/10 rule).
const SLAB_SPAN: Real = 2.0;

/// True if a slab failing at `failure` (s) lasts [`SLAB_SPAN`] periods `h` from `t`.
fn lasts(failure: Real, t: Time, h: Real) -> bool {
    failure >= t.seconds() + SLAB_SPAN * h
}

/// A new slab's place for a pair measured at some time ([`ContactManager::plan_slab`]): its
/// direction and that direction's unit normal, the supports (low, high) of the pair's two sides
/// along it, and the room between them less the pair's radii.
struct SlabPlan {
    direction: SlabDirection,
    normal: Vec3,
    supports: (Real, Real),
    room: Real,
}

impl ContactManager {
    /// The stencil of `kind` at `t` into `scratch` (positions on the vertices' trajectories).
    pub(super) fn fill_positions(&mut self, kind: &PairKind, model: &Model, t: Time) {
        self.scratch.clear();
        let v = &model.vertices;
        self.scratch.extend(kind.vertices().iter().map(|&u| v.position_at(u, t.seconds())));
    }

    /// Measures a pair of `kind` at `t` without moving anything, recording the smallest gap seen.
    pub(super) fn measure_at(&mut self, kind: &PairKind, model: &Model, t: Time) -> Proximity {
        self.fill_positions(kind, model, t);
        let proximity = kind.measure(&self.scratch);
        self.counters.smallest_gap = self.counters.smallest_gap.min(proximity.gap);
        proximity
    }

    /// A certificate failed at `t`: find a new slab or activate layers (Algorithm 4).
    pub fn certificate_failed(&mut self, pair: PairId, t: Time, model: &Model) -> Result<Vec<Schedule>, ContactError> {
        let mut out = Vec::new();
        let k = pair;
        self.pairs[k].guard = Guard::None;
        self.certify(k, t, model, &mut out)?;
        Ok(out)
    }

    /// Sets pair `k` up at time `t`: activates layers while no profitable slab exists, then
    /// certifies the next layer with a slab of its thickness (Algorithms 2 and 4).
    pub(super) fn certify(
        &mut self,
        k: PairId,
        t: Time,
        model: &Model,
        out: &mut Vec<Schedule>,
    ) -> Result<(), ContactError> {
        let s = self.settings;
        let kind = self.kind(k);
        let proximity = self.measure_at(&kind, model, t);
        let penetration = || {
            ContactError::Penetration(Penetration {
                vertices: kind.vertices().iter().map(|u| u.0).collect(),
                gap: proximity.gap,
                time: t.seconds(),
            })
        };
        if proximity.gap.is_nan() || proximity.gap <= 0.0 {
            return Err(penetration());
        }
        if matches!(kind, PairKind::EdgeLength { .. } | PairKind::Crush { .. }) {
            return self.certify_rate(k, t, proximity.gap, model, out);
        }
        let Some(plan) = self.plan_slab(&kind, &proximity) else {
            return Err(penetration());
        };
        loop {
            let next = self.pairs[k].layers.len() as u32 + 1;
            let eta = kind.schedule(self.settings.layers).thickness(next);
            if let Some((failure, slab)) = self.planned_failure(&kind, t, model, &plan, eta) {
                let lasting =
                    s.variant == ContactVariant::RegularLayers && lasts(failure, t, self.layer_period(k, next, model));
                if plan.room > s.profitability * eta || lasting {
                    self.put_slab(k, plan.direction, &slab, failure.max(t.seconds()), out);
                    return Ok(());
                }
            }
            if s.variant == ContactVariant::ReflectiveImpulse {
                self.watch_impact(k, t, model, out);
                return Ok(());
            }
            self.activate(k, next, t, model, out)?;
        }
    }

    /// Puts a slab of `thickness` on `direction` (and its unit normal), centred in the gap between
    /// the supports (low, high) of pair `k` (of `kind`, its stencil at `t` in [`Self::scratch`]),
    /// and schedules its failure on the vertices' tubes (capped at the next change of a scripted
    /// velocity).
    #[allow(clippy::too_many_arguments)]
    fn schedule_slab(
        &mut self,
        k: PairId,
        kind: &PairKind,
        t: Time,
        model: &Model,
        (direction, normal): (SlabDirection, Vec3),
        (low_support, high_support): (Real, Real),
        thickness: Real,
        out: &mut Vec<Schedule>,
    ) {
        let (failure, slab) = self.slab_failure(kind, t, model, normal, (low_support, high_support), thickness);
        self.put_slab(k, direction, &slab, failure.max(t.seconds()), out);
    }

    /// Makes pair `k`'s certificate `slab` on `direction` and asks for its failure at `failure`
    /// (s; no earlier than now).
    fn put_slab(&mut self, k: PairId, direction: SlabDirection, slab: &Slab, failure: Real, out: &mut Vec<Schedule>) {
        let pair = &mut self.pairs[k];
        pair.guard = Guard::Slab;
        pair.direction = direction;
        pair.planes = StoredSlab::new(slab, failure);
        self.schedule_failure(k, failure, out);
    }

    /// When a slab of `thickness` on `normal`, centred between the supports (low, high) of a pair
    /// of `kind` (its stencil at `t` in [`Self::scratch`]), would fail on the vertices' tubes,
    /// capped at the next change of a scripted velocity (s; +∞: never), and the slab.
    fn slab_failure(
        &self,
        kind: &PairKind,
        t: Time,
        model: &Model,
        normal: Vec3,
        (low_support, high_support): (Real, Real),
        thickness: Real,
    ) -> (Real, Slab) {
        let (tubes, next_change) = self.tubes_for(&kind.vertices(), &self.scratch, t, model);
        let (low, high) = tubes.split_at(kind.low_count());
        let speed = balanced_speed(&normal, low, high);
        let slab = Slab::centred(normal, low_support, high_support, thickness, speed, t.seconds());
        (slab.failure_time(low, high).map_or(next_change, |f| f.min(next_change)), slab)
    }

    /// Where a new slab goes for a pair of `kind` measured as `proximity` (its stencil in
    /// [`Self::scratch`]): its normal joins the closest points, rounded as a stored slab keeps it,
    /// and the supporting planes of the two sides along it are measured from the vertices
    /// themselves, so the slab separates them by construction. `None` if the closest points
    /// coincide.
    fn plan_slab(&self, kind: &PairKind, proximity: &Proximity) -> Option<SlabPlan> {
        let joining = (proximity.high - proximity.low).try_normalize(0.0)?;
        let direction = SlabDirection::round(&joining);
        let normal = direction.normal();
        let (low, high) = self.scratch.split_at(kind.low_count());
        let supports = supports(&normal, low, high);
        Some(SlabPlan { direction, normal, supports, room: supports.1 - supports.0 - kind.radii() })
    }

    /// When the planned slab of layer thickness `eta` would fail (s, see [`Self::slab_failure`]),
    /// and the slab; `None` if the room between the supports does not hold it.
    fn planned_failure(
        &self,
        kind: &PairKind,
        t: Time,
        model: &Model,
        plan: &SlabPlan,
        eta: Real,
    ) -> Option<(Real, Slab)> {
        (plan.room > eta).then(|| self.slab_failure(kind, t, model, plan.normal, plan.supports, eta + kind.radii()))
    }

    /// True if a slab of layer `l`'s thickness on a pair of `kind` (measured at `t` as
    /// `proximity`, its stencil in [`Self::scratch`]) would last [`SLAB_SPAN`] periods `h` of
    /// the layer on the vertices' tubes: [`Self::certify`] then guards the layer with it, were
    /// `l` the pair's next layer. Measured before an idle layer retires, so that a retirement is
    /// not undone at once.
    pub(super) fn slab_would_last(
        &self,
        kind: &PairKind,
        proximity: &Proximity,
        t: Time,
        model: &Model,
        l: u32,
        h: Real,
    ) -> bool {
        let eta = kind.schedule(self.settings.layers).thickness(l);
        self.plan_slab(kind, proximity)
            .and_then(|plan| self.planned_failure(kind, t, model, &plan, eta))
            .is_some_and(|(failure, _)| lasts(failure, t, h))
    }

    /// [`Self::certify`] for a constraint pair: layers on while the gap is not profitable, then a
    /// rate guard for the next layer: the gap shrinks no faster than the relative speed of the
    /// two tubes, |v₀ᵦ − v₀ₐ| + 2ε.
    fn certify_rate(
        &mut self,
        k: PairId,
        t: Time,
        gap: Real,
        model: &Model,
        out: &mut Vec<Schedule>,
    ) -> Result<(), ContactError> {
        let s = self.settings;
        let kind = self.kind(k);
        loop {
            let next = self.pairs[k].layers.len() as u32 + 1;
            let thickness = kind.schedule(self.settings.layers).thickness(next);
            if gap > s.profitability * thickness {
                let [a, b] = [kind.vertices()[0], kind.vertices()[1]];
                let rate = (self.reference_velocity[b.index()] - self.reference_velocity[a.index()]).norm()
                    + 2.0 * s.tolerance;
                self.pairs[k].guard = Guard::Rate;
                let failure = if rate > 0.0 { t.seconds() + (gap - thickness) / rate } else { Real::INFINITY };
                self.schedule_failure(k, failure, out);
                return Ok(());
            }
            if s.variant == ContactVariant::ReflectiveImpulse {
                self.watch_impact(k, t, model, out);
                return Ok(());
            }
            self.activate(k, next, t, model, out)?;
        }
    }

    /// Asks the queue for pair `k`'s certificate event at `failure` (s; +∞: never); the queue
    /// keeps an event already due no later ([`Schedule::Certificate`]).
    pub(super) fn schedule_failure(&mut self, k: PairId, failure: Real, out: &mut Vec<Schedule>) {
        if failure.is_finite() {
            out.push(Schedule::Certificate(k, Time::new(failure).expect("finite failure time")));
        }
    }

    /// The tubes of `vertices` at positions `x` at `t`: free vertices within ε of their reference
    /// velocity, held ones exact; and the next time a scripted one changes velocity (+∞ if none).
    fn tubes_for(
        &self,
        vertices: &[VertexId],
        x: &[Vec3],
        t: Time,
        model: &Model,
    ) -> (SmallVec<[VagueTrajectory; 4]>, Real) {
        let mut next_change = Real::INFINITY;
        let mut tubes = SmallVec::new();
        for (&u, &x0) in vertices.iter().zip(x) {
            let (tube, change) =
                vertex_tube(model, &self.reference_velocity, self.settings.tolerance, u, x0, t.seconds());
            next_change = next_change.min(change);
            tubes.push(tube);
        }
        (tubes, next_change)
    }

    /// Re-bases pair `k`'s slab at `t` on its vertices' current tubes: the slab keeps its
    /// direction and is centred between the two sides' supports along it (which its planes still
    /// separate), its speed rebalanced, and its failure rescheduled; a full [`Self::certify`] if
    /// the supports are no longer its thickness apart. Cheaper than a new slab: no closest points.
    fn rebase(&mut self, k: PairId, t: Time, model: &Model, out: &mut Vec<Schedule>) -> Result<(), ContactError> {
        if self.pairs[k].guard != Guard::Slab {
            return self.certify(k, t, model, out);
        }
        let kind = self.kind(k);
        let pair = &self.pairs[k];
        let (direction, thickness) = (pair.direction, self.guard_thickness(&kind, pair));
        self.fill_positions(&kind, model, t);
        let normal = direction.normal();
        let (low, high) = self.scratch.split_at(kind.low_count());
        let (low_support, high_support) = supports(&normal, low, high);
        if high_support - low_support <= thickness {
            return self.certify(k, t, model, out);
        }
        self.schedule_slab(k, &kind, t, model, (direction, normal), (low_support, high_support), thickness, out);
        Ok(())
    }

    /// A stamp no pair carries: the next one, or after `u16::MAX` of them 1 again with every
    /// stamp cleared (a stamp is 2 bytes per pair; one is taken per kick that leaves a tube, and
    /// clearing every pair's once per 65 535 of them costs less than a wider stamp's bytes).
    fn next_stamp(&mut self) -> u16 {
        self.stamp = match self.stamp.checked_add(1) {
            Some(stamp) => stamp,
            None => {
                for pair in self.pairs.values_mut() {
                    pair.stamp = 0;
                }
                1
            }
        };
        self.stamp
    }

    /// After the velocities of `kicked` changed at `t`: each free vertex whose new velocity left
    /// its vague tube (‖v − v₀‖ > ε) is re-centred, and every pair it supports is re-certified
    /// (ACM §5.2–§5.3); kicks inside the tube reschedule nothing.
    pub fn after_kick(
        &mut self,
        kicked: &[VertexId],
        t: Time,
        model: &Model,
        out: &mut Vec<Schedule>,
    ) -> Result<(), ContactError> {
        let v = &model.vertices;
        // first re-centre every tube that was left, then re-certify: a pair with two kicked
        // vertices must see both new references
        let mut moved: SmallVec<[(VertexId, Vec3); 8]> = SmallVec::new();
        // |Δv|² against ε² rounded down, so no square root (whose latency was a fifth of this
        // function's time) and never a skip that |Δv| ≤ ε refuses
        let within = (self.settings.tolerance * self.settings.tolerance).next_down().max(0.0);
        for &u in kicked {
            if !v.is_free_at(u, v.t_last(u)) {
                continue;
            }
            let velocity = v.velocity(u);
            let before = self.reference_velocity[u.index()];
            if (velocity - before).norm_squared() <= within {
                self.counters.vague_skips += 1;
                continue;
            }
            self.reference_velocity[u.index()] = velocity;
            moved.push((u, before));
        }
        if moved.is_empty() {
            return Ok(());
        }
        let stamp = self.next_stamp();
        for (u, before) in moved {
            // the pairs u's stencil is in: its primitives' pairs, then its length constraints
            // (re-certifying adds and removes no pair, so the lists hold still)
            let after = self.reference_velocity[u.index()];
            let mine: SmallVec<[u32; 16]> = SmallVec::from_slice(self.broad.primitives().of_vertex(u));
            for p in mine {
                for m in 0..self.partners[p as usize].len() {
                    let k = self.partners[p as usize][m];
                    if self.slab_holds_through_the_kick(k, p, stamp, (u, &before, &after), t, model) {
                        self.counters.slab_keeps += 1;
                        continue;
                    }
                    self.recertify_once(k, stamp, t, model, out)?;
                }
            }
            for n in 0..self.lengths_of(u).len() {
                let k = self.lengths_of(u)[n];
                self.recertify_once(k, stamp, t, model, out)?;
            }
            // the broad phase's certificates on u: a grid vertex's exit, k-DOP envelopes
            let (reference, tolerance) = (&self.reference_velocity, self.settings.tolerance);
            let tube = tubes_at(model, reference, tolerance, t.seconds());
            self.broad.tube_moved(u, t.seconds(), (&reference[u.index()], tolerance), &tube, out);
        }
        Ok(())
    }

    /// True if pair `k`'s slab certificate stays valid as it is after vertex `u` (of the pair's
    /// primitive `p`) had its tube re-centred from reference velocity `before` to `after` at `t`
    /// (and this kick, `stamp`, has not re-based it already). The slab fails when a side's tube
    /// reaches its plane (ACM §5.1), so the queued failure time stays a safe (early) one, and
    /// re-basing would only find the slab anew, in either of two cases:
    /// - `u` is no faster toward the plane on its side than the tube the failure time was
    ///   computed with: starting inside the old tube, the new one reaches the plane no sooner (by
    ///   induction also when earlier kicks were let through);
    /// - `u`'s new tube, from where `u` is at `t`, stays clear of the plane until the failure time
    ///   the pair asked for (its [`crate::kds::StoredSlab`]), with no scripted change before then.
    fn slab_holds_through_the_kick(
        &self,
        k: PairId,
        p: u32,
        stamp: u16,
        (u, before, after): (VertexId, &Vec3, &Vec3),
        t: Time,
        model: &Model,
    ) -> bool {
        let pair = &self.pairs[k];
        if pair.guard != Guard::Slab || pair.stamp == stamp {
            return false;
        }
        // the first primitive is the low side (`PairKind::of_shapes`); `u` is in `p` and, since a
        // pair's primitives share no vertex, in no other
        let Between::Primitives(low, _) = pair.between.get() else {
            return false;
        };
        let normal = pair.direction.normal();
        // the low side fails moving along the normal, the high side against it
        let (side, along) = if p == low { (SlabSide::Low, normal) } else { (SlabSide::High, -normal) };
        if along.dot(after) <= along.dot(before) {
            return true;
        }
        let t = t.seconds();
        let x = model.vertices.position_at(u, t);
        let (tube, change) = vertex_tube(model, &self.reference_velocity, self.settings.tolerance, u, x, t);
        change >= pair.planes.until() && pair.planes.keeps_clear(side, normal.dot(&x), tube.max_speed_along(&along), t)
    }

    /// After a kick stamped `stamp`, re-bases pair `k`'s certificate on the new tubes, unless it
    /// has none (its layers are on) or this kick already did.
    fn recertify_once(
        &mut self,
        k: PairId,
        stamp: u16,
        t: Time,
        model: &Model,
        out: &mut Vec<Schedule>,
    ) -> Result<(), ContactError> {
        let pair = &mut self.pairs[k];
        if pair.stamp == stamp || pair.guard == Guard::None {
            return Ok(());
        }
        pair.stamp = stamp;
        self.counters.reschedules += 1;
        self.rebase(k, t, model, out)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_scenes::{requested, settings, two_spheres, two_spheres_apart};
    use super::*;
    use crate::avi::contact::settings::{BroadPhaseKind, ContactSettings};
    use crate::model::LinearPath;

    #[test]
    fn a_pair_kicked_at_both_ends_is_certified_on_both_new_velocities() {
        // both spheres are kicked toward each other in one event: the slab must account for both
        // new velocities, so the pair is still separated by it just before its failure time
        let mut model = two_spheres();
        let mut manager = ContactManager::new(&model, settings());
        manager.start(&model).unwrap();
        model.vertices.kick(VertexId(0), Vec3::x() * -2.0); // v ← v − impulse/m: +2 m/s
        model.vertices.kick(VertexId(1), Vec3::x() * 3.0); // −3 m/s
        let mut out = Vec::new();
        manager.after_kick(&[VertexId(0), VertexId(1)], Time::ZERO, &model, &mut out).unwrap();
        let failure = requested(&out).expect("the certificate was rescheduled");
        // the gap (0.8 m) minus the slab (0.05 m) closes at 5 m/s plus the tubes' 0.2 m/s
        assert!(failure <= 0.75 / 5.0 + 1e-12, "failure at {failure} s is later than the true approach");
        audit_until(&manager, &model, failure);
    }

    #[test]
    fn kicks_after_the_stamp_wraps_still_re_certify_every_pair_once() {
        let mut model = two_spheres();
        let mut manager = ContactManager::new(&model, settings());
        manager.start(&model).unwrap();
        let pair = manager.pairs.keys().next().expect("the spheres' pair");
        // the pair was re-certified by stamp 1, long ago; the next kick wraps the stamp to 1
        manager.pairs[pair].stamp = 1;
        manager.stamp = u16::MAX;
        let mut out = Vec::new();
        for (kick, stamp) in [1, 2, 3].into_iter().enumerate() {
            // both spheres leave their tubes (2 m/s more toward each other each time), so the
            // pair is reached from both spheres' primitives
            model.vertices.kick(VertexId(0), Vec3::x() * -2.0);
            model.vertices.kick(VertexId(1), Vec3::x() * 2.0);
            manager.after_kick(&[VertexId(0), VertexId(1)], Time::ZERO, &model, &mut out).unwrap();
            assert_eq!(manager.stamp, stamp);
            assert_eq!(manager.pairs[pair].stamp, stamp);
            assert_eq!(manager.reschedules(), kick as u64 + 1, "one re-certification per kick");
        }
    }

    #[test]
    fn a_kick_out_of_the_tube_reschedules_that_vertex_s_grid_certificate_only() {
        // two spheres 0.08 m apart on a hash grid: each vertex has a grid certificate
        let mut model = two_spheres_apart(0.28);
        let grid = ContactSettings { broad_phase: BroadPhaseKind::HashGrid { cell_size: None }, ..settings() };
        let mut manager = ContactManager::new(&model, grid);
        let start = manager.start(&model).unwrap();
        assert_eq!(manager.pairs.len(), 1, "the spheres are near");
        for u in [0, 1] {
            assert!(start.iter().any(|s| matches!(s, Schedule::BroadPhase(q, _) if *q == u)), "vertex {u}: {start:?}");
        }
        // sphere 0 leaves its tube (2 m/s), sphere 1 stays in it (a tenth of the tolerance)
        model.vertices.kick(VertexId(0), Vec3::x() * 2.0);
        model.vertices.kick(VertexId(1), Vec3::x() * (0.1 * manager.settings.tolerance));
        let mut out = Vec::new();
        manager.after_kick(&[VertexId(0), VertexId(1)], Time::ZERO, &model, &mut out).unwrap();
        let rescheduled: Vec<u32> =
            out.iter().filter_map(|s| if let Schedule::BroadPhase(u, _) = s { Some(*u) } else { None }).collect();
        assert_eq!(rescheduled, [0], "{out:?}");
    }

    /// The audit (every pair guarded, on the vertices' trajectories) at 101 instants from 0 to
    /// `until` (s).
    fn audit_until(manager: &ContactManager, model: &Model, until: Real) {
        for k in 0..=100 {
            let t = Time::new(until * k as Real / 100.0).unwrap();
            manager.audit(model, t).unwrap_or_else(|e| panic!("at {} s: {e}", t.seconds()));
        }
    }

    /// Changes vertex `u`'s velocity by `dv` (unit masses) and has the manager see the kick at
    /// t = 0; returns what it asks the queue for.
    fn kick_at_zero(manager: &mut ContactManager, model: &mut Model, u: u32, dv: Vec3) -> Vec<Schedule> {
        model.vertices.kick(VertexId(u), -dv);
        let mut out = Vec::new();
        manager.after_kick(&[VertexId(u)], Time::ZERO, model, &mut out).unwrap();
        out
    }

    #[test]
    fn a_kick_away_from_the_slab_keeps_its_certificate_and_one_toward_it_re_certifies() {
        let mut model = two_spheres();
        let mut manager = ContactManager::new(&model, settings());
        let queued = requested(&manager.start(&model).unwrap()).expect("the spheres' slab");
        // sphere 0 (the low side, at x = 0) leaves its tube away from sphere 1: −2 m/s
        let out = kick_at_zero(&mut manager, &mut model, 0, Vec3::x() * -2.0);
        assert!(requested(&out).is_none(), "{out:?}");
        assert_eq!((manager.slab_keeps(), manager.reschedules()), (1, 0));
        // the queued failure time is still a safe one: the slab separates them until then
        audit_until(&manager, &model, queued);
        // then toward it at +2 m/s: re-certified, failing before the spheres can meet
        let failure = requested(&kick_at_zero(&mut manager, &mut model, 0, Vec3::x() * 4.0)).expect("re-certified");
        assert_eq!((manager.slab_keeps(), manager.reschedules()), (1, 1));
        assert!(failure <= 0.75 / 2.0 + 1e-12 && failure < queued, "failure at {failure} s, queued {queued} s");
        // the high side moving along the normal moves away too
        kick_at_zero(&mut manager, &mut model, 1, Vec3::x() * 3.0);
        assert_eq!((manager.slab_keeps(), manager.reschedules()), (2, 1));
    }

    #[test]
    fn a_kick_toward_the_slab_that_the_new_tube_clears_until_the_queued_failure_keeps_the_certificate() {
        // sphere 1 is held by a script that ends at 1 s, so the slab's failure is asked for then,
        // long before sphere 0's tube (ε = 0.1 m/s) could reach its plane 0.375 m away (3.75 s)
        let mut model = two_spheres();
        let held = LinearPath { origin: Vec3::x(), velocity: Vec3::zeros(), start: 0.0, stop: 1.0 };
        model.vertices.script(VertexId(1), held);
        let mut manager = ContactManager::new(&model, settings());
        let queued = requested(&manager.start(&model).unwrap()).expect("the spheres' slab");
        assert_eq!(queued, 1.0);
        // sphere 0 leaves its tube toward sphere 1 at 0.15 m/s: the new tube, at most 0.25 m/s
        // toward the plane, reaches it at 1.5 s, after the queued failure: kept
        let out = kick_at_zero(&mut manager, &mut model, 0, Vec3::x() * 0.15);
        assert!(requested(&out).is_none(), "{out:?}");
        assert_eq!((manager.slab_keeps(), manager.reschedules()), (1, 0));
        // the slab still separates the spheres on their trajectories until the queued failure
        audit_until(&manager, &model, queued);
        // 0.3 m/s more: the tube (0.45 ± 0.1 m/s) would reach the plane at 0.68 s, before the
        // queued failure: re-based on the new tubes (the slab now moves at half sphere 0's speed
        // and fails at 1.15 s on them, so the script's end stays the failure)
        let failure = requested(&kick_at_zero(&mut manager, &mut model, 0, Vec3::x() * 0.3)).expect("re-certified");
        assert_eq!((manager.slab_keeps(), manager.reschedules()), (1, 1));
        assert!(failure <= queued, "failure at {failure} s, queued {queued} s");
        audit_until(&manager, &model, failure);
    }

    #[test]
    fn kicks_inside_the_tube_reschedule_nothing() {
        let model = two_spheres();
        let mut manager = ContactManager::new(&model, settings());
        manager.start(&model).unwrap();
        let mut nudged = model.clone();
        nudged.vertices.kick(VertexId(0), Vec3::x() * -0.05); // 0.05 m/s < ε = 0.1 m/s
        let mut out = Vec::new();
        manager.after_kick(&[VertexId(0)], Time::ZERO, &nudged, &mut out).unwrap();
        assert!(out.is_empty() && manager.vague_skips() == 1 && manager.reschedules() == 0);
    }
}
