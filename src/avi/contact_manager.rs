//! Contact on the AVI backend (ACM §4–§6; report §6, Algorithms 2–5): discrete penalty layers on
//! primitive pairs, culled by kinetic separating slabs. `kds/` says *when* a certificate fails;
//! this module decides *what* happens.
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

use super::broad_phase::{vertex_tube, BroadPhase, BroadPhaseKind};
pub use super::pair_store::PairId;
use super::pair_store::PairStore;
use crate::contact::{LayerSchedule, ZenoError};
use crate::events::Clock;
use crate::geometry::distance::{
    closest_edge_edge, closest_point_triangle, gradient_distance_edge_edge, gradient_distance_point_point,
    gradient_distance_point_triangle,
};
use crate::ids::VertexId;
use crate::kds::hash_grid::FixedHashMap;
use crate::kds::slab::{balanced_speed, supports};
use crate::kds::{Slab, SlabDirection, VagueTrajectory};
use crate::math::{Real, Time, Vec3};
use crate::mesh::edges;
use crate::model::{BodyKind, Model, Motion};
use crate::observe::ContactFrameStats;
use smallvec::{smallvec, SmallVec};
use std::fmt;
use thin_vec::ThinVec;

/// Contact settings of the AVI backend (the scene's `[contact]` table).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSettings {
    /// η(1) and r(1) (ACM §4).
    pub layers: LayerSchedule,
    /// Safety factor on each layer's stable period `2/√(r(l)·Σ 1/m)`.
    pub safety: Real,
    /// Velocity tolerance ε of vague trajectories, m/s (ACM §5.3; 0: exact linear trajectories).
    pub tolerance: Real,
    /// A slab is built for layer l only when the gap exceeds this factor times η(l); otherwise the
    /// layer is activated (ACM §5.1 uses 11/10).
    pub profitability: Real,
    /// Coefficient of restitution e in [0, 1]: separating pairs feel e·r(l) (biphasic layers,
    /// ACM §6.2).
    pub restitution: Real,
    /// Coulomb coefficient μ ≥ 0, applied per layer impulse (ACM §6.3).
    pub friction: Real,
    /// How contact is resolved: the paper's method, or one of the two broken variants of ACM §3
    /// kept to reproduce its pogo experiment.
    pub variant: ContactVariant,
    /// Which primitive pairs hold certificates: all of them, those near on the hash grid, or those
    /// the k-DOP front has not separated.
    pub broad_phase: BroadPhaseKind,
    /// The broad phase's hysteresis, m (`None`: a default for the broad phase and cell size): the
    /// hash grid re-covers a primitive only once a vertex may have moved this far from its anchor
    /// (and so keeps pairs to 2·slack beyond the reach); the k-DOP front frees a pair only once
    /// its k-DOPs are apart by half of it beyond the reach. More slack: fewer broad-phase events,
    /// more pairs.
    pub broad_phase_slack: Option<Real>,
}

/// How contact is resolved. Only [`ContactVariant::RegularLayers`] keeps the guarantees; the other
/// two are the broken methods of ACM §3 (report §8.1, Fig. 2), kept so that the pogo experiment
/// can show what they do. They are reachable from the library only, never from a scene file.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContactVariant {
    /// Penalty layers on regular clocks ticking at multiples of h(l) from t = 0 (ACM §4, law 4).
    #[default]
    RegularLayers,
    /// Broken on purpose: each layer's clock restarts at the instant its gap reaches η(l) (as
    /// predicted on the stencil's linear trajectory, re-predicted at each tick until the layer
    /// first pushes). ACM §3: this "systematically injects energy".
    RestartedClocks,
    /// Broken on purpose: no layers; when a pair's gap reaches η(1) (predicted on the linear
    /// trajectory, re-predicted after every kick) its normal relative velocity is reflected by an
    /// elastic impulse. ACM §3: the energy "takes a random walk". No safety guarantee either.
    ReflectiveImpulse,
}

impl ContactSettings {
    /// Default safety factor on layer periods: h(l)·ω(l) = 0.1, so a layer resolves a bounce in
    /// about 30 ticks. At 0.5 (ω·h = 1) a single bounce of a particle on a wall gains or loses
    /// up to 50 % of its energy; at 0.05 about 0.5 % (measured, `docs/contact.md`).
    pub const DEFAULT_SAFETY: Real = 0.05;

    /// Default vague-trajectory tolerance ε, m/s: a vertex's certificates are recomputed only when
    /// its velocity has moved more than this from the centre of its tube. On two colliding shells
    /// ε = 0.2 runs 150× faster than ε = 0 for the same trajectory (law 5).
    pub const DEFAULT_TOLERANCE: Real = 0.1;

    /// The reach, m: the gap below which two primitives must hold a pair, profitability·η(1).
    /// A pair is made no closer than this, so above η(1): it starts with a slab of thickness η(1)
    /// (or, within round-off of the reach, its first layer). Twice this, as before 2026-11-23,
    /// held 2.5× the pairs on `spikes` and ran 1.4× slower (`docs/performance.md`).
    pub fn reach(&self) -> Real {
        self.profitability * self.layers.thickness(1)
    }

    /// Settings with the given layers and safety factor, the default vagueness, the paper's 11/10
    /// profitability rule, elastic and frictionless.
    pub fn new(layers: LayerSchedule, safety: Real) -> Self {
        ContactSettings {
            layers,
            safety,
            tolerance: Self::DEFAULT_TOLERANCE,
            profitability: 1.1,
            restitution: 1.0,
            friction: 0.0,
            variant: ContactVariant::RegularLayers,
            broad_phase: BroadPhaseKind::default(),
            broad_phase_slack: None,
        }
    }
}

/// The primitives of a pair; the "low" side comes first, the "high" side last.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum PairKind {
    /// A vertex (or the centre of a sphere of `radius`) against a triangle.
    PointTriangle { triangle: [VertexId; 3], point: VertexId, radius: Real },
    /// Two edges.
    EdgeEdge { a: [VertexId; 2], b: [VertexId; 2] },
    /// Two spheres with radii summing to `radii`.
    Spheres { a: VertexId, b: VertexId, radii: Real },
    /// An inextensible edge (ACM §7): its length stays below (1 + slack)·rest (`stretch`) or
    /// above (1 − slack)·rest (not `stretch`).
    EdgeLength { a: VertexId, b: VertexId, rest: Real, slack: Real, stretch: bool },
}

