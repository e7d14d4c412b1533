//! The progress line: simulated time, events/s and ETA on a terminal; nothing otherwise.

use crate::observe::{EventRecord, Observer};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::Instant;

/// A progress bar over simulated time, shown only when stderr is a terminal.
#[derive(Debug)]
pub struct Progress {
    bar: Option<ProgressBar>,
    duration: f64,
    start: Instant,
    events: u64,
}

/// Simulated time is shown in these steps of the bar's length.
const TICKS: u64 = 1000;

impl Progress {
    /// A bar for a run of `duration` simulated seconds; hidden if `quiet` or stderr is not a
    /// terminal.
    pub fn new(duration: f64, quiet: bool) -> Self {
        let bar = (!quiet && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::with_draw_target(Some(TICKS), ProgressDrawTarget::stderr_with_hz(4));
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {msg} ETA {eta}")
                    .expect("static template")
                    .progress_chars("=> "),
            );
            bar
        });
        Progress { bar, duration, start: Instant::now(), events: 0 }
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Progress {
    fn on_event(&mut self, event: &EventRecord) {
        self.events += 1;
        if !self.events.is_multiple_of(65536) {
            return;
        }
        if let Some(bar) = &self.bar {
            let t = event.time.seconds();
            let rate = self.events as f64 / self.start.elapsed().as_secs_f64().max(1e-9);
            bar.set_position(((t / self.duration) * TICKS as f64) as u64);
            bar.set_message(format!("t = {t:.4} / {} s, {:.2e} events/s", self.duration, rate));
        }
    }
}
