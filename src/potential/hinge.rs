//! Bending energy of a shell: the discrete-shells hinge (Grinspun, Hirani, Desbrun & Schröder 2003,
//! "Discrete shells", SCA).
//!
//! Stencil `[x₀, x₁, x₂, x₃]`: (x₀, x₁) is the shared edge, x₂ the opposite vertex of triangle
//! (x₀, x₁, x₂) and x₃ that of triangle (x₁, x₀, x₃), so both triangles are oriented alike. With the
//! area-weighted normals n₁ = e × (x₂ − x₀), n₂ = (x₃ − x₁) × e, e = x₁ − x₀, the signed bending
//! angle is
//!
//! θ = atan2(ê·(n₂ × n₁), n₁·n₂) ∈ (−π, π],
//!
//! zero when the hinge is flat and positive when the opposite vertices move to the side their own
//! triangle's normal points to. The energy is
//!
//! E = k (θ − θ̄)² · 3‖ē‖² / (Ā₁ + Ā₂) · g(s₁) g(s₂),
//!
//! with θ̄, ‖ē‖, Ā₁, Ā₂ the rest angle, edge length and triangle areas.
//!
//! **Crushed triangles** (issue 22). ∂θ/∂x₂ has length 1/h₁ = ‖e‖/(2A₁), h₁ the height of x₂
//! over the edge and A₁ its triangle's area, and the edge vertices' gradients are of the same size
//! times where x₂ and x₃ fall along the edge, so the hinge's stiffness grows as 1/A² when a
//! triangle is crushed in its plane, across the edge or along it, which a St. Venant–Kirchhoff
//! membrane allows under compression. The hinge's clock is fixed from the rest shape (ACM §3), so in
//! a knot pulled tight, where the strands squeeze each other, the hinges of crushed triangles
//! outgrew their clocks on an irregular ribbon (stiffness up to 11 times the rest value while the
//! bending itself was 0.1 rad; later a shared edge crushed to an eighth of its length), and the
//! explicit blow-up that followed ended in a Zeno stop between boundary ears. The factors g(sᵢ),
//! sᵢ = Aᵢ/(κ Āᵢ) with κ = [`AREA_KNEE`], hold the stiffness to a bounded multiple of its rest
//! value while the triangles' edges keep about their lengths: g(s) = s²(2 − s²) below s = 1 and 1
//! above (continuous with its slope), so g(s)/s² ≤ 2, and a hinge whose triangle is crushed to any
//! area is at most about 2/κ² ≈ 3.6 times as stiff as at rest, within the factor 4 that the
//! default `safety_factor` (0.5) leaves. At and near the rest shape (areas above κ Ā) it is the
//! discrete-shells hinge unchanged; a crushed triangle carries less bending energy, its weight
//! falling as its area squared.
//!
//! **Plastic hinges** (ACM §8's trash compactor, after Bergou, Mathur, Wardetzky & Grinspun 2007,
//! "TRACKS", whose shells crush by updating their rest shape). With a yield angle θ_y
//! ([`Hinge::with_yield`]), a hinge bent further than θ_y from its rest angle yields at the end of
//! its tick: θ̄ moves toward θ until |θ − θ̄| = θ_y (perfect plasticity, no hardening). The kick of
//! that tick used the old θ̄, the next one uses the new: the trajectory stays a variational
//! integrator's between yields, and at a yield the elastic energy the hinge loses, E(x; θ̄_old) −
//! E(x; θ̄_new) ≥ 0 at the tick's positions, is booked as dissipated (plastic work), so the energy
//! ledger closes. Angles and areas are invariant under rigid motions, so momentum is kept exactly.
//!
//! The gradient uses the closed form of ∇θ (Bridson, Marino & Fedkiw 2003, "Simulation of clothing
//! with folds and wrinkles", §4; Tamstorf & Grinspun 2013, "Discrete bending forces and their
//! Jacobians"):
//! ∂θ/∂x₂ = ‖e‖ n₁/‖n₁‖², ∂θ/∂x₃ = ‖e‖ n₂/‖n₂‖², and the edge vertices take minus these weighted by
//! the opposite vertices' positions along the edge. The Hessian is the exact AD Hessian of the
//! same generic energy ([`super::hessian_of`]).

