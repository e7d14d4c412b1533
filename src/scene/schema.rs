//! The TOML scene schema of `docs/scene-format.md` (the "Scene and CLI contract" of
//! `docs/design.md`), as serde types: the sections, and the tables bodies share (meshes,
//! transforms, scripts, particle positions). Each kind's own `[[body]]` keys are in `body/`.
//!
//! Every table denies unknown keys, so a typo is an error naming the key. Values are checked for
//! range in `build.rs` and `body/`, which know the body names for messages.

use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;

/// A whole scene file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneFile {
    /// `[simulation]`.
    #[serde(default)]
    pub simulation: SimulationSection,
    /// `[contact]`: penalty layers on the AVI backend, IPC on the synchronous one (`docs/contact.md`).
    pub contact: Option<ContactSection>,
    /// `[sync]` (used by the synchronous backend).
    pub sync: Option<SyncSection>,
    /// `[[wind]]`: pressure on shells' area along a direction, gusting (Phantom §5's cape).
    #[serde(default)]
    pub wind: Vec<WindSection>,
    /// `[[load]]`: a prescribed force on chosen vertices of a body (ACM §8's knots pulled by force).
    #[serde(default)]
    pub load: Vec<LoadSection>,
    /// `[[body]]`, read table by table by its kind (`body/`, before the rest of the file); the
    /// field names the table for the parser.
    #[serde(default, rename = "body")]
    _body: IgnoredAny,
}

/// `[[wind]]`: a force per area along `direction` on the named shells (`potential::Wind`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WindSection {
    /// Mean pressure, Pa (N/m² of rest area).
    pub pressure: f64,
    /// The direction the wind blows towards (normalised).
    #[serde(deserialize_with = "crate::scene::exact::array")]
    pub direction: [f64; 3],
    /// Relative gust amplitude in [0, 1] (default 0: steady).
    #[serde(default)]
    pub gust: f64,
    /// Period of the slower gust wave, s (default 1).
    #[serde(default = "one")]
    pub gust_period: f64,
    /// The shells it blows on (default: every shell).
    #[serde(default)]
    pub bodies: Option<Vec<String>>,
    /// Its clock period, s (default: as gravity's, the smallest of the scene's stable periods).
    #[serde(default)]
    pub period: Option<f64>,
}

/// `[[load]]`: a total force shared equally by chosen vertices of one body (`potential::Load`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LoadSection {
    /// The body's name.
    pub body: String,
    /// Indices in the body (default: every free vertex of it).
    #[serde(default)]
    pub vertices: Option<Vec<i64>>,
    /// The total force at full strength, N.
    #[serde(deserialize_with = "crate::scene::exact::array")]
    pub force: [f64; 3],
    /// When it starts to act, s (default 0).
    #[serde(default)]
    pub start: f64,
    /// When it stops, s (default: never).
    #[serde(default = "infinity")]
    pub stop: f64,
    /// Seconds over which it rises to full strength (default 0: at once).
    #[serde(default)]
    pub ramp: f64,
    /// Its clock period, s (default: as gravity's).
    #[serde(default)]
    pub period: Option<f64>,
}

/// `[simulation]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSection {
    /// Simulated seconds.
    #[serde(default = "defaults::duration")]
    pub duration: f64,
    /// Frames written per simulated second.
    #[serde(default = "defaults::frame_rate")]
    pub frame_rate: f64,
    /// m/s².
    #[serde(default = "defaults::gravity")]
    #[serde(deserialize_with = "crate::scene::exact::array")]
    pub gravity: [f64; 3],
    /// `"avi"` or `"sync"`.
    #[serde(default)]
    pub backend: Option<String>,
    /// Factor on every stable-step estimate, (0, 1].
    #[serde(default = "defaults::safety_factor")]
    pub safety_factor: f64,
    /// Rungs per octave that stable periods are rounded down to (a power of two; 0: exact).
    #[serde(default = "defaults::period_rungs")]
    pub period_rungs: u32,
    /// One common clock period for every potential, s (law 7 studies: the AVI is then Verlet).
    #[serde(default)]
    pub period: Option<f64>,
    /// The implicit step of phantom bodies, s (Phantom §3.2; default 1e-3).
    #[serde(default)]
    pub implicit_step: Option<f64>,
}

impl Default for SimulationSection {
    fn default() -> Self {
        SimulationSection {
            duration: defaults::duration(),
            frame_rate: defaults::frame_rate(),
            gravity: defaults::gravity(),
            backend: None,
            safety_factor: defaults::safety_factor(),
            period_rungs: defaults::period_rungs(),
            period: None,
            implicit_step: None,
        }
    }
}

