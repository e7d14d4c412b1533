//! How deep the bodies of a frame lie inside one another: `penetration.csv` of
//! `avicontact compare`, one row per frame, so a contact model that lets surfaces pass (the
//! predictor–corrector of Higher-order §4, which corrects velocities, not positions) can be set
//! beside one that never does (IPC, whose barrier keeps every pair apart: Incremental Potential
//! Contact §4) frame by frame.
//!
//! The measure is a vertex's depth inside another body's surface, taken from the frame's positions
//! alone, not from any contact model's own bookkeeping:
//! - a **closed** surface (every edge shared by exactly two triangles: a solid's boundary, a closed
//!   shell) encloses a volume: a vertex is inside where the surface's winding number about it is
//!   above ½ (the solid angles of its triangles summed, Van Oosterom and Strackee 1983; within one
//!   longest edge of the surface, the same answer from the nearest feature's pseudonormal), and
//!   its depth is its distance to the surface;
//! - an **open** surface (the ground, a cloth) has a front, the side its triangles' winding faces
//!   (as the corrector reads it): a vertex is behind it where it lies on the back of its nearest
//!   triangle and projects inside that triangle (so not past the surface's border), no farther
//!   than the surface's longest edge, and its depth is its distance to the surface.
//!
//! Vertices of the surface's own body are not measured: a body passing through itself is a
//! crossing of its triangles, which `avicontact check` finds.

use super::{io_at, OutputError};
use crate::geometry::distance::point_triangle::{closest_point_triangle, PointTriangleRegion};
use crate::math::{Compact, Real, Vec3};
use crate::model::Model;
use crate::observe::{Frame, Observer, ObserverError};
use std::collections::HashMap;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::ops::Range;
use std::path::Path;

/// The header of `penetration.csv`.
pub const PENETRATION_HEADER: &str = "time,depth,vertices";

/// How deep the bodies lie in one another at one frame.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Penetration {
    /// The largest depth of a vertex inside another body, m (0 when none is).
    pub depth: Real,
    /// How many vertices lie inside another body.
    pub vertices: usize,
}

/// One body's surface, as the measure reads it.
#[derive(Debug)]
struct Surface {
    /// The body's vertices (global indices): not measured against their own surface.
    own: Range<u32>,
    /// Triangles, global vertex indices.
    triangles: Vec<[u32; 3]>,
    /// Each triangle's edges (edge `k` from corner `k` to corner `k + 1`), as indices of the
    /// surface's edges.
    edges: Vec<[u32; 3]>,
    /// The number of distinct edges.
    edge_count: usize,
    /// Every edge shared by exactly two triangles.
    closed: bool,
}

/// Measures [`Penetration`] in a model's frames: one [`Surface`] per body with triangles.
#[derive(Debug)]
pub struct PenetrationGauge {
    surfaces: Vec<Surface>,
}

impl PenetrationGauge {
    /// The gauge of `model`'s bodies: their surfaces and whether each is closed.
    pub fn new(model: &Model) -> Self {
        let surfaces = model
            .bodies
            .values()
            .filter(|b| !b.kind.triangles().is_empty())
            .map(|b| {
                let base = b.vertices.start;
                let triangles: Vec<[u32; 3]> = b.kind.triangles().iter().map(|t| t.map(|v| v + base)).collect();
                let mut ids: HashMap<(u32, u32), u32> = HashMap::new();
                let mut uses: Vec<u32> = Vec::new();
                let edges = triangles
                    .iter()
                    .map(|t| {
                        [0, 1, 2].map(|k| {
                            let (a, b) = (t[k], t[(k + 1) % 3]);
                            let id = *ids.entry((a.min(b), a.max(b))).or_insert_with(|| {
                                uses.push(0);
                                uses.len() as u32 - 1
                            });
                            uses[id as usize] += 1;
                            id
                        })
                    })
                    .collect();
                Surface {
                    own: b.vertices.clone(),
                    triangles,
                    edges,
                    edge_count: uses.len(),
                    closed: uses.iter().all(|&n| n == 2),
                }
            })
            .collect();
        PenetrationGauge { surfaces }
    }

