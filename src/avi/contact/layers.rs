//! Penalty layers (ACM §4, §6; report Algorithm 3): a layer is switched on at the next multiple
//! of its period (law 4), ticks on its own clock, kicks its stencil while penetrated (biphasic
//! with restitution, Coulomb friction per impulse), and the deepest retires lazily once idle and
//! separating. Also the two broken variants of ACM §3 kept for the pogo experiment (restarted
//! clocks, reflective impulses), and the layers' energy and periods.

use super::manager::ContactManager;
use super::pair::{Between, Guard, Layers, PairKind};
use super::schedule::Schedule;
use super::settings::{ContactVariant, Restart};
use crate::contact::ContactError;
use crate::events::Clock;
use crate::ids::{PairId, VertexId};
use crate::ledger::{KickKind, Ledger};
use crate::math::{Real, Time, Vec3};
use crate::model::Model;
use smallvec::SmallVec;
use thin_vec::ThinVec;

/// What a layer event did.
#[derive(Clone, Debug)]
pub struct LayerOutcome {
    /// Index k of the tick on the layer's clock.
    pub tick: u64,
    /// The layer's period h(l), s.
    pub period: Real,
    /// True if the layer's impulse was nonzero.
    pub kicked: bool,
}

impl ContactManager {
    /// The period of layer `l` of `pair` in `model`, s.
    pub fn layer_period(&self, pair: PairId, l: u32, model: &Model) -> Real {
        let kind = self.kind(pair);
        let own = kind.schedule(self.settings.layers).period(l, Self::inverse_mass(&kind, model), self.settings.safety);
        own.min(self.layer_period_limit(&kind.vertices()))
    }

    /// The energy of every penalty layer at `positions` (all vertices at one time), J: for each
    /// pair, Σ over l with η(l) > gap of ½ r(l) (gap − η(l))² (with restitution, the compression
    /// stiffness).
    pub fn energy(&self, positions: &[Vec3]) -> Real {
        let mut x: SmallVec<[Vec3; 4]> = SmallVec::new();
        let mut total = 0.0;
        for pair in self.pairs.values().filter(|p| !p.layers.is_empty()) {
            let kind = self.kind_of(pair);
            let layers = kind.schedule(self.settings.layers);
            x.clear();
            x.extend(kind.vertices().iter().map(|u| positions[u.index()]));
            let gap = kind.measure(&x).gap;
            let mut l = 1;
            while layers.thickness(l) > gap && l < u32::MAX {
                total += layers.energy(l, gap);
                l += 1;
            }
        }
        total
    }

    /// Puts layer `l` of pair `k` on its clock: the first multiple of h(l) after `t` (report §6:
    /// activation picks the next multiple; it never restarts a clock). Under the broken
    /// [`ContactVariant::RestartedClocks`], the clock starts at the predicted contact instant.
    pub(super) fn activate(
        &mut self,
        k: PairId,
        l: u32,
        t: Time,
        model: &Model,
        out: &mut Vec<Schedule>,
    ) -> Result<(), ContactError> {
        let s = self.settings;
        let kind = self.kind(k);
        let h = kind
            .schedule(self.settings.layers)
            .checked_period(l, Self::inverse_mass(&kind, model), s.safety, t)
            .map_err(|e| ContactError::Zeno(e, Box::new(self.report(k, t, model))))?
            .min(self.layer_period_limit(&kind.vertices()));
        let mut clock = Clock::new(h);
        if s.variant == ContactVariant::RestartedClocks {
            let level = kind.schedule(self.settings.layers).thickness(l);
            let first = self.predict_contact(k, t, model, level).unwrap_or(t.seconds() + h);
            self.restarts.insert((k, l), Restart { origin: first - h, awaiting_contact: true });
        } else {
            clock.skip_to_after(t);
        }
        out.push(Schedule::Layer(k, l, self.tick_time(k, l, &clock, clock.ticks() + 1)));
        let pair = &mut self.pairs[k];
        pair.layers.push(clock);
        pair.guard = Guard::None;
        self.counters.deepest_layer = self.counters.deepest_layer.max(l);
        Ok(())
    }