mod defaults {
    pub fn duration() -> f64 {
        1.0
    }
    pub fn frame_rate() -> f64 {
        60.0
    }
    pub fn gravity() -> [f64; 3] {
        [0.0, 0.0, -9.8]
    }
    pub fn safety_factor() -> f64 {
        0.5
    }
    pub fn period_rungs() -> u32 {
        crate::events::PeriodLadder::DEFAULT.rungs()
    }
}

/// `[contact]` (ACM §4).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContactSection {
    /// η(1), m.
    pub thickness: Option<f64>,
    /// r(1).
    pub stiffness: Option<f64>,
    /// 0..1.
    pub restitution: Option<f64>,
    /// Coulomb μ.
    pub friction: Option<f64>,
    /// `hash-grid | kdop | all-pairs`.
    pub broad_phase: Option<String>,
    /// Velocity tolerance ε of vague trajectories, m/s (ACM §5.3).
    pub tolerance: Option<f64>,
    /// Slab profitability factor (> 1; ACM §5.1's 11/10).
    pub profitability: Option<f64>,
    /// Safety factor on the layers' stable periods (0, 1].
    pub safety_factor: Option<f64>,
    /// Hash-grid cell side, m (default: twice the mean edge length).
    pub cell_size: Option<f64>,
    /// Broad-phase hysteresis, m (hash grid and k-DOP; default: a twentieth of the grid's cell, a
    /// tenth of the default cell for the k-DOP hierarchy).
    pub broad_phase_slack: Option<f64>,
    /// The synchronous backend's contact: `ipc` (default) or `predictor-corrector`.
    pub model: Option<String>,
}

/// `[sync]`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SyncSection {
    /// Integrator name.
    pub integrator: Option<String>,
    /// s.
    pub timestep: Option<f64>,
    /// IPC d̂, m.
    pub barrier_distance: Option<f64>,
    /// IPC κ, N/m.
    pub barrier_stiffness: Option<f64>,
    /// A-search energy target.
    pub energy_target: Option<EnergyTarget>,
    /// A-search's [α_min, α_max].
    #[serde(default, deserialize_with = "crate::scene::exact::option")]
    pub alpha_range: Option<[f64; 2]>,
    /// Newton stops when its step is at most `newton_tolerance · timestep` (m).
    pub newton_tolerance: Option<f64>,
    /// Newton iterations per step at most.
    pub newton_max_iterations: Option<u32>,
    /// `cholesky | pcg`: how each Newton iteration's linear system is solved.
    pub linear_solver: Option<String>,
    /// `newton | local-global`: how the implicit solves are carried out.
    pub solver: Option<String>,
    /// Local/global iterations of the implicit-midpoint solve (the paper's 10).
    pub local_global_iterations: Option<u32>,
}

/// A-search energy target: exponential decay toward a ground level.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EnergyTarget {
    /// s.
    pub decay_half_life: Option<f64>,
    /// s.
    pub start: Option<f64>,
    /// Ground energy level the decay tends to, J.
    pub ground: Option<f64>,
}

/// `transform = { translate, rotate_deg, scale }`: scale, then rotate about x, y, z (degrees),
/// then translate.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Transform {
    /// m.
    #[serde(default)]
    #[serde(deserialize_with = "crate::scene::exact::array")]
    pub translate: [f64; 3],
    /// Degrees about x, y, z, applied in that order.
    #[serde(default)]
    #[serde(deserialize_with = "crate::scene::exact::array")]
    pub rotate_deg: [f64; 3],
    /// Uniform scale.
    #[serde(default = "one")]
    pub scale: f64,
}

fn one() -> f64 {
    1.0
}

impl Default for Transform {
    fn default() -> Self {
        Transform { translate: [0.0; 3], rotate_deg: [0.0; 3], scale: 1.0 }
    }
}

/// A scripted linear motion.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptSpec {
    /// Vertex indices; all of the body's when omitted.
    pub vertices: Option<Vec<i64>>,
    /// m/s.
    #[serde(deserialize_with = "crate::scene::exact::array")]
    pub velocity: [f64; 3],
    /// s.
    #[serde(default)]
    pub start: f64,
    /// s.
    #[serde(default = "infinity")]
    pub stop: f64,
    /// `"held"` (default: in place until `start`) or `"free"` (moving with the body until
    /// `start`, then scripted from where it is).
    #[serde(default)]
    pub before_start: Option<String>,
}

