//! The kinetic broad phases (issue 4): the hash grid (Phantom §4) and the k-DOP hierarchy (ACM
//! §5.5–5.6) give the frames of all pairs (law 5), never miss a pair closer than the reach 1.1·η(1) (audited at
//! every event over random motions and random `broad_phase_slack`, and for the grid random cell
//! sizes), and free the pairs (and
//! for the k-DOP hierarchy the certificates) of primitives that came apart.

mod common;

use avicontact::avi::BroadPhaseKind;
use avicontact::observe::{EventRecord, Frame, Observer, ObserverError};
use avicontact::scene;
use avicontact::Simulation;
use nalgebra::Vector3;
use proptest::prelude::*;
use std::path::Path;

type V3 = Vector3<f64>;

/// Vertex positions at every frame.
#[derive(Default)]
struct Frames(Vec<Vec<V3>>);

impl Observer for Frames {
    fn on_event(&mut self, _: &EventRecord) {}

    fn on_frame(&mut self, f: &Frame<'_>) -> Result<(), ObserverError> {
        self.0.push(f.positions.to_vec());
        Ok(())
    }
}

/// Runs `text` with `broad_phase` up to `end` s, event by event. The audit (every pair guarded, no
/// pair outliving its overlap, no two primitives closer than the reach without a pair) runs at the end,
/// and with `audit_every = Some(k)` after every `k`-th event.
fn run(text: &str, broad_phase: BroadPhaseKind, audit_every: Option<u64>, end: f64) -> (Simulation, Frames) {
    let mut s = scene::parse(text, "test", Path::new("."), "test".into()).unwrap_or_else(|e| panic!("{e}"));
    s.parameters.contact.as_mut().expect("a contact scene").broad_phase = broad_phase;
    let mut sim = Simulation::new(s.model, s.forces, s.parameters).unwrap_or_else(|e| panic!("{e}"));
    let mut frames = Frames::default();
    let mut events = 0u64;
    while sim.avi().unwrap().next_time().is_some_and(|t| t.seconds() <= end) {
        sim.step_event(&mut frames).unwrap_or_else(|e| panic!("{e}"));
        events += 1;
        if audit_every.is_some_and(|k| events.is_multiple_of(k)) {
            let contact = sim.avi().unwrap().contact().unwrap();
            contact.audit(sim.model(), sim.now()).unwrap_or_else(|e| panic!("{broad_phase:?}: {e}"));
        }
    }
    let contact = sim.avi().unwrap().contact().unwrap();
    contact.audit(sim.model(), sim.now()).unwrap_or_else(|e| panic!("{broad_phase:?}: {e}"));
    (sim, frames)
}

