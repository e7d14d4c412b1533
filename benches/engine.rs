//! Event throughput of the AVI engine against the raw throughput of its queue (DESIGN
//! "Performance plan"), and how it scales with vertex count. Figures: docs/performance.md.
//!
//! Run: `cargo bench --bench engine`

use avicontact::events::EventQueue;
use avicontact::math::Time;
use avicontact::scene;
use avicontact::Simulation;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;
use std::path::Path;

/// Events processed per measured iteration.
const EVENTS: u64 = 200_000;

/// A cloth of `n × n` vertices pinned at two corners: membrane + bending + gravity, no damping.
fn cloth(n: u32) -> Simulation {
    let text = format!(
        r#"
[simulation]
duration = 1.0e9
frame_rate = 1.0e-6
gravity = [0.0, 0.0, -9.8]
[[body]]
name = "cloth"
kind = "shell"
mesh = {{ generator = "grid", size = [1.0, 1.0], resolution = [{n}, {n}] }}
density = 0.1
stretching = 200.0
bending = 0.001
fixed = [{a}, {b}]
"#,
        a = n * (n - 1),
        b = n * n - 1
    );
    let s = scene::parse(&text, "bench", Path::new("."), "cloth".into()).expect("bench scene");
    Simulation::new(s.model, s.forces, s.parameters).expect("bench simulation")
}

fn run_events(sim: &mut Simulation, events: u64) {
    for _ in 0..events {
        black_box(sim.step_event(&mut ()).expect("event"));
    }
}

/// The same queue, same number of entries and the same periods, with no physics: pop the
/// earliest entry and push it back one period later.
fn raw_queue(periods: &[f64]) -> EventQueue<u32> {
    let mut q = EventQueue::with_capacity(periods.len());
    for (i, h) in periods.iter().enumerate() {
        q.schedule(i as u32, Time::new(*h).unwrap()).unwrap();
    }
    q
}

fn pop_push(q: &mut EventQueue<u32>, periods: &[f64], events: u64) {
    for _ in 0..events {
        let (k, t) = q.pop().expect("non-empty");
        q.schedule(k, Time::new(t.seconds() + periods[k as usize]).unwrap()).unwrap();
    }
}

fn engine_vs_queue(c: &mut Criterion) {
    let mut group = c.benchmark_group("cloth_100x100");
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(20);
    let mut sim = cloth(100);
    let periods: Vec<f64> = sim.avi().expect("AVI backend").forces().map(|(_, _, h)| h).chain([1.0e6]).collect();
    run_events(&mut sim, EVENTS); // warm the queue into its steady state
    group.bench_function("engine_events", |b| b.iter(|| run_events(&mut sim, EVENTS)));
    let mut q = raw_queue(&periods);
    pop_push(&mut q, &periods, EVENTS);
    group.bench_function("raw_queue_pop_push", |b| b.iter(|| pop_push(&mut q, &periods, EVENTS)));
    group.finish();
}

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("scaling");
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(10);
    for n in [10u32, 32, 100, 316] {
        let mut sim = cloth(n);
        // warm up until every clock has ticked at least twice: the queue's steady state
        let warm_up = EVENTS.max(2 * sim.avi().expect("AVI backend").forces().count() as u64);
        run_events(&mut sim, warm_up);
        group.bench_with_input(BenchmarkId::new("engine_events", n * n), &n, |b, _| {
            b.iter(|| run_events(&mut sim, EVENTS))
        });
    }
    group.finish();
}

criterion_group!(benches, engine_vs_queue, scaling);
criterion_main!(benches);
