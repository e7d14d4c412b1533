//! Cost of contact on the AVI backend (issues 3 and 4).
//!
//! `contact_per_simulated_window`: time per simulated second for the sheet draped on a sphere and
//! the 900-sphere box, with all pairs, the kinetic hash grid and the k-DOP hierarchy, and the split
//! of wall time between force events, penalty (layer) events, certificate events, broad-phase
//! (grid or k-DOP) events and the re-certification after kicks (printed once per scene and broad
//! phase from a profiled window).
//!
//! `spikes_scaling`: growth with vertex count at fixed contact density. The built-in `spikes`
//! (4 260 vertices), `spikes-10k` (9 541) and `spikes-50k` (50 617) are one scene scaled in the
//! horizontal plane; each is timed over one window of simulated time from t = 0, for every broad
//! phase in [`SCALING_BROAD_PHASES`], and a profiled window prints its vertices, wall time per
//! simulated second, events and wall time by kind, pairs alive and peak contact bookkeeping bytes
//! per vertex. The timed window ([`SPIKES_WINDOW`]) ends before any contact event: it measures
//! force events, the queue and the set-up of the contact bookkeeping. The profiled window
//! ([`SPIKES_PROFILED_WINDOW`], 0.02 s) also holds the certificate and broad-phase events and the
//! rescheduling that begin once the falling cloths leave their vague tubes (the cloths reach the
//! spikes at about 0.05 s). A 50k sample takes about 6 s, plus about 12 s to build the scene
//! outside the timing.
//!
//! `tight_knot`: a window of `overhand-knot` pulled tight (issue 22): the knot's state at 0.2 s is
//! taken once and put back into a fresh simulation before each timed window, so every window is
//! the same tight contact; its split is printed once.
//!
//! `checkpoint`: taking and restoring a run's state in contact (`run --checkpoint-every`).
//!
//! Figures: docs/performance.md.
//!
//! Run: `cargo bench --bench contact` (one group: `cargo bench --bench contact -- spikes_scaling`)

use avicontact::avi::BroadPhaseKind;
use avicontact::scene;
use avicontact::Simulation;
use criterion::{criterion_group, criterion_main, Criterion, SamplingMode};
use std::time::{Duration, Instant};

/// A built-in scene with `broad_phase`, advanced to `warm` seconds (in the first group the sheet
/// has landed and the spheres collide), with an effectively endless duration.
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
         certificate events {:.1} % ({} events), broad-phase (grid or k-DOP) events {:.1} % ({} events), rescheduling {:.1} %; \
         {} pairs alive",
        total / window,
        share("force"),
        share("layer"),
        events("layer"),
        share("certificate"),
        events("certificate"),
        share("grid") + share("kdop"),
        events("grid") + events("kdop"),
        100.0 * rescheduling / total,
        sim.avi().and_then(|e| e.contact()).map_or(0, |c| c.pair_count())
    );
    sim.avi_mut().expect("AVI backend").set_profile(false);
}

/// Wall time of advancing `iterations` fresh simulations from `start()` to `until` s; building
/// them is not timed.
fn time_windows(iterations: u64, start: impl Fn() -> Simulation, until: f64) -> Duration {
    let mut timed = Duration::ZERO;
    for _ in 0..iterations {
        let mut sim = start();
        let clock = Instant::now();
        sim.advance_to(until, &mut ()).expect("window");
        timed += clock.elapsed();
    }
    timed
}

fn contact(c: &mut Criterion) {
    let mut group = c.benchmark_group("contact_per_simulated_window");
    // every timed window starts from the same warmed-up state (a fresh simulation per window, built
    // outside the timing), so the window does not drift through the run
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    let grid = BroadPhaseKind::HashGrid { cell_size: None };
    for (scene, warm, window) in [("sheet-on-sphere", 0.3, 0.02), ("particle-box", 0.01, 0.002)] {
        for (label, broad_phase) in
            [("all-pairs", BroadPhaseKind::AllPairs), ("hash-grid", grid), ("kdop", BroadPhaseKind::Kdop)]
        {
            let name = format!("{scene}_{label}");
            let warmed = || scene_at(scene, broad_phase, warm);
            // printed inside the bench, so a criterion filter that skips it skips the print too
            let mut printed = false;
            group.bench_function(format!("{name}_{window}s"), |b| {
                if !std::mem::replace(&mut printed, true) {
                    print_split(&name, &mut warmed(), window);
                }
                b.iter_custom(|iterations| time_windows(iterations, warmed, warm + window))
            });
        }
    }
    group.finish();
}

/// Broad phases the scaling group compares.
const SCALING_BROAD_PHASES: &[(&str, BroadPhaseKind)] =
    &[("hash-grid", BroadPhaseKind::HashGrid { cell_size: None }), ("kdop", BroadPhaseKind::Kdop)];

/// The scaled `spikes` scenes, smallest first.
const SPIKES_SCENES: [&str; 3] = ["spikes", "spikes-10k", "spikes-50k"];

/// Simulated seconds timed from t = 0 by criterion: about 6 s of wall time for `spikes-50k`.
const SPIKES_WINDOW: f64 = 0.001;

/// Simulated seconds of the one profiled window printed per scene: long enough for the falling
/// cloths' vertices to leave their vague tubes, so contact bookkeeping (slab certificates,
/// broad-phase certificates, rescheduling) is in it; about 3 minutes of wall time for
/// `spikes-50k`.
const SPIKES_PROFILED_WINDOW: f64 = 0.02;

