//! Löschner et al.'s predictor–corrector contact (Higher-order §4): any integrator predicts the
//! step without contact, then a velocity-level quadratic program corrects it where contact needs
//! it.
//!
//! With (x_p, v_p) the prediction, the elastic forces are linearised at the prediction (eq. 17),
//! so the internal-force terms of eq. 16 cancel (eq. 18), and with u_{n+1} = u_n + h v_{n+1} the
//! step's velocity minimises (eq. 19–20)
//!
//! ½ vᵀ C v − cᵀ v,  C = M + h²K(x_p),  c = M v_p + h K (x_p − x_n)
//!
//! (K PSD-projected, damping's curvature included), solved for Δv = v − v_p. The QP is set up
//! only when a step has contact rows: without one the prediction is kept exactly, a
//! higher-order one included (§4: "the correction process leaves bodies untouched if no contact
//! forces are necessary"; the paper's u_{n+1} = u_n + h v_{n+1} would otherwise move a
//! higher-order prediction, whose x_p − x_n ≠ h v_p).
//!
//! subject to one row per contact: a vertex against a triangle of another body, both taken at
//! x_n (G fixed at the step's start), whose predicted gap g_p along the triangle's normal is
//! negative. Surfaces are one-sided: the normal is the side the triangle's winding faces
//! (outwards, as the mesh generators and closed meshes have it), and a vertex the velocity-level
//! model left slightly inside stays constrained. The row asks the
//! normal relative velocity not to approach (eq. 19's G v ≥ 0): n·Δv_rel ≥ −n·v_p,rel. Like the
//! paper's, the model constrains velocities only: a vertex the prediction left inside and
//! already moving out is not pushed out, and a penetration of up to about one step's motion can
//! remain (IPC's never does). With no such row the
//! prediction is kept exactly (§4: "the correction process leaves bodies untouched if no contact
//! forces are necessary"). §4.1's scaling: each row divided by its largest coefficient, and
//! Δv = P^{1/2}Δv̂ with P = diag(C)⁻¹. The QP is solved by Clarabel (an interior-point solver,
//! maintained by the Oxford Control Group); one that fails ends the run with its status.

use super::ipc::IpcContact;
use crate::geometry::distance::closest_point_triangle;
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use crate::model::Model;
use crate::newton::{HessianForm, IncrementalPotential};
use crate::potential::Potential;

/// The contact primitives and the body of each vertex.
#[derive(Debug)]
pub struct Corrector {
    primitives: IpcContact,
    body_of: Vec<u32>,
}

/// One contact row: vertex `point` against triangle `triangle` with barycentric weights
/// `weights` and unit normal `normal` (pointing to the vertex's side at x_n), and the bound
/// n·Δv_rel ≥ `bound`.
#[derive(Clone, Copy, Debug)]
struct Row {
    point: VertexId,
    triangle: [VertexId; 3],
    weights: [Real; 3],
    normal: Vec3,
    bound: Real,
}

/// The most times a step's QP is solved, each with the pairs its last solution crossed added.
pub const ACTIVE_SET_ROUNDS: usize = 8;

/// What one correction did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Correction {
    /// Contact rows of the QP (0: no correction, the prediction kept exactly).
    pub contacts: usize,
    /// Interior-point iterations.
    pub iterations: u32,
}

impl Corrector {
    /// The vertices and triangles of every triangulated body and chain of `model`.
    pub fn new(model: &Model) -> Self {
        let mut body_of = vec![0; model.vertices.len()];
        for (k, body) in model.bodies.values().enumerate() {
            for v in body.vertices.clone() {
                body_of[v as usize] = k as u32;
            }
        }
        Corrector { primitives: IpcContact::new(model, Default::default()), body_of }
    }

    /// Every vertex–triangle pair of different bodies that the step from `x_n` to `x_p` could
    /// bring into contact, with its weights and normal taken at x_n; `bound` left at 0.
    fn pairs(&self, x_n: &[Vec3], x_p: &[Vec3]) -> Vec<Row> {
        let motion: Vec<Vec3> = x_p.iter().zip(x_n).map(|(p, n)| p - n).collect();
        // the corrected positions, x_n + h v, differ from x_p by far less than the motion
        let margin = 2.0 * motion.iter().map(|m| m.norm()).fold(0.0, Real::max);
        let mut pairs = Vec::new();
        for (point, triangle) in self.primitives.point_triangle_candidates(x_n, &motion, margin) {
            if triangle.iter().any(|t| self.body_of[t.index()] == self.body_of[point.index()]) {
                continue; // contact between bodies only (Higher-order §4.2)
            }
            let [a, b, c] = triangle.map(|t| x_n[t.index()]);
            let face = (b - a).cross(&(c - a));
            if face.norm_squared() == 0.0 {
                continue;
            }
            let closest = closest_point_triangle(x_n[point.index()], a, b, c);
            // one-sided: the normal is the side the mesh's winding faces (outwards); a vertex
            // behind the face by more than its longest edge at x_n is not in contact with it
            let normal = face.normalize();
            let side = normal.dot(&(x_n[point.index()] - closest.point));
            if side < -[b - a, c - b, a - c].iter().map(|e| e.norm()).fold(0.0, Real::max) {
                continue;
            }
            pairs.push(Row { point, triangle, weights: closest.barycentric, normal, bound: 0.0 });
        }
        pairs
    }

