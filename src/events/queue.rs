//! A priority queue of events keyed by `(Time, Seq)` over the `priority-queue` crate.

pub use crate::error::QueueError;
use crate::math::Time;
use priority_queue::PriorityQueue;
use rustc_hash::FxBuildHasher;
use std::cmp::Reverse;
use std::fmt;
use std::hash::Hash;

/// Scheduling sequence number: breaks ties between equal times in scheduling order (FIFO).
pub type Seq = u64;

/// A queue of events `K`, each scheduled at most once, popped in `(Time, Seq)` order.
pub struct EventQueue<K: Hash + Eq> {
    heap: PriorityQueue<K, Reverse<(Time, Seq)>, FxBuildHasher>,
    next_seq: Seq,
    now: Time,
    /// Ties pop last scheduled first ([`EventQueue::reverse_ties`]).
    reversed: bool,
}

impl<K: Hash + Eq + fmt::Debug> fmt::Debug for EventQueue<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventQueue").field("len", &self.heap.len()).field("now", &self.now).finish()
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
        EventQueue {
            heap: PriorityQueue::with_capacity_and_hasher(capacity, FxBuildHasher),
            next_seq: 0,
            now: Time::ZERO,
            reversed: false,
        }
    }

    /// The time of the last popped event (0 before the first pop).
    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of scheduled events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// True when nothing is scheduled.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
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
        for (_, Reverse((_, seq))) in self.heap.iter_mut() {
            *seq = Seq::MAX - *seq;
        }
    }

    /// Schedules `event` at `t` (not before [`now`](Self::now)).
    pub fn schedule(&mut self, event: K, t: Time) -> Result<(), QueueError> {
        self.check_not_past(t)?;
        if self.heap.get(&event).is_some() {
            return Err(QueueError::AlreadyScheduled);
        }
        let priority = self.stamp(t);
        self.heap.push(event, priority);
        Ok(())
    }

    /// Moves a scheduled `event` to `t`; it then ties as if newly scheduled.
    pub fn reschedule(&mut self, event: &K, t: Time) -> Result<(), QueueError> {
        self.check_not_past(t)?;
        if self.heap.get(event).is_none() {
            return Err(QueueError::NotScheduled);
        }
        let priority = self.stamp(t);
        self.heap.change_priority(event, priority);
        Ok(())
    }

    /// Removes `event`; returns the time it was scheduled at, or `None` if it was not scheduled.
    pub fn cancel(&mut self, event: &K) -> Option<Time> {
        self.heap.remove(event).map(|(_, Reverse((t, _)))| t)
    }

    /// The next event and its time, without removing it.
    pub fn peek(&self) -> Option<(&K, Time)> {
        self.heap.peek().map(|(k, Reverse((t, _)))| (k, *t))
    }

    /// Removes and returns the earliest event; the queue's time becomes its time.
    pub fn pop(&mut self) -> Option<(K, Time)> {
        let (k, Reverse((t, _))) = self.heap.pop()?;
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
