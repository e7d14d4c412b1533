//! The pair vocabulary of AVI contact, shared by every file of the contact subsystem and by the
//! broad phases: the primitives (points, spheres, segments, triangles), the kinds of pair they
//! form, the pair record with its guard, and what a pair is between (ACM §5, report §6). A leaf:
//! it imports nothing of its siblings.

use crate::contact::{LayerSchedule, ZenoError};
use crate::events::Clock;
use crate::geometry::distance::{closest_edge_edge, closest_point_triangle, gradient_distance_point_point};
use crate::ids::VertexId;
use crate::kds::{SlabDirection, StoredSlab};
use crate::math::Time;
use crate::math::{Real, Vec3};
use crate::potential::CompressionBarrier;
use smallvec::{smallvec, SmallVec};
use thin_vec::ThinVec;

/// The shape of a primitive.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub(super) enum Shape {
    /// A vertex of a mesh or chain.
    Point,
    /// A particle ([`Primitive::radius`]).
    Sphere,
    Segment,
    Triangle,
}

impl Shape {
    /// Number of vertices: 1, 2 or 3.
    pub(super) fn vertex_count(self) -> usize {
        match self {
            Shape::Point | Shape::Sphere => 1,
            Shape::Segment => 2,
            Shape::Triangle => 3,
        }
    }

    /// True if primitives of these shapes form a contact pair: a triangle with a point or sphere,
    /// two segments, two spheres.
    pub(super) fn pairs_with(self, other: Shape) -> bool {
        matches!(
            (self, other),
            (Shape::Triangle, Shape::Point | Shape::Sphere)
                | (Shape::Point | Shape::Sphere, Shape::Triangle)
                | (Shape::Segment, Shape::Segment)
                | (Shape::Sphere, Shape::Sphere)
        )
    }
}

/// A point, segment, triangle or sphere (16 bytes: one is kept per point, segment and triangle
/// of every mesh).
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug)]
pub(super) struct Primitive {
    pub(super) shape: Shape,
    /// Every vertex is fixed (held, not scripted): its cells never change.
    pub(super) fixed: bool,
    /// Every vertex is held or scripted: kicks do not move it.
    pub(super) held: bool,
    /// The first [`Shape::vertex_count`] are its vertices; a sphere keeps the bits of its radius
    /// (an `f64`) in the other two.
    pub(super) vertices: [VertexId; 3],
}

impl Primitive {
    /// A point, segment or triangle on `vertices`, or a sphere of `radius` on `vertices[0]`.
    pub(super) fn new(shape: Shape, vertices: &[VertexId], radius: Real, fixed: bool, held: bool) -> Self {
        let mut words = [vertices[0]; 3];
        if shape == Shape::Sphere {
            let bits = radius.to_bits();
            words[1] = VertexId((bits >> 32) as u32);
            words[2] = VertexId(bits as u32);
        } else {
            words[..vertices.len()].copy_from_slice(vertices);
        }
        Primitive { shape, fixed, held, vertices: words }
    }

    /// Its vertices.
    pub(super) fn vertices(&self) -> &[VertexId] {
        &self.vertices[..self.shape.vertex_count()]
    }

    /// Its radius: a sphere's, 0 for the other shapes, m.
    pub(super) fn radius(&self) -> Real {
        match self.shape {
            Shape::Sphere => Real::from_bits((u64::from(self.vertices[1].0) << 32) | u64::from(self.vertices[2].0)),
            _ => 0.0,
        }
    }
}

/// The primitives of a pair; the "low" side comes first, the "high" side last.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub(super) enum PairKind {
    /// A vertex (or the centre of a sphere of `radius`) against a triangle.
    PointTriangle { triangle: [VertexId; 3], point: VertexId, radius: Real },
    /// Two edges.
    EdgeEdge { a: [VertexId; 2], b: [VertexId; 2] },
    /// Two spheres with radii summing to `radii`.
    Spheres { a: VertexId, b: VertexId, radii: Real },
    /// An inextensible edge (ACM §7): its length stays below (1 + slack)·rest (`stretch`) or
    /// above (1 − slack)·rest (not `stretch`).
    EdgeLength { a: VertexId, b: VertexId, rest: Real, slack: Real, stretch: bool },
    /// A neo-Hookean bar's compression barrier (AVI only): its gap is the bar's length and its
    /// layers are the bar's own [`CompressionBarrier`] bands.
    Crush { bar: CompressionBarrier },
}