    /// The penetration at positions `x` (every vertex of the model).
    ///
    /// Each surface's triangles go into a grid of cells as large as its longest edge, so a vertex
    /// is compared with the triangles of the 27 cells around it: every triangle within one
    /// longest edge of it. Within that distance a closed surface's inside is told by the
    /// angle-weighted pseudonormal of the nearest feature (face, edge or corner: Bærentzen and
    /// Aanæs 2005); a vertex farther from every triangle but within the surface's box is told by
    /// the winding number over all its triangles.
    pub fn measure(&self, x: &[Vec3]) -> Penetration {
        let mut depths = vec![0.0; x.len()];
        for s in &self.surfaces {
            let corners: Vec<[Vec3; 3]> = s.triangles.iter().map(|t| t.map(|v| x[v as usize])).collect();
            let (mut lo, mut hi) = (Vec3::repeat(Real::INFINITY), Vec3::repeat(Real::NEG_INFINITY));
            let mut longest: Real = 0.0;
            for c in &corners {
                for k in 0..3 {
                    lo = lo.inf(&c[k]);
                    hi = hi.sup(&c[k]);
                    longest = longest.max((c[k] - c[(k + 1) % 3]).norm());
                }
            }
            if !(longest > 0.0 && longest.is_finite()) {
                continue;
            }
            let cell = |p: &Vec3| -> [i64; 3] { [0, 1, 2].map(|k| ((p[k] - lo[k]) / longest).floor() as i64) };
            let boxes: Vec<(Vec3, Vec3)> =
                corners.iter().map(|c| (c[0].inf(&c[1]).inf(&c[2]), c[0].sup(&c[1]).sup(&c[2]))).collect();
            let mut grid: HashMap<[i64; 3], Vec<u32>> = HashMap::new();
            for (t, (lo, hi)) in boxes.iter().enumerate() {
                let (a, b) = (cell(lo), cell(hi));
                for i in a[0]..=b[0] {
                    for j in a[1]..=b[1] {
                        for k in a[2]..=b[2] {
                            grid.entry([i, j, k]).or_default().push(t as u32);
                        }
                    }
                }
            }
            let normals = s.closed.then(|| Pseudonormals::new(s, &corners));
            let reach = if s.closed { 0.0 } else { longest };
            let (lo_box, hi_box) = (lo - Vec3::repeat(reach), hi + Vec3::repeat(reach));
            let mut near = Vec::new();
            for (i, &p) in x.iter().enumerate() {
                if s.own.contains(&(i as u32)) || (0..3).any(|k| p[k] < lo_box[k] || p[k] > hi_box[k]) {
                    continue;
                }
                near.clear();
                let at = cell(&p);
                for d in 0..27 {
                    let key = [at[0] + d % 3 - 1, at[1] + d / 3 % 3 - 1, at[2] + d / 9 - 1];
                    near.extend(grid.get(&key).into_iter().flatten().copied());
                }
                // keep the triangles whose boxes come as near as the nearest triangle: on long,
                // thin triangles (a field of spikes) the cells hold many, and most are far
                let lower = |t: u32| {
                    let (a, b) = boxes[t as usize];
                    (p - p.sup(&a).inf(&b)).norm_squared()
                };
                let mut best = Real::INFINITY;
                for &t in &near {
                    if lower(t) < best {
                        let [t0, t1, t2] = corners[t as usize];
                        best = best.min(closest_point_triangle(p, t0, t1, t2).distance_squared);
                    }
                }
                near.retain(|&t| lower(t) <= best * (1.0 + 1e-9));
                near.sort_unstable();
                near.dedup();
                let depth = match &normals {
                    None => behind_open(p, near.iter().map(|&t| corners[t as usize]), longest),
                    Some(normals) => {
                        let nearest = near
                            .iter()
                            .map(|&t| {
                                (
                                    t,
                                    closest_point_triangle(
                                        p,
                                        corners[t as usize][0],
                                        corners[t as usize][1],
                                        corners[t as usize][2],
                                    ),
                                )
                            })
                            .min_by(|a, b| a.1.distance_squared.total_cmp(&b.1.distance_squared));
                        match nearest {
                            Some((t, closest)) if closest.distance() <= longest => {
                                let inside = (p - closest.point).dot(&normals.at(s, t as usize, closest.region)) < 0.0;
                                if inside {
                                    closest.distance()
                                } else {
                                    0.0
                                }
                            }
                            _ => inside_closed(p, corners.iter().copied()),
                        }
                    }
                };
                depths[i] = Real::max(depths[i], depth);
            }
        }
        Penetration {
            depth: depths.iter().copied().fold(0.0, Real::max),
            vertices: depths.iter().filter(|&&d| d > 0.0).count(),
        }
    }
}

