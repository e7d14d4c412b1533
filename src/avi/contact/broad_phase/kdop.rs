//! The kinetic k-DOP hierarchy (ACM §5.5–5.6): the alternative broad phase to the hash grid.
//!
//! **Trees.** The contact primitives are split by class into four bounding-volume trees
//! (triangles, mesh and chain points, spheres, segments), each built once, top down, by median
//! splits of the primitives' centroids at t = 0. A node's k-DOP is never stored: it is the 26-DOP
//! of its vertices' vague tubes ([`crate::kds::kdop`]), computed when a certificate needs it.
//!
//! **Front.** The broad-phase traversal of two trees (triangles against points and spheres;
//! segments and spheres each against themselves) is kinetized after Weller and Zachmann (2006):
//! its state is the *front*, a cut through the traversal tree, and each front record holds a
//! certificate that says when the traversal may take a different path:
//!
//! - a **separated** record (node pair whose k-DOPs are apart by more than the reach plus half a
//!   slack) holds a non-overlap certificate: its best axis's linear envelope, which fails when the gap may
//!   reach the contact reach. On failure the k-DOPs are recomputed; if they are still apart by the
//!   reach plus half the slack the record is reconfirmed (§5.6), otherwise the pair descends into
//!   its children (the node with more primitives is split);
//! - an **overlapping** record (two leaves not separated) is a primitive pair that holds a contact
//!   pair; its overlap certificate fails when some axis may separate them by the reach plus the
//!   slack; then, if they are apart by the reach plus half the slack, it turns separated and its
//!   contact pair goes, else the certificate is renewed;
//! - a **descended** record (a split pair) links its children and holds an overlap certificate
//!   on its own nodes: when its k-DOPs are apart again, the records below it are dropped (their
//!   contact pairs lost) and it turns separated, so the front (and memory) shrinks when contact
//!   goes away.
//!
//! **Supports.** A separated record's support is every vertex of its two nodes (ACM Table 1). A
//! kick that re-centres a vertex's tube widens the envelope of each separated record above the
//! vertex's primitives in O(1) ([`crate::kds::kdop::AxisGap::admit`]) and reschedules it. Overlap
//! certificates only decide when a pair or a subtree may be freed, so a kick leaves a scheduled
//! one alone (it may then fire late, which only delays the freeing); one that never fails on the
//! tubes it was computed on is instead *watched*, and the next kick that moves a tube below it
//! re-checks it at once.

use super::kinetic::{BroadPhaseChange, KineticBroadPhase};
use super::primitives::Primitives;
use crate::avi::contact::pair::{Primitive, Shape};
use crate::avi::contact::schedule::{request_front, Schedule};
use crate::avi::contact::tube::TubeOf;
use crate::ids::VertexId;
use crate::kds::hash_grid::FixedHashMap;
use crate::kds::kdop::{overlap_time, separating_axis, AxisGap, Side, TubePoint, AXES, NATURAL_ORDER};
use crate::math::{Real, Vec3};
use crate::model::Model;
use smallvec::SmallVec;

/// No node, no record.
const NONE: u32 = u32::MAX;

/// A node of one of the trees: the primitives `order[first..end]`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
struct Node {
    first: u32,
    end: u32,
    /// The two children, or [`NONE`] for a leaf.
    children: [u32; 2],
    parent: u32,
    /// Every primitive below is held (fixed or scripted): two held nodes never need a pair.
    held: bool,
}

/// What a front record is.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
enum State {
    /// An unused slot.
    Free,
    /// The nodes' k-DOPs are apart: `gap` is the envelope of the best axis from time `base`;
    /// `until` is the next change of a scripted velocity among their vertices.
    Separated { gap: AxisGap, base: Real, until: Real },
    /// Two leaves whose k-DOPs are not apart: their primitives hold a contact pair. `watched`:
    /// its overlap certificate never fails on the current tubes, so it waits in the nodes' watch
    /// lists for a kick that moves a tube.
    Overlapping { watched: bool },
    /// The pair was split: its records are `children` (up to two, [`NONE`]-padded). It holds an
    /// overlap certificate on its own nodes: once they are apart, the records below are dropped.
    Descended { children: [u32; 2], watched: bool },
}

