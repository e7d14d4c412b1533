//! The event queue and the regular clocks that feed it (ACM §3, Algorithm 1).
//!
//! [`EventQueue`] orders events by `(Time, Seq)`: equal times pop in the order they were scheduled,
//! so runs are deterministic (law 6); events that recur with one period can run through
//! first-in-first-out lanes without changing that order. [`Clock`] is a regular clock whose
//! ticks are exactly `k · h` computed from the integer tick count, never an accumulated sum
//! (law 4); [`PeriodLadder`] rounds stable periods so that like elements share a clock.

mod clock;
mod indexed_heap;
mod key;
mod queue;

pub use clock::{Clock, PeriodLadder};
pub use queue::{EventQueue, Filing, QueueError, QueueSnapshot, Seq};