impl PairKind {
    /// The pair's layers: the scene's `contact` schedule, or for an inextensible edge η₁ =
    /// slack·rest/2 with the same stiffness (derived, not stored: a pair is made for every
    /// pair of near primitives, so its size is the contact bookkeeping's).
    fn schedule(&self, contact: LayerSchedule) -> LayerSchedule {
        match *self {
            PairKind::EdgeLength { rest, slack, .. } => {
                LayerSchedule { thickness: 0.5 * slack * rest, stiffness: contact.stiffness }
            }
            _ => contact,
        }
    }

    /// Stencil vertices: low side first, then high side.
    fn vertices(&self) -> SmallVec<[VertexId; 4]> {
        match *self {
            PairKind::PointTriangle { triangle: [a, b, c], point, .. } => smallvec![a, b, c, point],
            PairKind::EdgeEdge { a: [a0, a1], b: [b0, b1] } => smallvec![a0, a1, b0, b1],
            PairKind::Spheres { a, b, .. } | PairKind::EdgeLength { a, b, .. } => smallvec![a, b],
        }
    }

    /// How many of [`vertices`](Self::vertices) are on the low side.
    fn low_count(&self) -> usize {
        match self {
            PairKind::PointTriangle { .. } => 3,
            PairKind::EdgeEdge { .. } => 2,
            PairKind::Spheres { .. } | PairKind::EdgeLength { .. } => 1,
        }
    }

    /// Sum of radii (0 between mesh primitives).
    fn radii(&self) -> Real {
        match *self {
            PairKind::PointTriangle { radius, .. } => radius,
            PairKind::EdgeEdge { .. } | PairKind::EdgeLength { .. } => 0.0,
            PairKind::Spheres { radii, .. } => radii,
        }
    }

    /// The closest points (low, high), the gap (distance − radii) and ∂distance/∂x per stencil
    /// vertex (in [`vertices`](Self::vertices) order; zero where the distance has no gradient).
    fn measure(&self, x: &[Vec3]) -> Proximity {
        match *self {
            PairKind::PointTriangle { radius, .. } => {
                let c = closest_point_triangle(x[3], x[0], x[1], x[2]);
                let g = gradient_distance_point_triangle(x[3], x[0], x[1], x[2]).unwrap_or([Vec3::zeros(); 4]);
                Proximity {
                    low: c.point,
                    high: x[3],
                    gap: c.distance() - radius,
                    gradient: smallvec![g[1], g[2], g[3], g[0]],
                }
            }
            PairKind::EdgeEdge { .. } => {
                let c = closest_edge_edge(x[0], x[1], x[2], x[3]);
                let g = gradient_distance_edge_edge(x[0], x[1], x[2], x[3]).unwrap_or([Vec3::zeros(); 4]);
                Proximity { low: c.pa, high: c.pb, gap: c.distance() - 0.0, gradient: g.into_iter().collect() }
            }
            PairKind::Spheres { radii, .. } => {
                let g = gradient_distance_point_point(x[0], x[1]).unwrap_or([Vec3::zeros(); 2]);
                Proximity {
                    low: x[0],
                    high: x[1],
                    gap: (x[1] - x[0]).norm() - radii,
                    gradient: g.into_iter().collect(),
                }
            }
            PairKind::EdgeLength { rest, slack, stretch, .. } => {
                let length = (x[1] - x[0]).norm();
                let u = gradient_distance_point_point(x[0], x[1]).map_or(Vec3::zeros(), |g| g[1]);
                let (gap, sign) =
                    if stretch { ((1.0 + slack) * rest - length, -1.0) } else { (length - (1.0 - slack) * rest, 1.0) };
                Proximity { low: x[0], high: x[1], gap, gradient: smallvec![-u * sign, u * sign] }
            }
        }
    }
}

/// What [`PairKind::measure`] finds.
struct Proximity {
    low: Vec3,
    high: Vec3,
    gap: Real,
    gradient: SmallVec<[Vec3; 4]>,
}

/// What proves a pair's next layer n + 1 idle until its failure time. Its thickness η(n + 1)
/// (plus radii) is derived from the pair, not stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Guard {
    /// None: the pair's layers are active and no certificate is needed until the deepest retires.
    None,
    /// A separating slab between the pair's two sides (geometric pairs, ACM §5.1) on
    /// [`Pair::direction`].
    Slab,
    /// A bound on how fast a constraint gap can shrink (its vertices' relative tube speed) keeps
    /// it above η(n + 1) until the failure time (edge-length pairs).
    Rate,
    /// [`ContactVariant::ReflectiveImpulse`] only: the pair is within the profitability margin of
    /// η(1) and waits for its predicted impact (or polls while separating). Guarantees nothing.
    Impact,
}

/// One contact pair: its active layers' clocks and its certificate, in 32 bytes (a pair record
/// is most of the contact bookkeeping; `docs/performance.md`).
#[derive(Debug)]
struct Pair {
    /// What the pair is between; its [`PairKind`] follows ([`ContactManager::kind_of`]).
    between: PackedBetween,
    /// Stamp of the last kick that re-certified this pair (one re-certification per kick; 0:
    /// none yet). Two bytes: the stamps wrap every 65 535 kicks that leave a tube
    /// ([`ContactManager::next_stamp`]).
    stamp: u16,
    /// The certificate that layer n + 1 is inactive.
    guard: Guard,
    /// Clocks of layers 1..=n (index l − 1), on multiples of h(l) from t = 0 (the broken
    /// restarted variant shifts them: [`ContactManager::restarts`]). A thin vector: most pairs
    /// never have a layer.
    layers: ThinVec<Clock>,
    /// The direction of a [`Guard::Slab`]'s slab (stale otherwise). Its planes are not kept: a
    /// re-certification centres the slab between the sides' current supports along it.
    direction: SlabDirection,
}

/// What a pair is between.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Between {
    /// Broad-phase primitives i < j.
    Primitives(u32, u32),
    /// One side of an inextensible edge: [`ContactManager::lengths`]`[e]`, for the whole run.
    Length(u32),
}

/// A [`Between`] in 8 bytes: `[i, j]` for primitives i < j (never `u32::MAX`), `[u32::MAX, e]`
/// for a length constraint.
#[derive(Clone, Copy, Debug, PartialEq)]
struct PackedBetween([u32; 2]);

impl PackedBetween {
    fn new(between: Between) -> Self {
        match between {
            Between::Primitives(i, j) => {
                debug_assert!(i < j && j < u32::MAX);
                PackedBetween([i, j])
            }
            Between::Length(e) => PackedBetween([u32::MAX, e]),
        }
    }

