//! The work and output a run will take, estimated before it starts, and the limits past which
//! `avicontact run` refuses a scene unless told to insist (`--insist`).
//!
//! A scene can be valid key by key and still never finish: a period of 1e-300 s, particles at
//! 1e200 m/s (the broad phase re-anchors a vertex every time it crosses its slack), a hash-grid
//! cell of 1 nm, a frame rate of 1e308 frames per second. The estimate is made from the state at
//! the start: the rate of every clock (force clocks, the synchronous backend's steps), the rate at
//! which the vertices' vague tubes (ACM §5.3) cross the broad phase's slack, and the frames with
//! their size on disk. Contact layer events depend on the motion and are not counted, so the
//! estimate is a lower bound on events.

use crate::math::{Compact, Real};
use std::fmt;

/// Events a run is refused above without `--insist`: about a day at the 1e7 events/s the event
/// loop manages on one core (`docs/performance.md`).
pub const MAX_EVENTS: Real = 1e12;

/// Frames a run is refused above without `--insist`: one file each.
pub const MAX_FRAMES: Real = 1e6;

/// Events per wall-clock second assumed to turn an event count into a time in messages.
pub const NOMINAL_EVENTS_PER_SECOND: Real = 1e7;

/// One source of events and its rate at the start.
#[derive(Clone, Debug, PartialEq)]
pub struct EventRate {
    /// What the events are (`"force clocks"`, `"broad-phase certificates"`, …).
    pub source: &'static str,
    /// Events per simulated second.
    pub per_second: Real,
    /// The scene keys that set this rate, for the message that refuses it.
    pub keys: &'static str,
}

/// What a run of a scene will take, estimated at its start.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// Simulated seconds.
    pub duration: Real,
    /// Frames per simulated second.
    pub frame_rate: Real,
    /// Events per simulated second by source (the backend's [`Backend::event_rates`]).
    ///
    /// [`Backend::event_rates`]: crate::backend::Backend::event_rates
    pub rates: Vec<EventRate>,
    /// Bytes one frame takes on disk (estimated from the OBJ lines it writes).
    pub frame_bytes: Real,
}

/// Why a run was refused: what it would take, and the key to change.
#[derive(Clone, Debug, PartialEq)]
pub enum WorkloadError {
    /// More events than [`MAX_EVENTS`].
    Events {
        /// The estimate.
        events: Real,
        /// The largest source and its rate.
        largest: EventRate,
        /// Simulated seconds.
        duration: Real,
    },
    /// More frames than [`MAX_FRAMES`].
    Frames {
        /// The estimate.
        frames: Real,
        /// Frames per second.
        frame_rate: Real,
        /// Simulated seconds.
        duration: Real,
    },
    /// More output than the disk holding the output directory has free.
    Disk {
        /// The estimate, bytes.
        bytes: Real,
        /// Free bytes.
        free: Real,
    },
}

/// A number for a message: four significant digits, as [`Compact`] prints them (never 309
/// digits); "unbounded" for an infinite one.
fn compact(x: Real) -> String {
    if x.is_infinite() {
        "unbounded".to_string()
    } else {
        Compact::rounded(x, 4).to_string()
    }
}

/// A count of wall-clock seconds in the largest unit that keeps it above 1.
fn wall_time(seconds: Real) -> String {
    const UNITS: [(Real, &str); 5] =
        [(365.25 * 86400.0, "years"), (86400.0, "days"), (3600.0, "hours"), (60.0, "minutes"), (1.0, "seconds")];
    let (unit, name) = UNITS.iter().find(|(u, _)| seconds >= *u).copied().unwrap_or((1.0, "seconds"));
    format!("{} {name}", compact(seconds / unit))
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkloadError::Events { events, largest, .. } if events.is_infinite() => write!(
                f,
                "the run would never finish: the rate of {} at the start overflows (it is unbounded). Change {}, or \
                 pass --insist",
                largest.source, largest.keys,
            ),
            WorkloadError::Events { events, largest, duration } => write!(
                f,
                "the run would take at least {} events ({} {} per simulated second × {} s), about {} at {} \
                 events/s; at most {} are run without --insist. Change {} or the duration, or pass --insist",
                compact(*events),
                compact(largest.per_second),
                largest.source,
                compact(*duration),
                wall_time(events / NOMINAL_EVENTS_PER_SECOND),
                compact(NOMINAL_EVENTS_PER_SECOND),
                compact(MAX_EVENTS),
                largest.keys,
            ),
            WorkloadError::Frames { frames, frame_rate, duration } => write!(
                f,
                "the run would write {} frames ({} frames/s × {} s), one file each; at most {} are written \
                 without --insist. Lower frame_rate (or --frame-rate) or the duration, or pass --insist",
                compact(*frames),
                compact(*frame_rate),
                compact(*duration),
                compact(MAX_FRAMES),
            ),
            WorkloadError::Disk { bytes, free } => write!(
                f,
                "the run would write about {} bytes of frames, and the output directory's disk has {} bytes \
                 free. Lower frame_rate (or --frame-rate), choose another --out, or pass --insist",
                compact(*bytes),
                compact(*free),
            ),
        }
    }
}

impl std::error::Error for WorkloadError {}

impl Workload {
    /// Events per simulated second, all sources.
    pub fn events_per_second(&self) -> Real {
        self.rates.iter().map(|r| r.per_second).fold(0.0, |sum, r| sum + r)
    }

    /// Events over the run (a lower bound: contact layer events are not counted).
    pub fn events(&self) -> Real {
        self.events_per_second() * self.duration
    }

    /// Frames over the run, the one at t = 0 included.
    pub fn frames(&self) -> Real {
        (self.duration * self.frame_rate).floor() + 1.0
    }

