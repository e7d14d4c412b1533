//! `avicontact render DIR`: pictures of a run's frames, a PNG per frame and an animated GIF, drawn
//! in pure Rust (no system libraries or fonts), so it runs headless on a fresh machine.
//!
//! Layer L6, beside `output`: it reads the frame files back with the reader `avicontact check`
//! uses (`output::read`) and writes its images atomically, as the rest of `output` does.
//!
//! What is drawn:
//!
//! * every triangle of `frames/frame_NNNNN.obj`, a flat colour per body under Lambert shading with
//!   a light fixed to the camera and depth cueing (the far side of the scene paler), rasterised
//!   with a depth buffer (the nearest surface in front at every sample);
//! * every chain edge (`l` lines) as a thin hexagonal prism, with a ball at each of its vertices;
//! * every particle of `particles/frame_NNNNN.csv` as a ball (an icosphere) of its radius.
//!
//! Bodies take distinct colours ([`shade::PALETTE`], in file order). A body that does not move in
//! any frame while something else does is an obstacle (held or static: the frames do not record
//! kinds) and is drawn in muted grey; one that encloses a moving body (a box of particles) is cut
//! away: its faces turned towards the camera are left out, so what is inside shows; and a flat one
//! (a wall) with everything that moves behind it, seen from the camera, is left out.
//!
//! The camera is orthographic, looks along a [`View`] (azimuth and elevation, z up) and is fitted
//! once to every frame, so it does not move during the animation: to everything that moves, and
//! to the obstacles as far as they lie within half that size of it (a ground plane does not shrink
//! a small body to a few pixels).
//!
//! Same run directory and options, same bytes: everything here is deterministic.

pub mod camera;
pub mod encode;
pub mod raster;
pub mod shade;

pub use camera::{Camera, Extent, View};
pub use raster::Image;

use crate::math::{Real, Vec3};
use crate::mesh::TriMesh;
use crate::output::read::{frame_files, read_particles, read_text, FrameMesh, FrameReadError};
use crate::output::{check_output_dir, write_atomically, AtomicFile, OutputError};
use encode::{png_bytes, GifWriter};
use raster::Triangle;
use shade::{body_colour, depth_cued, lambert, light, Rgb, BACKGROUND, OBSTACLE};
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// How `render` draws.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Where the camera looks from.
    pub view: View,
    /// Image width, pixels.
    pub width: u32,
    /// Image height, pixels.
    pub height: u32,
    /// Draw every `every`-th frame (1: all), starting with the first.
    pub every: usize,
    /// Bodies left out of the pictures and of the camera's fit, by name (a floor or walls that
    /// hide what happens, or dwarf it).
    pub hide: Vec<String>,
    /// A close-up: the camera frames the ball of this centre (m, world coordinates) and radius (m)
    /// instead of everything that moves (a tight knot at the middle of long ribbons). What lies
    /// outside the ball is drawn where it falls, cut off at the image's edges.
    pub around: Option<(Vec3, Real)>,
}

impl Default for RenderOptions {
    /// The default view, 640 × 480 pixels, every frame, fitted to what moves.
    fn default() -> Self {
        RenderOptions { view: View::default(), width: 640, height: 480, every: 1, hide: Vec::new(), around: None }
    }
}

/// The smallest image side `render` accepts, pixels.
pub const MIN_SIDE: u32 = 16;
/// The largest image side `render` accepts, pixels.
pub const MAX_SIDE: u32 = 4096;

/// The name of the animation in the output directory.
pub const ANIMATION: &str = "animation.gif";

/// What `render` wrote.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderReport {
    /// The output directory.
    pub out: PathBuf,
    /// Frames in the run.
    pub frames: usize,
    /// The PNG written for each frame drawn, in frame order.
    pub images: Vec<PathBuf>,
    /// The animated GIF of the frames drawn.
    pub animation: PathBuf,
}

/// Why `render` drew nothing, or stopped.
#[derive(Debug)]
#[non_exhaustive]
pub enum RenderError {
    /// Bad input: the run directory, a frame file or an option (nothing is written).
    Input {
        /// The file or directory.
        path: PathBuf,
        /// What is wrong and what to do.
        message: String,
    },
    /// An image could not be written.
    Write(OutputError),
}