    fn get(self) -> Between {
        match self.0 {
            [u32::MAX, e] => Between::Length(e),
            [i, j] => Between::Primitives(i, j),
        }
    }
}

/// [`ContactVariant::RestartedClocks`] only: how a layer's clock was restarted at the predicted
/// contact instant (kept apart, so that a layer of the real method is a bare 16-byte [`Clock`]
/// on multiples of h(l) from t = 0).
#[derive(Clone, Copy, Debug)]
struct Restart {
    /// Added to every tick time of the layer's clock.
    origin: Real,
    /// The layer has not pushed yet, so each tick re-predicts contact.
    awaiting_contact: bool,
}

/// Estimated heap bytes of the contact bookkeeping, by part (issue 4's memory goal; what each
/// part holds is in `docs/performance.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct BookkeepingBytes {
    /// The pair records (ACM §5: one certificate or the active layers per pair), at the store's
    /// capacity.
    pub pair_records: usize,
    /// The active layers' clocks (report Algorithm 3).
    pub layer_clocks: usize,
    /// Each primitive's list of its pairs, and each vertex's length constraints: the support
    /// lists of ACM §5.2 and the index from two primitives to their pair.
    pub partner_lists: usize,
    /// The vague tubes' centres (ACM §5.3) and per-primitive stamps.
    pub vague_tubes: usize,
    /// The broad phase's primitives and each vertex's list of them.
    pub primitives: usize,
    /// The hash grid (cells, fat boxes, anchors) or the k-DOP trees and front (Phantom §4, ACM
    /// §5.5).
    pub broad_phase: usize,
    /// The event queue's entries for layer ticks, certificate failures and broad-phase events
    /// (the engine's, counted where it reports them; 0 in [`ContactManager::bookkeeping_parts`]).
    pub queued_events: usize,
}

impl BookkeepingBytes {
    /// All parts, bytes.
    pub fn total(&self) -> usize {
        self.pair_records
            + self.layer_clocks
            + self.partner_lists
            + self.vague_tubes
            + self.primitives
            + self.broad_phase
            + self.queued_events
    }

    /// Each part divided by `vertices` (at least 1), by name as in `summary.json`.
    pub fn per_vertex(&self, vertices: usize) -> std::collections::BTreeMap<&'static str, f64> {
        let n = vertices.max(1) as f64;
        [
            ("pair_records", self.pair_records),
            ("layer_clocks", self.layer_clocks),
            ("partner_lists", self.partner_lists),
            ("vague_tubes", self.vague_tubes),
            ("primitives", self.primitives),
            ("broad_phase", self.broad_phase),
            ("queued_events", self.queued_events),
        ]
        .into_iter()
        .map(|(name, bytes)| (name, bytes as f64 / n))
        .collect()
    }
}

/// A request to the event queue from the contact manager.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// Schedule the pair's certificate failure at this time, unless its event is already due no
    /// later: that event then fires early, which is safe (it re-certifies), and saves a queue
    /// update per re-certification.
    Certificate(PairId, Time),
    /// Schedule the next tick of the pair's layer l.
    Layer(PairId, u32, Time),
    /// [`ContactVariant::ReflectiveImpulse`]: (re)schedule the pair's impact check (its layer-1
    /// event key) at this time, replacing any pending one.
    Impact(PairId, Time),
    /// (Re)schedule a broad-phase certificate at this time, replacing any pending one: a
    /// vertex's hash-grid certificate, or a k-DOP front record's.
    BroadPhase(u32, Time),
    /// The broad-phase certificate is gone (a k-DOP front record was removed, or its certificate
    /// no longer fails): drop its pending event.
    ForgetBroadPhase(u32),
    /// The pair was removed (the broad phase no longer holds its primitives near): drop its
    /// events before its handle goes to another pair.
    Forget(PairId),
}

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

/// A contact pair got inside its zero-distance limit: the guarantee was broken (a bug, or a
/// scripted obstacle pushing through a free body faster than any finite energy can stop).
#[derive(Clone, Debug, PartialEq)]
pub struct Penetration {
    /// The pair's vertices (global indices), low side first.
    pub vertices: Vec<u32>,
    /// Its gap, m.
    pub gap: Real,
    /// When, s.
    pub time: Real,
}

impl fmt::Display for Penetration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "contact pair on vertices {:?} reached gap {:.3e} m at t = {} s: the primitives touch, which the penalty \
             layers must prevent; scripted obstacles may be driving a body through another (slow them down)",
            self.vertices, self.gap, self.time
        )
    }
}

/// Why contact handling cannot go on.
#[derive(Clone, Debug, PartialEq)]
pub enum ContactError {
    /// A layer period fell below the clock's resolution (ACM §9, "Zeno").
    Zeno(ZenoError),
    /// A pair touched.
    Penetration(Penetration),
}

