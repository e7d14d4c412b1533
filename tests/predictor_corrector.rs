//! Löschner et al.'s predictor–corrector contact (Higher-order §4) on the synchronous backend:
//! no correction where none is needed, a velocity-level correction where contact acts, and the
//! scene keys that do not apply refused.

use avicontact::math::{Real, Vec3};
use avicontact::scene;
use avicontact::sync::{ContactModel, IntegratorKind};
use avicontact::Simulation;
use std::path::Path;

/// A cube of side 0.2 m (2 × 2 × 2 cells) with its bottom `height` m above a ground plane,
/// falling at 2 m/s, Young's modulus `youngs_modulus`, on the synchronous backend with `contact`
/// (`None`: no [contact] table), for `duration` s.
fn cube(contact: Option<&str>, integrator: &str, youngs_modulus: Real, height: Real, duration: Real) -> Simulation {
    let contact = contact.map_or(String::new(), |model| format!("[contact]\nmodel = \"{model}\"\n"));
    let text = format!(
        r#"
[simulation]
duration = {duration}
frame_rate = 100.0
gravity = [0.0, 0.0, -9.81]
backend = "sync"
{contact}
[sync]
integrator = "{integrator}"
timestep = 0.01
linear_solver = "cholesky"
[[body]]
name = "cube"
kind = "solid"
mesh = {{ generator = "box", size = [0.2, 0.2, 0.2], resolution = 2 }}
transform = {{ translate = [0.0, 0.0, {centre}] }}
material = "neo-hookean"
density = 1000.0
youngs_modulus = {youngs_modulus}
poisson_ratio = 0.3
velocity = [0.0, 0.0, -2.0]
[[body]]
name = "ground"
kind = "obstacle"
mesh = {{ generator = "plane", size = [1.0, 1.0] }}
"#,
        centre = height + 0.1
    );
    let s = scene::parse(&text, "cube", Path::new("."), "cube".into()).unwrap();
    Simulation::new_sync(s.model, s.forces, s.parameters, s.sync).unwrap()
}

/// The cube's vertices (the ground's come after them).
const CUBE_VERTICES: usize = 27;

fn state(sim: &Simulation) -> (Vec<Vec3>, Vec<Vec3>) {
    let v = &sim.model().vertices;
    (v.positions()[..CUBE_VERTICES].to_vec(), v.velocities()[..CUBE_VERTICES].to_vec())
}

#[test]
fn without_contact_the_prediction_is_kept_bit_for_bit() {
    // 0.2 s of falling from 1 m (0.6 m): the cube never reaches the ground
    for integrator in ["sdirk2", "ros3pl", "implicit-euler"] {
        let mut free = cube(None, integrator, 1e5, 1.0, 0.2);
        let mut corrected = cube(Some("predictor-corrector"), integrator, 1e5, 1.0, 0.2);
        assert_eq!(corrected.sync().unwrap().parameters().contact_model, ContactModel::PredictorCorrector);
        free.run(&mut ()).unwrap();
        corrected.run(&mut ()).unwrap();
        assert_eq!(state(&free), state(&corrected), "{integrator}: a step without contact rows was changed");
    }
}

#[test]
fn on_a_soft_cube_the_correction_stops_the_approaching_vertices_and_leaves_the_others() {
    // E so small that h²K ≪ M: the QP's objective is the mass norm alone, so the correction is
    // each constrained vertex's normal velocity set to zero and nothing else (§4's projection)
    let height = 0.025; // 4 mm above after the first step at 2 m/s, through the ground in the second
    let steps = |contact| {
        let mut sim = cube(contact, "implicit-euler", 1e-3, height, 0.02);
        let mut states = Vec::new();
        while sim.sync().unwrap().now().seconds() < 0.02 - 1e-9 {
            sim.step_event(&mut ()).unwrap();
            states.push(state(&sim));
        }
        states
    };
    let (predicted, corrected) = (steps(None), steps(Some("predictor-corrector")));
    let (x_n, _) = &predicted[predicted.len() - 2]; // both runs agree up to the last step
    assert_eq!(&corrected[corrected.len() - 2].0, x_n);
    let ((x_p, v_p), (x, v)) = (predicted.last().unwrap(), corrected.last().unwrap());
    let mut stopped = 0;
    for i in 0..CUBE_VERTICES {
        if x_p[i].z < 0.0 {
            // it would have passed through the ground: its approach is stopped, and its position
            // follows from its corrected velocity, u = u_n + h v
            assert!(v[i].z.abs() < 1e-6, "vertex {i}: normal velocity {} after the correction", v[i].z);
            assert!((v[i].xy() - v_p[i].xy()).norm() < 1e-6, "vertex {i}: tangential velocity changed");
            assert!((x[i] - (x_n[i] + v[i] * 0.01)).norm() < 1e-12);
            stopped += 1;
        } else {
            assert!((v[i] - v_p[i]).norm() < 1e-6, "vertex {i} above the ground: {} against {}", v[i], v_p[i]);
        }
    }
    assert_eq!(stopped, 9, "the bottom face's 9 vertices reach the ground in this step");
}