impl fmt::Display for RenderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RenderError::Input { path, message } => write!(f, "{}: {message}", path.display()),
            RenderError::Write(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for RenderError {}

impl From<FrameReadError> for RenderError {
    fn from(e: FrameReadError) -> Self {
        RenderError::Input { path: e.path, message: e.message }
    }
}

impl From<OutputError> for RenderError {
    fn from(e: OutputError) -> Self {
        RenderError::Write(e)
    }
}

/// Draws the frames of the run in `dir` into `out` (default `dir/render`): `frame_NNNNN.png` for
/// every drawn frame, named as its frame file, and [`ANIMATION`]. Earlier `frame_*.png` files
/// there are removed first, so the directory holds one rendering.
pub fn render_run(dir: &Path, out: Option<&Path>, options: &RenderOptions) -> Result<RenderReport, RenderError> {
    check_options(options)?;
    let frames = list_frames(dir)?;
    check_hidden(&frames, options)?;
    let survey = Survey::of(&frames, options)?;
    let camera = Camera::fit(&options.view, &survey.extent, options.width, options.height);
    let out = out.map(Path::to_path_buf).unwrap_or_else(|| dir.join("render"));
    check_output_dir(&out).map_err(|message| RenderError::Input { path: out.clone(), message })?;
    clear_earlier_images(&out)?;

    let animation = out.join(ANIMATION);
    let mut gif_file = AtomicFile::create(&animation)?;
    let write_error = |path: &Path| {
        let path = path.to_path_buf();
        move |source| RenderError::Write(OutputError { path, source })
    };
    let delay = gif_delay(dir, options.every);
    let mut gif =
        GifWriter::new(gif_file.writer(), options.width, options.height, delay).map_err(write_error(&animation))?;
    let mut images = Vec::new();
    for frame in frames.iter().step_by(options.every) {
        let (mesh, particles) = frame.read(&options.hide)?;
        let triangles = survey.picture(&mesh, &particles, &camera);
        let image = raster::draw(&triangles, BACKGROUND.to_u8(), options.width, options.height).ok_or_else(|| {
            RenderError::Input { path: dir.to_path_buf(), message: "the image is too large to allocate".into() }
        })?;
        let png = out.join(format!("{}.png", frame.name));
        write_atomically(&png, &png_bytes(&image).map_err(write_error(&png))?)?;
        gif.add(&image).map_err(write_error(&animation))?;
        images.push(png);
    }
    gif.finish().map_err(write_error(&animation))?;
    gif_file.commit()?;
    Ok(RenderReport { out, frames: frames.len(), images, animation })
}

/// The options within their ranges (the command line checks them too; this guards the library).
fn check_options(options: &RenderOptions) -> Result<(), RenderError> {
    let bad = |message: String| Err(RenderError::Input { path: PathBuf::from("render options"), message });
    for (side, what) in [(options.width, "width"), (options.height, "height")] {
        if !(MIN_SIDE..=MAX_SIDE).contains(&side) {
            return bad(format!("the image {what} must be {MIN_SIDE} to {MAX_SIDE} pixels, not {side}"));
        }
    }
    if options.every == 0 {
        return bad("every must be 1 or more frames".into());
    }
    let View { azimuth_deg, elevation_deg } = options.view;
    if !azimuth_deg.is_finite() || !(-90.0..=90.0).contains(&elevation_deg) {
        return bad(format!(
            "the view needs a finite azimuth and an elevation from -90 to 90 degrees, not {azimuth_deg},{elevation_deg}"
        ));
    }
    if let Some((centre, radius)) = options.around {
        if !(centre.iter().all(|c| c.is_finite()) && radius.is_finite() && radius > 0.0) {
            return bad(format!(
                "--around needs a finite centre and a radius > 0 (X,Y,Z,R in metres), not {},{},{},{radius}",
                centre.x, centre.y, centre.z
            ));
        }
    }
    Ok(())
}

/// A particle frame: (centre, radius) of each particle.
type Particles = Vec<(Vec3, Real)>;

/// One frame of the run: its mesh file, its particle file, or both.
struct FrameFiles {
    /// `frame_NNNNN`, the stem both files share.
    name: String,
    mesh: Option<PathBuf>,
    particles: Option<PathBuf>,
}

impl FrameFiles {
    /// The frame's mesh (without the bodies named in `hide`) and particles.
    fn read(&self, hide: &[String]) -> Result<(FrameMesh, Particles), RenderError> {
        let mesh = self.mesh.as_deref().map(FrameMesh::read).transpose()?.unwrap_or_default().without(hide);
        let particles = self.particles.as_deref().map(read_particles).transpose()?.unwrap_or_default();
        Ok((mesh, particles))
    }
}

/// Refuses to hide a body the frames do not have (a typo would otherwise hide nothing), naming
/// those they have.
fn check_hidden(frames: &[FrameFiles], options: &RenderOptions) -> Result<(), RenderError> {
    let Some(first) = frames.first().filter(|_| !options.hide.is_empty()) else { return Ok(()) };
    let (mesh, _) = first.read(&[])?;
    let names: Vec<&str> = mesh.bodies.iter().map(|b| b.name.as_str()).collect();
    match options.hide.iter().find(|h| !names.contains(&h.as_str())) {
        None => Ok(()),
        Some(missing) => Err(RenderError::Input {
            path: first.mesh.clone().unwrap_or_default(),
            message: format!("--hide: no body named \"{missing}\" in the frames; they have {}", names.join(", ")),
        }),
    }
}

/// The run's frames in order, each frame's mesh and particle files paired by name.
fn list_frames(dir: &Path) -> Result<Vec<FrameFiles>, RenderError> {
    if !dir.is_dir() {
        return Err(RenderError::Input {
            path: dir.to_path_buf(),
            message: "no such directory; name the --out directory of `avicontact run`".into(),
        });
    }
    let mut frames: BTreeMap<String, FrameFiles> = BTreeMap::new();
    for (sub, ext) in [("frames", "obj"), ("particles", "csv")] {
        for path in frame_files(dir, sub, ext)? {
            let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
            let entry = frames.entry(name.clone()).or_insert(FrameFiles { name, mesh: None, particles: None });
            if ext == "obj" {
                entry.mesh = Some(path);
            } else {
                entry.particles = Some(path);
            }
        }
    }
    if frames.is_empty() {
        return Err(RenderError::Input {
            path: dir.to_path_buf(),
            message: "no frames/frame_*.obj or particles/frame_*.csv here; run `avicontact run SCENE --out DIR` first"
                .into(),
        });
    }
    Ok(frames.into_values().collect())
}

/// Removes the `frame_*.png` files and temporary files of an earlier rendering in `out` (creating
/// `out` if needed).
fn clear_earlier_images(out: &Path) -> Result<(), RenderError> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| RenderError::Write(OutputError { path, source })
    };
    std::fs::create_dir_all(out).map_err(io(out))?;
    for entry in std::fs::read_dir(out).map_err(io(out))? {
        let path = entry.map_err(io(out))?.path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if (name.starts_with("frame_") && name.ends_with(".png")) || name.starts_with(".tmp") {
            std::fs::remove_file(&path).map_err(io(&path))?;
        }
    }
    Ok(())
}