/// A record of the front.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
struct Record {
    /// The node pair (lower id first).
    nodes: [u32; 2],
    /// The certificate's learned axis order (§5.6's adaptive short-circuit), packed four bits per
    /// axis ([`pack`]).
    order: u64,
    state: State,
}

/// Packs an axis order into four bits per axis.
fn pack(order: &[u8; AXES]) -> u64 {
    order.iter().rev().fold(0, |packed, &axis| (packed << 4) | axis as u64)
}

/// The axis order [`pack`] packed.
fn unpack(packed: u64) -> [u8; AXES] {
    std::array::from_fn(|k| ((packed >> (4 * k)) & 0xf) as u8)
}

/// What a change of the front asks of the contact manager.
#[derive(Debug, Default)]
pub(super) struct FrontChanges {
    /// Primitive pairs (i < j) that now overlap: they need a contact pair.
    pub gained: Vec<(u32, u32)>,
    /// Primitive pairs (i < j) that no longer overlap.
    pub lost: Vec<(u32, u32)>,
    /// Records whose certificate must fire at this time, s (replacing any pending one).
    pub schedule: Vec<(u32, Real)>,
    /// Records that were removed: their pending certificate must go.
    pub forget: Vec<u32>,
}

/// The trees, the front and its certificates.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub(in crate::avi::contact) struct KdopHierarchy {
    nodes: Vec<Node>,
    /// The primitives in tree order: each node covers a contiguous range.
    order: Vec<u32>,
    /// The leaf of each primitive.
    leaf_of: Vec<u32>,
    /// The roots of the triangle, point, sphere and segment trees.
    roots: [u32; 4],
    records: Vec<Record>,
    free: Vec<u32>,
    /// The overlapping record of each primitive pair (i < j) that has one.
    overlapping: FixedHashMap<(u32, u32), u32>,
    /// For each node, the records naming it that a kick below must revisit: separated records
    /// (their envelopes widen) and overlap certificates that never fail on the current tubes
    /// (they are re-checked at once).
    watched_of: Vec<SmallVec<[u32; 2]>>,
    /// Visit marks of [`Self::tube_moved`].
    visited: Vec<u32>,
    visit: u32,
    /// A pair must exist while its gap may be below this, m.
    reach: Real,
    /// Hysteresis, m: two k-DOPs count as apart beyond `reach + slack / 2`; an overlap certificate
    /// fails when they may be apart by `reach + slack`.
    slack: Real,
    /// State of the xorshift that picks the random axis of the short-circuit (deterministic).
    random: u64,
    scratch: [Vec<TubePoint>; 2],
    scratch_ids: Vec<u32>,
    /// The front's certificates at the start, until [`KineticBroadPhase::start`] asks for them.
    start_schedule: Vec<(u32, Real)>,
    /// Records a kick rescheduled (reused, so kicks allocate nothing).
    moved_scratch: Vec<(u32, Real)>,
}

impl KdopHierarchy {
    /// The four trees over `primitives` (positions `x`); the front is empty until [`Self::build_front`].
    pub(super) fn new(primitives: &[Primitive], x: &dyn Fn(VertexId) -> Vec3, reach: Real, slack: Real) -> Self {
        let mut h = KdopHierarchy {
            nodes: Vec::new(),
            order: Vec::with_capacity(primitives.len()),
            leaf_of: vec![NONE; primitives.len()],
            roots: [NONE; 4],
            records: Vec::new(),
            free: Vec::new(),
            overlapping: FixedHashMap::default(),
            watched_of: Vec::new(),
            visited: Vec::new(),
            visit: 0,
            reach,
            slack,
            random: 0x9e37_79b9_7f4a_7c15,
            scratch: [Vec::new(), Vec::new()],
            scratch_ids: Vec::new(),
            start_schedule: Vec::new(),
            moved_scratch: Vec::new(),
        };
        let centroids: Vec<Vec3> = primitives
            .iter()
            .map(|p| p.vertices().iter().map(|&u| x(u)).sum::<Vec3>() / p.vertices().len() as Real)
            .collect();
        for class in 0..4 {
            let mut members: Vec<u32> =
                (0..primitives.len() as u32).filter(|&i| class_of(primitives[i as usize].shape) == class).collect();
            if !members.is_empty() {
                h.roots[class] = h.build(&mut members, NONE, &centroids, primitives);
            }
        }
        h.watched_of = vec![SmallVec::new(); h.nodes.len()];
        h.visited = vec![0; h.nodes.len()];
        h
    }

