//! Elastic clocks clear of the resonances of multiple time stepping (docs/scene-format.md, "Clock
//! periods"): no elastic clock is more than twice as slow as a fast neighbour's, and within a body
//! every elastic period is the body's base period times a power of two; and no penalty layer's
//! clock is more than twice as slow as the fastest elastic clock on its vertices.
//!
//! An AVI is a multiple-time-stepping method and shares its resonances (Fong, Darve and Lew 2008):
//! two clocks that share a vertex and tick in an irrational ratio, such as neighbouring rungs of the
//! period ladder (2^(1/16) apart), meet in every relative phase, and a stiff shell plucked hard
//! enough pumps energy into its fast modes that way. A clamped card of stretching 10⁶ N/m snapped
//! by a thumb gained a factor of 100 in energy in 0.15 s after its release on the 16-rung ladder
//! (`tests/laws.rs`). Clocks in ratios of 1 and 2 are the plain multirate leapfrog, whose slow
//! clock, at most twice the fast one ([`RESONANCE_RATIO`]), stays below the first resonance. And a
//! stiff shell's hinges, whose estimates can be 60 times its membranes', pumped the membranes'
//! modes until the cap: a spinning hat gained a factor of 500 in energy in 0.6 s.

use crate::force::ForceSpec;
use crate::math::Real;
use crate::model::Model;

/// The most an elastic potential's clock period may exceed the smallest one of the elastic
/// potentials sharing a vertex with it. With periods at `safety_factor` 0.5 of the stable step, the
/// fast clock resolves its mode at ω·h ≤ 1, so the slow clock kicks that mode at ω·h ≤ 2, below
/// the first resonance of multiple time stepping (ω·h = π). An exact factor of 2 keeps a laddered
/// period on the ladder, one octave up.
const RESONANCE_RATIO: Real = 2.0;

/// Caps every elastic period at [`RESONANCE_RATIO`] times the smallest elastic period among the
/// potentials that share a vertex with it (one pass, from the periods as they are on entry).
pub(super) fn cap_at_fast_neighbours(
    vertices: usize,
    specs: &[ForceSpec],
    periods: &mut [Option<Real>],
    elastic: impl Fn(&ForceSpec) -> bool,
) {
    let mut vertex_fastest = vec![Real::INFINITY; vertices];
    for (spec, period) in specs.iter().zip(periods.iter()) {
        if let (true, Some(h)) = (elastic(spec), period) {
            for v in spec.potential.stencil() {
                vertex_fastest[v.index()] = vertex_fastest[v.index()].min(*h);
            }
        }
    }
    for (spec, period) in specs.iter().zip(periods.iter_mut()) {
        if let (true, Some(h)) = (elastic(spec), period.as_mut()) {
            let fastest =
                spec.potential.stencil().iter().map(|v| vertex_fastest[v.index()]).fold(Real::INFINITY, Real::min);
            *h = h.min(RESONANCE_RATIO * fastest);
        }
    }
}

/// For each vertex, the longest clock period a penalty layer on it may take: [`RESONANCE_RATIO`]
/// times the smallest period among the potentials on it that are not dissipative and whose
/// period is known here (given, or estimated: the elastic ones; gravity only under a common
/// `[simulation] period`), `INFINITY` on a vertex without one. A layer whose
/// own period h(l) is longer kicks the fast elastic modes of its vertices as a slow force of
/// multiple time stepping does: soft layers (r(1) = 1000 N/m, h(1) ≈ 20 µs) on a stiff card
/// whose clocks tick at 1.2 µs put 40 % of a thumb's work into the card as it pressed
/// (`tests/laws.rs`).
pub(super) fn layer_period_limits(vertices: usize, specs: &[ForceSpec], periods: &[Option<Real>]) -> Vec<Real> {
    let mut limit = vec![Real::INFINITY; vertices];
    for (spec, period) in specs.iter().zip(periods) {
        if let (false, Some(h)) = (spec.potential.is_dissipative(), period) {
            for v in spec.potential.stencil() {
                limit[v.index()] = limit[v.index()].min(RESONANCE_RATIO * h);
            }
        }
    }
    limit
}

/// How many bases per octave are tried for each body: the one that needs the fewest ticks per
/// second wins.
const BASE_CANDIDATES: u32 = 16;

