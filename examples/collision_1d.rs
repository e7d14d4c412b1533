//! A-search §5.5's one-dimensional collision study (Table 2): a 1 m neo-Hookean bar of 31 nodes
//! and 10 kg hits a wall at 1 m/s under IPC contact; the final centre-of-mass velocity is printed
//! for BDF2, A-1 and A-search at h = 1/30, 1/300, 1/3000 (and 1/30000 with `--fine`) and the three
//! wave speeds √(E/ρ) = 1, 10, 100 m/s, beside the paper's values, with the scene's tight Newton
//! tolerance, and on the soft bar with A-search's default one. The table is in
//! `docs/sync.md`; `tests/sync.rs` asserts the paper's qualitative findings on the soft case.
//!
//! `cargo run --release --example collision_1d [-- --fine]`

use avicontact::prelude::*;
use avicontact::scene;
use avicontact::sync::{EnergyTarget, IntegratorKind};
use std::path::Path;

/// Final centre-of-mass velocity (m/s, along the wall's normal) of the built-in `bar-collision`
/// scene with wave speed `c` (m/s), run by `integrator` at step `h` with Newton tolerance
/// `tolerance` (m/s).
fn final_velocity(
    c: Real,
    integrator: IntegratorKind,
    h: Real,
    tolerance: Real,
) -> Result<Real, Box<dyn std::error::Error>> {
    // EA = c²·ρ with ρ = 10 kg/m
    let text = scene::builtin_source("bar-collision")
        .expect("built-in scene")
        .replace("axial_stiffness = 10.0", &format!("axial_stiffness = {:?}", c * c * 10.0));
    let mut s = scene::parse(&text, "bar-collision", Path::new("."), "bar-collision".into())?;
    s.sync.integrator = integrator;
    s.sync.timestep = h;
    s.sync.newton.tolerance = tolerance;
    s.parameters.frame_rate = 1.0 / s.parameters.duration;
    let mut sim = Simulation::new_sync(s.model, s.forces, s.parameters, s.sync)?;
    sim.run(&mut ())?;
    Ok(sim.model().vertices.centre_of_mass_velocity().z)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let fine = std::env::args().any(|a| a == "--fine");
    let search = IntegratorKind::ASearch { target: EnergyTarget::Conserve, alpha_range: (0.0, 1.1) };
    let integrators = [("BDF2", IntegratorKind::Bdf2), ("A-1", IntegratorKind::A1), ("A-search", search)];
    // A-search Table 2 (soft, medium, stiff; BDF2, A1, A-search), rows h = 1/30 … 1/30000
    let paper = [
        [[0.776, 0.810, 0.819], [0.742, 0.643, 0.632], [0.795, 0.978, 0.999]],
        [[0.760, 0.831, 0.816], [0.937, 0.934, 0.931], [0.842, 0.782, 0.788]],
        [[0.849, 0.849, 0.862], [0.965, 0.971, 0.972], [0.993, 0.992, 0.992]],
        [[0.864, 0.866, 0.856], [0.977, 0.977, 0.972], [0.999, 0.999, 0.999]],
    ];
    let steps: &[Real] = if fine { &[30.0, 300.0, 3000.0, 30000.0] } else { &[30.0, 300.0, 3000.0] };
    // the scene's tight tolerance on all three bars, then A-search's default stop (a Newton step of
    // 0.01·h m) on the soft one (on the stiff bar it is slow: the CCD-cut line search stalls)
    let soft = [("soft", 1.0)];
    let all = [("soft", 1.0), ("medium", 10.0), ("stiff", 100.0)];
    for (tolerance, bars) in [(1e-6, &all[..]), (0.01, &soft[..])] {
        println!("\nNewton tolerance {tolerance} m/s: final centre-of-mass velocity (m/s), ours (paper)");
        println!("| 1/h | wave speed | BDF2 | A-1 | A-search |");
        println!("|---|---|---|---|---|");
        for (row, &per_second) in steps.iter().enumerate() {
            for (column, &(name, c)) in bars.iter().enumerate() {
                let mut line = format!("| {per_second} | {name} ({c} m/s) |");
                for (k, (_, integrator)) in integrators.iter().enumerate() {
                    let v = final_velocity(c, *integrator, 1.0 / per_second, tolerance)?;
                    line += &format!(" {v:.3} ({:.3}) |", paper[row][column][k]);
                }
                println!("{line}");
            }
        }
    }
    Ok(())
}