    /// The four trees over `primitives` (positions `x`) and their front at t = 0 on the tubes
    /// `tube` (its certificates are asked for by [`KineticBroadPhase::start`]).
    pub(super) fn with_front(
        primitives: &Primitives,
        x: &dyn Fn(VertexId) -> Vec3,
        reach: Real,
        slack: Real,
        tube: &TubeOf,
    ) -> Self {
        let mut hierarchy = KdopHierarchy::new(primitives.all(), x, reach, slack);
        hierarchy.start_schedule = hierarchy.build_front(0.0, primitives.all(), tube).schedule;
        hierarchy
    }

    /// Builds the subtree over `members` (reordered), returns its node.
    fn build(&mut self, members: &mut [u32], parent: u32, centroids: &[Vec3], primitives: &[Primitive]) -> u32 {
        let id = self.nodes.len() as u32;
        let first = self.order.len() as u32;
        self.nodes.push(Node { first, end: first, children: [NONE; 2], parent, held: true });
        if let [only] = members {
            self.order.push(*only);
            self.leaf_of[*only as usize] = id;
            let node = &mut self.nodes[id as usize];
            node.end = first + 1;
            node.held = primitives[*only as usize].held;
            return id;
        }
        // median split along the widest spread of the centroids (ties by primitive index)
        let (lo, hi) =
            members.iter().fold((Vec3::repeat(Real::INFINITY), Vec3::repeat(Real::NEG_INFINITY)), |(lo, hi), &i| {
                (lo.inf(&centroids[i as usize]), hi.sup(&centroids[i as usize]))
            });
        let spread = hi - lo;
        let c = if spread.x >= spread.y && spread.x >= spread.z {
            0
        } else if spread.y >= spread.z {
            1
        } else {
            2
        };
        members
            .sort_unstable_by(|&i, &j| centroids[i as usize][c].total_cmp(&centroids[j as usize][c]).then(i.cmp(&j)));
        let (left, right) = members.split_at_mut(members.len() / 2);
        let a = self.build(left, id, centroids, primitives);
        let b = self.build(right, id, centroids, primitives);
        let held = self.nodes[a as usize].held && self.nodes[b as usize].held;
        let node = &mut self.nodes[id as usize];
        node.children = [a, b];
        node.end = self.order.len() as u32;
        node.held = held;
        id
    }

    /// Builds the front at time `t`: triangles against points and spheres, segments and spheres
    /// each against themselves.
    fn build_front(&mut self, t: Real, primitives: &[Primitive], tube: &TubeOf) -> FrontChanges {
        let mut out = FrontChanges::default();
        let [triangles, points, spheres, segments] = self.roots;
        for other in [points, spheres] {
            if triangles != NONE && other != NONE {
                self.place(triangles, other, NATURAL_ORDER, t, primitives, tube, &mut out);
            }
        }
        for root in [segments, spheres] {
            if root != NONE {
                self.expand_self(root, t, primitives, tube, &mut out);
            }
        }
        out
    }

    /// A node against itself always overlaps: its children against themselves and each other.
    fn expand_self(&mut self, n: u32, t: Real, primitives: &[Primitive], tube: &TubeOf, out: &mut FrontChanges) {
        let [a, b] = self.nodes[n as usize].children;
        if a == NONE {
            return;
        }
        self.expand_self(a, t, primitives, tube, out);
        self.expand_self(b, t, primitives, tube, out);
        self.place(a, b, NATURAL_ORDER, t, primitives, tube, out);
    }

    fn is_leaf(&self, n: u32) -> bool {
        self.nodes[n as usize].children[0] == NONE
    }

    fn size(&self, n: u32) -> u32 {
        let node = &self.nodes[n as usize];
        node.end - node.first
    }

    /// The primitive of leaf `n`.
    fn primitive(&self, n: u32) -> u32 {
        self.order[self.nodes[n as usize].first as usize]
    }