/// The GIF's frame delay, hundredths of a second: the run's frame interval (from `stats.csv`)
/// times `every`, so the animation plays in real time where it can, between 2 (what viewers show
/// at most) and 100; 4 without `stats.csv`.
fn gif_delay(dir: &Path, every: usize) -> u16 {
    let interval = || -> Option<Real> {
        let text = read_text(&dir.join("stats.csv")).ok()?;
        let mut lines = text.lines();
        let column = lines.next()?.split(',').position(|c| c.trim() == "time")?;
        let mut times = lines.filter_map(|l| l.split(',').nth(column)?.trim().parse::<Real>().ok());
        let (t0, t1) = (times.next()?, times.next()?);
        Some(t1 - t0).filter(|dt| dt.is_finite() && *dt > 0.0)
    };
    match interval() {
        Some(dt) => (dt * every as Real * 100.0).round().clamp(2.0, 100.0) as u16,
        None => 4,
    }
}

/// How each body is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Role {
    /// A body that moves, in its colour.
    Body(Rgb),
    /// A body that does not move, muted; `cutaway` is its centre when it encloses a moving body.
    Obstacle { cutaway: Option<Vec3> },
    /// A flat obstacle (a wall) between the camera and what moves: left out.
    Hidden,
}

/// What the first pass over every frame found: the extent the camera is fitted to, each body's
/// role, and the particles' colour.
struct Survey {
    extent: Extent,
    roles: Vec<Role>,
    particle_colour: Rgb,
    light: Vec3,
    /// Unit icospheres for balls: coarse (for balls a few pixels across) and fine.
    balls: [TriMesh; 2],
}