/// Rounds every elastic period (`elastic(spec)` and `Some`) of each body down to the body's base
/// period times a power of two. The base is at most the body's smallest elastic period, chosen
/// among [`BASE_CANDIDATES`] per octave below it as the one whose snapped periods tick least often
/// in all. Every period shrinks by less than a factor of 2 and elements that shared a period
/// share it still (doubling is exact). Periods of other potentials are left alone.
pub(super) fn snap_to_body_octaves(
    model: &Model,
    specs: &[ForceSpec],
    periods: &mut [Option<Real>],
    elastic: impl Fn(&ForceSpec) -> bool,
) {
    let mut body_of_vertex = vec![usize::MAX; model.vertices.len()];
    for (ordinal, body) in model.bodies.values().enumerate() {
        for v in body.vertices.clone() {
            body_of_vertex[v as usize] = ordinal;
        }
    }
    let body_of = |spec: &ForceSpec| spec.potential.stencil().first().map(|v| body_of_vertex[v.index()]);
    let mut members: Vec<Vec<Real>> = vec![Vec::new(); model.bodies.len()];
    for (spec, period) in specs.iter().zip(periods.iter()) {
        if let (true, Some(h), Some(body)) = (elastic(spec), period, body_of(spec)) {
            members[body].push(*h);
        }
    }
    let bases: Vec<Real> = members.iter().map(|periods| cheapest_base(periods)).collect();
    for (spec, period) in specs.iter().zip(periods.iter_mut()) {
        if let (true, Some(h), Some(body)) = (elastic(spec), period.as_mut(), body_of(spec)) {
            *h = octave_below(bases[body], *h);
        }
    }
}

/// The largest base·2^k (k ≥ 0) at or below `h`; `base` itself when `h` is below `2·base`.
fn octave_below(base: Real, h: Real) -> Real {
    let mut snapped = base;
    while snapped * 2.0 <= h {
        snapped *= 2.0;
    }
    snapped
}

/// The base for `periods` (positive, finite): of the candidates m·2^(−j/`BASE_CANDIDATES`), m the
/// smallest period, the one with the fewest ticks per second Σ 1/octave_below(base, h); the
/// largest on a tie. `INFINITY` for no periods.
fn cheapest_base(periods: &[Real]) -> Real {
    let smallest = periods.iter().copied().fold(Real::INFINITY, Real::min);
    if !smallest.is_finite() {
        return smallest;
    }
    let ticks = |base: Real| periods.iter().map(|&h| 1.0 / octave_below(base, h)).sum::<Real>();
    let mut best = (ticks(smallest), smallest);
    for j in 1..BASE_CANDIDATES {
        let base = smallest * (-(j as Real) / BASE_CANDIDATES as Real).exp2();
        let candidate = (ticks(base), base);
        if candidate.0 < best.0 {
            best = candidate;
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_base_just_below_the_smallest_period_saves_the_many_slightly_slower_clocks() {
        // one clock at 1 and three at 1.9: the base 1 would make all four tick at 1 (4 ticks per
        // second); a base of 0.95 ticks them at 0.95 and 1.9 (2.63)
        let base = cheapest_base(&[1.0, 1.9, 1.9, 1.9]);
        assert!(base <= 0.95 && base > 0.9, "{base}");
        assert_eq!(cheapest_base(&[2.0, 2.0]), 2.0);
        assert_eq!(cheapest_base(&[]), Real::INFINITY);
    }

    proptest! {
        #[test]
        fn snapped_periods_are_powers_of_two_apart_and_within_an_octave(
            periods in proptest::collection::vec(1e-7f64..1e-3, 1..40)
        ) {
            let base = cheapest_base(&periods);
            let smallest = periods.iter().copied().fold(f64::INFINITY, f64::min);
            prop_assert!(base <= smallest && base > smallest / 2.0);
            for &h in &periods {
                let s = octave_below(base, h);
                prop_assert!(s <= h && s * 2.0 > h, "{} from {}", s, h);
                let ratio = s / base;
                prop_assert_eq!(ratio, ratio.log2().round().exp2(), "{} is not base times a power of two", s);
            }
        }
    }
}
