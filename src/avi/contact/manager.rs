//! The contact manager: its state, its start, and the plumbing of pairs (made, found, removed)
//! as the broad phase gains and loses them. Certification, layers, the audit and the bookkeeping
//! are its other files' (see the module docs of [`super`]).
//!
//! Pairs: vertex–triangle and edge–edge between triangulated bodies (self-contact included, pairs
//! sharing a vertex excluded), chain points and segments, particle–particle and particle–triangle,
//! and the two length constraints of each inextensible edge (ACM §7). The broad phase is all
//! pairs (every candidate pair holds a certificate). Per pair, layers 1..=n are active, each on
//! its own regular clock ticking at multiples of h(l) from t = 0 (law 4), and one certificate, a
//! slab of thickness η(n + 1) (a rate guard for constraints), proves layer n + 1 and all deeper
//! ones inactive. Each free vertex has a vague tube, its velocity within ε of a reference; a kick
//! that leaves the tube re-centres it and re-certifies the pairs its stencil is in: those of the
//! primitives it belongs to, and its length constraints (ACM §5.2–§5.3's support lists).
//! Certificates only remove ticks whose impulse is zero, so they change the cost, never the
//! trajectory (law 5). See `docs/contact.md`.
use super::bookkeeping::{thin_vec_bytes, BookkeepingBytes, ContactCounters};
use super::broad_phase::BroadPhase;
use super::pair::{Between, Guard, PackedBetween, Pair, PairKind};
use super::pair_store::PairStore;
use super::schedule::Schedule;
use super::settings::{ContactSettings, ContactVariant, Restart};
use super::tube::tubes_at;
use crate::contact::{BroadPhaseStall, ContactError, PairReport, StartError, VertexReport};
use crate::events::Clock;
use crate::ids::{PairId, VertexId};
use crate::kds::hash_grid::FixedHashMap;
use crate::kds::{SlabDirection, StoredSlab};
use crate::ledger::Ledger;
use crate::math::{Real, Time, Vec3};
use crate::mesh::edges;
use crate::model::{BodyKind, Model, Motion};
use crate::observe::ContactFrameStats;
use crate::potential::CompressionBarrier;
use smallvec::SmallVec;
use thin_vec::ThinVec;

/// Penalty layers and certificates of every contact pair (report Algorithms 2–5).
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub struct ContactManager {
    pub(super) settings: ContactSettings,
    pub(super) pairs: PairStore<Pair>,
    /// Primitives and the structure that decides which of their pairs exist.
    pub(super) broad: BroadPhase,
    /// For each primitive, its pairs by handle (the other primitive is in the pair's record; a
    /// thin vector: most primitives touch nothing). A vertex's pairs are those of its primitives, each found once
    /// (the two sides of a pair share no vertex); a pair is found from either of its primitives.
    pub(super) partners: Vec<ThinVec<PairId>>,
    /// The length constraints of inextensible edges ([`Between::Length`]).
    pub(super) lengths: Vec<PairKind>,
    /// What is counted over the run (pairs made and removed, peaks, deepest layer, …).
    pub(super) counters: ContactCounters,
    /// The energy friction takes out and scripted vertices put in through contact kicks.
    pub(super) ledger: Ledger,
    /// The length constraints on each vertex: vertex `u`'s are
    /// `lengths_of_vertex[first_length[u]..first_length[u + 1]]` (both empty without inextensible
    /// bodies). Made at the start, they live the whole run.
    pub(super) lengths_of_vertex: Vec<PairId>,
    pub(super) first_length: Vec<u32>,
    /// For each vertex, the centre v₀ of its vague tube (ACM §5.3): certificates assume its
    /// velocity stays within ε of v₀; a kick that leaves the tube re-centres it and re-certifies
    /// the vertex's pairs.
    pub(super) reference_velocity: Vec<Vec3>,
    /// Stamp of the last kick that left a tube ([`ContactManager::after_kick`]); pairs it
    /// re-certified carry it. Wraps to 1 after `u16::MAX`, clearing every stamp.
    pub(super) stamp: u16,
    /// [`ContactVariant::RestartedClocks`] only: the restarted layers (pair, l).
    pub(super) restarts: FixedHashMap<(PairId, u32), Restart>,
    /// The stencil of the pair being measured (reused).
    pub(super) scratch: Vec<Vec3>,
    /// Per vertex, the longest clock period a penalty layer on it may take (empty: no limit);
    /// set by the engine from its elastic clocks ([`ContactManager::limit_layer_periods`]), not
    /// saved in checkpoints (the scene gives it again).
    #[serde(skip)]
    pub(super) layer_period_limit: Vec<Real>,
}
impl ContactManager {
    /// The contact pairs of `model` at the start: those the broad phase asks for among
    /// vertex–triangle and edge–edge pairs of triangulated bodies and chains, sphere–sphere and
    /// sphere–triangle pairs (never sharing a vertex, never both unable to move), plus two length
    /// constraints per edge of an inextensible body.
    pub fn new(model: &Model, settings: ContactSettings) -> Self {
        Self::with_barriers(model, settings, &[])
    }