impl Survey {
    /// Reads every frame once: the frames must agree in shape with the first (a frame that does
    /// not was cut short, or comes from another run).
    fn of(frames: &[FrameFiles], options: &RenderOptions) -> Result<Survey, RenderError> {
        let basis = options.view.basis();
        // per body, and for the particles (last), over every frame
        let mut extents: Vec<Extent> = Vec::new();
        let mut first: Option<(String, FrameMesh, Particles)> = None;
        let mut moved: Vec<bool> = Vec::new();
        let mut particles_moved = false;
        for frame in frames {
            let (mesh, particles) = frame.read(&options.hide)?;
            extents.resize(extents.len().max(mesh.bodies.len() + 1), Extent::default());
            for (v, p) in mesh.positions.iter().enumerate() {
                extents[mesh.body_of_vertex(v)].grow(&basis.coordinates(p), 0.0);
            }
            let last = extents.len() - 1;
            for (c, r) in &particles {
                extents[last].grow(&basis.coordinates(c), r.abs());
            }
            let Some((first_name, m0, p0)) = &first else {
                moved = vec![false; mesh.bodies.len()];
                first = Some((frame.name.clone(), mesh, particles));
                continue;
            };
            let shape =
                |m: &FrameMesh, p: &[(Vec3, Real)]| (m.bodies.len(), m.positions.len(), m.triangles.len(), p.len());
            if shape(&mesh, &particles) != shape(m0, p0) {
                let (b, v, t, n) = shape(m0, p0);
                return Err(RenderError::Input {
                    path: frame.mesh.clone().or(frame.particles.clone()).unwrap_or_default(),
                    message: format!(
                        "{} bodies, {} vertices, {} triangles and {} particles where {first_name} has {b}, {v}, {t} \
                         and {n}: the frame is cut short or from another run; run the scene again",
                        mesh.bodies.len(),
                        mesh.positions.len(),
                        mesh.triangles.len(),
                        particles.len()
                    ),
                });
            }
            for (v, (p, q)) in mesh.positions.iter().zip(&m0.positions).enumerate() {
                if p != q {
                    moved[mesh.body_of_vertex(v)] = true;
                }
            }
            particles_moved |= particles.iter().zip(p0).any(|(a, b)| a != b);
        }
        let (_, m0, p0) = first.expect("list_frames returns at least one frame");
        let anything_moves = particles_moved || moved.contains(&true);
        let is_obstacle = |b: usize| anything_moves && !moved[b];
        // the centres of what moves, at the first frame, for the cutaways
        let mut moving_centres: Vec<Vec3> = (0..m0.bodies.len())
            .filter(|&b| !is_obstacle(b))
            .filter_map(|b| mean(&m0.positions[vertex_range(&m0, b)]))
            .collect();
        moving_centres.extend(mean(&p0.iter().map(|(c, _)| *c).collect::<Vec<_>>()));
        let mut colours = 0;
        let roles = (0..m0.bodies.len())
            .map(|b| {
                if is_obstacle(b) {
                    let (lo, hi) = bounds(&m0.positions[vertex_range(&m0, b)]);
                    let solid = (hi - lo).min() > 1e-6 * (hi - lo).max();
                    if !solid && hides(&m0, b, &moving_centres, &basis) {
                        return Role::Hidden;
                    }
                    let encloses = moving_centres.iter().any(|c| (0..3).all(|k| lo[k] < c[k] && c[k] < hi[k]));
                    Role::Obstacle { cutaway: (solid && encloses).then(|| 0.5 * (lo + hi)) }
                } else {
                    colours += 1;
                    Role::Body(body_colour(colours - 1))
                }
            })
            .collect();
        // the camera frames what moves, and obstacles only near it (a ground plane would
        // otherwise shrink a small body to a few pixels)
        let mut extent = Extent::default();
        for (b, e) in extents.iter().enumerate() {
            if b >= m0.bodies.len() || !is_obstacle(b) {
                extent = extent.union(e);
            }
        }
        let near = extent.widened(0.5);
        for (b, e) in extents.iter().enumerate() {
            if b < m0.bodies.len() && is_obstacle(b) {
                extent = extent.union(&e.clipped(&near));
            }
        }
        if let Some((centre, radius)) = options.around {
            let c = basis.coordinates(&centre);
            extent = Extent { min: c - Vec3::repeat(radius), max: c + Vec3::repeat(radius) };
        }
        let ball =
            |subdivisions| crate::mesh::icosphere(1.0, subdivisions).expect("a unit icosphere of 1 or 2 subdivisions");
        Ok(Survey {
            extent,
            roles,
            particle_colour: body_colour(colours),
            light: light(&basis),
            balls: [ball(1), ball(2)],
        })
    }

