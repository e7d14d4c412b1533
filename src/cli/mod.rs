//! The commands of the `avicontact` binary, one file each (`main.rs` holds their clap
//! definition). They work through the library's facade: scenes, [`Simulation`], observers and
//! output files, whatever the backend.
//!
//! [`Simulation`]: avicontact::Simulation

pub mod check;
pub mod compare;
pub mod info;
pub mod plot;
pub mod render;
pub mod run;
pub mod scenes;

use avicontact::interrupt::Interrupt;
use avicontact::math::Compact;
use avicontact::output::free_bytes;
use avicontact::scene::{self, Scene};
use avicontact::Simulation;
use std::path::Path;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

/// Bad input: exit 2, nothing written.
pub fn bad_input(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::from(2)
}

/// Loads a scene and prints its warnings; bad input exits 2.
fn load(scene: &str) -> Result<Scene, ExitCode> {
    let s = scene::load(scene).map_err(bad_input)?;
    for w in &s.warnings {
        eprintln!("warning: {w}");
    }
    Ok(s)
}

/// The run's estimated work and output within the limits of [`avicontact::workload`], unless
/// `insist`: otherwise bad input (exit 2) with the estimate and the key to change, before anything
/// is written to `out`.
fn check_workload(scene: &str, sim: &Simulation, out: &Path, insist: bool) -> Result<(), ExitCode> {
    if insist {
        return Ok(());
    }
    sim.workload().check(free_bytes(out)).map_err(|e| bad_input(format!("{scene}: {e}")))
}

/// `--duration`, when given, must be a finite number of seconds > 0 (exit 2 otherwise).
fn check_duration(duration: Option<f64>) -> Result<(), ExitCode> {
    match duration {
        Some(d) if !(d.is_finite() && d > 0.0) => {
            Err(bad_input(format!("--duration: must be a finite number of seconds > 0, got {}", Compact(d))))
        }
        _ => Ok(()),
    }
}

/// `--progress-interval`, when given, must be a finite number of seconds > 0 (exit 2 otherwise).
fn check_progress_interval(interval: Option<f64>) -> Result<(), ExitCode> {
    match interval {
        Some(s) if !(s.is_finite() && s > 0.0) => {
            Err(bad_input(format!("--progress-interval: must be a finite number of seconds > 0, got {s}")))
        }
        _ => Ok(()),
    }
}

/// Makes Ctrl-C (SIGINT) and SIGTERM raise `interrupt`, so the run stops after the event in
/// progress and writes its summary. A second one while the run is winding down (a slow event, the
/// summary being written) takes the signal's default action: the process ends at once, as if no
/// handler were installed. Called only once the run is about to start; before that the default
/// action applies and nothing of the run has been written.
fn stop_on_signals(interrupt: &Interrupt) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let armed = Arc::new(AtomicBool::new(false));
    for (signal, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
        // In this order: the default action reads `armed` before this delivery sets it, so only
        // the second signal ends the process.
        let registered = signal_hook::flag::register_conditional_default(signal, Arc::clone(&armed))
            .and_then(|_| signal_hook::flag::register_usize(signal, interrupt.flag(), signal as usize))
            .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&armed)));
        if let Err(e) = registered {
            eprintln!("warning: cannot catch {name} ({e}); it will end the run without a summary");
        }
    }
}
