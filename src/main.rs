//! The `avicontact` command line (DESIGN L7): `run`, `info`, `plot`.
//!
//! Exit codes: 0 success, 1 a failure during the run (what was written stays), 2 bad input
//! (nothing is written).

use avicontact::observe::{Frame, Observer, ObserverError};
use avicontact::output::{
    check_run, plot_comparison, plot_run, write_comparison, write_summary, ComparisonRow, FrameWriter, Progress,
    RunStatus, Summary,
};
use avicontact::scene::{self, Backend, Scene};
use avicontact::sync::IntegratorKind;
use avicontact::Simulation;
use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// Asynchronous variational contact mechanics: deformable bodies integrated on per-force clocks.
#[derive(Parser)]
#[command(name = "avicontact", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a scene (a TOML file or a built-in name) and write frames, stats.csv and summary.json.
    Run {
        /// Scene file, or a built-in scene: hanging-cloth, spinning-shell, fpu-chain, sheet-on-block,
        /// pogo, particle-walls, particle-box, particle-box-gravity, sheet-on-sphere, curtain-projectile,
        /// spikes, spikes-10k, spikes-50k, bar-collision.
        scene: String,
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Simulated seconds, overriding the scene's `[simulation] duration`.
        #[arg(long)]
        duration: Option<f64>,
        /// Backend, overriding the scene's `[simulation] backend`.
        #[arg(long, value_parser = ["avi", "sync"])]
        backend: Option<String>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
        /// AVI: measure wall time by event kind and contact rescheduling (summary.json
        /// `seconds_by_kind`; two clock reads per event).
        #[arg(long)]
        profile: bool,
        /// AVI with contact: after every event, check that every contact pair is guarded by active
        /// penalty layers or a slab that still separates it (slow; for debugging).
        #[arg(long)]
        audit: bool,
    },
    /// Describe a scene: bodies, vertices, potentials and their clock periods.
    Info {
        /// Scene file or built-in name.
        scene: String,
    },
    /// Draw energy and momentum against time from DIR/stats.csv (PNG and SVG in DIR).
    Plot {
        /// A run's output directory.
        dir: PathBuf,
    },
    /// Run one scene on several backends and integrators and compare energy and momentum side by
    /// side: DIR/<run>/ holds each run's outputs, DIR/energy.{png,svg}, DIR/momentum.{png,svg} and
    /// DIR/comparison.csv compare them.
    Compare {
        /// Scene file or built-in name.
        scene: String,
        /// Comma-separated runs: `avi` and `sync:<integrator>` with integrator implicit-euler,
        /// bdf2, implicit-midpoint, trapezoid, a1, a-search, blend, sdirk2 or tr-bdf2.
        #[arg(long, value_delimiter = ',', default_value = "avi,sync:a-search,sync:bdf2,sync:implicit-euler")]
        runs: Vec<String>,
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Simulated seconds, overriding the scene's duration.
        #[arg(long)]
        duration: Option<f64>,
        /// No progress bar.
        #[arg(long, short)]
        quiet: bool,
    },
    /// Check every written frame for intersecting triangles and overlapping particles with exact
    /// predicates that share no code with the simulator. Exit 1 and name them if any.
    Check {
        /// A run's output directory.
        dir: PathBuf,
    },
}

/// Bad input: exit 2, nothing written.
fn bad_input(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Run { scene, out, duration, backend, quiet, audit, profile } => {
            run(&scene, &out, duration, backend, quiet, audit, profile)
        }
        Command::Info { scene } => info(&scene),
        Command::Compare { scene, runs, out, duration, quiet } => compare(&scene, &runs, &out, duration, quiet),
        Command::Check { dir } => match check_run(&dir) {
            Ok(report) if report.findings.is_empty() => {
                println!("{}: {} frames checked, no intersection", dir.display(), report.frames);
                ExitCode::SUCCESS
            }
            Ok(report) => {
                for f in report.findings.iter().take(20) {
                    println!("{f}");
                }
                if report.findings.len() > 20 {
                    println!("… and {} more", report.findings.len() - 20);
                }
                eprintln!("error: {} problems in {} frames checked", report.findings.len(), report.frames);
                ExitCode::from(1)
            }
            Err(e) => bad_input(e),
        },
        Command::Plot { dir } => match plot_run(&dir) {
            Ok(files) => {
                for f in files {
                    println!("{}", f.display());
                }
                ExitCode::SUCCESS
            }
            // a missing or malformed stats.csv is bad input; failing to write the plots is not
            Err(e @ avicontact::output::PlotError::Write { .. }) => {
                eprintln!("error: {e}");
                ExitCode::from(1)
            }
            Err(e) => bad_input(e),
        },
    }
}