    /// When pair `k`'s gap reaches `level` if its stencil keeps its current velocities from `t`
    /// (Newton's method on the gap along the linear trajectories; exact for a vertex against a
    /// static plane); `None` if it does not approach. Used only by the broken variants.
    fn predict_contact(&self, k: PairId, t: Time, model: &Model, level: Real) -> Option<Real> {
        let v = &model.vertices;
        let kind = self.kind(k);
        let vertices = kind.vertices();
        let mut at = t.seconds();
        let mut x: SmallVec<[Vec3; 4]> = SmallVec::new();
        for iteration in 0..16 {
            x.clear();
            x.extend(vertices.iter().map(|&u| v.position_at(u, at)));
            let proximity = kind.measure(&x);
            let rate: Real = vertices.iter().zip(&proximity.gradient).map(|(&u, g)| g.dot(&v.velocity_at(u, at))).sum();
            let miss = proximity.gap - level;
            if rate >= 0.0 {
                // separating now, or the closest approach stays above the level
                return if iteration == 0 { None } else { Some(at) };
            }
            if miss <= 1e-12 * level {
                return Some(at);
            }
            at += miss / -rate;
        }
        Some(at)
    }

    /// [`ContactVariant::ReflectiveImpulse`]: pair `k` is near η(1); ask for its impact check at
    /// the predicted instant, or poll again after h(1) while it does not approach.
    pub(super) fn watch_impact(&mut self, k: PairId, t: Time, model: &Model, out: &mut Vec<Schedule>) {
        let level = self.kind(k).schedule(self.settings.layers).thickness(1);
        self.pairs[k].guard = Guard::Impact;
        match self.predict_contact(k, t, model, level) {
            Some(at) => out.push(Schedule::Impact(k, Time::new(at.max(t.seconds())).expect("finite"))),
            None => {
                let poll = t.seconds() + self.layer_period(k, 1, model);
                self.schedule_failure(k, poll, out);
            }
        }
    }

    /// [`ContactVariant::ReflectiveImpulse`]: pair `k`'s impact check at `t`. If the gap has
    /// reached η(1) while approaching, an elastic impulse along the gap gradient reverses the rate
    /// at which the gap closes (momentum and kinetic energy kept at that instant); then the pair is
    /// certified again (a new prediction, a poll, or a slab).
    fn impact_tick(
        &mut self,
        k: PairId,
        t: Time,
        model: &mut Model,
        out: &mut Vec<Schedule>,
    ) -> Result<bool, ContactError> {
        let kind = self.kind(k);
        let vertices = kind.vertices();
        for &u in &vertices {
            model.vertices.drift_to(u, t.seconds());
        }
        let proximity = self.measure_at(&kind, model, t);
        let v = &mut model.vertices;
        let rate: Real = vertices.iter().zip(&proximity.gradient).map(|(&u, g)| g.dot(&v.velocity(u))).sum();
        let reached = proximity.gap <= kind.schedule(self.settings.layers).thickness(1) * (1.0 + 1e-9);
        let weight: Real =
            vertices.iter().zip(&proximity.gradient).map(|(&u, g)| g.norm_squared() / v.effective_mass(u)).sum();
        let kicked = reached && rate < 0.0 && weight > 0.0;
        if kicked {
            // Δv_u = λ ∇_u d / m_u with λ = −2 ḋ / Σ |∇_u d|²/m_u, so ḋ ← −ḋ
            let lambda = -2.0 * rate / weight;
            for (&u, g) in vertices.iter().zip(&proximity.gradient) {
                v.kick(u, -g * lambda);
            }
        }
        self.pairs[k].guard = Guard::None;
        self.certify(k, t, model, out)?;
        Ok(kicked)
    }

