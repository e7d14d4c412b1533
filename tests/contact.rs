//! Contact on the AVI backend (issue 3): the pogo spring of ACM §3 / report §8.1 against its two
//! broken variants, the particle between two walls of report §9, spheres in a box, momentum in
//! collisions, law 5 over vagueness and profitability, law 8 (simultaneous events in either
//! order), safety by `check` and the audit, restitution, friction, inextensibility, and refusal of
//! intersecting starts.

mod common;

use avicontact::avi::ContactVariant;
use avicontact::ids::VertexId;
use avicontact::observe::{EventKind, EventRecord, Frame, Observer, ObserverError};
use avicontact::scene;
use avicontact::Simulation;
use nalgebra::Vector3;
use std::path::Path;

type V3 = Vector3<f64>;

fn simulation(text: &str) -> Simulation {
    let s = scene::parse(text, "test", Path::new("."), "test".into()).unwrap_or_else(|e| panic!("{e}"));
    Simulation::new(s.model, s.forces, s.parameters).unwrap_or_else(|e| panic!("{e}"))
}

/// Energy, positions and momenta per frame; every layer event checked against its clock.
#[derive(Default)]
struct Record {
    frames: Vec<(f64, f64, Vec<V3>, V3, V3)>,
    layer_events: u64,
    off_clock: Vec<String>,
}

impl Observer for Record {
    fn on_event(&mut self, e: &EventRecord) {
        if e.kind == EventKind::Layer {
            self.layer_events += 1;
            if e.time.seconds() != e.tick as f64 * e.period {
                self.off_clock.push(format!("layer event at {} is not a multiple of {}", e.time.seconds(), e.period));
            }
        }
    }

    fn on_frame(&mut self, f: &Frame<'_>) -> Result<(), ObserverError> {
        let v = &f.model.vertices;
        let (mut p, mut l) = (V3::zeros(), V3::zeros());
        for (i, x) in f.positions.iter().enumerate() {
            let id = VertexId(i as u32);
            if v.effective_mass(id).is_finite() {
                p += v.velocity(id) * v.mass(id);
                l += x.cross(&(v.velocity(id) * v.mass(id)));
            }
        }
        self.frames.push((f.time.seconds(), f.stats.total(), f.positions.to_vec(), p, l));
        Ok(())
    }
}

/// Largest distance between the same vertex in the same frame of two records, m.
fn largest_difference(a: &Record, b: &Record) -> f64 {
    assert_eq!(a.frames.len(), b.frames.len(), "as many frames");
    a.frames
        .iter()
        .zip(&b.frames)
        .flat_map(|(x, y)| x.2.iter().zip(&y.2).map(|(p, q)| (p - q).norm()))
        .fold(0.0, f64::max)
}

fn slope(samples: &[(f64, f64)]) -> f64 {
    let n = samples.len() as f64;
    let (mt, my) = samples.iter().fold((0.0, 0.0), |(a, b), (t, y)| (a + t / n, b + y / n));
    samples.iter().map(|(t, y)| (t - mt) * (y - my)).sum::<f64>()
        / samples.iter().map(|(t, _)| (t - mt).powi(2)).sum::<f64>()
}

#[test]
fn particle_between_two_walls_keeps_its_energy_and_stays_out() {
    // far from the walls' diagonals (two-triangle planes), so only one triangle of each wall is near
    // (r₁ = 1, η = 1, the report's sixth case, is not passed yet: the pair is driven through
    // the layers and the run stops with a Zeno error; see the issue note)
    for (r1, eta) in [(1.0, 1.0), (1.0, 0.1), (0.1, 1.0), (0.1, 0.1), (0.01, 1.0), (0.01, 0.1)] {
        let text = format!(
            r#"
[simulation]
duration = 40.0
frame_rate = 10.0
gravity = [0.0, 0.0, 0.0]
[contact]
thickness = {eta}
stiffness = {r1}
safety_factor = 0.02
[[body]]
name = "p"
kind = "particles"
radius = 0.05
mass = 1.0
positions = [[0.0, 20.0, 20.0]]
velocity = [1.0, 0.0, 0.0]
[[body]]
name = "left"
kind = "obstacle"
mesh = {{ generator = "grid", size = [100.0, 100.0], resolution = [2, 2] }}
transform = {{ rotate_deg = [0.0, 90.0, 0.0], translate = [-2.5, 0.0, 0.0] }}
[[body]]
name = "right"
kind = "obstacle"
mesh = {{ generator = "grid", size = [100.0, 100.0], resolution = [2, 2] }}
transform = {{ rotate_deg = [0.0, 90.0, 0.0], translate = [2.5, 0.0, 0.0] }}
"#
        );
        let mut sim = simulation(&text);
        let mut r = Record::default();
        sim.run(&mut r).unwrap();
        let e0 = r.frames[0].1;
        let xmax = r.frames.iter().map(|f| f.2[0].x.abs()).fold(0.0, f64::max);
        assert!(xmax + 0.05 < 2.5, "r₁ = {r1}, η = {eta}: the particle reached a wall: |x| = {xmax}");
        // between contacts the energy is kinetic only: compare those frames
        let free: Vec<(f64, f64)> =
            r.frames.iter().filter(|f| f.2[0].x.abs() + 0.05 < 2.5 - eta).map(|f| (f.0, f.1)).collect();
        let spread = free.iter().map(|f| ((f.1 - e0) / e0).abs()).fold(0.0, f64::max);
        let drift = slope(&free) * 40.0 / e0;
        println!("r₁ = {r1}, η = {eta}: deepest |x| {xmax:.4}, energy spread between contacts {spread:.2e}, fitted change over the run {drift:.2e}, layer events {}", r.layer_events);
        assert!(spread < 0.015, "r₁ = {r1}, η = {eta}: energy changed by {spread}");
        assert!(drift.abs() < 0.015, "r₁ = {r1}, η = {eta}: energy drifts by {drift} over the run");
        assert!(r.layer_events > 0 && r.off_clock.is_empty());
    }
}

