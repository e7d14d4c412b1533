//! The laws with phantom bodies (Phantom §3.2): momentum, energy, convergence to the explicit
//! AVI, meshes that agree without explicit kicks, no interpenetration, determinism, and the
//! refusals of bad input. Momentum and energy are recomputed here from the raw state (primary
//! vertices and the phantoms' `PhantomState`), with this file's own sums and spring energies,
//! not the engine's frame measure.

mod common;

use avicontact::avi::PhantomState;
use avicontact::ids::VertexId;
use avicontact::scene;
use avicontact::{Simulation, SimulationParameters};
use nalgebra::Vector3;
use std::path::Path;
use std::process::Command;

type V3 = Vector3<f64>;

fn scene_from(text: &str, base: &Path) -> scene::Scene {
    scene::parse(text, "test scene", base, "test".into()).unwrap_or_else(|e| panic!("{e}"))
}

fn simulation_in(text: &str, base: &Path) -> Simulation {
    let s = scene_from(text, base);
    Simulation::new(s.model, s.forces, s.parameters).unwrap_or_else(|e| panic!("{e}"))
}

fn simulation(text: &str) -> Simulation {
    simulation_in(text, Path::new("."))
}

fn phantoms(sim: &Simulation) -> Vec<PhantomState<'_>> {
    sim.avi().and_then(|avi| avi.phantoms()).expect("phantom bodies").states().collect()
}

/// Linear and angular momentum at the simulation's time, from the raw state: every free primary
/// vertex (its half of the mass) on its straight line, every phantom vertex on its own, and the
/// midpoint rule's momentum-map correction −(h²/4) Σ ṽ × ∇V(q̃ᵢ₊½) of the phantoms.
fn momenta(sim: &Simulation) -> (V3, V3) {
    let t = sim.now().seconds();
    let v = &sim.model().vertices;
    let (mut p, mut j) = (V3::zeros(), V3::zeros());
    for i in 0..v.len() {
        let id = VertexId(i as u32);
        if v.effective_mass(id).is_finite() {
            let x = v.position(id) + v.velocity(id) * (t - v.t_last(id));
            p += v.velocity(id) * v.mass(id);
            j += x.cross(&(v.velocity(id) * v.mass(id)));
        }
    }
    for state in phantoms(sim) {
        for (k, i) in state.vertices.clone().enumerate() {
            if !v.effective_mass(VertexId(i)).is_finite() {
                continue;
            }
            let (m, u) = (state.masses[k], state.velocities[k]);
            let x = state.positions[k] + u * (t - state.tick_time);
            p += u * m;
            j += x.cross(&(u * m)) - u.cross(&state.midpoint_gradient[k]) * (0.25 * state.step * state.step);
        }
    }
    (p, j)
}

fn relative_change(now: V3, start: V3) -> f64 {
    (now - start).norm() / start.norm()
}

const SPINNING_SHELL: &str = r#"
[simulation]
duration = 0.3
frame_rate = 10.0
gravity = [0.0, 0.0, 0.0]
[[body]]
name = "shell"
kind = "shell"
mesh = { generator = "icosphere", radius = 0.3, subdivisions = 1 }
density = 0.2
stretching = 500.0
bending = 0.005
velocity = [0.1, 0.0, 0.05]
angular_velocity = [0.5, 1.5, 3.0]
integration = "phantom"
"#;

