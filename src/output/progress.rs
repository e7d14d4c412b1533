//! Progress of a run on stderr: a bar with simulated time, events/s and ETA when stderr is a
//! terminal; otherwise (a log file, a pipe, a batch job) a plain line every few seconds of wall
//! time; nothing when quiet.

use crate::observe::{EventRecord, Observer};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// Seconds of wall time between two plain progress lines, unless
/// [`Progress::with_interval`] says otherwise.
pub const DEFAULT_PROGRESS_INTERVAL: f64 = 5.0;

/// Progress over simulated time: a bar when stderr is a terminal, plain lines every
/// [`DEFAULT_PROGRESS_INTERVAL`] seconds otherwise, nothing when quiet.
///
/// It reads the clock only every so many events (about every 20 ms of wall time, whatever an
/// event costs), so it adds next to nothing to the event loop.
#[derive(Debug)]
pub struct Progress {
    display: Display,
    label: Option<String>,
    duration: f64,
    /// The simulated time the run (or its resumed part) starts from, s.
    from: f64,
    start: Instant,
    events: u64,
    /// The event count at which the clock is read next.
    next_check: u64,
    /// Events between two clock reads.
    stride: u64,
    last_check: (Instant, u64),
}

/// Where progress goes.
#[derive(Debug)]
enum Display {
    /// Quiet.
    Hidden,
    /// stderr is a terminal.
    Bar(ProgressBar),
    /// stderr is not a terminal: a line every `interval`.
    Lines { interval: Duration, last: Instant },
}

/// Simulated time is shown in these steps of the bar's length.
const TICKS: u64 = 1000;

/// Wall time aimed at between two clock reads.
const CHECK_EVERY: f64 = 0.02;

/// The most events between two clock reads.
const MAX_STRIDE: u64 = 65536;

impl Progress {
    /// Progress of a run of `duration` simulated seconds: a bar if stderr is a terminal, plain
    /// lines otherwise, nothing if `quiet`.
    pub fn new(duration: f64, quiet: bool) -> Self {
        let display = if quiet {
            Display::Hidden
        } else if std::io::stderr().is_terminal() {
            let bar = ProgressBar::with_draw_target(Some(TICKS), ProgressDrawTarget::stderr_with_hz(4));
            bar.set_style(
                ProgressStyle::with_template("{bar:30} {msg} ETA {eta}")
                    .expect("static template")
                    .progress_chars("=> "),
            );
            Display::Bar(bar)
        } else {
            Display::Lines { interval: Duration::from_secs_f64(DEFAULT_PROGRESS_INTERVAL), last: Instant::now() }
        };
        let now = Instant::now();
        Progress {
            display,
            label: None,
            duration,
            from: 0.0,
            start: now,
            events: 0,
            next_check: 1,
            stride: 1,
            last_check: (now, 0),
        }
    }

    /// Plain lines every `seconds` of wall time instead of every [`DEFAULT_PROGRESS_INTERVAL`]
    /// (a finite number > 0; anything else keeps the default). No effect on the bar.
    pub fn with_interval(mut self, seconds: f64) -> Self {
        if let Display::Lines { interval, .. } = &mut self.display {
            if let Ok(d) = Duration::try_from_secs_f64(seconds) {
                if seconds > 0.0 {
                    *interval = d;
                }
            }
        }
        self
    }

    /// Progress of a run resumed at simulated time `t` (a checkpoint's): the time left is
    /// estimated from the rate since then.
    pub fn resumed_at(mut self, t: f64) -> Self {
        self.from = t;
        if let Display::Bar(bar) = &self.display {
            bar.set_position(((t / self.duration).clamp(0.0, 1.0) * TICKS as f64) as u64);
            bar.reset_eta();
        }
        self
    }

    /// Starts each plain line with `label: ` (the scene, or the run of a comparison).
    pub fn with_label(mut self, label: impl Into<String>) -> Self {
        self.label = Some(label.into());
        self
    }

    /// Removes the bar from the terminal.
    pub fn finish(&self) {
        if let Display::Bar(bar) = &self.display {
            bar.finish_and_clear();
        }
    }