/// The layers of a pair: the scene's penalty layers ½·r(l)·(gap − η(l))², or the bands of a
/// bar's [`CompressionBarrier`].
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(super) enum Layers {
    Penalty(LayerSchedule),
    Crush(CompressionBarrier),
}

impl Layers {
    /// η(l): layer l acts while the gap is below it, m.
    pub(super) fn thickness(&self, l: u32) -> Real {
        match self {
            Layers::Penalty(p) => p.thickness(l),
            Layers::Crush(bar) => bar.thickness(l),
        }
    }

    /// The largest stiffness of layer l, N/m.
    pub(super) fn stiffness(&self, l: u32) -> Real {
        match self {
            Layers::Penalty(p) => p.stiffness(l),
            Layers::Crush(bar) => bar.curvature(l),
        }
    }

    /// Layer l's clock period, `safety`·2/√(stiffness·Σ1/m) (see [`LayerSchedule::period`]).
    pub(super) fn period(&self, l: u32, inverse_mass: Real, safety: Real) -> Real {
        match self {
            Layers::Penalty(p) => p.period(l, inverse_mass, safety),
            Layers::Crush(bar) => safety * 2.0 / (bar.curvature(l) * inverse_mass).sqrt(),
        }
    }

    /// [`Self::period`], refused when the clock cannot resolve it at `now`
    /// ([`LayerSchedule::checked_period`]).
    pub(super) fn checked_period(
        &self,
        l: u32,
        inverse_mass: Real,
        safety: Real,
        now: Time,
    ) -> Result<Real, ZenoError> {
        match self {
            Layers::Penalty(p) => p.checked_period(l, inverse_mass, safety, now),
            Layers::Crush(_) => ZenoError::check(l, self.period(l, inverse_mass, safety), now),
        }
    }

    /// Layer l's energy at `gap` (0 above η(l)), J.
    pub(super) fn energy(&self, l: u32, gap: Real) -> Real {
        match self {
            Layers::Penalty(p) => {
                if p.thickness(l) > gap {
                    0.5 * p.stiffness(l) * (gap - p.thickness(l)).powi(2)
                } else {
                    0.0
                }
            }
            Layers::Crush(bar) => bar.energy(l, gap),
        }
    }
}

impl PairKind {
    /// The pair's layers: the scene's `contact` schedule, or for an inextensible edge η₁ =
    /// slack·rest/2 with the same stiffness (derived, not stored: a pair is made for every
    /// pair of near primitives, so its size is the contact bookkeeping's).
    pub(super) fn schedule(&self, contact: LayerSchedule) -> Layers {
        match *self {
            PairKind::EdgeLength { rest, slack, .. } => {
                Layers::Penalty(LayerSchedule { thickness: 0.5 * slack * rest, stiffness: contact.stiffness })
            }
            PairKind::Crush { bar } => Layers::Crush(bar),
            _ => Layers::Penalty(contact),
        }
    }

    /// Stencil vertices: low side first, then high side.
    pub(super) fn vertices(&self) -> SmallVec<[VertexId; 4]> {
        match *self {
            PairKind::PointTriangle { triangle: [a, b, c], point, .. } => smallvec![a, b, c, point],
            PairKind::EdgeEdge { a: [a0, a1], b: [b0, b1] } => smallvec![a0, a1, b0, b1],
            PairKind::Spheres { a, b, .. } | PairKind::EdgeLength { a, b, .. } => smallvec![a, b],
            PairKind::Crush { bar } => smallvec![bar.a, bar.b],
        }
    }

