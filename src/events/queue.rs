//! A priority queue of events keyed by `(Time, Seq)`.
//!
//! Events fall in *classes* ([`EventQueue::with_classes`]), one heap each; a pop takes the best of
//! the heads, so the order is exactly that of one heap (every `Seq` is unique).
//!
//! - The **dense class** holds a closed set of frequent events, each filed under its own small
//!   index: the AVI engine's force ticks and frames, a few hundred thousand that fire millions of
//!   times. It is a 4-ary heap with a position per index (the indexed classes' heap, below; it
//!   replaced `orx-priority-queue`'s `DaryHeapOfIndices` at no cost in speed): no hashing, and the
//!   keys sit in the heap itself, so a sift compares neighbours in memory instead of chasing an
//!   index map (1.7–2.8× cheaper per pop and push than the sparse heap, the more so the larger the
//!   queue; `docs/performance.md`).
//!   Indexes may be put in *lanes* ([`EventQueue::assign_lane`]): first-in-first-out runs for
//!   events that recur with one common period, such as the force ticks of like elements on the
//!   period ladder. An event scheduled no earlier than the last one in its lane joins the lane's
//!   back; the dense class then pops the earliest lane head or heap top. A lane pop and push cost
//!   O(log lanes) on a small heap of heads and touch the lane's memory in order; anything out of
//!   order falls back to the heap, so the pop order never depends on lanes.
//! - **Indexed classes** hold events that come and go by the hundred thousand and mostly wait, each
//!   under a small `u32` handle of its class (the AVI engine's slab certificates and first-layer
//!   ticks by pair, broad-phase certificates by vertex or k-DOP record, layers 2–5 by pair and
//!   layer): a compact 4-ary heap with
//!   a 4-byte position per handle, which keeps no event but rebuilds it from class and handle
//!   ([`EventQueue::with_indexed_classes`]); 20 bytes per entry and 4 per handle, against the
//!   sparse class's 65 per entry.
//! - **Sparse classes** hold events without such an index (the deepest contact layers, keyed by
//!   pair and layer, and phantom steps): a binary heap with a hashed index map (`priority-queue`).
//!
//! Keys are packed into one integer that orders as `(Time, Seq)` ([`Key`]), so every comparison
//! in a sift or between class heads is one integer comparison.

use super::indexed_heap::IndexedHeap;
use super::key::Key;
pub use crate::error::QueueError;
use crate::math::Time;
use priority_queue::PriorityQueue;
use rustc_hash::FxBuildHasher;
use std::cmp::Reverse;
use std::collections::VecDeque;
use std::fmt;
use std::hash::Hash;

/// Scheduling sequence number: breaks ties between equal times in scheduling order (FIFO).
pub type Seq = u64;

type SparseHeap<K> = PriorityQueue<K, Reverse<Key>, FxBuildHasher>;

/// Where an event is filed ([`EventQueue::with_classes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Filing {
    /// In the dense class under this index. Distinct events must have distinct indexes. The
    /// class keeps a position table entry per index up to the largest one scheduled (the table
    /// grows to at least twice its size when a larger index comes), so indexes should be small
    /// and dense, such as registration numbers.
    Dense(usize),
    /// In sparse class `c` (less than the number of sparse classes).
    Sparse(usize),
    /// In indexed class `c` (less than the number of indexed classes) under handle `i`
    /// (not `u32::MAX`): distinct events of a class must have distinct handles, which should be
    /// small and dense, since the class keeps a position per handle up to the largest.
    Indexed(usize, u32),
}

/// An index with no lane.
const NO_LANE: u32 = u32::MAX;

/// The dense class: a heap of indexes, first-in-first-out lanes, and the event filed under each
/// index.
struct DenseClass<K> {
    /// The indexes outside lanes, by key.
    heap: IndexedHeap,
    /// The event scheduled under each index, `None` where nothing is.
    events: Vec<Option<K>>,
    /// The lane of each index, [`NO_LANE`] if none.
    lane_of: Vec<u32>,
    /// Each lane's entries (key, index), in key order.
    lanes: Vec<VecDeque<(Key, usize)>>,
    /// The head key of every non-empty lane, filed under the lane's number.
    heads: IndexedHeap,
    /// Entries in lanes.
    in_lanes: usize,
}

/// Where the dense class's next event is.
#[derive(Clone, Copy)]
enum DenseHead {
    Heap,
    Lane(usize),
}

impl<K: Clone> DenseClass<K> {
    fn with_index_bound(bound: usize) -> Self {
        DenseClass {
            heap: IndexedHeap::default(),
            events: vec![None; bound],
            lane_of: vec![NO_LANE; bound],
            lanes: Vec::new(),
            heads: IndexedHeap::default(),
            in_lanes: 0,
        }
    }

    /// Makes room for `index` (below `u32::MAX`, the heap's reserved index): the tables grow to
    /// at least twice their size, keeping every scheduled event and its key.
    fn make_room(&mut self, index: usize) {
        let bound = self.events.len();
        if index < bound {
            return;
        }
        assert!(index < u32::MAX as usize, "dense index {index} is out of range");
        let bound = index.saturating_add(1).max(bound.saturating_mul(2));
        self.events.resize(bound, None);
        self.lane_of.resize(bound, NO_LANE);
    }

