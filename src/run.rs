//! One run of a scene into an output directory: the work of `avicontact run` and of the Python
//! package's `avicontact.run`, in three stages so a caller can report between them (layer L7 of
//! `docs/design.md`, above scenes and output files).
//!
//! 1. [`RunRequest::load`] loads the scene, applies the overrides and checks the output
//!    directory and the start: bad input, nothing written.
//! 2. [`LoadedRun::build`] builds the backend and holds the run's work estimate against its limits
//!    ([`crate::workload`]); then the frame writer takes the directory over (stale frames of an
//!    earlier run are cleared).
//! 3. [`ReadyRun::execute`] runs to the scene's duration (or until the
//!    [`interrupt`](crate::interrupt)) and writes `summary.json`, whatever the outcome. With
//!    [`RunRequest::checkpoint_every`] it writes a [`checkpoint`](crate::checkpoint) at every
//!    multiple of that time and when interrupted, from which [`resume`] continues the run
//!    bit-identically (stage 2 again, then 3).
//!
//! ```no_run
//! use avicontact::run::RunRequest;
//! let request = RunRequest::new("hanging-cloth", "out".as_ref());
//! let ready = request.load().and_then(|loaded| loaded.build()).expect("valid input");
//! let finished = ready.execute(&mut ());
//! assert!(finished.result.is_ok());
//! ```

use crate::backend::BackendKind;
use crate::checkpoint::{build_id, Checkpoint, CheckpointError, ResumeRequest};
use crate::error::SimulationError;
use crate::math::Compact;
use crate::observe::Observer;
use crate::output::{
    check_output_dir, free_bytes, read_checkpoint, write_checkpoint, write_summary, FrameWriter, OutputError,
    RunStatus, Summary,
};
use crate::scene::{self, RunChoice, Scene};
use crate::Simulation;
use std::path::{Path, PathBuf};

/// What to run and where: the scene and the overrides of `avicontact run`.
#[derive(Clone, Debug)]
pub struct RunRequest<'a> {
    /// Scene file, or a built-in name.
    pub scene: &'a str,
    /// Output directory (created if missing).
    pub out: &'a Path,
    /// Overrides the scene's `[simulation] duration`, s.
    pub duration: Option<f64>,
    /// Overrides the scene's `[simulation] frame_rate`, frames per simulated second.
    pub frame_rate: Option<f64>,
    /// Overrides the scene's backend: `avi`, `sync` (with the scene's integrator) or
    /// `sync:<integrator>` ([`RunChoice`]).
    pub backend: Option<&'a str>,
    /// Run even when the work estimate is over its limits.
    pub insist: bool,
    /// The backend's audit mode ([`crate::backend::Backend::set_audit`]).
    pub audit: bool,
    /// Wall time by event kind in `summary.json`.
    pub profile: bool,
    /// Simulated seconds between two checkpoints (`DIR/checkpoint.bin`, [`crate::checkpoint`]);
    /// none by default.
    pub checkpoint_every: Option<f64>,
}

/// Stage 1: the scene loaded with its overrides, its start accepted by the backend, the output
/// directory writable. Nothing written yet.
#[derive(Debug)]
pub struct LoadedRun {
    /// The scene, overrides applied.
    pub scene: Scene,
    /// The backend (and integrator) it will run on.
    pub choice: RunChoice,
    out: PathBuf,
    insist: bool,
    audit: bool,
    profile: bool,
    /// What a checkpoint records to rebuild the run, when checkpoints are asked for.
    resume: Option<ResumeRequest>,
}

/// Stage 2: the simulation built and the output directory taken over by its frame writer.
#[derive(Debug)]
pub struct ReadyRun {
    /// The simulation, at t = 0 (raise its [`interrupt`](Simulation::interrupt) to stop the run
    /// after an event).
    pub simulation: Simulation,
    name: String,
    writer: FrameWriter,
    out: PathBuf,
    profile: bool,
    checkpoints: Option<Checkpoints>,
}

/// A run's checkpoints: when, and what each records besides the state.
#[derive(Debug)]
struct Checkpoints {
    request: ResumeRequest,
    fingerprint: u64,
}

/// Stage 3: how the run ended; `summary.json` has been written (or `summary_written` says why
/// not).
#[derive(Debug)]
pub struct FinishedRun {
    /// The simulation as the run left it.
    pub simulation: Simulation,
    /// What `summary.json` holds.
    pub summary: Summary,
    /// `Ok` when the run reached its duration; [`SimulationError::Interrupted`] when the
    /// interrupt stopped it (its files up to there are complete); another error when it failed.
    pub result: Result<(), SimulationError>,
    /// Whether `summary.json` could be written.
    pub summary_written: Result<(), OutputError>,
}