    /// [`new`](Self::new), plus a length pair for each bar's compression barrier in `barriers`
    /// (split off its bar by [`crate::potential::Potential::split_compression_barrier`]), whose
    /// layers carry the bar's stiffening below the knee.
    pub fn with_barriers(model: &Model, settings: ContactSettings, barriers: &[CompressionBarrier]) -> Self {
        let v = &model.vertices;
        let held = |u: VertexId| !matches!(v.motion_at(u, 0.0), Motion::Free);
        let broad = BroadPhase::new(
            model,
            settings.broad_phase,
            settings.reach(),
            settings.tolerance,
            settings.broad_phase_slack,
        );
        let mut manager = ContactManager {
            settings,
            pairs: PairStore::default(),
            partners: vec![ThinVec::new(); broad.primitives().len()],
            lengths: Vec::new(),
            broad,
            counters: ContactCounters::default(),
            ledger: Ledger::default(),
            lengths_of_vertex: Vec::new(),
            first_length: Vec::new(),
            reference_velocity: v.velocities().to_vec(),
            stamp: 0,
            restarts: FixedHashMap::default(),
            scratch: Vec::new(),
            layer_period_limit: Vec::new(),
        };
        for (i, j) in manager.broad.initial_pairs() {
            manager.insert_pair(Between::Primitives(i, j));
        }
        let mut on_vertex: Vec<(VertexId, PairId)> = Vec::new();
        // inextensible edges (ACM §7): two constraint pairs per edge, at its initial length
        for body in model.bodies.values() {
            let Some(slack) = body.inextensibility else { continue };
            let body_edges = match &body.kind {
                BodyKind::Chain { edges } => edges.clone(),
                kind => edges(kind.triangles()),
            };
            for e in body_edges {
                let (a, b) = (VertexId(body.vertices.start + e[0]), VertexId(body.vertices.start + e[1]));
                if held(a) && held(b) {
                    continue;
                }
                let rest = (v.position(b) - v.position(a)).norm();
                for stretch in [true, false] {
                    let kind = PairKind::EdgeLength { a, b, rest, slack, stretch };
                    let e = manager.lengths.len() as u32;
                    manager.lengths.push(kind);
                    let k = manager.insert_pair(Between::Length(e));
                    on_vertex.extend([(a, k), (b, k)]);
                }
            }
        }
        // crushed bars: one length pair per bar, on the bar's own layers
        for &bar in barriers {
            if held(bar.a) && held(bar.b) {
                continue;
            }
            let e = manager.lengths.len() as u32;
            manager.lengths.push(PairKind::Crush { bar });
            let k = manager.insert_pair(Between::Length(e));
            on_vertex.extend([(bar.a, k), (bar.b, k)]);
        }
        if !on_vertex.is_empty() {
            on_vertex.sort_by_key(|&(u, _)| u.0); // stable: each vertex's in the order made
            manager.first_length =
                (0..=v.len()).map(|u| on_vertex.partition_point(|(w, _)| w.index() < u) as u32).collect();
            manager.lengths_of_vertex = on_vertex.into_iter().map(|(_, k)| k).collect();
        }
        manager
    }

    /// The length constraints on vertex `u`.
    pub(super) fn lengths_of(&self, u: VertexId) -> &[PairId] {
        match self.first_length.get(u.index()..u.index() + 2) {
            Some(&[first, end]) => &self.lengths_of_vertex[first as usize..end as usize],
            _ => &[],
        }
    }

    /// The pair of primitives `i` and `j`, if they have one.
    pub(super) fn pair_between(&self, i: u32, j: u32) -> Option<PairId> {
        let between = PackedBetween::new(Between::Primitives(i.min(j), i.max(j)));
        self.partners[i as usize].iter().copied().find(|&k| self.pairs[k].between == between)
    }

