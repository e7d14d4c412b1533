//! Event throughput of the AVI engine against the raw throughput of its queue (docs/design.md,
//! "Performance goals"), the queue's dense class against a sparse one, how the engine scales
//! with vertex count, and what building it costs (the hinges' stable periods). Figures:
//! docs/performance.md.
//!
//! Run: `cargo bench --bench engine`

use avicontact::events::{EventQueue, Filing};
use avicontact::ids::VertexId;
use avicontact::math::{Time, Vec3};
use avicontact::potential::{mass_scaled_spectral_radius, Hinge, Potential};
use avicontact::scene;
use avicontact::Simulation;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::collections::BTreeMap;
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

/// How the raw queue files its entries.
#[derive(Clone, Copy, PartialEq)]
enum RawFiling {
    /// One sparse class.
    Sparse,
    /// The dense class's heap.
    Dense,
    /// The dense class, a lane per period shared by at least 16 entries: as the engine files its
    /// force ticks.
    DenseLanes,
}

/// The engine's queue with the same number of entries and the same periods, with no physics: pop
/// the earliest entry and push it back one period later.
fn raw_queue(periods: &[f64], filing: RawFiling) -> EventQueue<u32> {
    let mut q = if filing == RawFiling::Sparse {
        EventQueue::new()
    } else {
        EventQueue::with_classes(1, |&k: &u32| Filing::Dense(k as usize), periods.len())
    };
    if filing == RawFiling::DenseLanes {
        let mut sharing: BTreeMap<u64, usize> = BTreeMap::new();
        for h in periods {
            *sharing.entry(h.to_bits()).or_default() += 1;
        }
        let mut lanes: BTreeMap<u64, u32> = BTreeMap::new();
        for (i, h) in periods.iter().enumerate() {
            if sharing[&h.to_bits()] >= 16 {
                let next = lanes.len() as u32;
                q.assign_lane(i, *lanes.entry(h.to_bits()).or_insert(next));
            }
        }
    }
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

/// `n` periods spread like a cloth's (4.3·10⁻⁵ to 2.6·10⁻⁴ s), from a fixed linear congruential
/// sequence.
fn spread_periods(n: usize) -> Vec<f64> {
    let mut state = 12_345u64;
    (0..n)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            4.3e-5 + 2.2e-4 * ((state >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

fn engine_vs_queue(c: &mut Criterion) {
    let mut group = c.benchmark_group("cloth_100x100");
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(20);
    let mut sim = cloth(100);
    let periods: Vec<f64> = sim.avi().expect("AVI backend").forces().map(|(_, _, h)| h).chain([1.0e6]).collect();
    run_events(&mut sim, EVENTS); // warm the queue into its steady state
    group.bench_function("engine_events", |b| b.iter(|| run_events(&mut sim, EVENTS)));
    let mut q = raw_queue(&periods, RawFiling::DenseLanes);
    pop_push(&mut q, &periods, EVENTS);
    group.bench_function("raw_queue_pop_push", |b| b.iter(|| pop_push(&mut q, &periods, EVENTS)));
    let mut q = raw_queue(&periods, RawFiling::Dense);
    pop_push(&mut q, &periods, EVENTS);
    group.bench_function("raw_queue_pop_push_no_lanes", |b| b.iter(|| pop_push(&mut q, &periods, EVENTS)));
    group.finish();
}

/// The queue's dense class against a sparse one, alone, from the size of `spikes`' force clocks
/// (19 000) to ten times that of `spikes-50k` (233 000).
fn queue_classes(c: &mut Criterion) {
    let mut group = c.benchmark_group("queue_pop_push");
    group.throughput(Throughput::Elements(EVENTS));
    group.sample_size(10);
    for n in [19_000usize, 233_000, 2_330_000] {
        let periods = spread_periods(n);
        for (label, filing) in [("dense", RawFiling::Dense), ("sparse", RawFiling::Sparse)] {
            let mut q = raw_queue(&periods, filing);
            pop_push(&mut q, &periods, EVENTS);
            group
                .bench_with_input(BenchmarkId::new(label, n), &n, |b, _| b.iter(|| pop_push(&mut q, &periods, EVENTS)));
        }
    }
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

/// Set-up: building the 100 × 100 cloth (scene, model, every clock's period), and a hinge's
/// stable period at rest in closed form (`Hinge::stable_step`) against the same period from its
/// dual-number Hessian and eigenvalues (the trait's default, which other positions take).
fn setup(c: &mut Criterion) {
    let mut group = c.benchmark_group("setup");
    group.sample_size(10);
    group.bench_function("build_cloth_100x100", |b| b.iter(|| black_box(cloth(100))));
    // 1 000 hinges of a gently curved strip, each at rest
    let hinges: Vec<(Hinge, [Vec3; 4])> = (0..1000)
        .map(|k| {
            let bend = 0.3 * (k as f64 * 0.37).sin();
            let x = [
                Vec3::zeros(),
                Vec3::new(0.01, 0.0, 0.0),
                Vec3::new(0.004, 0.01, 0.0),
                Vec3::new(0.007, -0.01 * bend.cos(), 0.01 * bend.sin()),
            ];
            let ids = [VertexId(0), VertexId(1), VertexId(2), VertexId(3)];
            (Hinge::new(ids, x, 1e-3).expect("a hinge"), x)
        })
        .collect();
    let masses = [1e-5, 2e-5, 1.5e-5, 1e-5];
    group.throughput(Throughput::Elements(hinges.len() as u64));
    group.bench_function("hinge_period_closed_form", |b| {
        b.iter(|| hinges.iter().map(|(h, x)| h.stable_step(x, &masses).unwrap()).sum::<f64>())
    });
    group.bench_function("hinge_period_hessian", |b| {
        b.iter(|| {
            hinges
                .iter()
                .map(|(h, x)| 2.0 / mass_scaled_spectral_radius(&h.hessian(x).unwrap(), &masses).sqrt())
                .sum::<f64>()
        })
    });
    group.finish();
}

criterion_group!(benches, engine_vs_queue, queue_classes, scaling, setup);
criterion_main!(benches);
