//! The `avicontact` command line (DESIGN L7): `run`, `info`, `plot`.
//!
//! Exit codes: 0 success, 1 a failure during the run (what was written stays), 2 bad input
//! (nothing is written).

use avicontact::output::{check_run, plot_run, write_summary, FrameWriter, Progress, RunStatus, Summary};
use avicontact::scene::{self, Backend, Scene};
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
        /// Scene file, or a built-in scene: hanging-cloth, spinning-shell, fpu-chain.
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
        Command::Run { scene, out, duration, backend, quiet } => run(&scene, &out, duration, backend, quiet),
        Command::Info { scene } => info(&scene),
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

fn run(scene: &str, out: &std::path::Path, duration: Option<f64>, backend: Option<String>, quiet: bool) -> ExitCode {
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
    if backend == Backend::Sync && s.warnings.iter().any(|w| w.contains("[contact]")) {
        eprintln!(
            "warning: the synchronous backend does not simulate contact yet either (IPC arrives with its next step)"
        );
    }
    let (name, duration) = (s.name.clone(), s.parameters.duration);
    // Build everything before touching the output directory: bad input writes nothing.
    let built = match backend {
        Backend::Avi => Simulation::new(s.model, s.forces, s.parameters),
        Backend::Sync => Simulation::new_sync(s.model, s.forces, s.parameters, s.sync),
    };
    let mut sim = match built {
        Ok(sim) => sim,
        Err(e) => return bad_input(format!("{name}: {e}")),
    };
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
        newton_iterations: sim.sync().map(|e| e.newton_iterations()),
        status: if result.is_ok() { RunStatus::Completed } else { RunStatus::Failed },
        error: result.as_ref().err().map(|e| e.to_string()),
        duration,
        simulated_time: sim.now().seconds(),
        frames: writer.frames_written(),
        vertices: sim.model().vertices.len(),
        potentials: sim.potentials().count(),
        events: counters.events,
        events_by_kind: counters.events_by_kind(),
        deepest_layer: 0,
        smallest_distance: None,
        wall_seconds: counters.wall_seconds,
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
    let s = match load(scene) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let (name, params) = (s.name.clone(), s.parameters.clone());
    let model = s.model.clone();
    let sim = match Simulation::new(s.model, s.forces, s.parameters) {
        Ok(sim) => sim,
        Err(e) => return bad_input(format!("{name}: {e}")),
    };
    println!(
        "scene {name}: duration {} s, {} frames/s, gravity {:?} m/s², safety factor {}",
        params.duration,
        params.frame_rate,
        params.gravity.as_slice(),
        params.safety_factor
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
    println!("force events per simulated second: {events_per_second:.3e}");
    ExitCode::SUCCESS
}