    /// Adds a pair (no layers, no certificate yet) to the pair list and, between primitives, to
    /// their partner lists.
    pub(super) fn insert_pair(&mut self, between: Between) -> PairId {
        let k = self.pairs.insert(Pair {
            between: PackedBetween::new(between),
            stamp: 0,
            guard: Guard::None,
            layers: ThinVec::new(),
            direction: SlabDirection::default(),
            planes: StoredSlab::default(),
        });
        if let Between::Primitives(i, j) = between {
            self.partners[i as usize].push(k);
            self.partners[j as usize].push(k);
        }
        self.counters.peak_pairs = self.counters.peak_pairs.max(self.pairs.len());
        k
    }

    /// Pair `k` at `t` as a failure names it: its primitives, gap, and every vertex's body,
    /// position and speed.
    pub(super) fn report(&self, k: PairId, t: Time, model: &Model) -> PairReport {
        let kind = self.kind(k);
        let vertices = kind.vertices();
        let x: SmallVec<[Vec3; 4]> = vertices.iter().map(|&u| model.vertices.position_at(u, t.seconds())).collect();
        let vertices = vertices
            .iter()
            .zip(&x)
            .zip(kind.roles())
            .map(|((&u, &position), &role)| {
                let body = model.bodies.values().find(|b| b.vertices.contains(&u.0));
                VertexReport {
                    role,
                    body: body.map_or_else(String::new, |b| b.name.clone()),
                    local: body.map_or(u.0, |b| u.0 - b.vertices.start),
                    global: u.0,
                    position,
                    speed: model.vertices.velocity(u).norm(),
                }
            })
            .collect();
        PairReport { primitives: kind.name(), gap: kind.measure(&x).gap, vertices }
    }

    /// The kind of pair `k`.
    pub(super) fn kind(&self, k: PairId) -> PairKind {
        self.kind_of(&self.pairs[k])
    }

    /// The kind of a pair record.
    pub(super) fn kind_of(&self, pair: &Pair) -> PairKind {
        match pair.between.get() {
            Between::Primitives(i, j) => self.broad.primitives().kind_of_pair(i, j),
            Between::Length(e) => self.lengths[e as usize],
        }
    }

    /// The time of tick `tick` of layer `l` of pair `k` on `clock` (its clock): a multiple of
    /// h(l), shifted only under the broken [`ContactVariant::RestartedClocks`].
    pub(super) fn tick_time(&self, k: PairId, l: u32, clock: &Clock, tick: u64) -> Time {
        let on_clock = clock.time_of(tick);
        if self.settings.variant != ContactVariant::RestartedClocks {
            return on_clock;
        }
        match self.restarts.get(&(k, l)) {
            None => on_clock,
            Some(restart) => Time::new(restart.origin + on_clock.seconds()).expect("a finite tick time"),
        }
    }

    /// The thickness of `pair`'s guard (of `kind`): η(n + 1) for its n active layers, plus radii.
    pub(super) fn guard_thickness(&self, kind: &PairKind, pair: &Pair) -> Real {
        kind.schedule(self.settings.layers).thickness(pair.layers.len() as u32 + 1) + kind.radii()
    }

    /// Caps the clock period of every penalty layer at the smallest of `limits` over its pair's
    /// vertices (one entry per vertex, s): no layer ticks more than twice as slowly as the fastest
    /// elastic clock on its vertices, so that it does not kick their fast modes as a slow force of
    /// multiple time stepping (docs/contact.md, "Layer clocks and elastic clocks").
    pub fn limit_layer_periods(&mut self, limits: Vec<Real>) {
        self.layer_period_limit = limits;
    }

    /// The longest period a layer of a pair with these vertices may take (`INFINITY`: no limit).
    pub(super) fn layer_period_limit(&self, vertices: &[VertexId]) -> Real {
        match self.layer_period_limit.is_empty() {
            true => Real::INFINITY,
            false => vertices.iter().map(|u| self.layer_period_limit[u.index()]).fold(Real::INFINITY, Real::min),
        }
    }

    /// Σ 1/m over the stencil of `kind` (held and scripted vertices count 0), for layer periods.
    pub(super) fn inverse_mass(kind: &PairKind, model: &Model) -> Real {
        kind.vertices().iter().map(|&u| 1.0 / model.vertices.effective_mass(u)).sum()
    }

