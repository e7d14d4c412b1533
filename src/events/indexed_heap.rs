//! A compact 4-ary min-heap of `(Time, Seq)` keys (packed: [`Key`]) filed under small `u32` indexes, each index at
//! most once: the event queue's *indexed classes* ([`super::Filing::Indexed`]), for events that
//! come and go by the hundred thousand under a dense handle (contact certificates and first-layer
//! ticks, filed by pair, vertex or k-DOP record).
//!
//! It holds 20 bytes per entry (key and index, packed) and a 4-byte position per index, and no
//! event: the queue rebuilds an event from its class and index. The hashed heap of
//! `priority-queue` it replaces held about 65 bytes per entry (`docs/performance.md`).

use super::key::Key;

/// Children per node: four halves the depth of a binary heap and reads the children's keys from
/// adjacent memory.
const ARITY: usize = 4;

/// The position of an index that is not in the heap.
const ABSENT: u32 = u32::MAX;

/// One heap entry, packed to 20 bytes (4-byte alignment: the heap is most of the class's memory).
#[derive(Clone, Copy)]
#[repr(C, packed(4))]
struct Entry {
    key: Key,
    index: u32,
}

impl Entry {
    fn key(self) -> Key {
        self.key
    }
}

/// A min-heap of [`Key`]s, at most one per `u32` index.
#[derive(Default)]
pub(super) struct IndexedHeap {
    heap: Vec<Entry>,
    /// The heap position of each index, [`ABSENT`] if it is not in the heap.
    position: Vec<u32>,
}

/// Grows `capacity` by an eighth (at least 16), not by doubling: these tables are most of the
/// contact bookkeeping, and a doubled table can sit half empty at the peak.
fn grown(capacity: usize, needed: usize) -> usize {
    needed.max(capacity + capacity / 8 + 16)
}

impl IndexedHeap {
    /// Number of entries.
    pub(super) fn len(&self) -> usize {
        self.heap.len()
    }

    /// The key of `index`, if it is in the heap.
    pub(super) fn key_of(&self, index: u32) -> Option<Key> {
        let at = *self.position.get(index as usize)?;
        (at != ABSENT).then(|| self.heap[at as usize].key())
    }

    /// The smallest entry: its index and key.
    pub(super) fn peek(&self) -> Option<(u32, Key)> {
        self.heap.first().map(|&e| (e.index, e.key()))
    }

    /// Files `index` (not in the heap) at `key`.
    pub(super) fn push(&mut self, index: u32, key: Key) {
        assert!(index != ABSENT, "index {index} is reserved");
        let i = index as usize;
        if i >= self.position.len() {
            let len = grown(self.position.len(), i + 1);
            self.position.reserve_exact(len - self.position.len());
            self.position.resize(len, ABSENT);
        }
        debug_assert_eq!(self.position[i], ABSENT, "index {index} is already in the heap");
        if self.heap.len() == self.heap.capacity() {
            self.heap.reserve_exact(grown(self.heap.capacity(), self.heap.len() + 1) - self.heap.len());
        }
        self.heap.push(Entry { key, index });
        self.sift_up(self.heap.len() - 1);
    }

    /// Removes `index`; returns its key, or `None` if it was not in the heap.
    pub(super) fn remove(&mut self, index: u32) -> Option<Key> {
        let at = *self.position.get(index as usize)?;
        if at == ABSENT {
            return None;
        }
        let at = at as usize;
        let key = self.heap[at].key();
        let last = self.heap.pop().expect("an entry is in the heap");
        self.position[index as usize] = ABSENT;
        if at < self.heap.len() {
            self.heap[at] = last;
            self.position[last.index as usize] = at as u32;
            if last.key() < key {
                self.sift_up(at);
            } else {
                self.sift_down(at);
            }
        }
        Some(key)
    }

    /// Removes the smallest entry; returns its index and key.
    pub(super) fn pop(&mut self) -> Option<(u32, Key)> {
        let top = *self.heap.first()?;
        let last = self.heap.pop().expect("an entry is in the heap");
        self.position[top.index as usize] = ABSENT;
        if !self.heap.is_empty() {
            // the last entry is no earlier than the top it replaces: it can only sink
            self.heap[0] = last;
            self.sift_down(0);
        }
        Some((top.index, top.key()))
    }

    /// Moves `index` (in the heap) to `key`.
    pub(super) fn update(&mut self, index: u32, key: Key) {
        let at = self.position[index as usize] as usize;
        let old = self.heap[at].key();
        self.heap[at].key = key;
        if key < old {
            self.sift_up(at);
        } else {
            self.sift_down(at);
        }
    }

