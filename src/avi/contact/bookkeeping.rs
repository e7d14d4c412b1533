//! The contact bookkeeping's size by part and the contact counters (pairs made and removed,
//! deepest layer, smallest gap, re-certifications): what `summary.json`, `contact.csv` and the
//! profile report (issue 4's memory goal is stated per vertex: `docs/performance.md`). A leaf.

use crate::math::Real;
use thin_vec::ThinVec;

/// Estimated heap bytes of the contact bookkeeping, by part (issue 4's memory goal; what each
/// part holds is in `docs/performance.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
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
    /// (the engine's, counted where it reports them; 0 in `ContactManager::bookkeeping_parts`).
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

/// What the contact manager counts over a run.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub(super) struct ContactCounters {
    /// Pairs made by the broad phase after the start.
    pub(super) pairs_created: u64,
    /// Pairs removed by the broad phase.
    pub(super) pairs_removed: u64,
    /// Most pairs alive at once.
    pub(super) peak_pairs: usize,
    /// Largest bookkeeping size recorded at a frame, by part.
    pub(super) peak_bytes: BookkeepingBytes,
    /// Deepest layer ever activated.
    pub(super) deepest_layer: u32,
    /// Smallest gap seen at a layer or certificate event, m.
    pub(super) smallest_gap: Real,
    /// Certificates recomputed because a kick left their tube.
    pub(super) reschedules: u64,
    /// Kicked vertices whose new velocity stayed in every tube.
    pub(super) vague_skips: u64,
    /// Slab certificates a kick that left a tube did not need to recompute: the kicked vertex is
    /// no faster toward the slab than before.
    pub(super) slab_keeps: u64,
}

impl Default for ContactCounters {
    fn default() -> Self {
        ContactCounters {
            pairs_created: 0,
            pairs_removed: 0,
            peak_pairs: 0,
            peak_bytes: BookkeepingBytes::default(),
            deepest_layer: 0,
            smallest_gap: Real::INFINITY,
            reschedules: 0,
            vague_skips: 0,
            slab_keeps: 0,
        }
    }
}

/// Heap bytes of a thin vector: nothing while it holds nothing, else a header of its length and
/// capacity before its elements.
pub(super) fn thin_vec_bytes<T>(list: &ThinVec<T>) -> usize {
    match list.capacity() {
        0 => 0,
        n => 2 * std::mem::size_of::<usize>() + n * std::mem::size_of::<T>(),
    }
}