/// Per frame: total energy and the lowest point of the cube.
#[derive(Default)]
struct Record(Vec<(Real, Real)>);

impl avicontact::observe::Observer for Record {
    fn on_frame(&mut self, f: &avicontact::observe::Frame<'_>) -> Result<(), avicontact::observe::ObserverError> {
        let lowest = f.positions[..CUBE_VERTICES].iter().map(|p| p.z).fold(Real::INFINITY, Real::min);
        self.0.push((f.stats.total(), lowest));
        Ok(())
    }
}

#[test]
fn a_stiff_cube_bounces_off_the_ground_and_loses_energy_without_entering_it() {
    let mut sim = cube(Some("predictor-corrector"), "sdirk2", 1e5, 0.3, 1.5);
    let mut record = Record::default();
    sim.run(&mut record).unwrap();
    let deepest = record.0.iter().map(|r| r.1).fold(Real::INFINITY, Real::min);
    let (first, last) = (record.0[0].0, record.0.last().unwrap().0);
    // against a static plane, n·v ≥ 0 with u = u_n + h v keeps every vertex that starts above
    // it above it (to the QP's tolerance)
    println!("deepest point {deepest:.3e} m; energy {first:.3} → {last:.3} J");
    assert!(deepest > -1e-6, "a vertex sank {deepest} m into the ground");
    assert!(last < first, "the impacts dissipate");
    let bounced = record.0.windows(2).any(|w| w[1].1 > w[0].1 + 1e-3 && w[0].1 < 0.01);
    assert!(bounced, "the cube leaves the ground again after its first impact");
    let (_, v) = state(&sim);
    assert!(v.iter().all(|v| v.norm() < 5.0), "the cube is not thrown off");
}

#[test]
fn the_contact_model_is_refused_where_it_does_not_apply() {
    let text = |backend: &str, model: &str| {
        format!(
            "[simulation]\nduration = 0.1\nbackend = \"{backend}\"\n[contact]\nmodel = \"{model}\"\n[[body]]\nname = \"cube\"\n\
             kind = \"solid\"\nmesh = {{ generator = \"box\", size = [0.2, 0.2, 0.2], resolution = 2 }}\ndensity = 1000.0\n\
             youngs_modulus = 1e5\n"
        )
    };
    let e = scene::parse(&text("avi", "predictor-corrector"), "c", Path::new("."), "c".into()).unwrap_err().to_string();
    assert!(e.contains("contact.model") && e.contains("predictor-corrector") && e.contains("backend"), "{e}");
    let e = scene::parse(&text("sync", "lcp"), "c", Path::new("."), "c".into()).unwrap_err().to_string();
    assert!(e.contains("contact.model") && e.contains("\"ipc\"") && e.contains("\"predictor-corrector\""), "{e}");
    // run on the AVI backend anyway (`--backend avi`, `compare --runs avi`)
    let s = scene::parse(&text("sync", "predictor-corrector"), "c", Path::new("."), "c".into()).unwrap();
    let e = s.into_simulation(avicontact::scene::Backend::Avi).unwrap_err().to_string();
    assert!(e.contains("contact.model") && e.contains("synchronous"), "{e}");
    // ROS3PL takes the predictor–corrector, not IPC
    let s = scene::parse(&text("sync", "predictor-corrector"), "c", Path::new("."), "c".into()).unwrap();
    let mut sync = s.sync;
    sync.integrator = IntegratorKind::Ros3pl;
    assert!(Simulation::new_sync(s.model, s.forces, s.parameters, sync).is_ok());
}

#[test]
fn the_jumping_ball_never_enters_the_ground_on_its_irregular_mesh() {
    // examples/jumping-ball.toml coarsened: a cube's cells mapped onto the ball, so tetrahedra of
    // unequal shapes and sizes and a surface of unequal triangles; 1.2 s takes the first impact
    for integrator in [IntegratorKind::ImplicitEuler, IntegratorKind::Sdirk2] {
        let text = include_str!("../examples/jumping-ball.toml")
            .replace("resolution = 6", "resolution = 3")
            .replace("duration = 10.0", "duration = 1.2");
        let s = scene::parse(&text, "ball", Path::new("examples"), "ball".into()).unwrap();
        let ball = s.model.vertices.len() - 4; // the plane's 4 vertices come last
        assert!(s.model.vertices.positions()[ball..].iter().all(|p| p.z == 0.0), "the ground's vertices");
        let mut sync = s.sync;
        sync.integrator = integrator;
        let mut sim = Simulation::new_sync(s.model, s.forces, s.parameters, sync).unwrap();
        let mut lowest = Real::INFINITY;
        while sim.sync().unwrap().now().seconds() < 1.2 - 1e-9 {
            sim.step_event(&mut ()).unwrap();
            let x = &sim.model().vertices.positions()[..ball];
            lowest = lowest.min(x.iter().map(|p| p.z).fold(Real::INFINITY, Real::min));
        }
        println!("{integrator:?}: lowest point {lowest:.3e} m");
        assert!(lowest > -1e-6, "{integrator:?}: a vertex entered the ground by {lowest} m");
        assert!(lowest < 0.01, "{integrator:?}: the ball reached the ground");
    }
}

