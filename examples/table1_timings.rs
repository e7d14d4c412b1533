//! Newton iterations, wall time and linear-solve share at the sizes of A-search's Table 1: the
//! rotating cube (§5.1; 1331 nodes, 6000 tetrahedra, soft and stiff, h = 1/30) and the
//! bouncing ball (§5.2; 1728 nodes, 7986 tetrahedra, E = 10⁵, 10⁶, 10⁷ Pa, dropped from 1 m onto a
//! plane under IPC at h = 1/120), for A-search and BDF2, beside the paper's figures. The table
//! is in `docs/performance.md`.
//!
//! `cargo run --release --example table1_timings [-- --cube-seconds S --ball-seconds S]` (default
//! the paper's 10 s each: about an hour on one core; `docs/performance.md` used 1 s and 0.6 s,
//! which covers the ball's first impact)

use avicontact::prelude::*;
use avicontact::scene;
use avicontact::sync::{EnergyTarget, IntegratorKind};
use std::path::Path;

/// What one run cost.
struct Cost {
    steps: u64,
    iterations: u64,
    wall: f64,
    linear: f64,
}

fn run(text: &str, integrator: IntegratorKind, h: Real, prepare: impl FnOnce(&mut Model)) -> Cost {
    let mut s = scene::parse(text, "table1", Path::new("."), "table1".into()).expect("scene");
    prepare(&mut s.model);
    s.sync.integrator = integrator;
    s.sync.timestep = h;
    let mut sim = Simulation::new_sync(s.model, s.forces, s.parameters, s.sync).expect("simulation");
    let start = std::time::Instant::now();
    sim.run(&mut ()).expect("run");
    let wall = start.elapsed().as_secs_f64();
    let sync = sim.sync().expect("sync backend");
    Cost {
        steps: (sim.now().seconds() / h).round() as u64,
        iterations: sync.newton_iterations(),
        wall,
        linear: sync.linear_solve_seconds(),
    }
}

/// A-search §5.1, Appendix A: a 10 cm corotated cube (1000 kg/m³, ν = 0.3) of 10³ cells spun at
/// 15 rad/s about a held edge, under gravity, for `seconds` at h = 1/30.
fn rotating_cube(youngs_modulus: Real, integrator: IntegratorKind, seconds: Real) -> Cost {
    let text = format!(
        r#"
[simulation]
duration = {seconds:?}
frame_rate = {:?}
gravity = [0.0, 0.0, -9.8]
backend = "sync"
[[body]]
name = "cube"
kind = "solid"
mesh = {{ generator = "box", size = [0.1, 0.1, 0.1], resolution = 10 }}
material = "corotated"
youngs_modulus = {youngs_modulus:?}
poisson_ratio = 0.3
density = 1000.0
fixed = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
"#,
        1.0 / seconds
    );
    // vertices 0..=10 are the edge y = z = −5 cm; spin about it
    let pivot = Vec3::new(0.0, -0.05, -0.05);
    let omega = Vec3::new(15.0, 0.0, 0.0);
    run(&text, integrator, 1.0 / 30.0, |model| {
        for i in 11..model.vertices.len() as u32 {
            let x = model.vertices.position(VertexId(i));
            model.vertices.set_velocity(VertexId(i), omega.cross(&(x - pivot)));
        }
    })
}

/// A-search §5.2, Appendix A: a 10 cm neo-Hookean ball (1000 kg/m³, ν = 0.3) dropped from 1 m
/// onto a plane under IPC (d̂ = 1 mm), h = 1/120.
fn bouncing_ball(youngs_modulus: Real, integrator: IntegratorKind, seconds: Real) -> Cost {
    let text = format!(
        r#"
[simulation]
duration = {seconds:?}
frame_rate = {:?}
gravity = [0.0, 0.0, -9.8]
backend = "sync"
[contact]
thickness = 0.001
[sync]
barrier_distance = 0.001
[[body]]
name = "ball"
kind = "solid"
mesh = {{ generator = "ball", radius = 0.05, resolution = 11 }}
transform = {{ translate = [0.0, 0.0, 1.05] }}
material = "neo-hookean"
youngs_modulus = {youngs_modulus:?}
poisson_ratio = 0.3
density = 1000.0
[[body]]
name = "ground"
kind = "obstacle"
mesh = {{ generator = "plane", size = [1.0, 1.0] }}
"#,
        1.0 / seconds
    );
    run(&text, integrator, 1.0 / 120.0, |_| {})
}

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut cube_seconds, mut ball_seconds) = (10.0, 10.0);
    while let Some(a) = args.next() {
        let value = args.next().and_then(|s| s.parse::<Real>().ok()).filter(|s| *s > 0.0);
        match a.as_str() {
            "--cube-seconds" => cube_seconds = value.expect("--cube-seconds S (S > 0)"),
            "--ball-seconds" => ball_seconds = value.expect("--ball-seconds S (S > 0)"),
            other => panic!("unknown argument {other}; use --cube-seconds S and --ball-seconds S"),
        }
    }
    let search = IntegratorKind::ASearch { target: EnergyTarget::Conserve, alpha_range: (0.0, 1.1) };
    let integrators = [("A-search", search), ("BDF2", IntegratorKind::Bdf2)];
    println!("| scene | integrator | simulated | steps | Newton iterations | wall time | per iteration | linear-solve share |");
    println!("|---|---|---|---|---|---|---|---|");
    let print = |scene: &str, name: &str, simulated: Real, c: Cost| {
        println!(
            "| {scene} | {name} | {simulated} s | {} | {} | {:.1} s | {:.1} ms | {:.0} % |",
            c.steps,
            c.iterations,
            c.wall,
            1e3 * c.wall / c.iterations.max(1) as f64,
            100.0 * c.linear / c.wall
        )
    };
    for (label, e) in [("soft cube (5·10⁴ Pa)", 5e4), ("stiff cube (10⁶ Pa)", 1e6)] {
        for (name, integrator) in integrators {
            print(label, name, cube_seconds, rotating_cube(e, integrator, cube_seconds));
        }
    }
    for (label, e) in [("soft ball (10⁵ Pa)", 1e5), ("medium ball (10⁶ Pa)", 1e6), ("stiff ball (10⁷ Pa)", 1e7)] {
        for (name, integrator) in integrators {
            print(label, name, ball_seconds, bouncing_ball(e, integrator, ball_seconds));
        }
    }
}