    /// A tick of layer `l` of `pair` at `t` (report Algorithm 3): measure the stencil at `t`; if the
    /// layer is penetrated, drift the stencil to `t` and kick it with −h(l)·c·r(l)·g·∇d (and
    /// friction); retire the deepest layer when its impulse was zero and the pair is separating
    /// with room for a slab. Returns what happened and pushes the next tick (if the layer stays
    /// active) to `out`. A tick that does not kick changes no vertex: not even the round-off of a
    /// drift split in two depends on which idle ticks a broad phase happens to schedule (law 5).
    pub fn layer_tick(
        &mut self,
        pair: PairId,
        l: u32,
        t: Time,
        model: &mut Model,
        out: &mut Vec<Schedule>,
    ) -> Result<LayerOutcome, ContactError> {
        let s = self.settings;
        let k = pair;
        if s.variant == ContactVariant::ReflectiveImpulse {
            let kicked = self.impact_tick(k, t, model, out)?;
            return Ok(LayerOutcome { tick: 0, period: 0.0, kicked });
        }
        let kind = self.kind(k);
        let vertices = kind.vertices();
        let layers = kind.schedule(self.settings.layers);
        let proximity = self.measure_at(&kind, model, t);
        let clock = &mut self.pairs[k].layers[l as usize - 1];
        let tick = clock.advance();
        let clock = *clock;
        debug_assert_eq!(self.tick_time(k, l, &clock, tick), t, "law 4: a layer event off its clock");
        let h = clock.period();
        let mut next_tick = self.tick_time(k, l, &clock, tick + 1);
        let v = &mut model.vertices;
        // the rate the gap arrived at t with, before any kick at t: the biphasic stiffness, the
        // friction direction and the retirement below then do not depend on the order of
        // simultaneous events (law 8), which differs between broad phases (law 5)
        let gap_rate: Real =
            vertices.iter().zip(&proximity.gradient).map(|(&u, g)| g.dot(&v.arrival_velocity_at(u, t.seconds()))).sum();
        let g = proximity.gap - layers.thickness(l);
        let penetrated = g < 0.0;
        // biphasic layer (ACM §6.2): full stiffness while compressing, e·r(l) while separating;
        // a bar's compression barrier is part of its elastic material and keeps it all
        let crush = matches!(kind, PairKind::Crush { .. });
        let c = if gap_rate > 0.0 && !crush { s.restitution } else { 1.0 };
        // a perfectly inelastic layer withholds all of its impulse from a separating pair (and
        // friction, bounded by the normal impulse, is zero): no vertex moves, so nothing needs
        // rescheduling; only the withheld impulse's work is booked
        let withheld_entirely = penetrated && c == 0.0;
        if withheld_entirely {
            let full_impulse = h * layers.stiffness(l) * g;
            for (&u, gu) in vertices.iter().zip(&proximity.gradient) {
                self.ledger.withhold(v, u, gu * full_impulse, t.seconds());
            }
        }
        let kicked = penetrated && !withheld_entirely;
        if kicked {
            // the positions measured are where the drift takes the stencil
            for &u in &vertices {
                v.drift_to(u, t.seconds());
            }
            let normal_impulse = match layers {
                Layers::Crush(bar) => h * bar.slope(l, proximity.gap),
                Layers::Penalty(_) => h * c * layers.stiffness(l) * g, // ≤ 0: pushes apart
            };
            let ledger = &mut self.ledger;
            if c == 1.0 {
                for (&u, gu) in vertices.iter().zip(&proximity.gradient) {
                    ledger.kick(v, u, gu * normal_impulse, t.seconds(), KickKind::Conservative);
                }
            } else {
                // what restitution withholds from the layer's full impulse is dissipated
                let full_impulse = h * layers.stiffness(l) * g;
                for (&u, gu) in vertices.iter().zip(&proximity.gradient) {
                    ledger.kick_restituted(v, u, gu * normal_impulse, gu * full_impulse, t.seconds());
                }
            }
            if s.friction > 0.0 && !matches!(kind, PairKind::EdgeLength { .. } | PairKind::Crush { .. }) {
                let normal = (proximity.high - proximity.low).try_normalize(0.0).unwrap_or_else(Vec3::zeros);
                let limit = s.friction * normal_impulse.abs();
                apply_friction(&vertices, &proximity.gradient, normal, limit, t.seconds(), v, ledger);
            }
        }
        // lazy deactivation of the deepest layer (ACM §5.1): zero impulse, and either ACM's
        // clause (b), separating with room for a profitable slab, or (on a pair a slab can guard)
        // a slab of this layer's thickness that would hold the pair out of it for SLAB_SPAN of
        // its ticks. Deactivation "is safe by clause (a) alone" and an idle tick moves nothing,
        // so retiring changes no trajectory
        let deepest = l as usize == self.pairs[k].layers.len();
        let slab_guarded = s.variant == ContactVariant::RegularLayers
            && !matches!(kind, PairKind::EdgeLength { .. } | PairKind::Crush { .. });
        let retire = deepest
            && !penetrated
            && (gap_rate > 0.0 && proximity.gap > s.profitability * layers.thickness(l)
                || slab_guarded && self.slab_would_last(&kind, &proximity, t, model, l, h));
        if retire {
            self.pairs[k].layers.pop();
            if s.variant == ContactVariant::RestartedClocks {
                self.restarts.remove(&(k, l));
            }
            let p = &mut self.pairs[k];
            if p.layers.is_empty() {
                // free the allocation: most pairs touch once, and a pair keeps its record long after
                p.layers = ThinVec::new();
            }
            p.guard = Guard::None;
            let gone = p.layers.is_empty()
                && matches!(p.between.get(), Between::Primitives(a, b) if !self.broad.overlap(a, b));
            if gone {
                self.remove_pair(k, out);
            } else {
                self.certify(k, t, model, out)?;
            }
        } else {
            let awaiting = s.variant == ContactVariant::RestartedClocks
                && self.restarts.get(&(k, l)).is_some_and(|r| r.awaiting_contact);
            if awaiting {
                // the broken RestartedClocks variant: restart the clock at the predicted contact
                // until the layer first pushes
                if kicked {
                    if let Some(restart) = self.restarts.get_mut(&(k, l)) {
                        restart.awaiting_contact = false;
                    }
                } else if let Some(at) = self.predict_contact(k, t, model, layers.thickness(l)) {
                    if at < next_tick.seconds() {
                        // at the contact level now: this tick is the restarted clock's first
                        let first = if at <= t.seconds() { t.seconds() + h } else { at };
                        self.pairs[k].layers[l as usize - 1] = Clock::new(h);
                        self.restarts.insert((k, l), Restart { origin: first - h, awaiting_contact: true });
                        next_tick = Time::new(first).expect("a finite tick time");
                    }
                }
            }
            out.push(Schedule::Layer(pair, l, next_tick));
        }
        Ok(LayerOutcome { tick, period: h, kicked })
    }
}