/// The cube scene of [`cube`] as a file in a new directory, for the command line.
fn cube_file(contact: Option<&str>, duration: Real) -> (tempfile::TempDir, std::path::PathBuf) {
    let contact = contact.map_or(String::new(), |model| format!("[contact]\nmodel = \"{model}\"\n"));
    let text = format!(
        "[simulation]\nduration = {duration}\nframe_rate = 100.0\ngravity = [0.0, 0.0, -9.81]\nbackend = \"sync\"\n\
         {contact}[sync]\nintegrator = \"implicit-euler\"\ntimestep = 0.01\nlinear_solver = \"cholesky\"\n\
         [[body]]\nname = \"cube\"\nkind = \"solid\"\n\
         mesh = {{ generator = \"box\", size = [0.2, 0.2, 0.2], resolution = 2 }}\n\
         transform = {{ translate = [0.0, 0.0, 0.15] }}\nmaterial = \"neo-hookean\"\ndensity = 1000.0\n\
         youngs_modulus = 1e6\npoisson_ratio = 0.3\nvelocity = [0.0, 0.0, -2.0]\n\
         [[body]]\nname = \"ground\"\nkind = \"obstacle\"\nmesh = {{ generator = \"plane\", size = [1.0, 1.0] }}\n"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cube.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

/// `avicontact compare SCENE --runs RUNS --out OUT --quiet`, which must succeed.
fn compare(scene: &Path, runs: &str, out: &Path) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_avicontact"))
        .args(["compare", scene.to_str().unwrap(), "--runs", runs, "--out", out.to_str().unwrap(), "--quiet"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A run's `penetration.csv` as (time, depth, vertices) rows.
fn penetration_rows(run: &Path) -> Vec<(Real, Real, usize)> {
    let text = std::fs::read_to_string(run.join("penetration.csv")).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("time,depth,vertices"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[0].parse().unwrap(), f[1].parse().unwrap(), f[2].parse().unwrap())
        })
        .collect()
}

#[test]
fn compare_measures_penetration_per_frame_from_the_frames_positions() {
    // no [contact]: the cube falls through the ground; each frame's depth is how far its lowest
    // vertex is below z = 0, read here from the frame files
    let (dir, scene) = cube_file(None, 0.2);
    let out = dir.path().join("cmp");
    compare(&scene, "sync:implicit-euler", &out);
    let run = out.join("sync-implicit-euler");
    let rows = penetration_rows(&run);
    assert_eq!(rows.len(), 21, "one row per frame");
    for (k, &(time, depth, vertices)) in rows.iter().enumerate() {
        let obj = std::fs::read_to_string(run.join(format!("frames/frame_{k:05}.obj"))).unwrap();
        let cube = obj.split("o ground").next().unwrap();
        let z: Vec<Real> = cube
            .lines()
            .filter_map(|l| l.strip_prefix("v "))
            .map(|v| v.split(' ').nth(2).unwrap().parse().unwrap())
            .collect();
        let lowest = z.iter().copied().fold(Real::INFINITY, Real::min);
        assert!((depth - (-lowest).max(0.0)).abs() < 1e-12, "t = {time}: depth {depth}, lowest vertex {lowest}");
        assert_eq!(vertices, z.iter().filter(|&&z| z < 0.0).count(), "t = {time}");
    }
    assert!(rows.last().unwrap().1 > 0.3, "the cube ends deep in the ground");
}

#[test]
fn compare_sets_the_predictor_corrector_beside_ipc_with_penetration_per_frame() {
    let (dir, scene) = cube_file(Some("predictor-corrector"), 0.2);
    let out = dir.path().join("cmp");
    compare(&scene, "sync:implicit-euler,sync:implicit-euler:ipc", &out);
    for f in ["penetration.png", "penetration.svg", "energy.png"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    for run in ["sync-implicit-euler", "sync-implicit-euler-ipc"] {
        let rows = penetration_rows(&out.join(run));
        assert_eq!(rows.len(), 21, "{run}");
        assert!(rows.iter().all(|r| r.1 == 0.0 && r.2 == 0), "{run}: no vertex ever inside the ground");
    }
    let table = std::fs::read_to_string(out.join("comparison.csv")).unwrap();
    let rows: Vec<Vec<&str>> = table.lines().map(|l| l.split(',').collect()).collect();
    assert_eq!(rows[0].last(), Some(&"deepest_penetration"));
    assert_eq!((rows[1][0], rows[2][0]), ("sync:implicit-euler", "sync:implicit-euler:ipc"));
    assert!(rows[1..].iter().all(|r| r.last() == Some(&"0")), "{table}");
    // the two models differ: the cube bounces off with another energy under each
    assert_ne!(rows[1][2], rows[2][2], "{table}");
}