impl<'a> RunRequest<'a> {
    /// `scene` into `out` with the scene's own settings.
    pub fn new(scene: &'a str, out: &'a Path) -> Self {
        RunRequest {
            scene,
            out,
            duration: None,
            frame_rate: None,
            backend: None,
            insist: false,
            audit: false,
            profile: false,
            checkpoint_every: None,
        }
    }

    /// Loads the scene and checks everything that needs no build: the overrides, the output
    /// directory and the backend's acceptance of the start. The error is the message for the user
    /// (the place and the fix; bad input, nothing written).
    pub fn load(&self) -> Result<LoadedRun, String> {
        let mut scene = scene::load(self.scene).map_err(|e| e.to_string())?;
        if let Some(d) = self.duration {
            positive("--duration", d, "seconds")?;
            scene.parameters.duration = d;
        }
        if let Some(f) = self.frame_rate {
            positive("--frame-rate", f, "frames per second")?;
            scene.parameters.frame_rate = f;
        }
        if let Some(every) = self.checkpoint_every {
            positive("--checkpoint-every", every, "seconds")?;
        }
        check_output_dir(self.out).map_err(|e| format!("--out: {e}"))?;
        let choice = match self.backend {
            None => RunChoice::from_backend(scene.backend),
            Some(spec) => match BackendKind::from_name(spec) {
                Some(backend) => RunChoice::from_backend(backend),
                None => RunChoice::parse(spec, &scene).map_err(|e| format!("--backend: {e}"))?,
            },
        };
        if let Some(refusal) = scene.refused_start(choice.backend()) {
            return Err(refusal.to_string());
        }
        let resume = match self.checkpoint_every {
            None => None,
            Some(checkpoint_every) => Some(ResumeRequest {
                // a file scene by its absolute path: `resume` may run from another directory
                scene: match &scene.path {
                    Some(path) => std::path::absolute(path).unwrap_or_else(|_| path.clone()).display().to_string(),
                    None => self.scene.to_string(),
                },
                duration: self.duration,
                frame_rate: self.frame_rate,
                backend: self.backend.map(str::to_string),
                insist: self.insist,
                audit: self.audit,
                profile: self.profile,
                checkpoint_every,
            }),
        };
        Ok(LoadedRun {
            scene,
            choice,
            out: self.out.to_path_buf(),
            insist: self.insist,
            audit: self.audit,
            profile: self.profile,
            resume,
        })
    }
}

impl LoadedRun {
    /// The backend the run is on.
    pub fn backend(&self) -> BackendKind {
        self.choice.backend()
    }

    /// Builds the simulation, holds its work estimate against the limits (unless insisted) and
    /// creates the frame writer in the output directory. The error is the message for the user
    /// (bad input; the directory holds nothing of this run).
    pub fn build(self) -> Result<ReadyRun, String> {
        let (name, label, out, profile) = (self.scene.name.clone(), self.scene.label(), self.out.clone(), self.profile);
        let (simulation, checkpoints) = self.build_simulation()?;
        // the first checkpoint, at t = 0, taken before anything is written: a run that cannot be
        // checkpointed is refused now rather than at its first checkpoint
        let first = match &checkpoints {
            Some(checkpoints) => {
                Some(checkpoints.take(&simulation, 0, (0, 0), 0.0).map_err(|e| format!("{label}: {e}"))?)
            }
            None => None,
        };
        let writer = FrameWriter::create(&out, simulation.model()).map_err(|e| format!("--out: {e}"))?;
        if let Some(checkpoint) = first {
            write_checkpoint(&out, &checkpoint).map_err(|e| format!("--out: {e}"))?;
        }
        Ok(ReadyRun { simulation, name, writer, out, profile, checkpoints })
    }

    /// The simulation at t = 0 with its audit and profile set, its work estimate held against
    /// the limits (unless insisted), and its checkpoints' record.
    fn build_simulation(self) -> Result<(Simulation, Option<Checkpoints>), String> {
        let label = self.scene.label();
        let mut simulation = self.choice.simulation(self.scene).map_err(|e| format!("{label}: {e}"))?;
        if !self.insist {
            simulation.workload().check(free_bytes(&self.out)).map_err(|e| format!("{label}: {e}"))?;
        }
        simulation.backend_mut().set_audit(self.audit);
        simulation.backend_mut().set_profile(self.profile);
        let checkpoints = self.resume.map(|request| Checkpoints { request, fingerprint: simulation.fingerprint() });
        Ok((simulation, checkpoints))
    }
}

/// Stage 1 and 2 of a run continued from the checkpoint in `dir` (`avicontact resume DIR`): the
/// run rebuilt from its scene and overrides, checked to be the same, its state put back, and
/// `dir`'s files cut back to the checkpoint (frames and rows written after it are written again).
/// A checkpoint that is damaged, of another build or of a changed scene is refused, and nothing
/// in `dir` is changed; so is a completed run's (use [`resume_to`] with a longer duration).
pub fn resume(dir: &Path) -> Result<ReadyRun, String> {
    resume_to(dir, None)
}