    /// The primitive pair (i < j) of two leaves.
    fn primitive_pair(&self, a: u32, b: u32) -> (u32, u32) {
        let (i, j) = (self.primitive(a), self.primitive(b));
        (i.min(j), i.max(j))
    }

    /// False if no primitive pair below `a` and `b` can ever need a contact pair.
    fn may_pair(&self, a: u32, b: u32, primitives: &[Primitive]) -> bool {
        if self.nodes[a as usize].held && self.nodes[b as usize].held {
            return false;
        }
        if self.is_leaf(a) && self.is_leaf(b) {
            let (p, q) = (&primitives[self.primitive(a) as usize], &primitives[self.primitive(b) as usize]);
            return !p.vertices().iter().any(|u| q.vertices().contains(u));
        }
        true
    }

    /// True if a vertex belongs to primitives below both `a` and `b` (so their k-DOPs always
    /// touch).
    fn share_vertex(&mut self, a: u32, b: u32, primitives: &[Primitive]) -> bool {
        let (small, large) = if self.size(a) <= self.size(b) { (a, b) } else { (b, a) };
        let range = |n: u32| self.nodes[n as usize].first as usize..self.nodes[n as usize].end as usize;
        let (small, large) = (range(small), range(large));
        let ids = &mut self.scratch_ids;
        ids.clear();
        for &i in &self.order[small] {
            ids.extend(primitives[i as usize].vertices().iter().map(|u| u.0));
        }
        ids.sort_unstable();
        ids.dedup();
        self.order[large]
            .iter()
            .any(|&i| primitives[i as usize].vertices().iter().any(|u| ids.binary_search(&u.0).is_ok()))
    }

    /// The node pairs a pair descends into: the children of its larger node (ties: the lower id).
    fn child_pairs(&self, a: u32, b: u32) -> [(u32, u32); 2] {
        let split_a = if self.is_leaf(a) {
            false
        } else if self.is_leaf(b) {
            true
        } else {
            let (sa, sb) = (self.size(a), self.size(b));
            sa > sb || (sa == sb && a < b)
        };
        let (split, other) = if split_a { (a, b) } else { (b, a) };
        self.nodes[split as usize].children.map(|c| (c.min(other), c.max(other)))
    }

    /// Fills `scratch[k]` with the tubes of node `n`'s vertices; returns the next scripted change.
    fn gather(&mut self, k: usize, n: u32, primitives: &[Primitive], tube: &TubeOf) -> Real {
        let node = &self.nodes[n as usize];
        let mut until = Real::INFINITY;
        let points = &mut self.scratch[k];
        points.clear();
        for &i in &self.order[node.first as usize..node.end as usize] {
            let p = &primitives[i as usize];
            let radius = p.radius();
            for &u in p.vertices() {
                let (tr, change) = tube(u);
                until = until.min(change);
                points.push(TubePoint { x: tr.x0, v: tr.v0, tolerance: tr.tolerance, radius });
            }
        }
        until
    }

    fn next_random(&mut self) -> u64 {
        let mut x = self.random;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.random = x;
        x
    }

    /// The non-overlap certificate of nodes `a` and `b` now, if their k-DOPs are apart by more than
    /// the reach plus half the slack, and the next scripted change among their vertices.
    ///
    /// Half the slack lies between this test and either certificate's failure (the reach for
    /// non-overlap, the reach plus the slack for overlap), so a certificate that is reconfirmed
    /// always gains at least half the slack over the fastest tube speed: no Zeno run of
    /// reconfirmations converging on a crossing.
    fn separation(
        &mut self,
        a: u32,
        b: u32,
        order: &mut [u8; AXES],
        primitives: &[Primitive],
        tube: &TubeOf,
    ) -> (Option<AxisGap>, Real) {
        let until = self.gather(0, a, primitives, tube).min(self.gather(1, b, primitives, tube));
        let random = self.next_random();
        let threshold = self.reach + 0.5 * self.slack;
        let gap = separating_axis(&self.scratch[0], &self.scratch[1], order, threshold, self.reach, random);
        (gap, until)
    }