/// A closed surface's angle-weighted pseudonormals at one frame: the sign of (p − q)·n at the
/// point q of the surface nearest to p, with n the pseudonormal of the feature q lies on, says
/// whether p is inside (Bærentzen and Aanæs 2005), also at edges and corners where the faces'
/// own normals disagree.
struct Pseudonormals {
    faces: Vec<Vec3>,
    edges: Vec<Vec3>,
    /// By vertex, from the body's first.
    corners: Vec<Vec3>,
}

impl Pseudonormals {
    fn new(s: &Surface, corners: &[[Vec3; 3]]) -> Self {
        let faces: Vec<Vec3> = corners
            .iter()
            .map(|c| (c[1] - c[0]).cross(&(c[2] - c[0])).try_normalize(0.0).unwrap_or_default())
            .collect();
        let mut edges = vec![Vec3::zeros(); s.edge_count];
        let mut at_corners = vec![Vec3::zeros(); s.own.len()];
        for (t, c) in corners.iter().enumerate() {
            for k in 0..3 {
                edges[s.edges[t][k] as usize] += faces[t];
                let (u, v) = (c[(k + 1) % 3] - c[k], c[(k + 2) % 3] - c[k]);
                let angle = u.angle(&v);
                at_corners[(s.triangles[t][k] - s.own.start) as usize] += angle * faces[t];
            }
        }
        Pseudonormals { faces, edges, corners: at_corners }
    }

    /// The pseudonormal at `region` of triangle `t`.
    fn at(&self, s: &Surface, t: usize, region: PointTriangleRegion) -> Vec3 {
        match region {
            PointTriangleRegion::Face => self.faces[t],
            PointTriangleRegion::Edge(k) => self.edges[s.edges[t][k] as usize],
            PointTriangleRegion::Vertex(k) => self.corners[(s.triangles[t][k] - s.own.start) as usize],
        }
    }
}

/// The depth of `p` inside the closed surface of `triangles`: its distance to the surface if the
/// winding number about it is above ½, else 0.
fn inside_closed(p: Vec3, triangles: impl Iterator<Item = [Vec3; 3]>) -> Real {
    let (mut solid_angle, mut nearest) = (0.0, Real::INFINITY);
    for [t0, t1, t2] in triangles {
        let (a, b, c) = (t0 - p, t1 - p, t2 - p);
        let (la, lb, lc) = (a.norm(), b.norm(), c.norm());
        let denominator = la * lb * lc + a.dot(&b) * lc + b.dot(&c) * la + c.dot(&a) * lb;
        solid_angle += 2.0 * a.dot(&b.cross(&c)).atan2(denominator);
        nearest = nearest.min(closest_point_triangle(p, t0, t1, t2).distance_squared);
    }
    let winding = solid_angle / (4.0 * std::f64::consts::PI);
    if winding.abs() > 0.5 {
        nearest.sqrt()
    } else {
        0.0
    }
}

/// The depth of `p` behind the open surface of `triangles`: its distance to the surface if the
/// nearest triangle (any of them, on a tie: a vertex below an edge that two faces share) has it
/// on its back within its face (its projection onto the triangle's plane inside the triangle, to
/// round-off), no farther than `reach`; else 0.
fn behind_open(p: Vec3, triangles: impl Iterator<Item = [Vec3; 3]>, reach: Real) -> Real {
    // (squared distance of the nearest triangles, whether one of them has p behind its face)
    let mut best: Option<(Real, bool)> = None;
    for [t0, t1, t2] in triangles {
        let d2 = closest_point_triangle(p, t0, t1, t2).distance_squared;
        let n = (t1 - t0).cross(&(t2 - t0));
        let n2 = n.norm_squared();
        let behind = n2 > 0.0 && (p - t0).dot(&n) < 0.0 && {
            // barycentric coordinates of p's projection, as signed sub-triangle areas over n
            let areas = [(t1 - p).cross(&(t2 - p)), (t2 - p).cross(&(t0 - p)), (t0 - p).cross(&(t1 - p))];
            areas.iter().all(|a| a.dot(&n) >= -1e-9 * n2)
        };
        best = match best {
            Some((d, b)) if d < d2 * (1.0 - 1e-9) => Some((d, b)),
            Some((d, b)) if d2 >= d * (1.0 - 1e-9) => Some((d.min(d2), b || behind)),
            _ => Some((d2, behind)),
        };
    }
    match best {
        Some((d2, true)) if d2.sqrt() <= reach => d2.sqrt(),
        _ => 0.0,
    }
}

