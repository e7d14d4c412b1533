//! The command line as a user meets it: bad input (exit 2, a message naming the file and the key,
//! nothing written), a run's outputs, and determinism (law 6: byte-identical outputs).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn avicontact(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_avicontact")).args(args).output().expect("the binary runs")
}

const GOOD: &str = r#"
[simulation]
duration = 0.05
frame_rate = 100.0

[[body]]
name = "sheet"
kind = "shell"
mesh = { generator = "grid", size = [0.4, 0.4], resolution = [5, 5] }
density = 0.1
stretching = 50.0
bending = 0.001
stretch_damping = 0.001
fixed = [20, 24]
"#;

/// `GOOD` with its mesh read from the OBJ file `file` and only vertex 0 held.
fn with_obj(file: &str) -> String {
    GOOD.replace(
        r#"mesh = { generator = "grid", size = [0.4, 0.4], resolution = [5, 5] }"#,
        &format!("mesh = \"{file}\""),
    )
    .replace("fixed = [20, 24]", "fixed = [0]")
}

/// Writes `text` as `scene.toml` (plus any extra files) in a fresh directory.
fn scene_dir(text: &str, extra: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scene.toml");
    fs::write(&path, text).unwrap();
    for (name, content) in extra {
        fs::write(dir.path().join(name), content).unwrap();
    }
    (dir, path)
}

/// Runs a bad scene and checks exit code 2, that stderr names the file and `needle`, and that no
/// output directory was created. Returns stderr.
fn refuses(text: &str, extra: &[(&str, &str)], needle: &str) -> String {
    let (dir, path) = scene_dir(text, extra);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "expected exit 2 for {needle:?}; stderr: {stderr}");
    assert!(stderr.contains("scene.toml"), "message names the file: {stderr}");
    assert!(stderr.contains(needle), "message names {needle:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "no panic: {stderr}");
    assert!(!out.exists(), "nothing written for bad input");
    stderr.into_owned()
}

#[test]
fn unknown_key_is_named() {
    refuses(&GOOD.replace("density = 0.1", "density = 0.1\ndensty = 3.0"), &[], "densty");
    // with its line, its body and the keys of the body's kind
    refuses(
        &GOOD.replace("density = 0.1", "density = 0.1\ndensty = 3.0"),
        &[],
        "line 11, column 1 (`densty = 3.0`): unknown field `densty` in body[0] \"sheet\"; a body of kind \"shell\" takes `name`, `kind`, `transform`, `mesh`, `density`,",
    );
}

#[test]
fn wrong_type_is_named_with_its_line() {
    refuses(&GOOD.replace("stretching = 50.0", "stretching = \"stiff\""), &[], "line 11");
    refuses(&GOOD.replace("stretching = 50.0", "stretching = \"stiff\""), &[], "stretching");
}

#[test]
fn missing_mesh_file_is_named() {
    refuses(
        &GOOD.replace(
            r#"mesh = { generator = "grid", size = [0.4, 0.4], resolution = [5, 5] }"#,
            r#"mesh = "nowhere.obj""#,
        ),
        &[],
        "nowhere.obj",
    );
}

#[test]
fn non_triangle_face_is_refused() {
    refuses(
        &with_obj("quad.obj"),
        &[("quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n")],
        "a face with 4 vertices",
    );
}

#[test]
fn degenerate_triangle_is_refused() {
    refuses(
        &with_obj("flat.obj"),
        &[("flat.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nv 0 1 0\nf 1 2 3\nf 1 2 4\n")],
        "degenerate",
    );
}

#[test]
fn non_physical_parameters_are_refused() {
    refuses(&GOOD.replace("density = 0.1", "density = 0.0"), &[], "density");
    refuses(&GOOD.replace("density = 0.1", "density = -2.0"), &[], "density");
    refuses(&GOOD.replace("stretching = 50.0", "stretching = -1.0"), &[], "stretching");
    refuses(&GOOD.replace("bending = 0.001", "bending = -0.001"), &[], "bending");
}

#[test]
fn non_physical_contact_parameters_are_refused() {
    let contact = |table: &str| format!("{GOOD}\n[contact]\n{table}\n");
    refuses(&contact("safety_factor = 0.0"), &[], "contact.safety_factor");
    refuses(&contact("safety_factor = nan"), &[], "contact.safety_factor");
    refuses(&contact("profitability = 1.0"), &[], "contact.profitability");
    refuses(&contact("tolerance = -0.1"), &[], "contact.tolerance");
    refuses(&contact("restitution = 1.5"), &[], "contact.restitution");
    refuses(&contact("cell_size = 0.0"), &[], "contact.cell_size");
    refuses(&contact("cell_size = -1.0"), &[], "contact.cell_size");
    refuses(&contact("broad_phase_slack = 0.0"), &[], "contact.broad_phase_slack");
    refuses(&contact("broad_phase_slack = inf"), &[], "contact.broad_phase_slack");
    refuses(&contact("broad_phase_slack = 1e-9"), &[], "must be at least 0.001·thickness");
    refuses(&contact("broad_phase = \"octree\""), &[], "contact.broad_phase");
    refuses(&contact("").replace("density = 0.1", "density = 0.1\ninextensible = 1.5"), &[], "must be in (0, 1)");
    // inextensibility is enforced by penalty layers: without [contact] there are none
    refuses(&GOOD.replace("density = 0.1", "density = 0.1\ninextensible = 0.05"), &[], "add a [contact] table");
}

#[test]
fn fixed_index_out_of_range_is_refused() {
    refuses(&GOOD.replace("fixed = [20, 24]", "fixed = [20, 25]"), &[], "fixed[1]");
}

#[test]
fn nan_in_a_vector_is_refused() {
    refuses(&GOOD.replace("fixed = [20, 24]", "fixed = [20, 24]\nvelocity = [0.0, nan, 0.0]"), &[], "velocity");
}

#[test]
fn non_positive_duration_is_refused() {
    refuses(&GOOD.replace("duration = 0.05", "duration = 0.0"), &[], "duration");
    refuses(&GOOD.replace("duration = 0.05", "duration = -1.0"), &[], "duration");
    let (dir, path) = scene_dir(GOOD, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--duration", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--duration"));
    assert!(!out.exists());
}

#[test]
fn unknown_scene_name_lists_the_built_ins() {
    let o = avicontact(&["info", "no-such-scene"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("hanging-cloth"));
}

fn read_all(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for sub in ["", "frames", "particles"] {
        let d = dir.join(sub);
        if !d.is_dir() {
            continue;
        }
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_file() {
                let mut bytes = fs::read(&p).unwrap();
                if p.file_name().unwrap() == "summary.json" {
                    // wall-clock fields are the only non-deterministic content
                    let mut v: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
                    v["wall_seconds"] = serde_json::Value::Null;
                    v["linear_solve_seconds"] = serde_json::Value::Null;
                    v["events_per_second"] = serde_json::Value::Null;
                    bytes = v.to_string().into_bytes();
                }
                files.push((p.strip_prefix(dir).unwrap().display().to_string(), bytes));
            }
        }
    }
    files.sort();
    files
}

/// Runs `avicontact run <args> --out <fresh dir> --quiet` twice; returns every file each wrote.
fn two_runs(args: &[&str]) -> Vec<Vec<(String, Vec<u8>)>> {
    let dir = tempfile::tempdir().unwrap();
    ["a", "b"]
        .iter()
        .map(|name| {
            let out = dir.path().join(name);
            let mut all = vec!["run"];
            all.extend_from_slice(args);
            all.extend_from_slice(&["--out", out.to_str().unwrap(), "--quiet"]);
            let o = avicontact(&all);
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            read_all(&out)
        })
        .collect()
}