fn infinity() -> f64 {
    f64::INFINITY
}

/// `mesh = "file.obj"` or `mesh = { generator = …, … }`.
#[derive(Debug)]
pub enum MeshSpec {
    /// An OBJ file, relative to the scene file.
    File(String),
    /// A generator.
    Generator(Generator),
}

/// Mesh generators.
#[derive(Debug, Deserialize)]
#[serde(tag = "generator", rename_all = "lowercase", deny_unknown_fields)]
pub enum Generator {
    /// A rectangle of two triangles in the xy plane, centred (ground and walls for obstacles).
    Plane {
        /// m.
        #[serde(deserialize_with = "crate::scene::exact::array")]
        size: [f64; 2],
    },
    /// Sheet in the xy plane.
    Grid {
        /// m.
        #[serde(deserialize_with = "crate::scene::exact::array")]
        size: [f64; 2],
        /// Vertices along x and y.
        #[serde(deserialize_with = "crate::scene::exact::array")]
        resolution: [u32; 2],
    },
    /// Subdivided icosahedron.
    Icosphere {
        /// m.
        radius: f64,
        /// Subdivision steps.
        #[serde(default = "two")]
        subdivisions: u32,
    },
    /// Box surface.
    Box {
        /// m.
        #[serde(deserialize_with = "crate::scene::exact::array")]
        size: [f64; 3],
        /// Quads per face side (surface) or cells per side (solids).
        #[serde(default)]
        resolution: Option<BoxResolution>,
    },
    /// Cylinder along z, capped unless `caps = false` (an open tube).
    Cylinder {
        /// m.
        radius: f64,
        /// m.
        height: f64,
        /// Segments around.
        #[serde(default = "sixteen")]
        segments: u32,
        /// Pieces along the height (rings of vertices: `rings + 1`).
        #[serde(default = "one_u32")]
        rings: u32,
        /// Close both ends with a fan of triangles.
        #[serde(default = "yes")]
        caps: bool,
    },
    /// A hat open at the bottom: crown top, crown side and brim, about z (Phantom §5).
    Hat {
        /// The crown's radius, m.
        radius: f64,
        /// The crown's height, m.
        height: f64,
        /// The brim's width, m.
        brim: f64,
        /// Vertices around every ring.
        #[serde(default = "sixteen")]
        segments: u32,
        /// Rings on each of crown top, crown side and brim.
        #[serde(default = "two")]
        rings: u32,
    },
    /// Strip swept along a polyline, or along the smooth curve through its points.
    Ribbon {
        /// m.
        width: f64,
        /// Pieces along the path.
        segments: u32,
        /// Polyline, m; with `smooth`, the control points of a Catmull–Rom spline.
        #[serde(deserialize_with = "crate::scene::exact::list")]
        path: Vec<[f64; 3]>,
        /// Vertices across the width (default 2).
        #[serde(default = "two")]
        across: u32,
        /// Twist about the centre line over the whole length, degrees (default 0).
        #[serde(default)]
        twist: f64,
        /// Sweep along the centripetal Catmull–Rom spline through `path` instead of the polyline.
        #[serde(default)]
        smooth: bool,
    },
    /// A ribbon tied in a knot (issue 22): swept along a smooth centre line through the knot's
    /// control points; its gaps are checked against `[contact] thickness`.
    Knot {
        /// `"overhand"` (one ribbon) or `"reef"` (two).
        shape: String,
        /// The knot's size, m: the overhand knot's outer diameter; the reef knot's bights' turn
        /// diameter.
        size: f64,
        /// Length of each straight tail, m.
        tail: f64,
        /// The ribbon's width, m.
        width: f64,
        /// Pieces along the centre line.
        segments: u32,
        /// Vertices across the width (default 3).
        #[serde(default = "three")]
        across: u32,
        /// Twist about the centre line over the whole length, degrees (default 0).
        #[serde(default)]
        twist: f64,
    },
    /// A platonic solid with flat faces, subdivided (the trash compactor's, ACM §8).
    Platonic {
        /// `"tetrahedron"`, `"cube"`, `"octahedron"`, `"dodecahedron"` or `"icosahedron"`.
        solid: String,
        /// Circumradius, m.
        radius: f64,
        /// Times each triangle is split into 4 (default 0).
        #[serde(default)]
        subdivisions: u32,
    },
    /// A torus about z (the trash compactor's, ACM §8).
    Torus {
        /// Radius of the ring, m.
        major: f64,
        /// Radius of the tube, m.
        minor: f64,
        /// Vertices around the ring (default 16).
        #[serde(default = "sixteen")]
        segments: u32,
        /// Vertices around the tube (default 8).
        #[serde(default = "eight")]
        sides: u32,
    },
    /// The spiked plate of report §8.6 (obstacles): a square plate with `count × count` sliver
    /// spikes.
    Spikes {
        /// Plate side, m.
        size: f64,
        /// Spikes per side.
        count: u32,
        /// Spike height, m.
        height: f64,
        /// Apex angle of each side triangle, degrees.
        #[serde(default = "report_apex")]
        apex_deg: f64,
    },
    /// A solid ball of tetrahedra (solids only).
    Ball {
        /// m.
        radius: f64,
        /// Cells along a diameter.
        resolution: u32,
    },
    /// A straight chain of vertices (chains only).
    Line {
        /// m.
        #[serde(deserialize_with = "crate::scene::exact::array")]
        start: [f64; 3],
        /// m.
        #[serde(deserialize_with = "crate::scene::exact::array")]
        end: [f64; 3],
        /// Edges.
        segments: u32,
    },
}