/// 27 spheres with scattered velocities in a closed box under gravity.
fn spheres_in_a_box() -> String {
    let mut positions = Vec::new();
    let mut velocities = Vec::new();
    for k in 0..27 {
        let (i, j, l) = (k % 3, (k / 3) % 3, k / 9);
        positions.push(format!("[{}, {}, {}]", -0.6 + 0.6 * i as f64, -0.6 + 0.6 * j as f64, -0.6 + 0.6 * l as f64));
        let s = (k as f64 * 1.7).sin();
        let c = (k as f64 * 2.3).cos();
        velocities.push(format!("[{}, {}, {}]", 3.0 * s, 3.0 * c, 2.0 * s * c));
    }
    let wall = |name: &str, rotate: [f64; 3], translate: [f64; 3]| {
        format!(
            "[[body]]\nname = \"{name}\"\nkind = \"obstacle\"\nmesh = {{ generator = \"plane\", size = [2.0, 2.0] }}\n\
             transform = {{ rotate_deg = {rotate:?}, translate = {translate:?} }}\n"
        )
    };
    let walls = [
        wall("floor", [0.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
        wall("ceiling", [180.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
        wall("left", [0.0, 90.0, 0.0], [-1.0, 0.0, 0.0]),
        wall("right", [0.0, -90.0, 0.0], [1.0, 0.0, 0.0]),
        wall("front", [-90.0, 0.0, 0.0], [0.0, -1.0, 0.0]),
        wall("back", [90.0, 0.0, 0.0], [0.0, 1.0, 0.0]),
    ];
    format!(
        r#"
[simulation]
duration = 1.0
frame_rate = 20.0
gravity = [0.0, 0.0, -9.8]
[contact]
thickness = 0.02
stiffness = 1000.0
[[body]]
name = "balls"
kind = "particles"
radius = 0.1
mass = 1.0
positions = [{}]
velocities = [{}]
{}"#,
        positions.join(", "),
        velocities.join(", "),
        walls.join("")
    )
}

/// Largest distance between the same vertex in the same frame of two runs, m.
fn largest_difference(a: &Frames, b: &Frames) -> f64 {
    assert_eq!(a.0.len(), b.0.len(), "as many frames");
    a.0.iter().zip(&b.0).flat_map(|(x, y)| x.iter().zip(y).map(|(p, q)| (p - q).norm())).fold(0.0, f64::max)
}

/// The scenes of the law-5 tests, with how long to run each: body–body and self-contact between
/// shells, a sheet folding onto itself on a floor (with friction), spheres against each other and
/// the walls of a box (for 0.4 s: later, the many collisions amplify round-off), and the built-in
/// sheet draped on a sphere with friction, where many layers tick at the same instants in an order
/// that differs between broad phases (for 0.25 s: later, friction in sticking contact amplifies
/// round-off, and a 1e-16 m shift of the start grows to 1e-10 m by 0.27 s and 6e-6 m by 0.4 s).
fn law5_scenes() -> [(&'static str, String, f64); 4] {
    [
        ("shells", common::colliding_shells(1, 0.1, 1.1), 1.2),
        ("folding sheet", common::folding_sheet(0.3), 0.3),
        ("box", spheres_in_a_box(), 0.4),
        ("sheet on sphere", include_str!("../scenes/sheet-on-sphere.toml").to_string(), 0.25),
    ]
}

#[test]
fn the_hash_grid_gives_the_frames_of_all_pairs() {
    // law 5 over the four scenes of `law5_scenes`; the grid runs at its default cell size and at
    // half and three times it, and at its default cell with four times the default slack (more
    // pairs)
    for (name, text, end) in law5_scenes() {
        let (_, reference) = run(&text, BroadPhaseKind::AllPairs, None, end);
        let (sim, grid) = run(&text, BroadPhaseKind::HashGrid { cell_size: None }, None, end);
        let contact = sim.avi().unwrap().contact().unwrap();
        let cell = contact.cell_size().expect("a hash grid");
        let pairs = contact.peak_pair_count();
        assert!(contact.deepest_layer() >= 1, "{name}: no contact happened");
        let mut worst = largest_difference(&reference, &grid);
        for factor in [0.5, 3.0] {
            let (_, other) = run(&text, BroadPhaseKind::HashGrid { cell_size: Some(factor * cell) }, None, end);
            worst = worst.max(largest_difference(&reference, &other));
        }
        let slack = with_slack(&text, Some(0.2 * cell));
        let (sim, other) = run(&slack, BroadPhaseKind::HashGrid { cell_size: None }, None, end);
        let wide = sim.avi().unwrap().contact().unwrap().peak_pair_count();
        assert!(wide > pairs, "{name}: four times the slack holds more pairs ({wide} against {pairs})");
        worst = worst.max(largest_difference(&reference, &other));
        println!("{name}: cell {cell:.4} m, largest difference from all pairs {worst:.2e} m");
        assert!(worst < 1e-9, "{name}: the hash grid moved a vertex by {worst} m");
    }
}

/// How often the law-5 run of the k-DOP hierarchy is audited: every event cost 2½ minutes of
/// CI, mostly on the sheet draped on the sphere; one event in 16 still catches a missed pair
/// within a few events of the miss.
const AUDIT_STRIDE: u64 = 16;

#[test]
fn the_kdop_hierarchy_gives_the_frames_of_all_pairs() {
    // law 5 for the k-DOP hierarchy (ACM §5.5) on the same four scenes, audited at every
    // AUDIT_STRIDE-th event (the property test below audits every event of random motions), and
    // (not audited) at four times its default slack
    for (name, text, end) in law5_scenes() {
        let (_, reference) = run(&text, BroadPhaseKind::AllPairs, None, end);
        let (sim, kdop) = run(&text, BroadPhaseKind::Kdop, Some(AUDIT_STRIDE), end);
        let contact = sim.avi().unwrap().contact().unwrap();
        assert!(contact.deepest_layer() >= 1, "{name}: no contact happened");
        assert!(contact.kdop_certificates() > 0, "{name}: a k-DOP front exists");
        let slack = with_slack(&text, Some(4.0 * contact.broad_phase_slack()));
        let (_, wide) = run(&slack, BroadPhaseKind::Kdop, None, end);
        let worst = largest_difference(&reference, &kdop).max(largest_difference(&reference, &wide));
        let events = sim.counters().events_by_kind().get("kdop").copied().unwrap_or(0);
        println!("{name}: {events} k-DOP events, largest difference from all pairs {worst:.2e} m");
        assert!(worst < 1e-9, "{name}: the k-DOP hierarchy moved a vertex by {worst} m");
    }
}

#[test]
fn pairs_are_freed_when_contact_ends() {
    // the shells start apart, collide and fly apart again: the pairs made for the collision are
    // removed when their primitives stop overlapping (near anchored shapes, or leaf 26-DOPs), and the audit
    // at the end finds no pair that outlived its overlap and no close primitives without one
    for broad_phase in [BroadPhaseKind::HashGrid { cell_size: None }, BroadPhaseKind::Kdop] {
        let (sim, _) = run(&common::colliding_shells(1, 0.1, 1.1), broad_phase, None, 1.2);
        let contact = sim.avi().unwrap().contact().unwrap();
        let (created, removed) = contact.pairs_created_and_removed();
        let (peak, end) = (contact.peak_pair_count(), contact.pair_count());
        println!("{broad_phase:?}: pairs: peak {peak}, at the end {end}, made {created}, removed {removed}");
        assert!(created > 0 && removed > 0, "{broad_phase:?}: the broad phase made and freed pairs");
        assert!(end < peak, "{broad_phase:?}: the collision's pairs were freed: {end} at the end, {peak} at the peak");
    }
}

#[test]
fn pairs_return_to_those_still_overlapping_after_a_drape_is_pulled_away() {
    // the built-in sheet-on-sphere: the sheet drapes until 0.4 s, then one edge (vertices 0–7) is
    // pulled up at 2 m/s for 0.6 s and the sheet hangs from it, far above the sphere. The pairs
    // made for the drape go: at the end the audit finds every live pair still overlapping and none
    // missing, and fewer pairs live than at the peak (with the reach 1.1·η(1), none)
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/sheet-on-sphere.toml"))
        .unwrap()
        .replace(
            "stretch_damping = 0.05",
            "stretch_damping = 0.05\nscripted = [{ vertices = [0, 1, 2, 3, 4, 5, 6, 7], velocity = [0.0, 0.0, 2.0], start = 0.4, stop = 1.0 }]",
        );
    assert!(text.contains("scripted"));
    let (sim, _) = run(&text, BroadPhaseKind::HashGrid { cell_size: None }, None, 1.1);
    let contact = sim.avi().unwrap().contact().unwrap();
    let (peak, end) = (contact.peak_pair_count(), contact.pair_count());
    let (created, removed) = contact.pairs_created_and_removed();
    let lowest = sim.model().vertices.positions().iter().take(64).map(|x| x.z).fold(f64::INFINITY, f64::min);
    println!("drape and lift: peak {peak} pairs, {end} at the end; made {created}, removed {removed}; lowest sheet vertex at z = {lowest:.3} m");
    assert!(contact.deepest_layer() >= 1, "the sheet draped on the sphere");
    assert!(lowest > 0.2 + 0.05, "the sheet was lifted clear of the sphere: lowest vertex at {lowest}");
    assert!(removed > 0 && end < peak, "the drape's pairs were freed: {end} at the end, {peak} at the peak");

    // the k-DOP hierarchy on the same drape and lift: its front descends where the sheet touches
    // the sphere and merges back once the sheet has gone, so its certificates return to (within a
    // tenth of) their number at the start, and every pair still alive overlaps (audited)
    let mut s = scene::parse(&text, "test", Path::new("."), "test".into()).unwrap_or_else(|e| panic!("{e}"));
    s.parameters.contact.as_mut().unwrap().broad_phase = BroadPhaseKind::Kdop;
    let mut sim = Simulation::new(s.model, s.forces, s.parameters).unwrap_or_else(|e| panic!("{e}"));
    let certificates = |sim: &Simulation| sim.avi().unwrap().contact().unwrap().kdop_certificates();
    let start = certificates(&sim);
    let mut peak_certificates = start;
    while sim.avi().unwrap().next_time().is_some_and(|t| t.seconds() <= 1.1) {
        sim.step_event(&mut ()).unwrap_or_else(|e| panic!("{e}"));
        peak_certificates = peak_certificates.max(certificates(&sim));
    }
    let contact = sim.avi().unwrap().contact().unwrap();
    contact.audit(sim.model(), sim.now()).unwrap_or_else(|e| panic!("k-DOP: {e}"));
    let end_certificates = certificates(&sim);
    let (peak, end) = (contact.peak_pair_count(), contact.pair_count());
    println!(
        "k-DOP drape and lift: certificates {start} at the start, peak {peak_certificates}, {end_certificates} at the end; pairs peak {peak}, {end} at the end"
    );
    assert!(contact.deepest_layer() >= 1, "k-DOP: the sheet draped on the sphere");
    assert!(end < peak, "k-DOP: the drape's pairs were freed: {end} at the end, {peak} at the peak");
    assert!(
        end_certificates < peak_certificates && end_certificates <= start + start / 10,
        "k-DOP: the front coarsened back: {end_certificates} certificates at the end, {start} at the start, {peak_certificates} at the peak"
    );
}

#[test]
fn after_the_spikes_pull_out_the_pulled_cloths_pairs_are_freed() {
    // the issue's memory check on its own scene, at the size of the spikes test in
    // tests/contact.rs: 6 × 16 cloths drape on the spikes; from 0.2 s to 0.4 s the bottom cloth
    // is pulled 0.6 m along its length, out from under the top one and off the plate. At 0.5 s
    // the pulled cloth's pairs are gone: under half the peak's pairs are left (measured with the
    // scene's ε = 0.3 m/s: grid 5 954 -> 64, k-DOP 4 578 -> 202), each still overlapping and
    // none missing (the audit). The k-DOP front itself does not shrink (176 468 records at the
    // peak and at the end): leaf pairs whose parents still overlap keep their records, a known
    // cost of the front (docs/performance.md), so only its pairs are checked
    let text = common::coarse_spikes("velocity = [0.0, 3.0, 0.0], start = 0.2, stop = 0.4");
    for broad_phase in [BroadPhaseKind::HashGrid { cell_size: None }, BroadPhaseKind::Kdop] {
        let mut s = scene::parse(&text, "test", Path::new("."), "test".into()).unwrap_or_else(|e| panic!("{e}"));
        s.parameters.contact.as_mut().unwrap().broad_phase = broad_phase;
        let mut sim = Simulation::new(s.model, s.forces, s.parameters).unwrap_or_else(|e| panic!("{e}"));
        let certificates = |sim: &Simulation| sim.avi().unwrap().contact().unwrap().kdop_certificates();
        let mut peak_certificates = certificates(&sim);
        while sim.avi().unwrap().next_time().is_some_and(|t| t.seconds() <= 0.5) {
            sim.step_event(&mut ()).unwrap_or_else(|e| panic!("{e}"));
            peak_certificates = peak_certificates.max(certificates(&sim));
        }
        let contact = sim.avi().unwrap().contact().unwrap();
        contact.audit(sim.model(), sim.now()).unwrap_or_else(|e| panic!("{broad_phase:?}: {e}"));
        let (peak, end) = (contact.peak_pair_count(), contact.pair_count());
        let end_certificates = certificates(&sim);
        // the bottom cloth is vertices 256..352 (the plate has 256); its near end left the plate
        let nearest = sim.model().vertices.positions()[256..352].iter().map(|x| x.y).fold(f64::INFINITY, f64::min);
        println!(
            "{broad_phase:?}: pairs peak {peak}, {end} at the end; k-DOP certificates peak {peak_certificates}, \
             {end_certificates} at the end; the pulled cloth's near end at y = {nearest:.3} m"
        );
        assert!(contact.deepest_layer() >= 1, "{broad_phase:?}: the cloths landed");
        assert!(nearest > 0.1, "{broad_phase:?}: the pulled cloth left the plate (y > 0.1): {nearest}");
        assert!(
            2 * end < peak,
            "{broad_phase:?}: the pull-out's pairs were freed: {end} at the end, {peak} at the peak"
        );
    }
}

#[test]
fn a_kdop_pair_whose_overlap_certificate_never_fails_is_freed_after_its_tube_moves() {
    // ε = 0 and a sphere at rest within the reach of a floor: the overlap certificate of their
    // leaf pair can never fail on those tubes (nothing moves apart), so it is watched; gravity
    // pointing up then carries the sphere away, every kick moves its tube, and the watched
    // certificate is re-checked and frees the pair (a scheduled certificate alone never would)
    let text = r#"
[simulation]
duration = 1.0
frame_rate = 10.0
gravity = [0.0, 0.0, 9.8]
[contact]
thickness = 0.01
stiffness = 100.0
tolerance = 0.0
[[body]]
name = "floor"
kind = "obstacle"
mesh = { generator = "plane", size = [1.0, 1.0] }
[[body]]
name = "ball"
kind = "particles"
radius = 0.05
mass = 0.1
positions = [[0.1, 0.05, 0.07]]
"#;
    let mut s = scene::parse(text, "test", Path::new("."), "test".into()).unwrap_or_else(|e| panic!("{e}"));
    s.parameters.contact.as_mut().unwrap().broad_phase = BroadPhaseKind::Kdop;
    let mut sim = Simulation::new(s.model, s.forces, s.parameters).unwrap_or_else(|e| panic!("{e}"));
    let at_start = sim.avi().unwrap().contact().unwrap().pair_count();
    assert!(at_start > 0, "the sphere starts within the reach of the floor");
    sim.advance_to(1.0, &mut ()).unwrap_or_else(|e| panic!("{e}"));
    let contact = sim.avi().unwrap().contact().unwrap();
    contact.audit(sim.model(), sim.now()).unwrap_or_else(|e| panic!("{e}"));
    let height = sim.model().vertices.positions()[sim.model().vertices.len() - 1].z;
    assert!(height > 4.0, "the sphere rose: z = {height}");
    assert_eq!(contact.pair_count(), 0, "{at_start} pairs at the start; none is left once the sphere is gone");
}

/// Six spheres with velocities `speeds` and a small sheet spinning at `spin` rad/s about y.
fn random_spheres_and_sheet(speeds: &[[f64; 3]], spin: f64) -> String {
    let velocities: Vec<String> = speeds.iter().map(|v| format!("{v:?}")).collect();
    format!(
        r#"
[simulation]
duration = 0.4
frame_rate = 10.0
gravity = [0.0, 0.0, 0.0]
[contact]
thickness = 0.01
stiffness = 100.0
[[body]]
name = "balls"
kind = "particles"
radius = 0.04
mass = 0.1
positions = [[-0.2, 0.0, 0.1], [0.2, 0.0, 0.1], [0.0, 0.2, 0.1], [0.0, -0.2, 0.1], [0.0, 0.0, 0.3], [0.15, 0.15, -0.15]]
velocities = [{}]
[[body]]
name = "sheet"
kind = "shell"
mesh = {{ generator = "grid", size = [0.3, 0.3], resolution = [4, 4] }}
density = 0.5
stretching = 50.0
bending = 0.001
angular_velocity = [0.0, {spin}, 0.0]
"#,
        velocities.join(", ")
    )
}

/// `text` with `[contact] broad_phase_slack = slack` when one is given.
fn with_slack(text: &str, slack: Option<f64>) -> String {
    match slack {
        None => text.to_string(),
        Some(slack) => text.replacen("[contact]", &format!("[contact]\nbroad_phase_slack = {slack}"), 1),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, .. ProptestConfig::default() })]

    /// No missed contact: spheres and a small sheet with random velocities, on a grid of random
    /// cell size and random slack (the default, or a scene's `broad_phase_slack` from 0.1 mm to
    /// 10 cm), audited at every event.
    #[test]
    fn the_hash_grid_never_misses_a_close_pair(
        cell in 0.02f64..1.0,
        slack in prop::option::of(1e-4f64..0.1),
        speeds in prop::collection::vec(prop::array::uniform3(-2.0f64..2.0), 6),
        spin in -10.0f64..10.0,
    ) {
        let text = with_slack(&random_spheres_and_sheet(&speeds, spin), slack);
        run(&text, BroadPhaseKind::HashGrid { cell_size: Some(cell) }, Some(1), 0.4);
    }

    /// No missed contact with the k-DOP hierarchy: the same random scenes and slacks, audited at
    /// every event.
    #[test]
    fn the_kdop_hierarchy_never_misses_a_close_pair(
        slack in prop::option::of(1e-4f64..0.1),
        speeds in prop::collection::vec(prop::array::uniform3(-2.0f64..2.0), 6),
        spin in -10.0f64..10.0,
    ) {
        run(&with_slack(&random_spheres_and_sheet(&speeds, spin), slack), BroadPhaseKind::Kdop, Some(1), 0.4);
    }
}

#[test]
fn a_broad_phase_certificate_that_fails_at_its_own_renewal_stops_the_run_instead_of_looping() {
    // speeds of 1e200 m/s (a scene refuses them: their kinetic energy overflows) put every
    // renewal of a grid certificate at the instant it was made; the engine must stop, not loop
    let text = "[simulation]\nduration = 0.1\nframe_rate = 30.0\ngravity = [0.0, 0.0, 0.0]\n[contact]\n\
                thickness = 0.02\nstiffness = 1000.0\n[[body]]\nname = \"balls\"\nkind = \"particles\"\n\
                radius = 0.1\nmass = 1.0\npositions = [[0.0, 0.0, 0.0], [0.5, 0.0, 0.0]]\n";
    let mut s = scene::parse(text, "test scene", Path::new("."), "test".into()).unwrap();
    for i in 0..2 {
        s.model.vertices.set_velocity(avicontact::ids::VertexId(i), Vector3::new(1e200, 0.0, 0.0));
    }
    let mut sim = s.into_simulation(avicontact::backend::BackendKind::Avi).unwrap();
    let e = sim.advance_to(0.1, &mut ()).unwrap_err().to_string();
    assert!(e.contains("the instant it was renewed"), "{e}");
}
