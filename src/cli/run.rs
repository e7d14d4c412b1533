//! `avicontact run SCENE --out DIR`: frames, `stats.csv` (and `contact.csv`) as the run goes,
//! `summary.json` at the end, on the scene's backend or the one `--backend` names. The stages are
//! the library's ([`avicontact::run`]); this file says what happens between them.

use super::{bad_input, check_progress_interval, stop_on_signals};
use avicontact::backend::BackendKind;
use avicontact::error::SimulationError;
use avicontact::math::Compact;
use avicontact::output::{format_wall_seconds, grouped, Progress};
use avicontact::run::RunRequest;
use avicontact::Simulation;
use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

/// What `run` was asked for.
pub struct RunOptions<'a> {
    /// Scene file or built-in name.
    pub scene: &'a str,
    /// Output directory.
    pub out: &'a Path,
    /// Overrides the scene's duration, s.
    pub duration: Option<f64>,
    /// Overrides the scene's frame rate, frames per simulated second.
    pub frame_rate: Option<f64>,
    /// Overrides the scene's backend.
    pub backend: Option<BackendKind>,
    /// No set-up lines, no progress and no closing line.
    pub quiet: bool,
    /// Wall seconds between plain progress lines when stderr is not a terminal.
    pub progress_interval: Option<f64>,
    /// The backend's audit mode.
    pub audit: bool,
    /// Wall time by event kind in `summary.json`.
    pub profile: bool,
    /// Run even when the work estimate is over its limits ([`avicontact::workload`]).
    pub insist: bool,
    /// Simulated seconds between two checkpoints (`DIR/checkpoint.bin`).
    pub checkpoint_every: Option<f64>,
}

/// Runs the scene: exit 0, 1 if the run (or writing its summary) fails, 2 on bad input (nothing
/// written), 128 + the signal's number (130 for Ctrl-C, 143 for SIGTERM) when a signal stopped it
/// after an event (`summary.json` says `"status": "interrupted"`).
pub fn run(options: &RunOptions<'_>) -> ExitCode {
    let set_up = Instant::now();
    if !options.quiet {
        // loading a large scene takes seconds (meshes, and with contact the check that it starts apart)
        eprintln!("{}: loading the scene", options.scene);
    }
    if let Err(code) = check_progress_interval(options.progress_interval) {
        return code;
    }
    let request = RunRequest {
        scene: options.scene,
        out: options.out,
        duration: options.duration,
        frame_rate: options.frame_rate,
        backend: options.backend.map(BackendKind::name),
        insist: options.insist,
        audit: options.audit,
        profile: options.profile,
        checkpoint_every: options.checkpoint_every,
    };
    let loaded = match request.load() {
        Ok(loaded) => loaded,
        Err(e) => return bad_input(e),
    };
    for w in &loaded.scene.warnings {
        eprintln!("warning: {w}");
    }
    let (name, duration) = (loaded.scene.name.clone(), loaded.scene.parameters.duration);
    if !options.quiet {
        let s = &loaded.scene;
        eprintln!(
            "{name}: loaded in {}: {} vertices in {}, {} potentials; building the {} backend",
            format_wall_seconds(set_up.elapsed().as_secs_f64()),
            grouped(s.model.vertices.len() as u64),
            counted(s.model.bodies.len() as u64, "body", "bodies"),
            grouped(s.forces.len() as u64),
            loaded.backend().name()
        );
    }
    // Build everything before touching the output directory: bad input writes nothing.
    let ready = match loaded.build() {
        Ok(ready) => ready,
        Err(e) => return bad_input(e),
    };
    if !options.quiet {
        eprintln!(
            "{name}: set up in {} ({})",
            format_wall_seconds(set_up.elapsed().as_secs_f64()),
            built(&ready.simulation)
        );
    }
    carry_out(ready, &name, duration, options.out, options.quiet, options.progress_interval)
}