fn load(scene: &str) -> Result<Scene, ExitCode> {
    let s = scene::load(scene).map_err(bad_input)?;
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
    Ok(s)
}

fn run(
    scene: &str,
    out: &std::path::Path,
    duration: Option<f64>,
    backend: Option<String>,
    quiet: bool,
    audit: bool,
    profile: bool,
) -> ExitCode {
    let mut s = match load(scene) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(d) = duration {
        if !(d.is_finite() && d > 0.0) {
            return bad_input(format!("--duration: must be a finite number of seconds > 0, got {d}"));
        }
        s.parameters.duration = d;
    }
    let backend = match backend.as_deref() {
        Some("sync") => Backend::Sync,
        Some(_) => Backend::Avi,
        None => s.backend,
    };
    let (name, duration) = (s.name.clone(), s.parameters.duration);
    if let (Backend::Avi, Some(violation)) = (backend, &s.contact_violation) {
        return bad_input(violation.to_string());
    }
    // Build everything before touching the output directory: bad input writes nothing.
    let built = match backend {
        Backend::Avi => Simulation::new(s.model, s.forces, s.parameters),
        Backend::Sync => Simulation::new_sync(s.model, s.forces, s.parameters, s.sync),
    };
    let mut sim = match built {
        Ok(sim) => sim,
        Err(e) => return bad_input(format!("{name}: {e}")),
    };
    if let Some(engine) = sim.avi_mut() {
        engine.set_audit(audit);
        engine.set_profile(profile);
    }
    let mut writer = match FrameWriter::create(out, sim.model()) {
        Ok(w) => w,
        Err(e) => return bad_input(format!("--out: {e}")),
    };
    let mut progress = Progress::new(duration, quiet);
    let result = sim.run(&mut (&mut writer, &mut progress));
    progress.finish();
    let counters = sim.counters();
    let summary = Summary {
        scene: name,
        backend: sim.backend_name(),
        integrator: sim.sync().map(|e| e.integrator()),
        linear_solver: sim.sync().map(|e| e.parameters().newton.linear_solver.name()),
        newton_iterations: sim.sync().map(|e| e.newton_iterations()),
        linear_solve_seconds: sim.sync().map(|e| e.linear_solve_seconds()),
        status: if result.is_ok() { RunStatus::Completed } else { RunStatus::Failed },
        error: result.as_ref().err().map(|e| e.to_string()),
        duration,
        simulated_time: sim.now().seconds(),
        frames: writer.frames_written(),
        vertices: sim.model().vertices.len(),
        potentials: sim.potentials().count(),
        events: counters.events,
        events_by_kind: counters.events_by_kind(),
        deepest_layer: sim.avi().and_then(|e| e.contact()).map_or(0, |c| c.deepest_layer()),
        smallest_distance: sim.avi().and_then(|e| e.contact()).map(|c| c.smallest_gap()).filter(|g| g.is_finite()),
        contact_peak_bytes_per_vertex: sim
            .avi()
            .and_then(|e| e.contact())
            .map(|c| c.peak_bookkeeping_bytes() as f64 / sim.model().vertices.len().max(1) as f64),
        contact_peak_parts_per_vertex: sim
            .avi()
            .and_then(|e| e.contact())
            .map(|c| c.peak_bookkeeping_parts().per_vertex(sim.model().vertices.len())),
        wall_seconds: counters.wall_seconds,
        seconds_by_kind: profile.then(|| {
            let mut split = counters.seconds_by_kind();
            split.insert("rescheduling", counters.rescheduling_seconds);
            split
        }),
        events_per_second: counters.events as f64 / counters.wall_seconds.max(1e-12),
    };
    let summary_written = write_summary(out, &summary);
    match (result, summary_written) {
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
            eprintln!("error: the run stopped at t = {} s: {e}", summary.simulated_time);
            ExitCode::from(1)
        }
        (Ok(()), Err(e)) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}

