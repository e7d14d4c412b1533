//! Linear tetrahedra for volumetric solids: neo-Hookean and fixed-corotated materials.
//!
//! F = Ds·Dm⁻¹ with Ds = [x₁−x₀, x₂−x₀, x₃−x₀] and Dm the same at rest; energy V₀·ψ(F) with V₀
//! the rest volume. Materials are zero-sized types behind [`SolidMaterial`], with one plain
//! parameter struct [`Lame`] (as in the fenris library). The energy density and the first
//! Piola–Kirchhoff stress P = ∂ψ/∂F (which the AVI kick evaluates) are each written once,
//! generically over dual numbers: the Hessian is the exact derivative of the stress (first-order
//! duals over F), and a test checks it against second-order duals of the energy, so the two
//! definitions cannot drift apart (A-search §5 uses the same neo-Hookean law; the corotated law is
//! Stomakhin et al. 2012's "fixed corotated").

use super::ad::AdScalar;
use super::{first_root_in_unit_interval, Potential, Stencil};
use crate::ids::VertexId;
use crate::math::{Mat3, Real, Vec3};
use nalgebra::{Const, DMatrix, Matrix3, SMatrix, Vector3};
use num_dual::{DualSVec64, DualStruct};

/// Lamé parameters μ, λ (Pa), from Young's modulus and Poisson's ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Lame {
    /// Shear modulus μ, Pa.
    pub mu: Real,
    /// First Lamé parameter λ, Pa.
    pub lambda: Real,
}

impl Lame {
    /// μ = E/(2(1+ν)), λ = Eν/((1+ν)(1−2ν)) for Young's modulus `e` (Pa) and Poisson ratio `nu`
    /// in (−1, 0.5).
    pub fn from_young_poisson(e: Real, nu: Real) -> Lame {
        Lame { mu: e / (2.0 * (1.0 + nu)), lambda: e * nu / ((1.0 + nu) * (1.0 - 2.0 * nu)) }
    }
}

/// The hyperelastic laws for tetrahedra.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SolidMaterial {
    /// ψ = μ/2 (tr FᵀF − 3) − μ ln J + λ/2 (ln J)²; infinite for inverted elements (J ≤ 0).
    NeoHookean,
    /// ψ = μ ‖F − R‖² + λ/2 (J − 1)², R the rotation of F's polar decomposition (defined for
    /// inverted elements too).
    Corotated,
}

impl SolidMaterial {
    /// The material's name as written in scene files.
    pub fn name(self) -> &'static str {
        match self {
            SolidMaterial::NeoHookean => "neo-hookean",
            SolidMaterial::Corotated => "corotated",
        }
    }
}

/// One linear tetrahedron of a solid.
#[derive(Clone, Debug)]
pub struct Tetrahedron {
    stencil: Stencil,
    dm_inv: Mat3,
    rest_volume: Real,
    material: SolidMaterial,
    lame: Lame,
}

impl Tetrahedron {
    /// A tetrahedron on `vertices` with rest positions `rest`; `None` if the rest element is
    /// degenerate or inverted (its signed volume must be positive: x₃ above the plane of
    /// x₀, x₁, x₂ seen counter-clockwise).
    pub fn new(vertices: [VertexId; 4], rest: [Vec3; 4], material: SolidMaterial, lame: Lame) -> Option<Self> {
        let dm = Mat3::from_columns(&[rest[1] - rest[0], rest[2] - rest[0], rest[3] - rest[0]]);
        let volume = dm.determinant() / 6.0;
        let scale = (0..3).map(|k| dm.column(k).norm()).fold(0.0, Real::max);
        if volume.is_nan() || volume <= 1e-12 * scale.powi(3) {
            return None;
        }
        Some(Tetrahedron {
            stencil: vertices.into_iter().collect(),
            dm_inv: dm.try_inverse()?,
            rest_volume: volume,
            material,
            lame,
        })
    }

    /// Rest volume V₀, m³.
    pub fn rest_volume(&self) -> Real {
        self.rest_volume
    }