#[test]
fn colliding_particles_keep_linear_and_angular_momentum() {
    let text = r#"
[simulation]
duration = 3.0
frame_rate = 20.0
gravity = [0.0, 0.0, 0.0]
[contact]
thickness = 0.02
stiffness = 100.0
[[body]]
name = "a"
kind = "particles"
radius = 0.1
mass = 1.0
positions = [[-1.0, 0.05, 0.0]]
velocity = [1.0, 0.0, 0.1]
[[body]]
name = "b"
kind = "particles"
radius = 0.1
mass = 2.5
positions = [[1.0, -0.05, 0.02]]
velocity = [-0.7, 0.1, 0.0]
"#;
    let mut sim = simulation(text);
    let mut r = Record::default();
    sim.run(&mut r).unwrap();
    assert!(r.layer_events > 0, "they collided");
    let (p0, l0) = (r.frames[0].3, r.frames[0].4);
    for f in &r.frames {
        assert!((f.3 - p0).norm() <= 1e-12 * p0.norm(), "linear momentum {} vs {p0}", f.3);
        assert!((f.4 - l0).norm() <= 1e-12 * l0.norm(), "angular momentum {} vs {l0}", f.4);
    }
    // and they bounced apart
    let last = r.frames.last().unwrap();
    assert!(last.2[0].x < last.2[1].x - 0.2);
    assert!(sim.avi().unwrap().contact().unwrap().deepest_layer() >= 1);
}

#[test]
fn an_intersecting_start_is_refused_naming_the_pair() {
    let text = r#"
[contact]
thickness = 0.1
[[body]]
name = "p"
kind = "particles"
radius = 0.05
mass = 1.0
positions = [[0.0, 0.0, 0.02]]
[[body]]
name = "ground"
kind = "obstacle"
mesh = { generator = "grid", size = [1.0, 1.0], resolution = [2, 2] }
"#;
    let s = scene::parse(text, "test", Path::new("."), "test".into()).unwrap();
    let violation = s.contact_violation.as_ref().expect("the start is inside the layers").to_string();
    assert!(violation.contains("particle 0 of \"p\"") && violation.contains("of \"ground\""), "{violation}");
    let e = Simulation::new(s.model, s.forces, s.parameters).unwrap_err();
    assert!(e.to_string().contains("below the contact thickness"), "{e}");
}

/// Runs `text` event by event; with `audit`, checks after each one that every contact pair is
/// guarded by active layers or a slab that still separates its vertices.
fn run_events(text: &str, audit: bool) -> (Simulation, Record) {
    run_events_until(text, 1.2, audit)
}

/// [`run_events`] up to `end` seconds.
fn run_events_until(text: &str, end: f64, audit: bool) -> (Simulation, Record) {
    let mut sim = simulation(text);
    let mut r = Record::default();
    while sim.avi().unwrap().next_time().is_some_and(|t| t.seconds() <= end) {
        sim.step_event(&mut r).unwrap();
        if audit {
            let contact = sim.avi().unwrap().contact().unwrap();
            contact.audit(sim.model(), sim.now()).unwrap_or_else(|e| panic!("{e}"));
        }
    }
    (sim, r)
}

#[test]
fn colliding_shells_keep_momentum_and_bounce_apart() {
    let (sim, r) = run_events(&common::colliding_shells(1, 0.1, 1.1), false);
    let contact = sim.avi().unwrap().contact().unwrap();
    assert!(
        r.layer_events > 100 && contact.deepest_layer() >= 1,
        "the shells collided: {} layer events",
        r.layer_events
    );
    assert!(r.off_clock.is_empty(), "{:?}", &r.off_clock[..r.off_clock.len().min(3)]);
    let (p0, l0) = (r.frames[0].3, r.frames[0].4);
    for f in &r.frames {
        assert!((f.3 - p0).norm() <= 1e-12 * p0.norm(), "linear momentum {} vs {p0} at t = {}", f.3, f.0);
        assert!((f.4 - l0).norm() <= 1e-12 * l0.norm(), "angular momentum {} vs {l0} at t = {}", f.4, f.0);
    }
    // they bounced: the centres separate again
    let centre = |x: &[V3], range: std::ops::Range<usize>| range.clone().map(|i| x[i]).sum::<V3>() / range.len() as f64;
    let last = &r.frames.last().unwrap().2;
    let (ca, cb) = (centre(last, 0..42), centre(last, 42..84));
    assert!(cb.x - ca.x > 0.25, "the shells bounced apart: centres {ca} {cb}");
    println!(
        "shells: {} pairs, deepest layer {}, smallest gap {:.2e} m, {} reschedules, {} kicks inside the tubes",
        contact.pair_count(),
        contact.deepest_layer(),
        contact.smallest_gap(),
        contact.reschedules(),
        contact.vague_skips()
    );
}

