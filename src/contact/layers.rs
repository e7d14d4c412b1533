//! The penalty-layer schedule: η(l) = η₁·l^(−1/4), r(l) = r₁·l³ (ACM §4), and each layer's clock
//! period h(l) from the pair's masses (report §9: h ∝ 1/√r).

use crate::math::{Real, Time};
use std::fmt;

/// η(l) and r(l) for l = 1, 2, …: thickness η₁ (m) and stiffness r₁ (N/m) of the outermost layer.
///
/// The cumulative energy Σ r(l) η(l)² = r₁ η₁² Σ l^(5/2) diverges, so the layers together are a
/// barrier: no finite energy crosses them all (ACM §4).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct LayerSchedule {
    /// η(1), m.
    pub thickness: Real,
    /// r(1), N/m.
    pub stiffness: Real,
}

impl Default for LayerSchedule {
    /// The scene format's defaults: η(1) = 0.01 m, r(1) = 1000 N/m.
    fn default() -> Self {
        LayerSchedule { thickness: 0.01, stiffness: 1000.0 }
    }
}

/// A layer's clock period has fallen toward round-off: the run cannot make progress at this
/// time (ACM §9, "Zeno"). Says where and why instead of spinning.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ZenoError {
    /// The layer index l.
    pub layer: u32,
    /// Its period h(l), s.
    pub period: Real,
    /// The simulated time at which it would be activated.
    pub time: Time,
}

impl fmt::Display for ZenoError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "penalty layer {} would tick every {:e} s at t = {}, below the resolution of the clock: the pair is being \
             driven through the layers faster than they can stop it; lower the approach speed or raise the contact \
             stiffness or thickness",
            self.layer, self.period, self.time
        )
    }
}

impl std::error::Error for ZenoError {}

impl ZenoError {
    /// Period `h` of layer `l`, refused when the clock cannot resolve it at `now`: when `now + h`
    /// rounds to `now` (or nearly), the layer's ticks would not advance time and the run would
    /// stall.
    pub fn check(l: u32, h: Real, now: Time) -> Result<Real, ZenoError> {
        let resolution = now.seconds().abs().max(1.0) * 1e3 * Real::EPSILON;
        if h.is_finite() && h > resolution {
            Ok(h)
        } else {
            Err(ZenoError { layer: l, period: h, time: now })
        }
    }
}

/// Layers whose l^(−1/4) is kept in a table: every layer tick asks for its thickness, and a
/// `powf` was 2 % of a tight knot's run.
const TABULATED_LAYERS: usize = 128;

/// l^(−1/4), the same bits as `powf` gives (the table is made with it).
fn inverse_fourth_root(l: u32) -> Real {
    static TABLE: std::sync::LazyLock<[Real; TABULATED_LAYERS]> =
        std::sync::LazyLock::new(|| std::array::from_fn(|l| (l as Real).powf(-0.25)));
    match TABLE.get(l as usize) {
        Some(&x) => x,
        None => (l as Real).powf(-0.25),
    }
}

impl LayerSchedule {
    /// η(l) = η₁·l^(−1/4), m. Layer indices start at 1.
    pub fn thickness(&self, l: u32) -> Real {
        debug_assert!(l >= 1, "layers are numbered from 1");
        self.thickness * inverse_fourth_root(l)
    }

    /// r(l) = r₁·l³, N/m.
    pub fn stiffness(&self, l: u32) -> Real {
        self.stiffness * (l as Real).powi(3)
    }

    /// The clock period of layer `l` for a pair whose stencil has inverse masses summing to
    /// `inverse_mass` (1/kg; a held vertex contributes 0): `safety · 2/√(r(l) · inverse_mass)`,
    /// the leapfrog limit for the stiffest direction of the layer's quadratic potential (weights
    /// of the closest-point combination are at most 1). `h(l) = h(1)·l^(−3/2)`.
    pub fn period(&self, l: u32, inverse_mass: Real, safety: Real) -> Real {
        safety * 2.0 / (self.stiffness(l) * inverse_mass).sqrt()
    }

    /// Like [`period`](Self::period), but refuses a period that the clock cannot resolve at time
    /// `now`: when `now + h(l)` rounds to `now` (or nearly), the layer's ticks would not advance
    /// time and the run would stall.
    pub fn checked_period(&self, l: u32, inverse_mass: Real, safety: Real, now: Time) -> Result<Real, ZenoError> {
        ZenoError::check(l, self.period(l, inverse_mass, safety), now)
    }

    /// The layer index n whose region η(n+1) < g ≤ η(n) contains gap `d` (the number of layers
    /// exerting force at distance `d`); 0 when `d > η(1)`.
    pub fn layers_active_at(&self, d: Real) -> u32 {
        if d > self.thickness {
            return 0;
        }
        if d <= 0.0 {
            return u32::MAX;
        }
        // η(n) ≥ d ⇔ n ≤ (η₁/d)⁴
        let n = ((self.thickness / d).powi(4)).floor();
        let mut n = n.min(u32::MAX as Real) as u32;
        // settle round-off at the boundaries
        while n > 1 && self.thickness(n) < d {
            n -= 1;
        }
        while n < u32::MAX && self.thickness(n + 1) >= d {
            n += 1;
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule_follows_the_paper_and_diverges() {
        let s = LayerSchedule { thickness: 0.1, stiffness: 1000.0 };
        assert_eq!(s.thickness(1), 0.1);
        assert!((s.thickness(16) - 0.05).abs() < 1e-15, "η(16) = η₁/2");
        assert_eq!(s.stiffness(2), 8000.0);
        let h1 = s.period(1, 2.0, 0.5);
        assert!((s.period(4, 2.0, 0.5) - h1 / 8.0).abs() < 1e-15, "h(l) = h(1) l^(-3/2)");
        // cumulative energy of the first n layers at zero distance grows without bound
        let energy = |n: u32| (1..=n).map(|l| 0.5 * s.stiffness(l) * s.thickness(l).powi(2)).sum::<Real>();
        assert!(energy(100) > 100.0 * energy(5));
        // the table and the formula agree to the bit, on both sides of the table's end
        for l in [1, 2, 3, 17, 127, 128, 129, 1000] {
            assert_eq!(s.thickness(l).to_bits(), (0.1 * (l as Real).powf(-0.25)).to_bits(), "layer {l}");
        }
    }

    #[test]
    fn active_layer_count_brackets_the_gap() {
        let s = LayerSchedule { thickness: 0.1, stiffness: 1.0 };
        assert_eq!(s.layers_active_at(0.2), 0);
        assert_eq!(s.layers_active_at(0.1), 1);
        for d in [0.09, 0.05, 0.02, 0.011, 1e-3] {
            let n = s.layers_active_at(d);
            assert!(s.thickness(n) >= d && s.thickness(n + 1) < d, "d = {d}: n = {n}");
        }
    }

    #[test]
    fn zeno_is_reported_not_spun() {
        let s = LayerSchedule { thickness: 0.1, stiffness: 1000.0 };
        let now = Time::new(10.0).unwrap();
        assert!(s.checked_period(1, 2.0, 0.5, now).is_ok());
        let e = s.checked_period(100_000_000, 2.0, 0.5, now).unwrap_err();
        assert_eq!(e.layer, 100_000_000);
        assert!(e.to_string().contains("layer 100000000"));
    }
}
