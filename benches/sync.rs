//! Cost per step of the synchronous integrators on the same scene and h (issue 5: A-search should
//! cost at most 1.1× implicit Euler per step). Figures: docs/performance.md.
//!
//! Run: `cargo bench --bench sync`

use avicontact::scene;
use avicontact::sync::{EnergyTarget, IntegratorKind, NewtonParameters, SyncParameters};
use avicontact::Simulation;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use std::path::Path;

/// Steps per measured iteration.
const STEPS: u64 = 30;

/// A soft corotated cube tumbling freely (no gravity, nothing held), 3×3×3 cells.
fn cube(integrator: IntegratorKind) -> Simulation {
    let text = r#"
[simulation]
duration = 1.0e9
frame_rate = 1.0e-6
gravity = [0.0, 0.0, 0.0]
[[body]]
name = "cube"
kind = "solid"
mesh = { generator = "box", size = [0.1, 0.1, 0.1], resolution = 3 }
material = "corotated"
youngs_modulus = 5e4
density = 1000.0
angular_velocity = [3.0, 15.0, -5.0]
"#;
    let s = scene::parse(text, "bench", Path::new("."), "cube".into()).expect("bench scene");
    let sync = SyncParameters { integrator, timestep: 1.0 / 30.0, newton: NewtonParameters::default(), contact: None };
    Simulation::new_sync(s.model, s.forces, s.parameters, sync).expect("bench simulation")
}

fn per_step(c: &mut Criterion) {
    let mut group = c.benchmark_group("sync_cube_step");
    group.throughput(Throughput::Elements(STEPS));
    group.sample_size(10);
    let search = IntegratorKind::ASearch { target: EnergyTarget::Conserve, alpha_range: (0.0, 1.1) };
    for (name, integrator) in
        [("implicit-euler", IntegratorKind::ImplicitEuler), ("a-search", search), ("bdf2", IntegratorKind::Bdf2)]
    {
        group.bench_with_input(BenchmarkId::from_parameter(name), &integrator, |b, &integrator| {
            b.iter_batched(
                || cube(integrator),
                |mut sim| {
                    for _ in 0..STEPS {
                        sim.step_event(&mut ()).expect("step");
                    }
                    sim
                },
                BatchSize::LargeInput,
            )
        });
    }
    group.finish();
}

criterion_group!(benches, per_step);
criterion_main!(benches);
