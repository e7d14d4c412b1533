//! A priority queue of events keyed by `(Time, Seq)` over the `priority-queue` crate.
//!
//! Events may be split into *classes*, one heap each ([`EventQueue::with_classes`]): the AVI engine
//! keeps its force ticks, a few tens of thousands that fire millions of times, apart from the
//! hundreds of thousands of contact certificates that mostly wait. A pop takes the best of the
//! heads, so the order is exactly that of one heap (every `Seq` is unique), while the frequent
//! events sift through a heap that fits in cache.

pub use crate::error::QueueError;
use crate::math::Time;
use priority_queue::PriorityQueue;
use rustc_hash::FxBuildHasher;
use std::cmp::Reverse;
use std::fmt;
use std::hash::Hash;

/// Scheduling sequence number: breaks ties between equal times in scheduling order (FIFO).
pub type Seq = u64;

type Heap<K> = PriorityQueue<K, Reverse<(Time, Seq)>, FxBuildHasher>;

/// A queue of events `K`, each scheduled at most once, popped in `(Time, Seq)` order.
pub struct EventQueue<K: Hash + Eq> {
    /// One heap per class.
    heaps: Vec<Heap<K>>,
    /// The class (heap index) of an event.
    class_of: fn(&K) -> usize,
    next_seq: Seq,
    now: Time,
    /// Ties pop last scheduled first ([`EventQueue::reverse_ties`]).
    reversed: bool,
}

impl<K: Hash + Eq + fmt::Debug> fmt::Debug for EventQueue<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventQueue")
            .field("len", &self.len())
            .field("classes", &self.heaps.len())
            .field("now", &self.now)
            .finish()
    }
}

impl<K: Hash + Eq> Default for EventQueue<K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: Hash + Eq> EventQueue<K> {
    /// An empty queue at time 0.
    pub fn new() -> Self {
        Self::with_capacity(0)
    }

    /// An empty queue at time 0 with room for `capacity` events.
    pub fn with_capacity(capacity: usize) -> Self {
        Self::with_classes(1, |_| 0, capacity)
    }

    /// An empty queue at time 0 whose events fall in `classes` classes, one heap each, by
    /// `class_of` (which must return less than `classes`, and the same class for the same event);
    /// `capacity` is reserved in class 0. Pops are in the same order as with one class.
    pub fn with_classes(classes: usize, class_of: fn(&K) -> usize, capacity: usize) -> Self {
        assert!(classes >= 1, "an event queue needs a class");
        let mut heaps: Vec<Heap<K>> = (0..classes).map(|_| PriorityQueue::with_hasher(FxBuildHasher)).collect();
        heaps[0].reserve(capacity);
        EventQueue { heaps, class_of, next_seq: 0, now: Time::ZERO, reversed: false }
    }

    /// The time of the last popped event (0 before the first pop).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of scheduled events.
    pub fn len(&self) -> usize {
        self.heaps.iter().map(PriorityQueue::len).sum()
    }

    /// True when nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.heaps.iter().all(PriorityQueue::is_empty)
    }

    fn check_not_past(&self, t: Time) -> Result<(), QueueError> {
        if t < self.now {
            Err(QueueError::InThePast { requested: t, now: self.now })
        } else {
            Ok(())
        }
    }

    fn stamp(&mut self, t: Time) -> Reverse<(Time, Seq)> {
        let seq = self.next_seq;
        self.next_seq += 1;
        Reverse((t, if self.reversed { Seq::MAX - seq } else { seq }))
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
        for heap in &mut self.heaps {
            for (_, Reverse((_, seq))) in heap.iter_mut() {
                *seq = Seq::MAX - *seq;
            }
        }
    }

    /// Schedules `event` at `t` (not before [`now`](Self::now)).
    pub fn schedule(&mut self, event: K, t: Time) -> Result<(), QueueError> {
        self.check_not_past(t)?;
        let class = (self.class_of)(&event);
        if self.heaps[class].get(&event).is_some() {
            return Err(QueueError::AlreadyScheduled);
        }
        let priority = self.stamp(t);
        self.heaps[class].push(event, priority);
        Ok(())
    }

    /// Moves a scheduled `event` to `t`; it then ties as if newly scheduled.
    pub fn reschedule(&mut self, event: &K, t: Time) -> Result<(), QueueError> {
        self.check_not_past(t)?;
        let class = (self.class_of)(event);
        if self.heaps[class].get(event).is_none() {
            return Err(QueueError::NotScheduled);
        }
        let priority = self.stamp(t);
        self.heaps[class].change_priority(event, priority);
        Ok(())
    }

    /// Removes `event`; returns the time it was scheduled at, or `None` if it was not scheduled.
    pub fn cancel(&mut self, event: &K) -> Option<Time> {
        self.heaps[(self.class_of)(event)].remove(event).map(|(_, Reverse((t, _)))| t)
    }

    /// The class whose head pops next.
    fn first(&self) -> Option<usize> {
        let mut best: Option<(usize, Reverse<(Time, Seq)>)> = None;
        for (class, heap) in self.heaps.iter().enumerate() {
            if let Some((_, &priority)) = heap.peek() {
                if best.is_none_or(|(_, b)| priority > b) {
                    best = Some((class, priority));
                }
            }
        }
        best.map(|(class, _)| class)
    }

    /// The next event and its time, without removing it.
    pub fn peek(&self) -> Option<(&K, Time)> {
        let class = self.first()?;
        self.heaps[class].peek().map(|(k, Reverse((t, _)))| (k, *t))
    }

    /// Removes and returns the earliest event; the queue's time becomes its time.
    pub fn pop(&mut self) -> Option<(K, Time)> {
        let class = self.first()?;
        let (k, Reverse((t, _))) = self.heaps[class].pop()?;
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
        ) {
            // the same schedule / reschedule / cancel / pop / reverse-ties sequence on one heap
            // and on four
            let mut one = EventQueue::new();
            let mut split = EventQueue::with_classes(4, |k: &u32| *k as usize % 4, 0);
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
                        prop_assert_eq!(one.peek().map(|(k, t)| (*k, t)), split.peek().map(|(k, t)| (*k, t)));
                        prop_assert_eq!(one.pop(), split.pop());
                    }
                }
                prop_assert_eq!(one.len(), split.len());
            }
            let rest_one: Vec<(u32, Time)> = std::iter::from_fn(|| one.pop()).collect();
            let rest_split: Vec<(u32, Time)> = std::iter::from_fn(|| split.pop()).collect();
            prop_assert_eq!(rest_one, rest_split);
        }

        #[test]
        fn pops_are_sorted_by_time_then_seq(
            times in proptest::collection::vec(0u8..20, 1..200),
            moves in proptest::collection::vec((0usize..200, 0u8..20), 0..50),
        ) {
            let mut q = EventQueue::new();
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
