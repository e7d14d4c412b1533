//! The broad phase of AVI contact: which primitive pairs hold a contact pair (certificate and
//! layers) at all. Either every candidate pair, for all time, the kinetic k-DOP hierarchy of
//! ACM §5.5–5.6, or the kinetic hash grid of Phantom §4.
//!
//! On the hash grid each vertex keeps its *anchor*: where it was when it was last anchored. Its
//! certificate fails when its vague tube may leave the ball of radius `slack` around the anchor;
//! it is then re-anchored, and its primitives re-covered. Until then every point of a primitive
//! lies within `slack` of its *anchored shape*, the shape on its vertices' anchors (a point of it
//! is a convex combination of the vertices), so two primitives whose anchored shapes are at least
//! reach + 2·slack apart are at least the reach apart. A pair exists while its anchored shapes are
//! closer than that; primitives closer than the reach always hold one. The grid
//! ([`crate::kds::hash_grid`]) lists each primitive in the cells its *fat box* touches (the
//! anchors' bounding box inflated by radius, half the reach and the slack), so two primitives
//! that must hold a pair share a cell; their fat boxes are the cheap first test.
//!
//! Anchors are kept per vertex rather than per primitive (Phantom §4 certifies primitives): a
//! vertex is in a dozen primitives of a mesh, so this keeps one anchor instead of a dozen, one
//! certificate in the event queue instead of a dozen, and one exit time to recompute when a kick
//! re-centres the vertex's tube; a re-anchoring re-covers the vertex's primitives together.
//!
//! Primitives are the points, segments and triangles of the triangulated bodies and chains, and
//! the spheres of particle bodies. The pair rule is the same for both: a triangle with a mesh point
//! or a sphere, two segments, two spheres; never two primitives that share a vertex or that can
//! both not move.

use super::contact_manager::PairKind;
use super::kdop_hierarchy::{FrontChanges, KdopHierarchy};
use crate::contact::proximity::{primitives, Primitive as ModelPrimitive};
use crate::geometry::distance::{distance_edge_edge, distance_point_point, distance_point_triangle};
use crate::ids::VertexId;
use crate::kds::hash_grid::{CellBox, HashGrid};
use crate::kds::VagueTrajectory;
use crate::math::{Real, Vec3};
use crate::model::{Model, Motion};
use smallvec::{smallvec, SmallVec};

/// Which broad phase the AVI contact manager uses (the scene's `[contact] broad_phase`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BroadPhaseKind {
    /// Every candidate pair holds a certificate for the whole run: cost grows with the square of
    /// the number of primitives; for small scenes and as the reference of law 5.
    AllPairs,
    /// The kinetic hash grid (Phantom §4) with cubic cells of this side, m; `None`: twice the mean
    /// edge length of the free bodies (Phantom's choice), or for particles only, twice the sum of
    /// the largest diameter and the contact reach.
    HashGrid {
        /// Cell side, m.
        cell_size: Option<Real>,
    },
    /// The kinetic k-DOP hierarchy (ACM §5.5–5.6): bounding-volume trees of 26-DOPs and a front
    /// of overlap and non-overlap certificates (`src/avi/kdop_hierarchy.rs`).
    Kdop,
}

impl Default for BroadPhaseKind {
    fn default() -> Self {
        BroadPhaseKind::HashGrid { cell_size: None }
    }
}

impl BroadPhaseKind {
    /// Every broad phase's name in scene files (`[contact] broad_phase`), the default first.
    pub const NAMES: [&'static str; 3] = ["hash-grid", "kdop", "all-pairs"];

    /// The broad phase called `name` in scene files; `cell_size` is the hash grid's cell side
    /// (ignored by the others).
    pub fn from_name(name: &str, cell_size: Option<Real>) -> Option<Self> {
        match name {
            "hash-grid" => Some(BroadPhaseKind::HashGrid { cell_size }),
            "kdop" => Some(BroadPhaseKind::Kdop),
            "all-pairs" => Some(BroadPhaseKind::AllPairs),
            _ => None,
        }
    }

    /// Its name in scene files.
    pub fn name(self) -> &'static str {
        match self {
            BroadPhaseKind::HashGrid { .. } => Self::NAMES[0],
            BroadPhaseKind::Kdop => Self::NAMES[1],
            BroadPhaseKind::AllPairs => Self::NAMES[2],
        }
    }
}

/// The shape of a primitive.
#[derive(Clone, Copy, Debug, PartialEq)]
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
    fn vertex_count(self) -> usize {
        match self {
            Shape::Point | Shape::Sphere => 1,
            Shape::Segment => 2,
            Shape::Triangle => 3,
        }
    }
}

/// A point, segment, triangle or sphere (16 bytes: one is kept per point, segment and triangle
/// of every mesh).
#[derive(Clone, Debug)]
pub(super) struct Primitive {
    pub(super) shape: Shape,
    /// Every vertex is fixed (held, not scripted): its cells never change.
    fixed: bool,
    /// Every vertex is held or scripted: kicks do not move it.
    pub(super) held: bool,
    /// The first [`Shape::vertex_count`] are its vertices; a sphere keeps the bits of its radius
    /// (an `f64`) in the other two.
    vertices: [VertexId; 3],
}

