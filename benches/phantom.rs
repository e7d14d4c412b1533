//! Explicit against phantom integration (Phantom §3.2, Table 1's comparison) on the same scene,
//! per simulated frame: a stiff card (membrane 1e5 N/m, 100 vertices) dropped tilted onto a floor,
//! with contact; the spinning shell of `spinning-shell` (162 vertices, no contact); and the first
//! frame of the built-in `cape` (5 929 vertices of stiff cloth in a gusting wind, Phantom §5); and
//! the first frame of the built-in `card-riffle` (eight very stiff cards, 792 vertices, lifted by a
//! thumb: contact from about 5 ms); and the first frame of the built-in `reef-knot` (10 642
//! vertices of soft ribbon, before its ribbons touch; its whole run, in contact, is timed in
//! docs/performance.md).
//! Figures: docs/performance.md ("Phantom meshes").
//!
//! Run: `cargo bench --bench phantom`

use avicontact::scene;
use avicontact::Simulation;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion};
use std::path::Path;

/// One frame at 50 frames per second.
const FRAME: f64 = 0.02;

const CARD: &str = r#"
[simulation]
duration = 1.0
frame_rate = 50.0
[contact]
thickness = 0.002
stiffness = 1000.0
[[body]]
name = "card"
kind = "shell"
mesh = { generator = "grid", size = [0.09, 0.06], resolution = [12, 8] }
transform = { translate = [0.0, 0.0, 0.03], rotate_deg = [15.0, 5.0, 0.0] }
density = 0.3
stretching = 1e5
bending = 0.01
integration = "INTEGRATION"
[[body]]
name = "floor"
kind = "obstacle"
mesh = { generator = "plane", size = [0.3, 0.3] }
"#;

/// `text` with `integration = …` set on its bodies, advanced to `start` (s).
fn simulation(text: &str, integration: &str, start: f64) -> Simulation {
    let text = text.replace("INTEGRATION", integration);
    let s = scene::parse(&text, "bench", Path::new("."), "bench".into()).expect("bench scene");
    let mut sim = Simulation::new(s.model, s.forces, s.parameters).expect("simulation");
    sim.advance_to(start, &mut ()).expect("advance");
    sim
}

fn spinning_shell() -> String {
    scene::builtin_source("spinning-shell")
        .expect("built-in scene")
        .replace("bending = 0.005", "bending = 0.005\nintegration = \"INTEGRATION\"")
}

fn cape() -> String {
    scene::builtin_source("cape")
        .expect("built-in scene")
        .replace("bending = 1e-4", "bending = 1e-4\nintegration = \"INTEGRATION\"")
}

fn card_riffle() -> String {
    scene::builtin_source("card-riffle")
        .expect("built-in scene")
        .replace("bending = 0.01", "bending = 0.01\nintegration = \"INTEGRATION\"")
}

fn reef_knot() -> String {
    scene::builtin_source("reef-knot")
        .expect("built-in scene")
        .replace("kind = \"shell\"", "kind = \"shell\"\nintegration = \"INTEGRATION\"")
}

fn frames(c: &mut Criterion) {
    let mut group = c.benchmark_group("phantom_frame");
    group.sample_size(10);
    let (shell, cape, cards, reef) = (spinning_shell(), cape(), card_riffle(), reef_knot());
    // the card in flight, then landing (its frame from 0.08 s has contact)
    for (name, text, start) in [
        ("card_falling", CARD, 0.0),
        ("card_landing", CARD, 0.08),
        ("spinning_shell", &shell, 0.0),
        ("cape", &cape, 0.0),
        ("card_riffle", &cards, 0.0),
        ("reef_knot", &reef, 0.0),
    ] {
        for integration in ["explicit", "phantom"] {
            group.bench_with_input(BenchmarkId::new(name, integration), &integration, |b, &integration| {
                b.iter_batched(
                    || simulation(text, integration, start),
                    |mut sim| sim.advance_to(start + FRAME, &mut ()).expect("advance"),
                    BatchSize::PerIteration,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, frames);
criterion_main!(benches);