    /// Moves the smallest entry (the heap is not empty) to `key`, no smaller than its key: a pop
    /// and a push of the same index in one sift.
    pub(super) fn replace_top(&mut self, key: Key) {
        debug_assert!(self.heap[0].key() <= key, "replace_top only moves the top later");
        self.heap[0].key = key;
        self.sift_down(0);
    }

    /// Applies `f` to every key and restores the heap order.
    pub(super) fn rekey(&mut self, f: impl Fn(Key) -> Key) {
        for entry in &mut self.heap {
            entry.key = f(entry.key());
        }
        for at in (0..self.heap.len()).rev() {
            self.sift_down(at);
        }
    }

    /// Heap bytes held, from the capacities.
    /// Every entry, index and key, in heap order.
    pub(super) fn entries(&self) -> impl Iterator<Item = (u32, Key)> + '_ {
        self.heap.iter().map(|e| (e.index, e.key()))
    }

    pub(super) fn heap_bytes(&self) -> usize {
        self.heap.capacity() * std::mem::size_of::<Entry>() + self.position.capacity() * 4
    }

    fn place(&mut self, at: usize, entry: Entry) {
        self.heap[at] = entry;
        self.position[entry.index as usize] = at as u32;
    }

    fn sift_up(&mut self, mut at: usize) {
        let entry = self.heap[at];
        while at > 0 {
            let parent = (at - 1) / ARITY;
            if self.heap[parent].key() <= entry.key() {
                break;
            }
            self.place(at, self.heap[parent]);
            at = parent;
        }
        self.place(at, entry);
    }

    fn sift_down(&mut self, mut at: usize) {
        let entry = self.heap[at];
        let len = self.heap.len();
        loop {
            let first = at * ARITY + 1;
            if first >= len {
                break;
            }
            // the children as one slice: one bounds check, then keys read in order
            let children = &self.heap[first..(first + ARITY).min(len)];
            let (mut smallest, mut least) = (0, children[0].key());
            for (c, child) in children.iter().enumerate().skip(1) {
                if child.key() < least {
                    (smallest, least) = (c, child.key());
                }
            }
            if entry.key() <= least {
                break;
            }
            let child = first + smallest;
            self.place(at, self.heap[child]);
            at = child;
        }
        self.place(at, entry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::Seq;
    use crate::math::Time;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    fn key(t: u8, seq: Seq) -> Key {
        Key::new(Time::new(t as f64).unwrap(), seq)
    }

    #[test]
    fn an_entry_takes_twenty_bytes() {
        assert_eq!(std::mem::size_of::<Entry>(), 20);
    }

    proptest! {
        #[test]
        fn the_heap_agrees_with_an_ordered_map(ops in proptest::collection::vec((0u8..4, 0u32..64, 0u8..20), 1..500)) {
            // push / update / remove / pop against a map from index to key and a set of keys
            let mut heap = IndexedHeap::default();
            let mut model: BTreeMap<u32, Key> = BTreeMap::new();
            for (seq, &(op, index, t)) in ops.iter().enumerate() {
                let k = key(t, seq as Seq);
                match op {
                    0 | 1 if model.contains_key(&index) => {
                        heap.update(index, k);
                        model.insert(index, k);
                    }
                    0 | 1 => {
                        heap.push(index, k);
                        model.insert(index, k);
                    }
                    2 => prop_assert_eq!(heap.remove(index), model.remove(&index)),
                    _ => {
                        let expected = model.iter().min_by_key(|(_, &k)| k).map(|(&i, &k)| (i, k));
                        prop_assert_eq!(heap.pop(), expected);
                        if let Some((i, _)) = expected {
                            model.remove(&i);
                        }
                    }
                }
                prop_assert_eq!(heap.len(), model.len());
                prop_assert_eq!(heap.key_of(index), model.get(&index).copied());
            }
            // reversing every key's sequence number reorders ties
            heap.rekey(|k| k.with_seq(Seq::MAX - k.seq()));
            let mut rest: Vec<(u32, Key)> = model.iter().map(|(&i, &k)| (i, k.with_seq(Seq::MAX - k.seq()))).collect();
            rest.sort_by_key(|&(_, k)| k);
            let popped: Vec<(u32, Key)> = std::iter::from_fn(|| heap.pop()).collect();
            prop_assert_eq!(popped, rest);
        }
    }
}