    /// Bytes of frames over the run.
    pub fn output_bytes(&self) -> Real {
        self.frames() * self.frame_bytes
    }

    /// The run within the limits: at most [`MAX_EVENTS`] events, [`MAX_FRAMES`] frames, and
    /// frames that fit in `free_bytes` (the free space of the output directory's disk, when
    /// known). A NaN or infinite estimate is over every limit.
    pub fn check(&self, free_bytes: Option<Real>) -> Result<(), WorkloadError> {
        let events = self.events();
        if over(events, MAX_EVENTS) {
            let largest = self
                .rates
                .iter()
                .max_by(|a, b| a.per_second.total_cmp(&b.per_second))
                .cloned()
                .unwrap_or(EventRate { source: "events", per_second: events / self.duration, keys: "the periods" });
            return Err(WorkloadError::Events { events, largest, duration: self.duration });
        }
        let frames = self.frames();
        if over(frames, MAX_FRAMES) {
            return Err(WorkloadError::Frames { frames, frame_rate: self.frame_rate, duration: self.duration });
        }
        match free_bytes {
            Some(free) if over(self.output_bytes(), free) => {
                Err(WorkloadError::Disk { bytes: self.output_bytes(), free })
            }
            _ => Ok(()),
        }
    }

    /// One line for `avicontact info`: events per simulated second and over the run, frames and
    /// their bytes.
    pub fn describe(&self) -> String {
        let sources: Vec<String> =
            self.rates.iter().map(|r| format!("{} {}", compact(r.per_second), r.source)).collect();
        format!(
            "work at the start: {} events per simulated second ({}), at least {} events in {} s; {} frames, about \
             {} bytes",
            compact(self.events_per_second()),
            sources.join(", "),
            compact(self.events()),
            compact(self.duration),
            compact(self.frames()),
            compact(self.output_bytes()),
        )
    }
}

/// `x` past `limit`, or NaN.
fn over(x: Real, limit: Real) -> bool {
    x.is_nan() || x > limit
}

/// Bytes of one OBJ frame of `vertices` vertices and `triangles` triangles: `v x y z` lines of
/// three shortest round-trip floats (up to about 24 characters each) and `f a b c` lines.
pub fn frame_bytes(vertices: usize, triangles: usize) -> Real {
    let digits = |n: usize| (n.max(1) as Real).log10().floor() + 1.0;
    vertices as Real * (3.0 * 24.0 + 3.0) + triangles as Real * (3.0 * (digits(vertices) + 1.0) + 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workload(per_second: Real, duration: Real, frame_rate: Real) -> Workload {
        Workload {
            duration,
            frame_rate,
            rates: vec![EventRate { source: "force clocks", per_second, keys: "the periods" }],
            frame_bytes: 1000.0,
        }
    }

    #[test]
    fn a_run_within_the_limits_passes() {
        let w = workload(1e7, 10.0, 60.0);
        assert_eq!((w.events(), w.frames(), w.output_bytes()), (1e8, 601.0, 601_000.0));
        assert_eq!(w.check(Some(1e9)), Ok(()));
        assert_eq!(w.check(None), Ok(()));
    }

    #[test]
    fn too_many_events_names_the_largest_source_and_its_keys() {
        let mut w = workload(1e300, 2.0, 30.0);
        w.rates.push(EventRate { source: "broad-phase certificates", per_second: 1e301, keys: "cell_size" });
        let e = w.check(None).unwrap_err();
        let text = e.to_string();
        assert!(matches!(e, WorkloadError::Events { .. }), "{e:?}");
        assert!(text.contains("2.2e301 events"), "{text}");
        assert!(text.contains("broad-phase certificates") && text.contains("Change cell_size"), "{text}");
        assert!(text.contains("--insist") && text.len() < 400, "{text}");
    }

    #[test]
    fn nan_or_infinite_rates_are_over_the_limit() {
        let e = workload(Real::INFINITY, 1.0, 1.0).check(None).unwrap_err();
        assert!(e.to_string().starts_with("the run would never finish: the rate of force clocks"), "{e}");
        assert!(workload(Real::NAN, 1.0, 1.0).check(None).is_err());
    }

    #[test]
    fn too_many_frames_or_bytes_are_refused() {
        let e = workload(1.0, 2.0, 1e300).check(None).unwrap_err();
        assert!(e.to_string().contains("2e300 frames (1e300 frames/s × 2 s)"), "{e}");
        let e = workload(1.0, 1.0, 1000.0).check(Some(5e5)).unwrap_err();
        assert_eq!(e, WorkloadError::Disk { bytes: 1_001_000.0, free: 5e5 });
    }

    #[test]
    fn numbers_are_compact() {
        assert_eq!(compact(1e308), "1e308");
        assert_eq!(compact(2.5), "2.5");
        assert_eq!(compact(0.0), "0");
        assert_eq!(compact(123.0607), "123.1");
        assert_eq!(compact(1899.7895), "1900");
        assert_eq!(compact(0.0123456), "0.01235");
        assert_eq!(compact(239469.4579), "239500");
        assert_eq!(compact(1.0634e14), "1.063e14");
        assert_eq!(compact(Real::INFINITY), "unbounded");
        assert_eq!(wall_time(7200.0), "2 hours");
        assert_eq!(wall_time(1e12), "31690 years");
    }

    #[test]
    fn a_frame_s_bytes_grow_with_its_vertices_and_triangles() {
        assert!(frame_bytes(400, 722) > 400.0 * 30.0);
        assert!(frame_bytes(800, 722) > frame_bytes(400, 722));
    }
}