/// Coulomb friction with an impulse of magnitude `limit` against the relative tangential velocity
/// of the closest points (ACM §6.3), split over the stencil like the normal impulse, so linear
/// momentum is kept exactly. The relative velocity is the one the stencil arrived with, before any
/// kick at this instant ([`crate::model::Vertices::arrival_velocity`]), so simultaneous friction
/// impulses commute (law 8). Its work is booked in `ledger` as dissipated.
fn apply_friction(
    vertices: &[VertexId],
    gradient: &[Vec3],
    normal: Vec3,
    limit: Real,
    t: Real,
    v: &mut crate::model::Vertices,
    ledger: &mut Ledger,
) {
    // signed weights s_u: ∇_u d = s_u · n
    let weights: SmallVec<[Real; 4]> = gradient.iter().map(|g| g.dot(&normal)).collect();
    let relative: Vec3 = vertices.iter().zip(&weights).map(|(&u, s)| v.arrival_velocity(u) * *s).sum();
    let tangential = relative - normal * normal.dot(&relative);
    let Some(direction) = tangential.try_normalize(1e-300) else { return };
    for (&u, s) in vertices.iter().zip(&weights) {
        ledger.kick(v, u, direction * (limit * s), t, KickKind::Dissipative);
    }
}

#[cfg(test)]
mod tests {
    use super::super::settings::ContactSettings;
    use super::super::test_scenes::{requested, settings, two_spheres_apart};
    use super::*;

