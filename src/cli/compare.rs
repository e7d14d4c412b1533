//! `avicontact compare SCENE --out DIR --runs …`: the scene once per backend and integrator,
//! each run's outputs in `DIR/<run>/` (with `penetration.csv`: how deep the bodies lie in one
//! another at each frame), then energy, momentum and penetration plotted side by side and
//! `DIR/comparison.csv`.

use super::{bad_input, check_duration, check_workload, load, stop_on_signals};
use avicontact::error::SimulationError;
use avicontact::interrupt::Interrupt;
use avicontact::observe::{Frame, Observer, ObserverError};
use avicontact::output::{plot_comparison, write_comparison, ComparisonRow, FrameWriter, PenetrationWriter, Progress};
use avicontact::scene::{self, RunChoice};
use avicontact::Simulation;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Total energy at every frame.
#[derive(Default)]
struct Energies(Vec<f64>);

impl Observer for Energies {
    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        self.0.push(frame.stats.total());
        Ok(())
    }
}

/// Runs `scene` once per entry of `runs` into `out`; everything is checked before anything runs
/// or is written. Ctrl-C or SIGTERM stops the run in progress after its current event (its frames
/// and `stats.csv` so far stay), skips the others and the comparison, and exits 130 or 143.
pub fn compare(scene: &str, runs: &[String], out: &Path, duration: Option<f64>, quiet: bool, insist: bool) -> ExitCode {
    let first = match load(scene) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Err(code) = check_duration(duration) {
        return code;
    }
    let specs: Vec<(String, RunChoice)> = match runs
        .iter()
        .map(|r| RunChoice::parse(r.trim(), &first).map(|c| (r.trim().to_string(), c)))
        .collect::<Result<_, _>>()
    {
        Ok(specs) => specs,
        Err(e) => return bad_input(format!("--runs: {e}")),
    };
    if specs.is_empty() {
        return bad_input("--runs: give at least one run");
    }
    let mut rows = Vec::new();
    let mut dirs = Vec::new();
    let interrupt = Interrupt::new();
    stop_on_signals(&interrupt);
    for (label, choice) in &specs {
        if let Some(cause) = interrupt.cause() {
            eprintln!("interrupted by {cause} before run `{label}`; no comparison written");
            return ExitCode::from(cause.exit_code());
        }
        let mut s = match scene::load(scene) {
            Ok(s) => s,
            Err(e) => return bad_input(e),
        };
        if let Some(d) = duration {
            s.parameters.duration = d;
        }
        let total_duration = s.parameters.duration;
        let mut sim = match choice.start(s) {
            Ok(sim) => sim,
            Err(e) => return bad_input(e),
        };
        sim.set_interrupt(interrupt.clone());
        let dir = out.join(label.replace(':', "-"));
        if let Err(code) = check_workload(scene, &sim, &dir, insist) {
            return code;
        }
        match run_one(label, &mut sim, &dir, total_duration, quiet) {
            Ok(row) => rows.push(row),
            Err(code) => return code,
        }
        dirs.push((label.clone(), dir));
    }
    write_results(out, &rows, &dirs)
}

/// Runs `sim` into `dir`: its row of `comparison.csv`.
fn run_one(
    label: &str,
    sim: &mut Simulation,
    dir: &Path,
    duration: f64,
    quiet: bool,
) -> Result<ComparisonRow, ExitCode> {
    let mut writer = FrameWriter::create(dir, sim.model()).map_err(|e| bad_input(format!("--out: {e}")))?;
    let mut penetration = PenetrationWriter::create(dir, sim.model()).map_err(|e| bad_input(format!("--out: {e}")))?;
    let mut energies = Energies::default();
    let mut progress = Progress::new(duration, quiet).with_label(label);
    let result = sim.run(&mut (&mut writer, (&mut penetration, (&mut energies, &mut progress))));
    progress.finish();
    if let Err(SimulationError::Interrupted { cause, time }) = result {
        eprintln!(
            "run `{label}` interrupted by {cause} at t = {time} s; its {} frames and stats.csv so far are in {}; \
             the remaining runs, comparison.csv and the plots are not written",
            writer.frames_written(),
            dir.display()
        );
        return Err(ExitCode::from(cause.exit_code()));
    }
    if let Err(e) = result {
        eprintln!("error: run `{label}` stopped at t = {}: {e}", sim.now());
        return Err(ExitCode::from(1));
    }
    let e0 = energies.0.first().copied().unwrap_or(0.0);
    let scale = e0.abs().max(f64::MIN_POSITIVE);
    let relative: Vec<f64> = energies.0.iter().map(|e| (e - e0) / scale).collect();
    let counters = sim.counters();
    if !quiet {
        eprintln!("{label}: {} frames in {:.2} s -> {}", writer.frames_written(), counters.wall_seconds, dir.display());
    }
    Ok(ComparisonRow {
        run: label.to_string(),
        initial_energy: e0,
        final_relative: relative.last().copied().unwrap_or(0.0),
        min_relative: relative.iter().copied().fold(f64::INFINITY, f64::min),
        max_relative: relative.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        wall_seconds: counters.wall_seconds,
        steps: counters.events_by_kind().into_iter().filter(|(k, _)| *k != "frame").map(|(_, n)| n).sum(),
        newton_iterations: sim.facts().newton_iterations,
        deepest_penetration: penetration.deepest,
    })
}

/// `comparison.csv` and the side-by-side plots; prints the files written.
fn write_results(out: &Path, rows: &[ComparisonRow], dirs: &[(String, PathBuf)]) -> ExitCode {
    if let Err(e) = write_comparison(out, rows) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    match plot_comparison(out, dirs) {
        Ok(files) => {
            for f in files.iter().chain([&out.join("comparison.csv")]) {
                println!("{}", f.display());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