    /// The triangles of one frame, for [`raster::draw`].
    fn picture(&self, mesh: &FrameMesh, particles: &[(Vec3, Real)], camera: &Camera) -> Vec<Triangle> {
        let basis = &camera.basis;
        let mut out = Vec::with_capacity(mesh.triangles.len() + 24 * mesh.edges.len() + 80 * particles.len());
        // a chain's edges and vertex balls: a few pixels thick, whatever the scene's size
        let thickness = (camera.height as Real / 120.0).max(2.0) / camera.scale;
        for (b, role) in self.roles.iter().enumerate() {
            let base = match role {
                Role::Body(c) => *c,
                Role::Obstacle { .. } => OBSTACLE,
                Role::Hidden => continue,
            };
            for t in &mesh.triangles[triangle_range(mesh, b)] {
                let corners = t.map(|i| mesh.positions[i]);
                if let Role::Obstacle { cutaway: Some(centre) } = role {
                    let [a, bb, c] = corners;
                    let normal = (bb - a).cross(&(c - a));
                    let outward = if ((a + bb + c) / 3.0 - centre).dot(&normal) < 0.0 { -normal } else { normal };
                    if outward.dot(&basis.toward) > 0.0 {
                        continue;
                    }
                }
                out.push(self.facet(corners, base, camera));
            }
            let edges = &mesh.edges[edge_range(mesh, b)];
            for e in edges {
                prism(mesh.positions[e[0]], mesh.positions[e[1]], 0.5 * thickness, basis, |corners| {
                    out.push(self.facet(corners, base.scaled(0.85), camera))
                });
            }
            if !edges.is_empty() {
                for p in &mesh.positions[vertex_range(mesh, b)] {
                    self.ball(p, 1.3 * thickness, base, camera, &mut out);
                }
            }
        }
        for (c, r) in particles {
            self.ball(c, r.abs(), self.particle_colour, camera, &mut out);
        }
        out
    }

    /// A flat triangle with world corners `corners` in `base` colour, shaded and depth-cued.
    fn facet(&self, corners: [Vec3; 3], base: Rgb, camera: &Camera) -> Triangle {
        let [a, b, c] = corners;
        let normal = (b - a).cross(&(c - a));
        let projected = corners.map(|p| camera.project(&p));
        let depth = (projected[0].depth + projected[1].depth + projected[2].depth) / 3.0;
        let colour = depth_cued(base.scaled(lambert(&normal, &camera.basis, &self.light)), camera.farness(depth));
        Triangle { corners: projected.map(|q| (q.x, q.y, q.depth)), colour: colour.to_u8() }
    }

    /// A ball of `radius` about `centre`: an icosphere, finer when it is more than 8 pixels across.
    fn ball(&self, centre: &Vec3, radius: Real, base: Rgb, camera: &Camera, out: &mut Vec<Triangle>) {
        let unit = &self.balls[usize::from(radius * camera.scale > 4.0)];
        let at = |i: u32| centre + radius * unit.positions[i as usize];
        for t in &unit.triangles {
            out.push(self.facet(t.map(at), base, camera));
        }
    }
}