fn info(scene: &str) -> ExitCode {
    let mut s = match load(scene) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(violation) = &s.contact_violation {
        // describe the scene anyway; `run` on the AVI backend refuses this start
        eprintln!("warning: {violation}; the AVI backend refuses to run from this start");
        s.parameters.contact = None;
    }
    let (name, params) = (s.name.clone(), s.parameters.clone());
    let (backend, sync) = (s.backend, s.sync);
    let model = s.model.clone();
    let sim = match Simulation::new(s.model, s.forces, s.parameters) {
        Ok(sim) => sim,
        Err(e) => return bad_input(format!("{name}: {e}")),
    };
    println!(
        "scene {name}: duration {} s, {} frames/s, gravity {:?} m/s², safety factor {}, {}",
        params.duration,
        params.frame_rate,
        params.gravity.as_slice(),
        params.safety_factor,
        match params.period_ladder.rungs() {
            0 => "exact stable periods".to_string(),
            r => format!("stable periods rounded down to {r} rungs per octave"),
        }
    );
    println!("bodies:");
    for (id, b) in &model.bodies {
        println!(
            "  {:<16} {:<9} {:>7} vertices {:>7} triangles {:>6} held/scripted  mass {:.4e} kg",
            b.name,
            b.kind.name(),
            b.vertex_count(),
            b.kind.triangles().len(),
            model.held_vertices(id),
            model.body_mass(id)
        );
    }
    println!("potentials (period = clock period h):");
    let mut by_kind: std::collections::BTreeMap<&str, (usize, f64, f64)> = Default::default();
    for (_, p, h) in sim.avi().expect("info builds the AVI").forces() {
        let e = by_kind.entry(p.kind()).or_insert((0, f64::INFINITY, 0.0));
        e.0 += 1;
        e.1 = e.1.min(h);
        e.2 = e.2.max(h);
    }
    let mut events_per_second = 0.0;
    for (kind, (count, hmin, hmax)) in &by_kind {
        println!("  {kind:<18} {count:>8}  period {hmin:.3e} .. {hmax:.3e} s");
    }
    for (_, _, h) in sim.avi().expect("info builds the AVI").forces() {
        events_per_second += 1.0 / h;
    }
    println!("force events per simulated second (AVI): {events_per_second:.3e}");
    if let Some(contact) = sim.avi().and_then(|e| e.contact()) {
        let c = contact.settings();
        let broad = match contact.cell_size() {
            None if contact.is_kdop() => format!(
                "k-DOP hierarchy, slack {:.3e} m, {} certificates at the start",
                contact.broad_phase_slack(),
                contact.kdop_certificates()
            ),
            None => "all pairs".to_string(),
            Some(c) => format!(
                "hash grid, cell {c:.4} m, slack {:.3e} m, {} cells occupied",
                contact.broad_phase_slack(),
                contact.occupied_cells()
            ),
        };
        println!(
            "contact (AVI penalty layers): {} candidate pairs at the start ({broad}), η(1) = {} m, r(1) = {} N/m, \
             layer safety {}, ε = {} m/s, restitution {}, friction {}",
            contact.pair_count(),
            c.layers.thickness,
            c.layers.stiffness,
            c.safety,
            c.tolerance,
            c.restitution,
            c.friction
        );
    }
    if backend == Backend::Sync {
        println!(
            "backend: sync ({:?}, h = {} s, Newton tolerance {} m/s{})",
            sync.integrator,
            sync.timestep,
            sync.newton.tolerance,
            sync.contact.map_or(String::new(), |c| format!(", IPC d̂ = {} m, κ = {} N/m", c.activation, c.stiffness))
        );
    } else {
        println!("backend: avi");
    }
    ExitCode::SUCCESS
}

/// A run of `compare`: `avi` or a synchronous integrator.
#[derive(Clone, Copy)]
enum RunSpec {
    Avi,
    Sync(IntegratorKind),
}