    fn contains(&self, index: usize) -> bool {
        index < self.events.len() && self.events[index].is_some()
    }

    fn len(&self) -> usize {
        self.heap.len() + self.in_lanes
    }

    /// Puts `index` in lane `lane` from its next scheduling on.
    fn assign_lane(&mut self, index: usize, lane: u32) {
        self.make_room(index);
        if self.contains(index) && self.heap.key_of(index as u32).is_none() {
            // scheduled in its old lane: it waits in the heap instead
            let key = self.remove(index);
            self.heap.push(index as u32, key);
        }
        self.lane_of[index] = lane;
        if self.lanes.len() <= lane as usize {
            self.lanes.resize_with(lane as usize + 1, VecDeque::new);
        }
    }

    /// Files `index` (whose event is set by the caller) at `key`: at the back of its lane if it
    /// has one and `key` is not before the lane's last, else in the heap.
    fn push(&mut self, index: usize, key: Key) {
        let lane = self.lane_of[index];
        if lane != NO_LANE {
            let queue = &mut self.lanes[lane as usize];
            if queue.back().is_none_or(|&(last, _)| last <= key) {
                queue.push_back((key, index));
                self.in_lanes += 1;
                if queue.len() == 1 {
                    self.heads.push(lane, key);
                }
                return;
            }
        }
        self.heap.push(index as u32, key);
    }

    /// Where the next event is, and its key.
    fn head(&self) -> Option<(DenseHead, Key)> {
        let heap = self.heap.peek().map(|(_, key)| (DenseHead::Heap, key));
        let lane = self.heads.peek().map(|(l, key)| (DenseHead::Lane(l as usize), key));
        match (heap, lane) {
            (Some(h), Some(l)) => Some(if l.1 < h.1 { l } else { h }),
            (h, l) => h.or(l),
        }
    }

    /// The index of the next event, and its key.
    fn peek(&self) -> Option<(usize, Key)> {
        match self.head()? {
            (DenseHead::Heap, key) => self.heap.peek().map(|(i, _)| (i as usize, key)),
            (DenseHead::Lane(l), key) => self.lanes[l].front().map(|&(_, i)| (i, key)),
        }
    }

    /// Removes the next event, at `head` (from [`DenseClass::head`], nothing changed since);
    /// returns its index and key.
    fn pop_at(&mut self, head: DenseHead) -> Option<(usize, Key)> {
        match head {
            DenseHead::Heap => self.heap.pop().map(|(i, key)| (i as usize, key)),
            DenseHead::Lane(l) => {
                let (key, i) = self.lanes[l].pop_front()?;
                self.in_lanes -= 1;
                // the lane was the earliest, so its head is the heads' top: replaced in place
                match self.lanes[l].front() {
                    Some(&(next, _)) => self.heads.replace_top(next),
                    None => {
                        self.heads.pop();
                    }
                }
                Some((i, key))
            }
        }
    }

    /// Updates lane `l`'s entry in the heap of heads after its front changed.
    fn refresh_head(&mut self, l: usize) {
        let lane = l as u32;
        match (self.lanes[l].front(), self.heads.key_of(lane).is_some()) {
            (Some(&(key, _)), true) => self.heads.update(lane, key),
            (Some(&(key, _)), false) => self.heads.push(lane, key),
            (None, true) => {
                self.heads.remove(lane);
            }
            (None, false) => {}
        }
    }

    /// The key of scheduled `index`, wherever it is filed.
    fn key_of(&self, index: usize) -> Key {
        if let Some(key) = self.heap.key_of(index as u32) {
            return key;
        }
        let l = self.lane_of[index] as usize;
        self.lanes[l].iter().find(|&&(_, i)| i == index).expect("a scheduled index is in its lane").0
    }

    /// Removes scheduled `index` wherever it is filed; returns its key.
    fn remove(&mut self, index: usize) -> Key {
        if let Some(key) = self.heap.remove(index as u32) {
            return key;
        }
        let l = self.lane_of[index] as usize;
        let at = self.lanes[l].iter().position(|&(_, i)| i == index).expect("a scheduled index is in its lane");
        let (key, _) = self.lanes[l].remove(at).expect("found above");
        self.in_lanes -= 1;
        if at == 0 {
            self.refresh_head(l);
        }
        key
    }

    /// Applies `f` to every key, lane entries moved into the heap (lanes keep key order only
    /// while keys grow with scheduling; [`EventQueue::reverse_ties`] breaks that).
    fn rekey_into_heap(&mut self, f: impl Fn(Key) -> Key) {
        self.heap.rekey(&f);
        for lane in &mut self.lanes {
            for (key, i) in lane.drain(..) {
                self.heap.push(i as u32, f(key));
            }
        }
        self.in_lanes = 0;
        self.heads = IndexedHeap::default();
    }
}

