//! Scenes shared by the contact test files (`tests/contact.rs`, `tests/broad_phase.rs`), the
//! kinetic energy the energy tests (`tests/laws.rs`, `tests/ledger.rs`) recompute themselves, the
//! per-frame ledger rows of the external-force tests (`tests/wind.rs`, `tests/load.rs`), and the
//! irregular meshes of `irregular.rs`.
#![allow(dead_code)] // each test file uses a subset

pub mod irregular;

use avicontact::ids::VertexId;
use avicontact::model::Model;

/// ½ Σ m‖v‖² over the vertices with finite kick mass (held and scripted ones excluded), computed
/// from the raw velocities and masses, without the engine's `FrameStats`.
pub fn kinetic_energy(model: &Model) -> f64 {
    let v = &model.vertices;
    (0..v.len())
        .map(|i| VertexId(i as u32))
        .filter(|&i| v.effective_mass(i).is_finite())
        .map(|i| 0.5 * v.mass(i) * v.velocity(i).norm_squared())
        .sum()
}

/// A scene from TOML text, its error as text (`file` names it in messages).
pub fn parse_scene(text: &str, file: &str) -> Result<avicontact::scene::Scene, String> {
    avicontact::scene::parse(text, file, std::path::Path::new("."), "test".into()).map_err(|e| e.to_string())
}

/// One frame of a run with external forces (`tests/wind.rs`, `tests/load.rs`): time, momentum of
/// the free vertices, mechanical energy (kinetic recomputed here), dissipated, external work.
pub type LedgerRow = (f64, [f64; 3], f64, f64, f64);

/// Collects a [`LedgerRow`] per frame.
#[derive(Default)]
pub struct LedgerRows(pub Vec<LedgerRow>);

impl avicontact::observe::Observer for LedgerRows {
    fn on_frame(&mut self, f: &avicontact::observe::Frame<'_>) -> Result<(), avicontact::observe::ObserverError> {
        let v = &f.model.vertices;
        let mut p = [0.0; 3];
        for i in 0..v.len() {
            let id = VertexId(i as u32);
            if v.effective_mass(id).is_finite() {
                let mv = v.velocity(id) * v.mass(id);
                for k in 0..3 {
                    p[k] += mv[k];
                }
            }
        }
        let energy = kinetic_energy(f.model) + f.stats.potential;
        self.0.push((f.time.seconds(), p, energy, f.stats.dissipated, f.stats.external_work));
        Ok(())
    }
}

/// Runs the scene `text` to `duration` on the AVI or (`sync`) the synchronous backend, a
/// [`LedgerRow`] per frame.
pub fn ledger_rows(text: &str, sync: bool, duration: f64) -> Vec<LedgerRow> {
    let s = parse_scene(text, "test scene").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = match sync {
        false => avicontact::Simulation::new(s.model, s.forces, s.parameters).unwrap(),
        true => avicontact::Simulation::new_sync(s.model, s.forces, s.parameters, s.sync).unwrap(),
    };
    let mut rows = LedgerRows::default();
    sim.advance_to(duration, &mut rows).unwrap();
    rows.0
}

/// Asserts that `rows` keep `total + dissipated − external_work` at its start within `tolerance`
/// times the larger of the energy's swing and the external work, and that the external forces
/// did at least `least_work` J (`what` names the run in messages).
pub fn assert_ledger_closes(rows: &[LedgerRow], tolerance: f64, least_work: f64, what: &str) {
    let balance = |r: &LedgerRow| r.2 + r.3 - r.4;
    let work: f64 = rows.iter().map(|r| r.4.abs()).fold(0.0, f64::max);
    assert!(work > least_work, "{what}: the external forces did {work} J");
    // the swing of the energy itself, for scale: the ledger must explain it
    let swing = rows.iter().map(|r| (r.2 - rows[0].2).abs()).fold(0.0, f64::max);
    let gap = rows.iter().map(|r| (balance(r) - balance(&rows[0])).abs()).fold(0.0, f64::max);
    assert!(
        gap <= tolerance * swing.max(work),
        "{what}: balance moved {gap} J (energy swing {swing} J, work {work} J)"
    );
}

/// Two spherical shells (membrane and bending) colliding off-centre in free space: vertex–triangle
/// and edge–edge pairs between them, self-contact pairs within each.
pub fn colliding_shells(subdivisions: u32, tolerance: f64, profitability: f64) -> String {
    format!(
        r#"
[simulation]
duration = 1.2
frame_rate = 25.0
gravity = [0.0, 0.0, 0.0]
[contact]
thickness = 0.01
stiffness = 200.0
tolerance = {tolerance}
profitability = {profitability}
[[body]]
name = "a"
kind = "shell"
mesh = {{ generator = "icosphere", radius = 0.1, subdivisions = {subdivisions} }}
transform = {{ translate = [-0.16, 0.03, 0.0] }}
density = 1.0
stretching = 100.0
bending = 0.01
velocity = [0.5, 0.0, 0.02]
angular_velocity = [0.0, 0.0, 2.0]
[[body]]
name = "b"
kind = "shell"
mesh = {{ generator = "icosphere", radius = 0.1, subdivisions = {subdivisions} }}
transform = {{ translate = [0.16, -0.03, 0.01] }}
density = 2.0
stretching = 100.0
bending = 0.01
velocity = [-0.4, 0.05, 0.0]
"#
    )
}

