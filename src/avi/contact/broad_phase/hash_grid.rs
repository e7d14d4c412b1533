//! The kinetic hash grid (Phantom §4), the default broad phase.
//!
//! Each vertex keeps its *anchor*: where it was when it was last anchored. Its certificate fails
//! when its vague tube may leave the ball of radius `slack` around the anchor; it is then
//! re-anchored, and its primitives re-covered, unless the tube from where it is now stays in the
//! ball for a while yet, when the certificate is only renewed (a vertex resting in contact, whose
//! tube is much wider than its motion, keeps its anchor). Until then every point of a primitive
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
//! re-centres the vertex's tube; a re-anchoring re-covers the vertex's primitives together. A
//! vertex's certificate is filed in the queue under the vertex's index.

use super::kinetic::{BroadPhaseChange, KineticBroadPhase};
use super::primitives::Primitives;
use crate::avi::contact::pair::{Primitive, Shape};
use crate::avi::contact::schedule::Schedule;
use crate::avi::contact::tube::TubeOf;
use crate::geometry::distance::{distance_edge_edge, distance_point_point, distance_point_triangle};
use crate::ids::VertexId;
use crate::kds::hash_grid::{CellBox, HashGrid};
use crate::kds::VagueTrajectory;
use crate::math::{Real, Time, Vec3};
use crate::model::Model;
use smallvec::SmallVec;

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
/// since widening is exact, without converting). All six comparisons are made and combined
/// without branches: a re-cover tests dozens of boxes whose answers a branch predictor cannot
/// guess (a third of the re-cover's time went to mispredicted early exits).
fn boxes_overlap(a: &StoredBox, b: &StoredBox) -> bool {
    (a[0] <= b[3]) & (b[0] <= a[3]) & (a[1] <= b[4]) & (b[1] <= a[4]) & (a[2] <= b[5]) & (b[2] <= a[5])
}

/// A vertex whose certificate failed is not re-anchored while the tube from where it is now stays
/// in its anchor's slack ball for at least this fraction of the time a tube from the anchor would
/// ([`KineticGrid::exit`]): the certificate is renewed instead. A renewal costs an event; a
/// re-anchoring re-covers a dozen primitives (about 30 times an event's cost on the knots,
/// `docs/performance.md`), and vertices at rest in contact, whose tubes are much wider than
/// their motion, stay near their anchors for long.
const RENEWAL_FRACTION: Real = 0.1;

/// A primitive whose cell box holds more cells than this (a large obstacle triangle, say) is not
/// entered cell by cell: it sits on a short list checked against every moving primitive, with the
/// same overlap rule.
const LARGE_CELLS: u64 = 4096;
/// The hash grid's state: every primitive's cell box, and the margins that decide them.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub(in crate::avi::contact) struct KineticGrid {
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
    /// For each primitive, the last [`KineticGrid::visit`] that tested it: a primitive listed in several
    /// of the cells a re-cover scans is tested once.
    visited: Vec<u32>,
    /// The number of the current re-cover's scan (0: none yet).
    visit: u32,
}
impl KineticGrid {
    /// The grid of cells of side `cell` over `primitives`, each placed in the cells of its fat box
    /// around its vertices' positions `x` (their first anchors); `reach` is the gap below which a
    /// pair must exist, `slack` the hysteresis (m).
    pub(super) fn new(primitives: &Primitives, x: &[Vec3], cell: Real, reach: Real, slack: Real) -> Self {
        let n = primitives.len();
        // built to their exact sizes: these are most of the grid's memory (`docs/performance.md`)
        let mut grid = KineticGrid {
            grid: HashGrid::new(cell),
            fat: Vec::with_capacity(n),
            anchors: x.to_vec(),
            large: Vec::new(),
            half_reach: 0.5 * reach,
            slack,
            visited: vec![0; n],
            visit: 0,
        };
        for (i, p) in primitives.all().iter().enumerate() {
            let fat = store_box(&grid.fat_box(p, &grid.anchored(p)));
            grid.fat.push(fat);
            grid.enter(i as u32, &grid.cells(i as u32));
        }
        grid
    }

    /// True if vertex `u` can move on the grid (so it has a certificate): it is in a primitive
    /// that is not fixed.
    fn is_kinetic(&self, primitives: &Primitives, u: VertexId) -> bool {
        primitives.of_vertex(u).iter().any(|&i| !primitives.get(i).fixed)
    }