    /// Corrects the prediction `x`, `v` (in: x_p, v_p; out: x_{n+1}, v_{n+1}) of a step of `h`
    /// from `x_n`, for `potentials` with `masses` and `free` vertices (held and scripted ones are
    /// not moved). A pair becomes a row when the prediction crosses its face; when the corrected
    /// positions x_n + h v cross one more, it joins and the QP is solved again (at most
    /// [`ACTIVE_SET_ROUNDS`] times).
    #[allow(clippy::too_many_arguments)]
    pub fn correct(
        &self,
        potentials: &[Box<dyn Potential>],
        masses: &[Real],
        free: &[Option<usize>],
        x_n: &[Vec3],
        x: &mut [Vec3],
        v: &mut [Vec3],
        h: Real,
    ) -> Result<Correction, String> {
        let column = |p: VertexId| free[p.index()];
        let pairs: Vec<Row> = self
            .pairs(x_n, x)
            .into_iter()
            .filter(|r| column(r.point).is_some() || r.triangle.iter().any(|&t| column(t).is_some()))
            .collect();
        let gap = |r: &Row, y: &[Vec3]| {
            let relative = y[r.point.index()] - (0..3).map(|k| y[r.triangle[k].index()] * r.weights[k]).sum::<Vec3>();
            r.normal.dot(&relative)
        };
        let mut active: Vec<bool> = pairs.iter().map(|r| gap(r, x) < 0.0).collect();
        if !active.contains(&true) {
            return Ok(Correction::default());
        }
        let (x_p, v_p) = (x.to_vec(), v.to_vec());
        let objective = Objective::new(potentials, masses, free, x_n, &x_p, &v_p, h);
        let mut correction = Correction::default();
        for _ in 0..ACTIVE_SET_ROUNDS {
            let rows: Vec<Row> = pairs
                .iter()
                .zip(&active)
                .filter(|(_, &a)| a)
                .map(|(r, _)| {
                    let relative =
                        v_p[r.point.index()] - (0..3).map(|k| v_p[r.triangle[k].index()] * r.weights[k]).sum::<Vec3>();
                    Row { bound: -r.normal.dot(&relative), ..*r }
                })
                .collect();
            let (dv, iterations) = objective.solve(free, &rows)?;
            correction = Correction { contacts: rows.len(), iterations: correction.iterations + iterations };
            // u_{n+1} = u_n + h v_{n+1} (§4)
            for (i, f) in free.iter().enumerate() {
                if let Some(f) = f {
                    v[i] = v_p[i] + dv.fixed_rows::<3>(3 * f);
                    x[i] = x_n[i] + v[i] * h;
                }
            }
            let mut joined = false;
            for (a, r) in active.iter_mut().zip(&pairs) {
                if !*a && gap(r, x) < 0.0 {
                    *a = true;
                    joined = true;
                }
            }
            if !joined {
                break;
            }
        }
        Ok(correction)
    }
}

/// The QP's objective in Δv = v − v_p after §4.1's Jacobi scaling, the same for every round of a
/// step: ½Δv̂ᵀ(P^{1/2}CP^{1/2})Δv̂ + (P^{1/2}q)ᵀΔv̂ with Δv = P^{1/2}Δv̂.
struct Objective {
    /// P^{1/2}CP^{1/2}'s upper triangle, in Clarabel's CSC form.
    matrix: clarabel::algebra::CscMatrix<Real>,
    /// P^{1/2}q.
    linear: Vec<Real>,
    /// P^{1/2}'s diagonal, 1/√C_kk.
    scale: Vec<Real>,
}