#[test]
fn a_free_phantom_body_keeps_its_momenta_to_round_off_and_its_two_meshes_together() {
    let mut sim = simulation(SPINNING_SHELL);
    let (p0, j0) = momenta(&sim);
    let mut apart: f64 = 0.0;
    for k in 1..=30 {
        let t = 0.01 * k as f64;
        sim.advance_to(t, &mut ()).unwrap();
        let (p, j) = momenta(&sim);
        assert!(relative_change(p, p0) <= 1e-12, "t = {t}: momentum {p} from {p0}");
        assert!(relative_change(j, j0) <= 1e-12, "t = {t}: angular momentum {j} from {j0}");
        // nothing kicks the primary between ticks: it moves with its phantom
        let v = &sim.model().vertices;
        let now = sim.now().seconds();
        for state in phantoms(&sim) {
            for (a, i) in state.vertices.clone().enumerate() {
                let id = VertexId(i);
                let primary = v.position(id) + v.velocity(id) * (now - v.t_last(id));
                let phantom = state.positions[a] + state.velocities[a] * (now - state.tick_time);
                apart = apart.max((primary - phantom).norm());
            }
        }
    }
    assert!(apart <= 1e-13, "primary and phantom meshes drifted {apart:e} m apart without explicit kicks");
    let events = sim.counters();
    // ticks 0, h, …, 0.3 s
    assert_eq!(events.events_by_kind()["implicit"], 301);
    assert_eq!(events.events_by_kind()["constraint"], 301);
}

/// Two phantom sheets, spinning and crossing at an angle, hit an explicit one in free space.
const SHEETS: &str = r#"
[simulation]
duration = 0.4
frame_rate = 20.0
gravity = [0.0, 0.0, 0.0]
[contact]
thickness = 0.005
stiffness = 100.0
[[body]]
name = "upper"
kind = "shell"
mesh = { generator = "grid", size = [0.2, 0.2], resolution = [4, 4] }
transform = { translate = [0.02, 0.01, 0.04] }
density = 0.2
stretching = 2000.0
bending = 0.01
velocity = [0.0, 0.0, -0.4]
angular_velocity = [0.0, 0.0, 2.0]
integration = "phantom"
[[body]]
name = "lower"
kind = "shell"
mesh = { generator = "grid", size = [0.2, 0.2], resolution = [4, 4] }
transform = { rotate_deg = [0.0, 10.0, 0.0] }
density = 0.2
stretching = 2000.0
bending = 0.01
velocity = [0.0, 0.0, 0.1]
integration = "phantom"
[[body]]
name = "explicit"
kind = "shell"
mesh = { generator = "grid", size = [0.1, 0.1], resolution = [3, 3] }
transform = { translate = [0.0, 0.0, -0.05] }
density = 0.2
stretching = 200.0
velocity = [0.0, 0.0, 0.3]
"#;

#[test]
fn phantom_sheets_in_contact_keep_linear_momentum_to_round_off() {
    let mut sim = simulation(SHEETS);
    let (p0, j0) = momenta(&sim);
    let mut worst_angular: f64 = 0.0;
    for k in 1..=8 {
        sim.advance_to(0.05 * k as f64, &mut ()).unwrap();
        let (p, j) = momenta(&sim);
        assert!(relative_change(p, p0) <= 1e-12, "momentum {p} from {p0}");
        worst_angular = worst_angular.max(relative_change(j, j0));
    }
    assert!(sim.counters().events_by_kind().get("layer").copied().unwrap_or(0) > 0, "the sheets never touched");
    // the constraint impulses carry the torque (q − q̃) × λh while contact holds the meshes
    // apart (docs/phantom.md): bounded, not round-off
    assert!(worst_angular < 1e-3, "angular momentum changed by {worst_angular:e} of itself");
    eprintln!("angular momentum: largest relative change {worst_angular:e}");
}

/// The domino row of Phantom §5.1 (Fig. 4): five single triangles standing in a row, phantom,
/// in free space; the first one's top vertex is pushed into the second, and the impacts carry
/// the momentum down the row.
fn domino_row(dir: &Path) -> String {
    std::fs::write(dir.join("triangle.obj"), "v 0 -0.02 0\nv 0 0.02 0\nv 0 0 0.04\nf 1 2 3\n").unwrap();
    let mut text = String::from(
        "[simulation]\nduration = 0.3\nframe_rate = 20.0\ngravity = [0.0, 0.0, 0.0]\n\
         [contact]\nthickness = 0.002\nstiffness = 100.0\n",
    );
    for k in 0..5 {
        let push = if k == 0 { "velocities = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.5, 0.0, 0.0]]\n" } else { "" };
        text += &format!(
            "[[body]]\nname = \"domino{k}\"\nkind = \"shell\"\nmesh = \"triangle.obj\"\n\
             transform = {{ translate = [{}, 0.0, 0.0] }}\ndensity = 1.0\nstretching = 1e4\n{push}\
             integration = \"phantom\"\n",
            0.03 * k as f64
        );
    }
    text
}