    /// Reads the clock, updates the display, and picks the stride to the next read.
    fn check(&mut self, t: f64) {
        let now = Instant::now();
        let (then, events_then) = self.last_check;
        let seconds = now.duration_since(then).as_secs_f64();
        // events per CHECK_EVERY at the recent rate; growing at most twofold a read, so a slow
        // stretch after a fast start is still seen within a few reads
        let target = if seconds > 0.0 {
            ((self.events - events_then) as f64 * CHECK_EVERY / seconds) as u64
        } else {
            MAX_STRIDE
        };
        self.stride = target.clamp(1, (self.stride * 2).min(MAX_STRIDE));
        self.next_check = self.events + self.stride;
        self.last_check = (now, self.events);
        let elapsed = now.duration_since(self.start).as_secs_f64();
        match &mut self.display {
            Display::Hidden => {}
            Display::Bar(bar) => {
                let rate = self.events as f64 / elapsed.max(1e-9);
                bar.set_position(((t / self.duration).clamp(0.0, 1.0) * TICKS as f64) as u64);
                bar.set_message(format!("t = {t:.4} / {} s, {:.2e} events/s", self.duration, rate));
            }
            Display::Lines { interval, last } => {
                if now.duration_since(*last) >= *interval {
                    *last = now;
                    let line = progress_line(t, self.from, self.duration, self.events, elapsed);
                    match &self.label {
                        Some(label) => eprintln!("{label}: {line}"),
                        None => eprintln!("{line}"),
                    }
                }
            }
        }
    }
}

impl Observer for Progress {
    fn on_event(&mut self, event: &EventRecord) {
        self.events += 1;
        if self.events >= self.next_check {
            self.check(event.time.seconds());
        }
    }
}

/// The plain progress line at simulated time `t` of `duration`, after `events` events in
/// `elapsed` wall seconds since simulated time `from` (0, or where the run was resumed):
/// `t = 0.0500 / 0.2 s (25.0%), 1234567 events, 2.47e6 events/s, ETA 1 min 30 s`.
pub fn progress_line(t: f64, from: f64, duration: f64, events: u64, elapsed: f64) -> String {
    let fraction = if duration > 0.0 { (t / duration).clamp(0.0, 1.0) } else { 1.0 };
    let rate = events as f64 / elapsed.max(1e-9);
    // the share of what this run had left that is done
    let done = if duration > from { ((t - from) / (duration - from)).clamp(0.0, 1.0) } else { 1.0 };
    let eta = if done > 0.0 { format_wall_seconds(elapsed * (1.0 - done) / done) } else { "unknown".to_string() };
    format!("t = {t:.4} / {duration} s ({:.1}%), {events} events, {rate:.2e} events/s, ETA {eta}", 100.0 * fraction)
}

/// Wall seconds as people read them: `12.3 s`, `4 min 05 s`, `2 h 07 min`.
pub fn format_wall_seconds(seconds: f64) -> String {
    if !seconds.is_finite() {
        return "unknown".to_string();
    }
    if seconds < 60.0 {
        return format!("{seconds:.1} s");
    }
    let whole = seconds.round() as u64;
    if whole < 3600 {
        format!("{} min {:02} s", whole / 60, whole % 60)
    } else {
        format!("{} h {:02} min", whole / 3600, (whole % 3600) / 60)
    }
}

/// A count with its digits in groups of three, as the docs write them: `50 617`.
pub fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plain_line_shows_time_share_events_rate_and_eta() {
        assert_eq!(
            progress_line(0.05, 0.0, 0.2, 1_000_000, 10.0),
            "t = 0.0500 / 0.2 s (25.0%), 1000000 events, 1.00e5 events/s, ETA 30.0 s"
        );
        assert!(progress_line(0.0, 0.0, 1.0, 3, 0.5).ends_with("ETA unknown"));
        assert!(progress_line(2.0, 0.0, 1.0, 3, 0.5).contains("(100.0%)"), "clamped past the end");
        // resumed at 0.5 s: a quarter of the second half done in 10 s leaves 30 s
        assert!(progress_line(0.625, 0.5, 1.0, 3, 10.0).ends_with("ETA 30.0 s"));
    }

    #[test]
    fn wall_seconds_and_counts_read_as_people_write_them() {
        assert_eq!(format_wall_seconds(18.24), "18.2 s");
        assert_eq!(format_wall_seconds(245.0), "4 min 05 s");
        assert_eq!(format_wall_seconds(7620.0), "2 h 07 min");
        assert_eq!(format_wall_seconds(f64::INFINITY), "unknown");
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(50_617), "50 617");
        assert_eq!(grouped(1_234_567), "1 234 567");
    }

    #[test]
    fn the_clock_is_read_less_often_as_events_come_faster() {
        let mut p = Progress::new(1.0, true);
        let record = EventRecord {
            time: crate::math::Time::new(0.5).expect("finite"),
            kind: crate::observe::EventKind::Frame,
            force: None,
            label: "frame",
            tick: 0,
            period: 0.1,
        };
        for _ in 0..200_000 {
            p.on_event(&record);
        }
        assert!(p.stride > 1 && p.stride <= MAX_STRIDE, "stride {}", p.stride);
        assert!(p.next_check > p.events);
    }
}
