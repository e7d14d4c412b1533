//! Exact Hessians by forward-mode second-order dual numbers (crate `num-dual`).
//!
//! Each elastic energy is written once, generically over [`AdScalar`]; the `f64` instance is the
//! energy itself and the [`Dual2SVec64`] instance gives value, gradient and Hessian in one pass.
//! Gradients, which the AVI kick evaluates millions of times, stay hand-written; Hessians (used by
//! the synchronous backend and stable-step estimates) come from here, so there is no hand-derived
//! second copy of any force.

use crate::math::{Real, Vec3};
use nalgebra::{Const, DMatrix, Vector3};
use num_dual::{Dual2SVec64, DualNum};

/// The scalar an energy is written over: `Real` itself or a dual number over `Real`.
///
/// A blanket trait so generic energies can say `T: AdScalar` instead of the full bound list.
pub(crate) trait AdScalar: DualNum<Primitive = Real> + Copy {}

impl<T: DualNum<Primitive = Real> + Copy> AdScalar for T {}

/// atan2(y, x) over an AD scalar with derivatives that stay finite wherever (x, y) ≠ 0.
///
/// `num_dual`'s own `atan2` differentiates atan(y/x), which is infinite at x = 0 (a hinge at
/// exactly 90°) and loses digits near it. Here the branch with the smaller ratio is taken:
/// atan(y/x) shifted by ±π where |x| ≥ |y|, π/2·sign(y) − atan(x/y) elsewhere; the shifts are
/// constants, so each branch's derivatives are those of atan2 itself.
pub(crate) fn atan2<T: AdScalar>(y: T, x: T) -> T {
    use std::f64::consts::{FRAC_PI_2, PI};
    let (yr, xr) = (y.re(), x.re());
    let angle = if xr.abs() >= yr.abs() {
        let base = (y / x).atan();
        match (xr < 0.0, yr < 0.0) {
            (false, _) => base,
            (true, false) => base + PI,
            (true, true) => base - PI,
        }
    } else {
        -(x / y).atan() + FRAC_PI_2.copysign(yr)
    };
    // the value itself from the real atan2, bit for bit as before
    angle - angle.re() + yr.atan2(xr)
}

/// The exact Hessian of `energy` at the stencil positions `x`, as a dense vertex-major
/// 3n×3n matrix (rows `3i..3i+3` are vertex `i`), with `N = 3 * x.len()`.
///
/// `energy` receives the positions as vectors of second-order dual numbers seeded with one
/// direction per coordinate (coordinate `3i + k` is axis `k` of vertex `i`). Write the energy
/// generically (over `num_dual::DualNum<Primitive = f64> + Copy`) and call it from here with
/// `T = Dual2SVec64<N>`.
///
/// # Panics
/// If `N != 3 * x.len()`.
///
/// # Example
/// ```
/// use avicontact::math::Vec3;
/// use avicontact::potential::hessian_of;
/// // E = ½‖x₁ − x₀‖²: Hessian [[I, −I], [−I, I]].
/// let x = [Vec3::zeros(), Vec3::new(1.0, 2.0, 3.0)];
/// let h = hessian_of::<6>(&x, |x| {
///     let d = x[1] - x[0];
///     d.dot(&d) * 0.5
/// });
/// assert_eq!(h[(0, 0)], 1.0);
/// assert_eq!(h[(0, 3)], -1.0);
/// ```
pub fn hessian_of<const N: usize>(
    x: &[Vec3],
    energy: impl Fn(&[Vector3<Dual2SVec64<N>>]) -> Dual2SVec64<N>,
) -> DMatrix<Real> {
    assert_eq!(N, 3 * x.len(), "hessian_of::<N> needs N = 3 × stencil size");
    let seeded: Vec<Vector3<Dual2SVec64<N>>> = x
        .iter()
        .enumerate()
        .map(|(i, xi)| Vector3::from_fn(|k, _| Dual2SVec64::<N>::from_re(xi[k]).derivative(3 * i + k)))
        .collect();
    let h = energy(&seeded).v2.unwrap_generic(Const::<N>, Const::<N>);
    DMatrix::from_column_slice(N, N, h.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hessian_of_a_quadratic_is_its_matrix() {
        let x = [Vec3::new(0.3, -1.0, 2.0), Vec3::new(1.0, 2.0, 3.0)];
        // E = x₀ₓ² x₁ᵧ: ∂²E/∂x₀ₓ² = 2 x₁ᵧ, ∂²E/∂x₀ₓ∂x₁ᵧ = 2 x₀ₓ.
        let h = hessian_of::<6>(&x, |x| x[0][0] * x[0][0] * x[1][1]);
        assert_eq!(h[(0, 0)], 4.0);
        assert_eq!(h[(0, 4)], 0.6);
        assert_eq!(h[(4, 0)], 0.6);
        assert_eq!(h[(4, 4)], 0.0);
    }
}