#[test]
fn a_domino_row_of_phantom_triangles_keeps_linear_momentum_to_round_off() {
    let dir = tempfile::tempdir().unwrap();
    let mut sim = simulation_in(&domino_row(dir.path()), dir.path());
    let (p0, _) = momenta(&sim);
    for k in 1..=6 {
        sim.advance_to(0.05 * k as f64, &mut ()).unwrap();
        let (p, _) = momenta(&sim);
        assert!(relative_change(p, p0) <= 1e-12, "momentum {p} from {p0}");
    }
    assert!(sim.counters().events_by_kind().get("layer").copied().unwrap_or(0) > 0, "no domino fell on another");
    // the last domino was hit: its vertices move
    let v = &sim.model().vertices;
    let last = sim.model().bodies.values().find(|b| b.name == "domino4").unwrap().vertices.clone();
    assert!(last.map(|i| v.velocity(VertexId(i)).x).sum::<f64>() > 0.0, "the push did not reach the end of the row");
}

/// An irregular sheet as a modelling tool might export it: a 7 × 7 grid of points jittered by
/// up to 40 % of the spacing (a fixed sequence), triangulated along alternating diagonals, so
/// edge lengths and triangle areas vary several-fold and the boundary has small triangles.
fn irregular_sheet_obj() -> String {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut jitter = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.8
    };
    let (n, spacing) = (7usize, 0.03);
    let mut text = String::new();
    for j in 0..n {
        for i in 0..n {
            let (dx, dy) = (jitter() * spacing, jitter() * spacing);
            text += &format!("v {} {} 0\n", i as f64 * spacing + dx, j as f64 * spacing + dy);
        }
    }
    for j in 0..n - 1 {
        for i in 0..n - 1 {
            let a = j * n + i + 1;
            let (b, c, d) = (a + 1, a + n, a + n + 1);
            if (i + j) % 2 == 0 {
                text += &format!("f {a} {b} {d}\nf {a} {d} {c}\n");
            } else {
                text += &format!("f {a} {b} {c}\nf {b} {d} {c}\n");
            }
        }
    }
    text
}

#[test]
fn an_irregular_phantom_mesh_keeps_its_momenta_free_and_its_linear_momentum_in_contact() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("irregular.obj"), irregular_sheet_obj()).unwrap();
    let sheet = "[[body]]\nname = \"irregular\"\nkind = \"shell\"\nmesh = \"irregular.obj\"\ndensity = 0.2\n\
                 stretching = 5000.0\nbending = 0.001\nvelocity = [0.0, 0.0, -0.5]\nangular_velocity = [0.3, 0.0, 4.0]\n\
                 integration = \"phantom\"\n";
    let free = format!("[simulation]\nduration = 0.2\nframe_rate = 10.0\ngravity = [0.0, 0.0, 0.0]\n{sheet}");
    let mut sim = simulation_in(&free, dir.path());
    let (p0, j0) = momenta(&sim);
    sim.advance_to(0.2, &mut ()).unwrap();
    let (p, j) = momenta(&sim);
    assert!(relative_change(p, p0) <= 1e-12, "momentum {p} from {p0}");
    assert!(relative_change(j, j0) <= 1e-12, "angular momentum {j} from {j0}");
    // the same sheet falling onto an explicit one below it
    let contact = format!(
        "{free}[contact]\nthickness = 0.003\nstiffness = 200.0\n[[body]]\nname = \"below\"\nkind = \"shell\"\n\
         mesh = {{ generator = \"grid\", size = [0.3, 0.3], resolution = [6, 6] }}\n\
         transform = {{ translate = [0.09, 0.09, -0.04] }}\ndensity = 0.2\nstretching = 200.0\n"
    );
    let mut sim = simulation_in(&contact, dir.path());
    let (p0, _) = momenta(&sim);
    sim.advance_to(0.2, &mut ()).unwrap();
    let (p, _) = momenta(&sim);
    assert!(relative_change(p, p0) <= 1e-12, "momentum {p} from {p0}");
    assert!(sim.counters().events_by_kind().get("layer").copied().unwrap_or(0) > 0, "the sheets never touched");
}