impl Objective {
    /// The objective of a step of `h` from `x_n` predicted to `x`, `v`.
    fn new(
        potentials: &[Box<dyn Potential>],
        masses: &[Real],
        free: &[Option<usize>],
        x_n: &[Vec3],
        x: &[Vec3],
        v: &[Vec3],
        h: Real,
    ) -> Self {
        // C = h²·(M/h² + K(x_p)): the Newton matrix of backward Euler at the prediction
        let phi = IncrementalPotential {
            potentials,
            masses,
            free,
            target: x,
            anchor: x,
            inertia_weight: 1.0 / (h * h),
            potential_weight: 1.0,
            blend: 1.0,
            contact: None,
            hessian_form: HessianForm::Projected,
            assembly: None,
        };
        let matrix = phi.newton_system(x).0;
        let dofs = matrix.nrows();
        // the linear term of the QP in Δv = v − v_p: C v_p − c = h·K·(h v_p − (x_p − x_n)), zero
        // for a backward-Euler prediction; K y = (C y − M y)/h² with matrix = C/h²
        let mut drift = nalgebra::DVector::zeros(dofs);
        let mut mass = nalgebra::DVector::zeros(dofs);
        for (i, f) in free.iter().enumerate() {
            if let Some(f) = f {
                drift.fixed_rows_mut::<3>(3 * f).copy_from(&(v[i] * h - (x[i] - x_n[i])));
                mass.fixed_rows_mut::<3>(3 * f).fill(masses[i]);
            }
        }
        let stiffness_drift = &matrix * &drift - mass.component_mul(&drift) / (h * h);
        // §4.1: Δv = P^{1/2} Δv̂, P = diag(C)⁻¹
        let mut diagonal = vec![0.0; dofs];
        for (r, c, value) in matrix.triplet_iter() {
            if r == c {
                diagonal[r] += value * h * h;
            }
        }
        let scale: Vec<Real> = diagonal.iter().map(|d| 1.0 / d.sqrt()).collect();
        // the objective's upper triangle, scaled, in Clarabel's CSC form
        let (col_offsets, row_indices, values) = matrix.csc_data();
        let (mut p_cols, mut p_rows, mut p_values) = (vec![0], Vec::new(), Vec::new());
        for c in 0..dofs {
            for k in col_offsets[c]..col_offsets[c + 1] {
                let r = row_indices[k];
                if r <= c {
                    p_rows.push(r);
                    p_values.push(values[k] * h * h * scale[r] * scale[c]);
                }
            }
            p_cols.push(p_rows.len());
        }
        Objective {
            matrix: clarabel::algebra::CscMatrix::new(dofs, dofs, p_cols, p_rows, p_values),
            linear: (0..dofs).map(|k| h * stiffness_drift[k] * scale[k]).collect(),
            scale,
        }
    }

    /// The QP of one round with `rows`: Δv over the free degrees of freedom, and the solver's
    /// iterations.
    fn solve(&self, free: &[Option<usize>], rows: &[Row]) -> Result<(nalgebra::DVector<Real>, u32), String> {
        let column = |p: VertexId| free[p.index()];
        let (dofs, scale) = (self.scale.len(), &self.scale);
        // rows −E G P^{1/2} Δv̂ + s = −E·bound, s ≥ 0, built column by column
        let mut entries: Vec<Vec<(usize, Real)>> = vec![Vec::new(); dofs];
        let mut bounds = Vec::with_capacity(rows.len());
        for (j, row) in rows.iter().enumerate() {
            let mut coefficients: Vec<(usize, Real)> = Vec::new();
            let terms = std::iter::once((row.point, 1.0)).chain((0..3).map(|k| (row.triangle[k], -row.weights[k])));
            for (vertex, weight) in terms {
                if let Some(f) = column(vertex) {
                    for a in 0..3 {
                        coefficients.push((3 * f + a, weight * row.normal[a] * scale[3 * f + a]));
                    }
                }
            }
            let largest = coefficients.iter().map(|(_, c)| c.abs()).fold(0.0, Real::max);
            for (dof, c) in coefficients {
                entries[dof].push((j, -c / largest));
            }
            bounds.push(-row.bound / largest);
        }
        let (mut a_cols, mut a_rows, mut a_values) = (vec![0], Vec::new(), Vec::new());
        for column in &mut entries {
            column.sort_by_key(|&(r, _)| r);
            for &(r, value) in column.iter() {
                a_rows.push(r);
                a_values.push(value);
            }
            a_cols.push(a_rows.len());
        }
        let constraints = clarabel::algebra::CscMatrix::new(rows.len(), dofs, a_cols, a_rows, a_values);
        let settings = clarabel::solver::DefaultSettingsBuilder::default()
            .verbose(false)
            .build()
            .map_err(|e| format!("contact QP settings: {e}"))?;
        let cones = [clarabel::solver::NonnegativeConeT(rows.len())];
        let mut solver =
            clarabel::solver::DefaultSolver::new(&self.matrix, &self.linear, &constraints, &bounds, &cones, settings)
                .map_err(|e| format!("the contact QP of {} rows could not be set up: {e}", rows.len()))?;
        use clarabel::solver::IPSolver;
        solver.solve();
        let status = solver.solution.status;
        if !matches!(status, clarabel::solver::SolverStatus::Solved | clarabel::solver::SolverStatus::AlmostSolved) {
            return Err(format!(
                "the contact QP of {} rows ended with status {status:?} after {} iterations",
                rows.len(),
                solver.solution.iterations
            ));
        }
        let dv = nalgebra::DVector::from_fn(dofs, |k, _| solver.solution.x[k] * scale[k]);
        Ok((dv, solver.solution.iterations))
    }
}
