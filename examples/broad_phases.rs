//! The three AVI broad phases side by side on one scene (issue 4; law 5): all pairs, the kinetic
//! hash grid (Phantom §4) and the kinetic k-DOP hierarchy (ACM §5.5–5.6). For each it prints the
//! wall time, the events by kind, the pairs alive at the end and at the peak, the peak contact
//! bookkeeping per vertex, and how far its final positions are from the first broad phase's (the
//! same trajectory up to round-off, law 5; friction in sticking contact amplifies round-off, so on
//! `sheet-on-sphere` after 0.4 s they are about 1e-8 m apart, where a 1e-16 m shift of the start
//! moves the same run by 6e-6 m; see `docs/contact.md`).
//!
//! `cargo run --release --example broad_phases [-- SCENE [DURATION] [--skip-all-pairs]]`
//! (default: the built-in `sheet-on-sphere` for 0.4 s; SCENE is a built-in name or a scene file;
//! all pairs grows with the square of the mesh, so skip it on large scenes)

use avicontact::avi::BroadPhaseKind;
use avicontact::scene;
use avicontact::Simulation;
use nalgebra::Vector3;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let skip_all_pairs = args.iter().any(|a| a == "--skip-all-pairs");
    let positional: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let name = positional.first().map_or("sheet-on-sphere", |s| s.as_str());
    let duration: f64 = positional.get(1).map_or(0.4, |d| d.parse().expect("DURATION is a number of seconds"));
    let mut kinds = vec![
        ("all pairs", BroadPhaseKind::AllPairs),
        ("hash grid", BroadPhaseKind::HashGrid { cell_size: None }),
        ("k-DOP", BroadPhaseKind::Kdop),
    ];
    if skip_all_pairs {
        kinds.remove(0);
    }
    println!("{name}, {duration} s simulated");
    let mut reference: Option<Vec<Vector3<f64>>> = None;
    for (label, kind) in kinds {
        let mut s = scene::load(name).unwrap_or_else(|e| panic!("{e}"));
        s.parameters.duration = duration;
        s.parameters.contact.as_mut().expect("a scene with [contact]").broad_phase = kind;
        let mut sim = Simulation::new(s.model, s.forces, s.parameters).unwrap_or_else(|e| panic!("{e}"));
        let start = Instant::now();
        sim.run(&mut ()).unwrap_or_else(|e| panic!("{label}: {e}"));
        let wall = start.elapsed().as_secs_f64();
        let positions = sim.model().vertices.positions().to_vec();
        let difference = reference
            .as_ref()
            .map_or(0.0, |r| r.iter().zip(&positions).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max));
        reference.get_or_insert(positions);
        let contact = sim.avi().and_then(|e| e.contact()).expect("AVI contact");
        let events: Vec<String> =
            sim.counters().events_by_kind().iter().map(|(kind, n)| format!("{kind} {n}")).collect();
        println!(
            "{label:>9}: {wall:.2} s wall; pairs {} at the end, {} at the peak; {:.0} bytes per vertex at the peak; \
             largest difference from the first {difference:.1e} m\n           events: {}",
            contact.pair_count(),
            contact.peak_pair_count(),
            contact.peak_bookkeeping_bytes() as f64 / sim.model().vertices.len() as f64,
            events.join(", ")
        );
    }
}