/// The six sides of a hexagonal prism of `radius` from `a` to `b`, two triangles each, handed to
/// `side`; nothing for a zero-length edge.
fn prism(a: Vec3, b: Vec3, radius: Real, basis: &camera::Basis, mut side: impl FnMut([Vec3; 3])) {
    let Some(axis) = (b - a).try_normalize(0.0) else { return };
    // one side faces the camera as squarely as the axis allows
    let across = axis.cross(&basis.toward).try_normalize(1e-9).or_else(|| axis.cross(&Vec3::x()).try_normalize(1e-9));
    let Some(p) = across.or_else(|| axis.cross(&Vec3::y()).try_normalize(0.0)) else { return };
    let q = axis.cross(&p);
    let ring = |k: usize| {
        let angle = std::f64::consts::FRAC_PI_3 * k as Real;
        radius * (angle.cos() * p + angle.sin() * q)
    };
    for k in 0..6 {
        let (u, v) = (ring(k), ring(k + 1));
        side([a + u, b + u, b + v]);
        side([a + u, b + v, a + v]);
    }
}

/// Whether the flat body `b` of `mesh` (a wall) stands between the camera and every centre in
/// `centres`: each lies behind its plane, seen from the camera.
fn hides(mesh: &FrameMesh, b: usize, centres: &[Vec3], basis: &camera::Basis) -> bool {
    let Some(t) = mesh.triangles[triangle_range(mesh, b)].iter().find(|t| {
        let [a, bb, c] = t.map(|i| mesh.positions[i]);
        (bb - a).cross(&(c - a)).norm() > 0.0
    }) else {
        return false;
    };
    let [a, bb, c] = t.map(|i| mesh.positions[i]);
    let n = (bb - a).cross(&(c - a));
    let towards_camera = if n.dot(&basis.toward) < 0.0 { -n } else { n };
    !centres.is_empty() && centres.iter().all(|p| (p - a).dot(&towards_camera) < 0.0)
}

/// The vertices of body `b` of `mesh`.
fn vertex_range(mesh: &FrameMesh, b: usize) -> std::ops::Range<usize> {
    mesh.bodies[b].first_vertex..mesh.bodies.get(b + 1).map_or(mesh.positions.len(), |n| n.first_vertex)
}

/// The triangles of body `b` of `mesh`.
fn triangle_range(mesh: &FrameMesh, b: usize) -> std::ops::Range<usize> {
    mesh.bodies[b].first_triangle..mesh.bodies.get(b + 1).map_or(mesh.triangles.len(), |n| n.first_triangle)
}

/// The chain edges of body `b` of `mesh`.
fn edge_range(mesh: &FrameMesh, b: usize) -> std::ops::Range<usize> {
    mesh.bodies[b].first_edge..mesh.bodies.get(b + 1).map_or(mesh.edges.len(), |n| n.first_edge)
}

fn mean(points: &[Vec3]) -> Option<Vec3> {
    (!points.is_empty()).then(|| points.iter().sum::<Vec3>() / points.len() as Real)
}

fn bounds(points: &[Vec3]) -> (Vec3, Vec3) {
    points
        .iter()
        .fold((Vec3::repeat(Real::INFINITY), Vec3::repeat(Real::NEG_INFINITY)), |(lo, hi), p| (lo.inf(p), hi.sup(p)))
}

