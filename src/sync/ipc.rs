//! IPC contact for the synchronous backend (Li et al. 2020, as used by A-search §5): log barriers
//! on every point–triangle and edge–edge pair closer than d̂, and a CCD-filtered line search so
//! every accepted Newton iterate is intersection-free.
//!
//! The active set is rebuilt from the positions at every evaluation (a sweep over boxes inflated
//! by d̂: false positives allowed, false negatives never); the step bound comes from conservative
//! continuous collision detection on every pair whose swept boxes overlap.

use crate::contact::proximity::{primitives, Primitive};
use crate::geometry::ccd::{toi_edge_edge, toi_point_triangle};
use crate::geometry::distance::{closest_edge_edge, closest_point_triangle};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use crate::model::Model;
use crate::potential::{barrier, mollifier, ContactPair, IpcBarrier, LaggedFriction, Potential};

/// IPC parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IpcParameters {
    /// d̂, m: barriers act on pairs closer than this.
    pub activation: Real,
    /// κ, N/m: the barrier energy is (κ/d̂²)·b(d², d̂²), about κ·d̂²·ln(d̂/d) near contact.
    pub stiffness: Real,
    /// Coulomb μ of the lagged friction (0: frictionless).
    pub friction: Real,
}

/// ε_v, m/s: relative tangential speeds below this are smoothed into static friction (IPC's
/// default).
pub const FRICTION_SMOOTHING_SPEED: Real = 1e-3;

impl Default for IpcParameters {
    /// A-search Appendix A: d̂ = 1 mm, κ = 10⁵.
    fn default() -> Self {
        IpcParameters { activation: 1e-3, stiffness: 1e5, friction: 0.0 }
    }
}

/// The contact pairs of a model and how to evaluate them.
#[derive(Debug)]
pub struct IpcContact {
    parameters: IpcParameters,
    /// (point, triangle) and (edge, edge) candidate pairs are formed from these.
    points: Vec<VertexId>,
    edges: Vec<[VertexId; 2]>,
    triangles: Vec<[VertexId; 3]>,
    rest: Vec<Vec3>,
}

/// A contact pair by global vertex ids.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pair {
    PointTriangle(VertexId, [VertexId; 3]),
    EdgeEdge([VertexId; 2], [VertexId; 2]),
}

impl IpcContact {
    /// The contact primitives of every triangulated body and chain of `model` (particles are not
    /// IPC primitives).
    pub fn new(model: &Model, parameters: IpcParameters) -> Self {
        let (mut points, mut edges, mut triangles) = (Vec::new(), Vec::new(), Vec::new());
        for p in primitives(model) {
            match p {
                Primitive::Vertex(v) => points.push(v),
                Primitive::Edge(e) => edges.push(e),
                Primitive::Triangle(t) => triangles.push(t),
                Primitive::Particle(..) => {}
            }
        }
        let rest = (0..model.vertices.len()).map(|i| model.vertices.position(VertexId(i as u32))).collect();
        IpcContact { parameters, points, edges, triangles, rest }
    }

    /// The parameters.
    pub fn parameters(&self) -> &IpcParameters {
        &self.parameters
    }

    /// Candidate pairs whose boxes, swept from `x` to `x + step`, come within `margin`.
    fn candidates(&self, x: &[Vec3], step: Option<&[Vec3]>, margin: Real) -> Vec<Pair> {
        let bounds = |vs: &[VertexId]| {
            let mut lo = Vec3::repeat(Real::INFINITY);
            let mut hi = Vec3::repeat(Real::NEG_INFINITY);
            for v in vs {
                let a = x[v.index()];
                let b = step.map_or(a, |d| a + d[v.index()]);
                lo = lo.inf(&a).inf(&b);
                hi = hi.sup(&a).sup(&b);
            }
            (lo - Vec3::repeat(0.5 * margin), hi + Vec3::repeat(0.5 * margin))
        };
        // one sweep over all primitives; pairs are (point, triangle) and (edge, edge)
        enum Item {
            Point(VertexId),
            Edge([VertexId; 2]),
            Triangle([VertexId; 3]),
        }
        let mut items: Vec<(Vec3, Vec3, Item)> = Vec::new();
        items.extend(self.points.iter().map(|&p| {
            let (lo, hi) = bounds(&[p]);
            (lo, hi, Item::Point(p))
        }));
        items.extend(self.edges.iter().map(|e| {
            let (lo, hi) = bounds(e);
            (lo, hi, Item::Edge(*e))
        }));
        items.extend(self.triangles.iter().map(|t| {
            let (lo, hi) = bounds(t);
            (lo, hi, Item::Triangle(*t))
        }));
        let mut order: Vec<usize> = (0..items.len()).collect();
        order.sort_by(|&i, &j| items[i].0.x.total_cmp(&items[j].0.x).then(i.cmp(&j)));
        let mut pairs = Vec::new();
        for (k, &i) in order.iter().enumerate() {
            for &j in &order[k + 1..] {
                if items[j].0.x > items[i].1.x {
                    break;
                }
                if !(1..3).all(|d| items[j].0[d] <= items[i].1[d] && items[i].0[d] <= items[j].1[d]) {
                    continue;
                }
                let pair = match (&items[i].2, &items[j].2) {
                    (Item::Point(p), Item::Triangle(t)) | (Item::Triangle(t), Item::Point(p)) if !t.contains(p) => {
                        Pair::PointTriangle(*p, *t)
                    }
                    (Item::Edge(a), Item::Edge(b)) if !a.iter().any(|v| b.contains(v)) => Pair::EdgeEdge(*a, *b),
                    _ => continue,
                };
                pairs.push(pair);
            }
        }
        pairs
    }