/// [`resume`], on to `duration` s instead of the run's own duration when given
/// (`avicontact resume DIR --duration S`): the files are then those of a run started with
/// `--duration S`, and later checkpoints continue to `S`. The duration must be past the
/// checkpoint's time; without one, a completed run's checkpoint is refused, saying so.
pub fn resume_to(dir: &Path, duration: Option<f64>) -> Result<ReadyRun, String> {
    if let Some(d) = duration {
        positive("--duration", d, "seconds")?;
    }
    let checkpoint = read_checkpoint(dir).map_err(|e| e.to_string())?;
    if let Some(d) = duration.filter(|&d| d <= checkpoint.time) {
        return Err(format!(
            "--duration: {} s is not past the checkpoint in {}, at t = {} s; give a longer duration",
            Compact(d),
            dir.display(),
            Compact(checkpoint.time)
        ));
    }
    let request = &checkpoint.request;
    let mut run = RunRequest::new(&request.scene, dir);
    run.duration = request.duration;
    run.frame_rate = request.frame_rate;
    run.backend = request.backend.as_deref();
    run.insist = true; // the run was accepted when it started
    run.audit = request.audit;
    run.profile = request.profile;
    run.checkpoint_every = Some(request.checkpoint_every);
    let loaded = run.load()?;
    let (name, label, profile) = (loaded.scene.name.clone(), loaded.scene.label(), loaded.profile);
    let (mut simulation, checkpoints) = loaded.build_simulation()?;
    let mut checkpoints = checkpoints.expect("asked for above");
    let path = dir.join(crate::checkpoint::FILE_NAME);
    if checkpoints.fingerprint != checkpoint.fingerprint {
        return Err(CheckpointError::OtherScene { path, scene: label }.to_string());
    }
    simulation.restore_state(&checkpoint.state).map_err(|e| format!("{}: {e}", path.display()))?;
    match duration {
        Some(d) => {
            simulation.set_duration(d).map_err(|e| format!("--duration: {e}"))?;
            checkpoints.request.duration = Some(d);
        }
        None if checkpoint.reached >= simulation.parameters().duration => {
            return Err(format!(
                "{}: the run is complete (t = {} s); `avicontact resume {} --duration S` with S past {} s takes \
                 it further",
                path.display(),
                Compact(checkpoint.reached),
                dir.display(),
                Compact(checkpoint.reached)
            ));
        }
        None => {}
    }
    let writer = FrameWriter::resume(dir, checkpoint.frames_written, checkpoint.contact_rows, checkpoint.step_rows)
        .map_err(|e| format!("{e}; run the scene again"))?;
    Ok(ReadyRun { simulation, name, writer, out: dir.to_path_buf(), profile, checkpoints: Some(checkpoints) })
}

impl Checkpoints {
    /// The checkpoint of `simulation` now, taken to `reached` s, after `frames` frames and
    /// `rows` rows of `contact.csv` and of `steps.csv`.
    fn take(
        &self,
        simulation: &Simulation,
        frames: u64,
        rows: (u64, u64),
        reached: f64,
    ) -> Result<Checkpoint, CheckpointError> {
        Ok(Checkpoint {
            build: build_id(),
            fingerprint: self.fingerprint,
            request: self.request.clone(),
            time: simulation.now().seconds(),
            reached,
            frames_written: frames,
            contact_rows: rows.0,
            step_rows: rows.1,
            state: simulation.save_state()?,
        })
    }
}

impl ReadyRun {
    /// Runs to the scene's duration, handing every event and frame to `observer` besides the
    /// frame writer, then writes `summary.json`.
    pub fn execute<O: Observer + ?Sized>(mut self, observer: &mut O) -> FinishedRun {
        let duration = self.simulation.parameters().duration;
        let result = match self.checkpoints.take() {
            None => self.simulation.run(&mut (&mut self.writer, observer)),
            Some(checkpoints) => self.run_with_checkpoints(&checkpoints, observer),
        };
        let summary =
            summary(self.name, &self.simulation, &result, duration, self.writer.frames_written(), self.profile);
        let summary_written = write_summary(&self.out, &summary);
        FinishedRun { simulation: self.simulation, summary, result, summary_written }
    }
}

impl ReadyRun {
    /// The scene's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Simulated seconds between two checkpoints, if the run writes them.
    pub fn checkpoint_every(&self) -> Option<f64> {
        self.checkpoints.as_ref().map(|c| c.request.checkpoint_every)
    }

    /// The simulated time of the state now (t = 0, or a resumed checkpoint's).
    pub fn start_time(&self) -> f64 {
        self.simulation.now().seconds()
    }

