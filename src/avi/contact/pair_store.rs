//! The store of contact pair records: one vector of slots addressed by 4-byte handles, vacated
//! slots reused last-freed first, grown by an eighth at a time.
//!
//! Pairs come and go with the broad phase (ACM §5.2, Phantom §4), and at a landing their records
//! are most of the contact bookkeeping (`docs/performance.md`). A general slot map doubles its
//! capacity and carries a version per slot; here the capacity stays within an eighth of the most
//! pairs alive at once, and a handle is a bare index. The contact manager keeps handles valid: a
//! pair's events leave the queue before its slot is freed ([`super::schedule::Schedule::Forget`]).

use crate::ids::PairId;
use std::ops::{Index, IndexMut};

/// A slot: a live record, or a vacancy holding the next vacancy (`u32::MAX`: none).
#[derive(serde::Serialize, serde::Deserialize, Debug)]
enum Slot<T> {
    Live(T),
    Vacant(u32),
}

/// Records of type `T` addressed by [`PairId`].
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub struct PairStore<T> {
    slots: Vec<Slot<T>>,
    /// The most recently vacated slot (`u32::MAX`: none).
    vacant: u32,
    len: usize,
}

impl<T> Default for PairStore<T> {
    fn default() -> Self {
        PairStore { slots: Vec::new(), vacant: u32::MAX, len: 0 }
    }
}

impl<T> PairStore<T> {
    /// Bytes of one slot, live or vacant (for memory estimates).
    pub const SLOT_BYTES: usize = std::mem::size_of::<Slot<T>>();

    /// Stores `record` in the most recently vacated slot, or a new one; returns its handle.
    ///
    /// Panics past 2³² − 1 slots.
    pub fn insert(&mut self, record: T) -> PairId {
        self.len += 1;
        if self.vacant != u32::MAX {
            let k = self.vacant;
            let Slot::Vacant(next) = self.slots[k as usize] else {
                unreachable!("the vacancy list holds vacant slots")
            };
            self.vacant = next;
            self.slots[k as usize] = Slot::Live(record);
            return PairId::from_handle(k);
        }
        let k = u32::try_from(self.slots.len()).ok().filter(|&k| k != u32::MAX).expect("fewer than 2³² − 1 pairs");
        if self.slots.len() == self.slots.capacity() {
            self.slots.reserve_exact((self.slots.len() / 8).max(64));
        }
        self.slots.push(Slot::Live(record));
        PairId::from_handle(k)
    }

    /// Removes and returns the record of `k`, if it is live.
    pub fn remove(&mut self, k: PairId) -> Option<T> {
        let slot = self.slots.get_mut(k.index())?;
        if !matches!(slot, Slot::Live(_)) {
            return None;
        }
        let Slot::Live(record) = std::mem::replace(slot, Slot::Vacant(self.vacant)) else { unreachable!() };
        self.vacant = k.handle();
        self.len -= 1;
        Some(record)
    }

    /// The record of `k`, if it is live.
    pub fn get(&self, k: PairId) -> Option<&T> {
        match self.slots.get(k.index()) {
            Some(Slot::Live(record)) => Some(record),
            _ => None,
        }
    }

    /// The record of `k`, if it is live, to change.
    pub fn get_mut(&mut self, k: PairId) -> Option<&mut T> {
        match self.slots.get_mut(k.index()) {
            Some(Slot::Live(record)) => Some(record),
            _ => None,
        }
    }

    /// Live records.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Slots allocated (live, vacant and not yet used).
    pub fn capacity(&self) -> usize {
        self.slots.capacity()
    }

    /// Live records with their handles, in slot order.
    pub fn iter(&self) -> impl Iterator<Item = (PairId, &T)> {
        self.slots.iter().enumerate().filter_map(|(k, slot)| match slot {
            Slot::Live(record) => Some((PairId::from_handle(k as u32), record)),
            Slot::Vacant(_) => None,
        })
    }

    /// Live handles, in slot order.
    pub fn keys(&self) -> impl Iterator<Item = PairId> + '_ {
        self.iter().map(|(k, _)| k)
    }

    /// Live records, in slot order.
    pub fn values(&self) -> impl Iterator<Item = &T> {
        self.iter().map(|(_, record)| record)
    }

    /// Live records, in slot order, to change.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.slots.iter_mut().filter_map(|slot| match slot {
            Slot::Live(record) => Some(record),
            Slot::Vacant(_) => None,
        })
    }
}

impl<T> Index<PairId> for PairStore<T> {
    type Output = T;

    /// Panics if `k` is not live.
    fn index(&self, k: PairId) -> &T {
        self.get(k).expect("a live pair")
    }
}

impl<T> IndexMut<PairId> for PairStore<T> {
    /// Panics if `k` is not live.
    fn index_mut(&mut self, k: PairId) -> &mut T {
        self.get_mut(k).expect("a live pair")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn a_vacated_slot_is_reused_last_freed_first() {
        let mut store = PairStore::default();
        let [a, b, c] = [10, 20, 30].map(|x| store.insert(x));
        assert_eq!(store.remove(a), Some(10));
        assert_eq!(store.remove(c), Some(30));
        assert_eq!(store.remove(c), None, "a vacant slot has nothing to remove");
        assert_eq!(store.insert(40), c);
        assert_eq!(store.insert(50), a);
        assert_eq!(store.values().copied().collect::<Vec<_>>(), [50, 20, 40]);
        assert_eq!(store[b], 20);
        assert_eq!(store.len(), 3);
    }

    #[test]
    fn the_capacity_grows_by_an_eighth() {
        let mut store = PairStore::default();
        for x in 0..100_000u32 {
            store.insert(x);
        }
        assert!(store.capacity() <= 100_000 + 100_000 / 8 + 64, "capacity {}", store.capacity());
    }

    proptest! {
        /// Against a map from handles to records: the same live records, whatever the order of
        /// inserts and removals.
        #[test]
        fn the_store_holds_what_a_map_holds(ops in proptest::collection::vec((any::<bool>(), 0usize..64), 1..400)) {
            let mut store = PairStore::default();
            let mut reference: BTreeMap<PairId, usize> = BTreeMap::new();
            for (n, (insert, pick)) in ops.into_iter().enumerate() {
                if insert || reference.is_empty() {
                    let k = store.insert(n);
                    prop_assert!(reference.insert(k, n).is_none(), "a live handle was given out again");
                } else {
                    let k = *reference.keys().nth(pick % reference.len()).unwrap();
                    prop_assert_eq!(store.remove(k), reference.remove(&k));
                }
                prop_assert_eq!(store.len(), reference.len());
            }
            let live: Vec<(PairId, usize)> = store.iter().map(|(k, &x)| (k, x)).collect();
            prop_assert_eq!(live, reference.into_iter().collect::<Vec<_>>());
        }
    }
}