/// Writes `penetration.csv` into a run's directory, a row per frame as the run goes (flushed, so a
/// run that fails keeps its rows), and keeps the deepest depth of the run.
#[derive(Debug)]
pub struct PenetrationWriter {
    gauge: PenetrationGauge,
    file: BufWriter<File>,
    path: std::path::PathBuf,
    /// The largest depth over the frames so far, m.
    pub deepest: Real,
}

impl PenetrationWriter {
    /// Starts `dir/penetration.csv` (replacing an earlier one) for `model`'s frames.
    pub fn create(dir: &Path, model: &Model) -> Result<Self, OutputError> {
        let path = dir.join("penetration.csv");
        let mut file = BufWriter::new(File::create(&path).map_err(io_at(&path))?);
        writeln!(file, "{PENETRATION_HEADER}").and_then(|_| file.flush()).map_err(io_at(&path))?;
        Ok(PenetrationWriter { gauge: PenetrationGauge::new(model), file, path, deepest: 0.0 })
    }
}

impl Observer for PenetrationWriter {
    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        let p = self.gauge.measure(frame.positions);
        self.deepest = self.deepest.max(p.depth);
        writeln!(self.file, "{},{},{}", Compact(frame.time.seconds()), Compact(p.depth), p.vertices)
            .and_then(|_| self.file.flush())
            .map_err(|e| ObserverError::from(io_at(&self.path)(e).to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Body, BodyKind};

    /// A model of a unit cube's closed surface (an obstacle, 12 outward triangles) at the origin,
    /// an open ground square of side 4 facing +z at z = −2 (2 triangles), and one free vertex.
    fn cube_ground_and_point(point: Vec3) -> (Model, Vec<Vec3>) {
        let mut model = Model::new();
        let cube: Vec<Vec3> =
            (0..8).map(|i| Vec3::new((i & 1) as Real, (i >> 1 & 1) as Real, (i >> 2) as Real)).collect();
        let faces = vec![
            [0, 2, 1],
            [1, 2, 3],
            [4, 5, 6],
            [5, 7, 6],
            [0, 1, 4],
            [1, 5, 4],
            [2, 6, 3],
            [3, 6, 7],
            [0, 4, 2],
            [2, 4, 6],
            [1, 3, 5],
            [3, 7, 5],
        ];
        let held = |n: usize| vec![Real::INFINITY; n];
        let zero = |n: usize| vec![Vec3::zeros(); n];
        model.add_body(Body::new("cube", BodyKind::Obstacle { triangles: faces }), &cube, &zero(8), &held(8));
        let ground = [(-2.0, -2.0), (2.0, -2.0), (2.0, 2.0), (-2.0, 2.0)].map(|(x, y)| Vec3::new(x, y, -2.0));
        model.add_body(
            Body::new("ground", BodyKind::Obstacle { triangles: vec![[0, 1, 2], [0, 2, 3]] }),
            &ground,
            &zero(4),
            &held(4),
        );
        model.add_body(Body::new("point", BodyKind::Particles { radius: 0.01 }), &[point], &zero(1), &[1.0]);
        let x = model.vertices.positions().to_vec();
        (model, x)
    }

    #[test]
    fn a_vertex_inside_a_closed_surface_is_as_deep_as_its_distance_to_it() {
        let (model, x) = cube_ground_and_point(Vec3::new(0.5, 0.3, 0.6));
        let gauge = PenetrationGauge::new(&model);
        assert!(gauge.surfaces.iter().map(|s| s.closed).eq([true, false]));
        let p = gauge.measure(&x);
        assert_eq!(p.vertices, 1);
        assert!((p.depth - 0.3).abs() < 1e-12, "{p:?}");
    }

    #[test]
    fn a_vertex_outside_or_in_front_is_not_inside() {
        for point in [Vec3::new(1.5, 0.5, 0.5), Vec3::new(0.5, 0.5, -1.0), Vec3::new(-0.01, 0.5, 0.5)] {
            let (model, x) = cube_ground_and_point(point);
            assert_eq!(PenetrationGauge::new(&model).measure(&x), Penetration::default(), "{point:?}");
        }
    }

    #[test]
    fn a_vertex_behind_an_open_surface_counts_within_its_longest_edge_and_inside_its_faces() {
        // 0.25 below the ground: inside, below a face or below the edge its two faces share
        for point in [Vec3::new(0.3, -1.0, -2.25), Vec3::new(0.7, 0.7, -2.25), Vec3::new(0.0, 0.0, -2.25)] {
            let (model, x) = cube_ground_and_point(point);
            let p = PenetrationGauge::new(&model).measure(&x);
            assert_eq!(p.vertices, 1, "{point:?}");
            assert!((p.depth - 0.25).abs() < 1e-12, "{point:?}: {p:?}");
        }
        // below, but past the square's edge, or deeper than its longest edge (4√2)
        for point in [Vec3::new(2.5, 0.0, -2.25), Vec3::new(0.0, 0.0, -8.0)] {
            let (model, x) = cube_ground_and_point(point);
            assert_eq!(PenetrationGauge::new(&model).measure(&x).vertices, 0, "{point:?}");
        }
    }

    #[test]
    fn near_edges_and_corners_the_pseudonormals_agree_with_the_winding_number() {
        // inside and outside beside the cube's edges and corners, where the nearest feature is an
        // edge or a corner, and points spread over and around the cube by a fixed sequence: the
        // depth by the nearest feature's pseudonormal is the winding number's
        let (model, mut x) = cube_ground_and_point(Vec3::zeros());
        let gauge = PenetrationGauge::new(&model);
        let cube: Vec<[Vec3; 3]> = gauge.surfaces[0].triangles.iter().map(|t| t.map(|v| x[v as usize])).collect();
        let mut points = vec![
            Vec3::new(0.05, 0.05, 0.5),
            Vec3::new(-0.01, -0.01, 0.5),
            Vec3::new(0.02, 0.03, 0.04),
            Vec3::new(-0.01, -0.02, -0.01),
            Vec3::new(1.01, 0.5, 1.02),
        ];
        let mut state: u64 = 12345;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as Real / (1u64 << 53) as Real
        };
        points.extend((0..400).map(|_| Vec3::new(next(), next(), next()) * 1.2 - Vec3::repeat(0.1)));
        let last = x.len() - 1;
        for p in points {
            x[last] = p;
            let expected = inside_closed(p, cube.iter().copied());
            assert_eq!(gauge.measure(&x).depth, expected, "{p:?}");
        }
        x[last] = Vec3::new(0.05, 0.05, 0.5);
        assert!((gauge.measure(&x).depth - 0.05).abs() < 1e-12);
    }