    /// The shared settings with tubes so wide (ε = 1 m/s) that a slab in a gap within the
    /// profitability margin fails within a tick of layer 1: such a pair switches layer 1 on.
    fn wide_tubes() -> ContactSettings {
        ContactSettings { tolerance: 1.0, ..settings() }
    }

    /// The pair and time of the first layer-1 tick that starting the manager scheduled.
    fn first_tick_of_layer_1(out: &[Schedule]) -> (PairId, Time) {
        out.iter()
            .find_map(|s| match *s {
                Schedule::Layer(k, 1, at) => Some((k, at)),
                _ => None,
            })
            .expect("layer 1 started")
    }

    #[test]
    fn a_layer_tick_that_does_not_push_moves_no_vertex() {
        // spheres at rest, 0.053 m apart: within the profitability margin of η(1) = 0.05 m, and
        // tubes so wide (ε = 1 m/s) that a slab there would fail within a tick, so layer 1 starts
        // at once, but its ticks do not push. An idle tick only measures: the vertices keep their
        // time and position, so which idle ticks a broad phase schedules cannot change the
        // round-off of the trajectory (law 5)
        let mut model = two_spheres_apart(0.253);
        let mut manager = ContactManager::new(&model, wide_tubes());
        let (k, at) = first_tick_of_layer_1(&manager.start(&model).unwrap());
        let before: Vec<(Vec3, Real)> =
            (0..2).map(|i| (model.vertices.position(VertexId(i)), model.vertices.t_last(VertexId(i)))).collect();
        let outcome = manager.layer_tick(k, 1, at, &mut model, &mut Vec::new()).unwrap();
        assert!(!outcome.kicked, "the layer is not penetrated");
        let after: Vec<(Vec3, Real)> =
            (0..2).map(|i| (model.vertices.position(VertexId(i)), model.vertices.t_last(VertexId(i)))).collect();
        assert_eq!(before, after, "an idle tick drifted its stencil");
    }

    #[test]
    fn a_perfectly_inelastic_layer_lets_a_separating_pair_go_untouched_and_books_the_withheld_work() {
        // layer 1 (η = 0.05 m) of two spheres started 0.053 m apart; at its first tick the second
        // sphere is 0.04 m off (inside the layer) moving away at 0.3 m/s. Restitution 0 withholds
        // the whole impulse: no kick, so nothing to reschedule, and no drift (law 5), while the
        // ledger books the work −I·v of the impulse I withheld
        let mut model = two_spheres_apart(0.253);
        let mut manager = ContactManager::new(&model, ContactSettings { restitution: 0.0, ..wide_tubes() });
        let (k, at) = first_tick_of_layer_1(&manager.start(&model).unwrap());
        let speed = 0.3;
        model.vertices.set_synchronous_state(VertexId(1), Vec3::new(0.24, 0.0, 0.0), Vec3::x() * speed, at.seconds());
        let state = |model: &Model| -> Vec<(Vec3, Vec3, Real)> {
            (0..2)
                .map(|i| {
                    let u = VertexId(i);
                    (model.vertices.position(u), model.vertices.velocity(u), model.vertices.t_last(u))
                })
                .collect()
        };
        let before = state(&model);
        let outcome = manager.layer_tick(k, 1, at, &mut model, &mut Vec::new()).unwrap();
        assert!(!outcome.kicked, "a withheld impulse is no kick");
        assert_eq!(state(&model), before, "a withheld impulse moved its stencil");
        // the layer's full impulse on the moving sphere, h·r(1)·(gap − η) along −x (< 0: it
        // pushes apart), has work I·v against its velocity; the ledger books its negative
        let full = outcome.period * 100.0 * (0.04 - 0.05);
        let booked = manager.ledger().dissipated;
        assert!(full < 0.0 && (booked + full * speed).abs() <= 1e-15, "booked {booked}, expected {}", -full * speed);
    }