    /// What the pair is between, as failure reports name it.
    pub(super) fn name(&self) -> &'static str {
        match self {
            PairKind::PointTriangle { radius, .. } if *radius > 0.0 => "sphere–triangle",
            PairKind::PointTriangle { .. } => "point–triangle",
            PairKind::EdgeEdge { .. } => "edge–edge",
            PairKind::Spheres { .. } => "sphere–sphere",
            PairKind::EdgeLength { .. } => "edge-length",
            PairKind::Crush { .. } => "bar compression",
        }
    }

    /// Each of [`vertices`](Self::vertices)' part in the pair, as failure reports name it.
    pub(super) fn roles(&self) -> &'static [&'static str] {
        match self {
            PairKind::PointTriangle { radius, .. } if *radius > 0.0 => &["triangle", "triangle", "triangle", "sphere"],
            PairKind::PointTriangle { .. } => &["triangle", "triangle", "triangle", "point"],
            PairKind::EdgeEdge { .. } => &["edge a", "edge a", "edge b", "edge b"],
            PairKind::Spheres { .. } => &["sphere", "sphere"],
            PairKind::EdgeLength { .. } | PairKind::Crush { .. } => &["edge", "edge"],
        }
    }

    /// How many of [`vertices`](Self::vertices) are on the low side.
    pub(super) fn low_count(&self) -> usize {
        match self {
            PairKind::PointTriangle { .. } => 3,
            PairKind::EdgeEdge { .. } => 2,
            PairKind::Spheres { .. } | PairKind::EdgeLength { .. } | PairKind::Crush { .. } => 1,
        }
    }

    /// Sum of radii (0 between mesh primitives).
    pub(super) fn radii(&self) -> Real {
        match *self {
            PairKind::PointTriangle { radius, .. } => radius,
            PairKind::EdgeEdge { .. } | PairKind::EdgeLength { .. } | PairKind::Crush { .. } => 0.0,
            PairKind::Spheres { radii, .. } => radii,
        }
    }

    /// The closest points (low, high), the gap (distance − radii) and ∂distance/∂x per stencil
    /// vertex (in [`vertices`](Self::vertices) order; zero where the distance has no gradient).
    pub(super) fn measure(&self, x: &[Vec3]) -> Proximity {
        match *self {
            PairKind::PointTriangle { radius, .. } => {
                let c = closest_point_triangle(x[3], x[0], x[1], x[2]);
                let g = c.gradient(x[3]).unwrap_or([Vec3::zeros(); 4]);
                Proximity {
                    low: c.point,
                    high: x[3],
                    gap: c.distance() - radius,
                    gradient: smallvec![g[1], g[2], g[3], g[0]],
                }
            }
            PairKind::EdgeEdge { .. } => {
                let c = closest_edge_edge(x[0], x[1], x[2], x[3]);
                let g = c.gradient().unwrap_or([Vec3::zeros(); 4]);
                Proximity { low: c.pa, high: c.pb, gap: c.distance() - 0.0, gradient: g.into_iter().collect() }
            }
            PairKind::Spheres { radii, .. } => {
                let g = gradient_distance_point_point(x[0], x[1]).unwrap_or([Vec3::zeros(); 2]);
                Proximity {
                    low: x[0],
                    high: x[1],
                    gap: (x[1] - x[0]).norm() - radii,
                    gradient: g.into_iter().collect(),
                }
            }
            PairKind::EdgeLength { rest, slack, stretch, .. } => {
                let length = (x[1] - x[0]).norm();
                let u = gradient_distance_point_point(x[0], x[1]).map_or(Vec3::zeros(), |g| g[1]);
                let (gap, sign) =
                    if stretch { ((1.0 + slack) * rest - length, -1.0) } else { (length - (1.0 - slack) * rest, 1.0) };
                Proximity { low: x[0], high: x[1], gap, gradient: smallvec![-u * sign, u * sign] }
            }
            PairKind::Crush { .. } => {
                let u = gradient_distance_point_point(x[0], x[1]).map_or(Vec3::zeros(), |g| g[1]);
                Proximity { low: x[0], high: x[1], gap: (x[1] - x[0]).norm(), gradient: smallvec![-u, u] }
            }
        }
    }
}

/// What [`PairKind::measure`] finds.
pub(super) struct Proximity {
    pub(super) low: Vec3,
    pub(super) high: Vec3,
    pub(super) gap: Real,
    pub(super) gradient: SmallVec<[Vec3; 4]>,
}

/// What proves a pair's next layer n + 1 idle until its failure time. Its thickness η(n + 1)
/// (plus radii) is derived from the pair, not stored.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Guard {
    /// None: the pair's layers are active and no certificate is needed until the deepest retires.
    None,
    /// A separating slab between the pair's two sides (geometric pairs, ACM §5.1) on
    /// [`Pair::direction`].
    Slab,
    /// A bound on how fast a constraint gap can shrink (its vertices' relative tube speed) keeps
    /// it above η(n + 1) until the failure time (edge-length pairs).
    Rate,
    /// `ContactVariant::ReflectiveImpulse` only: the pair is within the profitability margin of
    /// η(1) and waits for its predicted impact (or polls while separating). Guarantees nothing.
    Impact,
}

