//! The `avicontact` command line (layer L8 of `docs/design.md`): the clap definition of `run`,
//! `resume`, `info`, `plot`, `check`, `compare` and `render`, each carried out in `cli/`, one file per command.
//!
//! Exit codes: 0 success, 1 a failure during the run (what was written stays), 2 bad input
//! (nothing is written), 130 (Ctrl-C) or 143 (SIGTERM) when `run` or `compare` was interrupted
//! after an event (what was written stays, complete).

mod cli;

use avicontact::backend::BackendKind;
use avicontact::render::{RenderOptions, View};
use clap::builder::{PossibleValuesParser, TypedValueParser};
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
        /// Scene file, or the name of a built-in scene (`avicontact scenes` lists them).
        scene: String,
        /// Output directory (created if missing).
        #[arg(long)]
        out: PathBuf,
        /// Simulated seconds, overriding the scene's `[simulation] duration`.
        #[arg(long)]
        duration: Option<f64>,
        /// Frames per simulated second, overriding the scene's `[simulation] frame_rate`.
        #[arg(long)]
        frame_rate: Option<f64>,
        /// Backend, overriding the scene's `[simulation] backend`.
        #[arg(long, value_parser = backend_names())]
        backend: Option<BackendKind>,
        /// No set-up lines, progress or closing line (errors are still printed).
        #[arg(long, short)]
        quiet: bool,
        /// Seconds of wall time between two progress lines when stderr is not a terminal (a log
        /// file or a pipe); default 5. On a terminal a bar is shown instead.
        #[arg(long, value_name = "SECONDS")]
        progress_interval: Option<f64>,
        /// AVI: measure wall time by event kind and contact rescheduling (summary.json
        /// `seconds_by_kind`; two clock reads per event).
        #[arg(long)]
        profile: bool,
        /// AVI with contact: after every event, check that every contact pair is guarded by active
        /// penalty layers or a slab that still separates it (slow; for debugging).
        #[arg(long)]
        audit: bool,
        /// Run even when the work estimate (events, frames, bytes of frames against the free disk)
        /// is over its limits; `avicontact info` prints the estimate.
        #[arg(long)]
        insist: bool,
        /// AVI: write DIR/checkpoint.bin at every multiple of this many simulated seconds and
        /// when interrupted; `avicontact resume DIR` continues the run from the last one,
        /// bit-identically to a run never stopped.
        #[arg(long, value_name = "SECONDS")]
        checkpoint_every: Option<f64>,
    },
    /// Continue a run from DIR/checkpoint.bin (written by `run --checkpoint-every`), with the same
    /// scene, overrides and build, into the same DIR: frames and rows written after the
    /// checkpoint are written again, identical to those of a run never stopped. A completed run
    /// keeps its last checkpoint, so `--duration` can take it further.
    Resume {
        /// The interrupted (or completed) run's output directory.
        dir: PathBuf,
        /// Run on to this simulated time instead of the run's own duration: the files are those
        /// of a run started with this duration. Must be past the checkpoint's time.
        #[arg(long, value_name = "SECONDS")]
        duration: Option<f64>,
        /// No set-up lines, progress or closing line (errors are still printed).
        #[arg(long, short)]
        quiet: bool,
        /// Seconds of wall time between two progress lines when stderr is not a terminal.
        #[arg(long, value_name = "SECONDS")]
        progress_interval: Option<f64>,
    },
    /// Describe a scene: bodies, vertices, potentials and their clock periods.
    Info {
        /// Scene file or built-in name.
        scene: String,
    },
    /// List the built-in scenes with what each shows.
    Scenes,
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
        /// Comma-separated runs: `avi`, `avi:phantom` or `avi:explicit` (every body with elastic
        /// potentials on a phantom mesh, or none) and `sync:<integrator>` with integrator
        /// implicit-euler, bdf2, implicit-midpoint, trapezoid, a1, a-search, blend, sdirk2, tr-bdf2 or ros3pl,
        /// optionally followed by `:newton` or `:local-global` (the solver) and, for a scene with
        /// [contact], `:ipc` or `:predictor-corrector` (the contact model), e.g. `sync:sdirk2:ipc`.
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
        /// Run even when a run's work estimate is over its limits (see `run --insist`).
        #[arg(long)]
        insist: bool,
    },
    /// Check every written frame for intersecting triangles and overlapping particles with exact
    /// predicates that share no code with the simulator. Exit 1 and name them if any.
    Check {
        /// A run's output directory.
        dir: PathBuf,
    },
    /// Draw the frames of a run as PNG images and an animated GIF (DIR/render/frame_NNNNN.png and
    /// DIR/render/animation.gif): shaded triangles, bodies in distinct colours, obstacles in grey,
    /// particles as discs, the camera fitted to every frame. Pure Rust, no system fonts.
    Render {
        /// A run's output directory.
        dir: PathBuf,
        /// Directory for the images (created if missing; earlier frame_*.png there are removed).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Where the camera looks from, degrees: azimuth about +z from +x, elevation above the xy plane.
        #[arg(long, value_name = "AZIMUTH,ELEVATION", default_value = "-60,25", allow_hyphen_values = true, value_parser = cli::render::parse_view)]
        view: View,
        /// Image size, pixels.
        #[arg(long, value_name = "WIDTHxHEIGHT", default_value = "640x480", value_parser = cli::render::parse_size)]
        size: (u32, u32),
        /// Draw every N-th frame (the first always), for a shorter animation.
        #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..))]
        every: u64,
        /// Leave these bodies out, by name (comma-separated), e.g. a floor that dwarfs the scene.
        #[arg(long, value_name = "NAMES", value_delimiter = ',')]
        hide: Vec<String>,
        /// A close-up: frame the ball of radius R about (X, Y, Z), metres, instead of everything
        /// that moves (e.g. a tight knot in long ribbons).
        #[arg(long, value_name = "X,Y,Z,R", value_parser = cli::render::parse_around, allow_hyphen_values = true)]
        around: Option<([f64; 3], f64)>,
    },
}

