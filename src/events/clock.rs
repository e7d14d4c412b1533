//! A regular clock: ticks at `k · h`, k = 1, 2, … (ACM §3: "playing with this clock is strictly
//! forbidden"; report §6: activation picks the next multiple, it never restarts a clock).

use crate::math::{Real, Time};

/// A regular clock of period `h` that has ticked `tick` times.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Clock {
    period: Real,
    tick: u64,
}

impl Clock {
    /// A clock of period `h` (s) that has not ticked yet; its first tick is at `h` (Algorithm 1).
    ///
    /// Panics unless `h` is finite and positive (a documented precondition: scene validation
    /// refuses such periods with a user-facing message before a clock is ever made).
    pub fn new(h: Real) -> Self {
        assert!(h.is_finite() && h > 0.0, "clock period must be finite and positive, got {h}");
        Clock { period: h, tick: 0 }
    }

    /// The period `h`, s.
    pub fn period(&self) -> Real {
        self.period
    }

    /// How many ticks have been processed.
    pub fn ticks(&self) -> u64 {
        self.tick
    }

    /// Time of tick `k`: exactly `k as Real * h`.
    pub fn time_of(&self, k: u64) -> Time {
        Time::new(k as Real * self.period).expect("finite period times an integer is not NaN")
    }

    /// The time of the next tick, `(ticks + 1) · h`.
    pub fn next_time(&self) -> Time {
        self.time_of(self.tick + 1)
    }

    /// Records that the next tick was processed and returns its index k.
    pub fn advance(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    /// Skips to the first tick strictly after `t` without processing the ones before: the clock
    /// stays on its grid of multiples of `h` (used when a potential is switched on mid-run).
    pub fn skip_to_after(&mut self, t: Time) {
        let k = (t.seconds() / self.period).floor().max(0.0) as u64;
        // Round-off in the division may leave k·h > t or (k+1)·h ≤ t; fix both ways.
        let mut k = k;
        while k > 0 && self.time_of(k) > t {
            k -= 1;
        }
        while self.time_of(k + 1) <= t {
            k += 1;
        }
        self.tick = k;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_are_integer_multiples_not_sums() {
        let mut c = Clock::new(0.1);
        let mut sum = 0.0;
        for _ in 0..1000 {
            sum += 0.1;
            c.advance();
        }
        assert_eq!(c.time_of(c.ticks()).seconds(), 1000.0 * 0.1);
        assert_ne!(sum, 1000.0 * 0.1, "an accumulated sum drifts; the clock must not");
        assert_eq!(c.next_time().seconds(), 1001.0 * 0.1);
    }

    #[test]
    fn skip_picks_the_next_multiple() {
        let mut c = Clock::new(0.3);
        c.skip_to_after(Time::new(0.9).unwrap());
        assert!(c.next_time().seconds() > 0.9);
        assert_eq!(c.next_time(), c.time_of(c.ticks() + 1));
        assert!(c.time_of(c.ticks()).seconds() <= 0.9);
    }
}