/// A queue's whole state: every scheduled event with its key, the sequence counter and the
/// queue's clock, for a checkpoint ([`EventQueue::snapshot`], [`EventQueue::restore`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueueSnapshot<K> {
    /// The events and their keys, in pop order.
    pub entries: Vec<(K, Time, Seq)>,
    /// The sequence number the next scheduling gets.
    pub next_seq: Seq,
    /// The time of the last popped event.
    pub now: Time,
    /// Whether ties pop last scheduled first ([`EventQueue::reverse_ties`]).
    pub reversed: bool,
}

/// Which class's head pops next.
#[derive(Clone, Copy)]
enum Head {
    Dense(DenseHead),
    Sparse(usize),
    Indexed(usize),
}

/// A queue of events `K`, each scheduled at most once, popped in `(Time, Seq)` order.
pub struct EventQueue<K: Hash + Eq + Clone> {
    dense: DenseClass<K>,
    sparse: Vec<SparseHeap<K>>,
    indexed: Vec<IndexedHeap>,
    /// The class of an event.
    file: fn(&K) -> Filing,
    /// The event filed under an indexed class and handle.
    unfile: fn(usize, u32) -> K,
    next_seq: Seq,
    now: Time,
    /// Ties pop last scheduled first ([`EventQueue::reverse_ties`]).
    reversed: bool,
}

impl<K: Hash + Eq + Clone + fmt::Debug> fmt::Debug for EventQueue<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventQueue")
            .field("len", &self.len())
            .field("dense", &self.dense.len())
            .field("sparse_classes", &self.sparse.len())
            .field("indexed_classes", &self.indexed.len())
            .field("now", &self.now)
            .finish()
    }
}

impl<K: Hash + Eq + Clone> Default for EventQueue<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Hash + Eq + Clone> EventQueue<K> {
    /// An empty queue at time 0 with one sparse class for every event.
    pub fn new() -> Self {
        Self::with_classes(1, |_| Filing::Sparse(0), 0)
    }

    /// An empty queue at time 0 whose events are filed by `file` (which must file the same event
    /// the same way every time) in the dense class or in one of `sparse_classes` sparse classes.
    /// `dense_bound` sizes the dense class's position table (one past the largest index expected;
    /// it grows if a larger one comes). Pops are in the same order as with one class.
    pub fn with_classes(sparse_classes: usize, file: fn(&K) -> Filing, dense_bound: usize) -> Self {
        assert!(sparse_classes >= 1, "an event queue needs a sparse class");
        EventQueue {
            dense: DenseClass::with_index_bound(dense_bound),
            sparse: (0..sparse_classes).map(|_| PriorityQueue::with_hasher(FxBuildHasher)).collect(),
            indexed: Vec::new(),
            file,
            unfile: |class, _| panic!("no indexed class {class}: see EventQueue::with_indexed_classes"),
            next_seq: 0,
            now: Time::ZERO,
            reversed: false,
        }
    }

    /// The queue with `classes` indexed classes, whose events `file` files as
    /// [`Filing::Indexed`] and `unfile` rebuilds from class and handle (the inverse of `file` on
    /// them). Call it before scheduling anything.
    pub fn with_indexed_classes(mut self, classes: usize, unfile: fn(usize, u32) -> K) -> Self {
        assert!(self.is_empty(), "indexed classes are set up on an empty queue");
        self.indexed = (0..classes).map(|_| IndexedHeap::default()).collect();
        self.unfile = unfile;
        self
    }

    /// The time of the last popped event (0 before the first pop).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of scheduled events.
    pub fn len(&self) -> usize {
        self.dense.len()
            + self.sparse.iter().map(PriorityQueue::len).sum::<usize>()
            + self.indexed.iter().map(IndexedHeap::len).sum::<usize>()
    }

