//! Cost per step of the synchronous integrators on the same scene and h (issue 5: A-search should
//! cost at most 1.1× implicit Euler per step) on a tumbling cube and through a ball's impact, and
//! the linear solve alone with each
//! [`LinearSolver`] on Newton systems of two cubes; and Stabilizing §4.2's local/global solver
//! against Newton's method on the spinning cube of `examples/spinning-cube.toml`. Figures:
//! docs/performance.md.
//!
//! Run: `cargo bench --bench sync` (one group: `cargo bench --bench sync -- sync_linear_solve`)

use avicontact::newton::solve_newton_system;
use avicontact::scene;
use avicontact::sync::{EnergyTarget, IntegratorKind, LinearSolver, SolverKind, SyncParameters};
use avicontact::Simulation;
use criterion::{criterion_group, criterion_main, BatchSize, BenchmarkId, Criterion, Throughput};
use std::path::Path;

/// Steps per measured iteration.
const STEPS: u64 = 30;

/// A soft corotated cube tumbling freely (no gravity, nothing held), 3×3×3 cells.
fn cube(integrator: IntegratorKind) -> Simulation {
    cube_with_cells(integrator, 3)
}

/// The same cube with `cells`³ cells.
fn cube_with_cells(integrator: IntegratorKind, cells: usize) -> Simulation {
    let text = r#"
[simulation]
duration = 1.0e9
frame_rate = 1.0e-6
gravity = [0.0, 0.0, 0.0]
[[body]]
name = "cube"
kind = "solid"
mesh = { generator = "box", size = [0.1, 0.1, 0.1], resolution = CELLS }
material = "corotated"
youngs_modulus = 5e4
density = 1000.0
angular_velocity = [3.0, 15.0, -5.0]
"#
    .replace("CELLS", &cells.to_string());
    let s = scene::parse(&text, "bench", Path::new("."), "cube".into()).expect("bench scene");
    let sync = SyncParameters { integrator, timestep: 1.0 / 30.0, contact: None, ..Default::default() };
    Simulation::new_sync(s.model, s.forces, s.parameters, sync).expect("bench simulation")
}