/// The camera `render_run` would use for the run in `dir` with `options`: where each point of the
/// run falls on its images (for tests and for annotating pictures).
pub fn fit_camera(dir: &Path, options: &RenderOptions) -> Result<Camera, RenderError> {
    check_options(options)?;
    let survey = Survey::of(&list_frames(dir)?, options)?;
    Ok(Camera::fit(&options.view, &survey.extent, options.width, options.height))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    /// A run directory: a sheet (a unit square at z = 0, two triangles) that falls, and a static
    /// box (an obstacle) around a moving particle.
    fn run_dir(frames: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("frames")).unwrap();
        fs::create_dir_all(dir.path().join("particles")).unwrap();
        let mut stats = String::from("time,kinetic\n");
        for k in 0..frames {
            let z = -0.1 * k as f64;
            let sheet = format!("o sheet\nv 0 0 {z}\nv 1 0 {z}\nv 0 1 {z}\nv 1 1 {z}\nf 1 2 3\nf 2 4 3\n");
            let wall = "o wall\nv 3 0 0\nv 3 1 0\nv 3 0 1\nf 5 6 7\n";
            fs::write(dir.path().join(format!("frames/frame_{k:05}.obj")), format!("{sheet}{wall}")).unwrap();
            let x = 0.5 + 0.01 * k as f64;
            fs::write(dir.path().join(format!("particles/frame_{k:05}.csv")), format!("x,y,z,r\n{x},0.5,1,0.1\n"))
                .unwrap();
            stats.push_str(&format!("{},0\n", k as f64 / 50.0));
        }
        fs::write(dir.path().join("stats.csv"), stats).unwrap();
        dir
    }

    #[test]
    fn a_known_scene_has_its_body_where_its_geometry_projects_and_background_elsewhere() {
        let dir = run_dir(3);
        let options = RenderOptions {
            view: View { azimuth_deg: 0.0, elevation_deg: 90.0 },
            width: 200,
            height: 160,
            every: 1,
            hide: Vec::new(),
            around: None,
        };
        let report = render_run(dir.path(), None, &options).unwrap();
        assert_eq!(report.images.len(), 3);
        assert_eq!(report.out, dir.path().join("render"));
        let camera = fit_camera(dir.path(), &options).unwrap();
        let png = fs::read(dir.path().join("render/frame_00000.png")).unwrap();
        let image = encode::decode_png(&png).unwrap();
        let at = |p: Vec3| {
            let q = camera.project(&p);
            image.pixel(q.x as u32, q.y as u32).unwrap()
        };
        // seen from above: a point inside the sheet is in the sheet's colour, shaded and depth-cued
        let sheet = at(Vec3::new(0.5, 0.25, 0.0));
        assert_ne!(sheet, BACKGROUND.to_u8());
        let blue = body_colour(0).to_u8();
        assert!(sheet.iter().zip(blue).all(|(a, b)| a.abs_diff(b) < 60), "{sheet:?} against {blue:?}");
        // just beside the sheet, towards the wall (edge-on from above, and out of the picture): background
        assert_eq!(at(Vec3::new(1.05, 0.5, 0.0)), BACKGROUND.to_u8());
        // the particle is drawn, in the next colour
        assert_ne!(at(Vec3::new(0.5, 0.5, 1.0)), sheet);
    }

    #[test]
    fn a_close_up_frames_its_ball_and_cuts_off_the_rest() {
        let dir = run_dir(3);
        // from above, a ball of 0.1 m about the sheet's corner (0, 0, 0): the corner at the
        // image's centre, the ball's width filling the image's height less its margins
        let above = View { azimuth_deg: 0.0, elevation_deg: 90.0 };
        let around = Some((Vec3::zeros(), 0.1));
        let options = RenderOptions { view: above, width: 200, height: 160, around, ..RenderOptions::default() };
        let camera = fit_camera(dir.path(), &options).unwrap();
        let corner = camera.project(&Vec3::zeros());
        assert!((corner.x - 100.0).abs() < 1e-9 && (corner.y - 80.0).abs() < 1e-9, "{corner:?}");
        let whole = fit_camera(dir.path(), &RenderOptions { around: None, ..options.clone() }).unwrap();
        assert!(camera.scale > 4.0 * whole.scale, "close up: {} px/m against {}", camera.scale, whole.scale);
        // the sheet's far corner falls outside the image, and the frames still draw
        let far = camera.project(&Vec3::new(1.0, 1.0, 0.0));
        assert!(far.x > 200.0 || far.x < 0.0 || far.y > 160.0 || far.y < 0.0, "{far:?}");
        let report = render_run(dir.path(), None, &options).unwrap();
        let image = encode::decode_png(&fs::read(&report.images[0]).unwrap()).unwrap();
        // a quarter of the image (the sheet's quadrant) is the sheet, the rest background
        let blue = body_colour(0).to_u8();
        let near = |p: [u8; 3]| p.iter().zip(blue).all(|(a, b)| a.abs_diff(b) < 60);
        let sheet =
            (0..200).flat_map(|x| (0..160).map(move |y| (x, y))).filter(|&(x, y)| near(image.pixel(x, y).unwrap()));
        let share = sheet.count() as f64 / (200.0 * 160.0);
        assert!((0.15..0.35).contains(&share), "the sheet covers {share} of the close-up");
        let bad = RenderOptions { around: Some((Vec3::zeros(), 0.0)), ..options };
        assert!(render_run(dir.path(), None, &bad).unwrap_err().to_string().contains("--around"));
    }

    #[test]
    fn the_rendering_is_deterministic_and_every_thins_the_frames() {
        let dir = run_dir(5);
        let out = dir.path().join("pictures");
        let options = RenderOptions { width: 64, height: 48, every: 2, ..RenderOptions::default() };
        let report = render_run(dir.path(), Some(&out), &options).unwrap();
        let names: Vec<String> =
            report.images.iter().map(|p| p.file_name().unwrap().to_string_lossy().into_owned()).collect();
        assert_eq!(names, ["frame_00000.png", "frame_00002.png", "frame_00004.png"]);
        let first: Vec<Vec<u8>> =
            report.images.iter().chain([&report.animation]).map(|p| fs::read(p).unwrap()).collect();
        // a stale image of an earlier rendering goes
        fs::write(out.join("frame_00001.png"), "stale").unwrap();
        let again = render_run(dir.path(), Some(&out), &options).unwrap();
        let second: Vec<Vec<u8>> =
            again.images.iter().chain([&again.animation]).map(|p| fs::read(p).unwrap()).collect();
        assert_eq!(first, second);
        assert!(!out.join("frame_00001.png").exists());
        // 2 frames of 1/50 s apart: 4 hundredths per GIF frame
        assert_eq!(gif_delay(dir.path(), 2), 4);
    }

    #[test]
    fn a_static_body_is_an_obstacle_and_an_enclosing_one_is_cut_away() {
        let dir = run_dir(2);
        // a static closed box around the moving particle, as a third body
        let mut frames = frame_files(dir.path(), "frames", "obj").unwrap();
        frames.sort();
        let cube = crate::mesh::box_surface([2.0, 2.0, 2.0], 2).unwrap();
        for f in &frames {
            let mut text = fs::read_to_string(f).unwrap();
            text.push_str("o box\n");
            for p in &cube.positions {
                text.push_str(&format!("v {} {} {}\n", p.x + 0.5, p.y + 0.5, p.z + 1.0));
            }
            for t in &cube.triangles {
                text.push_str(&format!("f {} {} {}\n", t[0] + 8, t[1] + 8, t[2] + 8));
            }
            fs::write(f, text).unwrap();
        }
        let list = list_frames(dir.path()).unwrap();
        // seen from −x: the wall at x = 3 is behind everything
        let from_minus_x =
            RenderOptions { view: View { azimuth_deg: 180.0, elevation_deg: 25.0 }, ..RenderOptions::default() };
        let survey = Survey::of(&list, &from_minus_x).unwrap();
        assert_eq!(survey.roles[0], Role::Body(body_colour(0)));
        assert_eq!(survey.roles[1], Role::Obstacle { cutaway: None });
        assert!(
            matches!(survey.roles[2], Role::Obstacle { cutaway: Some(c) } if (c - Vec3::new(0.5, 0.5, 1.0)).norm() < 1e-12)
        );
        assert_eq!(survey.particle_colour, body_colour(1));
        // seen from +x, the wall at x = 3 stands in front of the sheet and the particle
        let from_x = RenderOptions { view: View { azimuth_deg: 0.0, elevation_deg: 10.0 }, ..RenderOptions::default() };
        assert_eq!(Survey::of(&list, &from_x).unwrap().roles[1], Role::Hidden);
    }

    #[test]
    fn bad_input_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("nope");
        let e = render_run(&missing, None, &RenderOptions::default()).unwrap_err();
        assert!(matches!(&e, RenderError::Input { path, .. } if path == &missing), "{e}");
        let e = render_run(dir.path(), None, &RenderOptions::default()).unwrap_err();
        assert!(e.to_string().contains("avicontact run"), "{e}");
        let run = run_dir(2);
        fs::write(run.path().join("frames/frame_00001.obj"), "o sheet\nv 0 0 0\nf 1 2 3\n").unwrap();
        let e = render_run(run.path(), None, &RenderOptions::default()).unwrap_err();
        assert!(e.to_string().contains("frame_00001.obj: line 3"), "{e}");
        assert!(!run.path().join("render").exists(), "nothing written for bad input");
        let e = render_run(run.path(), None, &RenderOptions { width: 3, ..RenderOptions::default() }).unwrap_err();
        assert!(e.to_string().contains("width"), "{e}");
    }
}