    #[test]
    fn on_the_jumping_balls_irregular_mesh_the_pseudonormals_agree_with_the_winding_number() {
        // the ball of examples/jumping-ball.toml: a cube's cells mapped onto it, so its surface
        // triangles are of unequal shapes and sizes; a probe point moved over and around it
        let text = include_str!("../../examples/jumping-ball.toml").replace("resolution = 6", "resolution = 3");
        let mut model =
            crate::scene::parse(&text, "ball", Path::new("examples"), "ball".into()).expect("the example").model;
        model.add_body(
            Body::new("probe", BodyKind::Particles { radius: 0.01 }),
            &[Vec3::zeros()],
            &[Vec3::zeros()],
            &[1.0],
        );
        let gauge = PenetrationGauge::new(&model);
        let mut x = model.vertices.positions().to_vec();
        let ball = &gauge.surfaces[0];
        assert!(ball.closed);
        let triangles: Vec<[Vec3; 3]> = ball.triangles.iter().map(|t| t.map(|v| x[v as usize])).collect();
        let mut state: u64 = 2024;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 11) as Real / (1u64 << 53) as Real
        };
        let (last, centre) = (x.len() - 1, Vec3::new(0.0, 0.0, 3.0));
        let mut inside = 0;
        for _ in 0..500 {
            let p = centre + Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 1.1;
            x[last] = p;
            let expected = inside_closed(p, triangles.iter().copied());
            assert_eq!(gauge.measure(&x).depth, expected, "{p:?}");
            inside += usize::from(expected > 0.0);
        }
        assert!((100..450).contains(&inside), "{inside} of 500 probes inside: both sides are tried");
    }

    #[test]
    fn a_body_is_not_measured_against_its_own_surface() {
        // the cube's corners lie on its own surface and the ground's corners far from the cube
        let (model, x) = cube_ground_and_point(Vec3::new(5.0, 5.0, 5.0));
        assert_eq!(PenetrationGauge::new(&model).measure(&x), Penetration::default());
    }
}