    /// Asks the queue for vertex `u`'s certificate at its exit time from `t` (capped at the next
    /// change of its nominal velocity), if it ever fails.
    fn request(&self, u: VertexId, t: Real, tube: &TubeOf) -> Option<Schedule> {
        let (trajectory, next_change) = tube(u);
        let at = self.exit(u, t, &trajectory).min(next_change);
        at.is_finite().then(|| Schedule::BroadPhase(u.0, Time::new(at).expect("finite")))
    }

    /// Vertex `u`'s certificate failed at `t` (its tube from `t`: `tube`): re-anchor it and
    /// re-cover its primitives.
    pub(super) fn reanchor(
        &mut self,
        u: VertexId,
        t: Real,
        primitives: &Primitives,
        model: &Model,
        tube: &VagueTrajectory,
    ) -> Reanchored {
        let grid = self;
        let old_anchor = grid.anchors[u.index()];
        grid.anchors[u.index()] = model.vertices.position_at(u, t);
        // re-cover each primitive on `u`, keeping what it was
        let mine = primitives.of_vertex(u);
        let mut moved: SmallVec<[Moved; 16]> = SmallVec::new();
        for &i in mine {
            let p = primitives.get(i);
            let new_anchors = grid.anchored(p);
            let mut old_anchors = new_anchors;
            for (x, &w) in old_anchors.iter_mut().zip(p.vertices()) {
                if w == u {
                    *x = old_anchor;
                }
            }
            let (old_fat, old_cells) = (grid.fat[i as usize], grid.cells(i));
            grid.fat[i as usize] = store_box(&grid.fat_box(p, &new_anchors));
            let (new_fat, new_cells) = (grid.fat[i as usize], grid.cells(i));
            if new_cells != old_cells {
                grid.leave(i, &old_cells);
                grid.enter(i, &new_cells);
            }
            moved.push(Moved { i, old_anchors, new_anchors, old_fat, new_fat, old_cells, new_cells });
        }
        // grouped by shape: a candidate is tested only against the moved primitives it can pair with
        moved.sort_by_key(|m| shape_rank(primitives.get(m.i).shape));
        let ends = [0, 1, 2].map(|r| moved.partition_point(|m| shape_rank(primitives.get(m.i).shape) <= r));
        let (points, segments, triangles) = (&moved[..ends[0]], &moved[ends[0]..ends[1]], &moved[ends[1]..]);
        // a primitive another one gained or lost has a fat box touching its new or old one, so it
        // is listed in a cell of their union (or on the large list): one scan of the cells the
        // union's box touches tests each candidate once against every primitive on `u` (whose
        // cells mostly coincide). A candidate on `u` shares a vertex with them: never a pair
        let (mut gained, mut lost) = (Vec::new(), Vec::new());
        let Some(first) = moved.first() else {
            return Reanchored { gained, lost, exit: grid.exit(u, t, tube) };
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
        let shift = (grid.anchors[u.index()] - old_anchor).norm();
        // far above the distance code's round-off, far below any gap that matters
        let leeway = 1e-9 * bound;
        let KineticGrid { grid: hash, fat, anchors, large, visited, .. } = &mut *grid;
        let mut test = |j: u32| {
            if std::mem::replace(&mut visited[j as usize], visit) == visit {
                return;
            }
            let other = &fat[j as usize];
            if !boxes_overlap(&union.1, other) {
                return;
            }
            let q = primitives.get(j);
            if q.vertices().contains(&u) {
                return;
            }
            // q's anchors, taken once a moved primitive's box meets q's
            let mut xq: Option<Anchors> = None;
            let (first, second): (&[Moved], &[Moved]) = match q.shape {
                Shape::Triangle => (points, &[]),
                Shape::Segment => (segments, &[]),
                Shape::Point => (triangles, &[]),
                Shape::Sphere => (points, triangles),
            };
            for m in first.iter().chain(second) {
                let (now_box, before_box) = (boxes_overlap(&m.new_fat, other), boxes_overlap(&m.old_fat, other));
                if !now_box && !before_box {
                    continue;
                }
                let p = primitives.get(m.i);
                // primitives that share a vertex never form a pair (`PairKind::of_primitives`):
                // on a mesh they are most of the candidates within the bound
                if !p.shape.pairs_with(q.shape) || p.vertices().iter().any(|w| q.vertices().contains(w)) {
                    continue;
                }
                let xq = xq.get_or_insert_with(|| anchors_of(anchors, q));
                let gap_now = if now_box { anchored_gap(p, &m.new_anchors, q, xq) } else { None };
                let now = gap_now.is_some_and(|g| g < bound);
                // moving one vertex by `shift` moves every point of `p` by at most that: the gap
                // before is within `shift` of the gap now, and needs computing only near the bound
                let before = before_box
                    && match gap_now {
                        Some(g) if g < bound - shift - leeway => true,
                        Some(g) if g >= bound + shift + leeway => false,
                        _ => anchored_gap(p, &m.old_anchors, q, xq).is_some_and(|g| g < bound),
                    };
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
        Reanchored { gained, lost, exit: grid.exit(u, t, tube) }
    }

    /// When vertex `u` (its tube from `t`) may first get farther than the slack from its anchor,
    /// s (+∞: never).
    pub(super) fn exit(&self, u: VertexId, t: Real, tube: &VagueTrajectory) -> Real {
        t + tube.ball_exit_time(&self.anchors[u.index()], self.slack)
    }

    /// The primitive pairs (i < j, in order) whose fat boxes share a cell and whose anchored
    /// shapes are near.
    fn near_pairs(&self, primitives: &Primitives) -> Vec<(u32, u32)> {
        let n = primitives.len() as u32;
        let mut out = Vec::new();
        for i in 0..n {
            let mine = &self.cells(i);
            let candidates: Vec<u32> = if mine.len() > LARGE_CELLS {
                (i + 1..n).collect()
            } else {
                let listed = mine.cells().flat_map(|c| self.grid.occupants(&c).iter().copied());
                listed.chain(self.large.iter().copied()).filter(|&j| j > i).collect()
            };
            let mut js: Vec<u32> = candidates.into_iter().filter(|&j| self.near(primitives, i, j)).collect();
            js.sort_unstable();
            js.dedup();
            out.extend(js.into_iter().map(|j| (i, j)));
        }
        out
    }
}

/// What re-anchoring a vertex changed ([`KineticGrid::reanchor`]).
pub(super) struct Reanchored {
    /// The primitive pairs (i < j) now near that were not, sorted.
    pub(super) gained: Vec<(u32, u32)>,
    /// The primitive pairs (i < j) near before that no longer are, sorted.
    pub(super) lost: Vec<(u32, u32)>,
    /// The vertex's next failure time, s (+∞: never).
    pub(super) exit: Real,
}

/// The order in which a re-anchoring groups its moved primitives: points and spheres, segments,
/// triangles.
fn shape_rank(shape: Shape) -> u8 {
    match shape {
        Shape::Point | Shape::Sphere => 0,
        Shape::Segment => 1,
        Shape::Triangle => 2,
    }
}

/// A primitive's vertices' anchors in its vertex order, padded with the last one to three (a
/// fixed array: re-covers take a dozen of them per event, without a small vector's bookkeeping).
type Anchors = [Vec3; 3];

/// Primitive `p`'s anchors from the table of every vertex's, `anchors`.
fn anchors_of(anchors: &[Vec3], p: &Primitive) -> Anchors {
    let vertices = p.vertices();
    std::array::from_fn(|k| anchors[vertices[k.min(vertices.len() - 1)].index()])
}

/// A primitive re-covered when one of its vertices was re-anchored: its anchors, fat box and
/// cells before and after.
struct Moved {
    i: u32,
    old_anchors: Anchors,
    new_anchors: Anchors,
    old_fat: StoredBox,
    new_fat: StoredBox,
    old_cells: CellBox,
    new_cells: CellBox,
}

impl KineticGrid {
    /// Starts a new scan: a number no primitive's [`KineticGrid::visited`] holds yet.
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
    fn anchored(&self, p: &Primitive) -> Anchors {
        anchors_of(&self.anchors, p)
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
    /// anchored shapes are nearer than [`KineticGrid::near_bound`].
    fn near(&self, primitives: &Primitives, i: u32, j: u32) -> bool {
        let (a, b) = (primitives.get(i), primitives.get(j));
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
    anchored_gap(a, xa, b, xb).is_some_and(|gap| gap < bound)
}

/// The gap (distance less radii) between primitives `a` at `xa` and `b` at `xb`, if they are of
/// kinds that form a contact pair (a triangle with a point or sphere, two segments, two spheres).
fn anchored_gap(a: &Primitive, xa: &[Vec3], b: &Primitive, xb: &[Vec3]) -> Option<Real> {
    Some(match (a.shape, b.shape) {
        (Shape::Triangle, Shape::Point | Shape::Sphere) => {
            distance_point_triangle(xb[0], xa[0], xa[1], xa[2]) - b.radius()
        }
        (Shape::Point | Shape::Sphere, Shape::Triangle) => {
            distance_point_triangle(xa[0], xb[0], xb[1], xb[2]) - a.radius()
        }
        (Shape::Segment, Shape::Segment) => distance_edge_edge(xa[0], xa[1], xb[0], xb[1]),
        (Shape::Sphere, Shape::Sphere) => distance_point_point(xa[0], xb[0]) - a.radius() - b.radius(),
        _ => return None,
    })
}

impl KineticBroadPhase for KineticGrid {
    fn label(&self) -> &'static str {
        "grid"
    }

    fn candidate_pairs(&self, primitives: &Primitives) -> Vec<(u32, u32)> {
        self.near_pairs(primitives)
    }

    fn start(&mut self, primitives: &Primitives, tube: &TubeOf, out: &mut Vec<Schedule>) {
        for u in (0..self.anchors.len() as u32).map(VertexId) {
            if self.is_kinetic(primitives, u) {
                out.extend(self.request(u, 0.0, tube));
            }
        }
    }

    /// Vertex `id`'s certificate failed: it is re-anchored and its primitives re-covered, and its
    /// next certificate is requested after the pairs gained and lost; or, while its tube from
    /// where it is now stays near its anchor ([`RENEWAL_FRACTION`]), only the certificate is
    /// renewed.
    fn certificate_failed(
        &mut self,
        id: u32,
        t: Real,
        primitives: &Primitives,
        model: &Model,
        tube: &TubeOf,
        _: &mut Vec<Schedule>,
    ) -> BroadPhaseChange {
        let u = VertexId(id);
        let (trajectory, next_change) = tube(u);
        // a vertex still near its anchor keeps it, and so its pairs: only its certificate is
        // renewed, from where it is now
        let exit = self.exit(u, t, &trajectory);
        let from_anchor = self.slack / (trajectory.v0.norm() + trajectory.tolerance);
        if exit > t && exit - t >= RENEWAL_FRACTION * from_anchor {
            let at = exit.min(next_change);
            let renewal = at.is_finite().then(|| Schedule::BroadPhase(id, Time::new(at).expect("finite")));
            return BroadPhaseChange { gained: Vec::new(), lost: Vec::new(), renewal };
        }
        let change = self.reanchor(u, t, primitives, model, &trajectory);
        let at = change.exit.min(next_change);
        let renewal = at.is_finite().then(|| Schedule::BroadPhase(id, Time::new(at).expect("finite")));
        BroadPhaseChange { gained: change.gained, lost: change.lost, renewal }
    }

    fn tube_moved(
        &mut self,
        u: VertexId,
        t: Real,
        _: &Vec3,
        _: Real,
        primitives: &Primitives,
        tube: &TubeOf,
        out: &mut Vec<Schedule>,
    ) {
        if self.is_kinetic(primitives, u) {
            out.extend(self.request(u, t, tube));
        }
    }

    fn overlap(&self, primitives: &Primitives, i: u32, j: u32) -> bool {
        self.near(primitives, i, j)
    }

    /// Every vertex that can move is within the slack of its anchor (its certificate has not
    /// failed late).
    fn audit(&self, primitives: &Primitives, _: Real, x: &dyn Fn(VertexId) -> Vec3) -> Result<(), &'static str> {
        for (u, anchor) in self.anchors.iter().enumerate() {
            let u = VertexId(u as u32);
            if !self.is_kinetic(primitives, u) {
                continue;
            }
            let here = x(u);
            let scale = 1.0 + here.abs().max() + anchor.abs().max();
            if (here - anchor).norm() > self.slack * (1.0 + 1e-9) + 1e-12 * scale {
                return Err("a vertex is farther than the slack from its grid anchor");
            }
        }
        Ok(())
    }

    fn slack(&self) -> Real {
        self.slack
    }

    fn heap_bytes(&self) -> usize {
        self.grid.heap_bytes()
            + self.fat.capacity() * std::mem::size_of::<StoredBox>()
            + self.anchors.capacity() * std::mem::size_of::<Vec3>()
            + self.large.capacity() * 4
            + self.visited.capacity() * 4
    }

    fn cell_size(&self) -> Option<Real> {
        Some(self.grid.cell_size())
    }

    fn occupied_cells(&self) -> usize {
        self.grid.occupied_cells()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Body, BodyKind};

    /// A model's primitives on a hash grid.
    struct Broad {
        primitives: Primitives,
        grid: KineticGrid,
    }

    impl Broad {
        /// Cells of side `cell`, the given reach and slack, m.
        fn new(model: &Model, cell: Real, reach: Real, slack: Real) -> Broad {
            let (primitives, _, _) = Primitives::of_model(model);
            let grid = KineticGrid::new(&primitives, model.vertices.positions(), cell, reach, slack);
            Broad { primitives, grid }
        }

        /// The near pairs at the start that form a contact pair.
        fn initial_pairs(&self) -> Vec<(u32, u32)> {
            let pairs = self.grid.near_pairs(&self.primitives);
            pairs.into_iter().filter(|&(i, j)| self.primitives.pair_kind(i, j).is_some()).collect()
        }
    }

    fn grid(broad: &Broad) -> &KineticGrid {
        &broad.grid
    }

    fn reanchor(broad: &mut Broad, u: VertexId, t: Real, model: &Model, tube: &VagueTrajectory) -> Reanchored {
        broad.grid.reanchor(u, t, &broad.primitives, model, tube)
    }

    /// The pairs (i < j) of spheres (radius `r`) with sphere `i` whose anchored centres are
    /// nearer than 2·`r` + reach + 2·slack, found by testing every one with the distance of
    /// centres.
    fn overlapping(broad: &Broad, i: u32, r: Real) -> Vec<(u32, u32)> {
        let grid = grid(broad);
        let bound = 2.0 * r + 2.0 * grid.half_reach + 2.0 * grid.slack;
        let centre = |j: u32| grid.anchors[broad.primitives.get(j).vertices()[0].index()];
        (0..grid.fat.len() as u32)
            .filter(|&j| j != i && (centre(j) - centre(i)).norm() < bound)
            .map(|j| (i.min(j), i.max(j)))
            .collect()
    }

    #[test]
    fn the_audit_catches_a_vertex_that_left_its_anchor_s_slack_ball() {
        let mut model = Model::new();
        let centres = [Vec3::zeros(), Vec3::x()];
        model.add_body(
            Body::new("balls", BodyKind::Particles { radius: 0.1 }),
            &centres,
            &[Vec3::zeros(); 2],
            &[1.0; 2],
        );
        let broad = Broad::new(&model, 0.5, 0.02, 0.01);
        let at = |shift: Real| move |u: VertexId| centres[u.index()] + Vec3::y() * if u.0 == 1 { shift } else { 0.0 };
        assert!(broad.grid.audit(&broad.primitives, 0.0, &at(0.009)).is_ok(), "within the slack");
        let e = broad.grid.audit(&broad.primitives, 0.0, &at(0.011)).unwrap_err();
        assert!(e.contains("farther than the slack"), "{e}");
    }

    #[test]
    fn a_failed_certificate_near_the_anchor_is_renewed_and_one_far_from_it_re_anchors() {
        // ball 1 at rest in a tube of ε = 1 m/s, slack 0.01 m: a tube from the anchor lasts 0.01 s
        let mut model = Model::new();
        model.add_body(
            Body::new("balls", BodyKind::Particles { radius: 0.1 }),
            &[Vec3::zeros(), Vec3::x() * 0.235],
            &[Vec3::zeros(); 2],
            &[1.0; 2],
        );
        // a gap of 0.035 m, within the reach plus twice the slack, 0.04 m: a pair
        let mut broad = Broad::new(&model, 0.5, 0.02, 0.01);
        assert_eq!(broad.initial_pairs(), vec![(0, 1)]);
        let anchor = Vec3::x() * 0.235;
        let fail = |broad: &mut Broad, model: &Model, t: Real| {
            let tube = |u: VertexId| {
                let tube = VagueTrajectory { x0: model.vertices.position_at(u, t), v0: Vec3::zeros(), tolerance: 1.0 };
                (tube, Real::INFINITY)
            };
            broad.grid.certificate_failed(1, t, &broad.primitives, model, &tube, &mut Vec::new())
        };
        let renewed_at = |change: &BroadPhaseChange| match change.renewal {
            Some(Schedule::BroadPhase(1, at)) => at.seconds(),
            ref other => panic!("{other:?}"),
        };
        // 3 mm off its anchor: 7 ms of room, above a tenth of 10 ms; the anchor and pairs stay
        model.vertices.set_synchronous_state(VertexId(1), anchor + Vec3::y() * 0.003, Vec3::zeros(), 0.01);
        let change = fail(&mut broad, &model, 0.01);
        assert!(change.gained.is_empty() && change.lost.is_empty());
        assert_eq!(broad.grid.anchors[1], anchor, "renewed, not re-anchored");
        assert!((renewed_at(&change) - 0.017).abs() < 1e-12, "{}", renewed_at(&change));
        // 9.5 mm farther out: 0.5 ms of room, below a tenth of 10 ms: re-anchored where it is,
        // and the anchored gap, now 0.0445 m, loses the pair
        let here = anchor + Vec3::x() * 0.0095;
        model.vertices.set_synchronous_state(VertexId(1), here, Vec3::zeros(), 0.017);
        let change = fail(&mut broad, &model, 0.017);
        assert_eq!(broad.grid.anchors[1], here, "re-anchored");
        assert_eq!((change.gained.clone(), change.lost.clone()), (vec![], vec![(0, 1)]));
        assert!((renewed_at(&change) - (0.017 + 0.01)).abs() < 1e-12, "{}", renewed_at(&change));
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
        // the hash grid's default slack for these cells
        let mut broad = Broad::new(&model, 0.2, 0.02, 0.05 * 0.2);
        // the next scans cross the stamps' wrap-around
        broad.grid.visit = u32::MAX - 20;
        let (mut gains, mut losses) = (0, 0);
        for step in 1..=200 {
            let t = 0.005 * step as Real;
            let i = (step * 37 % n) as u32;
            let u = broad.primitives.get(i).vertices()[0];
            let before = overlapping(&broad, i, 0.05);
            let tube = VagueTrajectory::linear(model.vertices.position_at(u, t), model.vertices.velocity(u));
            let Reanchored { gained, lost, exit } = reanchor(&mut broad, u, t, &model, &tube);
            assert!(exit > t, "step {step}: a re-anchored vertex is inside its ball");
            let after = overlapping(&broad, i, 0.05);
            let expected_gained: Vec<(u32, u32)> = after.iter().copied().filter(|j| !before.contains(j)).collect();
            let expected_lost: Vec<(u32, u32)> = before.iter().copied().filter(|j| !after.contains(j)).collect();
            assert_eq!(gained, expected_gained, "step {step}: gained");
            assert_eq!(lost, expected_lost, "step {step}: lost");
            (gains, losses) = (gains + gained.len(), losses + lost.len());
        }
        assert!(grid(&broad).visit < 1000, "the stamps wrapped around");
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
            let mut broad = Broad::new(&model, cell, 0.003, 0.001);
            let every_near_pair = |broad: &Broad| -> Vec<(u32, u32)> {
                let n = broad.primitives.len() as u32;
                let grid = grid(broad);
                (0..n)
                    .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                    .filter(|&(i, j)| broad.primitives.pair_kind(i, j).is_some() && grid.near(&broad.primitives, i, j))
                    .collect()
            };
            let mut kept: std::collections::BTreeSet<(u32, u32)> = broad.initial_pairs().into_iter().collect();
            assert_eq!(kept.iter().copied().collect::<Vec<_>>(), every_near_pair(&broad));
            let (mut gains, mut losses) = (0, 0);
            for step in 1..=150 {
                let t = 0.01 * step as Real;
                let u = VertexId((step * 7 % model.vertices.len()) as u32);
                let tube = VagueTrajectory::linear(model.vertices.position_at(u, t), model.vertices.velocity(u));
                let change = reanchor(&mut broad, u, t, &model, &tube);
                for pair in &change.lost {
                    assert!(kept.remove(pair), "step {step}: lost {pair:?}, which was not near");
                }
                for &pair in &change.gained {
                    if broad.primitives.pair_kind(pair.0, pair.1).is_some() {
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