/// `resolution = n` or `[nx, ny, nz]` for boxes (surfaces use the largest).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub enum BoxResolution {
    /// Same along every axis.
    Uniform(u32),
    /// Per axis.
    PerAxis(#[serde(deserialize_with = "crate::scene::exact::array")] [u32; 3]),
}

fn report_apex() -> f64 {
    3.47
}

fn two() -> u32 {
    2
}

fn three() -> u32 {
    3
}

fn eight() -> u32 {
    8
}

fn sixteen() -> u32 {
    16
}

fn one_u32() -> u32 {
    1
}

fn yes() -> bool {
    true
}

/// Particle positions: `{ generator = "lattice", … }` or `[[x, y, z], …]`.
#[derive(Debug)]
pub enum PositionsSpec {
    /// Explicit points, m.
    List(Vec<[f64; 3]>),
    /// A generator.
    Generator(ParticleGenerator),
}

/// Particle position generators.
#[derive(Debug, Deserialize)]
#[serde(tag = "generator", rename_all = "lowercase", deny_unknown_fields)]
pub enum ParticleGenerator {
    /// `count` points on a regular lattice filling the box [min, max], with random velocities of
    /// uniformly distributed direction and speed up to `max_speed` (seeded, portable).
    Lattice {
        /// m.
        #[serde(deserialize_with = "crate::scene::exact::array")]
        min: [f64; 3],
        /// m.
        #[serde(deserialize_with = "crate::scene::exact::array")]
        max: [f64; 3],
        /// Number of particles.
        count: u32,
        /// Random seed.
        #[serde(default)]
        seed: u64,
        /// m/s.
        #[serde(default)]
        max_speed: f64,
    },
}

/// Visits either a string or sequence (the short form) or a table (a generator).
struct EitherVisitor<T>(std::marker::PhantomData<T>, &'static str);

impl<'de> Visitor<'de> for EitherVisitor<MeshSpec> {
    type Value = MeshSpec;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.1)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<MeshSpec, E> {
        Ok(MeshSpec::File(v.to_owned()))
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<MeshSpec, A::Error> {
        Generator::deserialize(de::value::MapAccessDeserializer::new(map)).map(MeshSpec::Generator)
    }
}

impl<'de> Visitor<'de> for EitherVisitor<PositionsSpec> {
    type Value = PositionsSpec;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(self.1)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<PositionsSpec, A::Error> {
        crate::scene::exact::list(de::value::SeqAccessDeserializer::new(seq)).map(PositionsSpec::List)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<PositionsSpec, A::Error> {
        ParticleGenerator::deserialize(de::value::MapAccessDeserializer::new(map)).map(PositionsSpec::Generator)
    }
}

impl<'de> Deserialize<'de> for MeshSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EitherVisitor::<MeshSpec>(
            std::marker::PhantomData,
            "an OBJ path or a generator table such as { generator = \"grid\", size = [1.0, 1.0], resolution = [10, 10] }",
        ))
    }
}

impl<'de> Deserialize<'de> for PositionsSpec {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(EitherVisitor::<PositionsSpec>(
            std::marker::PhantomData,
            "a list of [x, y, z] points or a table such as { generator = \"lattice\", min = [..], max = [..], count = 100 }",
        ))
    }
}
