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

/// Rounds stable-period estimates down onto a ladder of `rungs` values per octave, spaced
/// logarithmically: the rungs of octave e are 2^(e + j/rungs), j = 0 … rungs − 1.
///
/// Any period at or below a force's stable step is a valid AVI clock (ACM §3: each force keeps its
/// own step), so rounding down keeps stability and costs at most 2^(1/rungs) − 1 more ticks. What
/// it buys: elements of the same shape and mass get bit-equal periods instead of periods that
/// differ in their last bits, so they tick at the same instants, in registration order (law 6),
/// and sweep their vertices in memory order instead of in an order scrambled by drifting clocks.
///
/// Why logarithmic: two rungs of different j are in an irrational ratio, 2^((j − j')/rungs), as
/// exact estimates almost surely are. An earlier ladder truncated the binary mantissa, which made
/// every period an integer multiple of one quantum (2^(e − 4) s at 16 rungs) and so every pair of
/// clocks commensurate, in ratios of small integers such as 19 : 17. Asynchronous variational
/// integrators resonate at commensurate steps (Fong, Darve and Lew 2008, "Stability of
/// asynchronous variational integrators"): a spinning icosphere whose exact periods kept its
/// energy to 10⁻⁴ gained a factor of 2 000 in a second on that ladder (`tests/laws.rs`).
///
/// The rungs are products of the roots 2^(2^−i), each a chain of correctly rounded square roots,
/// multiplied in one fixed order: the same bits on every IEEE-754 machine, whatever its `exp2`.
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
    /// The default, 16 rungs per octave: at most 4.4 % more ticks than the exact estimates.
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

    /// The largest rung at or below `h`. Bit-for-bit reproducible (see the type's doc);
    /// non-finite or non-positive `h` and subnormals are returned unchanged.
    pub fn round_down(&self, h: Real) -> Real {
        match self.bits {
            Some(bits) if h.is_normal() && h > 0.0 => {
                // h = m · 2^e with m in [1, 2); both factors exact
                const MANTISSA: u64 = (1u64 << (Real::MANTISSA_DIGITS - 1)) - 1;
                let octave = Real::from_bits(h.to_bits() & !MANTISSA);
                let m = h / octave;
                // the digits of j/rungs from the most significant: 2^(1/2), 2^(1/4), … kept while
                // the product stays at or below m (the rungs increase with j, so this finds the
                // largest rung at or below m, and rounds a rung to itself)
                let (mut root, mut rung) = (2.0 as Real, 1.0 as Real);
                for _ in 0..bits {
                    root = root.sqrt();
                    if rung * root <= m {
                        rung *= root;
                    }
                }
                rung * octave
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
        /// rounding; and the rungs are the powers 2^(e + j/rungs).
        #[test]
        fn rungs_are_below_and_within_one_spacing(h in 1e-9f64..10.0, log_rungs in 0u32..=20) {
            let rungs = (1u64 << log_rungs) as f64;
            let ladder = PeriodLadder::with_rungs(1 << log_rungs).unwrap();
            let r = ladder.round_down(h);
            prop_assert!(r <= h);
            prop_assert!(r >= h * 2f64.powf(-1.0 / rungs) * (1.0 - 1e-14));
            prop_assert_eq!(ladder.round_down(r), r);
            // log₂ r · rungs is an integer, to the round-off of the products
            let j = r.log2() * rungs;
            prop_assert!((j - j.round()).abs() < 1e-12 * rungs * (1.0 + r.log2().abs()), "{}", j);
        }
    }

    #[test]
    fn rungs_of_different_index_are_not_multiples_of_one_quantum() {
        // the old ladder's 17/16 and 19/16 (commensurate) become 2^(1/16) and 2^(3/16)
        let ladder = PeriodLadder::DEFAULT;
        let (a, b) = (ladder.round_down(1.0625), ladder.round_down(1.1875));
        assert!((a - 2f64.powf(1.0 / 16.0)).abs() < 1e-15 && a <= 1.0625, "{a}");
        assert!((b - 2f64.powf(3.0 / 16.0)).abs() < 1e-15 && b <= 1.1875, "{b}");
        // b/a = 2^(1/8) is within 1e-6 of no ratio of small integers p/q, q ≤ 64
        let ratio = b / a;
        assert!((1..=64).all(|q| ((ratio * q as f64).round() - ratio * q as f64).abs() > 1e-6 * q as f64));
    }

    #[test]
    fn nearly_equal_estimates_share_a_rung() {
        let ladder = PeriodLadder::DEFAULT;
        let h = 1.234_567_89e-4;
        let nearby = h * (1.0 + 4.0 * f64::EPSILON);
        assert_eq!(ladder.round_down(h), ladder.round_down(nearby));
        assert_ne!(h, nearby);
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