#[test]
fn phantom_scenes_pass_the_intersection_check_and_rerun_bit_for_bit() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("sheets.toml");
    std::fs::write(&scene, SHEETS).unwrap();
    let mut stats = Vec::new();
    for run in ["a", "b"] {
        let out = dir.path().join(run);
        let status = Command::new(env!("CARGO_BIN_EXE_avicontact"))
            .args(["run", scene.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
            .status()
            .unwrap();
        assert!(status.success());
        let report = avicontact::output::check_run(&out).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report.frames, 9);
        assert!(report.findings.is_empty(), "{:?}", report.findings);
        stats.push(std::fs::read(out.join("stats.csv")).unwrap());
    }
    assert!(stats[0] == stats[1], "two runs of one scene differ");
}

/// The FPU chain of Phantom §5.1 between two walls (its end vertices held): unit masses, stiff
/// harmonic springs (k = 1250, ω = 50) alternating with soft quartic ones.
const FPU: &str = r#"
[simulation]
duration = 10.0
frame_rate = 10.0
gravity = [0.0, 0.0, 0.0]
implicit_step = 1e-3
[[body]]
name = "chain"
kind = "chain"
mesh = { generator = "line", start = [0.0, 0.0, 0.0], end = [7.0, 0.0, 0.0], segments = 7 }
mass = 1.0
spring_stiffness = [0.0, 1250.0]
spring_quartic = [4.0, 0.0]
fixed = [0, 7]
velocities = [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.5, 0.0, 0.0],
              [0.0, 0.0, 0.0], [-1.5, 0.0, 0.0], [0.0, 0.0, 0.0]]
integration = "phantom"
"#;

/// The FPU chain's energy from the raw state: both halves' kinetic energy and this file's own
/// spring energies at the phantom positions (the implicit potentials live on the phantom).
fn fpu_energy(sim: &Simulation) -> f64 {
    let t = sim.now().seconds();
    let v = &sim.model().vertices;
    let state = phantoms(sim).remove(0);
    let mut energy = 0.0;
    let mut x = Vec::new();
    for (k, i) in state.vertices.clone().enumerate() {
        let id = VertexId(i);
        if v.effective_mass(id).is_finite() {
            energy += 0.5 * v.mass(id) * v.velocity(id).norm_squared();
            energy += 0.5 * state.masses[k] * state.velocities[k].norm_squared();
        }
        x.push(state.positions[k] + state.velocities[k] * (t - state.tick_time));
    }
    for s in 0..7 {
        let stretch = (x[s + 1] - x[s]).norm() - 1.0;
        energy += if s % 2 == 0 { stretch.powi(4) } else { 0.5 * 1250.0 * stretch * stretch };
    }
    energy
}

#[test]
fn the_fpu_chain_on_phantom_springs_keeps_its_energy_without_drift_over_ten_thousand_steps() {
    let mut sim = simulation(FPU);
    let e0 = fpu_energy(&sim);
    let mut energies = Vec::new();
    for k in 1..=1000 {
        sim.advance_to(0.01 * k as f64, &mut ()).unwrap();
        energies.push(fpu_energy(&sim));
    }
    assert_eq!(sim.counters().events_by_kind()["implicit"], 10_001);
    // frames fall on ticks, where the velocities are those of the step ahead (piecewise constant,
    // as on every AVI clock): the stiff springs' kinetic energy is off by O(ωh) = 5 % of theirs
    let worst = energies.iter().map(|e| (e - e0).abs()).fold(0.0, f64::max);
    assert!(worst < 0.02 * e0, "energy strayed by {worst} from {e0}");
    let mean = |s: &[f64]| s.iter().sum::<f64>() / s.len() as f64;
    let drift = mean(&energies[900..]) - mean(&energies[..100]);
    assert!(drift.abs() < 1e-3 * e0, "energy drifted by {drift} of {e0} over 10 s");
    eprintln!("FPU: largest deviation {:.2e} of the energy, drift {:.2e}", worst / e0, drift / e0);
}