    /// The (point, triangle) candidate pairs whose boxes, swept from `x` to `x + step`, come
    /// within `margin`: false positives allowed, false negatives never (the predictor–corrector's
    /// broad phase, `sync/corrector.rs`).
    pub(crate) fn point_triangle_candidates(
        &self,
        x: &[Vec3],
        step: &[Vec3],
        margin: Real,
    ) -> Vec<(VertexId, [VertexId; 3])> {
        self.candidates(x, Some(step), margin)
            .into_iter()
            .filter_map(|pair| match pair {
                Pair::PointTriangle(p, t) => Some((p, t)),
                Pair::EdgeEdge(..) => None,
            })
            .collect()
    }

    /// The barriers of every pair closer than d̂ at `x`.
    pub fn active_barriers(&self, x: &[Vec3]) -> Vec<Box<dyn Potential>> {
        self.active_barrier_pairs(x).into_iter().map(|b| Box::new(b) as Box<dyn Potential>).collect()
    }

    /// [`active_barriers`](Self::active_barriers), as concrete barriers.
    pub(crate) fn active_barrier_pairs(&self, x: &[Vec3]) -> Vec<IpcBarrier> {
        let IpcParameters { activation, stiffness, .. } = self.parameters;
        let kappa = stiffness / (activation * activation);
        self.candidates(x, None, activation)
            .into_iter()
            .filter_map(|pair| {
                let barrier = match pair {
                    Pair::PointTriangle(p, t) => IpcBarrier::point_triangle(p, t, activation, kappa),
                    Pair::EdgeEdge(a, b) => IpcBarrier::edge_edge(
                        a,
                        b,
                        [a[0], a[1], b[0], b[1]].map(|v| self.rest[v.index()]),
                        activation,
                        kappa,
                    ),
                };
                let local: Vec<Vec3> = barrier.stencil().iter().map(|v| x[v.index()]).collect();
                (barrier.distance_squared(&local) < barrier.activation_squared).then_some(barrier)
            })
            .collect()
    }

    /// Lagged friction for a step of length `h` from positions `x` (the start of the step): one
    /// [`LaggedFriction`] per active pair with its normal force, closest-point weights and tangent
    /// plane frozen at `x` (Li et al. 2020 §5). Empty when μ = 0.
    pub fn friction_potentials(&self, x: &[Vec3], h: Real) -> Vec<Box<dyn Potential>> {
        let mu = self.parameters.friction;
        if mu <= 0.0 {
            return Vec::new();
        }
        let mut out: Vec<Box<dyn Potential>> = Vec::new();
        for b in self.active_barrier_pairs(x) {
            let stencil = b.stencil().to_vec();
            let start: Vec<Vec3> = stencil.iter().map(|v| x[v.index()]).collect();
            let (normal, weights) = if b.pair == ContactPair::PointTriangle {
                let c = closest_point_triangle(start[0], start[1], start[2], start[3]);
                (start[0] - c.point, vec![1.0, -c.barycentric[0], -c.barycentric[1], -c.barycentric[2]])
            } else {
                let c = closest_edge_edge(start[0], start[1], start[2], start[3]);
                (c.pa - c.pb, vec![1.0 - c.s, c.s, -(1.0 - c.t), -c.t])
            };
            // normal force magnitude λ = |∂B/∂d| = κ_s·|b'(d²)|·2d (times the edge–edge mollifier)
            let s = normal.norm_squared();
            let (_, db, _) = barrier(s, b.activation_squared);
            let m = match b.pair {
                ContactPair::PointTriangle => 1.0,
                ContactPair::EdgeEdge { eps } => {
                    mollifier((start[1] - start[0]).cross(&(start[3] - start[2])).norm_squared(), eps).0
                }
            };
            let lambda = b.stiffness * db.abs() * 2.0 * s.sqrt() * m;
            if lambda > 0.0 {
                out.push(Box::new(LaggedFriction::new(
                    &stencil,
                    weights,
                    normal,
                    start,
                    mu,
                    lambda,
                    FRICTION_SMOOTHING_SPEED * h,
                )));
            }
        }
        out
    }

    /// The largest fraction α ∈ [0, 1] of the step `x → x + step` (per vertex) that conservative
    /// CCD certifies intersection-free.
    pub fn max_step(&self, x: &[Vec3], step: &[Vec3]) -> Real {
        let path = |v: VertexId| [x[v.index()], x[v.index()] + step[v.index()]];
        let mut alpha: Real = 1.0;
        for pair in self.candidates(x, Some(step), 0.0) {
            let toi = match pair {
                Pair::PointTriangle(p, t) => {
                    toi_point_triangle(path(p), path(t[0]), path(t[1]), path(t[2]), 0.0, alpha)
                }
                Pair::EdgeEdge(a, b) => toi_edge_edge(path(a[0]), path(a[1]), path(b[0]), path(b[1]), 0.0, alpha),
            };
            if let Some(t) = toi {
                alpha = alpha.min(t);
            }
        }
        alpha
    }
}

impl crate::newton::BarrierContact for IpcContact {
    fn active_barriers(&self, x: &[Vec3]) -> Vec<Box<dyn Potential>> {
        IpcContact::active_barriers(self, x)
    }

    fn max_step(&self, x: &[Vec3], step: &[Vec3]) -> Real {
        IpcContact::max_step(self, x, step)
    }
}