    /// Runs to the duration in stretches of `checkpoint_every`, writing a checkpoint after each
    /// and after an interrupt. Stretches change nothing: the events are those of one
    /// [`Simulation::run`], in the same order.
    fn run_with_checkpoints<O: Observer + ?Sized>(
        &mut self,
        checkpoints: &Checkpoints,
        observer: &mut O,
    ) -> Result<(), SimulationError> {
        let (duration, every) = (self.simulation.parameters().duration, checkpoints.request.checkpoint_every);
        // the first multiple of `every` after the state's time
        let mut k = (self.simulation.now().seconds() / every).floor() + 1.0;
        loop {
            let target = (k * every).min(duration);
            let result = self.simulation.advance_to(target, &mut (&mut self.writer, &mut *observer));
            let last = target >= duration;
            match result {
                // a completed run keeps its last checkpoint too, so `resume --duration` can take
                // it further
                Ok(()) | Err(SimulationError::Interrupted { .. }) => {
                    // interrupted: taken as far as its last event
                    let reached = if result.is_ok() { target } else { self.simulation.now().seconds() };
                    let rows = (self.writer.contact_rows(), self.writer.step_rows());
                    let checkpoint = checkpoints.take(&self.simulation, self.writer.frames_written(), rows, reached);
                    checkpoint
                        .and_then(|checkpoint| write_checkpoint(&self.out, &checkpoint))
                        .map_err(|e| SimulationError::Observer(format!("checkpoint: {e}").into()))?;
                    result?;
                    if last {
                        return Ok(());
                    }
                }
                Err(e) => return Err(e),
            }
            k += 1.0;
        }
    }
}

/// `value` of `key` must be a finite number of `unit` > 0.
fn positive(key: &str, value: f64, unit: &str) -> Result<(), String> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(format!("{key}: must be a finite number of {unit} > 0, got {}", Compact(value)))
    }
}

/// `summary.json` for the run of scene `name` so far.
fn summary(
    name: String,
    sim: &Simulation,
    result: &Result<(), SimulationError>,
    duration: f64,
    frames: u64,
    profile: bool,
) -> Summary {
    let counters = sim.counters();
    let facts = sim.facts();
    Summary {
        scene: name,
        backend: sim.backend_name(),
        integrator: facts.integrator,
        solver: facts.solver,
        linear_solver: facts.linear_solver,
        newton_iterations: facts.newton_iterations,
        linear_solve_seconds: facts.linear_solve_seconds,
        implicit_loose_steps: facts.implicit_loose_steps,
        status: match result {
            Ok(()) => RunStatus::Completed,
            Err(SimulationError::Interrupted { .. }) => RunStatus::Interrupted,
            Err(_) => RunStatus::Failed,
        },
        error: result.as_ref().err().map(|e| e.to_string()),
        signal: match result {
            Err(SimulationError::Interrupted { cause, .. }) => Some(cause.name()),
            _ => None,
        },
        duration,
        simulated_time: sim.now().seconds(),
        frames,
        vertices: sim.model().vertices.len(),
        potentials: sim.potentials().count(),
        events: counters.events,
        events_by_kind: counters.events_by_kind(),
        deepest_layer: facts.deepest_layer,
        smallest_distance: facts.smallest_distance,
        contact_peak_bytes_per_vertex: facts.contact_peak_bytes_per_vertex,
        contact_peak_parts_per_vertex: facts.contact_peak_parts_per_vertex,
        contact_rescheduling: facts.contact_rescheduling,
        wall_seconds: counters.wall_seconds,
        seconds_by_kind: profile.then(|| {
            let mut split = counters.seconds_by_kind();
            split.insert("rescheduling", counters.rescheduling_seconds);
            split
        }),
        events_per_second: counters.events as f64 / counters.wall_seconds.max(1e-12),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_writes_its_frames_and_summary_and_refuses_bad_overrides_before_writing() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let out = dir.path().join("run");
        let mut request = RunRequest::new("spinning-shell", &out);
        request.duration = Some(-1.0);
        assert_eq!(request.load().unwrap_err(), "--duration: must be a finite number of seconds > 0, got -1");
        request.duration = Some(0.05);
        request.backend = Some("gpu");
        assert!(request.load().unwrap_err().starts_with("--backend: unknown run `gpu`"));
        assert!(!out.exists(), "bad input writes nothing");
        request.backend = Some("sync:bdf2");
        let loaded = request.load().expect("valid input");
        assert_eq!(loaded.backend(), BackendKind::Sync);
        let finished = loaded.build().expect("builds").execute(&mut ());
        assert!(finished.result.is_ok() && finished.summary_written.is_ok());
        assert_eq!(finished.summary.integrator, Some("bdf2"));
        assert_eq!(finished.summary.frames, 2, "frames at 0 and 1/30 s");
        assert!(out.join("summary.json").is_file() && out.join("stats.csv").is_file());
    }
}