/// A sheet lying on a floor whose right half is flung up about its middle line (ω = 25 rad/s), so
/// it folds over onto its left half (self-contact, friction), for `duration` s.
pub fn folding_sheet(duration: f64) -> String {
    let velocities: Vec<String> = (0..49)
        .map(|k| {
            let x = -0.15 + 0.05 * (k % 7) as f64;
            format!("[0.0, 0.0, {}]", if x > 0.0 { 25.0 * x } else { 0.0 })
        })
        .collect();
    format!(
        r#"
[simulation]
duration = {duration}
frame_rate = 50.0
gravity = [0.0, 0.0, -9.8]
[contact]
thickness = 0.004
stiffness = 100.0
friction = 0.3
[[body]]
name = "sheet"
kind = "shell"
mesh = {{ generator = "grid", size = [0.3, 0.3], resolution = [7, 7] }}
transform = {{ translate = [0.0, 0.0, 0.01] }}
density = 0.2
stretching = 50.0
bending = 0.0002
stretch_damping = 0.02
velocities = [{}]
[[body]]
name = "floor"
kind = "obstacle"
mesh = {{ generator = "plane", size = [2.0, 2.0] }}
transform = {{ translate = [0.31, 0.29, 0.0] }}
"#,
        velocities.join(", ")
    )
}

/// The built-in `spikes` scene (report §8.6) with 6 × 16 cloths instead of 26 × 77: its pulled
/// side is then the bottom cloth's vertices 90..=95, and `pull` replaces the scene's script
/// `velocity = [0.0, 0.1, 0.0], start = 1.5` (keys of a scripted entry, as text).
pub fn coarse_spikes(pull: &str) -> String {
    let full: Vec<String> = (1976..2002).map(|i| i.to_string()).collect();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/spikes.toml"))
        .unwrap()
        .replace("resolution = [26, 77]", "resolution = [6, 16]")
        .replace(&format!("vertices = [{}]", full.join(", ")), "vertices = [90, 91, 92, 93, 94, 95]")
        .replace("velocity = [0.0, 0.1, 0.0], start = 1.5", pull);
    assert!(text.contains("[6, 16]") && text.contains("[90, 91") && text.contains(pull), "the scene changed");
    text
}

/// A clamped stiff card (5 × 6 vertices, stretching 1e6 N/m, bending 0.01 N·m, its first two rows
/// held) that a thumb (a cylinder obstacle under it near the tip, moving at (0, 0.15, 0.15) m/s)
/// bends up and slides past, so that it snaps back and rings; `card_keys` are added to the card.
pub fn card_under_a_thumb(duration: f64, card_keys: &str) -> String {
    let card = format!(
        "mesh = {{ generator = \"grid\", size = [0.063, 0.067], resolution = [5, 6] }}\n\
         transform = {{ translate = [0.0, -0.0105, 0.0] }}\ndensity = 0.3\nstretching = 1e6\nbending = 0.01\n\
         fixed = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]\n{card_keys}"
    );
    thumb_under(duration, 0.018, [0.15, 0.15], &card)
}

/// A body "card" (a shell with the keys `card`) and a thumb: a 6 mm cylinder obstacle along x
/// under it at y = `thumb_y`, 7.2 mm below its plane, moved at (0, v_y, v_z) = `velocity` m/s for
/// 0.25 s; gravity, contact η(1) = 0.5 mm, r(1) = 1000 N/m; `duration` s at 60 frames/s.
pub fn thumb_under(duration: f64, thumb_y: f64, velocity: [f64; 2], card: &str) -> String {
    let [vy, vz] = velocity;
    format!(
        r#"
[simulation]
duration = {duration}
frame_rate = 60.0
gravity = [0.0, 0.0, -9.8]

[contact]
thickness = 0.0005
stiffness = 1000.0
tolerance = 1.0

[[body]]
name = "thumb"
kind = "obstacle"
mesh = {{ generator = "cylinder", radius = 0.006, height = 0.08, segments = 16, rings = 4 }}
transform = {{ rotate_deg = [0.0, 90.0, 0.0], translate = [0.0, {thumb_y:?}, -0.0072] }}
scripted = [{{ velocity = [0.0, {vy:?}, {vz:?}], stop = 0.25 }}]

[[body]]
name = "card"
kind = "shell"
{card}"#
    )
}

/// A ribbon hanging from its top edge under gravity, its lowest vertex pulled aside by a ramped
/// `[[load]]` (`tests/load.rs`, `tests/checkpoint.rs`).
pub const HANGING_RIBBON: &str = r#"
[simulation]
duration = 1.0
frame_rate = 20.0
gravity = [0.0, 0.0, -9.8]
[sync]
integrator = "implicit-midpoint"
timestep = 0.002
[[load]]
body = "ribbon"
vertices = [0]
force = [0.02, 0.01, 0.0]
start = 0.05
ramp = 0.2
[[body]]
name = "ribbon"
kind = "shell"
mesh = { generator = "grid", size = [0.1, 0.3], resolution = [3, 9] }
transform = { rotate_deg = [90.0, 0.0, 0.0] }
density = 0.1
stretching = 100.0
bending = 0.0001
fixed = [24, 25, 26]
"#;
