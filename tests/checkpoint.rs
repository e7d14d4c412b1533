//! Checkpoints and resume (`run --checkpoint-every`, `avicontact resume`; `docs/checkpoints.md`):
//! a run stopped and resumed writes the same files, byte for byte, as one never stopped, whether
//! it was interrupted (a checkpoint at the interruption) or killed (files written past its last
//! checkpoint); and a checkpoint that is damaged, of another scene or of a run that cannot be
//! checkpointed is refused without changing anything.
//!
//! The check compares the output files of two runs and shares no code with the checkpoint.

mod common;

use avicontact::observe::{Frame, Observer, ObserverError};
use avicontact::run::{resume, resume_to, RunRequest};
use std::fs;
use std::path::{Path, PathBuf};

/// Every output file a run writes that must not depend on the process: frames, particle files,
/// `stats.csv`, `steps.csv`, and `contact.csv` without its last column (allocated bytes, which follow the
/// process's allocation history), by relative path.
fn outputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for sub in ["frames", "particles"] {
        let Ok(entries) = fs::read_dir(dir.join(sub)) else { continue };
        for entry in entries {
            let path = entry.expect("an entry").path();
            files.push((format!("{sub}/{}", path.file_name().unwrap().to_string_lossy()), fs::read(&path).unwrap()));
        }
    }
    files.push(("stats.csv".into(), fs::read(dir.join("stats.csv")).expect("stats.csv")));
    if let Ok(bytes) = fs::read(dir.join("steps.csv")) {
        files.push(("steps.csv".into(), bytes));
    }
    if let Ok(text) = fs::read_to_string(dir.join("contact.csv")) {
        let cut: String = text.lines().map(|l| format!("{}\n", &l[..l.rfind(',').unwrap()])).collect();
        files.push(("contact.csv".into(), cut.into_bytes()));
    }
    files.sort();
    files
}

/// Stops the run after `frames` frames by raising its interrupt; to play a kill, it copies the
/// checkpoint aside at the first frame past `keep_after` s, to be put back after the stop (the
/// files then run past the checkpoint, as when a process is killed between two checkpoints).
struct StopAfter {
    frames: u64,
    interrupt: avicontact::interrupt::Interrupt,
    keep_after: Option<(f64, PathBuf)>,
    kept: bool,
}

impl Observer for StopAfter {
    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        if let Some((after, dir)) = &self.keep_after {
            if !self.kept && frame.time.seconds() > *after {
                fs::copy(dir.join("checkpoint.bin"), dir.join("kept.bin"))?;
                self.kept = true;
            }
        }
        if frame.index + 1 >= self.frames {
            self.interrupt.request();
        }
        Ok(())
    }
}