    /// The deformation gradient F at positions `x`.
    pub fn deformation_gradient(&self, x: &[Vec3]) -> Mat3 {
        Mat3::from_columns(&[x[1] - x[0], x[2] - x[0], x[3] - x[0]]) * self.dm_inv
    }

    /// First Piola–Kirchhoff stress P = ∂ψ/∂F, generic so that the Hessian is its exact
    /// derivative (forward-mode duals over F's nine entries).
    fn stress<T: AdScalar>(&self, f: &Matrix3<T>) -> Matrix3<T> {
        let Lame { mu, lambda } = self.lame;
        let j = determinant(f);
        // cofactor matrix J F⁻ᵀ, defined even at J = 0
        let cof = cofactor(f);
        match self.material {
            SolidMaterial::NeoHookean => {
                if j.re() <= 0.0 {
                    return Matrix3::from_element(T::from(Real::NAN));
                }
                let f_inv_t = cof / j;
                (f - f_inv_t) * T::from(mu) + f_inv_t * (j.ln() * lambda)
            }
            SolidMaterial::Corotated => {
                let r = polar_rotation_generic(f); // the same iteration the energy differentiates
                (f - r) * T::from(2.0 * mu) + cof * ((j - 1.0) * lambda)
            }
        }
    }

    /// ∂F/∂x as rows: F = Σₘ xₘ ⊗ dₘ, with dₘ row m − 1 of Dm⁻¹ for m = 1, 2, 3 and
    /// d₀ = −(d₁ + d₂ + d₃).
    fn shape_gradients(&self) -> [Vector3<Real>; 4] {
        let d: [Vector3<Real>; 3] = std::array::from_fn(|k| self.dm_inv.row(k).transpose());
        [-(d[0] + d[1] + d[2]), d[0], d[1], d[2]]
    }

    /// V₀·ψ(F(x)), generic over the AD scalar: the one definition of the energy.
    fn energy_generic<T: AdScalar>(&self, x: &[Vector3<T>]) -> T {
        let ds = Matrix3::from_columns(&[x[1] - x[0], x[2] - x[0], x[3] - x[0]]);
        let f = ds * self.dm_inv.map(T::from);
        let Lame { mu, lambda } = self.lame;
        let psi = match self.material {
            SolidMaterial::NeoHookean => {
                let j = determinant(&f);
                if j.re() <= 0.0 {
                    return T::from(Real::INFINITY);
                }
                let log_j = j.ln();
                (trace_ftf(&f) - 3.0) * (0.5 * mu) - log_j * mu + log_j * log_j * (0.5 * lambda)
            }
            SolidMaterial::Corotated => {
                let r = polar_rotation_generic(&f);
                let d = f - r;
                let j = determinant(&f);
                trace_ftf(&d) * mu + (j - 1.0) * (j - 1.0) * (0.5 * lambda)
            }
        };
        psi * self.rest_volume
    }
}

/// det F, generic.
fn determinant<T: AdScalar>(f: &Matrix3<T>) -> T {
    f[(0, 0)] * (f[(1, 1)] * f[(2, 2)] - f[(1, 2)] * f[(2, 1)])
        - f[(0, 1)] * (f[(1, 0)] * f[(2, 2)] - f[(1, 2)] * f[(2, 0)])
        + f[(0, 2)] * (f[(1, 0)] * f[(2, 1)] - f[(1, 1)] * f[(2, 0)])
}

/// tr(FᵀF) = ‖F‖²_F, generic.
fn trace_ftf<T: AdScalar>(f: &Matrix3<T>) -> T {
    f.iter().fold(T::from(0.0), |s, v| s + *v * *v)
}

/// The cofactor matrix cof F = det(F)·F⁻ᵀ = ∂ det F / ∂F, generic.
fn cofactor<T: AdScalar>(f: &Matrix3<T>) -> Matrix3<T> {
    let (c0, c1, c2) = (f.column(0).into_owned(), f.column(1).into_owned(), f.column(2).into_owned());
    Matrix3::from_columns(&[c1.cross(&c2), c2.cross(&c0), c0.cross(&c1)])
}