#[test]
fn vagueness_and_profitability_change_the_cost_not_the_trajectory() {
    // law 5: certificates only skip ticks whose impulse is zero, so the frames agree to round-off;
    // every event of every run is audited
    let (reference, r0) = run_events(&common::colliding_shells(0, 0.0, 1.1), true);
    assert!(r0.layer_events > 100, "the shells collided");
    for (tolerance, profitability) in [(0.1, 1.1), (0.0, 2.0), (0.5, 1.5)] {
        let (sim, r) = run_events(&common::colliding_shells(0, tolerance, profitability), true);
        let worst = largest_difference(&r, &r0);
        let c = sim.avi().unwrap().contact().unwrap();
        let c0 = reference.avi().unwrap().contact().unwrap();
        println!(
            "ε = {tolerance}, profitability {profitability}: largest position difference {worst:.1e} m; reschedules {} vs {}",
            c.reschedules(),
            c0.reschedules()
        );
        assert!(worst < 1e-9, "ε = {tolerance}, profitability {profitability}: frames differ by {worst} m");
    }
}

/// The order of events: time (bits), label and tick of each.
#[derive(Default)]
struct EventOrder(Vec<(u64, &'static str, u64)>);

impl Observer for EventOrder {
    fn on_event(&mut self, e: &EventRecord) {
        self.0.push((e.time.seconds().to_bits(), e.label, e.tick));
    }
}

#[test]
fn simultaneous_contact_events_give_the_same_frames_in_either_order() {
    // law 8 with contact: on the built-in sheet draped on a sphere (friction 0.1), and with
    // restitution 0.5 added, many layers tick at the same instants. Popping equal times in the
    // reverse order must give the same frames up to round-off: friction, the biphasic layer and
    // layer retirement read the velocity a stencil arrived with, not one that an earlier event at
    // the same instant has kicked. Up to 0.25 s and 0.15 s: later, friction in sticking contact and
    // the switch of the biphasic layer amplify round-off (a 1e-16 m shift of the start grows to
    // 6e-6 m by 0.4 s, and with restitution to 1e-11 m by 0.17 s and 2e-7 m by 0.23 s).
    // These two cases keep the exact stable periods, so that ties are mostly between layers. With
    // the default period ladder, elements of the same shape share a period and their ticks tie
    // too: then the round-off of kicks summed in the other order grows the same way, from 2e-16 m
    // at 0.1 s to 2e-13 m at 0.15 s and 1e-8 m at 0.2 s, so that case runs to 0.15 s.
    let laddered = include_str!("../scenes/sheet-on-sphere.toml");
    let sheet = laddered.replace("[simulation]", "[simulation]\nperiod_rungs = 0");
    let bouncy = sheet.replace("friction = 0.1", "friction = 0.1\nrestitution = 0.5");
    assert_ne!(sheet, laddered);
    assert_ne!(sheet, bouncy);
    for (name, text, end) in [
        ("friction", sheet.clone(), 0.25),
        ("friction and restitution 0.5", bouncy, 0.15),
        ("friction, default period ladder", laddered.to_string(), 0.15),
    ] {
        let run = |reversed: bool| {
            let mut sim = simulation(&text);
            if reversed {
                sim.avi_mut().unwrap().reverse_ties();
            }
            let (mut r, mut order) = (Record::default(), EventOrder::default());
            while sim.avi().unwrap().next_time().is_some_and(|t| t.seconds() <= end) {
                sim.step_event(&mut (&mut r, &mut order)).unwrap();
            }
            (r, order.0)
        };
        let ((forward, forward_order), (backward, backward_order)) = (run(false), run(true));
        assert!(forward.layer_events > 1000, "{name}: the sheet reached the sphere");
        let swapped = forward_order.iter().zip(&backward_order).filter(|(a, b)| a != b).count();
        assert!(swapped > 1000, "{name}: reversing ties reordered only {swapped} events");
        let worst = largest_difference(&forward, &backward);
        println!("{name}: {} layer events; reversed ties move a vertex by {worst:.1e} m", forward.layer_events);
        assert!(worst < 1e-9, "{name}: reversing simultaneous events moved a vertex by {worst} m");
    }
}

/// `avicontact run SCENE --quiet --out OUT EXTRA…` must succeed and `avicontact check OUT` must
/// find no intersection; returns `summary.json` and what `check` printed.
fn run_and_check(scene: &str, out: &Path, extra: &[&str]) -> (serde_json::Value, String) {
    let bin = env!("CARGO_BIN_EXE_avicontact");
    let run = std::process::Command::new(bin)
        .args(["run", scene, "--quiet", "--out", out.to_str().unwrap()])
        .args(extra)
        .output()
        .unwrap();
    assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
    let summary = serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let check = std::process::Command::new(bin).arg("check").arg(out).output().unwrap();
    let report = String::from_utf8_lossy(&check.stdout).into_owned();
    assert!(check.status.success(), "{report}");
    (summary, report)
}

#[test]
fn a_sheet_draped_on_a_sphere_never_intersects_it_or_itself() {
    // safety (law 1): the audit after every event (every pair guarded, none missed by the grid)
    // and the independent exact checker on every written frame; to 0.3 s, past the landing's
    // peak of pairs (0.23 s), since the audit after each of its 114 000 events costs 0.4 ms
    let dir = std::env::temp_dir().join(format!("avicontact-sheet-on-sphere-{}", std::process::id()));
    let (summary, report) = run_and_check("sheet-on-sphere", &dir, &["--duration", "0.3", "--audit"]);
    assert!(summary["events_by_kind"]["layer"].as_u64().unwrap() > 1000, "the sheet landed: {summary}");
    assert!(report.contains("10 frames checked, no intersection"), "{report}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_projectile_at_100_m_per_s_never_passes_through_the_curtain() {
    // safety (law 1) at speed: the built-in curtain-projectile scene with a 5×5 curtain for the
    // first 5 ms, in which the projectile strikes and drives deep into the layers, audited after
    // every event and checked on every frame; then the built-in 8×8 scene, checked on every frame
    let dir = std::env::temp_dir().join(format!("avicontact-projectile-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/curtain-projectile.toml"))
        .unwrap()
        .replace("resolution = [8, 8]", "resolution = [5, 5]")
        .replace("fixed = [56, 57, 58, 59, 60, 61, 62, 63]", "fixed = [20, 21, 22, 23, 24]");
    let scene = dir.join("projectile.toml");
    std::fs::write(&scene, text).unwrap();
    let out = dir.join("out");
    let (summary, report) = run_and_check(scene.to_str().unwrap(), &out, &["--duration", "0.005", "--audit"]);
    let deepest = summary["deepest_layer"].as_u64().unwrap();
    println!("{report}; deepest layer {deepest}");
    assert!(deepest > 10, "the projectile drove deep into the layers: {deepest}");
    assert!(summary["events_by_kind"]["layer"].as_u64().unwrap() > 100_000, "the projectile struck: {summary}");
    assert!(report.contains("no intersection"), "{report}");
    // and the built-in scene itself (8×8 curtain, 10 ms), checked on every frame
    let (_, report) = run_and_check("curtain-projectile", &dir.join("full"), &[]);
    assert!(report.contains("no intersection"), "{report}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn cloths_draped_on_sliver_spikes_and_pulled_out_never_intersect() {
    // safety on degenerate geometry (report §8.6): the built-in spikes scene (36 spikes of six
    // 3.47° slivers) with 6 × 16 cloths instead of 26 × 77, the pull-out started at 0.2 s instead
    // of 1.5 s, run to 0.4 s: the cloths land on the spike tips, the bottom one is dragged 2 cm
    // across them; `check` tests every frame with exact predicates. The pulled side drapes freely
    // until the pull starts, as in the report: from the frames, it fell until 0.2 s and then
    // moved on its path from where it was.
    let dir = std::env::temp_dir().join(format!("avicontact-spikes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let text = common::coarse_spikes("velocity = [0.0, 0.1, 0.0], start = 0.2");
    assert!(text.contains("start = 0.2, before_start = \"free\""));
    let scene = dir.join("spikes.toml");
    std::fs::write(&scene, text).unwrap();
    let out = dir.join("out");
    let (summary, report) = run_and_check(scene.to_str().unwrap(), &out, &["--duration", "0.4"]);
    println!("{report}; deepest layer {}", summary["deepest_layer"]);
    assert!(summary["events_by_kind"]["layer"].as_u64().unwrap() > 100_000, "the cloths landed: {summary}");
    assert!(report.contains("13 frames checked, no intersection"), "{report}");
    let vertices = |frame: usize| -> Vec<[f64; 3]> {
        let text = std::fs::read_to_string(out.join(format!("frames/frame_{frame:05}.obj"))).unwrap();
        let coordinates = |line: &str| -> [f64; 3] {
            let v: Vec<f64> = line.split_whitespace().skip(1).map(|c| c.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        };
        text.lines().filter(|l| l.starts_with("v ")).map(coordinates).collect()
    };
    // the plate's vertices, then the bottom cloth's (6 × 16): its pulled side is 90..=95
    let plate = vertices(0).len() - 2 * 96;
    let pulled = plate + 90..=plate + 95;
    let (initial, at_start) = (vertices(0), vertices(6));
    for i in pulled.clone() {
        assert!(at_start[i][2] < initial[i][2] - 0.005, "vertex {i} fell before the pull: {:?}", at_start[i]);
        for frame in 7..=12 {
            let x = vertices(frame)[i];
            let dy = 0.1 * (frame as f64 / 30.0 - 0.2);
            let path = [at_start[i][0], at_start[i][1] + dy, at_start[i][2]];
            assert!((0..3).all(|d| (x[d] - path[d]).abs() < 1e-12), "vertex {i}, frame {frame}: {x:?} off {path:?}");
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// 27 spheres (radius 0.1 m, 1 kg) in a closed 1.5 m box with speeds up to `speed` m/s.
fn small_box(gravity: f64, restitution: f64, speed: f64, duration: f64, safety: f64) -> String {
    format!(
        r#"
[simulation]
duration = {duration}
frame_rate = 20.0
gravity = [0.0, 0.0, {gravity}]
[contact]
thickness = 0.02
stiffness = 1000.0
restitution = {restitution}
tolerance = 0.5
safety_factor = {safety}
[[body]]
name = "spheres"
kind = "particles"
radius = 0.1
mass = 1.0
positions = {{ generator = "lattice", min = [-0.5, -0.5, -0.5], max = [0.5, 0.5, 0.5], count = 27, seed = 3, max_speed = {speed} }}
[[body]]
name = "box"
kind = "obstacle"
mesh = {{ generator = "box", size = [1.5, 1.5, 1.5] }}
"#
    )
}

#[test]
fn spheres_in_a_box_keep_their_energy_without_gravity() {
    let mut sim = simulation(&small_box(0.0, 1.0, 3.0, 20.0, 0.02));
    let mut r = Record::default();
    sim.run(&mut r).unwrap();
    let e0 = r.frames[0].1;
    let energies: Vec<(f64, f64)> = r.frames.iter().map(|f| (f.0, f.1)).collect();
    let spread = energies.iter().map(|(_, e)| ((e - e0) / e0).abs()).fold(0.0, f64::max);
    let change = slope(&energies) * 20.0 / e0;
    let c = sim.avi().unwrap().contact().unwrap();
    println!(
        "27 spheres, 20 s: energy spread {spread:.2e}, fitted change {change:.2e}, {} layer events, deepest layer {}",
        r.layer_events,
        c.deepest_layer()
    );
    assert!(r.layer_events > 10_000, "many collisions");
    assert!(spread < 0.01 && change.abs() < 0.005, "spread {spread}, change {change}");
    assert!(r.off_clock.is_empty());
}

#[test]
fn restitution_below_one_dissipates_smoothly_and_faster_when_smaller() {
    let mut finals: Vec<(f64, f64, f64)> = Vec::new();
    for e in [1.0, 0.9, 0.8, 0.7, 0.5, 0.2, 0.0] {
        let mut sim = simulation(&small_box(-9.8, e, 3.0, 3.0, 0.05));
        let mut r = Record::default();
        sim.run(&mut r).unwrap();
        // energy above the lowest a sphere can have (resting on the floor, z = −0.75 + 0.1)
        let ground = 27.0 * 9.8 * -0.65;
        let e0 = r.frames[0].1 - ground;
        let relative: Vec<f64> = r.frames.iter().map(|f| (f.1 - ground) / e0).collect();
        // smooth: between frames the energy (taken between impacts or mid-impact) never jumps up
        // by more than a few percent of the start
        let worst_rise = relative.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        let last = *relative.last().unwrap();
        // how fast it decays: the mean over the run (the settled piles all end near the same level)
        let mean = relative.iter().sum::<f64>() / relative.len() as f64;
        println!("restitution {e}: mean energy {mean:.4} and final {last:.4} of the start, largest rise between frames {worst_rise:.2e}");
        if e < 1.0 {
            assert!(worst_rise < 0.05, "restitution {e}: energy rose by {worst_rise} between frames");
        }
        finals.push((e, mean, last));
    }
    assert!((finals[0].2 - 1.0).abs() < 0.02, "elastic: {:?}", finals[0]);
    // less restitution, faster decay; below 0.2 the spheres come to rest within a bounce or two and
    // e = 0.2 and e = 0 decay alike (mean energies within 3 % of each other)
    for w in finals.windows(2) {
        assert!(w[1].1 < w[0].1 * 1.03, "less restitution, less energy left: {w:?}");
    }
    assert!(finals[1].1 < 0.8 * finals[0].1 && finals[5].1 < 0.5 * finals[1].1, "{finals:?}");
}

/// The report's box (§8.2): the built-in 900 spheres (radius 0.1 m, random speeds up to 10 m/s,
/// 3 m box), with or without gravity, at `restitution` and layer safety factor `safety`, for
/// `duration` s.
fn report_box(gravity: bool, restitution: f64, duration: f64, safety: f64) -> (Simulation, Record) {
    let mut s = scene::load(if gravity { "particle-box-gravity" } else { "particle-box" }).unwrap();
    s.parameters.duration = duration;
    let contact = s.parameters.contact.as_mut().unwrap();
    contact.restitution = restitution;
    contact.safety = safety;
    let mut sim = Simulation::new(s.model, s.forces, s.parameters).unwrap_or_else(|e| panic!("{e}"));
    let mut r = Record::default();
    sim.run(&mut r).unwrap_or_else(|e| panic!("restitution {restitution}: {e}"));
    (sim, r)
}

#[test]
fn nine_hundred_spheres_in_the_reports_box_keep_their_energy() {
    // at the default layer safety 0.05 the many fast collisions gain +0.85 % in 2 s (the (h·ω)²
    // bias of each bounce, docs/contact.md); at 0.02 the bias is six times smaller
    let (sim, r) = report_box(false, 1.0, 1.0, 0.02);
    let e0 = r.frames[0].1;
    let energies: Vec<(f64, f64)> = r.frames.iter().map(|f| (f.0, f.1)).collect();
    let spread = energies.iter().map(|(_, e)| ((e - e0) / e0).abs()).fold(0.0, f64::max);
    let change = slope(&energies) / e0;
    let c = sim.avi().unwrap().contact().unwrap();
    println!(
        "900 spheres, 1 s: energy spread {spread:.2e}, fitted change {change:.2e}, {} layer events, deepest layer {}, {} pairs alive",
        r.layer_events,
        c.deepest_layer(),
        c.pair_count()
    );
    assert!(r.layer_events > 100_000, "many collisions");
    assert!(spread < 0.005 && change.abs() < 0.0025, "spread {spread}, change {change}");
    assert!(r.off_clock.is_empty());
}

#[test]
fn nine_hundred_spheres_under_gravity_lose_energy_faster_with_less_restitution() {
    // report §8.2 with gravity, restitution 1 … 0, 1 s each: the energy above the resting level
    // (every sphere on the floor) decays smoothly, and faster for smaller restitution
    let ground = 900.0 * 9.8 * (-1.5 + 0.1);
    let mut means: Vec<(f64, f64)> = Vec::new();
    for e in [1.0, 0.8, 0.5, 0.0] {
        let (_, r) = report_box(true, e, 1.0, 0.05);
        let e0 = r.frames[0].1 - ground;
        let relative: Vec<f64> = r.frames.iter().map(|f| (f.1 - ground) / e0).collect();
        let worst_rise = relative.windows(2).map(|w| w[1] - w[0]).fold(0.0, f64::max);
        let mean = relative.iter().sum::<f64>() / relative.len() as f64;
        let last = *relative.last().unwrap();
        println!("900 spheres, restitution {e}: mean energy {mean:.4}, final {last:.4} of the start, largest rise between frames {worst_rise:.2e}");
        assert!(worst_rise < 0.01, "restitution {e}: energy rose by {worst_rise} between frames");
        if e == 1.0 {
            assert!((last - 1.0).abs() < 0.01, "elastic: final energy {last} of the start");
        }
        means.push((e, mean));
    }
    // below 0.2 the spheres stop within a bounce or two (measured: e = 0.2 and e = 0 decay within
    // 1 % of each other), so the tolerance; four values of e, not seven, to keep CI short
    // (measured means at 1, 0.9, 0.8, 0.7, 0.5, 0.2: 1.00, 0.64, 0.51, 0.45, 0.40, 0.37)
    for w in means.windows(2) {
        assert!(w[1].1 < w[0].1 * 1.03, "less restitution, less energy left: {w:?}");
    }
    assert!(means[1].1 < 0.8 * means[0].1 && means[3].1 < 0.85 * means[1].1, "{means:?}");
}

#[test]
fn inelastic_contact_leaves_at_most_the_papers_residual_speed() {
    // ACM §6.2: with e = 0 the layers can leave a separating speed of at most r(l)·η(l)·h(l) (per
    // unit mass) for each layer that acted
    let text = r#"
[simulation]
duration = 2.0
frame_rate = 100.0
gravity = [0.0, 0.0, 0.0]
[contact]
thickness = 0.05
stiffness = 100.0
restitution = 0.0
[[body]]
name = "ball"
kind = "particles"
radius = 0.1
mass = 1.0
positions = [[0.0, 0.0, 0.5]]
velocity = [0.0, 0.0, -1.0]
[[body]]
name = "floor"
kind = "obstacle"
mesh = { generator = "plane", size = [4.0, 4.0] }
"#;
    let mut sim = simulation(text);
    let mut r = Record::default();
    sim.run(&mut r).unwrap();
    let c = sim.avi().unwrap().contact().unwrap();
    let s = c.settings();
    let bound: f64 = (1..=c.deepest_layer())
        .map(|l| s.layers.stiffness(l) * s.layers.thickness(l) * s.layers.period(l, 1.0, s.safety))
        .sum();
    let residual = sim.model().vertices.velocity(VertexId(0)).z;
    println!(
        "e = 0: residual separating speed {residual:.3e} m/s, bound {bound:.3e} m/s over {} layers",
        c.deepest_layer()
    );
    assert!(c.deepest_layer() >= 1);
    assert!(residual.abs() <= bound, "residual {residual} above the bound {bound}");
    assert!(residual < 0.2, "the ball did not bounce back: {residual}");
}

#[test]
fn coulomb_friction_per_layer_stops_a_sliding_sphere_near_the_coulomb_distance() {
    // a sphere resting in its layers on a floor under gravity, launched sideways at 1 m/s with
    // μ = 0.5: kinetic friction decelerates it by about μ·g, so it stops after v²/(2μg) ≈ 0.102 m
    // (ACM §6.3 applies μ|J| at every layer impulse, without a cap)
    let text = r#"
[simulation]
duration = 1.0
frame_rate = 50.0
gravity = [0.0, 0.0, -9.8]
[contact]
thickness = 0.01
stiffness = 10000.0
friction = 0.5
[[body]]
name = "ball"
kind = "particles"
radius = 0.05
mass = 1.0
positions = [[-0.5, 0.2, 0.0605]]
velocity = [1.0, 0.0, 0.0]
[[body]]
name = "floor"
kind = "obstacle"
mesh = { generator = "plane", size = [4.0, 4.0] }
"#;
    let mut sim = simulation(text);
    let mut r = Record::default();
    sim.run(&mut r).unwrap();
    let slid = r.frames.last().unwrap().2[0].x + 0.5;
    let speed = sim.model().vertices.velocity(VertexId(0)).x;
    let expected = 1.0 / (2.0 * 0.5 * 9.8);
    println!("friction: slid {slid:.4} m (Coulomb {expected:.4} m), final speed {speed:.2e} m/s");
    assert!(speed.abs() < 0.05, "the sphere stopped sliding: {speed}");
    assert!((slid - expected).abs() < 0.1 * expected, "slid {slid} m, Coulomb predicts {expected} m");
    // frictionless, it keeps going
    let mut free = simulation(&text.replace("friction = 0.5", "friction = 0.0"));
    let mut r = Record::default();
    free.run(&mut r).unwrap();
    assert!(r.frames.last().unwrap().2[0].x + 0.5 > 0.95, "without friction it slides on");
}

#[test]
fn inextensible_edges_never_stretch_past_their_slack() {
    // ACM §7: a soft chain (springs of 1 N/m) hanging from one end and whipped by a 5 m/s kick at
    // its free end would stretch several-fold; with inextensible = 0.02 no edge ever leaves
    // (1 ± 0.02) of its rest length, in any frame or at any event
    let text = |inextensible: &str| {
        format!(
            r#"
[simulation]
duration = 2.0
frame_rate = 200.0
gravity = [0.0, 0.0, -9.8]
[contact]
thickness = 0.001
stiffness = 1000.0
[[body]]
name = "rope"
kind = "chain"
mesh = {{ generator = "line", start = [0.0, 0.0, 0.0], end = [1.0, 0.0, 0.0], segments = 10 }}
mass = 0.01
spring_stiffness = [1.0]
fixed = [0]
velocities = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 5.0]]
{inextensible}
"#
        )
    };
    let worst = |r: &Record| {
        r.frames
            .iter()
            .flat_map(|f| (0..10).map(move |i| ((f.2[i + 1] - f.2[i]).norm() / 0.1 - 1.0).abs()))
            .fold(0.0, f64::max)
    };
    let (_, elastic) = run_events_until(&text(""), 2.0, false);
    let (sim, r) = run_events_until(&text("inextensible = 0.02"), 2.0, true);
    let (soft, stiff) = (worst(&elastic), worst(&r));
    let c = sim.avi().unwrap().contact().unwrap();
    println!(
        "rope: largest strain {soft:.3} with springs only, {stiff:.4} inextensible (deepest layer {})",
        c.deepest_layer()
    );
    assert!(soft > 0.5, "the springs alone stretch: {soft}");
    assert!(stiff < 0.02, "an edge left its slack: strain {stiff}");
    assert!(c.deepest_layer() >= 1 && r.off_clock.is_empty());
}

#[test]
fn a_sheet_folding_onto_itself_passes_the_audit_at_every_event_and_check_on_every_frame() {
    // safety (law 1) with self-contact: a sheet lying on a floor whose right half is flung up about
    // its middle line (ω = 25 rad/s) folds over onto its left half. `run --audit` stops with exit 1
    // if any pair is unguarded after any event; `check` tests every frame with exact predicates.
    let dir = std::env::temp_dir().join(format!("avicontact-fold-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("fold.toml");
    std::fs::write(&scene, common::folding_sheet(0.5)).unwrap();
    let out = dir.join("out");
    run_and_check(scene.to_str().unwrap(), &out, &["--audit"]);
    // it folded: at the end, sheet vertices lie above other sheet vertices
    let last = std::fs::read_to_string(out.join("frames/frame_00025.obj")).unwrap();
    let x: Vec<V3> = last
        .lines()
        .filter(|l| l.starts_with("v "))
        .take(49)
        .map(|l| {
            let c: Vec<f64> = l.split_whitespace().skip(1).map(|w| w.parse().unwrap()).collect();
            V3::new(c[0], c[1], c[2])
        })
        .collect();
    let stacked = (0..49)
        .flat_map(|i| (0..49).map(move |j| (i, j)))
        .filter(|&(i, j)| (x[i].xy() - x[j].xy()).norm() < 0.03 && x[i].z - x[j].z > 0.003)
        .count();
    assert!(stacked > 10, "the sheet folded onto itself: {stacked} stacked vertex pairs");
    std::fs::remove_dir_all(&dir).ok();
}

/// The pogo spring of ACM §3 / report §8.1 (unit spring and masses, foot `height` above a plane,
/// gravity 1, η = 0.1, r₁ = 1000, layer safety 0.02) under `variant` for 700 s, gravity ticking
/// every 10 ms and the spring every 1 ms: the total energy at every frame where both ends are clear of the layers,
/// and how many times an end landed.
fn pogo(variant: ContactVariant, height: f64) -> (Vec<(f64, f64)>, usize) {
    let top = height + 1.0;
    let text = format!(
        r#"
[simulation]
duration = 700.0
frame_rate = 20.0
gravity = [0.0, 0.0, -1.0]
period = 0.01
[contact]
thickness = 0.1
stiffness = 1000.0
safety_factor = 0.02
[[body]]
name = "pogo"
kind = "chain"
mesh = {{ generator = "line", start = [1.0, 0.0, {height}], end = [1.0, 0.0, {top}], segments = 1 }}
mass = 1.0
spring_stiffness = [1.0]
stretch_period = 0.001
[[body]]
name = "ground"
kind = "obstacle"
mesh = {{ generator = "plane", size = [4.0, 4.0] }}
"#
    );
    let mut s = scene::parse(&text, "pogo", Path::new("."), "pogo".into()).unwrap_or_else(|e| panic!("{e}"));
    s.parameters.contact.as_mut().expect("the scene has contact").variant = variant;
    let mut sim = Simulation::new(s.model, s.forces, s.parameters).unwrap_or_else(|e| panic!("{e}"));
    let mut r = Record::default();
    sim.run(&mut r).unwrap_or_else(|e| panic!("{variant:?}: {e}"));
    let (mut landings, mut down) = (0, false);
    let mut flight = Vec::new();
    for (t, energy, x, ..) in &r.frames {
        let lowest = x[..2].iter().map(|x| x.z).fold(f64::INFINITY, f64::min);
        let near = lowest < 0.2;
        landings += usize::from(near && !down);
        down = near;
        if !near {
            flight.push((*t, *energy));
        }
    }
    (flight, landings)
}

#[test]
fn the_reflective_variant_is_an_exact_elastic_collision() {
    // so that its failure in the pogo test is the clock's (ACM §3), not a faulty impulse: two equal
    // spheres head-on exchange velocities at the instant their gap reaches η(1)
    let text = r#"
[simulation]
duration = 2.0
frame_rate = 10.0
gravity = [0.0, 0.0, 0.0]
[contact]
thickness = 0.05
stiffness = 100.0
[[body]]
name = "s"
kind = "particles"
radius = 0.1
mass = 1.0
positions = [[-1.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
velocities = [[1.5, 0.0, 0.0], [-0.5, 0.0, 0.0]]
"#;
    let mut s = scene::parse(text, "test", Path::new("."), "test".into()).unwrap_or_else(|e| panic!("{e}"));
    s.parameters.contact.as_mut().unwrap().variant = ContactVariant::ReflectiveImpulse;
    let mut sim = Simulation::new(s.model, s.forces, s.parameters).unwrap();
    let mut r = Record::default();
    sim.run(&mut r).unwrap();
    let v = &sim.model().vertices;
    let (va, vb) = (v.velocity(VertexId(0)), v.velocity(VertexId(1)));
    assert!((va - V3::new(-0.5, 0.0, 0.0)).norm() < 1e-12 && (vb - V3::new(1.5, 0.0, 0.0)).norm() < 1e-12, "{va} {vb}");
    // the impulse came when the centres were 2·0.1 + η apart: at t = (2 − 0.25)/2 s
    let x = r.frames.last().unwrap().2[0].x;
    let expected = -1.0 + 1.5 * 0.875 - 0.5 * (2.0 - 0.875);
    assert!((x - expected).abs() < 1e-9, "sphere a at {x}, expected {expected}");
}

#[test]
fn pogo_energy_oscillates_without_drift_only_with_regular_layer_clocks() {
    // ACM §3 / report §8.1, Fig. 2: the same test on the paper's method and on its two broken
    // variants. Per drop height, the late energy is the mean relative change over the last tenth of
    // the in-flight frames; "no drift" is an RMS over six drops below 2 %.
    let late_rms = |variant: ContactVariant| {
        let mut late = Vec::new();
        for height in [1.0, 1.05, 1.1, 1.15, 1.2, 1.25, 1.3, 1.35, 1.4, 1.45] {
            let (flight, landings) = pogo(variant, height);
            assert!(landings >= 100, "{variant:?}: only {landings} landings");
            let e0 = flight[0].1;
            let tail = &flight[flight.len() * 9 / 10..];
            late.push(tail.iter().map(|f| (f.1 - e0) / e0).sum::<f64>() / tail.len() as f64);
            if variant == ContactVariant::RegularLayers {
                let spread = flight.iter().map(|f| ((f.1 - e0) / e0).abs()).fold(0.0, f64::max);
                assert!(spread < 0.03, "height {height}: the energy moved by {spread} in flight");
            }
        }
        println!("{variant:?}: late energy change per drop {late:+.3?}");
        ((late.iter().map(|d| d * d).sum::<f64>() / late.len() as f64).sqrt(), late)
    };
    let drifts = |rms: f64| rms > 0.02;
    let (regular, _) = late_rms(ContactVariant::RegularLayers);
    assert!(!drifts(regular), "regular layer clocks: late energy off by {regular} (RMS)");
    let (restarted, late) = late_rms(ContactVariant::RestartedClocks);
    assert!(drifts(restarted), "restarted clocks were expected to drift: {restarted}");
    assert!(late.iter().all(|&d| d > 0.05), "restarted clocks inject energy systematically (ACM §3): {late:?}");
    let (reflected, late) = late_rms(ContactVariant::ReflectiveImpulse);
    assert!(drifts(reflected), "reflective impulses were expected to walk away: {reflected}");
    assert!(late.iter().any(|&d| d > 0.0) && late.iter().any(|&d| d < 0.0), "a random walk, not a trend: {late:?}");
}

/// The built-in `bar-collision` (a soft neo-Hookean chain hitting a wall at its own wave speed)
/// on the AVI for 1 s. Each bar's clock period is estimated once; the impact crushes the end
/// elements to a tenth of their length, where the neo-Hookean stiffness is 60 times its rest
/// value, so before the bars' compression was split off onto layers of its own
/// (`CompressionBarrier`) the first element was stepped through zero length at 0.034 s and the
/// energy rose from 5 J to 261 J at 0.25 s and 1469 J at 1 s (docs/contact.md, "A soft bar
/// crushed against a wall").
#[test]
fn a_soft_bar_hitting_a_wall_keeps_its_energy_and_its_order() {
    let text = include_str!("../scenes/bar-collision.toml").replace("duration = 4.0", "duration = 1.0");
    let mut sim = simulation(&text);
    let mut r = Record::default();
    sim.run(&mut r).unwrap();
    let e0 = r.frames[0].1;
    assert!((e0 - 5.0).abs() < 1e-9, "5 J at the start: {e0}");
    let worst = r.frames.iter().map(|f| ((f.1 - e0) / e0).abs()).fold(0.0, f64::max);
    // the chain's vertices stay in order along z: no element passes through zero length
    let shortest = r
        .frames
        .iter()
        .flat_map(|f| f.2[..31].windows(2).map(|w| (w[1].z - w[0].z) * 30.0).collect::<Vec<_>>())
        .fold(f64::INFINITY, f64::min);
    let c = sim.avi().unwrap().contact().unwrap();
    println!(
        "bar-collision, 1 s: largest energy change {worst:.2e}, shortest element {shortest:.3} of its rest length, \
         {} layer events, deepest layer {}, final momentum {:.3}",
        r.layer_events,
        c.deepest_layer(),
        r.frames.last().unwrap().3.z
    );
    // measured: at most 4.6 % (5.23 J at 0.83 s, while the end vertex rattles against the wall),
    // 5.12 J at 1 s
    assert!(worst < 0.06, "energy changed by {worst} of 5 J");
    let last = r.frames.last().unwrap().1;
    assert!(((last - e0) / e0).abs() < 0.04, "energy at 1 s: {last} J");
    assert!(shortest > 0.0, "an element was crushed through zero length ({shortest})");
    assert!(r.frames.last().unwrap().3.z > 0.0, "the bar bounced");
    assert!(r.off_clock.is_empty(), "{:?}", &r.off_clock[..r.off_clock.len().min(3)]);
}