/// Runs `scene` (on `backend`, or its own) for `duration` s three ways: straight through; with checkpoints every `every` s,
/// stopped after `stop_frames` frames (killed past a checkpoint if `kill`); resumed from the
/// checkpoint. The resumed run's files must be those of the straight run.
fn stopped_and_resumed(scene: &str, backend: Option<&str>, duration: f64, every: f64, stop_frames: u64, kill: bool) {
    let root = tempfile::tempdir().expect("a temporary directory");
    let (straight, stopped) = (root.path().join("straight"), root.path().join("stopped"));
    let mut request = RunRequest::new(scene, &straight);
    request.duration = Some(duration);
    request.backend = backend;
    let finished = request.load().and_then(|l| l.build()).expect("valid scene").execute(&mut ());
    assert!(finished.result.is_ok(), "{scene}: {:?}", finished.result);

    let mut request = RunRequest::new(scene, &stopped);
    request.duration = Some(duration);
    request.backend = backend;
    request.checkpoint_every = Some(every);
    let ready = request.load().and_then(|l| l.build()).expect("valid scene");
    let interrupt = ready.simulation.interrupt().clone();
    let keep_after = kill.then(|| (every, stopped.clone()));
    let mut stop = StopAfter { frames: stop_frames, interrupt, keep_after, kept: false };
    let finished = ready.execute(&mut stop);
    assert!(
        matches!(finished.result, Err(avicontact::error::SimulationError::Interrupted { .. })),
        "{scene}: stopped by its interrupt, got {:?}",
        finished.result
    );
    let stopped_at = finished.summary.simulated_time;
    assert!(stopped_at > every && stopped_at < duration, "{scene}: stopped at {stopped_at} s");
    if kill {
        assert!(stop.kept, "{scene}: a checkpoint was copied aside");
        fs::rename(stopped.join("kept.bin"), stopped.join("checkpoint.bin")).unwrap();
    }

    let ready = resume(&stopped).expect("the checkpoint resumes");
    let from = ready.start_time();
    if kill {
        assert!(from < stopped_at, "{scene}: resumed at the kept checkpoint {from} s, before {stopped_at} s");
    } else {
        assert_eq!(from, stopped_at, "{scene}: resumed where the interrupt stopped it");
    }
    let finished = ready.execute(&mut ());
    assert!(finished.result.is_ok(), "{scene}: resumed run failed: {:?}", finished.result);
    let e = resume(&stopped).map(|_| ()).unwrap_err();
    assert!(
        e.contains("the run is complete"),
        "{scene}: a completed run's checkpoint resumes only with a duration: {e}"
    );
    let (a, b) = (outputs(&straight), outputs(&stopped));
    assert_eq!(a.len(), b.len(), "{scene}: {} files straight, {} stopped and resumed", a.len(), b.len());
    for ((name_a, bytes_a), (name_b, bytes_b)) in a.iter().zip(&b) {
        assert_eq!(name_a, name_b, "{scene}");
        assert!(bytes_a == bytes_b, "{scene}: {name_a} differs after the resume (from {from} s)");
    }
}

/// A scene file written into `dir` from `text`.
fn scene_file(dir: &Path, name: &str, text: &str) -> String {
    let path = dir.join(name);
    fs::write(&path, text).unwrap();
    path.display().to_string()
}

#[test]
fn a_cloth_on_a_sphere_resumes_bit_identically_after_an_interrupt_and_after_a_kill() {
    // self-contact and friction on the kinetic hash grid, membrane damping
    stopped_and_resumed("sheet-on-sphere", None, 1.0, 0.2, 18, false);
    stopped_and_resumed("sheet-on-sphere", None, 1.0, 0.2, 22, true);
}

#[test]
fn the_k_dop_and_all_pairs_broad_phases_and_a_scripted_knot_resume_bit_identically() {
    let dir = tempfile::tempdir().unwrap();
    let base = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/sheet-on-sphere.toml")).unwrap();
    for broad_phase in ["kdop", "all-pairs"] {
        let text = base.replace("[contact]\n", &format!("[contact]\nbroad_phase = \"{broad_phase}\"\n"));
        let scene = scene_file(dir.path(), &format!("{broad_phase}.toml"), &text);
        stopped_and_resumed(&scene, None, 0.6, 0.15, 12, true);
    }
    // scripted ends, in contact in a tightening knot (its own 0.24 s: tight at 0.23 s), resumed
    // from its checkpoint at 0.16 s
    stopped_and_resumed("overhand-knot", None, 0.24, 0.16, 12, true);
}

#[test]
fn a_stiff_card_under_a_thumb_resumes_with_its_layer_clocks_limited() {
    // the card's penalty layers tick at twice its elastic clocks, not at their own slower periods:
    // a limit the scene gives again on resume (checkpoints do not carry it)
    let dir = tempfile::tempdir().unwrap();
    let scene = scene_file(dir.path(), "card.toml", &common::card_under_a_thumb(0.1, ""));
    stopped_and_resumed(&scene, None, 0.1, 0.03, 3, true);
}