    /// True when nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn check_not_past(&self, t: Time) -> Result<(), QueueError> {
        if t < self.now {
            Err(QueueError::InThePast { requested: t, now: self.now })
        } else {
            Ok(())
        }
    }

    fn stamp(&mut self, t: Time) -> Key {
        let seq = self.next_seq;
        self.next_seq += 1;
        Key::new(t, if self.reversed { Seq::MAX - seq } else { seq })
    }

    /// From now on, and for the events already scheduled, equal times pop in the reverse of their
    /// scheduling order (last scheduled first). A diagnostic: law 8 says simultaneous events give
    /// the same result in any order, so a run with reversed ties must give the same trajectory up
    /// to round-off. Calling it again does nothing.
    pub fn reverse_ties(&mut self) {
        if self.reversed {
            return;
        }
        self.reversed = true;
        // an event scheduled as `seq` ties as `Seq::MAX − seq`: later ones (and all to come,
        // stamped from `next_seq` on) pop first
        for heap in &mut self.sparse {
            for (_, Reverse(key)) in heap.iter_mut() {
                *key = key.with_seq(Seq::MAX - key.seq());
            }
        }
        for heap in &mut self.indexed {
            heap.rekey(|key| key.with_seq(Seq::MAX - key.seq()));
        }
        // ties now pop newest first, which a first-in-first-out lane cannot keep: every lane
        // entry moves to the heap, and later ones only join a lane when their time is later
        self.dense.rekey_into_heap(|key| key.with_seq(Seq::MAX - key.seq()));
    }

    /// Files dense index `index` in lane `lane` (a small number) from its next scheduling on (if
    /// it is scheduled in another lane now, it waits in the heap):
    /// events under indexes of one lane that are scheduled in time order pop from a
    /// first-in-first-out run instead of the heap (see the module doc). Only speed changes, never
    /// the order. Give one lane to events that recur with one common period.
    pub fn assign_lane(&mut self, index: usize, lane: u32) {
        assert!(lane != NO_LANE, "lane {lane} is reserved");
        self.dense.assign_lane(index, lane);
    }

    /// Schedules `event` at `t` (not before [`now`](Self::now)).
    pub fn schedule(&mut self, event: K, t: Time) -> Result<(), QueueError> {
        self.check_not_past(t)?;
        match (self.file)(&event) {
            Filing::Dense(i) => {
                if self.dense.contains(i) {
                    debug_assert!(self.dense.events[i].as_ref() == Some(&event), "two events filed under index {i}");
                    return Err(QueueError::AlreadyScheduled);
                }
                self.dense.make_room(i);
                let key = self.stamp(t);
                self.dense.push(i, key);
                self.dense.events[i] = Some(event);
            }
            Filing::Sparse(class) => {
                if self.sparse[class].get(&event).is_some() {
                    return Err(QueueError::AlreadyScheduled);
                }
                let key = self.stamp(t);
                self.sparse[class].push(event, Reverse(key));
            }
            Filing::Indexed(class, i) => {
                if self.indexed[class].key_of(i).is_some() {
                    return Err(QueueError::AlreadyScheduled);
                }
                let key = self.stamp(t);
                self.indexed[class].push(i, key);
            }
        }
        Ok(())
    }

    /// Moves a scheduled `event` to `t`; it then ties as if newly scheduled.
    pub fn reschedule(&mut self, event: &K, t: Time) -> Result<(), QueueError> {
        self.check_not_past(t)?;
        match (self.file)(event) {
            Filing::Dense(i) => {
                if !self.dense.contains(i) {
                    return Err(QueueError::NotScheduled);
                }
                debug_assert!(self.dense.events[i].as_ref() == Some(event), "two events filed under index {i}");
                let key = self.stamp(t);
                self.dense.remove(i);
                self.dense.push(i, key);
            }
            Filing::Sparse(class) => {
                if self.sparse[class].get(event).is_none() {
                    return Err(QueueError::NotScheduled);
                }
                let key = self.stamp(t);
                self.sparse[class].change_priority(event, Reverse(key));
            }
            Filing::Indexed(class, i) => {
                if self.indexed[class].key_of(i).is_none() {
                    return Err(QueueError::NotScheduled);
                }
                let key = self.stamp(t);
                self.indexed[class].update(i, key);
            }
        }
        Ok(())
    }

    /// Schedules `event` at `t` (not before [`now`](Self::now)), moving it there if it is
    /// scheduled already: [`cancel`](Self::cancel) then [`schedule`](Self::schedule) in one
    /// lookup, with the same order (it ties as if newly scheduled).
    pub fn place(&mut self, event: K, t: Time) -> Result<(), QueueError> {
        self.check_not_past(t)?;
        match (self.file)(&event) {
            Filing::Dense(i) if self.dense.contains(i) => self.reschedule(&event, t),
            Filing::Dense(_) => self.schedule(event, t),
            Filing::Sparse(class) => {
                let key = self.stamp(t);
                self.sparse[class].push(event, Reverse(key));
                Ok(())
            }
            Filing::Indexed(class, i) => {
                let key = self.stamp(t);
                match self.indexed[class].key_of(i) {
                    Some(_) => self.indexed[class].update(i, key),
                    None => self.indexed[class].push(i, key),
                }
                Ok(())
            }
        }
    }

    /// Schedules `event` at `t` (not before [`now`](Self::now)) unless it is already scheduled
    /// no later; an event moved earlier ties as if newly scheduled. One lookup when nothing
    /// changes.
    pub fn schedule_no_later(&mut self, event: K, t: Time) -> Result<(), QueueError> {
        self.check_not_past(t)?;
        match (self.file)(&event) {
            Filing::Dense(_) => match self.scheduled_at(&event) {
                Some(due) if due <= t => Ok(()),
                Some(_) => self.reschedule(&event, t),
                None => self.schedule(event, t),
            },
            Filing::Sparse(class) => {
                if self.sparse[class].get_priority(&event).is_some_and(|&Reverse(key)| key.time() <= t) {
                    return Ok(());
                }
                let key = self.stamp(t);
                self.sparse[class].push(event, Reverse(key));
                Ok(())
            }
            Filing::Indexed(class, i) => {
                match self.indexed[class].key_of(i) {
                    Some(key) if key.time() <= t => {}
                    Some(_) => {
                        let key = self.stamp(t);
                        self.indexed[class].update(i, key);
                    }
                    None => {
                        let key = self.stamp(t);
                        self.indexed[class].push(i, key);
                    }
                }
                Ok(())
            }
        }
    }

    /// Heap bytes of the sparse and indexed classes, an estimate from their capacities: per
    /// sparse entry its key, priority and hash in the index map, an index-table slot and control
    /// byte, and its heap and position words; per indexed entry its 20 bytes, and 4 per handle.
    pub fn sparse_and_indexed_heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let entry = size_of::<K>() + size_of::<Reverse<Key>>() + 4 * size_of::<usize>() + 1;
        self.sparse.iter().map(|class| class.capacity() * entry).sum::<usize>()
            + self.indexed.iter().map(IndexedHeap::heap_bytes).sum::<usize>()
    }

    /// The time `event` is scheduled at, or `None` if it is not scheduled.
    pub fn scheduled_at(&self, event: &K) -> Option<Time> {
        match (self.file)(event) {
            Filing::Dense(i) => self.dense.contains(i).then(|| self.dense.key_of(i).time()),
            Filing::Sparse(class) => self.sparse[class].get_priority(event).map(|&Reverse(key)| key.time()),
            Filing::Indexed(class, i) => self.indexed[class].key_of(i).map(Key::time),
        }
    }

    /// Removes `event`; returns the time it was scheduled at, or `None` if it was not scheduled.
    pub fn cancel(&mut self, event: &K) -> Option<Time> {
        match (self.file)(event) {
            Filing::Dense(i) => {
                if !self.dense.contains(i) {
                    return None;
                }
                debug_assert!(self.dense.events[i].as_ref() == Some(event), "two events filed under index {i}");
                self.dense.events[i] = None;
                Some(self.dense.remove(i).time())
            }
            Filing::Sparse(class) => self.sparse[class].remove(event).map(|(_, Reverse(key))| key.time()),
            Filing::Indexed(class, i) => self.indexed[class].remove(i).map(Key::time),
        }
    }

    /// The queue's whole state, to be put back into a queue of the same classes and lanes by
    /// [`restore`](Self::restore) (a checkpoint).
    pub fn snapshot(&self) -> QueueSnapshot<K> {
        let mut entries: Vec<(K, Time, Seq)> = Vec::with_capacity(self.len());
        let dense = &self.dense;
        let event = |i: usize| dense.events[i].clone().expect("a scheduled dense index has its event");
        entries.extend(dense.heap.entries().map(|(i, key)| (event(i as usize), key.time(), key.seq())));
        for lane in &dense.lanes {
            entries.extend(lane.iter().map(|&(key, i)| (event(i), key.time(), key.seq())));
        }
        for heap in &self.sparse {
            entries.extend(heap.iter().map(|(k, &Reverse(key))| (k.clone(), key.time(), key.seq())));
        }
        for (class, heap) in self.indexed.iter().enumerate() {
            entries.extend(heap.entries().map(|(i, key)| ((self.unfile)(class, i), key.time(), key.seq())));
        }
        entries.sort_unstable_by_key(|e| (e.1, e.2));
        QueueSnapshot { entries, next_seq: self.next_seq, now: self.now, reversed: self.reversed }
    }

    /// Empties the queue and puts `snapshot`'s events back with their keys: the queue then pops
    /// exactly as the one the snapshot was taken of. The queue must file events as that one did
    /// (made by the same `with_classes`, `with_indexed_classes` and `assign_lane` calls); its
    /// lanes only change speed. Refuses an event scheduled twice.
    pub fn restore(&mut self, snapshot: QueueSnapshot<K>) -> Result<(), QueueError> {
        let QueueSnapshot { mut entries, next_seq, now, reversed } = snapshot;
        for (event, ..) in self.snapshot().entries {
            self.cancel(&event);
        }
        // in key order, so that events of one lane join it first in, first out
        entries.sort_unstable_by_key(|e| (e.1, e.2));
        for (event, t, seq) in entries {
            if self.scheduled_at(&event).is_some() {
                return Err(QueueError::AlreadyScheduled);
            }
            match (self.file)(&event) {
                Filing::Dense(i) => {
                    self.dense.make_room(i);
                    self.dense.push(i, Key::new(t, seq));
                    self.dense.events[i] = Some(event);
                }
                Filing::Sparse(class) => {
                    self.sparse[class].push(event, Reverse(Key::new(t, seq)));
                }
                Filing::Indexed(class, i) => self.indexed[class].push(i, Key::new(t, seq)),
            }
        }
        self.next_seq = next_seq;
        self.now = now;
        self.reversed = reversed;
        Ok(())
    }

    /// The class whose head pops next, and its key.
    fn first(&self) -> Option<(Head, Key)> {
        let mut best: Option<(Head, Key)> = self.dense.head().map(|(at, key)| (Head::Dense(at), key));
        for (class, heap) in self.sparse.iter().enumerate() {
            if let Some((_, &Reverse(key))) = heap.peek() {
                if best.is_none_or(|(_, b)| key < b) {
                    best = Some((Head::Sparse(class), key));
                }
            }
        }
        for (class, heap) in self.indexed.iter().enumerate() {
            if let Some((_, key)) = heap.peek() {
                if best.is_none_or(|(_, b)| key < b) {
                    best = Some((Head::Indexed(class), key));
                }
            }
        }
        best
    }

    /// The next event and its time, without removing it.
    pub fn peek(&self) -> Option<(K, Time)> {
        match self.first()?.0 {
            Head::Dense(_) => {
                let (i, key) = self.dense.peek()?;
                self.dense.events[i].clone().map(|k| (k, key.time()))
            }
            Head::Sparse(class) => self.sparse[class].peek().map(|(k, Reverse(key))| (k.clone(), key.time())),
            Head::Indexed(class) => self.indexed[class].peek().map(|(i, key)| ((self.unfile)(class, i), key.time())),
        }
    }

    /// Removes and returns the earliest event; the queue's time becomes its time.
    pub fn pop(&mut self) -> Option<(K, Time)> {
        let (head, _) = self.first()?;
        self.pop_head(head)
    }

    /// [`EventQueue::pop`] if the earliest event is at or before `t` (s), else `None` and nothing
    /// changes: a peek and a pop for the price of one look at the classes' heads.
    pub fn pop_no_later(&mut self, t: f64) -> Option<(K, Time)> {
        let (head, key) = self.first()?;
        (key.time().seconds() <= t).then(|| self.pop_head(head)).flatten()
    }

    /// Removes the event at the head of `head`'s class.
    fn pop_head(&mut self, head: Head) -> Option<(K, Time)> {
        let (k, t) = match head {
            Head::Dense(at) => {
                let (i, key) = self.dense.pop_at(at)?;
                (self.dense.events[i].take()?, key.time())
            }
            Head::Sparse(class) => {
                let (k, Reverse(key)) = self.sparse[class].pop()?;
                (k, key.time())
            }
            Head::Indexed(class) => {
                let (i, key) = self.indexed[class].pop()?;
                ((self.unfile)(class, i), key.time())
            }
        };
        self.now = t;
        Some((k, t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn t(s: f64) -> Time {
        Time::new(s).unwrap()
    }

    /// Keys 4i in the dense class under i, 4i + 1 and 4i + 2 in two sparse classes, 4i + 3 in an
    /// indexed class under i.
    fn split_filing(k: &u32) -> Filing {
        match k % 4 {
            0 => Filing::Dense(*k as usize / 4),
            3 => Filing::Indexed(0, k / 4),
            r => Filing::Sparse(r as usize - 1),
        }
    }

    fn split_queue(dense_bound: usize) -> EventQueue<u32> {
        EventQueue::with_classes(2, split_filing, dense_bound).with_indexed_classes(1, |_, i| 4 * i + 3)
    }

    #[test]
    fn a_restored_queue_pops_as_the_one_it_was_taken_of() {
        let fill = |q: &mut EventQueue<u32>| {
            for k in 0..40u32 {
                q.schedule(k, t(((k * 7) % 11) as f64)).unwrap();
            }
            for _ in 0..5 {
                q.pop();
            }
            q.reschedule(&39, t(9.0)).unwrap();
        };
        let mut original = split_queue(4);
        original.assign_lane(2, 0);
        fill(&mut original);
        let snapshot = original.snapshot();
        // a queue of the same filing with other events in it
        let mut restored = split_queue(4);
        restored.assign_lane(2, 0);
        for k in [0u32, 3, 6, 100] {
            restored.schedule(k, t(0.5)).unwrap();
        }
        restored.restore(snapshot.clone()).unwrap();
        assert_eq!(restored.snapshot(), snapshot);
        for k in 40..44 {
            for q in [&mut original, &mut restored] {
                q.schedule(k, t(6.0)).unwrap();
            }
        }
        let pops = |q: &mut EventQueue<u32>| std::iter::from_fn(|| q.pop()).collect::<Vec<_>>();
        assert_eq!(pops(&mut restored), pops(&mut original));
    }

    #[test]
    fn the_dense_class_keeps_its_events_when_its_table_grows() {
        let mut q = EventQueue::with_classes(1, |&k: &usize| Filing::Dense(k), 1);
        for k in [0, 5, 2, 40, 7] {
            q.schedule(k, t(k as f64)).unwrap();
        }
        assert_eq!(q.schedule(5, t(9.0)), Err(QueueError::AlreadyScheduled));
        assert_eq!(q.cancel(&7), Some(t(7.0)));
        assert_eq!(q.cancel(&7), None);
        assert_eq!(q.cancel(&1000), None);
        assert_eq!(q.reschedule(&1000, t(1.0)), Err(QueueError::NotScheduled));
        q.reschedule(&40, t(1.0)).unwrap();
        let order: Vec<(usize, Time)> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(order, vec![(0, t(0.0)), (40, t(1.0)), (2, t(2.0)), (5, t(5.0))]);
    }

    #[test]
    fn periodic_events_run_through_their_lanes_in_the_order_of_one_heap() {
        // two lanes of periods 2 and 3 (indexes 0–2 and 3–5) and an index without a lane (6,
        // period 5), each event rescheduled one period after it pops, as the engine does
        let period = |i: usize| [2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 5.0][i];
        let mut laned = EventQueue::with_classes(1, |&k: &usize| Filing::Dense(k), 7);
        let mut heap = EventQueue::with_classes(1, |&k: &usize| Filing::Dense(k), 7);
        for i in 0..6 {
            laned.assign_lane(i, (i / 3) as u32);
        }
        for q in [&mut laned, &mut heap] {
            for i in 0..7 {
                q.schedule(i, t(period(i))).unwrap();
            }
        }
        assert_eq!(laned.dense.in_lanes, 6, "the first ticks of each lane come in order");
        for _ in 0..200 {
            let (a, b) = (laned.pop().unwrap(), heap.pop().unwrap());
            assert_eq!(a, b);
            for q in [&mut laned, &mut heap] {
                q.schedule(a.0, t(a.1.seconds() + period(a.0))).unwrap();
            }
        }
        assert_eq!(laned.dense.in_lanes, 6, "rescheduled ticks stay in their lanes");
        assert_eq!(laned.dense.heap.len(), 1);
        // out of order: a reschedule before the lane's last entry goes to the heap
        laned.reschedule(&0, laned.now()).unwrap();
        heap.reschedule(&0, heap.now()).unwrap();
        assert_eq!(laned.dense.heap.len(), 2);
        // moving scheduled indexes to other lanes keeps their places in the order
        laned.assign_lane(1, 1);
        laned.assign_lane(6, 0);
        assert_eq!(laned.dense.heap.len(), 3);
        assert_eq!(
            std::iter::from_fn(|| laned.pop()).collect::<Vec<_>>(),
            std::iter::from_fn(|| heap.pop()).collect::<Vec<_>>()
        );
    }

    #[test]
    fn reversed_ties_leave_lanes_to_the_heap_where_times_are_equal() {
        let mut q = EventQueue::with_classes(1, |&k: &usize| Filing::Dense(k), 5);
        for i in 0..5 {
            q.assign_lane(i, 0);
        }
        q.schedule(0, t(1.0)).unwrap();
        q.schedule(1, t(1.0)).unwrap();
        q.reverse_ties();
        for (i, at) in [(2, 1.0), (3, 1.0), (4, 2.0)] {
            q.schedule(i, t(at)).unwrap();
        }
        let order: Vec<usize> = std::iter::from_fn(|| q.pop().map(|(k, _)| k)).collect();
        assert_eq!(order, vec![3, 2, 1, 0, 4]);
    }

    #[test]
    fn scheduled_at_reports_the_time_of_a_scheduled_event_in_either_class() {
        let mut queue = split_queue(4);
        queue.schedule(1, t(0.5)).unwrap();
        queue.schedule(3, t(0.25)).unwrap();
        queue.schedule(4, t(0.75)).unwrap();
        assert_eq!(queue.scheduled_at(&1), Some(t(0.5)));
        assert_eq!(queue.scheduled_at(&3), Some(t(0.25)));
        assert_eq!(queue.scheduled_at(&4), Some(t(0.75)));
        assert_eq!(queue.scheduled_at(&2), None);
        assert_eq!(queue.scheduled_at(&7), None);
        queue.cancel(&3);
        assert_eq!(queue.scheduled_at(&3), None);
    }

    #[test]
    fn place_pops_as_cancel_then_schedule_in_every_class() {
        // keys 0..16 spread over the dense, sparse and indexed classes, each placed twice
        let (mut placed, mut replaced) = (split_queue(8), split_queue(8));
        for round in 0..2 {
            for k in 0..16u32 {
                let at = t(((k * 7 + round * 5) % 11) as f64);
                placed.place(k, at).unwrap();
                replaced.cancel(&k);
                replaced.schedule(k, at).unwrap();
            }
        }
        assert_eq!(placed.len(), 16);
        let order = |q: &mut EventQueue<u32>| std::iter::from_fn(|| q.pop()).collect::<Vec<_>>();
        assert_eq!(order(&mut placed), order(&mut replaced));
        assert_eq!(placed.place(3, t(-1.0)), Err(QueueError::InThePast { requested: t(-1.0), now: placed.now() }));
    }

    #[test]
    fn schedule_no_later_keeps_the_earlier_time_in_either_class() {
        let mut queue = split_queue(4);
        for event in [1, 3, 4] {
            queue.schedule_no_later(event, t(0.5)).unwrap();
            queue.schedule_no_later(event, t(0.75)).unwrap();
            assert_eq!(queue.scheduled_at(&event), Some(t(0.5)), "a later time leaves it alone");
            queue.schedule_no_later(event, t(0.25)).unwrap();
            assert_eq!(queue.scheduled_at(&event), Some(t(0.25)), "an earlier time moves it");
        }
        assert_eq!(queue.len(), 3);
        assert_eq!(queue.pop(), Some((1, t(0.25))), "ties pop in the order they were moved");
        assert_eq!(queue.pop(), Some((3, t(0.25))));
        assert_eq!(queue.pop(), Some((4, t(0.25))));
    }

    #[test]
    fn ties_pop_in_scheduling_order() {
        let mut q = EventQueue::new();
        for k in [5u32, 3, 9, 1] {
            q.schedule(k, t(1.0)).unwrap();
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|(k, _)| k)).collect();
        assert_eq!(order, vec![5, 3, 9, 1]);
    }

    #[test]
    fn pop_no_later_pops_up_to_its_time_and_leaves_the_rest() {
        let mut q = split_queue(8);
        for (k, at) in [(1u32, 0.5), (2, 1.0), (100, 0.75), (3, 2.0)] {
            q.schedule(k, t(at)).unwrap();
        }
        let order: Vec<u32> = std::iter::from_fn(|| q.pop_no_later(1.0).map(|(k, _)| k)).collect();
        assert_eq!(order, vec![1, 100, 2]);
        assert_eq!((q.now(), q.len()), (t(1.0), 1), "the queue's time is that of the last pop");
        assert_eq!(q.pop_no_later(1.5), None);
        assert_eq!(q.pop(), Some((3, t(2.0))));
    }

    #[test]
    fn reversed_ties_pop_last_scheduled_first() {
        let mut q = EventQueue::new();
        for k in [5u32, 3, 9] {
            q.schedule(k, t(1.0)).unwrap();
        }
        q.schedule(0, t(0.5)).unwrap();
        q.reverse_ties();
        q.schedule(1, t(1.0)).unwrap();
        q.schedule(2, t(2.0)).unwrap();
        let order: Vec<u32> = std::iter::from_fn(|| q.pop().map(|(k, _)| k)).collect();
        assert_eq!(order, vec![0, 1, 9, 3, 5, 2]);
    }

    #[test]
    fn past_and_duplicate_requests_are_refused() {
        let mut q = EventQueue::new();
        q.schedule(1u32, t(2.0)).unwrap();
        assert_eq!(q.schedule(1, t(3.0)), Err(QueueError::AlreadyScheduled));
        assert_eq!(q.reschedule(&7, t(3.0)), Err(QueueError::NotScheduled));
        assert_eq!(q.pop(), Some((1, t(2.0))));
        assert!(matches!(q.schedule(2, t(1.0)), Err(QueueError::InThePast { .. })));
        q.schedule(2, t(2.0)).unwrap();
        assert_eq!(q.cancel(&2), Some(t(2.0)));
        assert!(q.is_empty());
    }

    proptest! {
        #[test]
        fn classes_pop_in_the_order_of_one_heap(
            ops in proptest::collection::vec((0u8..5, 0u32..40, 0u8..30), 1..400),
            lanes in proptest::collection::vec(0u32..4, 0..14),
        ) {
            // the same schedule / reschedule / cancel / pop / reverse-ties sequence on one heap
            // and on a dense and two sparse ones
            let mut one = EventQueue::new();
            // keys divisible by 4 in the dense class (its position table grows from 2), the others
            // in two sparse classes and an indexed one; dense index d in lane lanes[d] (3: none),
            // if given
            let mut split = split_queue(2);
            for (d, &lane) in lanes.iter().enumerate() {
                if lane < 3 {
                    split.assign_lane(d, lane);
                }
            }
            for &(op, key, dt) in &ops {
                let at = t(one.now().seconds() + dt as f64);
                match op {
                    0 => prop_assert_eq!(one.schedule(key, at), split.schedule(key, at)),
                    1 => prop_assert_eq!(one.reschedule(&key, at), split.reschedule(&key, at)),
                    2 => prop_assert_eq!(one.cancel(&key), split.cancel(&key)),
                    3 if key == 0 => {
                        one.reverse_ties();
                        split.reverse_ties();
                    }
                    _ => {
                        prop_assert_eq!(one.peek(), split.peek());
                        prop_assert_eq!(one.pop(), split.pop());
                    }
                }
                prop_assert_eq!(one.len(), split.len());
                prop_assert_eq!(one.is_empty(), split.is_empty());
            }
            let rest_one: Vec<(u32, Time)> = std::iter::from_fn(|| one.pop()).collect();
            let rest_split: Vec<(u32, Time)> = std::iter::from_fn(|| split.pop()).collect();
            prop_assert_eq!(rest_one, rest_split);
        }

        #[test]
        fn pops_are_sorted_by_time_then_seq(
            times in proptest::collection::vec(0u8..20, 1..200),
            moves in proptest::collection::vec((0usize..200, 0u8..20), 0..50),
            dense in any::<bool>(),
            lanes in 0u32..4,
        ) {
            // every key in the one sparse class, or every key in the dense class (in `lanes`
            // lanes, i mod lanes, if any)
            let mut q = if dense { EventQueue::with_classes(1, |&k| Filing::Dense(k), 0) } else { EventQueue::new() };
            if dense && lanes > 0 {
                for i in 0..times.len() {
                    q.assign_lane(i, i as u32 % lanes);
                }
            }
            let mut expected: Vec<(u8, u64, usize)> = Vec::new();
            let mut seq = 0u64;
            for (i, &ti) in times.iter().enumerate() {
                q.schedule(i, t(ti as f64)).unwrap();
                expected.push((ti, seq, i));
                seq += 1;
            }
            for &(i, ti) in &moves {
                if i < times.len() {
                    q.reschedule(&i, t(ti as f64)).unwrap();
                    let e = expected.iter_mut().find(|e| e.2 == i).unwrap();
                    *e = (ti, seq, i);
                    seq += 1;
                }
            }
            expected.sort();
            let popped: Vec<usize> = std::iter::from_fn(|| q.pop().map(|(k, _)| k)).collect();
            let want: Vec<usize> = expected.iter().map(|e| e.2).collect();
            prop_assert_eq!(popped, want);
        }
    }
}