/// At most this many iterations of the Newton polar iteration (quadratic convergence from any
/// non-singular F); it stops as soon as an iteration no longer changes the value part.
const POLAR_ITERATIONS: usize = 30;

/// The rotation R of F = R·S (polar decomposition) by the Newton iteration X ← ½(X + X⁻ᵀ),
/// generic so that the energy's Hessian differentiates through it. For det F < 0 it returns the
/// orthogonal factor with det −1 (the fixed-corotated convention of the energy is then
/// continued through the iteration's limit).
fn polar_rotation_generic<T: AdScalar>(f: &Matrix3<T>) -> Matrix3<T> {
    let mut x = *f;
    for _ in 0..POLAR_ITERATIONS {
        let det = determinant(&x);
        let (c0, c1, c2) = (x.column(0).into_owned(), x.column(1).into_owned(), x.column(2).into_owned());
        let inv_t = Matrix3::from_columns(&[c1.cross(&c2), c2.cross(&c0), c0.cross(&c1)]) / det;
        let next = (x + inv_t) * T::from(0.5);
        let change = (0..9).map(|k| (next[k].re() - x[k].re()).abs()).fold(0.0, Real::max);
        x = next;
        if change <= 4.0 * Real::EPSILON {
            break;
        }
    }
    x
}

impl Potential for Tetrahedron {
    fn kind(&self) -> &'static str {
        "tetrahedron"
    }

    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }

    fn energy(&self, x: &[Vec3]) -> Real {
        self.energy_generic(x)
    }

    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        let p = self.stress(&self.deformation_gradient(x));
        let h = p * self.dm_inv.transpose() * self.rest_volume;
        let (g1, g2, g3) = (h.column(0).into_owned(), h.column(1).into_owned(), h.column(2).into_owned());
        grad[0] = -(g1 + g2 + g3);
        grad[1] = g1;
        grad[2] = g2;
        grad[3] = g3;
    }

    /// For the neo-Hookean law, the first τ at which the element's volume falls to a tenth of its
    /// current volume (a step must not jump over an inversion, where the energy is infinite); the
    /// corotated law is defined for inverted elements and never cuts a step.
    fn feasible_step(&self, x: &[Vec3], dx: &[Vec3]) -> Real {
        if self.material == SolidMaterial::Corotated {
            return 1.0;
        }
        let a = Mat3::from_columns(&[x[1] - x[0], x[2] - x[0], x[3] - x[0]]);
        let b = Mat3::from_columns(&[dx[1] - dx[0], dx[2] - dx[0], dx[3] - dx[0]]);
        // det(A + τB) = det A + τ cof(A):B + τ² cof(B):A + τ³ det B
        let (det_a, det_b) = (a.determinant(), b.determinant());
        if det_a <= 0.0 {
            return 1.0; // already outside the domain: the energy (infinite) stops the step
        }
        first_root_in_unit_interval([0.9 * det_a, cofactor(&a).dot(&b), cofactor(&b).dot(&a), det_b])
    }

    /// V₀ Gᵀ (∂P/∂F) G with G = ∂F/∂x: the exact derivative of [`Potential::gradient`], ∂P/∂F
    /// from one evaluation of the stress in first-order duals over F's nine entries (an order of
    /// magnitude cheaper than second-order duals of the energy over the twelve coordinates).
    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        let (dp, g) = self.stiffness(x);
        Some(self.chain(&dp, &g))
    }

    /// For the corotated law without its volume term (λ = 0: ψ = μ‖F − R‖², the
    /// as-rigid-as-possible energy of Chao et al. 2010 that Stabilizing §4.2 solves by local/global
    /// steps), V₀ψ = (w/2)‖F − R‖² with w = 2μV₀ and R the nearest orthogonal matrix: w·GᵀG, whose
    /// 3 × 3 block (a, b) is 2μV₀ (dₐ·d_b) I. `None` for λ ≠ 0 and for neo-Hookean, which have no
    /// such form.
    fn projective_hessian(&self) -> Option<DMatrix<Real>> {
        if self.material != SolidMaterial::Corotated || self.lame.lambda != 0.0 {
            return None;
        }
        let d = self.shape_gradients();
        let w = 2.0 * self.lame.mu * self.rest_volume;
        Some(DMatrix::from_fn(12, 12, |r, c| if r % 3 == c % 3 { w * d[r / 3].dot(&d[c / 3]) } else { 0.0 }))
    }

    /// V₀ Gᵀ [∂P/∂F]₊ G, with ∂P/∂F's negative eigenvalues set to zero: positive semidefinite by
    /// construction and equal to the Hessian wherever the stress derivative is (Teran et al. 2005's
    /// projection in F-space, a 9 × 9 eigenproblem instead of the 12 × 12 of the stencil).
    fn psd_hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        let (dp, g) = self.stiffness(x);
        let symmetric = (dp + dp.transpose()) * 0.5;
        let eigen = symmetric.symmetric_eigen();
        if eigen.eigenvalues.iter().all(|&l| l >= 0.0) {
            return Some(self.chain(&symmetric, &g));
        }
        let clamped = SMatrix::<Real, 9, 9>::from_diagonal(&eigen.eigenvalues.map(|l| l.max(0.0)));
        Some(self.chain(&(eigen.eigenvectors * clamped * eigen.eigenvectors.transpose()), &g))
    }
}