#[test]
fn particles_springs_and_a_ramped_load_resume_bit_identically() {
    stopped_and_resumed("particle-box-gravity", None, 0.5, 0.1, 9, true);
    stopped_and_resumed("pogo", None, 20.0, 5.0, 400, false);
    let dir = tempfile::tempdir().unwrap();
    // the ramped load's present force is a potential's tick state; bend damping a damper's
    let loaded = common::HANGING_RIBBON.replace("bending = 0.0001\n", "bending = 0.0001\nbend_damping = 1e-6\n");
    stopped_and_resumed(&scene_file(dir.path(), "loaded.toml", &loaded), None, 0.5, 0.1, 4, true);
}

#[test]
fn phantom_bodies_and_the_synchronous_backend_resume_bit_identically() {
    // a phantom sheet in contact: its implicit steps' kept Cholesky factor is factored again
    let dir = tempfile::tempdir().unwrap();
    let base = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/sheet-on-sphere.toml")).unwrap();
    let text = base.replace("kind = \"shell\"\n", "kind = \"shell\"\nintegration = \"phantom\"\n");
    stopped_and_resumed(&scene_file(dir.path(), "phantom.toml", &text), None, 0.6, 0.15, 12, true);
    // IPC contact; BDF2 carries the step before, A-search its energy target
    for backend in ["sync:bdf2", "sync:a-search"] {
        stopped_and_resumed("sheet-on-block", Some(backend), 0.3, 0.1, 8, true);
    }
}

#[test]
fn a_rosenbrock_run_resumes_with_its_step_estimates_bit_identically() {
    // ROS3PL writes a steps.csv row per step: cut back to the checkpoint's rows after a kill
    let dir = tempfile::tempdir().unwrap();
    let text = include_str!("../scenes/spinning-shell.toml").to_string()
        + "\n[sync]\nintegrator = \"ros3pl\"\ntimestep = 0.01\n";
    let scene = scene_file(dir.path(), "rosenbrock.toml", &text);
    for kill in [false, true] {
        stopped_and_resumed(&scene, Some("sync:ros3pl"), 0.5, 0.1, 8, kill);
    }
    // and it does write them: one row per step, after the header
    let out = dir.path().join("straight");
    let mut request = RunRequest::new(&scene, &out);
    request.duration = Some(0.2);
    request.backend = Some("sync:ros3pl");
    let finished = request.load().and_then(|l| l.build()).expect("valid scene").execute(&mut ());
    assert!(finished.result.is_ok(), "{:?}", finished.result);
    let steps = fs::read_to_string(out.join("steps.csv")).expect("steps.csv");
    assert_eq!(steps.lines().next(), Some("time,position_error,velocity_error"));
    assert_eq!(steps.lines().count(), 1 + 20, "{steps}");
}

/// `scene` run for `duration` s with checkpoints every `every` s into `out`, stopped after
/// `stop_frames` frames when given; returns how it ended.
fn checkpointed(scene: &str, out: &Path, duration: f64, every: f64, stop_frames: Option<u64>) -> bool {
    let mut request = RunRequest::new(scene, out);
    request.duration = Some(duration);
    request.checkpoint_every = Some(every);
    let ready = request.load().and_then(|l| l.build()).expect("valid scene");
    let interrupt = ready.simulation.interrupt().clone();
    let finished = match stop_frames {
        Some(frames) => ready.execute(&mut StopAfter { frames, interrupt, keep_after: None, kept: false }),
        None => ready.execute(&mut ()),
    };
    finished.result.is_ok()
}

