//! Test-only references and strategies for the distance tests. The references share no code with
//! the functions they check: they minimise `|x − y|` over the primitives' parameter domain by
//! nested ternary search (the distance is convex in the parameters, and so is its partial minimum
//! over the inner parameter) and by dense sampling, which also gives a certain lower bound.

use crate::math::{Real, Vec3};
use nalgebra::Rotation3;
use proptest::prelude::*;
use std::f64::consts::PI;

/// Minimum of a convex function on `[lo, hi]` by ternary search.
fn ternary(lo: Real, hi: Real, f: impl Fn(Real) -> Real) -> Real {
    let (mut lo, mut hi) = (lo, hi);
    let ends = f(lo).min(f(hi));
    for _ in 0..100 {
        let (m1, m2) = (lo + (hi - lo) / 3.0, hi - (hi - lo) / 3.0);
        if f(m1) < f(m2) {
            hi = m2;
        } else {
            lo = m1;
        }
    }
    f(0.5 * (lo + hi)).min(ends)
}

/// Distance from `p` to segment `a b`, by minimisation.
pub fn ref_point_edge(p: Vec3, a: Vec3, b: Vec3) -> Real {
    ternary(0.0, 1.0, |t| (p - a.lerp(&b, t)).norm())
}

/// Distance from `p` to triangle `t0 t1 t2`, by minimisation over `t0 + x (t1 − t0) + y (t2 − t0)`.
pub fn ref_point_triangle(p: Vec3, t0: Vec3, t1: Vec3, t2: Vec3) -> Real {
    let (e1, e2) = (t1 - t0, t2 - t0);
    ternary(0.0, 1.0, |x| ternary(0.0, 1.0 - x, |y| (p - (t0 + e1 * x + e2 * y)).norm()))
}

/// Distance between segments `a0 a1` and `b0 b1`, by minimisation.
pub fn ref_edge_edge(a0: Vec3, a1: Vec3, b0: Vec3, b1: Vec3) -> Real {
    ternary(0.0, 1.0, |s| {
        let pa = a0.lerp(&a1, s);
        ternary(0.0, 1.0, |t| (pa - b0.lerp(&b1, t)).norm())
    })
}

/// Sampled minimum of `f` on the `n × n` grid of `[0, 1]²` (`(i/n, j/n)`, `j ≤ n − i` if
/// `simplex`). The true minimum is at least this minus `f`'s Lipschitz constant times the spacing.
pub fn sampled(n: usize, simplex: bool, f: impl Fn(Real, Real) -> Real) -> Real {
    let mut best = Real::INFINITY;
    for i in 0..=n {
        for j in 0..=if simplex { n - i } else { n } {
            best = best.min(f(i as Real / n as Real, j as Real / n as Real));
        }
    }
    best
}

/// Checks that `computed` is the minimum: within `tol` of the minimisation `reference`, and
/// between the sampled minimum's certain lower bound `sampled − spacing` and the sampled minimum.
pub fn assert_minimum(computed: Real, reference: Real, sampled: Real, spacing: Real, tol: Real) {
    assert!(computed.is_finite(), "computed {computed}");
    assert!((computed - reference).abs() <= tol, "computed {computed}, reference {reference}");
    assert!(computed <= sampled + tol, "computed {computed} > sampled minimum {sampled}");
    assert!(computed >= sampled - spacing - tol, "computed {computed} < lower bound {}", sampled - spacing);
}

/// Checks a gradient against central finite differences of `f`, away from zero distance (callers
/// keep d > 1e-2) and from feature changes: where `feature` (the closest feature) differs across
/// the difference stencil, `f` stays C¹ but its second derivatives jump, by up to 1/(altitude²) on
/// slivers, so that component is skipped.
pub fn assert_gradient<const N: usize, F: PartialEq>(
    x: [Vec3; N],
    f: impl Fn([Vec3; N]) -> Real,
    feature: impl Fn([Vec3; N]) -> F,
    gradient: [Vec3; N],
) {
    let (h, tol) = (1e-7, 1e-6);
    for i in 0..N {
        for k in 0..3 {
            let (mut plus, mut minus) = (x, x);
            plus[i][k] += h;
            minus[i][k] -= h;
            if feature(plus) != feature(x) || feature(minus) != feature(x) {
                continue;
            }
            let fd = (f(plus) - f(minus)) / (2.0 * h);
            assert!((fd - gradient[i][k]).abs() <= tol, "vertex {i} axis {k}: fd {fd}, gradient {}", gradient[i][k]);
        }
    }
}