/// Times `steps` steps of implicit Euler, A-search and BDF2 on the simulation `make` builds, each
/// from a fresh start built outside the timing.
fn per_step_of(c: &mut Criterion, group: &str, steps: u64, make: fn(IntegratorKind) -> Simulation) {
    let mut group = c.benchmark_group(group);
    group.throughput(Throughput::Elements(steps));
    group.sample_size(10);
    let search = IntegratorKind::ASearch { target: EnergyTarget::Conserve, alpha_range: (0.0, 1.1) };
    for (name, integrator) in
        [("implicit-euler", IntegratorKind::ImplicitEuler), ("a-search", search), ("bdf2", IntegratorKind::Bdf2)]
    {
        group.bench_with_input(BenchmarkId::from_parameter(name), &integrator, |b, &integrator| {
            b.iter_batched(
                || make(integrator),
                |mut sim| {
                    for _ in 0..steps {
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

fn per_step(c: &mut Criterion) {
    per_step_of(c, "sync_cube_step", STEPS, cube);
}

/// Steps per measured iteration of the ball: 0.1 s at h = 1/120, the impact and the rebound.
const BALL_STEPS: u64 = 12;

/// A 10 cm neo-Hookean ball (E = 10⁵ Pa, 6³ cells mapped onto the ball: 343 nodes, 1296
/// tetrahedra) 5 mm above a plane, falling at 4.43 m/s (as if dropped from 1 m), under IPC.
fn ball(integrator: IntegratorKind) -> Simulation {
    let text = r#"
[simulation]
duration = 1.0e9
frame_rate = 1.0e-6
gravity = [0.0, 0.0, -9.8]
[contact]
thickness = 0.001
[[body]]
name = "ball"
kind = "solid"
mesh = { generator = "ball", radius = 0.05, resolution = 6 }
transform = { translate = [0.0, 0.0, 0.055] }
material = "neo-hookean"
youngs_modulus = 1e5
poisson_ratio = 0.3
density = 1000.0
velocity = [0.0, 0.0, -4.43]
[[body]]
name = "ground"
kind = "obstacle"
mesh = { generator = "plane", size = [1.0, 1.0] }
"#;
    let s = scene::parse(text, "bench", Path::new("."), "ball".into()).expect("bench scene");
    let sync = SyncParameters { integrator, timestep: 1.0 / 120.0, ..s.sync };
    Simulation::new_sync(s.model, s.forces, s.parameters, sync).expect("bench simulation")
}

/// Cost per step through an impact: A-search and implicit Euler both have to resolve the same
/// collision, beside the tumbling cube where only A-search keeps the motion.
fn ball_impact(c: &mut Criterion) {
    per_step_of(c, "sync_ball_impact_step", BALL_STEPS, ball);
}

/// The Newton system of an implicit-Euler step of the cube with `cells`³ cells after 5 steps of
/// tumbling (so the corotated elements are rotated and the projection has work): (H, −g).
fn newton_system(cells: usize) -> (nalgebra_sparse::CscMatrix<f64>, nalgebra::DVector<f64>) {
    let mut sim = cube_with_cells(IntegratorKind::ImplicitEuler, cells);
    while sim.sync().expect("sync").now().seconds() < 5.0 / 30.0 - 1e-9 {
        sim.step_event(&mut ()).expect("step");
    }
    let (hessian, gradient) = sim.sync().expect("sync").newton_system();
    (hessian, -gradient)
}

fn linear_solve(c: &mut Criterion) {
    let mut group = c.benchmark_group("sync_linear_solve");
    group.sample_size(10);
    for cells in [3, 10] {
        let (hessian, rhs) = newton_system(cells);
        let (_, cg_iterations) = solve_newton_system(&hessian, &rhs, LinearSolver::JacobiPcg).expect("PCG");
        println!("cube {cells}³ cells: {} dofs, {} non-zeros, {cg_iterations} CG iterations", rhs.len(), hessian.nnz());
        for (name, solver) in [("cholesky", LinearSolver::Cholesky), ("pcg", LinearSolver::JacobiPcg)] {
            group.bench_function(BenchmarkId::new(name, format!("{cells}x{cells}x{cells}")), |b| {
                b.iter(|| solve_newton_system(&hessian, &rhs, solver).expect("solve"))
            });
        }
    }
    group.finish();
}

/// Steps per measured iteration of the spinning cube: 1 s at the paper's h = 0.033 s.
const CUBE_STEPS: u64 = 30;

/// Cost per step of implicit Euler, implicit midpoint and the blend on the spinning cube of
/// Stabilizing Fig. 5 (216 vertices, 750 as-rigid-as-possible tetrahedra), each solved by Newton
/// (to its default tolerance, sparse Cholesky) and by local/global iterations (10, and 1 for the
/// blend's correction; the one factorisation per system is inside the timing, once per 30
/// steps). Implicit Euler by local/global is Projective Dynamics, the paper's baseline.
fn local_global(c: &mut Criterion) {
    let mut group = c.benchmark_group("sync_local_global_step");
    group.throughput(Throughput::Elements(CUBE_STEPS));
    group.sample_size(10);
    let scene_text = include_str!("../examples/spinning-cube.toml");
    for (integrator, name) in [
        (IntegratorKind::ImplicitEuler, "implicit-euler"),
        (IntegratorKind::ImplicitMidpoint, "implicit-midpoint"),
        (IntegratorKind::Blend, "blend"),
    ] {
        for solver in [SolverKind::Newton, SolverKind::LocalGlobal { iterations: 10 }] {
            let make = || {
                let s = scene::parse(scene_text, "bench", Path::new("examples"), "cube".into()).expect("bench scene");
                let sync = SyncParameters { integrator, solver, ..s.sync };
                Simulation::new_sync(s.model, s.forces, s.parameters, sync).expect("bench simulation")
            };
            group.bench_function(BenchmarkId::new(name, solver.name()), |b| {
                b.iter_batched(
                    make,
                    |mut sim| {
                        for _ in 0..CUBE_STEPS {
                            sim.step_event(&mut ()).expect("step");
                        }
                        sim
                    },
                    BatchSize::LargeInput,
                )
            });
        }
    }
    group.finish();
}

criterion_group!(benches, per_step, ball_impact, linear_solve, local_global);
criterion_main!(benches);