    /// Removes pair `k` (it has no active layer) and asks the queue to drop its certificate.
    pub(super) fn remove_pair(&mut self, k: PairId, out: &mut Vec<Schedule>) {
        let pair = self.pairs.remove(k).expect("a live pair");
        debug_assert!(pair.layers.is_empty(), "a pair with active layers is never removed");
        if let Between::Primitives(i, j) = pair.between.get() {
            for p in [i, j] {
                let list = &mut self.partners[p as usize];
                if let Some(at) = list.iter().position(|&q| q == k) {
                    list.swap_remove(at);
                }
                // give back what a crowded moment left: an empty list frees its allocation, and a
                // list keeps at most four times its length
                if list.is_empty() {
                    *list = ThinVec::new();
                } else if list.capacity() > 4 * list.len().max(4) {
                    list.shrink_to_fit();
                }
            }
        }
        self.counters.pairs_removed += 1;
        out.push(Schedule::Forget(k));
    }
    /// The settings.
    pub fn settings(&self) -> &ContactSettings {
        &self.settings
    }

    /// Number of live pairs (each holds a certificate or layers).
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }

    /// Most pairs alive at once.
    pub fn peak_pair_count(&self) -> usize {
        self.counters.peak_pairs
    }

    /// Pairs the broad phase made after the start, and removed.
    pub fn pairs_created_and_removed(&self) -> (u64, u64) {
        (self.counters.pairs_created, self.counters.pairs_removed)
    }

    /// Heap bytes of the contact bookkeeping now: pairs with their layers, partner lists, vague
    /// tubes, primitives and the grid (an estimate from capacities and element sizes; issue 4's
    /// memory goal is per vertex of the model). The event queue's contact entries, which the
    /// engine holds, are added by [`Self::note_memory`].
    pub fn bookkeeping_bytes(&self) -> usize {
        self.bookkeeping_parts().total()
    }

    /// [`Self::bookkeeping_bytes`] by part.
    pub fn bookkeeping_parts(&self) -> BookkeepingBytes {
        let (primitives, structure) = self.broad.heap_bytes();
        BookkeepingBytes {
            pair_records: self.pairs.capacity() * PairStore::<Pair>::SLOT_BYTES,
            layer_clocks: self.pairs.values().map(|p| thin_vec_bytes(&p.layers)).sum::<usize>()
                + self.restarts.capacity() * (std::mem::size_of::<((PairId, u32), Restart)>() + 1),
            partner_lists: self.partners.capacity() * std::mem::size_of::<ThinVec<PairId>>()
                + self.partners.iter().map(thin_vec_bytes).sum::<usize>()
                + (self.lengths_of_vertex.capacity() + self.first_length.capacity()) * 4,
            vague_tubes: self.reference_velocity.capacity() * std::mem::size_of::<Vec3>(),
            primitives,
            broad_phase: structure,
            queued_events: 0,
        }
    }

    /// What is alive now: pairs, active layers, k-DOP front records, occupied cells and the
    /// bookkeeping's estimated bytes (one row of `contact.csv`).
    pub fn frame_stats(&self) -> ContactFrameStats {
        self.stats_with(self.bookkeeping_bytes())
    }

    fn stats_with(&self, bookkeeping_bytes: usize) -> ContactFrameStats {
        ContactFrameStats {
            pairs: self.pairs.len(),
            layers: self.pairs.values().map(|p| p.layers.len()).sum(),
            kdop_records: self.broad.front_records(),
            occupied_cells: self.broad.occupied_cells(),
            bookkeeping_bytes,
        }
    }

    /// [`Self::frame_stats`], with `queued_bytes` (the event queue's contact entries) as a part,
    /// recorded toward [`Self::peak_bookkeeping_bytes`] (the engine calls it at every frame).
    pub fn note_memory(&mut self, queued_bytes: usize) -> ContactFrameStats {
        let parts = BookkeepingBytes { queued_events: queued_bytes, ..self.bookkeeping_parts() };
        if parts.total() > self.counters.peak_bytes.total() {
            self.counters.peak_bytes = parts;
        }
        self.stats_with(parts.total())
    }

    /// The largest bookkeeping size recorded, bytes.
    pub fn peak_bookkeeping_bytes(&self) -> usize {
        self.counters.peak_bytes.total()
    }

    /// The parts of the largest bookkeeping size recorded, bytes.
    pub fn peak_bookkeeping_parts(&self) -> BookkeepingBytes {
        self.counters.peak_bytes
    }

    /// The energy ledger of contact kicks so far: friction's dissipation (ACM §6.3) and the work
    /// of scripted vertices against penalty layers ([`crate::ledger`]).
    pub fn ledger(&self) -> Ledger {
        self.ledger
    }

    /// The broad phase's hysteresis in use, m (the scene's `broad_phase_slack` or its default; 0
    /// for all pairs, which has none).
    pub fn broad_phase_slack(&self) -> Real {
        self.broad.slack()
    }

    /// Broad-phase certificate failures per simulated second at the start: each vertex that
    /// moves fails one every slack / (its tube's speed + ε) (ACM §5.3), none for all pairs. The
    /// work estimate checks it ([`crate::workload`]): a tiny cell or a huge speed makes it
    /// astronomical.
    pub fn broad_phase_events_per_second(&self, model: &Model) -> Real {
        let slack = self.broad.slack();
        if slack == 0.0 {
            return 0.0;
        }
        let tube = tubes_at(model, &self.reference_velocity, self.settings.tolerance, 0.0);
        (0..model.vertices.len() as u32)
            .map(|u| {
                let (tube, _) = tube(VertexId(u));
                let speed = tube.v0.norm() + tube.tolerance;
                if speed > 0.0 {
                    speed / slack
                } else {
                    0.0
                }
            })
            .fold(0.0, |sum, rate| sum + rate)
    }

    /// The hash grid's cell side, m (`None` for all pairs).
    pub fn cell_size(&self) -> Option<Real> {
        self.broad.cell_size()
    }

    /// Number of live k-DOP front records, each with its certificate: separated, overlapping and
    /// descended (0 for the other broad phases).
    pub fn kdop_certificates(&self) -> usize {
        self.broad.front_records()
    }

    /// Number of occupied hash-grid cells (0 for all pairs).
    pub fn occupied_cells(&self) -> usize {
        self.broad.occupied_cells()
    }

    /// Number of layers active now, over all pairs.
    pub fn active_layers(&self) -> usize {
        self.pairs.values().map(|p| p.layers.len()).sum()
    }

    /// Deepest layer ever activated (0: no layer was ever active).
    pub fn deepest_layer(&self) -> u32 {
        self.counters.deepest_layer
    }

    /// Smallest gap seen at a contact event, m (+∞ before any).
    pub fn smallest_gap(&self) -> Real {
        self.counters.smallest_gap
    }

    /// Certificates recomputed because a kick moved a vertex out of its tube.
    pub fn reschedules(&self) -> u64 {
        self.counters.reschedules
    }

    /// Kicks that stayed inside every tube of the vertex (ACM §5.3: nothing rescheduled).
    pub fn vague_skips(&self) -> u64 {
        self.counters.vague_skips
    }

    /// Slab certificates kept as they were after a kick that left the tube of one of their
    /// vertices, which is no faster toward the slab than before.
    pub fn slab_keeps(&self) -> u64 {
        self.counters.slab_keeps
    }

    /// The stencil of `pair`: low side first.
    pub fn stencil(&self, pair: PairId) -> SmallVec<[VertexId; 4]> {
        self.kind(pair).vertices()
    }
    /// Certifies every pair at t = 0. Refuses a start where a pair is closer than η(1) (or
    /// touches): the layers would start inside their own range and no guarantee could hold.
    pub fn start(&mut self, model: &Model) -> Result<Vec<Schedule>, StartError> {
        let mut out = Vec::new();
        let keys: Vec<PairId> = self.pairs.keys().collect();
        for k in keys {
            let kind = self.kind(k);
            let thickness = kind.schedule(self.settings.layers).thickness(1);
            self.fill_positions(&kind, model, Time::ZERO);
            let gap = kind.measure(&self.scratch).gap;
            // above η(1), certifying builds a slab or (within the profitability margin) switches on
            // layer 1; it fails only if that layer's period is below the clock's resolution
            let vertices = || kind.vertices().iter().map(|u| u.0).collect();
            if gap <= thickness {
                return Err(StartError { vertices: vertices(), gap, thickness, cause: None });
            }
            if let Err(cause) = self.certify(k, Time::ZERO, model, &mut out) {
                return Err(StartError { vertices: vertices(), gap, thickness, cause: Some(cause) });
            }
        }
        let tube = tubes_at(model, &self.reference_velocity, self.settings.tolerance, 0.0);
        self.broad.start(&tube, &mut out);
        Ok(out)
    }

    /// A broad-phase certificate failed at `t`: vertex `id`'s grid certificate
    /// (Phantom §4) or k-DOP front record `id`'s (ACM §5.5).
    /// Pairs of primitives now near are made and certified, pairs no longer near are removed
    /// (unless a layer is still active: then the pair goes when its last layer retires).
    pub fn broad_phase_event(&mut self, id: u32, t: Time, model: &Model) -> Result<Vec<Schedule>, ContactError> {
        let mut out = Vec::new();
        let change = {
            let tube = tubes_at(model, &self.reference_velocity, self.settings.tolerance, t.seconds());
            self.broad.certificate_failed(id, t.seconds(), model, &tube, &mut out)
        };
        // a renewal at the failure's own instant would fail again at once, for ever
        if let Some(&Schedule::BroadPhase(certificate, _)) =
            change.renewal.iter().find(|r| matches!(r, Schedule::BroadPhase(_, at) if *at <= t))
        {
            let slack = self.broad.slack();
            return Err(ContactError::BroadPhaseStall(BroadPhaseStall { certificate, time: t.seconds(), slack }));
        }
        self.follow_broad_phase(change.lost, change.gained, t, model, &mut out)?;
        out.extend(change.renewal);
        Ok(out)
    }

    /// True if the broad phase is the k-DOP hierarchy.
    pub fn is_kdop(&self) -> bool {
        self.broad.is_kdop()
    }

    /// The event label of broad-phase certificates: `"grid"`, `"kdop"` or `"all-pairs"` (which
    /// has none).
    pub fn broad_phase_label(&self) -> &'static str {
        self.broad.label()
    }
    /// The broad phase lost and gained these primitive pairs (i < j) at `t`: a lost pair with no
    /// layer on is removed (one with layers goes when its last layer retires); a gained pair
    /// without one is made and certified.
    pub(super) fn follow_broad_phase(
        &mut self,
        lost: impl IntoIterator<Item = (u32, u32)>,
        gained: impl IntoIterator<Item = (u32, u32)>,
        t: Time,
        model: &Model,
        out: &mut Vec<Schedule>,
    ) -> Result<(), ContactError> {
        for (a, b) in lost {
            if let Some(k) = self.pair_between(a, b) {
                if self.pairs[k].layers.is_empty() {
                    self.remove_pair(k, out);
                }
            }
        }
        for (a, b) in gained {
            if self.pair_between(a, b).is_some() {
                continue;
            }
            if self.broad.primitives().pair_kind(a, b).is_some() {
                let k = self.insert_pair(Between::Primitives(a, b));
                self.counters.pairs_created += 1;
                self.certify(k, t, model, out)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_scenes::settings;
    use super::*;
    use crate::contact::LayerSchedule;
    use crate::model::Body;

    #[test]
    fn a_pair_record_stays_small() {
        // a pair exists for every pair of near primitives, a hundred thousand at once on
        // `spikes`: its record is most of the contact bookkeeping (docs/performance.md)
        assert_eq!(PairStore::<Pair>::SLOT_BYTES, 48, "a pair's slot, live or vacant");
    }

    #[test]
    fn an_inextensible_edge_gets_a_stretch_and_a_compression_pair() {
        let mut model = Model::new();
        let mut body = Body::new("rope", BodyKind::Chain { edges: vec![[0, 1]] });
        body.inextensibility = Some(0.1);
        model.add_body(body, &[Vec3::zeros(), Vec3::x() * 2.0], &[Vec3::zeros(); 2], &[1.0; 2]);
        let manager = ContactManager::new(&model, settings());
        let lengths: Vec<_> = manager
            .pairs
            .values()
            .filter(|p| matches!(p.between.get(), Between::Length(_)))
            .map(|p| manager.kind_of(p))
            .collect();
        assert_eq!(lengths.len(), 2);
        let x = [Vec3::zeros(), Vec3::x() * 2.1];
        // stretched by 5 % of the 10 % slack: half the stretch gap left, the compression gap grows
        let gaps: Vec<Real> = lengths.iter().map(|k| k.measure(&x).gap).collect();
        assert!((gaps[0] - 0.1).abs() < 1e-12 && (gaps[1] - 0.3).abs() < 1e-12, "{gaps:?}");
        // each pair's layers start at half the slack: η₁ = s·ℓ/2
        let pair = manager.pairs.values().find(|p| matches!(p.between.get(), Between::Length(_))).unwrap();
        assert!((manager.kind_of(pair).schedule(LayerSchedule::default()).thickness(1) - 0.1).abs() < 1e-12);
    }
}