    fn insert(&mut self, record: Record) -> u32 {
        match self.free.pop() {
            Some(id) => {
                self.records[id as usize] = record;
                id
            }
            None => {
                if self.records.len() == self.records.capacity() {
                    // grow by an eighth rather than double: the front is most of the hierarchy's
                    // memory (issue 4's bytes-per-vertex goal), and an eighth keeps pushes
                    // amortised O(1)
                    self.records.reserve_exact(self.records.len() / 8 + 64);
                }
                self.records.push(record);
                self.records.len() as u32 - 1
            }
        }
    }

    /// Removes record `id` (its certificate, if any, is forgotten).
    fn remove(&mut self, id: u32, out: &mut FrontChanges) {
        let record = std::mem::replace(
            &mut self.records[id as usize],
            Record { nodes: [NONE; 2], state: State::Free, order: pack(&NATURAL_ORDER) },
        );
        match record.state {
            State::Separated { .. } | State::Descended { watched: true, .. } => self.unlist(id, record.nodes),
            State::Overlapping { watched } => {
                if watched {
                    self.unlist(id, record.nodes);
                }
                let pair = self.primitive_pair(record.nodes[0], record.nodes[1]);
                self.overlapping.remove(&pair);
            }
            State::Descended { watched: false, .. } | State::Free => {}
        }
        self.free.push(id);
        out.forget.push(id);
    }

    fn list(&mut self, id: u32, nodes: [u32; 2]) {
        for n in nodes {
            self.watched_of[n as usize].push(id);
        }
    }

    fn unlist(&mut self, id: u32, nodes: [u32; 2]) {
        for n in nodes {
            self.watched_of[n as usize].retain(|r| *r != id);
        }
    }

    /// Makes record `id` separated with certificate `gap` from `t` and schedules it.
    fn separate(&mut self, id: u32, gap: AxisGap, t: Real, until: Real, out: &mut FrontChanges) {
        let nodes = self.records[id as usize].nodes;
        self.records[id as usize].state = State::Separated { gap, base: t, until };
        self.list(id, nodes);
        out.schedule.push((id, (t + gap.time_to(self.reach)).min(until)));
    }

    /// Makes record `id` (two leaves, their tubes in the scratch) overlapping at `t` and arms its
    /// overlap certificate.
    fn overlap(&mut self, id: u32, t: Real, until: Real, out: &mut FrontChanges) {
        let [a, b] = self.records[id as usize].nodes;
        self.records[id as usize].state = State::Overlapping { watched: false };
        let pair = self.primitive_pair(a, b);
        self.overlapping.insert(pair, id);
        out.gained.push(pair);
        self.arm_overlap(id, t, until, out);
    }

    /// Arms the overlap certificate of record `id` (overlapping or descended, not watched; its
    /// nodes' tubes in the scratch): scheduled at its failure time or the next scripted change
    /// `until`, or, if neither is finite, watched, so the next kick that moves a tube below
    /// re-checks it.
    fn arm_overlap(&mut self, id: u32, t: Real, until: Real, out: &mut FrontChanges) {
        let at = (t + overlap_time(&self.scratch[0], &self.scratch[1], self.reach + self.slack)).min(until);
        if at.is_finite() {
            out.schedule.push((id, at));
            return;
        }
        let nodes = self.records[id as usize].nodes;
        match &mut self.records[id as usize].state {
            State::Overlapping { watched } | State::Descended { watched, .. } => *watched = true,
            State::Separated { .. } | State::Free => unreachable!("only overlap certificates are armed"),
        }
        self.list(id, nodes);
        out.forget.push(id);
    }

