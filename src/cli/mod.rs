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
/// progress and writes its summary. A second one more than [`SAME_REQUEST`] after the first, while
/// the run is winding down (a slow event, the summary being written), takes the signal's default
/// action: the process ends at once, as if no handler were installed. One within it is the same
/// request delivered twice: GNU `timeout` signals the command and then its whole process group,
/// and a supervisor may signal the process and its group. Called only once the run is about to
/// start; before that the default action applies and nothing of the run has been written.
fn stop_on_signals(interrupt: &Interrupt) {
    use signal_hook::consts::{SIGINT, SIGTERM};
    use std::sync::atomic::{AtomicU64, Ordering};
    let start = std::time::Instant::now();
    // nanoseconds after `start` of the first signal, plus one (0: none yet)
    let first = Arc::new(AtomicU64::new(0));
    for (signal, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
        let (first, flag) = (Arc::clone(&first), interrupt.flag());
        let action = move || {
            // async-signal-safe: a monotonic clock read and atomics
            let now = start.elapsed().as_nanos() as u64 + 1;
            match first.compare_exchange(0, now, Ordering::SeqCst, Ordering::SeqCst) {
                Ok(_) => flag.store(signal as usize, Ordering::SeqCst),
                Err(then) if now.saturating_sub(then) > SAME_REQUEST.as_nanos() as u64 => {
                    let _ = signal_hook::low_level::emulate_default_handler(signal);
                }
                Err(_) => {}
            }
        };
        // SAFETY: the action only reads a monotonic clock, compares and stores atomics and, for a
        // late second signal, runs the default action (signal-hook documents that as
        // async-signal-safe); it allocates nothing and takes no lock.
        if let Err(e) = unsafe { signal_hook::low_level::register(signal, action) } {
            eprintln!("warning: cannot catch {name} ({e}); it will end the run without a summary");
        }
    }
}

/// A second SIGINT or SIGTERM within this time of the first is the same request delivered twice.
const SAME_REQUEST: std::time::Duration = std::time::Duration::from_secs(1);