/// A point in the cube [−1, 1]³.
pub fn point() -> impl Strategy<Value = Vec3> {
    [-1.0..1.0, -1.0..1.0, -1.0..1.0].prop_map(Vec3::from)
}

/// A value between `lo` and `hi`, uniform in its logarithm.
pub fn log_uniform(lo: Real, hi: Real) -> impl Strategy<Value = Real> {
    (lo.ln()..hi.ln()).prop_map(Real::exp)
}

/// A random rotation and translation.
pub fn rigid_motion() -> impl Strategy<Value = (Rotation3<Real>, Vec3)> {
    ((-PI..PI, -1.5..1.5, -PI..PI), point()).prop_map(|((r, p, y), t)| (Rotation3::from_euler_angles(r, p, y), t))
}

/// The report's spikes: an isosceles sliver with a 3.47° apex.
pub const SPIKE_APEX: Real = 3.47 * PI / 180.0;

/// A triangle: general, or an isosceles sliver with apex angle down to 0.06° (the spike's 3.47°
/// among them) under a random rigid motion.
pub fn proper_triangle() -> impl Strategy<Value = [Vec3; 3]> {
    let general = [point(), point(), point()];
    let apex = prop_oneof![Just(SPIKE_APEX), log_uniform(1e-3, 0.3)];
    let sliver = (0.1..2.0, apex, rigid_motion()).prop_map(|(l, a, (r, s))| {
        let half = 0.5 * a;
        let [p, q] = [half, -half].map(|b| Vec3::new(l * b.cos(), l * b.sin(), 0.0));
        [Vec3::zeros(), p, q].map(|x| r * x + s)
    });
    prop_oneof![general, sliver]
}

/// A [`proper_triangle`] or a nearly degenerate one (altitude down to 1e-12 of the base, apex
/// anywhere along or beyond it) under a random rigid motion.
pub fn triangle() -> impl Strategy<Value = [Vec3; 3]> {
    let flat = (0.1..2.0, -0.5..1.5, log_uniform(1e-12, 1e-4), rigid_motion()).prop_map(|(l, t, h, (r, s))| {
        [Vec3::zeros(), Vec3::new(l, 0.0, 0.0), Vec3::new(t * l, h * l, 0.0)].map(|x| r * x + s)
    });
    prop_oneof![proper_triangle(), flat]
}

/// A point anywhere, or near the plane of `t0 + x e1 + y e2` (x, y ∈ [−0.5, 1.5]) at a distance down
/// to 1e-6 from it, as `(x, y, offset)` to combine with a triangle.
pub fn near_offset() -> impl Strategy<Value = (Real, Real, Vec3)> {
    ((-0.5..1.5, -0.5..1.5), point(), log_uniform(1e-6, 2.0)).prop_map(|((x, y), dir, r)| (x, y, dir * r))
}

/// A pair of edges: general; parallel, overlapping or not; nearly parallel (angle down to 1e-12)
/// and crossing or passing at distances down to 1e-9; under a random rigid motion.
pub fn edge_pair() -> impl Strategy<Value = [Vec3; 4]> {
    let general = [point(), point(), point(), point()];
    let parallel = (0.1..2.0, -1.0..2.0, 0.1..2.0, prop_oneof![Just(0.0), log_uniform(1e-12, 1e-2)]);
    let near = (parallel, (-PI..PI, log_uniform(1e-9, 1.0), -0.5..1.5), any::<bool>(), rigid_motion()).prop_map(
        |((la, start, lb, angle), (phi, gap, cross), flip, (r, s))| {
            // Edge b starts `gap` off a's line (direction phi around it) and turns by `angle`; with
            // `cross` in [0, 1] its line passes closest to a's at a's parameter `cross`.
            let off = Vec3::new(0.0, phi.cos(), phi.sin()) * gap;
            let dir = Vec3::new(angle.cos(), angle.sin(), 0.0);
            let b0 = Vec3::new(cross * la, 0.0, 0.0) + off - dir * (start * lb);
            let b1 = b0 + dir * lb;
            let (b0, b1) = if flip { (b1, b0) } else { (b0, b1) };
            [Vec3::zeros(), Vec3::new(la, 0.0, 0.0), b0, b1].map(|x| r * x + s)
        },
    );
    prop_oneof![general, near]
}