    /// Places the node pair `a`, `b` at `t`: a separated record, an overlapping one, or a
    /// descended one with its children placed in turn. Returns the record, or `None` if no
    /// primitive pair below can ever need contact.
    #[allow(clippy::too_many_arguments)]
    fn place(
        &mut self,
        a: u32,
        b: u32,
        mut order: [u8; AXES],
        t: Real,
        primitives: &[Primitive],
        tube: &TubeOf,
        out: &mut FrontChanges,
    ) -> Option<u32> {
        if !self.may_pair(a, b, primitives) {
            return None;
        }
        let (gap, until) = self.separation(a, b, &mut order, primitives, tube);
        let id = self.insert(Record { nodes: [a, b], order: pack(&order), state: State::Free });
        match gap {
            Some(gap) => self.separate(id, gap, t, until, out),
            None if self.is_leaf(a) && self.is_leaf(b) => self.overlap(id, t, until, out),
            None if self.share_vertex(a, b, primitives) => {
                // connected nodes can never come apart: like a node against itself, the pair is
                // expanded for good and needs no record
                self.records[id as usize].state = State::Free;
                self.free.push(id);
                for (x, y) in self.child_pairs(a, b) {
                    self.place(x, y, order, t, primitives, tube, out);
                }
                return None;
            }
            None => {
                if !self.descend(id, t, until, false, primitives, tube, out) {
                    // nothing below can ever pair: no record
                    self.records[id as usize].state = State::Free;
                    self.free.push(id);
                    return None;
                }
            }
        }
        Some(id)
    }

    /// Record `id` (not separated, not two leaves; its nodes' tubes in the scratch, their next
    /// scripted change `until`) descends into its children and arms an overlap certificate on its
    /// own nodes, whose failure may merge the children back. Returns false if it has no children
    /// (nothing below can ever pair); it is descended all the same, and its certificate is armed
    /// only if `always_arm`.
    #[allow(clippy::too_many_arguments)]
    fn descend(
        &mut self,
        id: u32,
        t: Real,
        until: Real,
        always_arm: bool,
        primitives: &[Primitive],
        tube: &TubeOf,
        out: &mut FrontChanges,
    ) -> bool {
        // the certificate is armed on this pair's tubes, before the children overwrite the scratch
        let due = overlap_time(&self.scratch[0], &self.scratch[1], self.reach + self.slack);
        let Record { nodes: [a, b], order, .. } = self.records[id as usize];
        let mut children = [NONE; 2];
        let mut n = 0;
        for (x, y) in self.child_pairs(a, b) {
            if let Some(child) = self.place(x, y, unpack(order), t, primitives, tube, out) {
                children[n] = child;
                n += 1;
            }
        }
        self.records[id as usize].state = State::Descended { children, watched: false };
        if n > 0 || always_arm {
            let at = (t + due).min(until);
            if at.is_finite() {
                out.schedule.push((id, at));
            } else {
                self.records[id as usize].state = State::Descended { children, watched: true };
                self.list(id, [a, b]);
            }
        }
        n > 0
    }

    /// Record `id`'s certificate fired at `t`: a separated record is reconfirmed or descends (two
    /// leaves turn overlapping); an overlapping or descended one turns separated (dropping its
    /// records below) if its k-DOPs are now apart, else its overlap certificate is renewed.
    pub(super) fn event(&mut self, id: u32, t: Real, primitives: &[Primitive], tube: &TubeOf) -> FrontChanges {
        let mut out = FrontChanges::default();
        let Some(record) = self.records.get(id as usize) else { return out };
        let [a, b] = record.nodes;
        let mut order = unpack(record.order);
        let state = record.state.clone();
        match state {
            State::Free => return out,
            // a watched certificate leaves the watch lists; re-armed below if still needed
            State::Overlapping { watched: true } | State::Descended { watched: true, .. } => {
                self.unlist(id, [a, b]);
                match &mut self.records[id as usize].state {
                    State::Overlapping { watched } | State::Descended { watched, .. } => *watched = false,
                    _ => {}
                }
            }
            _ => {}
        }
        let (gap, until) = self.separation(a, b, &mut order, primitives, tube);
        self.records[id as usize].order = pack(&order);
        match (state, gap) {
            (State::Free, _) => {}
            (State::Separated { .. }, Some(gap)) => {
                self.unlist(id, [a, b]);
                self.separate(id, gap, t, until, &mut out);
            }
            (State::Separated { .. }, None) => {
                self.unlist(id, [a, b]);
                if self.is_leaf(a) && self.is_leaf(b) {
                    self.overlap(id, t, until, &mut out);
                } else {
                    // with no children it stays descended: its overlap certificate ends it
                    self.descend(id, t, until, true, primitives, tube, &mut out);
                }
            }
            (State::Overlapping { .. }, Some(gap)) => {
                let pair = self.primitive_pair(a, b);
                self.overlapping.remove(&pair);
                out.lost.push(pair);
                self.separate(id, gap, t, until, &mut out);
            }
            (State::Descended { children, .. }, Some(gap)) => {
                // the whole subtree is apart: one certificate covers it again
                for child in children.into_iter().filter(|&c| c != NONE) {
                    self.drop_subtree(child, &mut out);
                }
                self.separate(id, gap, t, until, &mut out);
            }
            (State::Overlapping { .. } | State::Descended { .. }, None) => self.arm_overlap(id, t, until, &mut out),
        }
        out
    }