use super::ad::{hessian_of, AdScalar};
use super::{mass_scaled_spectral_radius, Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use nalgebra::{DMatrix, Vector3};
use smallvec::smallvec;
use std::f64::consts::TAU;

/// The fraction κ of its rest area below which a triangle's area softens the hinge's weight (the
/// module docs).
pub const AREA_KNEE: Real = 0.75;

/// g(s) = s²(2 − s²) for s < 1, else 1 (its slope is [`softening_slope`]).
fn softening<T: AdScalar>(s: T) -> T {
    if s.re() >= 1.0 {
        T::one()
    } else {
        let s2 = s * s;
        s2 * (-s2 + 2.0)
    }
}

/// g′(s) = 4s(1 − s²) for s < 1, else 0.
fn softening_slope(s: Real) -> Real {
    if s >= 1.0 {
        0.0
    } else {
        4.0 * s * (1.0 - s * s)
    }
}

/// A discrete-shells bending hinge on stencil `[x₀, x₁, x₂, x₃]` (see the module docs).
#[derive(Clone, Debug)]
pub struct Hinge {
    stencil: Stencil,
    /// Bending stiffness k, J (N·m).
    stiffness: Real,
    /// Rest angle θ̄, rad.
    rest_angle: Real,
    /// 3‖ē‖²/(Ā₁ + Ā₂), dimensionless.
    shape_factor: Real,
    /// κ‖n̄₁‖ and κ‖n̄₂‖: twice the wings' rest areas, times [`AREA_KNEE`], m².
    knee_norms: [Real; 2],
    /// The yield angle θ_y, rad: bent further than this from θ̄, the hinge yields (module docs);
    /// `None`: elastic.
    yield_angle: Option<Real>,
}

impl Hinge {
    /// A hinge on `vertices` with rest positions `rest_positions` (same order) and bending
    /// stiffness `stiffness` (J).
    ///
    /// `None` when either rest triangle is degenerate: area ≤ 1e-14 × (longest edge)², or not finite.
    pub fn new(vertices: [VertexId; 4], rest_positions: [Vec3; 4], stiffness: Real) -> Option<Self> {
        let [x0, x1, x2, x3] = rest_positions;
        let area = |a: Vec3, b: Vec3, c: Vec3| -> Option<Real> {
            let area = 0.5 * (b - a).cross(&(c - a)).norm();
            let longest2 = (b - a).norm_squared().max((c - a).norm_squared()).max((c - b).norm_squared());
            (area.is_finite() && area > 1e-14 * longest2).then_some(area)
        };
        let (a1, a2) = (area(x0, x1, x2)?, area(x1, x0, x3)?);
        let edge = (x1 - x0).norm();
        Some(Hinge {
            stencil: smallvec![vertices[0], vertices[1], vertices[2], vertices[3]],
            stiffness,
            rest_angle: angle_generic(&rest_positions),
            shape_factor: 3.0 * edge * edge / (a1 + a2),
            knee_norms: [2.0 * a1 * AREA_KNEE, 2.0 * a2 * AREA_KNEE],
            yield_angle: None,
        })
    }

    /// The hinge made plastic: bent further than `yield_angle` (rad, > 0) from its rest angle, it
    /// yields (module docs).
    pub fn with_yield(mut self, yield_angle: Real) -> Self {
        self.yield_angle = Some(yield_angle);
        self
    }

    /// The yield angle θ_y, rad, if the hinge is plastic.
    pub fn yield_angle(&self) -> Option<Real> {
        self.yield_angle
    }

    /// Bending stiffness k, J.
    pub fn stiffness(&self) -> Real {
        self.stiffness
    }

    /// Rest angle θ̄, rad.
    pub fn rest_angle(&self) -> Real {
        self.rest_angle
    }

    /// The signed bending angle θ at positions `x`, rad, in (−π, π] (0 when flat).
    pub fn angle(&self, x: &[Vec3]) -> Real {
        angle_generic(x)
    }

    /// Writes ∂θ/∂x into `grad` (four entries, overwritten). Undefined (non-finite) when a
    /// triangle or the edge has collapsed.
    pub fn angle_gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        angle_gradient(x, grad);
    }

    /// E = k (θ − θ̄)² · 3‖ē‖²/(Ā₁ + Ā₂) · g(s₁) g(s₂), the one definition of the energy.
    fn energy_generic<T: AdScalar>(&self, x: &[Vector3<T>]) -> T {
        let wings = Wings::of(x);
        let d = angle_of(&wings) - self.rest_angle;
        // Wrap across the ±π cut by a constant shift (zero derivative), so a hinge folding
        // through ±π keeps a continuous energy.
        let d = d - (d.re() / TAU).round() * TAU;
        let Wings { n1, n2, .. } = wings;
        let g1 = softening(n1.dot(&n1).sqrt() / self.knee_norms[0]);
        let g2 = softening(n2.dot(&n2).sqrt() / self.knee_norms[1]);
        d * d * g1 * g2 * (self.stiffness * self.shape_factor)
    }

    /// At rest (θ = θ̄ and neither wing crushed), the mass-scaled spectral radius of the Hessian
    /// 2w·∇θ∇θᵀ, 2w·Σᵢ‖∇ᵢθ‖²/mᵢ (held vertices, of infinite mass, drop out); `None` elsewhere.
    fn rest_spectral_radius(&self, x: &[Vec3], masses: &[Real]) -> Option<Real> {
        debug_assert_eq!(masses.len(), 4, "a hinge's four masses");
        let wings = Wings::of(x);
        let crushed = wings.n1.norm() < self.knee_norms[0] || wings.n2.norm() < self.knee_norms[1];
        if angle_of(&wings) - self.rest_angle != 0.0 || crushed {
            return None;
        }
        let mut grad = [Vec3::zeros(); 4];
        angle_gradient_of(x, &wings, &mut grad);
        let weighted: Real =
            grad.iter().zip(masses).filter(|(_, m)| m.is_finite()).map(|(g, m)| g.norm_squared() / m).sum();
        Some(2.0 * self.stiffness * self.shape_factor * weighted)
    }

    /// The relative areas sᵢ = Aᵢ/(κ Āᵢ) of the two wings and their gradients (four entries each,
    /// overwritten).
    fn relative_areas(&self, x: &[Vec3], grads: &mut [[Vec3; 4]; 2]) -> [Real; 2] {
        let e = x[1] - x[0];
        let (u, v) = (x[2] - x[0], x[3] - x[1]);
        let (n1, n2) = (e.cross(&u), v.cross(&e));
        let (m1, m2) = (n1.norm(), n2.norm());
        let (n1_hat, n2_hat) = (n1 / m1, n2 / m2);
        // ∂‖n₁‖: n₁ = e × u, e = x₁ − x₀, u = x₂ − x₀
        let dn1 = [-u.cross(&n1_hat) - n1_hat.cross(&e), u.cross(&n1_hat), n1_hat.cross(&e), Vec3::zeros()];
        // ∂‖n₂‖: n₂ = v × e, v = x₃ − x₁
        let dn2 = [-n2_hat.cross(&v), -e.cross(&n2_hat) + n2_hat.cross(&v), Vec3::zeros(), e.cross(&n2_hat)];
        for (w, dn) in [dn1, dn2].into_iter().enumerate() {
            for k in 0..4 {
                grads[w][k] = dn[k] / self.knee_norms[w];
            }
        }
        [m1 / self.knee_norms[0], m2 / self.knee_norms[1]]
    }
}