/// `--backend`: the names of [`BackendKind::NAMES`].
fn backend_names() -> impl TypedValueParser<Value = BackendKind> {
    PossibleValuesParser::new(BackendKind::NAMES.map(|(name, _)| name))
        .map(|name| BackendKind::from_name(&name).expect("clap accepts only the names"))
}

fn main() -> ExitCode {
    restore_default_sigpipe();
    match Cli::parse().command {
        Command::Run {
            scene,
            out,
            duration,
            frame_rate,
            backend,
            quiet,
            progress_interval,
            audit,
            profile,
            insist,
            checkpoint_every,
        } => cli::run::run(&cli::run::RunOptions {
            scene: &scene,
            out: &out,
            duration,
            frame_rate,
            backend,
            quiet,
            progress_interval,
            audit,
            profile,
            insist,
            checkpoint_every,
        }),
        Command::Resume { dir, duration, quiet, progress_interval } => {
            cli::run::resume(&dir, duration, quiet, progress_interval)
        }
        Command::Info { scene } => cli::info::info(&scene),
        Command::Compare { scene, runs, out, duration, quiet, insist } => {
            cli::compare::compare(&scene, &runs, &out, duration, quiet, insist)
        }
        Command::Check { dir } => cli::check::check(&dir),
        Command::Plot { dir } => cli::plot::plot(&dir),
        Command::Scenes => cli::scenes::scenes(),
        Command::Render { dir, out, view, size, every, hide, around } => cli::render::render(
            &dir,
            out.as_deref(),
            &RenderOptions {
                view,
                width: size.0,
                height: size.1,
                every: usize::try_from(every).unwrap_or(usize::MAX),
                hide,
                around: around.map(|(c, r)| (c.into(), r)),
            },
        ),
    }
}

/// Lets a closed pipe end the process quietly, as command-line tools do (`avicontact info SCENE
/// | head -1`): Rust ignores SIGPIPE, so a write to a pipe whose reader has gone fails and
/// `println!` panics; with the default action the process just ends.
fn restore_default_sigpipe() {
    #[cfg(unix)]
    // SAFETY: called first thing in `main`, before any thread exists; it only resets SIGPIPE's
    // disposition to the default.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}
