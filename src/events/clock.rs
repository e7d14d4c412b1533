//! A regular clock: ticks at `k · h`, k = 1, 2, … (ACM §3: "playing with this clock is strictly
//! forbidden"; report §6: activation picks the next multiple, it never restarts a clock).

use crate::math::{Real, Time};

/// A regular clock of period `h` that has ticked `tick` times.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
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

/// Rounds stable-period estimates down onto a ladder of `rungs` values per octave: the period's
/// binary mantissa is truncated to log₂(rungs) bits.
///
/// Any period at or below a force's stable step is a valid AVI clock (ACM §3: each force keeps its
/// own step), so rounding down keeps stability and costs at most 1/rungs more ticks. What it buys:
/// elements of the same shape and mass get bit-equal periods instead of periods that differ in
/// their last bits, so they tick at the same instants, in registration order (law 6), and sweep
/// their vertices in memory order instead of in an order scrambled by drifting clocks. With few
/// mantissa bits, `k · h` is also exact for every tick index k below 2^(52 − log₂ rungs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PeriodLadder {
    /// Mantissa bits kept, or `None` to keep estimates exactly.
    bits: Option<u32>,
}

impl PeriodLadder {
    /// Estimates are used exactly (no rounding).
    pub const EXACT: PeriodLadder = PeriodLadder { bits: None };
    /// The largest number of rungs per octave accepted by [`with_rungs`](Self::with_rungs).
    pub const MAX_RUNGS: u32 = 1 << 20;
    /// The default, 16 rungs per octave: at most 6.25 % more ticks than the exact estimates.
    pub const DEFAULT: PeriodLadder = PeriodLadder { bits: Some(4) };

    /// A ladder of `rungs` values per octave: a power of two up to [`MAX_RUNGS`](Self::MAX_RUNGS),
    /// or 0 for [`EXACT`](Self::EXACT). `None` for any other number.
    pub fn with_rungs(rungs: u32) -> Option<Self> {
        match rungs {
            0 => Some(Self::EXACT),
            r if r.is_power_of_two() && r <= Self::MAX_RUNGS => Some(PeriodLadder { bits: Some(r.trailing_zeros()) }),
            _ => None,
        }
    }

    /// Rungs per octave (0 for [`EXACT`](Self::EXACT)).
    pub fn rungs(&self) -> u32 {
        self.bits.map_or(0, |b| 1 << b)
    }

    /// The largest rung at or below `h`: `h` with its mantissa truncated. Exact, so bit-for-bit
    /// reproducible; non-finite or non-positive `h` and subnormals are returned unchanged.
    pub fn round_down(&self, h: Real) -> Real {
        match self.bits {
            Some(bits) if h.is_normal() && h > 0.0 => {
                let dropped = Real::MANTISSA_DIGITS - 1 - bits;
                Real::from_bits(h.to_bits() & !((1u64 << dropped) - 1))
            }
            _ => h,
        }
    }
}

impl Default for PeriodLadder {
    fn default() -> Self {
        Self::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// A rung is at or below the estimate and within one rung spacing of it; a rung is its own
        /// rounding; and the rungs of an octave are exactly `rungs` values m · 2^e / rungs.
        #[test]
        fn rungs_are_below_and_within_one_spacing(h in 1e-9f64..10.0, log_rungs in 0u32..=20) {
            let ladder = PeriodLadder::with_rungs(1 << log_rungs).unwrap();
            let r = ladder.round_down(h);
            prop_assert!(r <= h);
            prop_assert!(r >= h * (1.0 - 1.0 / (1u64 << log_rungs) as f64) * (1.0 - 1e-15));
            prop_assert_eq!(ladder.round_down(r), r);
            // r · rungs / 2^⌊log₂ r⌋ is an integer in [rungs, 2 · rungs)
            let octave = 2f64.powi(r.log2().floor() as i32);
            let m = r / octave * (1u64 << log_rungs) as f64;
            prop_assert_eq!(m, m.floor());
            prop_assert!(m >= (1u64 << log_rungs) as f64 && m < (2u64 << log_rungs) as f64);
        }
    }

    #[test]
    fn nearly_equal_estimates_share_a_rung_and_tick_times_are_exact() {
        let ladder = PeriodLadder::DEFAULT;
        let h = 1.234_567_89e-4;
        let nearby = h * (1.0 + 4.0 * f64::EPSILON);
        assert_eq!(ladder.round_down(h), ladder.round_down(nearby));
        assert_ne!(h, nearby);
        let r = ladder.round_down(h);
        // k·r needs at most 4 + 30 mantissa bits for k < 2³⁰: exact, so equal to a sum of r's.
        let k = 1u64 << 29;
        assert_eq!(k as f64 * r, (0..4).map(|_| (k / 4) as f64 * r).sum::<f64>());
        assert_eq!(PeriodLadder::EXACT.round_down(h), h);
    }

    #[test]
    fn only_powers_of_two_and_zero_are_ladders() {
        assert_eq!(PeriodLadder::with_rungs(0), Some(PeriodLadder::EXACT));
        assert_eq!(PeriodLadder::with_rungs(16), Some(PeriodLadder::DEFAULT));
        assert_eq!(PeriodLadder::with_rungs(16).unwrap().rungs(), 16);
        assert_eq!(PeriodLadder::with_rungs(1).unwrap().round_down(0.3), 0.25);
        assert_eq!(PeriodLadder::with_rungs(12), None);
        assert_eq!(PeriodLadder::with_rungs(PeriodLadder::MAX_RUNGS * 2), None);
        assert_eq!(PeriodLadder::DEFAULT.round_down(Real::INFINITY), Real::INFINITY);
    }

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