#[test]
fn a_run_taken_further_with_a_new_duration_writes_the_files_of_a_run_started_with_it() {
    let root = tempfile::tempdir().unwrap();
    let scene = "sheet-on-sphere";
    let straight = root.path().join("straight");
    let mut request = RunRequest::new(scene, &straight);
    request.duration = Some(0.35);
    assert!(request.load().and_then(|l| l.build()).expect("valid scene").execute(&mut ()).result.is_ok());

    // completed at 0.2 s, then taken on to 0.35 s
    let completed = root.path().join("completed");
    assert!(checkpointed(scene, &completed, 0.2, 0.1, None), "the first 0.2 s complete");
    let before = outputs(&completed);
    for (duration, says) in [
        (0.1, "--duration: 0.1 s is not past the checkpoint"),
        (0.2, "--duration: 0.2 s is not past the checkpoint"),
        (-1.0, "--duration: must be a finite number of seconds > 0"),
        (f64::NAN, "--duration: must be a finite number of seconds > 0"),
    ] {
        let e = resume_to(&completed, Some(duration)).map(|_| ()).unwrap_err();
        assert!(e.contains(says), "{duration}: {e}");
    }
    assert_eq!(outputs(&completed), before, "a refused resume changes nothing");
    let finished = resume_to(&completed, Some(0.35)).expect("resumes").execute(&mut ());
    assert!(finished.result.is_ok(), "{:?}", finished.result);
    // simulated_time is the last event's, just before the end
    assert!(finished.summary.duration == 0.35 && finished.summary.simulated_time > 0.34, "{:?}", finished.summary);
    assert!(outputs(&completed) == outputs(&straight), "taken further, the files are those of a 0.35 s run");

    // stopped after 4 frames of a 0.2 s run, resumed on to 0.35 s
    let stopped = root.path().join("stopped");
    assert!(!checkpointed(scene, &stopped, 0.2, 0.05, Some(4)), "stopped by its interrupt");
    let finished = resume_to(&stopped, Some(0.35)).expect("resumes").execute(&mut ());
    assert!(finished.result.is_ok(), "{:?}", finished.result);
    assert!(outputs(&stopped) == outputs(&straight), "stopped and taken further, the files are those of a 0.35 s run");
    // its checkpoints now continue to 0.35 s: it is complete there
    let e = resume(&stopped).map(|_| ()).unwrap_err();
    assert!(e.contains("the run is complete (t = 0.35 s)"), "{e}");
}

#[test]
fn a_checkpoint_of_a_changed_scene_a_damaged_one_and_none_are_refused_and_nothing_is_changed() {
    let root = tempfile::tempdir().unwrap();
    let base = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/sheet-on-sphere.toml")).unwrap();
    let scene = scene_file(root.path(), "sheet.toml", &base);
    let out = root.path().join("out");
    let mut request = RunRequest::new(&scene, &out);
    request.duration = Some(0.5);
    request.checkpoint_every = Some(0.1);
    let ready = request.load().and_then(|l| l.build()).expect("valid scene");
    let interrupt = ready.simulation.interrupt().clone();
    let finished = ready.execute(&mut StopAfter { frames: 5, interrupt, keep_after: None, kept: false });
    assert!(finished.result.is_err());
    let before = outputs(&out);

    // the scene edited since: refused, naming the scene
    fs::write(&scene, base.replace("friction = 0.1", "friction = 0.2")).unwrap();
    let e = resume(&out).map(|_| ()).unwrap_err();
    assert!(e.contains("has changed since this checkpoint was written") && e.contains("sheet.toml"), "{e}");
    fs::write(&scene, &base).unwrap();

    // damaged: refused, saying so
    let path = out.join("checkpoint.bin");
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
    let e = resume(&out).map(|_| ()).unwrap_err();
    assert!(e.contains("not a complete checkpoint"), "{e}");
    assert_eq!(outputs(&out), before, "a refused resume changes nothing");

    // none
    fs::remove_file(&path).unwrap();
    let e = resume(&out).map(|_| ()).unwrap_err();
    assert!(e.contains("no checkpoint"), "{e}");

    // a bad interval: refused before anything is written
    let fresh = root.path().join("fresh");
    let mut request = RunRequest::new("hanging-cloth", &fresh);
    request.checkpoint_every = Some(0.0);
    assert!(request.load().unwrap_err().contains("--checkpoint-every: must be a finite number of seconds > 0"));
    assert!(!fresh.exists(), "nothing written");
}