/// Prints what a profiled `window` of simulated time from now costs: vertices, wall time per
/// simulated second, events and wall time by kind (what no kind claims is the loop around the
/// events: popping the queue, and the profiling itself), pairs alive and the peak contact
/// bookkeeping per vertex.
fn print_scaling(name: &str, sim: &mut Simulation, window: f64) {
    let engine = sim.avi_mut().expect("AVI backend");
    engine.set_profile(true);
    let before = engine.counters().clone();
    let t = sim.now().seconds() + window;
    sim.advance_to(t, &mut ()).expect("profiled window");
    let after = sim.counters().clone();
    sim.avi_mut().expect("AVI backend").set_profile(false);
    let wall = after.wall_seconds - before.wall_seconds;
    let (events_before, seconds_before) = (before.events_by_kind(), before.seconds_by_kind());
    let events: Vec<String> = after
        .events_by_kind()
        .into_iter()
        .map(|(kind, n)| format!("{kind} {}", n - events_before.get(kind).copied().unwrap_or(0)))
        .collect();
    let mut seconds = after.seconds_by_kind();
    for (kind, s) in seconds.iter_mut() {
        *s -= seconds_before.get(kind).copied().unwrap_or(0.0);
    }
    seconds.insert("rescheduling", after.rescheduling_seconds - before.rescheduling_seconds);
    let claimed: f64 = seconds.values().sum();
    let split: Vec<String> = seconds.iter().map(|(kind, s)| format!("{kind} {:.1} %", 100.0 * s / wall)).collect();
    let vertices = sim.model().vertices.len();
    let contact = sim.avi().and_then(|e| e.contact()).expect("a contact scene");
    eprintln!(
        "{name}: {vertices} vertices, {:.0} s of wall time per simulated second (profiled); events: {}; \
         wall time: {}, unclaimed {:.1} %; {} pairs alive, peak contact bookkeeping {:.0} bytes per vertex",
        wall / window,
        events.join(", "),
        split.join(", "),
        100.0 * (wall - claimed) / wall,
        contact.pair_count(),
        contact.peak_bookkeeping_bytes() as f64 / vertices as f64
    );
}

fn spikes_scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("spikes_scaling");
    // One sample is one window of a freshly built scene (built outside the timing); criterion
    // warns that ten samples do not fit its target time, which is expected.
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(1));
    for &(label, broad_phase) in SCALING_BROAD_PHASES {
        for scene in SPIKES_SCENES {
            let name = format!("{scene}_{label}");
            // advanced to t = 0: the events at t = 0 (the first frame among them) are set-up
            let fresh = || scene_at(scene, broad_phase, 0.0);
            let mut printed = false;
            group.bench_function(format!("{name}_{SPIKES_WINDOW}s"), |b| {
                if !std::mem::replace(&mut printed, true) {
                    print_scaling(&name, &mut fresh(), SPIKES_PROFILED_WINDOW);
                }
                b.iter_custom(|iterations| time_windows(iterations, fresh, SPIKES_WINDOW))
            });
        }
    }
    group.finish();
}

/// Simulated seconds of `overhand-knot` before the timed window: the knot is pulled tight.
const KNOT_WARM: f64 = 0.2;

/// The timed window of the tight knot, simulated seconds (about a quarter of a second of wall time).
const KNOT_WINDOW: f64 = 0.01;

fn tight_knot(c: &mut Criterion) {
    let mut group = c.benchmark_group("tight_knot");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(5));
    let grid = BroadPhaseKind::HashGrid { cell_size: None };
    let state = scene_at("overhand-knot", grid, KNOT_WARM).save_state().expect("a checkpoint");
    let tight = || {
        let mut sim = scene_at("overhand-knot", grid, 0.0);
        sim.restore_state(&state).expect("the same scene");
        sim
    };
    let mut printed = false;
    group.bench_function(format!("overhand-knot_{KNOT_WARM}s_{KNOT_WINDOW}s"), |b| {
        if !std::mem::replace(&mut printed, true) {
            print_split("overhand-knot", &mut tight(), KNOT_WINDOW);
        }
        b.iter_custom(|iterations| time_windows(iterations, tight, KNOT_WARM + KNOT_WINDOW))
    });
    group.finish();
}

/// A checkpoint's cost (`run --checkpoint-every`, `docs/checkpoints.md`): taking the state of a
/// run in contact and putting it back into a simulation built from the same scene, with the
/// state's size printed once per scene. The `reef-knot` at t = 0 is ACM's mesh (10 642 vertices,
/// its ribbons not touching yet); `spikes` at 0.07 s has landed on its spikes (tens of thousands
/// of pairs, layers active).
fn checkpoint(c: &mut Criterion) {
    let mut group = c.benchmark_group("checkpoint");
    group.sample_size(10).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    let grid = BroadPhaseKind::HashGrid { cell_size: None };
    for (scene, warm) in [("sheet-on-sphere", 0.3), ("spikes", 0.07), ("reef-knot", 0.0)] {
        let sim = scene_at(scene, grid, warm);
        let mut into = scene_at(scene, grid, 0.0);
        let state = sim.save_state().expect("a checkpoint");
        let pairs = sim.avi().and_then(|a| a.contact()).map_or(0, |c| c.pair_count());
        eprintln!(
            "{scene} at {warm} s: {} vertices, {pairs} contact pairs, a state of {:.2} MB",
            sim.model().vertices.len(),
            state.len() as f64 / 1e6
        );
        group.bench_function(format!("{scene}_save"), |b| b.iter(|| sim.save_state().expect("a checkpoint")));
        group.bench_function(format!("{scene}_restore"), |b| {
            b.iter(|| into.restore_state(&state).expect("the same scene"))
        });
    }
    group.finish();
}

criterion_group!(benches, contact, spikes_scaling, tight_knot, checkpoint);
criterion_main!(benches);