/// One contact pair: its active layers' clocks and its certificate, in 48 bytes (a pair record
/// is most of the contact bookkeeping; `docs/performance.md`).
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub(super) struct Pair {
    /// What the pair is between; its [`PairKind`] follows (`ContactManager::kind_of`).
    pub(super) between: PackedBetween,
    /// Stamp of the last kick that re-certified this pair (one re-certification per kick; 0:
    /// none yet). Two bytes: the stamps wrap every 65 535 kicks that leave a tube
    /// (`ContactManager::next_stamp`).
    pub(super) stamp: u16,
    /// The certificate that layer n + 1 is inactive.
    pub(super) guard: Guard,
    /// Clocks of layers 1..=n (index l − 1), on multiples of h(l) from t = 0 (the broken
    /// restarted variant shifts them: `ContactManager::restarts`). A thin vector: most pairs
    /// never have a layer.
    pub(super) layers: ThinVec<Clock>,
    /// The direction of a [`Guard::Slab`]'s slab (stale otherwise). Its planes are not kept: a
    /// re-certification centres the slab between the sides' current supports along it.
    pub(super) direction: SlabDirection,
    /// A [`Guard::Slab`]'s planes at the failure time it asked the queue for, in 16 bytes (stale
    /// otherwise): a kick that speeds a vertex toward its plane keeps the slab while the vertex's
    /// new tube stays clear of the plane until then.
    pub(super) planes: StoredSlab,
}

/// What a pair is between.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Between {
    /// Broad-phase primitives i < j.
    Primitives(u32, u32),
    /// One side of an inextensible edge: `ContactManager::lengths``[e]`, for the whole run.
    Length(u32),
}

/// A [`Between`] in 8 bytes: `[i, j]` for primitives i < j (never `u32::MAX`), `[u32::MAX, e]`
/// for a length constraint.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub(super) struct PackedBetween([u32; 2]);

impl PackedBetween {
    pub(super) fn new(between: Between) -> Self {
        match between {
            Between::Primitives(i, j) => {
                debug_assert!(i < j && j < u32::MAX);
                PackedBetween([i, j])
            }
            Between::Length(e) => PackedBetween([u32::MAX, e]),
        }
    }

    pub(super) fn get(self) -> Between {
        match self.0 {
            [u32::MAX, e] => Between::Length(e),
            [i, j] => Between::Primitives(i, j),
        }
    }
}

impl PairKind {
    /// The contact pair two primitives form: none if they share a vertex or neither can move
    /// (held or scripted), else by their shapes ([`PairKind::of_shapes`]).
    pub(super) fn of_primitives(a: &Primitive, b: &Primitive) -> Option<PairKind> {
        if a.vertices().iter().any(|u| b.vertices().contains(u)) || (a.held && b.held) {
            return None;
        }
        Self::of_shapes(a, b)
    }

    /// The pair kind of two primitives by their shapes, the first one the low side: a triangle
    /// with a point or sphere, two segments, two spheres (`None` for shapes that do not touch).
    pub(super) fn of_shapes(a: &Primitive, b: &Primitive) -> Option<PairKind> {
        let triangle = |p: &Primitive| [p.vertices()[0], p.vertices()[1], p.vertices()[2]];
        match (a.shape, b.shape) {
            (Shape::Triangle, Shape::Point) => {
                Some(PairKind::PointTriangle { triangle: triangle(a), point: b.vertices()[0], radius: 0.0 })
            }
            (Shape::Triangle, Shape::Sphere) => {
                Some(PairKind::PointTriangle { triangle: triangle(a), point: b.vertices()[0], radius: b.radius() })
            }
            (Shape::Segment, Shape::Segment) => Some(PairKind::EdgeEdge {
                a: [a.vertices()[0], a.vertices()[1]],
                b: [b.vertices()[0], b.vertices()[1]],
            }),
            (Shape::Sphere, Shape::Sphere) => {
                Some(PairKind::Spheres { a: a.vertices()[0], b: b.vertices()[0], radii: a.radius() + b.radius() })
            }
            _ => None,
        }
    }
}
