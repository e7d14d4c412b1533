//! An event's place in the queue's order, `(Time, Seq)`, packed into one 128-bit integer whose
//! unsigned order is that pair's order: the time's bits mapped so that integer order is
//! `f64::total_cmp`'s (which [`Time`] orders by), then the sequence number.
//!
//! The heaps compare keys at every sift step and the queue compares its classes' heads at every
//! pop. Compared as a pair, a key costs two float-to-ordered-integer conversions and a branch on
//! equal times; packed, one wide comparison that the compiler makes without branches (a pop's
//! choice between heads is a coin toss no branch predictor guesses well).

use super::Seq;
use crate::math::Time;

/// The sign bit of an `f64`'s bits.
const SIGN: u64 = 1 << 63;

/// `(Time, Seq)` as one integer, ordered as the pair is (module docs).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub(super) struct Key(u128);

impl Key {
    /// The key of an event at `t` scheduled as `seq`.
    pub(super) fn new(t: Time, seq: Seq) -> Key {
        let bits = t.seconds().to_bits();
        // negative times: all bits flipped (larger magnitudes first); others: sign bit set
        let ordered = if bits & SIGN != 0 { !bits } else { bits | SIGN };
        Key((u128::from(ordered) << 64) | u128::from(seq))
    }

    /// The event's time.
    pub(super) fn time(self) -> Time {
        let ordered = (self.0 >> 64) as u64;
        let bits = if ordered & SIGN != 0 { ordered & !SIGN } else { !ordered };
        Time::new(f64::from_bits(bits)).expect("a key is made from a time, never NaN")
    }

    /// The event's sequence number.
    pub(super) fn seq(self) -> Seq {
        self.0 as Seq
    }

    /// The same time with sequence number `seq`.
    pub(super) fn with_seq(self, seq: Seq) -> Key {
        Key((self.0 >> 64 << 64) | u128::from(seq))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn times() -> Vec<f64> {
        let mut ts =
            vec![0.0, -0.0, 1.0, -1.0, f64::INFINITY, f64::NEG_INFINITY, f64::MIN_POSITIVE, -f64::MIN_POSITIVE];
        ts.extend([5e-324, -5e-324, f64::MAX, f64::MIN, 0.1, 0.1f64.next_up(), 0.1f64.next_down(), 1e-9, 3.0e8]);
        ts
    }

    #[test]
    fn keys_order_as_time_then_sequence_and_give_both_back() {
        let keys: Vec<(Time, Seq)> =
            times().into_iter().flat_map(|t| [0, 1, Seq::MAX].map(|s| (Time::new(t).unwrap(), s))).collect();
        for &(ta, sa) in &keys {
            let a = Key::new(ta, sa);
            assert_eq!((a.time().seconds().to_bits(), a.seq()), (ta.seconds().to_bits(), sa));
            assert_eq!(a.with_seq(7), Key::new(ta, 7));
            for &(tb, sb) in &keys {
                assert_eq!(a.cmp(&Key::new(tb, sb)), (ta, sa).cmp(&(tb, sb)), "{ta} {sa} against {tb} {sb}");
            }
        }
    }

    proptest! {
        #[test]
        fn any_two_keys_order_as_their_pairs(a in any::<f64>(), b in any::<f64>(), sa in any::<u64>(), sb in any::<u64>()) {
            prop_assume!(!a.is_nan() && !b.is_nan());
            let (ta, tb) = (Time::new(a).unwrap(), Time::new(b).unwrap());
            prop_assert_eq!(Key::new(ta, sa).cmp(&Key::new(tb, sb)), (ta, sa).cmp(&(tb, sb)));
            prop_assert_eq!(Key::new(ta, sa).time().seconds().to_bits(), a.to_bits());
        }
    }
}