fn parse_run(spec: &str, scene: &Scene) -> Result<RunSpec, String> {
    let integrator = match spec.strip_prefix("sync:") {
        None if spec == "avi" => return Ok(RunSpec::Avi),
        None => return Err(format!("--runs: unknown run `{spec}`; use `avi` or `sync:<integrator>`")),
        Some(name) => name,
    };
    let kind = match IntegratorKind::from_name(integrator) {
        // the scene's own energy target and α range when it asks for A-search
        Some(IntegratorKind::ASearch { .. }) => match scene.sync.integrator {
            k @ IntegratorKind::ASearch { .. } => k,
            _ => IntegratorKind::A_SEARCH,
        },
        Some(kind) => kind,
        None => {
            let names: Vec<&str> = IntegratorKind::NAMES.iter().map(|(n, _)| *n).collect();
            let (last, rest) = names.split_last().expect("there are integrators");
            return Err(format!(
                "--runs: unknown integrator `{integrator}` in `{spec}`; use {} or {last}",
                rest.join(", ")
            ));
        }
    };
    Ok(RunSpec::Sync(kind))
}

/// Total energy at every frame.
#[derive(Default)]
struct Energies(Vec<f64>);

impl Observer for Energies {
    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        self.0.push(frame.stats.total());
        Ok(())
    }
}

fn compare(scene: &str, runs: &[String], out: &std::path::Path, duration: Option<f64>, quiet: bool) -> ExitCode {
    // everything is checked before anything runs or is written
    let first = match load(scene) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(d) = duration {
        if !(d.is_finite() && d > 0.0) {
            return bad_input(format!("--duration: must be a finite number of seconds > 0, got {d}"));
        }
    }
    let specs: Vec<(String, RunSpec)> =
        match runs.iter().map(|r| parse_run(r.trim(), &first).map(|s| (r.trim().to_string(), s))).collect() {
            Ok(specs) => specs,
            Err(e) => return bad_input(e),
        };
    if specs.is_empty() {
        return bad_input("--runs: give at least one run");
    }
    let mut rows = Vec::new();
    let mut dirs = Vec::new();
    for (label, spec) in &specs {
        let mut s = match scene::load(scene) {
            Ok(s) => s,
            Err(e) => return bad_input(e),
        };
        if let Some(d) = duration {
            s.parameters.duration = d;
        }
        let total_duration = s.parameters.duration;
        let built = match *spec {
            RunSpec::Avi => Simulation::new(s.model, s.forces, s.parameters),
            RunSpec::Sync(kind) => {
                let mut sync = s.sync;
                sync.integrator = kind;
                Simulation::new_sync(s.model, s.forces, s.parameters, sync)
            }
        };
        let mut sim = match built {
            Ok(sim) => sim,
            Err(e) => return bad_input(format!("{scene}: {e}")),
        };
        let dir = out.join(label.replace(':', "-"));
        let mut writer = match FrameWriter::create(&dir, sim.model()) {
            Ok(w) => w,
            Err(e) => return bad_input(format!("--out: {e}")),
        };
        let mut energies = Energies::default();
        let mut progress = Progress::new(total_duration, quiet);
        let result = sim.run(&mut (&mut writer, (&mut energies, &mut progress)));
        progress.finish();
        if let Err(e) = result {
            eprintln!("error: run `{label}` stopped at t = {} s: {e}", sim.now().seconds());
            return ExitCode::from(1);
        }
        let e0 = energies.0.first().copied().unwrap_or(0.0);
        let scale = e0.abs().max(f64::MIN_POSITIVE);
        let relative: Vec<f64> = energies.0.iter().map(|e| (e - e0) / scale).collect();
        let counters = sim.counters();
        rows.push(ComparisonRow {
            run: label.clone(),
            initial_energy: e0,
            final_relative: relative.last().copied().unwrap_or(0.0),
            min_relative: relative.iter().copied().fold(f64::INFINITY, f64::min),
            max_relative: relative.iter().copied().fold(f64::NEG_INFINITY, f64::max),
            wall_seconds: counters.wall_seconds,
            steps: counters.events_by_kind().into_iter().filter(|(k, _)| *k != "frame").map(|(_, n)| n).sum(),
            newton_iterations: sim.sync().map(|e| e.newton_iterations()),
        });
        if !quiet {
            eprintln!(
                "{label}: {} frames in {:.2} s -> {}",
                writer.frames_written(),
                counters.wall_seconds,
                dir.display()
            );
        }
        dirs.push((label.clone(), dir));
    }
    if let Err(e) = write_comparison(out, &rows) {
        eprintln!("error: {e}");
        return ExitCode::from(1);
    }
    match plot_comparison(out, &dirs) {
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