/// θ = atan2(ê·(n₂ × n₁), n₁·n₂), generic over the AD scalar.
pub(crate) fn angle_generic<T: AdScalar>(x: &[Vector3<T>]) -> T {
    angle_of(&Wings::of(x))
}

/// A hinge's edge e = x₁ − x₀ and its wings' unnormalised normals n₁ = e × (x₂ − x₀) and
/// n₂ = (x₃ − x₁) × e, from which its angle, the angle's gradient and the crush test are all
/// taken (found once per tick).
struct Wings<T: AdScalar> {
    e: Vector3<T>,
    n1: Vector3<T>,
    n2: Vector3<T>,
}

impl<T: AdScalar> Wings<T> {
    fn of(x: &[Vector3<T>]) -> Self {
        let e = x[1] - x[0];
        Wings { n1: e.cross(&(x[2] - x[0])), n2: (x[3] - x[1]).cross(&e), e }
    }
}

/// The dihedral angle θ of `wings`.
fn angle_of<T: AdScalar>(Wings { e, n1, n2 }: &Wings<T>) -> T {
    // atan2(ê·(n₂×n₁), n₁·n₂) = atan2(e·(n₂×n₁), ‖e‖ n₁·n₂): both arguments scaled by ‖e‖ > 0.
    let sin = n2.cross(n1).dot(e);
    let cos = n1.dot(n2) * e.dot(e).sqrt();
    super::ad::atan2(sin, cos)
}