    /// Removes record `id` and every record below it; overlapping leaf pairs among them are lost.
    fn drop_subtree(&mut self, id: u32, out: &mut FrontChanges) {
        match self.records[id as usize].state {
            State::Descended { children, .. } => {
                for child in children.into_iter().filter(|&c| c != NONE) {
                    self.drop_subtree(child, out);
                }
            }
            State::Overlapping { .. } => {
                let [a, b] = self.records[id as usize].nodes;
                out.lost.push(self.primitive_pair(a, b));
            }
            State::Separated { .. } | State::Free => {}
        }
        self.remove(id, out);
    }

    /// Vertex `u` (of `primitives_of_u`) left its tube at `t` and was re-centred on velocity `v`
    /// with tolerance ε: every separated record whose support holds it widens its envelope where
    /// the envelope did not already bound the new tube; their new failure times are appended to
    /// `schedule`.
    fn tube_moved_records(
        &mut self,
        primitives_of_u: &[u32],
        v: &Vec3,
        tolerance: Real,
        t: Real,
        schedule: &mut Vec<(u32, Real)>,
    ) {
        self.visit = self.visit.wrapping_add(1);
        if self.visit == 0 {
            self.visited.fill(0);
            self.visit = 1;
        }
        let start = schedule.len();
        for &p in primitives_of_u {
            let mut n = self.leaf_of[p as usize];
            while n != NONE && self.visited[n as usize] != self.visit {
                self.visited[n as usize] = self.visit;
                for &id in &self.watched_of[n as usize] {
                    let record = &mut self.records[id as usize];
                    let State::Separated { gap, base, until } = &mut record.state else {
                        // a watched overlap certificate: re-checked now, on the new tube
                        schedule.push((id, t));
                        continue;
                    };
                    let side = if record.nodes[0] == n { Side::Lower } else { Side::Upper };
                    // the envelope is a line: moving its base changes nothing, and if it already
                    // bounds the new tube the failure time (and the queue) stay as they are
                    let mut widened = *gap;
                    widened.advance(t - *base);
                    if widened.admit(side, v, tolerance) {
                        *gap = widened;
                        *base = t;
                        schedule.push((id, (t + gap.time_to(self.reach)).min(*until)));
                    }
                }
                n = self.nodes[n as usize].parent;
            }
        }
        // a record reached from both of its nodes is scheduled once, with its final bound
        schedule[start..].sort_by_key(|&(id, _)| id);
        let mut kept = start;
        for k in start..schedule.len() {
            if kept > start && schedule[kept - 1].0 == schedule[k].0 {
                schedule[kept - 1] = schedule[k];
            } else {
                schedule[kept] = schedule[k];
                kept += 1;
            }
        }
        schedule.truncate(kept);
    }

    /// True while primitives `i` and `j` are an overlapping leaf pair of the front.
    pub(super) fn overlapping(&self, i: u32, j: u32) -> bool {
        self.overlapping.contains_key(&(i.min(j), i.max(j)))
    }

    /// The primitive pairs (i < j) that overlap, in increasing order.
    pub(super) fn overlapping_pairs(&self) -> Vec<(u32, u32)> {
        let mut pairs: Vec<(u32, u32)> = self.overlapping.keys().copied().collect();
        pairs.sort_unstable();
        pairs
    }

    /// Records of the front, each with its certificate: separated (non-overlap), overlapping and
    /// descended (overlap).
    pub(super) fn certificates(&self) -> usize {
        self.records.len() - self.free.len()
    }