impl Tetrahedron {
    /// ∂P/∂F (dp[(a + 3b, c + 3d)] = ∂P_ab/∂F_cd, zero for an inverted neo-Hookean element, whose
    /// energy is infinite: Newton never evaluates there) and G = ∂F/∂x at positions `x`.
    fn stiffness(&self, x: &[Vec3]) -> (SMatrix<Real, 9, 9>, SMatrix<Real, 9, 12>) {
        let f = self.deformation_gradient(x);
        let seeded: Matrix3<DualSVec64<9>> =
            Matrix3::from_fn(|i, j| DualSVec64::<9>::from_re(f[(i, j)]).derivative(i + 3 * j));
        let p = self.stress(&seeded);
        let mut dp = SMatrix::<Real, 9, 9>::from_fn(|row, col| {
            p[(row % 3, row / 3)].eps.unwrap_generic(Const::<9>, Const::<1>)[col]
        });
        if p.iter().any(|v| !v.re().is_finite()) || dp.iter().any(|v| !v.is_finite()) {
            dp = SMatrix::zeros();
        }
        // G[(c + 3j, 3m + c)] = dₘ[j]: ∂F_cj / ∂x_mc
        let d = self.shape_gradients();
        let mut g = SMatrix::<Real, 9, 12>::zeros();
        for (m, dm) in d.iter().enumerate() {
            for c in 0..3 {
                for j in 0..3 {
                    g[(c + 3 * j, 3 * m + c)] = dm[j];
                }
            }
        }
        (dp, g)
    }