impl fmt::Display for ContactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContactError::Zeno(e) => write!(f, "{e}"),
            ContactError::Penetration(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ContactError {}

/// Penalty layers and certificates of every contact pair (report Algorithms 2–5).
#[derive(Debug)]
pub struct ContactManager {
    settings: ContactSettings,
    pairs: PairStore<Pair>,
    /// Primitives and the structure that decides which of their pairs exist.
    broad: BroadPhase,
    /// For each primitive, its pairs by handle (the other primitive is in the pair's record; a
    /// thin vector: most primitives touch nothing). A vertex's pairs are those of its primitives, each found once
    /// (the two sides of a pair share no vertex); a pair is found from either of its primitives.
    partners: Vec<ThinVec<PairId>>,
    /// The length constraints of inextensible edges ([`Between::Length`]).
    lengths: Vec<PairKind>,
    /// Pairs made and removed by the broad phase after the start, and the most alive at once.
    pairs_created: u64,
    pairs_removed: u64,
    peak_pairs: usize,
    /// Largest [`ContactManager::bookkeeping_bytes`] seen by [`ContactManager::note_memory`], by
    /// part.
    peak_bytes: BookkeepingBytes,
    /// The length constraints on each vertex: vertex `u`'s are
    /// `lengths_of_vertex[first_length[u]..first_length[u + 1]]` (both empty without inextensible
    /// bodies). Made at the start, they live the whole run.
    lengths_of_vertex: Vec<PairId>,
    first_length: Vec<u32>,
    /// For each vertex, the centre v₀ of its vague tube (ACM §5.3): certificates assume its
    /// velocity stays within ε of v₀; a kick that leaves the tube re-centres it and re-certifies
    /// the vertex's pairs.
    reference_velocity: Vec<Vec3>,
    /// Stamp of the last kick that left a tube ([`ContactManager::after_kick`]); pairs it
    /// re-certified carry it. Wraps to 1 after `u16::MAX`, clearing every stamp.
    stamp: u16,
    /// Deepest layer ever activated.
    deepest_layer: u32,
    /// Smallest gap seen at a layer or certificate event, m.
    smallest_gap: Real,
    /// Certificates recomputed because a kick left their tube.
    reschedules: u64,
    /// Kicked vertices whose new velocity stayed in every tube.
    vague_skips: u64,
    /// [`ContactVariant::RestartedClocks`] only: the restarted layers (pair, l).
    restarts: FixedHashMap<(PairId, u32), Restart>,
    scratch: Vec<Vec3>,
    /// k-DOP front records a kick rescheduled (reused, so kicks allocate nothing).
    front_scratch: Vec<(u32, Real)>,
}

impl ContactManager {
    /// The contact pairs of `model` at the start: those the broad phase asks for among
    /// vertex–triangle and edge–edge pairs of triangulated bodies and chains, sphere–sphere and
    /// sphere–triangle pairs (never sharing a vertex, never both unable to move), plus two length
    /// constraints per edge of an inextensible body.
    pub fn new(model: &Model, settings: ContactSettings) -> Self {
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
            partners: vec![ThinVec::new(); broad.len()],
            lengths: Vec::new(),
            broad,
            pairs_created: 0,
            pairs_removed: 0,
            peak_pairs: 0,
            peak_bytes: BookkeepingBytes::default(),
            lengths_of_vertex: Vec::new(),
            first_length: Vec::new(),
            reference_velocity: v.velocities().to_vec(),
            stamp: 0,
            deepest_layer: 0,
            smallest_gap: Real::INFINITY,
            reschedules: 0,
            vague_skips: 0,
            restarts: FixedHashMap::default(),
            scratch: Vec::new(),
            front_scratch: Vec::new(),
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
        if !on_vertex.is_empty() {
            on_vertex.sort_by_key(|&(u, _)| u.0); // stable: each vertex's in the order made
            manager.first_length =
                (0..=v.len()).map(|u| on_vertex.partition_point(|(w, _)| w.index() < u) as u32).collect();
            manager.lengths_of_vertex = on_vertex.into_iter().map(|(_, k)| k).collect();
        }
        manager
    }

    /// The length constraints on vertex `u`.
    fn lengths_of(&self, u: VertexId) -> &[PairId] {
        match self.first_length.get(u.index()..u.index() + 2) {
            Some(&[first, end]) => &self.lengths_of_vertex[first as usize..end as usize],
            _ => &[],
        }
    }

    /// The pair of primitives `i` and `j`, if they have one.
    fn pair_between(&self, i: u32, j: u32) -> Option<PairId> {
        let between = PackedBetween::new(Between::Primitives(i.min(j), i.max(j)));
        self.partners[i as usize].iter().copied().find(|&k| self.pairs[k].between == between)
    }

    /// Adds a pair (no layers, no certificate yet) to the pair list and, between primitives, to
    /// their partner lists.
    fn insert_pair(&mut self, between: Between) -> PairId {
        let k = self.pairs.insert(Pair {
            between: PackedBetween::new(between),
            stamp: 0,
            guard: Guard::None,
            layers: ThinVec::new(),
            direction: SlabDirection::default(),
        });
        if let Between::Primitives(i, j) = between {
            self.partners[i as usize].push(k);
            self.partners[j as usize].push(k);
        }
        self.peak_pairs = self.peak_pairs.max(self.pairs.len());
        k
    }

    /// The kind of pair `k`.
    fn kind(&self, k: PairId) -> PairKind {
        self.kind_of(&self.pairs[k])
    }

    /// The kind of a pair record.
    fn kind_of(&self, pair: &Pair) -> PairKind {
        match pair.between.get() {
            Between::Primitives(i, j) => self.broad.kind_of_pair(i, j),
            Between::Length(e) => self.lengths[e as usize],
        }
    }

    /// The time of tick `tick` of layer `l` of pair `k` on `clock` (its clock): a multiple of
    /// h(l), shifted only under the broken [`ContactVariant::RestartedClocks`].
    fn tick_time(&self, k: PairId, l: u32, clock: &Clock, tick: u64) -> Time {
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
    fn guard_thickness(&self, kind: &PairKind, pair: &Pair) -> Real {
        kind.schedule(self.settings.layers).thickness(pair.layers.len() as u32 + 1) + kind.radii()
    }

    /// Σ 1/m over the stencil of `kind` (held and scripted vertices count 0), for layer periods.
    fn inverse_mass(kind: &PairKind, model: &Model) -> Real {
        kind.vertices().iter().map(|&u| 1.0 / model.vertices.effective_mass(u)).sum()
    }

    /// Removes pair `k` (it has no active layer) and asks the queue to drop its certificate.
    fn remove_pair(&mut self, k: PairId, out: &mut Vec<Schedule>) {
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
        self.pairs_removed += 1;
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
        self.peak_pairs
    }

    /// Pairs the broad phase made after the start, and removed.
    pub fn pairs_created_and_removed(&self) -> (u64, u64) {
        (self.pairs_created, self.pairs_removed)
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
            kdop_records: self.broad.kdop_certificates(),
            occupied_cells: self.broad.occupied_cells(),
            bookkeeping_bytes,
        }
    }

    /// [`Self::frame_stats`], with `queued_bytes` (the event queue's contact entries) as a part,
    /// recorded toward [`Self::peak_bookkeeping_bytes`] (the engine calls it at every frame).
    pub fn note_memory(&mut self, queued_bytes: usize) -> ContactFrameStats {
        let parts = BookkeepingBytes { queued_events: queued_bytes, ..self.bookkeeping_parts() };
        if parts.total() > self.peak_bytes.total() {
            self.peak_bytes = parts;
        }
        self.stats_with(parts.total())
    }

    /// The largest bookkeeping size recorded, bytes.
    pub fn peak_bookkeeping_bytes(&self) -> usize {
        self.peak_bytes.total()
    }

    /// The parts of the largest bookkeeping size recorded, bytes.
    pub fn peak_bookkeeping_parts(&self) -> BookkeepingBytes {
        self.peak_bytes
    }

    /// The broad phase's hysteresis in use, m (the scene's `broad_phase_slack` or its default; 0
    /// for all pairs, which has none).
    pub fn broad_phase_slack(&self) -> Real {
        self.broad.slack()
    }

    /// The hash grid's cell side, m (`None` for all pairs).
    pub fn cell_size(&self) -> Option<Real> {
        self.broad.cell_size()
    }

    /// Number of live k-DOP front records, each with its certificate: separated, overlapping and
    /// descended (0 for the other broad phases).
    pub fn kdop_certificates(&self) -> usize {
        self.broad.kdop_certificates()
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
        self.deepest_layer
    }

    /// Smallest gap seen at a contact event, m (+∞ before any).
    pub fn smallest_gap(&self) -> Real {
        self.smallest_gap
    }

    /// Certificates recomputed because a kick moved a vertex out of its tube.
    pub fn reschedules(&self) -> u64 {
        self.reschedules
    }

    /// Kicks that stayed inside every tube of the vertex (ACM §5.3: nothing rescheduled).
    pub fn vague_skips(&self) -> u64 {
        self.vague_skips
    }

    /// The stencil of `pair`: low side first.
    pub fn stencil(&self, pair: PairId) -> SmallVec<[VertexId; 4]> {
        self.kind(pair).vertices()
    }

    /// The period of layer `l` of `pair` in `model`, s.
    pub fn layer_period(&self, pair: PairId, l: u32, model: &Model) -> Real {
        let kind = self.kind(pair);
        kind.schedule(self.settings.layers).period(l, Self::inverse_mass(&kind, model), self.settings.safety)
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
                total += 0.5 * layers.stiffness(l) * (gap - layers.thickness(l)).powi(2);
                l += 1;
            }
        }
        total
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
            if gap <= thickness || self.certify(k, Time::ZERO, model, &mut out).is_err() {
                return Err(StartError { vertices: kind.vertices().iter().map(|u| u.0).collect(), gap, thickness });
            }
        }
        for u in 0..model.vertices.len() as u32 {
            if self.broad.is_kinetic(VertexId(u)) {
                self.schedule_grid(VertexId(u), Time::ZERO, model, &mut out);
            }
        }
        for (id, at) in self.broad.take_kdop_start() {
            request_front(id, at, &mut out);
        }
        Ok(out)
    }

    /// A broad-phase certificate failed at `t`: vertex `id`'s grid certificate
    /// (Phantom §4) or k-DOP front record `id`'s (ACM §5.5).
    pub fn broad_phase_event(&mut self, id: u32, t: Time, model: &Model) -> Result<Vec<Schedule>, ContactError> {
        if self.broad.is_kdop() {
            self.kdop_event(id, t, model)
        } else {
            self.grid_event(VertexId(id), t, model)
        }
    }

    /// True if the broad phase is the k-DOP hierarchy.
    pub fn is_kdop(&self) -> bool {
        self.broad.is_kdop()
    }

    /// The event label of broad-phase certificates: `"grid"` or `"kdop"`.
    pub fn broad_phase_label(&self) -> &'static str {
        if self.broad.is_kdop() {
            "kdop"
        } else {
            "grid"
        }
    }

    /// k-DOP front record `id`'s certificate failed at `t` (ACM §5.5–5.6): it is reconfirmed, or
    /// the front descends or coarsens; pairs of primitives whose leaves now overlap are made and
    /// certified, pairs of leaves that came apart are removed (unless a layer is still active:
    /// then the pair goes when its last layer retires).
    fn kdop_event(&mut self, id: u32, t: Time, model: &Model) -> Result<Vec<Schedule>, ContactError> {
        let mut out = Vec::new();
        let (reference, tolerance) = (&self.reference_velocity, self.settings.tolerance);
        let at = t.seconds();
        let tube = |u: VertexId| vertex_tube(model, reference, tolerance, u, model.vertices.position_at(u, at), at);
        let changes = self.broad.kdop_event(id, t.seconds(), &tube);
        for forgotten in changes.forget {
            out.push(Schedule::ForgetBroadPhase(forgotten));
        }
        for (record, at) in changes.schedule {
            request_front(record, at, &mut out);
        }
        self.follow_broad_phase(changes.lost, changes.gained, t, model, &mut out)?;
        Ok(out)
    }

    /// The broad phase lost and gained these primitive pairs (i < j) at `t`: a lost pair with no
    /// layer on is removed (one with layers goes when its last layer retires); a gained pair
    /// without one is made and certified.
    fn follow_broad_phase(
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
            if self.broad.pair_kind(a, b).is_some() {
                let k = self.insert_pair(Between::Primitives(a, b));
                self.pairs_created += 1;
                self.certify(k, t, model, out)?;
            }
        }
        Ok(())
    }

    /// Vertex `u`'s hash-grid certificate failed at `t` (Phantom §4): it is re-anchored and its
    /// primitives re-covered; pairs of primitives now near are made and certified, pairs no longer
    /// near are removed (unless a layer is still active: then the pair goes when its last layer
    /// retires).
    fn grid_event(&mut self, u: VertexId, t: Time, model: &Model) -> Result<Vec<Schedule>, ContactError> {
        let mut out = Vec::new();
        let (tube, next_change) = self.vertex_tube_at(u, t, model);
        let change = self.broad.reanchor(u, t.seconds(), model, &tube);
        self.follow_broad_phase(change.lost, change.gained, t, model, &mut out)?;
        self.request_grid(u, change.exit.min(next_change), &mut out);
        Ok(out)
    }

    /// The vague tube of vertex `u` from `t`, and the next change of its scripted velocity.
    fn vertex_tube_at(&self, u: VertexId, t: Time, model: &Model) -> (VagueTrajectory, Real) {
        let x = model.vertices.position_at(u, t.seconds());
        vertex_tube(model, &self.reference_velocity, self.settings.tolerance, u, x, t.seconds())
    }

    /// Asks the queue for vertex `u`'s grid certificate at its exit time from `t`.
    fn schedule_grid(&mut self, u: VertexId, t: Time, model: &Model, out: &mut Vec<Schedule>) {
        let (tube, next_change) = self.vertex_tube_at(u, t, model);
        let exit = self.broad.exit(u, t.seconds(), &tube);
        self.request_grid(u, exit.min(next_change), out);
    }

    fn request_grid(&self, u: VertexId, at: Real, out: &mut Vec<Schedule>) {
        if at.is_finite() {
            out.push(Schedule::BroadPhase(u.0, Time::new(at).expect("finite")));
        }
    }

    /// The stencil of `kind` at `t` into `scratch` (positions on the vertices' trajectories).
    fn fill_positions(&mut self, kind: &PairKind, model: &Model, t: Time) {
        self.scratch.clear();
        let v = &model.vertices;
        self.scratch.extend(kind.vertices().iter().map(|&u| v.position_at(u, t.seconds())));
    }

    /// Measures a pair of `kind` at `t` without moving anything, recording the smallest gap seen.
    fn measure_at(&mut self, kind: &PairKind, model: &Model, t: Time) -> Proximity {
        self.fill_positions(kind, model, t);
        let proximity = kind.measure(&self.scratch);
        self.smallest_gap = self.smallest_gap.min(proximity.gap);
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
    fn certify(&mut self, k: PairId, t: Time, model: &Model, out: &mut Vec<Schedule>) -> Result<(), ContactError> {
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
        if matches!(kind, PairKind::EdgeLength { .. }) {
            return self.certify_rate(k, t, proximity.gap, model, out);
        }
        // The slab normal joins the closest points (rounded as a stored slab keeps it); the
        // supporting planes of the two sides along it are measured from the vertices themselves,
        // so the slab separates them by construction.
        let Some(joining) = (proximity.high - proximity.low).try_normalize(0.0) else {
            return Err(penetration());
        };
        let direction = SlabDirection::round(&joining);
        let normal = direction.normal();
        let radii = kind.radii();
        let (low, high) = self.scratch.split_at(kind.low_count());
        let (low_support, high_support) = supports(&normal, low, high);
        let room = high_support - low_support - radii;
        loop {
            let next = self.pairs[k].layers.len() as u32 + 1;
            let eta = kind.schedule(self.settings.layers).thickness(next);
            if room > s.profitability * eta {
                self.schedule_slab(
                    k,
                    &kind,
                    t,
                    model,
                    (direction, normal),
                    (low_support, high_support),
                    eta + radii,
                    out,
                );
                return Ok(());
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
        let (tubes, next_change) = self.tubes_for(&kind.vertices(), &self.scratch, t, model);
        let (low, high) = tubes.split_at(kind.low_count());
        let speed = balanced_speed(&normal, low, high);
        let slab = Slab::centred(normal, low_support, high_support, thickness, speed, t.seconds());
        let failure = slab.failure_time(low, high).map_or(next_change, |f| f.min(next_change));
        let pair = &mut self.pairs[k];
        pair.guard = Guard::Slab;
        pair.direction = direction;
        self.schedule_failure(k, failure.max(t.seconds()), out);
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
    fn schedule_failure(&mut self, k: PairId, failure: Real, out: &mut Vec<Schedule>) {
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
        let tubes = vertices
            .iter()
            .zip(x)
            .map(|(&u, &x0)| {
                let (tube, change) =
                    vertex_tube(model, &self.reference_velocity, self.settings.tolerance, u, x0, t.seconds());
                next_change = next_change.min(change);
                tube
            })
            .collect();
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

    /// Puts layer `l` of pair `k` on its clock: the first multiple of h(l) after `t` (report §6:
    /// activation picks the next multiple; it never restarts a clock). Under the broken
    /// [`ContactVariant::RestartedClocks`], the clock starts at the predicted contact instant.
    fn activate(
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
            .map_err(ContactError::Zeno)?;
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
        self.deepest_layer = self.deepest_layer.max(l);
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
    fn watch_impact(&mut self, k: PairId, t: Time, model: &Model, out: &mut Vec<Schedule>) {
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
        let p = &mut self.pairs[k];

        let v = &mut model.vertices;
        // the rate the gap arrived at t with, before any kick at t: the biphasic stiffness, the
        // friction direction and the retirement below then do not depend on the order of
        // simultaneous events (law 8), which differs between broad phases (law 5)
        let gap_rate: Real =
            vertices.iter().zip(&proximity.gradient).map(|(&u, g)| g.dot(&v.arrival_velocity_at(u, t.seconds()))).sum();
        let g = proximity.gap - layers.thickness(l);
        let kicked = g < 0.0;
        if kicked {
            // the positions measured are where the drift takes the stencil
            for &u in &vertices {
                v.drift_to(u, t.seconds());
            }
            // biphasic layer (ACM §6.2): full stiffness while compressing, e·r(l) while separating
            let c = if gap_rate > 0.0 { s.restitution } else { 1.0 };
            let normal_impulse = h * c * layers.stiffness(l) * g; // ≤ 0: pushes apart
            for (&u, gu) in vertices.iter().zip(&proximity.gradient) {
                v.kick(u, gu * normal_impulse);
            }
            if s.friction > 0.0 && !matches!(kind, PairKind::EdgeLength { .. }) {
                let normal = (proximity.high - proximity.low).try_normalize(0.0).unwrap_or_else(Vec3::zeros);
                apply_friction(&vertices, &proximity.gradient, normal, s.friction * normal_impulse.abs(), v);
            }
        }
        // lazy deactivation of the deepest layer (ACM §5.1): zero impulse, separating, and room for
        // a profitable slab of this layer's thickness
        let deepest = l as usize == p.layers.len();
        let retire = deepest && !kicked && gap_rate > 0.0 && proximity.gap > s.profitability * layers.thickness(l);
        if retire {
            p.layers.pop();
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
        let mut moved: SmallVec<[VertexId; 8]> = SmallVec::new();
        for &u in kicked {
            if !matches!(v.motion_at(u, v.t_last(u)), Motion::Free) {
                continue;
            }
            let velocity = v.velocity(u);
            if (velocity - self.reference_velocity[u.index()]).norm() <= self.settings.tolerance {
                self.vague_skips += 1;
                continue;
            }
            self.reference_velocity[u.index()] = velocity;
            moved.push(u);
        }
        if moved.is_empty() {
            return Ok(());
        }
        let stamp = self.next_stamp();
        for u in moved {
            // the pairs u's stencil is in: its primitives' pairs, then its length constraints
            // (re-certifying adds and removes no pair, so the lists hold still)
            for n in 0..self.broad.primitives_of(u).len() {
                let p = self.broad.primitives_of(u)[n] as usize;
                for m in 0..self.partners[p].len() {
                    let k = self.partners[p][m];
                    self.recertify_once(k, stamp, t, model, out)?;
                }
            }
            for n in 0..self.lengths_of(u).len() {
                let k = self.lengths_of(u)[n];
                self.recertify_once(k, stamp, t, model, out)?;
            }
            if self.broad.is_kinetic(u) {
                self.schedule_grid(u, t, model, out);
            }
            if self.broad.is_kdop() {
                let velocity = self.reference_velocity[u.index()];
                let mut records = std::mem::take(&mut self.front_scratch);
                self.broad.kdop_tube_moved(u, &velocity, self.settings.tolerance, t.seconds(), &mut records);
                for (record, at) in records.drain(..) {
                    request_front(record, at, out);
                }
                self.front_scratch = records;
            }
        }
        Ok(())
    }
}

impl ContactManager {
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
        self.reschedules += 1;
        self.rebase(k, t, model, out)
    }

    /// Audit (issue 3's debug mode): at time `t`, every pair either has its layers active or a
    /// certificate that still holds: for a slab, the two sides' vertices, projected on its
    /// normal, are at least η(n + 1) (plus radii) apart. A pair that holds neither would be
    /// unguarded. Uses only the slabs' normals and the vertices' trajectories, never the distance
    /// code.
    pub fn audit(&self, model: &Model, t: Time) -> Result<(), AuditFailure> {
        let v = &model.vertices;
        self.audit_broad_phase(model, t)?;
        for (k, pair) in self.pairs.iter() {
            let kind = self.kind_of(pair);
            // memory: a pair whose primitives are no longer near (grid) or whose leaves came apart
            // (k-DOP) must go once its layers have retired
            if pair.layers.is_empty()
                && matches!(pair.between.get(), Between::Primitives(a, b) if !self.broad.overlap(a, b))
            {
                return Err(AuditFailure {
                    pair: Some(k),
                    time: t.seconds(),
                    what: "a pair outlived its broad-phase overlap",
                });
            }
            // what the guard must certify: layer n + 1 is idle, the gap at least η(n + 1)
            let thickness = kind.schedule(self.settings.layers).thickness(pair.layers.len() as u32 + 1);
            let normal = match pair.guard {
                Guard::Slab => pair.direction.normal(),
                // the broken reflective variant guarantees nothing to audit
                Guard::Impact => continue,
                Guard::Rate => {
                    // a constraint pair: its gap, from the vertices, must still exceed the next
                    // layer's thickness
                    let x: SmallVec<[Vec3; 4]> =
                        kind.vertices().iter().map(|&u| v.position_at(u, t.seconds())).collect();
                    let gap = kind.measure(&x).gap;
                    if gap < thickness * (1.0 - 1e-12) {
                        return Err(AuditFailure {
                            pair: Some(k),
                            time: t.seconds(),
                            what: "a constraint gap went below its guard",
                        });
                    }
                    continue;
                }
                Guard::None => {
                    if pair.layers.is_empty() {
                        return Err(AuditFailure { pair: Some(k), time: t.seconds(), what: "no layer and no slab" });
                    }
                    continue;
                }
            };
            // a slab: along its normal, the two sides' vertices (spheres: centres, the radii
            // added) are at least the thickness apart, so their hulls are
            let lows = kind.low_count();
            let (mut low, mut high, mut scale) = (Real::NEG_INFINITY, Real::INFINITY, 0.0 as Real);
            for (i, &u) in kind.vertices().iter().enumerate() {
                let x = normal.dot(&v.position_at(u, t.seconds()));
                scale = scale.max(x.abs());
                if i < lows {
                    low = low.max(x);
                } else {
                    high = high.min(x);
                }
            }
            if high - low < thickness + kind.radii() - 1e-12 * (1.0 + scale) {
                return Err(AuditFailure {
                    pair: Some(k),
                    time: t.seconds(),
                    what: "a slab no longer separates its pair by its thickness",
                });
            }
        }
        Ok(())
    }
}

impl ContactManager {
    /// Audit of the broad phase: every candidate primitive pair whose gap is below the reach
    /// profitability·η(1) (what both kinetic broad phases promise) holds a pair. Finds close
    /// primitives by its own sweep over bounding boxes sorted along x, never through the grid or
    /// the k-DOP front; nothing to check for all pairs, where every candidate holds one.
    fn audit_broad_phase(&self, model: &Model, t: Time) -> Result<(), AuditFailure> {
        if self.broad.is_all_pairs() {
            return Ok(());
        }
        let v = &model.vertices;
        let reach = self.settings.reach();
        // boxes inflated by radius + reach/2: primitives whose boxes miss each other are farther
        // apart than the reach
        let mut boxes: Vec<(Vec3, Vec3, u32)> = (0..self.broad.len() as u32)
            .map(|i| {
                let grow = Vec3::repeat(self.broad.radius(i) + 0.5 * reach);
                let x = self.broad.vertices(i).iter().map(|&u| v.position_at(u, t.seconds()));
                let (lo, hi) = x
                    .fold((Vec3::repeat(Real::INFINITY), Vec3::repeat(Real::NEG_INFINITY)), |(lo, hi), x| {
                        (lo.inf(&x), hi.sup(&x))
                    });
                (lo - grow, hi + grow, i)
            })
            .collect();
        boxes.sort_by(|a, b| a.0.x.total_cmp(&b.0.x).then(a.2.cmp(&b.2)));
        let mut x: SmallVec<[Vec3; 4]> = SmallVec::new();
        for (n, a) in boxes.iter().enumerate() {
            for b in boxes[n + 1..].iter().take_while(|b| b.0.x <= a.1.x) {
                if (1..3).any(|c| a.1[c] < b.0[c] || b.1[c] < a.0[c]) {
                    continue;
                }
                let (i, j) = (a.2.min(b.2), a.2.max(b.2));
                if self.pair_between(i, j).is_some() {
                    continue;
                }
                let Some(kind) = self.broad.pair_kind(i, j) else { continue };
                x.clear();
                x.extend(kind.vertices().iter().map(|&u| v.position_at(u, t.seconds())));
                if kind.measure(&x).gap < reach * (1.0 - 1e-9) {
                    return Err(AuditFailure {
                        pair: None,
                        time: t.seconds(),
                        what: "two primitives closer than the reach hold no pair: the broad phase missed them",
                    });
                }
            }
        }
        Ok(())
    }
}

/// Heap bytes of a thin vector: nothing while it holds nothing, else a header of its length and
/// capacity before its elements.
fn thin_vec_bytes<T>(list: &ThinVec<T>) -> usize {
    match list.capacity() {
        0 => 0,
        n => 2 * std::mem::size_of::<usize>() + n * std::mem::size_of::<T>(),
    }
}

/// Asks the queue for k-DOP front record `id`'s certificate at `at`, or drops it if it never fails.
fn request_front(id: u32, at: Real, out: &mut Vec<Schedule>) {
    match Time::new(at) {
        Some(at) if at.seconds().is_finite() => out.push(Schedule::BroadPhase(id, at)),
        _ => out.push(Schedule::ForgetBroadPhase(id)),
    }
}

/// What the audit found wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditFailure {
    /// The pair (`None` when the broad phase missed a pair).
    pub pair: Option<PairId>,
    /// When, s.
    pub time: Real,
    /// What is wrong.
    pub what: &'static str,
}

impl fmt::Display for AuditFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pair {
            Some(pair) => write!(f, "audit at t = {} s: contact pair {}: {}", self.time, pair.index(), self.what),
            None => write!(f, "audit at t = {} s: {}", self.time, self.what),
        }
    }
}

/// Coulomb friction with an impulse of magnitude `limit` against the relative tangential velocity
/// of the closest points (ACM §6.3), split over the stencil like the normal impulse, so linear
/// momentum is kept exactly. The relative velocity is the one the stencil arrived with, before any
/// kick at this instant ([`crate::model::Vertices::arrival_velocity`]), so simultaneous friction
/// impulses commute (law 8).
fn apply_friction(vertices: &[VertexId], gradient: &[Vec3], normal: Vec3, limit: Real, v: &mut crate::model::Vertices) {
    // signed weights s_u: ∇_u d = s_u · n
    let weights: SmallVec<[Real; 4]> = gradient.iter().map(|g| g.dot(&normal)).collect();
    let relative: Vec3 = vertices.iter().zip(&weights).map(|(&u, s)| v.arrival_velocity(u) * *s).sum();
    let tangential = relative - normal * normal.dot(&relative);
    let Some(direction) = tangential.try_normalize(1e-300) else { return };
    for (&u, s) in vertices.iter().zip(&weights) {
        v.kick(u, direction * (limit * s));
    }
}

/// A contact pair closer than η(1) at t = 0.
#[derive(Clone, Debug, PartialEq)]
pub struct StartError {
    /// The pair's vertices (global indices), low side first.
    pub vertices: Vec<u32>,
    /// Its gap, m.
    pub gap: Real,
    /// η(1), m.
    pub thickness: Real,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::Body;

    /// Two unit spheres of radius 0.1 with centres 1 m apart on the x axis, at rest.
    fn two_spheres() -> Model {
        two_spheres_apart(1.0)
    }

    /// Two unit spheres of radius 0.1 with centres `d` apart on the x axis, at rest.
    fn two_spheres_apart(d: Real) -> Model {
        let mut model = Model::new();
        model.add_body(
            Body::new("s", BodyKind::Particles { radius: 0.1 }),
            &[Vec3::zeros(), Vec3::x() * d],
            &[Vec3::zeros(); 2],
            &[1.0; 2],
        );
        model
    }

    fn settings() -> ContactSettings {
        // all pairs: these tests are about one pair's certificate, not about the broad phase
        ContactSettings {
            tolerance: 0.1,
            broad_phase: BroadPhaseKind::AllPairs,
            ..ContactSettings::new(LayerSchedule { thickness: 0.05, stiffness: 100.0 }, 0.05)
        }
    }

    /// The failure time the manager asked the queue for, for pair 0.
    fn requested(out: &[Schedule]) -> Option<Real> {
        out.iter().rev().find_map(|s| match s {
            Schedule::Certificate(_, t) => Some(t.seconds()),
            _ => None,
        })
    }

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
        for k in 0..=100 {
            let t = Time::new(failure * k as Real / 100.0).unwrap();
            manager.audit(&model, t).unwrap_or_else(|e| panic!("{e}"));
        }
    }

    #[test]
    fn a_layer_tick_that_does_not_push_moves_no_vertex() {
        // spheres at rest, 0.053 m apart: within the profitability margin of η(1) = 0.05 m, so
        // layer 1 starts at once, but its ticks do not push. An idle tick only measures: the
        // vertices keep their time and position, so which idle ticks a broad phase schedules
        // cannot change the round-off of the trajectory (law 5)
        let mut model = two_spheres_apart(0.253);
        let mut manager = ContactManager::new(&model, settings());
        let out = manager.start(&model).unwrap();
        let (k, at) = out
            .iter()
            .find_map(|s| match *s {
                Schedule::Layer(k, 1, at) => Some((k, at)),
                _ => None,
            })
            .expect("layer 1 started");
        let before: Vec<(Vec3, Real)> =
            (0..2).map(|i| (model.vertices.position(VertexId(i)), model.vertices.t_last(VertexId(i)))).collect();
        let outcome = manager.layer_tick(k, 1, at, &mut model, &mut Vec::new()).unwrap();
        assert!(!outcome.kicked, "the layer is not penetrated");
        let after: Vec<(Vec3, Real)> =
            (0..2).map(|i| (model.vertices.position(VertexId(i)), model.vertices.t_last(VertexId(i)))).collect();
        assert_eq!(before, after, "an idle tick drifted its stencil");
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

    #[test]
    fn the_audit_catches_a_slab_whose_direction_no_longer_separates_its_pair() {
        // spheres (radius 0.1) 1 m apart along x: a slab along x separates them by 0.8 m
        let model = two_spheres();
        let mut manager = ContactManager::new(&model, settings());
        manager.start(&model).unwrap();
        manager.audit(&model, Time::ZERO).unwrap();
        let pair = manager.pairs.keys().next().expect("the spheres' pair");
        assert_eq!(manager.pairs[pair].guard, Guard::Slab);
        // along y the centres are not apart at all: no slab on it separates them
        manager.pairs[pair].direction = SlabDirection::round(&Vec3::y());
        let failure = manager.audit(&model, Time::ZERO).expect_err("a slab along y separates nothing");
        assert_eq!(failure.pair, Some(pair));
        // and a pair with neither layers nor a guard is unguarded
        manager.pairs[pair].guard = Guard::None;
        assert_eq!(manager.audit(&model, Time::ZERO).unwrap_err().what, "no layer and no slab");
    }

    #[test]
    fn a_pair_record_stays_small() {
        // a pair exists for every pair of near primitives, a hundred thousand at once on
        // `spikes`: its record is most of the contact bookkeeping (docs/performance.md)
        assert_eq!(PairStore::<Pair>::SLOT_BYTES, 32, "a pair's slot, live or vacant");
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