impl Primitive {
    /// A point, segment or triangle on `vertices`, or a sphere of `radius` on `vertices[0]`.
    fn new(shape: Shape, vertices: &[VertexId], radius: Real, fixed: bool, held: bool) -> Self {
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

/// An axis-aligned box, `(lo, hi)`, m.
type FatBox = (Vec3, Vec3);

/// A fat box as the grid stores it: single precision, rounded outward so that it holds the box it
/// was made from, `[lo.x, lo.y, lo.z, hi.x, hi.y, hi.z]` (24 bytes instead of 48). The grid only
/// ever uses the stored box, so every test sees the same one.
type StoredBox = [f32; 6];

fn store_box(b: &FatBox) -> StoredBox {
    let down = |x: Real| {
        let f = x as f32;
        if Real::from(f) > x {
            f.next_down()
        } else {
            f
        }
    };
    let up = |x: Real| {
        let f = x as f32;
        if Real::from(f) < x {
            f.next_up()
        } else {
            f
        }
    };
    [down(b.0.x), down(b.0.y), down(b.0.z), up(b.1.x), up(b.1.y), up(b.1.z)]
}

fn load_box(b: &StoredBox) -> FatBox {
    let x = b.map(Real::from);
    (Vec3::new(x[0], x[1], x[2]), Vec3::new(x[3], x[4], x[5]))
}

/// True if two stored boxes overlap (compared in single precision: the same answer as in double,
/// since widening is exact, without converting).
fn boxes_overlap(a: &StoredBox, b: &StoredBox) -> bool {
    (0..3).all(|c| a[c] <= b[c + 3] && b[c] <= a[c + 3])
}

/// A primitive whose cell box holds more cells than this (a large obstacle triangle, say) is not
/// entered cell by cell: it sits on a short list checked against every moving primitive, with the
/// same overlap rule.
const LARGE_CELLS: u64 = 4096;

/// The hash grid's state: every primitive's cell box, and the margins that decide them.
#[derive(Debug)]
struct Grid {
    grid: HashGrid,
    /// Each primitive's fat box: its anchors' bounding box inflated by its radius, half the reach
    /// and the slack. Two primitives whose fat boxes miss each other hold no pair; a primitive is
    /// listed in the cells its fat box touches.
    fat: Vec<StoredBox>,
    /// Where each vertex was when it was last anchored.
    anchors: Vec<Vec3>,
    /// Primitives with more than [`LARGE_CELLS`] cells, in increasing order.
    large: Vec<u32>,
    /// Half the contact reach: two primitives whose bounding boxes, each inflated by its radius
    /// plus this, do not overlap have a gap above the reach.
    half_reach: Real,
    /// How far a vertex may go from its anchor before it is re-anchored (hysteresis), m.
    slack: Real,
    /// For each primitive, the last [`Grid::visit`] that tested it: a primitive listed in several
    /// of the cells a re-cover scans is tested once.
    visited: Vec<u32>,
    /// The number of the current re-cover's scan (0: none yet).
    visit: u32,
}

/// The primitives of a model and the structure that says which pairs of them may touch.
#[derive(Debug)]
pub(super) struct BroadPhase {
    primitives: Vec<Primitive>,
    /// For each vertex, the primitives it belongs to: vertex `u`'s are
    /// `of_vertex[first_of_vertex[u]..first_of_vertex[u + 1]]`, in increasing order.
    of_vertex: Vec<u32>,
    first_of_vertex: Vec<u32>,
    grid: Option<Grid>,
    kdop: Option<KdopHierarchy>,
    /// The k-DOP front's certificates at the start, until the contact manager schedules them.
    kdop_start: Vec<(u32, Real)>,
}

impl BroadPhase {
    /// The primitives of `model`; with a hash grid, each is placed in its cells at t = 0; with a
    /// k-DOP hierarchy, the front is built at t = 0 on tubes of tolerance `tolerance` (m/s) around
    /// the initial velocities. `reach` is the gap below which a pair must exist (m); `slack` is the
    /// hysteresis (m; `None`: [`default_slack`] for the cell side).
    pub(super) fn new(model: &Model, kind: BroadPhaseKind, reach: Real, tolerance: Real, slack: Option<Real>) -> Self {
        let v = &model.vertices;
        let held = |u: VertexId| !matches!(v.motion_at(u, 0.0), Motion::Free);
        let fixed = |u: VertexId| matches!(v.motion(u), Motion::Fixed);
        // one list of primitives (`contact::proximity::primitives`), grouped by shape
        let mut spheres = Vec::new();
        let mut points = Vec::new();
        let mut segments = Vec::new();
        let mut triangles = Vec::new();
        let mut free_edge_lengths = Vec::new();
        for p in primitives(model) {
            match p {
                ModelPrimitive::Particle(u, r) => spheres.push((Shape::Sphere, smallvec![u], r)),
                ModelPrimitive::Vertex(u) => points.push((Shape::Point, smallvec![u], 0.0)),
                ModelPrimitive::Edge([a, b]) => {
                    if !(held(a) && held(b)) {
                        free_edge_lengths.push((v.position(b) - v.position(a)).norm());
                    }
                    segments.push((Shape::Segment, smallvec![a, b], 0.0));
                }
                ModelPrimitive::Triangle(t) => triangles.push((Shape::Triangle, t.into_iter().collect(), 0.0)),
            }
        }
        let largest_radius = spheres.iter().map(|&(_, _, r)| r).fold(0.0, Real::max);
        let primitives: Vec<Primitive> = triangles
            .into_iter()
            .chain(points)
            .chain(spheres)
            .chain(segments)
            .map(|(shape, vertices, radius): (Shape, SmallVec<[VertexId; 3]>, Real)| {
                let all = |test: &dyn Fn(VertexId) -> bool| vertices.iter().all(|&u| test(u));
                Primitive::new(shape, &vertices, radius, all(&fixed), all(&held))
            })
            .collect();
        let mut first_of_vertex = vec![0u32; v.len() + 1];
        for u in primitives.iter().flat_map(Primitive::vertices) {
            first_of_vertex[u.index() + 1] += 1;
        }
        for k in 1..first_of_vertex.len() {
            first_of_vertex[k] += first_of_vertex[k - 1];
        }
        let mut of_vertex = vec![0u32; first_of_vertex[v.len()] as usize];
        let mut next = first_of_vertex.clone();
        for (i, p) in primitives.iter().enumerate() {
            for u in p.vertices() {
                of_vertex[next[u.index()] as usize] = i as u32;
                next[u.index()] += 1;
            }
        }
        // Phantom's cell: twice the mean free edge length (particles: twice diameter plus reach)
        let default_cell = if free_edge_lengths.is_empty() {
            2.0 * (2.0 * largest_radius + reach)
        } else {
            2.0 * free_edge_lengths.iter().sum::<Real>() / free_edge_lengths.len() as Real
        };
        let cell = match kind {
            BroadPhaseKind::HashGrid { cell_size: Some(size) } => size,
            _ => default_cell,
        };
        let valid = cell.is_finite() && cell > 0.0;
        let slack = slack.unwrap_or_else(|| if valid { default_slack(kind, cell) } else { reach });
        let cell = if valid { cell } else { 1.0 };
        let (mut kdop, mut kdop_start) = (None, Vec::new());
        if kind == BroadPhaseKind::Kdop {
            let mut hierarchy = KdopHierarchy::new(&primitives, &|u| v.position(u), reach, slack);
            let velocities = v.velocities();
            let changes = hierarchy
                .start(0.0, &primitives, &|u| vertex_tube(model, velocities, tolerance, u, v.position(u), 0.0));
            kdop_start = changes.schedule;
            kdop = Some(hierarchy);
        }
        let grid = match kind {
            BroadPhaseKind::AllPairs | BroadPhaseKind::Kdop => None,
            BroadPhaseKind::HashGrid { .. } => {
                // built to their exact sizes: these are most of the grid's memory (`docs/performance.md`)
                let mut grid = Grid {
                    grid: HashGrid::new(cell),
                    fat: Vec::with_capacity(primitives.len()),
                    anchors: v.positions().to_vec(),
                    large: Vec::new(),
                    half_reach: 0.5 * reach,
                    slack,
                    visited: vec![0; primitives.len()],
                    visit: 0,
                };
                for (i, p) in primitives.iter().enumerate() {
                    let fat = store_box(&grid.fat_box(p, &grid.anchored(p)));
                    grid.fat.push(fat);
                    grid.enter(i as u32, &grid.cells(i as u32));
                }
                Some(grid)
            }
        };
        BroadPhase { primitives, of_vertex, first_of_vertex, grid, kdop, kdop_start }
    }

    /// True for the all-pairs broad phase (every candidate pair always holds a pair).
    pub(super) fn is_all_pairs(&self) -> bool {
        self.grid.is_none() && self.kdop.is_none()
    }

    /// True for the k-DOP hierarchy.
    pub(super) fn is_kdop(&self) -> bool {
        self.kdop.is_some()
    }

    /// Number of live k-DOP front records, each with its certificate (0 otherwise).
    pub(super) fn kdop_certificates(&self) -> usize {
        self.kdop.as_ref().map_or(0, KdopHierarchy::certificates)
    }

    /// The k-DOP front's certificates at the start (record, failure time), once.
    pub(super) fn take_kdop_start(&mut self) -> Vec<(u32, Real)> {
        std::mem::take(&mut self.kdop_start)
    }

    /// A k-DOP front record's certificate fired at `t` ([`KdopHierarchy::event`]).
    pub(super) fn kdop_event(&mut self, id: u32, t: Real, tube: &super::kdop_hierarchy::TubeOf) -> FrontChanges {
        let kdop = self.kdop.as_mut().expect("front events exist only with a k-DOP hierarchy");
        kdop.event(id, t, &self.primitives, tube)
    }

    /// Vertex `u`'s tube was re-centred on `velocity` at `t`: the k-DOP front records it supports
    /// widen their envelopes; their new failure times are appended to `schedule`.
    pub(super) fn kdop_tube_moved(
        &mut self,
        u: VertexId,
        velocity: &Vec3,
        tolerance: Real,
        t: Real,
        schedule: &mut Vec<(u32, Real)>,
    ) {
        if let Some(kdop) = self.kdop.as_mut() {
            let of_vertex =
                &self.of_vertex[self.first_of_vertex[u.index()] as usize..self.first_of_vertex[u.index() + 1] as usize];
            kdop.tube_moved(of_vertex, velocity, tolerance, t, schedule);
        }
    }

    /// The hysteresis of the grid or the k-DOP front, m (0 for all pairs).
    pub(super) fn slack(&self) -> Real {
        match (&self.grid, &self.kdop) {
            (Some(grid), _) => grid.slack,
            (None, Some(kdop)) => kdop.slack(),
            (None, None) => 0.0,
        }
    }

    /// The cell side, if this is a hash grid.
    pub(super) fn cell_size(&self) -> Option<Real> {
        self.grid.as_ref().map(|g| g.grid.cell_size())
    }

    /// Number of occupied cells (0 for all pairs).
    pub(super) fn occupied_cells(&self) -> usize {
        self.grid.as_ref().map_or(0, |g| g.grid.occupied_cells())
    }

    /// Heap bytes held by the primitives with their vertex lists, and by the grid or the k-DOP
    /// hierarchy (an estimate from capacities).
    pub(super) fn heap_bytes(&self) -> (usize, usize) {
        let primitives = self.primitives.capacity() * std::mem::size_of::<Primitive>();
        let of_vertex = (self.of_vertex.capacity() + self.first_of_vertex.capacity()) * 4;
        let grid = self.grid.as_ref().map_or(0, |g| {
            g.grid.heap_bytes()
                + g.fat.capacity() * std::mem::size_of::<StoredBox>()
                + g.anchors.capacity() * std::mem::size_of::<Vec3>()
                + g.large.capacity() * 4
                + g.visited.capacity() * 4
        });
        let kdop = self.kdop.as_ref().map_or(0, KdopHierarchy::heap_bytes);
        (primitives + of_vertex, grid + kdop)
    }

    /// Number of primitives.
    pub(super) fn len(&self) -> usize {
        self.primitives.len()
    }

    /// The primitives vertex `u` belongs to.
    pub(super) fn primitives_of(&self, u: VertexId) -> &[u32] {
        &self.of_vertex[self.first_of_vertex[u.index()] as usize..self.first_of_vertex[u.index() + 1] as usize]
    }

    /// The radius of primitive `i` (0 but for spheres), m.
    pub(super) fn radius(&self, i: u32) -> Real {
        self.primitives[i as usize].radius()
    }

    /// The vertices of primitive `i`.
    pub(super) fn vertices(&self, i: u32) -> &[VertexId] {
        self.primitives[i as usize].vertices()
    }

    /// True if vertex `u` is on the hash grid and can move (so it has a certificate): it is in a
    /// primitive that is not fixed.
    pub(super) fn is_kinetic(&self, u: VertexId) -> bool {
        self.grid.is_some() && self.primitives_of(u).iter().any(|&i| !self.primitives[i as usize].fixed)
    }

    /// The contact pair between primitives `i` < `j`, if they form one.
    pub(super) fn pair_kind(&self, i: u32, j: u32) -> Option<PairKind> {
        let (a, b) = (&self.primitives[i as usize], &self.primitives[j as usize]);
        if a.vertices().iter().any(|u| b.vertices().contains(u)) || (a.held && b.held) {
            return None;
        }
        Self::kind_of_shapes(a, b)
    }

    /// The kind of the pair that primitives `i` < `j` hold ([`BroadPhase::pair_kind`] made it).
    pub(super) fn kind_of_pair(&self, i: u32, j: u32) -> PairKind {
        let (a, b) = (&self.primitives[i as usize], &self.primitives[j as usize]);
        Self::kind_of_shapes(a, b).expect("a pair's primitives form one")
    }

    /// The pair kind of two primitives by their shapes (`None` for shapes that do not touch).
    fn kind_of_shapes(a: &Primitive, b: &Primitive) -> Option<PairKind> {
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

    /// The primitive pairs (i < j, in order) that hold a contact pair at the start: all candidate
    /// pairs, those whose anchored shapes are near, or the overlapping leaf pairs of the k-DOP
    /// front.
    pub(super) fn initial_pairs(&self) -> Vec<(u32, u32)> {
        if let Some(kdop) = &self.kdop {
            let pairs = kdop.overlapping_pairs().into_iter();
            return pairs.filter(|&(i, j)| self.pair_kind(i, j).is_some()).collect();
        }
        let n = self.primitives.len() as u32;
        let mut out = Vec::new();
        for i in 0..n {
            let partners: Vec<u32> = match &self.grid {
                None => (i + 1..n).collect(),
                Some(grid) => {
                    let mine = &grid.cells(i);
                    let candidates: Vec<u32> = if mine.len() > LARGE_CELLS {
                        (i + 1..n).collect()
                    } else {
                        let listed = mine.cells().flat_map(|c| grid.grid.occupants(&c).iter().copied());
                        listed.chain(grid.large.iter().copied()).filter(|&j| j > i).collect()
                    };
                    let mut js: Vec<u32> =
                        candidates.into_iter().filter(|&j| grid.near(&self.primitives, i, j)).collect();
                    js.sort_unstable();
                    js.dedup();
                    js
                }
            };
            out.extend(partners.into_iter().filter(|&j| self.pair_kind(i, j).is_some()).map(|j| (i, j)));
        }
        out
    }

    /// True while primitives `i` and `j` must hold a pair (always, for all pairs).
    pub(super) fn overlap(&self, i: u32, j: u32) -> bool {
        if let Some(kdop) = &self.kdop {
            return kdop.overlapping(i, j);
        }
        self.grid.as_ref().is_none_or(|g| g.near(&self.primitives, i, j))
    }

    /// Vertex `u`'s certificate failed at `t` (its tube from `t`: `tube`): re-anchor it and
    /// re-cover its primitives.
    pub(super) fn reanchor(&mut self, u: VertexId, t: Real, model: &Model, tube: &VagueTrajectory) -> Reanchored {
        let BroadPhase { primitives, of_vertex, first_of_vertex, grid, .. } = self;
        let grid = grid.as_mut().expect("grid events exist only with a hash grid");
        let old_anchor = grid.anchors[u.index()];
        grid.anchors[u.index()] = model.vertices.position_at(u, t);
        // re-cover each primitive on `u`, keeping what it was
        let mine = &of_vertex[first_of_vertex[u.index()] as usize..first_of_vertex[u.index() + 1] as usize];
        let mut moved: SmallVec<[Moved; 16]> = SmallVec::new();
        for &i in mine {
            let p = &primitives[i as usize];
            let new_anchors = grid.anchored(p);
            let old_anchors =
                p.vertices().iter().zip(&new_anchors).map(|(&w, &x)| if w == u { old_anchor } else { x }).collect();
            let (old_fat, old_cells) = (grid.fat[i as usize], grid.cells(i));
            grid.fat[i as usize] = store_box(&grid.fat_box(p, &new_anchors));
            let (new_fat, new_cells) = (grid.fat[i as usize], grid.cells(i));
            if new_cells != old_cells {
                grid.leave(i, &old_cells);
                grid.enter(i, &new_cells);
            }
            moved.push(Moved { i, old_anchors, new_anchors, old_fat, new_fat, old_cells, new_cells });
        }
        // a primitive another one gained or lost has a fat box touching its new or old one, so it
        // is listed in a cell of their union (or on the large list): one scan of the cells the
        // union's box touches tests each candidate once against every primitive on `u` (whose
        // cells mostly coincide). A candidate on `u` shares a vertex with them: never a pair
        let (mut gained, mut lost) = (Vec::new(), Vec::new());
        let Some(first) = moved.first() else {
            return Reanchored { gained, lost, exit: self.exit(u, t, tube) };
        };
        let mut union = (first.old_cells, first.old_fat);
        for m in &moved {
            for (cells, fat) in [(m.old_cells, m.old_fat), (m.new_cells, m.new_fat)] {
                union.0 = CellBox {
                    lo: std::array::from_fn(|c| union.0.lo[c].min(cells.lo[c])),
                    hi: std::array::from_fn(|c| union.0.hi[c].max(cells.hi[c])),
                };
                union.1 = std::array::from_fn(|c| if c < 3 { union.1[c].min(fat[c]) } else { union.1[c].max(fat[c]) });
            }
        }
        let visit = grid.next_visit();
        let bound = grid.near_bound();
        let Grid { grid: hash, fat, anchors, large, visited, .. } = &mut *grid;
        let mut test = |j: u32| {
            if std::mem::replace(&mut visited[j as usize], visit) == visit {
                return;
            }
            let other = &fat[j as usize];
            if !boxes_overlap(&union.1, other) {
                return;
            }
            let q = &primitives[j as usize];
            if q.vertices().contains(&u) {
                return;
            }
            let xq: SmallVec<[Vec3; 3]> = q.vertices().iter().map(|w| anchors[w.index()]).collect();
            for m in &moved {
                let (now_box, before_box) = (boxes_overlap(&m.new_fat, other), boxes_overlap(&m.old_fat, other));
                if !now_box && !before_box {
                    continue;
                }
                let p = &primitives[m.i as usize];
                let now = now_box && anchored_near(p, &m.new_anchors, q, &xq, bound);
                let before = before_box && anchored_near(p, &m.old_anchors, q, &xq, bound);
                if now && !before {
                    gained.push((m.i.min(j), m.i.max(j)));
                } else if before && !now {
                    lost.push((m.i.min(j), m.i.max(j)));
                }
            }
        };
        let each_small = moved.iter().all(|m| m.old_cells.len() <= LARGE_CELLS && m.new_cells.len() <= LARGE_CELLS);
        if !each_small {
            (0..fat.len() as u32).for_each(&mut test);
        } else {
            if union.0.len() <= LARGE_CELLS {
                for cell in union.0.cells() {
                    hash.occupants(&cell).iter().for_each(|&j| test(j));
                }
            } else {
                // cells much smaller than the primitives: their boxes, one by one
                for m in &moved {
                    for cell in m.old_cells.cells().chain(m.new_cells.cells()) {
                        hash.occupants(&cell).iter().for_each(|&j| test(j));
                    }
                }
            }
            large.iter().for_each(|&j| test(j));
        }
        gained.sort_unstable();
        lost.sort_unstable();
        Reanchored { gained, lost, exit: self.exit(u, t, tube) }
    }

    /// When vertex `u` (its tube from `t`) may first get farther than the slack from its anchor,
    /// s (+∞: never).
    pub(super) fn exit(&self, u: VertexId, t: Real, tube: &VagueTrajectory) -> Real {
        let grid = self.grid.as_ref().expect("only with a hash grid");
        t + tube.ball_exit_time(&grid.anchors[u.index()], grid.slack)
    }
}

/// What re-anchoring a vertex changed ([`BroadPhase::reanchor`]).
pub(super) struct Reanchored {
    /// The primitive pairs (i < j) now near that were not, sorted.
    pub(super) gained: Vec<(u32, u32)>,
    /// The primitive pairs (i < j) near before that no longer are, sorted.
    pub(super) lost: Vec<(u32, u32)>,
    /// The vertex's next failure time, s (+∞: never).
    pub(super) exit: Real,
}

/// A primitive re-covered when one of its vertices was re-anchored: its anchors, fat box and
/// cells before and after.
struct Moved {
    i: u32,
    old_anchors: SmallVec<[Vec3; 3]>,
    new_anchors: SmallVec<[Vec3; 3]>,
    old_fat: StoredBox,
    new_fat: StoredBox,
    old_cells: CellBox,
    new_cells: CellBox,
}

impl Grid {
    /// Starts a new scan: a number no primitive's [`Grid::visited`] holds yet.
    fn next_visit(&mut self) -> u32 {
        self.visit = self.visit.wrapping_add(1);
        if self.visit == 0 {
            self.visited.fill(0);
            self.visit = 1;
        }
        self.visit
    }

    /// Enters primitive `i` with `cells` into the hash map, or the large list.
    fn enter(&mut self, i: u32, cells: &CellBox) {
        if cells.len() > LARGE_CELLS {
            let at = self.large.partition_point(|&j| j < i);
            self.large.insert(at, i);
        } else {
            self.grid.insert(i, cells);
        }
    }

    /// Takes primitive `i` with `cells` out of the hash map, or the large list.
    fn leave(&mut self, i: u32, cells: &CellBox) {
        if cells.len() > LARGE_CELLS {
            self.large.retain(|&j| j != i);
        } else {
            self.grid.remove(i, cells);
        }
    }

    /// The anchors of primitive `p`'s vertices, in its vertex order.
    fn anchored(&self, p: &Primitive) -> SmallVec<[Vec3; 3]> {
        p.vertices().iter().map(|u| self.anchors[u.index()]).collect()
    }

    /// The cells primitive `i`'s fat box touches: where it is listed.
    fn cells(&self, i: u32) -> CellBox {
        let (lo, hi) = load_box(&self.fat[i as usize]);
        self.grid.cover(&lo, &hi)
    }

    /// The largest gap between anchored shapes at which a pair exists: the reach plus twice the
    /// slack, widened by a relative 10⁻⁹ against round-off in the distance code.
    fn near_bound(&self) -> Real {
        (2.0 * self.half_reach + 2.0 * self.slack) * (1.0 + 1e-9)
    }

    /// True while primitives `i` and `j` must hold a pair: their fat boxes overlap and their
    /// anchored shapes are nearer than [`Grid::near_bound`].
    fn near(&self, primitives: &[Primitive], i: u32, j: u32) -> bool {
        let (a, b) = (&primitives[i as usize], &primitives[j as usize]);
        boxes_overlap(&self.fat[i as usize], &self.fat[j as usize])
            && anchored_near(a, &self.anchored(a), b, &self.anchored(b), self.near_bound())
    }

    /// The fat box of primitive `p` anchored at `anchors`: their bounding box inflated by its
    /// radius, half the reach and the slack.
    fn fat_box(&self, p: &Primitive, anchors: &[Vec3]) -> FatBox {
        let mut lo = Vec3::repeat(Real::INFINITY);
        let mut hi = Vec3::repeat(Real::NEG_INFINITY);
        for x in anchors {
            lo = lo.inf(x);
            hi = hi.sup(x);
        }
        let margin = Vec3::repeat(p.radius() + self.half_reach + self.slack);
        (lo - margin, hi + margin)
    }
}

/// True if primitives `a` at `xa` and `b` at `xb` are of kinds that form a contact pair (a
/// triangle with a point or sphere, two segments, two spheres) and their gap (distance less
/// radii) is below `bound`.
fn anchored_near(a: &Primitive, xa: &[Vec3], b: &Primitive, xb: &[Vec3], bound: Real) -> bool {
    let gap = match (a.shape, b.shape) {
        (Shape::Triangle, Shape::Point | Shape::Sphere) => {
            distance_point_triangle(xb[0], xa[0], xa[1], xa[2]) - b.radius()
        }
        (Shape::Point | Shape::Sphere, Shape::Triangle) => {
            distance_point_triangle(xa[0], xb[0], xb[1], xb[2]) - a.radius()
        }
        (Shape::Segment, Shape::Segment) => distance_edge_edge(xa[0], xa[1], xb[0], xb[1]),
        (Shape::Sphere, Shape::Sphere) => distance_point_point(xa[0], xb[0]) - a.radius() - b.radius(),
        _ => return false,
    };
    gap < bound
}

/// The vague tube of vertex `u` from its position `x0` at `t` (ACM §5.3) and the next change of its nominal velocity
/// (+∞: none): a free vertex's tube is centred on its reference velocity with tolerance
/// `tolerance`; a fixed vertex stands still; a scripted one follows its path exactly until the
/// path's next start or stop.
pub(super) fn vertex_tube(
    model: &Model,
    reference_velocity: &[Vec3],
    tolerance: Real,
    u: VertexId,
    x0: Vec3,
    t: Real,
) -> (VagueTrajectory, Real) {
    let v = &model.vertices;
    // a vertex free until a script starts changes its nominal velocity then
    let capture = match v.motion(u) {
        Motion::FreeUntil(path) if path.start > t => path.start,
        _ => Real::INFINITY,
    };
    match v.motion_at(u, t) {
        Motion::Free | Motion::FreeUntil(_) => {
            (VagueTrajectory { x0, v0: reference_velocity[u.index()], tolerance }, capture)
        }
        Motion::Fixed => (VagueTrajectory::linear(x0, Vec3::zeros()), Real::INFINITY),
        Motion::Scripted(path) => {
            let next = [path.start, path.stop].into_iter().filter(|&c| c > t).fold(Real::INFINITY, Real::min);
            (VagueTrajectory::linear(x0, path.velocity(t)), next)
        }
    }
}

/// The default hysteresis of the broad phase for cells of side `cell` (the scene's or the default
/// one), m: a twentieth of a cell for the hash grid, a tenth of the default cell for the k-DOP
/// hierarchy. Measured on `spikes` (`docs/performance.md`): the grid's pairs multiply once twice
/// its slack plus the reach passes the mesh spacing (a tenth of a cell: 3.6× the pairs and
/// 1.3× slower at the landing), while the k-DOP front holds the same records either way and a
/// twentieth makes 1.4× its events.
pub(super) fn default_slack(kind: BroadPhaseKind, cell: Real) -> Real {
    match kind {
        BroadPhaseKind::HashGrid { .. } => 0.05 * cell,
        BroadPhaseKind::Kdop | BroadPhaseKind::AllPairs => 0.1 * cell,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Body, BodyKind};

    /// The pairs (i < j) of spheres (radius `r`) with sphere `i` whose anchored centres are
    /// nearer than 2·`r` + reach + 2·slack, found by testing every one with the distance of
    /// centres.
    fn overlapping(broad: &BroadPhase, i: u32, r: Real) -> Vec<(u32, u32)> {
        let grid = broad.grid.as_ref().unwrap();
        let bound = 2.0 * r + 2.0 * grid.half_reach + 2.0 * grid.slack;
        let centre = |j: u32| grid.anchors[broad.primitives[j as usize].vertices()[0].index()];
        (0..grid.fat.len() as u32)
            .filter(|&j| j != i && (centre(j) - centre(i)).norm() < bound)
            .map(|j| (i.min(j), i.max(j)))
            .collect()
    }

    #[test]
    fn a_primitive_is_16_bytes_and_keeps_a_sphere_radius_exactly() {
        assert_eq!(std::mem::size_of::<Primitive>(), 16);
        for radius in [0.1, 1.0 / 3.0, 7.25e-9, 123.456] {
            let sphere = Primitive::new(Shape::Sphere, &[VertexId(7)], radius, false, false);
            assert_eq!((sphere.radius(), sphere.vertices()), (radius, &[VertexId(7)][..]));
        }
        let triangle = Primitive::new(Shape::Triangle, &[VertexId(1), VertexId(2), VertexId(3)], 0.0, false, false);
        assert_eq!((triangle.radius(), triangle.vertices()), (0.0, &[VertexId(1), VertexId(2), VertexId(3)][..]));
    }

    /// A re-anchoring's gained and lost lists are the change of the brute-force set of near
    /// spheres, across cell changes and across the wrap-around of the visit stamps.
    #[test]
    fn a_recover_gains_and_loses_what_testing_every_primitive_finds() {
        // 64 spheres on a jittered lattice, with scattered velocities
        let n = 64;
        let positions: Vec<Vec3> = (0..n)
            .map(|k| {
                let (i, j, l) = ((k % 4) as Real, ((k / 4) % 4) as Real, (k / 16) as Real);
                Vec3::new(0.3 * i + 0.05 * (k as Real * 1.3).sin(), 0.3 * j, 0.3 * l + 0.05 * (k as Real).cos())
            })
            .collect();
        let velocities: Vec<Vec3> = (0..n)
            .map(|k| Vec3::new((k as Real * 2.1).sin(), (k as Real * 0.7).cos(), (k as Real * 1.9).sin()))
            .collect();
        let mut model = Model::new();
        model.add_body(
            Body::new("balls", BodyKind::Particles { radius: 0.05 }),
            &positions,
            &velocities,
            &vec![1.0; n],
        );
        let mut broad = BroadPhase::new(&model, BroadPhaseKind::HashGrid { cell_size: Some(0.2) }, 0.02, 0.0, None);
        // the next scans cross the stamps' wrap-around
        broad.grid.as_mut().unwrap().visit = u32::MAX - 20;
        let (mut gains, mut losses) = (0, 0);
        for step in 1..=200 {
            let t = 0.005 * step as Real;
            let i = (step * 37 % n) as u32;
            let u = broad.primitives[i as usize].vertices()[0];
            let before = overlapping(&broad, i, 0.05);
            let tube = VagueTrajectory::linear(model.vertices.position_at(u, t), model.vertices.velocity(u));
            let Reanchored { gained, lost, exit } = broad.reanchor(u, t, &model, &tube);
            assert!(exit > t, "step {step}: a re-anchored vertex is inside its ball");
            let after = overlapping(&broad, i, 0.05);
            let expected_gained: Vec<(u32, u32)> = after.iter().copied().filter(|j| !before.contains(j)).collect();
            let expected_lost: Vec<(u32, u32)> = before.iter().copied().filter(|j| !after.contains(j)).collect();
            assert_eq!(gained, expected_gained, "step {step}: gained");
            assert_eq!(lost, expected_lost, "step {step}: lost");
            (gains, losses) = (gains + gained.len(), losses + lost.len());
        }
        assert!(broad.grid.as_ref().unwrap().visit < 1000, "the stamps wrapped around");
        assert!(gains > 10 && losses > 10, "the spheres met and parted: {gains} gained, {losses} lost");
    }

    /// On meshes a vertex is in several primitives: after every re-anchoring, the pairs kept up
    /// to date by the gained and lost lists are those that testing every primitive pair finds.
    #[test]
    fn re_anchoring_mesh_vertices_keeps_the_near_pairs_of_testing_every_pair() {
        // two 5×5 sheets 4 mm apart, each vertex with its own velocity
        let sheet = crate::mesh::grid([0.04, 0.04], [4, 4]).unwrap();
        let mut model = Model::new();
        for (name, dz) in [("low", 0.0), ("high", 0.004)] {
            let positions: Vec<Vec3> = sheet.positions.iter().map(|x| x + Vec3::z() * dz).collect();
            let velocities: Vec<Vec3> = (0..positions.len())
                .map(|k| {
                    let k = k as Real + 10.0 * dz;
                    Vec3::new((k * 2.3).sin(), (k * 0.9).cos(), 0.5 * (k * 1.7).sin()) * 0.05
                })
                .collect();
            let masses = vec![1.0; positions.len()];
            let body = Body::new(name, BodyKind::Shell { triangles: sheet.triangles.clone() });
            model.add_body(body, &positions, &velocities, &masses);
        }
        // cells of about an edge, and cells so small that the boxes of a vertex's primitives
        // together touch more than LARGE_CELLS cells while each touches fewer
        for cell in [0.012, 0.001] {
            let kind = BroadPhaseKind::HashGrid { cell_size: Some(cell) };
            let mut broad = BroadPhase::new(&model, kind, 0.003, 0.0, Some(0.001));
            let every_near_pair = |broad: &BroadPhase| -> Vec<(u32, u32)> {
                let n = broad.len() as u32;
                let grid = broad.grid.as_ref().unwrap();
                (0..n)
                    .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                    .filter(|&(i, j)| broad.pair_kind(i, j).is_some() && grid.near(&broad.primitives, i, j))
                    .collect()
            };
            let mut kept: std::collections::BTreeSet<(u32, u32)> = broad.initial_pairs().into_iter().collect();
            assert_eq!(kept.iter().copied().collect::<Vec<_>>(), every_near_pair(&broad));
            let (mut gains, mut losses) = (0, 0);
            for step in 1..=150 {
                let t = 0.01 * step as Real;
                let u = VertexId((step * 7 % model.vertices.len()) as u32);
                let tube = VagueTrajectory::linear(model.vertices.position_at(u, t), model.vertices.velocity(u));
                let change = broad.reanchor(u, t, &model, &tube);
                for pair in &change.lost {
                    assert!(kept.remove(pair), "step {step}: lost {pair:?}, which was not near");
                }
                for &pair in &change.gained {
                    if broad.pair_kind(pair.0, pair.1).is_some() {
                        assert!(kept.insert(pair), "step {step}: gained {pair:?}, which was near already");
                    }
                }
                assert_eq!(
                    kept.iter().copied().collect::<Vec<_>>(),
                    every_near_pair(&broad),
                    "cell {cell}, step {step}"
                );
                (gains, losses) = (gains + change.gained.len(), losses + change.lost.len());
            }
            assert!(gains > 10 && losses > 10, "the sheets' primitives met and parted: {gains} gained, {losses} lost");
        }
    }
}