/// Four vertices on springs (ω·h ≤ 0.13 at the largest step), no contact: explicit at `period`, or phantom at `implicit_step`.
fn chain(integration: &str, step: f64) -> String {
    let (key, value) = if integration == "phantom" { ("implicit_step", step) } else { ("period", step) };
    format!(
        r#"
[simulation]
duration = 0.2
frame_rate = 5.0
gravity = [0.0, 0.0, 0.0]
{key} = {value:e}
[[body]]
name = "chain"
kind = "chain"
mesh = {{ generator = "line", start = [0.0, 0.0, 0.0], end = [0.3, 0.1, 0.0], segments = 3 }}
mass = 0.01
spring_stiffness = [3.0, 5.0]
velocities = [[0.0, 0.5, 0.0], [0.2, 0.0, 0.0], [0.0, -0.3, 0.1], [-0.1, 0.0, 0.0]]
integration = "{integration}"
"#
    )
}

fn final_positions(text: &str) -> Vec<V3> {
    let mut sim = simulation(text);
    sim.advance_to(0.2, &mut ()).unwrap();
    sim.positions()
}

#[test]
fn a_phantom_body_approaches_the_explicit_avi_at_second_order_as_the_implicit_step_shrinks() {
    let reference = final_positions(&chain("explicit", 1e-6));
    let error = |h: f64| {
        let x = final_positions(&chain("phantom", h));
        x.iter().zip(&reference).map(|(a, b)| (a - b).norm()).fold(0.0, f64::max)
    };
    let errors = [error(4e-3), error(2e-3), error(1e-3)];
    for pair in errors.windows(2) {
        let order = (pair[0] / pair[1]).log2();
        assert!(order > 1.8, "errors {errors:?}: order {order}");
    }
    assert!(errors[2] < 1e-3, "errors {errors:?}");
}

#[test]
fn bad_phantom_input_is_refused_naming_the_key() {
    let refused = |text: &str| match scene::parse(text, "bad.toml", Path::new("."), "bad".into()) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(e) => e.to_string(),
    };
    for step in ["0.0", "-1e-3", "nan", "inf"] {
        let text = SPINNING_SHELL
            .replace("gravity = [0.0, 0.0, 0.0]", &format!("gravity = [0.0, 0.0, 0.0]\nimplicit_step = {step}"));
        let message = refused(&text);
        assert!(message.contains("simulation.implicit_step") && message.contains("> 0"), "{message}");
    }
    let message = refused(&SPINNING_SHELL.replace("\"phantom\"", "\"phantm\""));
    assert!(message.contains("integration") && message.contains("\"phantom\""), "{message}");
    for kind in [
        "kind = \"particles\"\npositions = [[0.0, 0.0, 0.0]]\nradius = 0.01\nmass = 1.0",
        "kind = \"obstacle\"\nmesh = { generator = \"icosphere\", radius = 0.1, subdivisions = 1 }",
    ] {
        let text = format!("[[body]]\nname = \"b\"\n{kind}\nintegration = \"phantom\"\n");
        let message = refused(&text);
        assert!(message.contains("integration") && message.contains("no elastic potentials"), "{message}");
    }
}

#[test]
fn an_implicit_step_that_cannot_converge_stops_the_run_naming_the_body_and_the_time() {
    let s = scene_from(SPINNING_SHELL, Path::new("."));
    let mut parameters: SimulationParameters = s.parameters;
    parameters.phantom.newton.max_iterations = 1;
    parameters.phantom.newton.tolerance = 1e-30;
    parameters.phantom.loose_tolerance = 1e-30;
    let mut sim = Simulation::new(s.model, s.forces, parameters).unwrap();
    let error = sim.advance_to(0.1, &mut ()).expect_err("one Newton iteration cannot reach 1e-30");
    let message = error.to_string();
    assert!(message.contains("phantom body \"shell\"") && message.contains("t = 0 s"), "{message}");
    assert!(!error.can_continue());
}
