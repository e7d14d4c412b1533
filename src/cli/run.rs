//! `avicontact run SCENE --out DIR`: frames, `stats.csv` (and `contact.csv`) as the run goes,
//! `summary.json` at the end, on the scene's backend or the one `--backend` names.

use super::{bad_input, check_duration, check_frame_rate, check_workload, load};
use avicontact::backend::BackendKind;
use avicontact::error::SimulationError;
use avicontact::math::Compact;
use avicontact::output::{check_output_dir, write_summary, FrameWriter, Progress, RunStatus, Summary};
use avicontact::Simulation;
use std::path::Path;
use std::process::ExitCode;

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
    /// No progress bar and no closing line.
    pub quiet: bool,
    /// The backend's audit mode.
    pub audit: bool,
    /// Wall time by event kind in `summary.json`.
    pub profile: bool,
    /// Run even when the work estimate is over its limits ([`avicontact::workload`]).
    pub insist: bool,
}

/// Runs the scene: exit 0, 1 if the run (or writing its summary) fails, 2 on bad input (nothing
/// written).
pub fn run(options: &RunOptions<'_>) -> ExitCode {
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
    // Build everything before touching the output directory: bad input writes nothing.
    let mut sim = match s.into_simulation(backend) {
        Ok(sim) => sim,
        Err(e) => return bad_input(format!("{label}: {e}")),
    };
    if let Err(code) = check_workload(options.scene, &sim, options.out, options.insist) {
        return code;
    }
    sim.backend_mut().set_audit(options.audit);
    sim.backend_mut().set_profile(options.profile);
    let mut writer = match FrameWriter::create(options.out, sim.model()) {
        Ok(w) => w,
        Err(e) => return bad_input(format!("--out: {e}")),
    };
    let mut progress = Progress::new(duration, options.quiet);
    let result = sim.run(&mut (&mut writer, &mut progress));
    progress.finish();
    let summary = summary(name, &sim, &result, duration, writer.frames_written(), options.profile);
    let summary_written = write_summary(options.out, &summary);
    match (result, summary_written) {
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
        status: if result.is_ok() { RunStatus::Completed } else { RunStatus::Failed },
        error: result.as_ref().err().map(|e| e.to_string()),
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