    #[test]
    fn an_idle_layer_retires_while_its_pair_approaches_when_a_slab_would_hold_it_out() {
        // spheres 0.053 m apart, just inside the profitability margin of η(1) = 0.05 m, with tubes
        // of ε = 0.05 m/s: a slab of η(1) there lasts 0.03 s, about four periods of layer 1, so
        // the pair starts with a slab and no layer
        let mut model = two_spheres_apart(0.253);
        let mut manager = ContactManager::new(&model, ContactSettings { tolerance: 0.05, ..settings() });
        let out = manager.start(&model).unwrap();
        assert!(!out.iter().any(|s| matches!(s, Schedule::Layer(..))), "a lasting slab switches no layer on");
        let k = out
            .iter()
            .find_map(|s| match *s {
                Schedule::Certificate(k, _) => Some(k),
                _ => None,
            })
            .expect("a slab");
        // layer 1 switched on (as after an earlier slab failed), and the second sphere now creeps
        // toward the first at 0.01 m/s, inside its tube: ACM's clause (b) would keep the idle
        // layer ticking; its first tick retires it, as the slab it re-certifies with will hold
        let mut requests = Vec::new();
        manager.activate(k, 1, Time::new(0.0).unwrap(), &model, &mut requests).unwrap();
        let (_, at) = first_tick_of_layer_1(&requests);
        let x = model.vertices.position_at(VertexId(1), at.seconds());
        model.vertices.set_synchronous_state(VertexId(1), x, -Vec3::x() * 0.01, at.seconds());
        let mut out = Vec::new();
        let outcome = manager.layer_tick(k, 1, at, &mut model, &mut out).unwrap();
        assert!(!outcome.kicked, "the layer is not penetrated");
        assert!(manager.pairs[k].layers.is_empty(), "the idle layer retired");
        assert!(!out.iter().any(|s| matches!(s, Schedule::Layer(..))), "its clock was not put back");
        let failure = requested(&out).expect("a slab guards the pair again");
        assert!(failure >= at.seconds() + 2.0 * outcome.period, "the slab lasts two ticks: fails at {failure}");
    }

    #[test]
    fn a_zeno_stop_names_the_pair_its_bodies_positions_and_speeds() {
        let mut model = two_spheres_apart(0.253);
        model.vertices.set_velocity(VertexId(1), Vec3::new(0.0, 0.0, 5.0));
        let mut manager = ContactManager::new(&model, wide_tubes());
        let out = manager.start(&model).unwrap();
        let k = out
            .iter()
            .find_map(|s| match *s {
                Schedule::Layer(k, _, _) => Some(k),
                _ => None,
            })
            .expect("a pair");
        let t = Time::new(0.5).unwrap();
        let e = manager.activate(k, 1_000_000_000, t, &model, &mut Vec::new()).unwrap_err();
        let ContactError::Zeno(zeno, pair) = &e else { panic!("{e:?}") };
        assert_eq!(zeno.layer, 1_000_000_000);
        assert_eq!((pair.primitives, pair.vertices.len()), ("sphere–sphere", 2));
        assert_eq!((pair.vertices[1].body.as_str(), pair.vertices[1].local, pair.vertices[1].speed), ("s", 1, 5.0));
        // at t = 0.5 s the moving sphere is 2.5 m up
        assert_eq!(pair.vertices[1].position, Vec3::new(0.253, 0.0, 2.5));
        assert!((pair.gap - ((0.253f64.powi(2) + 6.25).sqrt() - 0.2)).abs() < 1e-12);
        let message = e.to_string();
        assert!(message.contains("penalty layer 1000000000 would tick every"), "{message}");
        assert!(message.contains("The pair is sphere–sphere at gap 2.3"), "{message}");
        assert!(
            message.contains(
                ": sphere vertex 0 of body \"s\" (global 0) at (0, 0, 0) m moving 0.000e0 m/s; sphere vertex 1 of \
                 body \"s\" (global 1) at (0.253, 0, 2.5) m moving 5.000e0 m/s"
            ),
            "{message}"
        );
    }
}