/// `avicontact resume DIR [--duration S]`: continues the run in `DIR` from its checkpoint (to `S`
/// when given), bit-identically to a run never stopped; exit codes as [`run`]'s (2: no usable
/// checkpoint or a bad duration, nothing changed).
pub fn resume(dir: &Path, duration: Option<f64>, quiet: bool, progress_interval: Option<f64>) -> ExitCode {
    if let Err(code) = check_progress_interval(progress_interval) {
        return code;
    }
    let set_up = Instant::now();
    let ready = match avicontact::run::resume_to(dir, duration) {
        Ok(ready) => ready,
        Err(e) => return bad_input(e),
    };
    let name = ready.name().to_string();
    let duration = ready.simulation.parameters().duration;
    if !quiet {
        eprintln!(
            "{name}: resumed at t = {} s in {} ({}), on to {} s",
            Compact(ready.start_time()),
            format_wall_seconds(set_up.elapsed().as_secs_f64()),
            built(&ready.simulation),
            Compact(duration)
        );
    }
    carry_out(ready, &name, duration, dir, quiet, progress_interval)
}

/// Stage 3 of `run` and `resume`: runs with progress, reports how it ended, gives the exit code.
fn carry_out(
    ready: avicontact::run::ReadyRun,
    name: &str,
    duration: f64,
    out: &Path,
    quiet: bool,
    progress_interval: Option<f64>,
) -> ExitCode {
    stop_on_signals(ready.simulation.interrupt());
    let mut progress = Progress::new(duration, quiet).with_label(name).resumed_at(ready.start_time());
    if let Some(seconds) = progress_interval {
        progress = progress.with_interval(seconds);
    }
    let checkpointed = ready.checkpoint_every().is_some();
    let finished = ready.execute(&mut progress);
    progress.finish();
    let summary = &finished.summary;
    match (finished.result, finished.summary_written) {
        (Err(SimulationError::Interrupted { cause, time }), Ok(())) => {
            eprintln!(
                "{}: interrupted by {cause} at t = {time} s after {} and {} events; its files up to there are \
                 complete ({}/summary.json says \"interrupted\")",
                summary.scene,
                counted(summary.frames, "frame", "frames"),
                grouped(summary.events),
                out.display()
            );
            if checkpointed {
                eprintln!(
                    "{}: a checkpoint was written at t = {time} s; `avicontact resume {}` continues the run",
                    summary.scene,
                    out.display()
                );
            }
            ExitCode::from(cause.exit_code())
        }
        (Ok(()), Ok(())) => {
            if !quiet {
                eprintln!(
                    "{}: {} frames, {} events in {:.2} s ({:.3e} events/s) -> {}",
                    summary.scene,
                    summary.frames,
                    summary.events,
                    summary.wall_seconds,
                    summary.events_per_second,
                    out.display()
                );
            }
            ExitCode::SUCCESS
        }
        (Err(e), _) => {
            eprintln!("error: the run stopped at t = {} s: {e}", Compact(summary.simulated_time));
            if checkpointed {
                eprintln!(
                    "{}/{} holds the last checkpoint before the failure",
                    out.display(),
                    avicontact::checkpoint::FILE_NAME
                );
            }
            ExitCode::from(1)
        }
        (Ok(()), Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

/// What set-up built: vertices, potentials and, on the AVI backend with contact, the candidate
/// pairs at the start.
fn built(sim: &Simulation) -> String {
    let mut text = format!(
        "{} vertices, {} potentials",
        grouped(sim.model().vertices.len() as u64),
        grouped(sim.potentials().count() as u64)
    );
    if let Some(contact) = sim.avi().and_then(|avi| avi.contact()) {
        text.push_str(&format!(", {} contact pairs", grouped(contact.pair_count() as u64)));
    }
    text
}

/// `n` and the word for one or for several: `1 body`, `3 bodies`.
fn counted(n: u64, one: &str, several: &str) -> String {
    format!("{} {}", grouped(n), if n == 1 { one } else { several })
}
