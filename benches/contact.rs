//! Cost of contact on the AVI backend (issues 3 and 4): time per simulated second for the sheet
//! draped on a sphere and the 900-sphere box, with all pairs and with the kinetic hash grid, and
//! the split of wall time between force events, penalty (layer) events, certificate events, grid
//! events and the re-certification after kicks (printed once per scene and broad phase from a
//! profiled window). Figures: docs/performance.md.
//!
//! Run: `cargo bench --bench contact`

use avicontact::avi::BroadPhaseKind;
use avicontact::scene;
use avicontact::Simulation;
use criterion::{criterion_group, criterion_main, Criterion};
use std::time::{Duration, Instant};

/// A built-in scene with `broad_phase`, advanced to `warm` seconds (the sheet has landed; the
/// spheres collide), with an effectively endless duration.
fn scene_at(name: &str, broad_phase: BroadPhaseKind, warm: f64) -> Simulation {
    let mut s = scene::load(name).expect("built-in scene");
    s.parameters.duration = 1.0e9;
    s.parameters.contact.as_mut().expect("a contact scene").broad_phase = broad_phase;
    let mut sim = Simulation::new(s.model, s.forces, s.parameters).expect("bench simulation");
    sim.advance_to(warm, &mut ()).expect("warm-up");
    sim
}

/// Prints where a profiled `window` of simulated time goes.
fn print_split(name: &str, sim: &mut Simulation, window: f64) {
    let engine = sim.avi_mut().expect("AVI backend");
    engine.set_profile(true);
    let before = engine.counters().clone();
    let t = sim.now().seconds() + window;
    sim.advance_to(t, &mut ()).expect("profiled window");
    let after = sim.counters().clone();
    let seconds = after.seconds_by_kind();
    let rescheduling = after.rescheduling_seconds - before.rescheduling_seconds;
    let total: f64 = seconds.values().sum::<f64>() + rescheduling;
    let share = |label: &str| 100.0 * seconds.get(label).copied().unwrap_or(0.0) / total;
    let events = |label: &str| {
        after.events_by_kind().get(label).copied().unwrap_or(0)
            - before.events_by_kind().get(label).copied().unwrap_or(0)
    };
    eprintln!(
        "{name}: {:.3} s of wall time per simulated second; force events {:.1} %, layer events {:.1} % ({} events), \
         certificate events {:.1} % ({} events), grid events {:.1} % ({} events), rescheduling {:.1} %; \
         {} pairs alive",
        total / window,
        share("force"),
        share("layer"),
        events("layer"),
        share("certificate"),
        events("certificate"),
        share("grid"),
        events("grid"),
        100.0 * rescheduling / total,
        sim.avi().and_then(|e| e.contact()).map_or(0, |c| c.pair_count())
    );
    sim.avi_mut().expect("AVI backend").set_profile(false);
}

fn contact(c: &mut Criterion) {
    let mut group = c.benchmark_group("contact_per_simulated_window");
    // every timed window starts from the same warmed-up state (a fresh simulation per window, built
    // outside the timing), so the window does not drift through the run
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let grid = BroadPhaseKind::HashGrid { cell_size: None };
    for (scene, warm, window) in [("sheet-on-sphere", 0.3, 0.02), ("particle-box", 0.01, 0.002)] {
        for (label, broad_phase) in [("all-pairs", BroadPhaseKind::AllPairs), ("hash-grid", grid)] {
            let name = format!("{scene}_{label}");
            let warmed = || scene_at(scene, broad_phase, warm);
            print_split(&name, &mut warmed(), window);
            group.bench_function(format!("{name}_{window}s"), |b| {
                b.iter_custom(|iterations| {
                    let mut timed = Duration::ZERO;
                    for _ in 0..iterations {
                        let mut sim = warmed();
                        let start = Instant::now();
                        sim.advance_to(warm + window, &mut ()).expect("window");
                        timed += start.elapsed();
                    }
                    timed
                })
            });
        }
    }
    group.finish();
}

criterion_group!(benches, contact);
criterion_main!(benches);