#[test]
fn law6_two_runs_give_byte_identical_outputs() {
    let (_dir, path) = scene_dir(GOOD, &[]);
    let runs = two_runs(&[path.to_str().unwrap()]);
    assert!(
        runs[0].len() >= 7,
        "frames, stats.csv and summary.json were written: {:?}",
        runs[0].iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn law6_contact_runs_are_byte_identical() {
    // penalty layers, certificates and the event order they create are deterministic too
    let runs = two_runs(&["sheet-on-sphere", "--duration", "0.2"]);
    let summary = &runs[0].iter().find(|f| f.0.ends_with("summary.json")).unwrap().1;
    assert!(String::from_utf8_lossy(summary).contains("\"layer\""), "contact happened");
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn law6_kdop_runs_are_byte_identical() {
    // the k-DOP hierarchy's front (its random short-circuit axis included) is deterministic; `info`
    // names it, and a cell size, which only the hash grid has, draws a warning
    let text = include_str!("../scenes/sheet-on-sphere.toml")
        .replace("[contact]", "[contact]\nbroad_phase = \"kdop\"\ncell_size = 0.1");
    let (_dir, path) = scene_dir(&text, &[]);
    let o = avicontact(&["info", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("k-DOP hierarchy"), "{}", String::from_utf8_lossy(&o.stdout));
    assert!(String::from_utf8_lossy(&o.stderr).contains("contact.cell_size"), "{}", String::from_utf8_lossy(&o.stderr));
    let runs = two_runs(&[path.to_str().unwrap(), "--duration", "0.2"]);
    let summary = &runs[0].iter().find(|f| f.0.ends_with("summary.json")).unwrap().1;
    assert!(String::from_utf8_lossy(summary).contains("\"kdop\""), "k-DOP events happened");
    assert!(String::from_utf8_lossy(summary).contains("\"layer\""), "contact happened");
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn a_run_writes_the_contracted_files() {
    let (dir, path) = scene_dir(GOOD, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stats = fs::read_to_string(out.join("stats.csv")).unwrap();
    let header = stats.lines().next().unwrap();
    assert!(header.starts_with("time,kinetic,potential,total,"));
    for column in ["momentum_x", "momentum_y", "momentum_z", "angular_x", "angular_y", "angular_z", "events"] {
        assert!(header.split(',').any(|c| c == column), "{column} in {header}");
    }
    assert_eq!(stats.lines().count(), 1 + 6, "frames at 0, 0.01, …, 0.05 s");
    let frame = fs::read_to_string(out.join("frames/frame_00005.obj")).unwrap();
    assert!(frame.starts_with("o sheet\n"));
    assert_eq!(frame.lines().filter(|l| l.starts_with("v ")).count(), 25);
    assert_eq!(frame.lines().filter(|l| l.starts_with("f ")).count(), 32);
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "completed");
    assert!(summary["events_by_kind"]["membrane"].as_u64().unwrap() > 0);
    assert!(summary["events_by_kind"]["hinge"].as_u64().unwrap() > 0);
    assert!(summary["events_by_kind"]["membrane_damping"].as_u64().unwrap() > 0);

    let o = avicontact(&["plot", out.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["energy.png", "energy.svg", "momentum.png", "momentum.svg"] {
        assert!(fs::metadata(out.join(f)).unwrap().len() > 1000, "{f}");
    }
}

#[test]
fn a_contact_run_writes_contact_csv_and_a_run_without_contact_removes_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let o = avicontact(&["run", "sheet-on-sphere", "--duration", "0.2", "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let contact = fs::read_to_string(out.join("contact.csv")).unwrap();
    let stats = fs::read_to_string(out.join("stats.csv")).unwrap();
    let mut lines = contact.lines();
    assert_eq!(lines.next(), Some("time,pairs,layers,kdop_records,occupied_cells,bookkeeping_bytes"));
    let rows: Vec<Vec<f64>> = lines.map(|l| l.split(',').map(|x| x.parse().unwrap()).collect()).collect();
    assert_eq!(rows.len(), stats.lines().count() - 1, "a row per frame");
    for (row, stat) in rows.iter().zip(stats.lines().skip(1)) {
        assert_eq!(row.len(), 6);
        assert_eq!(row[0].to_string(), stat.split(',').next().unwrap(), "the frame times of stats.csv");
        assert!(row[1] > 0.0 && row[4] > 0.0 && row[5] > 0.0, "pairs, cells and bytes: {row:?}");
        assert_eq!(row[3], 0.0, "no k-DOP records with the hash grid");
    }
    assert_eq!(rows[0][2], 0.0, "no layer at the start");
    assert!(rows.last().unwrap()[2] > 0.0, "layers once the sheet lies on the sphere: {:?}", rows.last());

    let (_scene_dir, path) = scene_dir(GOOD, &[]);
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.join("contact.csv").exists(), "a run without contact leaves no stale contact.csv");
}

#[test]
fn info_lists_bodies_and_periods() {
    let o = avicontact(&["info", "spinning-shell"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("shell") && text.contains("membrane") && text.contains("hinge") && text.contains("period"),
        "{text}"
    );
    let o = avicontact(&["info", "particle-walls"]);
    assert!(o.status.success());
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains(
            "contact (AVI penalty layers): 0 pairs at the start (contact.csv's `pairs` at t = 0; hash grid, cell 0.4200 m, slack 2.100e-2 m"
        ) && text.contains("η(1) = 0.1 m"),
        "{text}"
    );
    // a scene's slack is the one in use
    let text =
        include_str!("../scenes/particle-walls.toml").replace("[contact]", "[contact]\nbroad_phase_slack = 0.005");
    let (_dir, path) = scene_dir(&text, &[]);
    let o = avicontact(&["info", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("; hash grid, cell 0.4200 m, slack 5.000e-3 m"), "{text}");
}

#[test]
fn every_built_in_scene_loads() {
    for name in
        ["hanging-cloth", "spinning-shell", "fpu-chain", "sheet-on-block", "particle-walls", "sheet-on-sphere", "pogo"]
    {
        let o = avicontact(&["info", name]);
        assert!(o.status.success(), "{name}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn a_run_whose_clock_is_far_too_long_stops_with_exit_1_and_keeps_what_it_wrote() {
    // a membrane period far beyond its stability limit: the sheet would blow up after a few
    // frames; stretched, its membranes are checked against their clocks and stop it first
    let scene = GOOD
        .replace("duration = 0.05", "duration = 2.0")
        .replace("stretching = 50.0", "stretching = 50.0\nstretch_period = 0.02");
    let (dir, path) = scene_dir(&scene, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("has stiffened past its clock") && stderr.contains("the period key"), "{stderr}");
    assert!(out.join("frames/frame_00000.obj").is_file(), "frames written before the failure stay");
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "failed");
    assert!(summary["error"].as_str().unwrap().contains("has stiffened past its clock"));
    let rows = fs::read_to_string(out.join("stats.csv")).unwrap().lines().count() - 1;
    assert_eq!(rows as u64, summary["frames"].as_u64().unwrap(), "stats.csv has a row for every written frame");
}

#[test]
fn scripted_vertices_follow_their_path() {
    let scene = GOOD.replace(
        "fixed = [20, 24]",
        "fixed = [20]\n[[body.scripted]]\nvertices = [24]\nvelocity = [0.0, 1.0, 0.0]\nstart = 0.01\nstop = 0.03",
    );
    let (dir, path) = scene_dir(&scene, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let y_of_24 = |frame: u32| -> f64 {
        let text = fs::read_to_string(out.join(format!("frames/frame_{frame:05}.obj"))).unwrap();
        let v: Vec<&str> = text.lines().filter(|l| l.starts_with("v ")).collect();
        v[24].split_whitespace().nth(2).unwrap().parse().unwrap()
    };
    let y0 = y_of_24(0);
    assert!((y_of_24(1) - y0).abs() < 1e-15, "at rest before start");
    assert!((y_of_24(2) - y0 - 0.01).abs() < 1e-12, "moving at 1 m/s");
    assert!((y_of_24(5) - y0 - 0.02).abs() < 1e-12, "stopped after 0.02 s of motion");
}

#[test]
fn vectors_of_the_wrong_length_are_refused() {
    // serde alone would read the first three numbers and drop the fourth
    for (from, to) in [
        ("frame_rate = 100.0", "frame_rate = 100.0\ngravity = [0.0, 0.0, -9.8, 5.0]"),
        ("fixed = [20, 24]", "fixed = [20, 24]\nvelocity = [1.0, 0.0, 0.0, 0.0]"),
        ("size = [0.4, 0.4]", "size = [0.4, 0.4, 0.4]"),
        ("resolution = [5, 5]", "resolution = [5]"),
    ] {
        refuses(&GOOD.replace(from, to), &[], "an array of");
    }
}

#[test]
fn an_output_path_that_is_a_file_is_refused_before_the_run() {
    let (dir, path) = scene_dir(GOOD, &[]);
    let file = dir.path().join("taken");
    fs::write(&file, "not a directory").unwrap();
    for out in [file.clone(), file.join("below")] {
        let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
        let stderr = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{stderr}");
        assert!(stderr.contains("--out") && stderr.contains("is a file, not a directory"), "{stderr}");
    }
    assert_eq!(fs::read_to_string(&file).unwrap(), "not a directory", "nothing written");
}

#[test]
fn scenes_lists_every_built_in_scene_with_what_it_shows() {
    let o = avicontact(&["scenes"]);
    assert!(o.status.success());
    let listing = String::from_utf8_lossy(&o.stdout);
    for name in avicontact::scene::builtin_names() {
        let line = listing
            .lines()
            .find(|l| l.split_whitespace().next() == Some(name))
            .unwrap_or_else(|| panic!("{name}: {listing}"));
        assert!(line.len() > name.len() + 20, "{line}");
    }
}

#[test]
fn frame_rate_overrides_the_scene_s_and_is_checked() {
    let (dir, path) = scene_dir(GOOD, &[]);
    let out = dir.path().join("out");
    // GOOD: 0.05 s at 100 frames/s is 6 frames (t = 0 included); at 40 frames/s, 3
    let o =
        avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--frame-rate", "40"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let rows = fs::read_to_string(out.join("stats.csv")).unwrap().lines().count() - 1;
    assert_eq!(rows, 3);
    for bad in ["0", "-5", "inf", "NaN"] {
        let flag = format!("--frame-rate={bad}");
        let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", &flag]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--frame-rate"), "{bad}");
    }
}

#[test]
fn a_script_with_an_empty_vertex_list_is_refused() {
    let scene = GOOD.replace(
        "fixed = [20, 24]",
        "fixed = [20]\n[[body.scripted]]\nvertices = []\nvelocity = [0.0, 1.0, 0.0]\nstart = 0.01\nstop = 0.03",
    );
    refuses(&scene, &[], "scripted[0].vertices");
}

#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    // `avicontact info SCENE | head -1`: the reader goes away after one line
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_avicontact"))
        .args(["info", "spikes"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // close the pipe before anything is written
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_ne!(out.status.code(), Some(101), "{stderr}");
}

#[test]
fn keys_that_do_not_apply_to_the_kind_are_refused() {
    refuses(&GOOD.replace("density = 0.1", "density = 0.1\nspring_stiffness = [1.0]"), &[], "spring_stiffness");
}

#[test]
fn sync_linear_solver_is_checked_and_pcg_takes_the_steps_cholesky_takes() {
    refuses(&format!("{GOOD}\n[sync]\nlinear_solver = \"lu\"\n"), &[], "sync.linear_solver");
    // the same sync run with each solver: the same Newton iterations and the same last frame
    let run = |solver: &str| {
        let scene =
            format!("{GOOD}\n[sync]\nintegrator = \"implicit-euler\"\ntimestep = 0.01\nlinear_solver = \"{solver}\"\n");
        let (dir, path) = scene_dir(&scene, &[]);
        let out = dir.path().join("out");
        let o = avicontact(&[
            "run",
            path.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--backend",
            "sync",
            "--quiet",
        ]);
        assert!(o.status.success(), "{solver}: {}", String::from_utf8_lossy(&o.stderr));
        let summary: serde_json::Value =
            serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
        assert_eq!(summary["linear_solver"], solver);
        let last = fs::read_to_string(out.join("frames/frame_00005.obj")).unwrap();
        let positions: Vec<f64> = last
            .lines()
            .filter_map(|l| l.strip_prefix("v "))
            .flat_map(|l| l.split_whitespace().map(|c| c.parse::<f64>().unwrap()).collect::<Vec<_>>())
            .collect();
        (summary["newton_iterations"].as_u64().unwrap(), positions)
    };
    let (cholesky_iterations, cholesky) = run("cholesky");
    let (pcg_iterations, pcg) = run("pcg");
    assert_eq!(cholesky_iterations, pcg_iterations);
    assert_eq!(cholesky.len(), 25 * 3);
    let gap = cholesky.iter().zip(&pcg).map(|(a, b)| (a - b).abs()).fold(0.0, f64::max);
    assert!(gap < 1e-9, "last frames differ by {gap:e} m");
}

#[test]
fn sync_section_is_checked_and_the_sync_backend_runs_the_same_scene() {
    refuses(&format!("{GOOD}\n[sync]\nintegrator = \"rk4\"\n"), &[], "sync.integrator");
    refuses(&format!("{GOOD}\n[sync]\ntimestep = -0.01\n"), &[], "sync.timestep");
    let scene = format!("{GOOD}\n[sync]\nintegrator = \"bdf2\"\ntimestep = 0.01\n");
    let (dir, path) = scene_dir(&scene, &[]);
    let out = dir.path().join("out");
    let o =
        avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--backend", "sync", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["backend"], "sync");
    assert_eq!(summary["integrator"], "bdf2");
    assert_eq!(summary["events_by_kind"]["step"], 5);
    assert!(summary["newton_iterations"].as_u64().unwrap() >= 5);
    assert_eq!(
        fs::read_to_string(out.join("stats.csv")).unwrap().lines().count(),
        1 + 6,
        "frames at 0, 0.01, …, 0.05 s"
    );
}

#[test]
fn the_frame_due_at_the_end_is_written() {
    let scene = GOOD.replace("duration = 0.05", "duration = 0.6").replace("frame_rate = 100.0", "frame_rate = 5.0");
    let (dir, path) = scene_dir(&scene, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(out.join("frames/frame_00003.obj").is_file(), "frames at 0, 0.2, 0.4 and 0.6 s");
}

#[test]
fn obj_meshes_keep_the_files_vertex_numbering() {
    // vertex 3 of the file (the 4th `v` line) is first used by the second face
    let obj = "v 0 0 0\nv 0.2 0 0\nv 0 0.2 0\nv 0.2 0.2 0\no a\nf 1 2 3\no b\nf 2 4 3\n";
    let scene = GOOD
        .replace(r#"mesh = { generator = "grid", size = [0.4, 0.4], resolution = [5, 5] }"#, r#"mesh = "two.obj""#)
        .replace("fixed = [20, 24]", "fixed = [0, 1, 2, 3]\nvelocity = [0.0, 0.0, 0.0]");
    let (dir, path) = scene_dir(&scene, &[("two.obj", obj)]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let frame = fs::read_to_string(out.join("frames/frame_00005.obj")).unwrap();
    let v: Vec<&str> = frame.lines().filter(|l| l.starts_with("v ")).collect();
    assert_eq!(v, vec!["v 0 0 0", "v 0.2 0 0", "v 0 0.2 0", "v 0.2 0.2 0"], "all held, in file order");
    assert!(frame.contains("f 2 4 3"), "one connected mesh across groups: {frame}");
}

#[test]
fn zero_stiffness_and_double_motions_are_refused() {
    refuses(&GOOD.replace("stretching = 50.0", "stretching = 0.0"), &[], "stretching");
    let chain = r#"
[[body]]
name = "c"
kind = "chain"
mesh = { generator = "line", start = [0.0, 0.0, 0.0], end = [1.0, 0.0, 0.0], segments = 2 }
mass = 1.0
spring_stiffness = [10.0, 0.0]
"#;
    refuses(chain, &[], "spring 1 has zero");
    refuses(&GOOD.replace("fixed = [20, 24]", "fixed = [20, 24, 20]"), &[], "already held");
}

#[test]
fn law6_particles_and_chains_are_deterministic_too() {
    let scene = r#"
[simulation]
duration = 0.3
frame_rate = 20.0
[[body]]
name = "grains"
kind = "particles"
radius = 0.05
mass = 0.01
positions = { generator = "lattice", min = [-0.5, -0.5, 0.1], max = [0.5, 0.5, 0.6], count = 60, seed = 7, max_speed = 1.0 }
[[body]]
name = "chain"
kind = "chain"
mesh = { generator = "line", start = [0.0, 0.0, 1.0], end = [1.0, 0.0, 1.0], segments = 5 }
mass = 0.1
spring_stiffness = [100.0, 30.0]
spring_quartic = [0.0, 500.0]
spring_damping = 0.01
fixed = [0]
"#;
    let (_dir, path) = scene_dir(scene, &[]);
    let runs = two_runs(&[path.to_str().unwrap()]);
    assert!(runs[0].iter().any(|(f, _)| f.starts_with("particles/")));
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn check_finds_a_sheet_falling_through_an_obstacle_and_passes_a_clean_run() {
    // Without contact (not simulated yet) the sheet falls straight through the floor: the
    // independent checker must say so, naming the frame and both bodies.
    let scene = GOOD.replace("duration = 0.05", "duration = 0.3").replace("fixed = [20, 24]\n", "")
        + r#"
[[body]]
name = "floor"
kind = "obstacle"
mesh = { generator = "box", size = [0.2, 0.2, 0.05] }
transform = { translate = [0.0, 0.0, -0.1] }
"#;
    let (dir, path) = scene_dir(&scene, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = avicontact(&["check", out.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&c.stdout);
    assert_eq!(c.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("\"sheet\"") && stdout.contains("\"floor\"") && stdout.contains("frame_"), "{stdout}");
    assert!(!stdout.contains("frame_00000.obj"), "the first frame is clean: {stdout}");

    let (dir, path) = scene_dir(GOOD, &[]);
    let out = dir.path().join("out");
    assert!(avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]).status.success());
    let c = avicontact(&["check", out.to_str().unwrap()]);
    assert_eq!(c.status.code(), Some(0), "{}", String::from_utf8_lossy(&c.stdout));
    assert_eq!(avicontact(&["check", dir.path().join("nothing").to_str().unwrap()]).status.code(), Some(2));
}

#[test]
fn the_design_contract_scene_loads_unchanged_and_runs() {
    // tests/design_contract_scene.toml is the contract scene of docs/design.md, verbatim: the
    // first toml block there
    let ours = include_str!("design_contract_scene.toml");
    let block = include_str!("../docs/design.md")
        .split("```toml\n")
        .nth(1)
        .and_then(|rest| rest.split("```").next())
        .expect("docs/design.md has a toml block");
    assert_eq!(block, ours, "tests/design_contract_scene.toml is the contract scene of docs/design.md");
    let (dir, path) = scene_dir(ours, &[]);
    let info = avicontact(&["info", path.to_str().unwrap()]);
    assert!(info.status.success(), "{}", String::from_utf8_lossy(&info.stderr));
    let text = String::from_utf8_lossy(&info.stdout);
    for body in ["sheet", "ball", "block", "grains"] {
        assert!(text.contains(body), "{body}: {text}");
    }
    // its lattice of grains starts partly inside the ball: the AVI backend, whose penalty layers
    // must start outside their own range, refuses the run and names the pair; nothing is written
    let out = dir.path().join("out");
    let o =
        avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--duration", "0.002", "--quiet"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("contact.thickness") && err.contains("of \"ball\"") && err.contains("intersect"), "{err}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn compare_runs_each_backend_and_writes_plots_and_a_table() {
    let (dir, path) = scene_dir(GOOD, &[]);
    let out = dir.path().join("cmp");
    let bad =
        avicontact(&["compare", path.to_str().unwrap(), "--runs", "avi,sync:rk4", "--out", out.to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("rk4"));
    assert!(!out.exists(), "nothing written for a bad run list");
    let o = avicontact(&[
        "compare",
        path.to_str().unwrap(),
        "--runs",
        "avi,sync:implicit-euler,sync:a-search",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["energy.png", "energy.svg", "momentum.png", "momentum.svg", "avi/stats.csv", "sync-a-search/stats.csv"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let table = fs::read_to_string(out.join("comparison.csv")).unwrap();
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 4, "{table}");
    assert!(rows[0].starts_with("run,initial_energy,final_relative"));
    assert!(rows[1].starts_with("avi,") && rows[3].starts_with("sync:a-search,"));
    assert!(rows[3].split(',').nth(7).unwrap().parse::<u64>().unwrap() > 0, "Newton iterations reported");
}

#[test]
fn initially_intersecting_contact_geometry_is_named() {
    // `info` warns, naming both primitives; `run` on the AVI backend refuses (exit 2, nothing written)
    let scene = format!(
        "{GOOD}\n[contact]\nthickness = 0.01\n[[body]]\nname = \"ball\"\nkind = \"obstacle\"\n\
         mesh = {{ generator = \"icosphere\", radius = 0.15, subdivisions = 1 }}\n"
    );
    let (dir, path) = scene_dir(&scene, &[]);
    let o = avicontact(&["info", path.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains("contact.thickness") && stderr.contains("of \"sheet\"") && stderr.contains("of \"ball\""),
        "{stderr}"
    );
    assert!(stderr.contains("intersect"), "{stderr}");
    // and the contact line says why it is missing instead of vanishing
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("contact (AVI penalty layers): not started, the AVI refuses this start:")
            && stdout.contains("of \"ball\""),
        "{stdout}"
    );
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains("error:") && stderr.contains("of \"ball\"") && stderr.contains("intersect"), "{stderr}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn sync_ipc_contact_keeps_a_falling_sheet_on_an_obstacle() {
    // Without [contact] the AVI lets the sheet fall through (see the `check` test above); the
    // synchronous backend's IPC keeps every frame intersection-free, by the independent checker.
    let scene = r#"
[simulation]
duration = 0.25
frame_rate = 40.0
gravity = [0.0, 0.0, -9.8]
backend = "sync"
[contact]
thickness = 0.001
[sync]
integrator = "implicit-euler"
timestep = 0.005
barrier_distance = 0.002
barrier_stiffness = 1000.0
[[body]]
name = "sheet"
kind = "shell"
mesh = { generator = "grid", size = [0.3, 0.3], resolution = [6, 6] }
transform = { translate = [0.0, 0.0, 0.02] }
density = 0.2
stretching = 200.0
bending = 0.001
[[body]]
name = "block"
kind = "obstacle"
mesh = { generator = "box", size = [0.12, 0.12, 0.05] }
transform = { translate = [0.0, 0.0, -0.025] }
"#;
    let (dir, path) = scene_dir(scene, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let c = avicontact(&["check", out.to_str().unwrap()]);
    assert_eq!(c.status.code(), Some(0), "{}", String::from_utf8_lossy(&c.stdout));
    // in every frame the vertices over the block stay above its top face, while the overhanging
    // corner falls below it: the sheet is held by the block, not by anything else
    let z_of = |text: &str, k: usize| -> f64 {
        text.lines().filter(|l| l.starts_with("v ")).nth(k).unwrap().split_whitespace().nth(3).unwrap().parse().unwrap()
    };
    let (mut lowest_centre, mut lowest_corner) = (f64::INFINITY, f64::INFINITY);
    for entry in fs::read_dir(out.join("frames")).unwrap() {
        let text = fs::read_to_string(entry.unwrap().path()).unwrap();
        lowest_centre = lowest_centre.min(z_of(&text, 14)); // (−3 cm, −3 cm): over the block
        lowest_corner = lowest_corner.min(z_of(&text, 0)); // (−15 cm, −15 cm): beyond it
    }
    assert!(lowest_centre > 0.0, "a vertex over the block went through its top: {lowest_centre}");
    assert!(lowest_corner < -0.01, "the corner should fall past the top: {lowest_corner}");
}

/// A neo-Hookean chain (the `bar-collision` bar, shortened) with no contact.
const BAR: &str = r#"
[simulation]
duration = 0.05
frame_rate = 100.0
gravity = [0.0, 0.0, 0.0]
[[body]]
name = "bar"
kind = "chain"
mesh = { generator = "line", start = [0.0, 0.0, 0.0], end = [0.0, 0.0, 1.0], segments = 10 }
mass = 0.1
material = "neo-hookean"
axial_stiffness = 10.0
velocity = [0.0, 0.0, -1.0]
"#;

#[test]
fn chain_materials_and_their_keys_are_checked() {
    let (dir, path) = scene_dir(BAR, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "a neo-Hookean chain runs: {}", String::from_utf8_lossy(&o.stderr));
    refuses(&BAR.replace("\"neo-hookean\"", "\"rubber\""), &[], "material");
    refuses(&BAR.replace("axial_stiffness = 10.0", "axial_stiffness = -1.0"), &[], "axial_stiffness");
    refuses(&BAR.replace("axial_stiffness = 10.0\n", ""), &[], "axial_stiffness");
    refuses(&BAR.replace("axial_stiffness = 10.0", "spring_stiffness = [1.0]"), &[], "spring_stiffness");
    refuses(&BAR.replace("material = \"neo-hookean\"\n", "spring_stiffness = [1.0]\n"), &[], "axial_stiffness");
}

#[test]
fn the_ball_generator_is_for_solids_and_checks_its_keys() {
    let ball = |mesh: &str| {
        format!(
            "[simulation]\nduration = 0.05\nframe_rate = 100.0\n[[body]]\nname = \"ball\"\nkind = \"solid\"\nmesh = {mesh}\ndensity = 1000.0\nyoungs_modulus = 1e5\n"
        )
    };
    let (dir, path) = scene_dir(&ball("{ generator = \"ball\", radius = 0.05, resolution = 3 }"), &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "a ball runs: {}", String::from_utf8_lossy(&o.stderr));
    refuses(&ball("{ generator = \"ball\", radius = -0.05, resolution = 3 }"), &[], "radius");
    refuses(&ball("{ generator = \"ball\", radius = 0.05, resolution = 0 }"), &[], "resolution");
    refuses(
        &GOOD.replace(
            r#"mesh = { generator = "grid", size = [0.4, 0.4], resolution = [5, 5] }"#,
            r#"mesh = { generator = "ball", radius = 0.1, resolution = 3 }"#,
        ),
        &[],
        "ball generator is for solids",
    );
}

#[test]
fn law6_sync_contact_runs_are_byte_identical() {
    // Newton with the Jacobi-PCG, IPC and A-search: the same bits on every run
    let runs = two_runs(&["bar-collision", "--duration", "0.3"]);
    assert!(runs[0].len() >= 10, "frames were written");
    assert_eq!(runs[0], runs[1]);
}

/// `GOOD` with one more line after its `fixed` key.
fn good_with(line: &str) -> String {
    GOOD.replace("fixed = [20, 24]", &format!("fixed = [20, 24]\n{line}"))
}

#[test]
fn a_huge_or_tiny_size_is_named_as_the_cause_not_a_degenerate_triangle() {
    for (scale, cause) in [("1e-200", "underflows f64 to 0"), ("1e200", "overflow f64 to infinity")] {
        let e = refuses(&good_with(&format!("transform = {{ scale = {scale} }}")), &[], "transform.scale");
        assert!(e.contains(cause) && e.contains("between 1e-50 m and 1e50 m"), "{e}");
        assert!(e.contains("give a scale between") && !e.contains("is degenerate"), "{e}");
    }
    // a mesh that is itself out of range names the mesh
    let e = refuses(&GOOD.replace("size = [0.4, 0.4]", "size = [1e-60, 1e-60]"), &[], "\"sheet\".mesh:");
    assert!(e.contains("underflows") && !e.contains("is degenerate"), "{e}");
    // so far from the origin that round-off collapses the sheet
    let e = refuses(&good_with("transform = { translate = [1e20, 0.0, 0.0] }"), &[], "transform.translate");
    assert!(e.contains("round-off") && !e.contains("is degenerate"), "{e}");
    let e = refuses(&good_with("transform = { translate = [0.0, 1e60, 0.0] }"), &[], "transform.translate");
    assert!(e.contains("within ±1e50 m"), "{e}");
    // the ends of the range load
    for scale in ["1e-49", "1e49"] {
        let (_dir, path) = scene_dir(&good_with(&format!("transform = {{ scale = {scale} }}")), &[]);
        let o = avicontact(&["info", path.to_str().unwrap()]);
        assert!(o.status.success(), "scale {scale}: {}", String::from_utf8_lossy(&o.stderr));
    }
}

#[test]
fn profitability_is_a_ratio_in_its_range_not_a_gap() {
    let contact = |table: &str| format!("{GOOD}\n[contact]\n{table}\n");
    for p in ["1e308", "2.5"] {
        let e = refuses(&contact(&format!("profitability = {p}")), &[], "contact.profitability");
        assert!(e.contains("must be in (1, 2]") && e.contains(&format!("got {p}")), "{e}");
        assert!(!e.contains("thickness η(1) =") && !e.contains("move the bodies"), "{e}");
    }
    let (_dir, path) = scene_dir(&contact("profitability = 2.0"), &[]);
    let o = avicontact(&["info", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// A sheet 2 cm above a block on the synchronous backend with IPC, and `sync` keys.
fn sync_contact(sync: &str) -> String {
    format!(
        "[simulation]\nduration = 0.05\nbackend = \"sync\"\n[contact]\n[sync]\n{sync}\n[[body]]\nname = \"sheet\"\n\
         kind = \"shell\"\nmesh = {{ generator = \"grid\", size = [0.3, 0.3], resolution = [4, 4] }}\n\
         transform = {{ translate = [0.0, 0.0, 0.02] }}\ndensity = 0.2\nstretching = 200.0\n[[body]]\n\
         name = \"block\"\nkind = \"obstacle\"\nmesh = {{ generator = \"box\", size = [0.4, 0.4, 0.02] }}\n"
    )
}

#[test]
fn an_ipc_barrier_too_wide_or_too_stiff_is_named_not_called_an_intersection() {
    let e = refuses(&sync_contact("barrier_distance = 1e300"), &[], "sync.barrier_distance");
    assert!(e.contains("larger than the whole scene") && e.contains("d̂ = 1e300 m"), "{e}");
    assert!(!e.contains("intersect"), "{e}");
    // within the scene's size but with a stiffness whose barrier overflows: found by the
    // backend, still named with the file (not the scene's name) and the keys
    let e = refuses(&sync_contact("barrier_distance = 0.05\nbarrier_stiffness = 1e308"), &[], "sync.barrier_distance");
    assert!(e.contains("overflows") && e.contains("κ = 1e308 N/m") && !e.contains("intersect"), "{e}");
    assert!(e.starts_with("error: ") && e.contains("scene.toml: `sync.barrier_distance`"), "{e}");
    // an info line prints d̂ compactly
    let (_dir, path) = scene_dir(&sync_contact("barrier_distance = 0.05\nbarrier_stiffness = 1e300"), &[]);
    let o = avicontact(&["info", path.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("IPC d̂ = 0.05 m, κ = 1e300 N/m"), "{stdout}");
}

#[test]
fn huge_and_tiny_numbers_are_printed_compactly() {
    let e = refuses(&GOOD.replace("stretching = 50.0", "stretching = -1e308"), &[], "stretching");
    assert!(e.contains("got -1e308") && !e.contains("0000000000"), "{e}");
    let e = refuses(&GOOD.replace("duration = 0.05", "duration = -1e-300"), &[], "duration");
    assert!(e.contains("got -1e-300") && !e.contains("0000000000"), "{e}");
    let e = refuses(&good_with("transform = { scale = -1e300 }"), &[], "transform.scale");
    assert!(e.contains("got -1e300") && !e.contains("0000000000"), "{e}");
}

#[test]
fn hostile_values_get_messages_that_name_their_cause() {
    // a line too short for f64 is a size, not `end` equal to `start`
    let chain = "[[body]]\nname = \"c\"\nkind = \"chain\"\nmass = 1.0\nspring_stiffness = [1.0]\n\
                 mesh = { generator = \"line\", start = [0.0, 0.0, 0.0], end = [1e-200, 0.0, 0.0], segments = 4 }\n";
    let e = refuses(chain, &[], "\"c\".mesh:");
    assert!(e.contains("1e-200 m across") && !e.contains("must differ"), "{e}");
    // a generator's sliver names the generator's keys, not a mesh to fix
    let e = refuses(
        &GOOD.replace(
            r#"mesh = { generator = "grid", size = [0.4, 0.4], resolution = [5, 5] }"#,
            r#"mesh = { generator = "cylinder", radius = 0.2, height = 1e-200 }"#,
        ),
        &[],
        "degenerate",
    );
    assert!(e.contains("the generator's keys make slivers"), "{e}");
    // an inextensible slack below f64's resolution of a length, not a gap below the thickness
    let e = refuses(&format!("{}\n[contact]\n", good_with("inextensible = 1e-300")), &[], "inextensible");
    assert!(e.contains("must be at least 1e-12") && !e.contains("move the bodies"), "{e}");
    // a huge thickness is printed compactly
    let e = refuses(&format!("{GOOD}\n[contact]\nthickness = 1e300\n"), &[], "contact.thickness");
    assert!(e.contains("η(1) = 1e300 m") && !e.contains("0000000000"), "{e}");
    // a kinetic energy that overflows at the start is refused with its key (it was found at
    // frame 0 as a divergence, exit 1), not blamed on the clock periods
    let e = refuses(&good_with("velocity = [1e308, 0.0, 0.0]"), &[], "body[0] \"sheet\".velocity");
    assert!(e.contains("beyond f64") && !e.contains("clock period"), "{e}");
}

/// 27 particles in a box with contact, their speeds drawn up to `max_speed`; `extra` goes into
/// `[contact]`.
fn particles_in_a_box(max_speed: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = 0.1
frame_rate = 30.0
gravity = [0.0, 0.0, 0.0]
[contact]
thickness = 0.02
stiffness = 1000.0
{extra}
[[body]]
name = "balls"
kind = "particles"
radius = 0.1
mass = 1.0
positions = {{ generator = "lattice", min = [-0.5, -0.5, -0.5], max = [0.5, 0.5, 0.5], count = 27, seed = 1, max_speed = {max_speed} }}
[[body]]
name = "box"
kind = "obstacle"
mesh = {{ generator = "box", size = [1.5, 1.5, 1.5] }}
"#
    )
}

#[test]
fn runs_that_cannot_finish_are_refused_with_their_estimate_before_anything_is_written() {
    // a 1 pm hash-grid cell: a broad-phase certificate every 1e-14 s per particle
    let tiny_cells = particles_in_a_box("1.0", "cell_size = 1e-12");
    refuses(&tiny_cells, &[], "broad-phase certificates per simulated second");
    refuses(&tiny_cells, &[], "contact.cell_size");
    // speeds of 1e100 m/s (a kinetic energy within f64): certificates every 1e-102 s
    let e = refuses(&particles_in_a_box("1e100", ""), &[], "broad-phase certificates per simulated second");
    assert!(e.contains("the run would take at least") && e.contains("years"), "{e}");
    // a period of 1e-300 s
    refuses(&GOOD.replace("frame_rate = 100.0", "frame_rate = 100.0\nperiod = 1e-300"), &[], "force clocks");
    // a frame rate that writes 1e306 files
    refuses(&GOOD.replace("frame_rate = 100.0", "frame_rate = 1e308"), &[], "frames (1e308 frames/s");
    // info prints the estimate
    let (_dir, path) = scene_dir(&particles_in_a_box("1.0", ""), &[]);
    let o = avicontact(&["info", path.to_str().unwrap()]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("work at the start: ") && stdout.contains("broad-phase certificates"), "{stdout}");
}

#[test]
fn insisting_runs_past_the_estimate_and_stops_with_a_reason_instead_of_hanging() {
    // (speeds whose broad-phase renewals fall below the clock's resolution, the broad-phase stall,
    // overflow the kinetic energy and are refused with their key; tests/broad_phase.rs drives the
    // stall through the library)
    let (dir, path) = scene_dir(&particles_in_a_box("1e100", ""), &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--insist"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("the run stopped at t = "), "{stderr}");
    let summary = fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"status\": \"failed\""), "{summary}");
}

/// Starts `avicontact ARGS` with stderr piped, so it is not a terminal.
fn spawn(args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_avicontact"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary starts")
}

/// Waits until `path` exists (at most a minute; the child is killed if it never does).
fn wait_for(path: &Path, child: &mut std::process::Child) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !path.exists() {
        if std::time::Instant::now() > deadline || child.try_wait().unwrap().is_some() {
            let _ = child.kill();
            let out = child.stderr.take().map(std::io::read_to_string).transpose().unwrap();
            panic!("{} never appeared; stderr: {out:?}", path.display());
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Sends `signal` `deliveries` times in a row to a running `run` of a long scene once its third
/// frame is written, and checks the exit code, `summary.json`, and that what was written is
/// whole: as many frames as rows of `stats.csv`, and `check` passes on them.
fn a_run_stopped_by(signal: i32, name: &str, code: i32, deliveries: usize) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut child = spawn(&["run", "hanging-cloth", "--out", out.to_str().unwrap(), "--duration", "1000"]);
    wait_for(&out.join("frames/frame_00002.obj"), &mut child);
    for _ in 0..deliveries {
        // SAFETY: kill(2) on our own child's pid, which it keeps until we wait for it
        assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, signal) }, 0);
    }
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(code), "{stderr}");
    assert!(stderr.contains(&format!("interrupted by {name}")), "{stderr}");
    let summary: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["status"], "interrupted", "{summary}");
    assert_eq!(summary["signal"], name, "{summary}");
    assert!(summary["error"].as_str().unwrap().contains(name), "{summary}");
    let t = summary["simulated_time"].as_f64().unwrap();
    assert!(t > 0.0 && t < 1000.0, "{summary}");
    assert!(summary["wall_seconds"].as_f64().unwrap() > 0.0, "{summary}");
    let frames = summary["frames"].as_u64().unwrap();
    assert!(frames >= 3, "{summary}");
    let files = fs::read_dir(out.join("frames"))
        .unwrap()
        .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "obj"))
        .count();
    let rows = fs::read_to_string(out.join("stats.csv")).unwrap().lines().count() - 1;
    assert_eq!((files as u64, rows as u64), (frames, frames), "frames on disk, stats.csv rows and summary agree");
    let check = avicontact(&["check", out.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn ctrl_c_ends_a_run_after_the_current_event_with_exit_130_and_an_interrupted_summary() {
    a_run_stopped_by(libc::SIGINT, "SIGINT", 130, 1);
}

#[test]
fn sigterm_ends_a_run_after_the_current_event_with_exit_143_and_an_interrupted_summary() {
    a_run_stopped_by(libc::SIGTERM, "SIGTERM", 143, 1);
}

#[test]
fn a_signal_delivered_twice_at_once_is_one_request_and_the_summary_is_written() {
    // GNU `timeout` sends SIGTERM to the command and then to its whole process group
    a_run_stopped_by(libc::SIGTERM, "SIGTERM", 143, 2);
}

#[test]
fn sigterm_stops_compare_with_exit_143_and_no_comparison() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args =
        ["compare", "hanging-cloth", "--runs", "avi,sync:bdf2", "--out", out.to_str().unwrap(), "--duration", "1000"];
    let mut child = spawn(&args);
    wait_for(&out.join("avi/frames/frame_00002.obj"), &mut child);
    // SAFETY: as above
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let o = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(143), "{stderr}");
    assert!(stderr.contains("run `avi` interrupted by SIGTERM"), "{stderr}");
    assert!(!out.join("comparison.csv").exists() && !out.join("sync-bdf2").exists());
    assert!(avicontact(&["check", out.join("avi").to_str().unwrap()]).status.success());
}

#[test]
fn without_a_terminal_run_reports_its_set_up_and_a_progress_line_every_interval() {
    use std::io::BufRead;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args =
        ["run", "hanging-cloth", "--out", out.to_str().unwrap(), "--duration", "1000", "--progress-interval", "0.1"];
    let mut child = spawn(&args);
    let mut lines = std::io::BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    // the set-up lines, then progress lines (t, share, events, rate, ETA), at least two of them
    while seen.iter().filter(|l: &&String| l.starts_with("hanging-cloth: t = ")).count() < 2 {
        match lines.next() {
            Some(line) => seen.push(line.unwrap()),
            None => panic!("stderr ended early: {seen:?}"),
        }
    }
    // SAFETY: as above
    assert_eq!(unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGTERM) }, 0);
    let rest: Vec<String> = lines.map(|l| l.unwrap()).collect();
    assert_eq!(child.wait().unwrap().code(), Some(143), "{seen:?} {rest:?}");
    assert_eq!(seen[0], "hanging-cloth: loading the scene", "{seen:?}");
    assert!(
        seen[1].starts_with("hanging-cloth: loaded in ") && seen[1].ends_with("building the avi backend"),
        "{seen:?}"
    );
    assert!(seen[2].starts_with("hanging-cloth: set up in ") && seen[2].contains(" potentials"), "{seen:?}");
    let progress = seen.iter().find(|l| l.starts_with("hanging-cloth: t = ")).unwrap();
    for part in [" / 1000 s (", "%), ", " events, ", " events/s, ETA "] {
        assert!(progress.contains(part), "{part:?} in {progress}");
    }
    assert!(
        !seen.iter().chain(&rest).any(|l| l.contains('\r') || l.contains('\u{1b}')),
        "no bar drawn on a pipe: {seen:?}"
    );
}

#[test]
fn quiet_prints_nothing_and_the_progress_interval_is_checked() {
    let (dir, path) = scene_dir(GOOD, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success());
    assert_eq!(String::from_utf8_lossy(&o.stderr), "", "--quiet: no set-up line, progress or closing line");
    for bad in ["0", "-1", "inf", "NaN"] {
        let flag = format!("--progress-interval={bad}");
        let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), &flag]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(String::from_utf8_lossy(&o.stderr).contains("--progress-interval"), "{bad}");
    }
}

#[test]
fn overflowing_speeds_radii_and_newton_tolerances_are_refused_with_their_keys() {
    let particle = |extra: &str| {
        format!(
            "[simulation]\nduration = 0.1\n[[body]]\nname = \"p\"\nkind = \"particles\"\nmass = 1.0\n\
             positions = [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]\n{extra}\n"
        )
    };
    // a kinetic energy beyond f64 was found only at frame 0, as a divergence (exit 1)
    let e = refuses(&particle("radius = 0.1\nvelocity = [1e308, 0.0, 0.0]"), &[], "body[0] \"p\".velocity");
    assert!(e.contains("beyond f64") && e.contains("1e308 m/s"), "{e}");
    let e = refuses(&particle("radius = 0.1\nangular_velocity = [0.0, 0.0, 1e300]"), &[], "body[0] \"p\".velocity");
    assert!(e.contains("angular_velocity"), "{e}");
    let e = refuses(&particle("radius = 1e300"), &[], "body[0] \"p\".radius");
    assert!(e.contains("1e300 m is outside") && e.contains("1e50 m"), "{e}");
    let e = refuses(&sync_contact("newton_tolerance = 1e308"), &[], "sync.newton_tolerance");
    assert!(e.contains("more than the whole scene"), "{e}");
    // physical values still run
    let (_dir, path) = scene_dir(&particle("radius = 0.1\nvelocity = [1e3, 0.0, 0.0]"), &[]);
    let o = avicontact(&["info", path.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

#[test]
fn stats_csv_prints_huge_and_tiny_numbers_with_an_exponent_and_exactly() {
    // a particle at 1e100 m/s (speeds whose kinetic energy overflows are refused): its kinetic
    // energy of 5e199 J is printed as such, not as 200 digits
    let text = "[simulation]\nduration = 0.05\n[[body]]\nname = \"p\"\nkind = \"particles\"\nmass = 1.0\n\
                radius = 0.1\npositions = [[0.0, 0.0, 0.0]]\nvelocity = [1e100, 0.0, 0.0]\n";
    let (dir, path) = scene_dir(text, &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet", "--insist"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let stats = std::fs::read_to_string(out.join("stats.csv")).unwrap();
    let row: Vec<&str> = stats.lines().nth(1).unwrap().split(',').collect();
    assert_eq!(row[1], "5e199", "kinetic: {stats}");
    assert_eq!(row[6].parse::<f64>().unwrap(), 1e100, "momentum_x read back exactly");
    assert!(stats.lines().all(|l| l.len() < 400), "{stats}");
}

#[test]
fn render_draws_a_run_s_frames_as_png_and_gif_with_the_body_where_it_projects() {
    use avicontact::render::encode::decode_png;
    use avicontact::render::{fit_camera, RenderOptions};
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tmp");
    let o = avicontact(&["run", "hanging-cloth", "--duration", "0.1", "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = avicontact(&["render", out.to_str().unwrap(), "--size", "160x120"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let frames = fs::read_to_string(out.join("stats.csv")).unwrap().lines().count() - 1;
    let render = out.join("render");

    // a PNG per frame, of the size asked for
    let pngs: Vec<PathBuf> = (0..frames).map(|k| render.join(format!("frame_{k:05}.png"))).collect();
    let first = decode_png(&fs::read(&pngs[0]).unwrap()).unwrap();
    assert_eq!((first.width, first.height), (160, 120));
    for png in &pngs[1..] {
        assert!(decode_png(&fs::read(png).unwrap()).is_ok(), "{}", png.display());
    }
    // the cloth's pixels where its geometry projects: the centroid of a triangle mid-cloth, at the
    // first frame, with the camera render fits to the run
    let options = RenderOptions { width: 160, height: 120, ..RenderOptions::default() };
    let camera = fit_camera(&out, &options).unwrap();
    let obj = fs::read_to_string(out.join("frames/frame_00000.obj")).unwrap();
    let vertices = obj_vertices(&out.join("frames/frame_00000.obj"));
    let faces: Vec<Vec<usize>> = obj
        .lines()
        .filter_map(|l| l.strip_prefix("f "))
        .map(|l| l.split(' ').map(|x| x.parse::<usize>().unwrap() - 1).collect())
        .collect();
    let face = &faces[faces.len() / 2];
    let centroid = avicontact::math::Vec3::from_fn(|k, _| face.iter().map(|&v| vertices[v][k]).sum::<f64>() / 3.0);
    let p = camera.project(&centroid);
    let pixel = first.pixel(p.x as u32, p.y as u32).unwrap();
    assert_ne!(pixel, first.pixel(0, 0).unwrap(), "not the background");
    assert!(pixel[2] > pixel[0], "the first body's colour is a blue: {pixel:?}");

    // the animation: every frame, decodable
    let gif = fs::read(render.join("animation.gif")).unwrap();
    let mut options = gif::DecodeOptions::new();
    options.set_color_output(gif::ColorOutput::RGBA);
    let mut decoder = options.read_info(&gif[..]).unwrap();
    let mut gif_frames = 0;
    while let Some(frame) = decoder.read_next_frame().unwrap() {
        assert_eq!((frame.width, frame.height), (160, 120));
        gif_frames += 1;
    }
    assert_eq!(gif_frames, frames);

    // deterministic: a second rendering writes the same bytes
    let again = dir.path().join("again");
    let o = avicontact(&["render", out.to_str().unwrap(), "--size", "160x120", "--out", again.to_str().unwrap()]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(fs::read(again.join("animation.gif")).unwrap(), gif);
    assert_eq!(fs::read(again.join("frame_00000.png")).unwrap(), fs::read(&pngs[0]).unwrap());

    // --hide: a body left out is not drawn; one the frames do not have is bad input
    let hidden = dir.path().join("hidden");
    let args = ["render", out.to_str().unwrap(), "--size", "160x120", "--out", hidden.to_str().unwrap()];
    let o = avicontact(&[&args[..], &["--hide", "sheet"]].concat());
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no body named \"sheet\" in the frames; they have cloth"));
    let o = avicontact(&[&args[..], &["--hide", "cloth"]].concat());
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let empty = decode_png(&fs::read(hidden.join("frame_00000.png")).unwrap()).unwrap();
    assert_eq!(empty.pixel(p.x as u32, p.y as u32).unwrap(), empty.pixel(0, 0).unwrap(), "the cloth is left out");
}

#[test]
fn render_refuses_a_missing_run_or_a_bad_option_with_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-run");
    let o = avicontact(&["render", missing.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("no-run") && stderr.contains("no such directory"), "{stderr}");
    let o = avicontact(&["render", dir.path().to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("avicontact run SCENE"), "{stderr}");
    for (option, value) in [("--view", "-60"), ("--size", "8x8"), ("--every", "0")] {
        let o = avicontact(&["render", dir.path().to_str().unwrap(), option, value]);
        assert_eq!(o.status.code(), Some(2), "{option} {value}");
        assert!(!String::from_utf8_lossy(&o.stderr).contains("panicked"));
    }
    assert!(!dir.path().join("render").exists(), "nothing written for bad input");
}

#[test]
fn a_scene_that_cannot_fit_in_memory_is_refused_before_its_potentials_are_built() {
    // the budget is the machine's available memory, or AVICONTACT_MEMORY_LIMIT: a 200 × 200
    // sheet plans about 140 MB (3.5 KB per shell vertex)
    let text =
        GOOD.replace("resolution = [5, 5]", "resolution = [200, 200]").replace("fixed = [20, 24]", "fixed = [0]");
    let (dir, path) = scene_dir(&text, &[]);
    let out = dir.path().join("out");
    let run = |limit: &str| {
        Command::new(env!("CARGO_BIN_EXE_avicontact"))
            .args(["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"])
            .env("AVICONTACT_MEMORY_LIMIT", limit)
            .output()
            .unwrap()
    };
    let o = run("1e8");
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("scene.toml: body[0] \"sheet\".mesh: 40000 vertices need about 140 MB"), "{stderr}");
    assert!(stderr.contains("100 MB AVICONTACT_MEMORY_LIMIT = 1e8"), "{stderr}");
    assert!(!out.exists(), "nothing written");
    let o = run("lots");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("is not a number of bytes"));
    // within the budget it loads
    let o = Command::new(env!("CARGO_BIN_EXE_avicontact"))
        .args(["info", path.to_str().unwrap()])
        .env("AVICONTACT_MEMORY_LIMIT", "1e9")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The frame files and `stats.csv` of a run, by relative path.
fn frames_and_stats(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(dir.join("frames"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), fs::read(&p).unwrap()))
        .collect();
    files.sort();
    files.push(("stats.csv".into(), fs::read(dir.join("stats.csv")).unwrap()));
    files
}

#[test]
fn a_run_killed_outright_resumes_from_its_last_checkpoint_to_the_files_of_a_run_never_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let (killed, straight) = (dir.path().join("killed"), dir.path().join("straight"));
    let (killed_s, straight_s) = (killed.to_str().unwrap(), straight.to_str().unwrap());
    let args = ["sheet-on-sphere", "--duration", "4", "--checkpoint-every", "0.2"];
    let mut child = spawn(&[&["run", "--out", killed_s][..], &args[..]].concat());
    wait_for(&killed.join("frames/frame_00010.obj"), &mut child);
    // SIGKILL: no handler runs, nothing is flushed or cleaned up
    child.kill().unwrap();
    assert!(!child.wait().unwrap().success());
    assert!(!killed.join("summary.json").exists(), "killed before its end");
    let o = avicontact(&["resume", killed_s, "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = avicontact(&["run", "sheet-on-sphere", "--out", straight_s, "--duration", "4", "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(frames_and_stats(&killed) == frames_and_stats(&straight), "the resumed run's files differ");
    let summary = fs::read_to_string(killed.join("summary.json")).unwrap();
    assert!(summary.contains("\"status\": \"completed\""), "{summary}");
    // a completed run keeps its last checkpoint: resumed as it is, it says it is complete
    let o = avicontact(&["resume", killed_s]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("the run is complete (t = 4 s)") && e.contains("--duration"), "{e}");

    // nothing to resume: exit 2 with the reason
    let o = avicontact(&["resume", straight_s]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no checkpoint"), "{}", String::from_utf8_lossy(&o.stderr));
    let o = avicontact(&["run", "sheet-on-sphere", "--out", straight_s, "--checkpoint-every", "nan"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--checkpoint-every"));
}

/// A strip 10 cm long, its left end held and its right end pulled along it at `SPEED` m/s.
const PULLED: &str = r#"
[simulation]
duration = 1.0
frame_rate = 50.0
gravity = [0.0, 0.0, 0.0]

[[body]]
name = "strip"
kind = "shell"
mesh = { generator = "grid", size = [0.1, 0.02], resolution = [11, 3] }
density = 0.2
stretching = 400.0
bending = 0.0001
fixed = [0, 11, 22]
scripted = [ { vertices = [10, 21, 32], velocity = [SPEED, 0.0, 0.0] } ]
"#;

/// The vertices of a frame file, read here.
fn obj_vertices(path: &Path) -> Vec<[f64; 3]> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let c: Vec<f64> = l.split_whitespace().map(|x| x.parse().unwrap()).collect();
            [c[0], c[1], c[2]]
        })
        .collect()
}

#[test]
fn a_membrane_stretched_past_its_clock_stops_the_run_naming_it_and_keeps_its_frames() {
    // pulled at 0.5 m/s the strip doubles in 0.2 s; StVK stiffens as (3σ² − 1)/2 and the rest
    // periods no longer hold: a clear stop (exit 1) instead of a blow-up
    let (dir, path) = scene_dir(&PULLED.replace("SPEED", "0.5"), &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert!(!stderr.contains("panicked") && !stderr.contains("diverged"), "{stderr}");
    assert!(stderr.contains("has stiffened past its clock") && stderr.contains("safety_factor"), "{stderr}");
    let named = stderr.split("the membrane of body \"strip\" on its vertices [").nth(1).expect("names the membrane");
    let triangle: Vec<usize> = named[..named.find(']').unwrap()].split(", ").map(|i| i.parse().unwrap()).collect();
    assert_eq!(triangle.len(), 3, "{stderr}");
    let summary = fs::read_to_string(out.join("summary.json")).unwrap();
    assert!(summary.contains("\"status\": \"failed\""), "{summary}");
    // the frames written before the stop stay, finite, and the named triangle is stretched there
    let mut frames: Vec<PathBuf> = fs::read_dir(out.join("frames")).unwrap().map(|e| e.unwrap().path()).collect();
    frames.sort();
    assert!(frames.len() >= 5, "{} frames kept", frames.len());
    let (rest, last) = (obj_vertices(&frames[0]), obj_vertices(frames.last().unwrap()));
    assert!(last.iter().flatten().all(|c| c.is_finite()), "the last frame is finite");
    let length = |x: &[[f64; 3]], a: usize, b: usize| (0..3).map(|k| (x[a][k] - x[b][k]).powi(2)).sum::<f64>().sqrt();
    let stretch = (0..3)
        .map(|e| {
            let (a, b) = (triangle[e], triangle[(e + 1) % 3]);
            length(&last, a, b) / length(&rest, a, b)
        })
        .fold(0.0, f64::max);
    assert!(stretch > 1.1, "the named triangle is stretched {stretch} times");

    // pulled gently (1.25 times in 0.5 s), its membranes are checked and stay within their clocks
    let (dir, path) = scene_dir(&PULLED.replace("SPEED", "0.05").replace("duration = 1.0", "duration = 0.5"), &[]);
    let out = dir.path().join("out");
    let o = avicontact(&["run", path.to_str().unwrap(), "--out", out.to_str().unwrap(), "--quiet"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}
