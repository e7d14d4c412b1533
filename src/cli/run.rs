//! `avicontact run SCENE --out DIR`: frames, `stats.csv` (and `contact.csv`) as the run goes,
//! `summary.json` at the end, on the scene's backend or the one `--backend` names.

use super::{
    bad_input, check_duration, check_frame_rate, check_progress_interval, check_workload, load, stop_on_signals,
};
use avicontact::backend::BackendKind;
use avicontact::error::SimulationError;
use avicontact::math::Compact;
use avicontact::output::{
    check_output_dir, format_wall_seconds, grouped, write_summary, FrameWriter, Progress, RunStatus, Summary,
};
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
    let mut s = match load(options.scene) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Err(code) = check_duration(options.duration) {
        return code;
    }
    if let Err(code) = check_frame_rate(options.frame_rate) {
        return code;
    }
    if let Err(code) = check_progress_interval(options.progress_interval) {
        return code;
    }
    if let Some(d) = options.duration {
        s.parameters.duration = d;
    }
    if let Some(f) = options.frame_rate {
        s.parameters.frame_rate = f;
    }
    // the output directory before the scene is built (a large scene takes seconds to build)
    if let Err(e) = check_output_dir(options.out) {
        return bad_input(format!("--out: {e}"));
    }
    let backend = options.backend.unwrap_or(s.backend);
    let (name, label, duration) = (s.name.clone(), s.label(), s.parameters.duration);
    if let Some(refusal) = s.refused_start(backend) {
        return bad_input(refusal.to_string());
    }
    if !options.quiet {
        eprintln!(
            "{name}: loaded in {}: {} vertices in {}, {} potentials; building the {} backend",
            format_wall_seconds(set_up.elapsed().as_secs_f64()),
            grouped(s.model.vertices.len() as u64),
            counted(s.model.bodies.len() as u64, "body", "bodies"),
            grouped(s.forces.len() as u64),
            backend.name()
        );
    }
    // Build everything before touching the output directory: bad input writes nothing.
    let mut sim = match s.into_simulation(backend) {
        Ok(sim) => sim,
        Err(e) => return bad_input(format!("{label}: {e}")),
    };
    if let Err(code) = check_workload(&label, &sim, options.out, options.insist) {
        return code;
    }
    if !options.quiet {
        eprintln!("{name}: set up in {} ({})", format_wall_seconds(set_up.elapsed().as_secs_f64()), built(&sim));
    }
    sim.backend_mut().set_audit(options.audit);
    sim.backend_mut().set_profile(options.profile);
    let mut writer = match FrameWriter::create(options.out, sim.model()) {
        Ok(w) => w,
        Err(e) => return bad_input(format!("--out: {e}")),
    };
    stop_on_signals(sim.interrupt());
    let mut progress = Progress::new(duration, options.quiet).with_label(name.as_str());
    if let Some(seconds) = options.progress_interval {
        progress = progress.with_interval(seconds);
    }
    let result = sim.run(&mut (&mut writer, &mut progress));
    progress.finish();
    let summary = summary(name, &sim, &result, duration, writer.frames_written(), options.profile);
    let summary_written = write_summary(options.out, &summary);
    match (result, summary_written) {
        (Err(SimulationError::Interrupted { cause, time }), Ok(())) => {
            eprintln!(
                "{}: interrupted by {cause} at t = {time} s after {} and {} events; its files up to there are \
                 complete ({}/summary.json says \"interrupted\")",
                summary.scene,
                counted(summary.frames, "frame", "frames"),
                grouped(summary.events),
                options.out.display()
            );
            ExitCode::from(cause.exit_code())
        }
        (Ok(()), Ok(())) => {
            if !options.quiet {
                eprintln!(
                    "{}: {} frames, {} events in {:.2} s ({:.3e} events/s) -> {}",
                    summary.scene,
                    summary.frames,
                    summary.events,
                    summary.wall_seconds,
                    summary.events_per_second,
                    options.out.display()
                );
            }
            ExitCode::SUCCESS
        }
        (Err(e), _) => {
            eprintln!("error: the run stopped at t = {} s: {e}", Compact(summary.simulated_time));
            ExitCode::from(1)
        }
        (Ok(()), Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
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
        linear_solver: facts.linear_solver,
        newton_iterations: facts.newton_iterations,
        linear_solve_seconds: facts.linear_solve_seconds,
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
        wall_seconds: counters.wall_seconds,
        seconds_by_kind: profile.then(|| {
            let mut split = counters.seconds_by_kind();
            split.insert("rescheduling", counters.rescheduling_seconds);
            split
        }),
        events_per_second: counters.events as f64 / counters.wall_seconds.max(1e-12),
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