/// ∂θ/∂x in closed form; no allocation.
fn angle_gradient(x: &[Vec3], grad: &mut [Vec3]) {
    angle_gradient_of(x, &Wings::of(x), grad);
}

/// ∂θ/∂x at `x`, whose wings are `wings`.
fn angle_gradient_of(x: &[Vec3], Wings { e, n1, n2 }: &Wings<Real>, grad: &mut [Vec3]) {
    let l2 = e.norm_squared();
    let l = l2.sqrt();
    let g2 = n1 * (l / n1.norm_squared());
    let g3 = n2 * (l / n2.norm_squared());
    // Positions of the opposite vertices along the edge, as fractions of it (0 at x₀, 1 at x₁).
    let t2 = (x[2] - x[0]).dot(e) / l2;
    let t3 = (x[3] - x[0]).dot(e) / l2;
    grad[0] = -(g2 * (1.0 - t2) + g3 * (1.0 - t3));
    grad[1] = -(g2 * t2 + g3 * t3);
    grad[2] = g2;
    grad[3] = g3;
}

impl Potential for Hinge {
    fn kind(&self) -> &'static str {
        "hinge"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        self.energy_generic(x)
    }

    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        let wings = Wings::of(x);
        let d = angle_of(&wings) - self.rest_angle;
        let d = d - (d / TAU).round() * TAU;
        angle_gradient_of(x, &wings, grad);
        let w = self.stiffness * self.shape_factor;
        let crushed = wings.n1.norm() < self.knee_norms[0] || wings.n2.norm() < self.knee_norms[1];
        if !crushed {
            // g₁ = g₂ = 1: the discrete-shells hinge
            for g in grad.iter_mut() {
                *g *= 2.0 * w * d;
            }
            return;
        }
        let mut area_grads = [[Vec3::zeros(); 4]; 2];
        let [s1, s2] = self.relative_areas(x, &mut area_grads);
        let (g1, g2) = (softening(s1), softening(s2));
        // ∇E = w[2d g₁g₂ ∇θ + d² (g₁′g₂ ∇s₁ + g₁g₂′ ∇s₂)]
        let scale = 2.0 * w * d * g1 * g2;
        let (c1, c2) = (w * d * d * softening_slope(s1) * g2, w * d * d * g1 * softening_slope(s2));
        for (k, g) in grad.iter_mut().enumerate() {
            *g = *g * scale + area_grads[0][k] * c1 + area_grads[1][k] * c2;
        }
    }

    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        Some(hessian_of::<12>(x, |x| self.energy_generic(x)))
    }

    /// At rest (θ = θ̄, neither wing crushed), the Hessian is 2w·∇θ∇θᵀ with w = k·3‖ē‖²/(Ā₁ + Ā₂):
    /// every other term carries the factor θ − θ̄ or the softening's slope, both zero there. Its
    /// mass-scaled spectral radius is then 2w·Σᵢ‖∇ᵢθ‖²/mᵢ (a rank-one matrix), so the period needs
    /// no Hessian; that is how every hinge of a mesh built at rest is timed (ACM §3), at a
    /// fraction of the cost of the automatic-differentiation Hessian and its eigenvalues, which
    /// the other positions still take.
    fn stable_step(&self, x: &[Vec3], masses: &[Real]) -> Option<Real> {
        let lambda = match self.rest_spectral_radius(x, masses) {
            Some(lambda) => lambda,
            None => mass_scaled_spectral_radius(&self.hessian(x)?, masses),
        };
        (lambda > 0.0).then(|| 2.0 / lambda.sqrt())
    }

    /// A plastic hinge yields here: θ̄ moves to within θ_y of θ at the tick's positions `x`; the
    /// elastic energy that takes out is returned, booked as dissipated (module docs).
    fn end_tick(&mut self, x: &[Vec3]) -> Real {
        let Some(limit) = self.yield_angle else { return 0.0 };
        let d = angle_generic(x) - self.rest_angle;
        let d = d - (d / TAU).round() * TAU;
        if d.abs() <= limit {
            return 0.0;
        }
        let before = self.energy_generic(x);
        let rest = self.rest_angle + d - limit.copysign(d);
        // kept in (−π, π], as the angle is
        self.rest_angle = rest - ((rest / TAU).round() * TAU);
        (before - self.energy_generic(x)).max(0.0)
    }

    fn is_plastic(&self) -> bool {
        self.yield_angle.is_some()
    }

    fn tick_state(&self) -> Vec<Real> {
        match self.yield_angle {
            Some(_) => vec![self.rest_angle],
            None => Vec::new(),
        }
    }

    fn restore_tick_state(&mut self, state: &[Real]) -> bool {
        match (self.yield_angle, state) {
            (None, []) => true,
            (Some(_), &[rest]) => {
                self.rest_angle = rest;
                true
            }
            _ => false,
        }
    }

    /// 2k·c·g₁g₂ ∇θ ∇θᵀ (E = k·c·(θ − θ̄)²·g₁g₂, the softening factors held fixed): the
    /// closed-form ∂θ/∂x, no automatic differentiation.
    fn gauss_newton_hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        let mut grad = [Vec3::zeros(); 4];
        angle_gradient(x, &mut grad);
        let j = nalgebra::SVector::<Real, 12>::from_fn(|r, _| grad[r / 3][r % 3]);
        let [s1, s2] = self.relative_areas(x, &mut [[Vec3::zeros(); 4]; 2]);
        let w = 2.0 * self.stiffness * self.shape_factor * softening(s1) * softening(s2);
        Some(DMatrix::from_fn(12, 12, |r, c| w * j[r] * j[c]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::f64::consts::FRAC_PI_2;

    #[test]
    fn a_plastic_hinge_yields_beyond_its_yield_angle_and_books_the_energy_it_loses() {
        let rest = hinge(0.0);
        let mut h = Hinge::new(ids(), rest, 2.0).unwrap().with_yield(0.2);
        let mut elastic = h.clone();
        elastic.yield_angle = None;
        // within the yield angle: nothing changes
        let x = hinge(0.15);
        assert_eq!(h.end_tick(&x), 0.0);
        assert_eq!(h.rest_angle(), 0.0);
        // beyond it: the rest angle follows to within 0.2 rad, the energy lost is booked
        let x = hinge(0.7);
        let theta = h.angle(&x);
        let before = h.energy(&x);
        let booked = h.end_tick(&x);
        let expected = theta - 0.2_f64.copysign(theta);
        assert!((h.rest_angle() - expected).abs() < 1e-12, "θ̄ = {}, θ = {theta}", h.rest_angle());
        assert!((booked - (before - h.energy(&x))).abs() < 1e-15 && booked > 0.0, "{booked}");
        assert!((h.energy(&x) / elastic.energy(&hinge(0.2)) - 1.0).abs() < 1e-9, "left at the yield surface");
        // bent back past the other side it yields the other way; an elastic hinge never does
        let x = hinge(-0.1);
        let (theta, before) = (h.angle(&x), h.rest_angle());
        assert!(h.end_tick(&x) > 0.0);
        assert!((h.rest_angle() - (theta - 0.2_f64.copysign(theta - before))).abs() < 1e-12);
        assert_eq!(elastic.end_tick(&hinge(2.0)), 0.0);
        assert_eq!(elastic.rest_angle(), 0.0);
        // its rest angle is its state in a checkpoint
        let mut copy = Hinge::new(ids(), rest, 2.0).unwrap().with_yield(0.2);
        assert!(copy.restore_tick_state(&h.tick_state()));
        assert_eq!(copy.rest_angle(), h.rest_angle());
        assert!(!elastic.restore_tick_state(&[0.1]) && elastic.tick_state().is_empty());
    }

    fn ids() -> [VertexId; 4] {
        [VertexId(0), VertexId(1), VertexId(2), VertexId(3)]
    }

    #[test]
    fn the_rank_one_period_at_rest_is_the_hessians() {
        // at rest the closed form; elsewhere (bent, crushed) the Hessian's eigenvalues, which it
        // must equal at rest
        let hessian_period =
            |h: &Hinge, x: &[Vec3], m: &[Real]| 2.0 / mass_scaled_spectral_radius(&h.hessian(x).unwrap(), m).sqrt();
        for (fold, masses) in [
            (0.0, [1.0, 2.0, 0.5, 3.0]),
            (0.9, [1e-6, 2e-6, 3e-7, 1e-6]),
            (-2.5, [Real::INFINITY, 1.0, 1.0, 2.0]),
            (3.0, [0.1, 0.1, Real::INFINITY, Real::INFINITY]),
        ] {
            let x = hinge(fold);
            let h = Hinge::new(ids(), x, 0.37).unwrap();
            let (closed, full) = (h.stable_step(&x, &masses).unwrap(), hessian_period(&h, &x, &masses));
            assert!((closed / full - 1.0).abs() < 1e-12, "fold {fold}: {closed} against {full}");
            // and at rest it is the closed form that gave it
            let radius = h.rest_spectral_radius(&x, &masses).expect("at rest");
            assert_eq!(closed, 2.0 / radius.sqrt());
            // away from rest: the Hessian's, bit for bit
            let bent = hinge(fold + 0.3);
            assert_eq!(h.stable_step(&bent, &masses), Some(hessian_period(&h, &bent, &masses)));
        }
        // a wing crushed to a fifth of its rest area at the rest angle: the Hessian's too
        let x = hinge(0.4);
        let h = Hinge::new(ids(), x, 0.37).unwrap();
        let mut crushed = x;
        crushed[2] = Vec3::new(0.4, 0.2, 0.0);
        let m = [1.0; 4];
        assert_eq!(h.stable_step(&crushed, &m), Some(hessian_period(&h, &crushed, &m)));
        assert_eq!(h.rest_spectral_radius(&crushed, &m), None);
    }

    /// Edge along x, wing 1 in +y, wing 2 folded by `fold` out of the plane from −y.
    fn hinge(fold: Real) -> [Vec3; 4] {
        [Vec3::zeros(), Vec3::x(), Vec3::new(0.4, 1.0, 0.0), Vec3::new(0.7, -fold.cos(), fold.sin())]
    }

    #[test]
    fn the_hessian_is_the_gradients_derivative_at_every_fold_also_at_right_angles() {
        // the angle's cosine is zero at ±90°, where atan2 through atan(sin/cos) has infinite
        // derivatives: the Hessian there and near it must still be the gradient's central
        // difference (the hand-written gradient shares no code with the dual numbers)
        let h = Hinge::new(ids(), hinge(0.2), 0.37).unwrap();
        let gradient = |x: &[Vec3]| {
            let mut g = [Vec3::zeros(); 4];
            h.gradient(x, &mut g);
            g
        };
        let right = std::f64::consts::FRAC_PI_2;
        for fold in [right, -right, right + 1e-9, right - 1e-7, 1.3, 2.9, -3.0] {
            let x = hinge(fold);
            let exact = h.hessian(&x).unwrap();
            assert!(exact.iter().all(|v| v.is_finite()), "fold {fold}: {exact}");
            let step = 1e-6;
            for c in 0..12 {
                let (mut plus, mut minus) = (x, x);
                plus[c / 3][c % 3] += step;
                minus[c / 3][c % 3] -= step;
                let (gp, gm) = (gradient(&plus), gradient(&minus));
                for r in 0..12 {
                    let difference = (gp[r / 3][r % 3] - gm[r / 3][r % 3]) / (2.0 * step);
                    let error = (exact[(r, c)] - difference).abs();
                    assert!(
                        error <= 1e-6 * exact.amax(),
                        "fold {fold}, ({r}, {c}): {} against {difference}",
                        exact[(r, c)]
                    );
                }
            }
        }
    }

    #[test]
    fn the_gauss_newton_form_is_semidefinite_and_the_hessian_at_rest() {
        let rest = hinge(0.3);
        let h = Hinge::new(ids(), rest, 2.0).expect("a hinge");
        let exact = h.hessian(&rest).unwrap();
        let form = h.gauss_newton_hessian(&rest).unwrap();
        assert!((&form - &exact).amax() <= 1e-9 * exact.amax(), "at rest: {form} against {exact}");
        let bent = hinge(1.1);
        let form = h.gauss_newton_hessian(&bent).unwrap();
        let smallest = nalgebra::SymmetricEigen::new(form).eigenvalues.min();
        assert!(smallest >= -1e-12, "smallest eigenvalue {smallest}");
    }

    #[test]
    fn flat_hinge_has_zero_angle_and_sign_follows_the_normals() {
        let h = Hinge::new(ids(), hinge(0.0), 1.0).unwrap();
        assert_eq!(h.rest_angle(), 0.0);
        assert_eq!(h.angle(&hinge(0.0)), 0.0);
        // n₁ = +z for wing 1; lifting x₃ to +z moves it to the side of its normal n₂ = +z.
        assert!((h.angle(&hinge(0.3)) - 0.3).abs() < 1e-12);
        assert!((h.angle(&hinge(-0.3)) + 0.3).abs() < 1e-12);
        assert!((h.angle(&hinge(FRAC_PI_2)) - FRAC_PI_2).abs() < 1e-12);
        // Nearly folded shut: |θ| close to π, still signed.
        assert!((h.angle(&hinge(3.1)) - 3.1).abs() < 1e-12);
        assert!((h.angle(&hinge(-3.1)) + 3.1).abs() < 1e-12);
        // Swapping the wings' roles (relabelling) flips nothing: the angle is intrinsic.
        let x = hinge(0.5);
        let relabelled = [x[1], x[0], x[3], x[2]];
        assert!((h.angle(&relabelled) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn rest_state_has_zero_energy_and_force() {
        let rest = hinge(0.8);
        let h = Hinge::new(ids(), rest, 2.0).unwrap();
        assert!(h.energy(&rest).abs() < 1e-20);
        let mut g = [Vec3::zeros(); 4];
        h.gradient(&rest, &mut g);
        assert!(g.iter().all(|g| g.norm() < 1e-12));
    }

    /// The largest eigenvalue of a symmetric matrix.
    fn spectral_radius(h: DMatrix<Real>) -> Real {
        nalgebra::SymmetricEigen::new(h).eigenvalues.iter().fold(0.0, |m: Real, l| m.max(l.abs()))
    }

    #[test]
    fn a_hinge_on_a_crushed_triangle_stays_within_a_bounded_multiple_of_its_rest_stiffness() {
        let rest = hinge(0.0);
        let h = Hinge::new(ids(), rest, 2.0).unwrap();
        let at_rest = spectral_radius(h.hessian(&rest).unwrap());
        let bound = 2.0 / (AREA_KNEE * AREA_KNEE) * 1.1 * at_rest;
        for fraction in [0.9, 0.6, 0.3, 0.1, 0.01, 1e-4] {
            // wing 1 crushed towards the edge in its plane, wing 2 bent by 0.1 rad
            let mut across = hinge(0.1);
            across[2].y *= fraction;
            // the shared edge crushed along itself: x₀ slides towards x₁, the wings keep their heights
            let mut along = hinge(0.1);
            along[0].x = 1.0 - fraction;
            for (how, x) in [("across the edge", across), ("along the edge", along)] {
                let stiffness = spectral_radius(h.hessian(&x).unwrap());
                assert!(stiffness <= bound, "crushed {how} to {fraction}: {stiffness} against {at_rest} at rest");
                // the unsoftened weight's ∇θ∇θᵀ alone grows as 1/area²: what the factors hold
                let mut g = [Vec3::zeros(); 4];
                angle_gradient(&x, &mut g);
                let plain = 2.0 * 2.0 * h.shape_factor * g.iter().map(|g| g.norm_squared()).sum::<Real>();
                if fraction <= 0.1 {
                    assert!(plain > 10.0 * at_rest, "{how} {fraction}: {plain} against {at_rest}");
                }
            }
        }
        // above the knee the hinge is the discrete-shells hinge: no softening
        let mut x = hinge(0.4);
        x[2].y *= 0.8;
        let [s1, _] = h.relative_areas(&x, &mut [[Vec3::zeros(); 4]; 2]);
        assert!(s1 > 1.0 && softening(s1) == 1.0);
        let d = h.angle(&x) - h.rest_angle();
        assert!((h.energy(&x) - 2.0 * h.shape_factor * d * d).abs() <= 1e-15 * h.energy(&x));
    }

    #[test]
    fn degenerate_rest_triangles_are_refused() {
        let mut x = hinge(0.0);
        x[2] = Vec3::new(0.5, 0.0, 0.0);
        assert!(Hinge::new(ids(), x, 1.0).is_none());
        let mut x = hinge(0.0);
        x[3] = x[0];
        assert!(Hinge::new(ids(), x, 1.0).is_none());
    }
}