    /// Heap bytes of the trees and the front (an estimate from capacities).
    fn structure_bytes(&self) -> usize {
        use std::mem::size_of;
        let lists: usize = self.watched_of.iter().map(|l| if l.spilled() { l.capacity() * 4 } else { 0 }).sum();
        self.nodes.capacity() * size_of::<Node>()
            + (self.order.capacity() + self.leaf_of.capacity() + self.free.capacity() + self.visited.capacity()) * 4
            + self.records.capacity() * size_of::<Record>()
            + self.overlapping.capacity() * (size_of::<(u32, u32)>() + 4 + 1)
            + self.watched_of.capacity() * size_of::<SmallVec<[u32; 2]>>()
            + lists
            + self.scratch.iter().map(|s| s.capacity() * size_of::<TubePoint>()).sum::<usize>()
            + self.scratch_ids.capacity() * 4
    }
}

impl KineticBroadPhase for KdopHierarchy {
    fn label(&self) -> &'static str {
        "kdop"
    }

    fn candidate_pairs(&self, _: &Primitives) -> Vec<(u32, u32)> {
        self.overlapping_pairs()
    }

    fn start(&mut self, _: &Primitives, _: &TubeOf, out: &mut Vec<Schedule>) {
        for (id, at) in std::mem::take(&mut self.start_schedule) {
            request_front(id, at, out);
        }
    }

    /// Front record `id`'s certificate failed (ACM §5.5–5.6): it is reconfirmed, or the front
    /// descends or coarsens; its records' requests precede the pairs gained and lost.
    fn certificate_failed(
        &mut self,
        id: u32,
        t: Real,
        primitives: &Primitives,
        _: &Model,
        tube: &TubeOf,
        out: &mut Vec<Schedule>,
    ) -> BroadPhaseChange {
        let changes = self.event(id, t, primitives.all(), tube);
        for forgotten in changes.forget {
            out.push(Schedule::ForgetBroadPhase(forgotten));
        }
        for (record, at) in changes.schedule {
            request_front(record, at, out);
        }
        BroadPhaseChange { gained: changes.gained, lost: changes.lost, renewal: None }
    }

    fn tube_moved(
        &mut self,
        u: VertexId,
        t: Real,
        velocity: &Vec3,
        tolerance: Real,
        primitives: &Primitives,
        _: &TubeOf,
        out: &mut Vec<Schedule>,
    ) {
        let mut records = std::mem::take(&mut self.moved_scratch);
        self.tube_moved_records(primitives.of_vertex(u), velocity, tolerance, t, &mut records);
        for (record, at) in records.drain(..) {
            request_front(record, at, out);
        }
        self.moved_scratch = records;
    }

    fn overlap(&self, _: &Primitives, i: u32, j: u32) -> bool {
        self.overlapping(i, j)
    }

    /// Every overlapping leaf pair is a pair of two leaves (the front's bookkeeping is whole);
    /// whether it misses a near pair is the contact audit's sweep.
    fn audit(&self, primitives: &Primitives, _: Real, _: &dyn Fn(VertexId) -> Vec3) -> Result<(), &'static str> {
        let n = primitives.len() as u32;
        if self.overlapping.keys().any(|&(i, j)| i >= j || j >= n) {
            return Err("a k-DOP front's overlapping pair names no two primitives");
        }
        Ok(())
    }

    fn slack(&self) -> Real {
        self.slack
    }

    fn heap_bytes(&self) -> usize {
        self.structure_bytes()
    }

    fn front_records(&self) -> usize {
        self.certificates()
    }
}

/// The tree of a primitive shape: triangles, points, spheres, segments.
fn class_of(shape: Shape) -> usize {
    match shape {
        Shape::Triangle => 0,
        Shape::Point => 1,
        Shape::Sphere => 2,
        Shape::Segment => 3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axis_orders_pack_into_four_bits_each() {
        let mut order = NATURAL_ORDER;
        order.swap(0, 12);
        order.swap(3, 7);
        assert_eq!(unpack(pack(&order)), order);
        assert_eq!(unpack(pack(&NATURAL_ORDER)), NATURAL_ORDER);
    }

    #[test]
    fn a_front_record_stays_small() {
        // issue 4's memory goal: the records are most of the k-DOP hierarchy's bytes
        assert!(std::mem::size_of::<Record>() <= 64, "{} bytes", std::mem::size_of::<Record>());
    }
}