    /// V₀ Gᵀ A G as a dense 12 × 12 matrix.
    fn chain(&self, a: &SMatrix<Real, 9, 9>, g: &SMatrix<Real, 9, 12>) -> DMatrix<Real> {
        let h = g.transpose() * a * g * self.rest_volume;
        DMatrix::from_column_slice(12, 12, h.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nalgebra::Rotation3;

    fn ids() -> [VertexId; 4] {
        std::array::from_fn(|i| VertexId(i as u32))
    }

    fn rest() -> [Vec3; 4] {
        [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::z()]
    }

    #[test]
    fn rest_and_rigid_motions_are_unstressed() {
        let r = Rotation3::from_euler_angles(0.3, -1.1, 2.0);
        for material in [SolidMaterial::NeoHookean, SolidMaterial::Corotated] {
            let t = Tetrahedron::new(ids(), rest(), material, Lame::from_young_poisson(1e5, 0.3)).unwrap();
            let moved = rest().map(|p| r * p + Vec3::new(1.0, 2.0, 3.0));
            assert!(t.energy(&moved).abs() < 1e-9, "{material:?}: {}", t.energy(&moved));
            let mut g = [Vec3::zeros(); 4];
            t.gradient(&moved, &mut g);
            assert!(g.iter().all(|g| g.norm() < 1e-8), "{material:?}: {g:?}");
        }
    }

    #[test]
    fn uniaxial_stretch_matches_the_closed_form() {
        // F = diag(s, 1, 1): neo-Hookean ψ = μ/2 (s² − 1) − μ ln s + λ/2 (ln s)², V₀ = 1/6
        let lame = Lame { mu: 2.0, lambda: 3.0 };
        let t = Tetrahedron::new(ids(), rest(), SolidMaterial::NeoHookean, lame).unwrap();
        let s: Real = 1.3;
        let x = [Vec3::zeros(), Vec3::x() * s, Vec3::y(), Vec3::z()];
        let psi = 0.5 * 2.0 * (s * s - 1.0) - 2.0 * s.ln() + 0.5 * 3.0 * s.ln().powi(2);
        assert!((t.energy(&x) - psi / 6.0).abs() < 1e-12);
        // fixed corotated: R = I, ψ = μ (s − 1)² + λ/2 (s − 1)²
        let c = Tetrahedron::new(ids(), rest(), SolidMaterial::Corotated, lame).unwrap();
        let psi = 2.0 * (s - 1.0).powi(2) + 1.5 * (s - 1.0).powi(2);
        assert!((c.energy(&x) - psi / 6.0).abs() < 1e-12);
    }

    #[test]
    fn stress_hessian_equals_the_second_derivative_of_the_energy() {
        // the Hessian differentiates the stress; second-order duals of the energy are independent
        let x = [
            Vec3::new(0.1, -0.05, 0.02),
            Vec3::new(1.2, 0.1, -0.2),
            Vec3::new(-0.3, 0.8, 0.1),
            Vec3::new(0.2, 0.3, 1.4),
        ];
        let r = Rotation3::from_euler_angles(0.4, 0.2, -0.7);
        let twisted = x.map(|p| r * p);
        for material in [SolidMaterial::NeoHookean, SolidMaterial::Corotated] {
            let t = Tetrahedron::new(ids(), rest(), material, Lame::from_young_poisson(1e5, 0.3)).unwrap();
            for x in [x, twisted] {
                let ours = t.hessian(&x).unwrap();
                let energy = crate::potential::hessian_of::<12>(&x, |x| t.energy_generic(x));
                let err = (&ours - &energy).amax() / energy.amax();
                assert!(err < 1e-10, "{material:?}: relative difference {err}");
            }
        }
    }

    #[test]
    fn the_as_rigid_as_possible_law_is_projective_dynamics_with_its_rotation_as_the_projection() {
        // F = Q·S with Q a rotation and S symmetric positive definite: R = Q, and the gradient of
        // (w/2)‖F − R‖² is w·GᵀG x − w·Gᵀ R, whose block a is 2μV₀ R dₐ
        let lame = Lame::from_young_poisson(1e5, 0.0);
        assert_eq!(lame.lambda, 0.0);
        let t = Tetrahedron::new(ids(), rest(), SolidMaterial::Corotated, lame).unwrap();
        let q = Rotation3::from_euler_angles(0.4, -1.1, 0.7).into_inner();
        let s = Matrix3::new(1.3, 0.1, 0.0, 0.1, 0.8, 0.2, 0.0, 0.2, 1.1);
        let x: Vec<Vec3> = rest().iter().map(|r| q * s * r + Vec3::new(0.3, -0.2, 0.5)).collect();
        let mut g = vec![Vec3::zeros(); 4];
        t.gradient(&x, &mut g);
        let l = t.projective_hessian().unwrap();
        let lx = &l * nalgebra::DVector::from_iterator(12, x.iter().flat_map(|v| v.iter().copied()));
        // shape gradients of the unit corner tetrahedron: d₀ = (−1, −1, −1), dₖ = eₖ
        let d = [Vec3::new(-1.0, -1.0, -1.0), Vec3::x(), Vec3::y(), Vec3::z()];
        let w = 2.0 * lame.mu / 6.0;
        for a in 0..4 {
            let projected = lx.fixed_rows::<3>(3 * a) - g[a];
            let expected = q * d[a] * w;
            assert!((projected - expected).norm() < 1e-9 * w, "vertex {a}: {projected} vs {expected}");
        }
        for material in [SolidMaterial::NeoHookean, SolidMaterial::Corotated] {
            let t = Tetrahedron::new(ids(), rest(), material, Lame::from_young_poisson(1e5, 0.3)).unwrap();
            assert!(t.projective_hessian().is_none(), "{material:?} with λ > 0 has no projective form");
        }
    }

    #[test]
    fn psd_hessian_is_semidefinite_and_exact_where_the_stress_derivative_is() {
        let lame = Lame::from_young_poisson(1e5, 0.3);
        // crushed to a fifth along z and sheared: the exact Hessian is indefinite
        let crushed = [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::new(0.6, 0.3, 0.2)];
        // mildly stretched: the stress derivative is positive definite
        let stretched = [Vec3::zeros(), Vec3::x() * 1.05, Vec3::y() * 1.02, Vec3::z() * 0.99];
        for material in [SolidMaterial::NeoHookean, SolidMaterial::Corotated] {
            let t = Tetrahedron::new(ids(), rest(), material, lame).unwrap();
            let exact = t.hessian(&crushed).unwrap();
            let psd = t.psd_hessian(&crushed).unwrap();
            let lowest = |h: &DMatrix<Real>| h.clone().symmetric_eigenvalues().min();
            assert!(lowest(&exact) < -1e-6 * exact.amax(), "{material:?}: the crushed Hessian is indefinite");
            assert!(lowest(&psd) > -1e-9 * psd.amax(), "{material:?}: lowest eigenvalue {}", lowest(&psd));
            let (exact, psd) = (t.hessian(&stretched).unwrap(), t.psd_hessian(&stretched).unwrap());
            assert!((&exact - &psd).amax() < 1e-9 * exact.amax(), "{material:?}: changed a PSD Hessian");
        }
    }

    #[test]
    fn a_neo_hookean_step_through_inversion_is_cut_before_it() {
        let lame = Lame::from_young_poisson(1e5, 0.3);
        let t = Tetrahedron::new(ids(), rest(), SolidMaterial::NeoHookean, lame).unwrap();
        // the apex moves from z = 1 to z = −1 through the base: volume ∝ 1 − 2τ, a tenth at τ = 0.45
        let dx = [Vec3::zeros(), Vec3::zeros(), Vec3::zeros(), Vec3::new(0.3, 0.1, -2.0)];
        let tau = t.feasible_step(&rest(), &dx);
        assert!((tau - 0.45).abs() < 1e-12, "{tau}");
        // a twist that keeps the volume is not cut; the corotated law never cuts
        let r = Rotation3::from_euler_angles(0.0, 0.0, 1.0);
        let twist: Vec<Vec3> = rest().iter().map(|p| r * p - p).collect();
        assert_eq!(t.feasible_step(&rest(), &twist), 1.0);
        let c = Tetrahedron::new(ids(), rest(), SolidMaterial::Corotated, lame).unwrap();
        assert_eq!(c.feasible_step(&rest(), &dx), 1.0);
    }

    #[test]
    fn inverted_rest_elements_are_refused_and_inverted_neo_hookean_is_infinite() {
        let flipped = [Vec3::zeros(), Vec3::y(), Vec3::x(), Vec3::z()];
        let lame = Lame::from_young_poisson(1e5, 0.3);
        assert!(Tetrahedron::new(ids(), flipped, SolidMaterial::NeoHookean, lame).is_none());
        let flat = [Vec3::zeros(), Vec3::x(), Vec3::y(), Vec3::new(1.0, 1.0, 0.0)];
        assert!(Tetrahedron::new(ids(), flat, SolidMaterial::Corotated, lame).is_none());
        let t = Tetrahedron::new(ids(), rest(), SolidMaterial::NeoHookean, lame).unwrap();
        assert_eq!(t.energy(&flipped), Real::INFINITY);
    }
}
