//! Stopping a run from outside: an [`Interrupt`] is a shared flag that
//! [`Simulation::advance_to`](crate::Simulation::advance_to) and
//! [`Simulation::run`](crate::Simulation::run) read once before every event (one relaxed atomic
//! load). Once it is raised, the run ends after the event in progress with
//! [`SimulationError::Interrupted`](crate::error::SimulationError::Interrupted); the model and the
//! backend are left between two events, as consistent as after any event, so the caller can write
//! what it has, or [`clear`](Interrupt::clear) the flag and go on.
//!
//! Raise it from another thread, from a signal handler (the command line stores the signal's
//! number into [`Interrupt::flag`] from SIGINT and SIGTERM handlers) or from a binding's own
//! check for pending signals. While it is not raised it changes nothing: the trajectory and every
//! output file are the same as without it (law 6).
//!
//! ```
//! use avicontact::prelude::*;
//! use avicontact::error::SimulationError;
//! use avicontact::interrupt::InterruptCause;
//! let scene = avicontact::scene::load("spinning-shell").unwrap();
//! let mut sim = Simulation::new(scene.model, scene.forces, scene.parameters).unwrap();
//! let stop = sim.interrupt().clone(); // shares the flag; send it to another thread
//! stop.request();
//! match sim.run(&mut ()) {
//!     Err(SimulationError::Interrupted { cause, time }) => {
//!         assert_eq!(cause, InterruptCause::Requested);
//!         assert_eq!(time, 0.0); // raised before the first event: nothing ran
//!     }
//!     other => panic!("{other:?}"),
//! }
//! stop.clear();
//! sim.advance_to(0.01, &mut ()).unwrap(); // goes on where it stopped
//! ```

use std::fmt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// The value [`Interrupt::request`] stores: a stop asked for by code, not by a signal.
const REQUESTED: usize = usize::MAX;

/// A request to stop a running simulation after its current event, shared between the
/// simulation and whoever may stop it (clones share one flag).
///
/// The flag holds 0 while no stop is requested, a signal's number when a signal handler raised
/// it, or [`usize::MAX`] for [`Interrupt::request`].
#[derive(Clone, Debug, Default)]
pub struct Interrupt {
    flag: Arc<AtomicUsize>,
}

/// Why a run was interrupted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterruptCause {
    /// A signal, by number (2: SIGINT, Ctrl-C; 15: SIGTERM).
    Signal(i32),
    /// [`Interrupt::request`]: code asked for the stop.
    Requested,
}

impl InterruptCause {
    /// The signal's name (`"SIGINT"`, `"SIGTERM"`, …; `"signal N"` for others), or `"request"`.
    pub fn name(self) -> String {
        match self {
            InterruptCause::Signal(1) => "SIGHUP".into(),
            InterruptCause::Signal(2) => "SIGINT".into(),
            InterruptCause::Signal(3) => "SIGQUIT".into(),
            InterruptCause::Signal(15) => "SIGTERM".into(),
            InterruptCause::Signal(n) => format!("signal {n}"),
            InterruptCause::Requested => "request".into(),
        }
    }

    /// The exit status a command-line program ends with when this stopped it: 128 + the signal's
    /// number (130 for SIGINT, 143 for SIGTERM), as shells report a process a signal ended; 130
    /// for a request.
    pub fn exit_code(self) -> u8 {
        match self {
            InterruptCause::Signal(n) if (1..=127).contains(&n) => 128 + n as u8,
            _ => 130,
        }
    }
}

impl fmt::Display for InterruptCause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            InterruptCause::Requested => write!(f, "a request"),
            signal => write!(f, "{}", signal.name()),
        }
    }
}

impl Interrupt {
    /// A flag that is not raised.
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the run to stop after its current event.
    pub fn request(&self) {
        self.flag.store(REQUESTED, Ordering::Relaxed);
    }

    /// Asks the run to stop after its current event because of signal `signal` (what a signal
    /// handler does; a number ≤ 0 counts as a plain [`request`](Interrupt::request)).
    pub fn request_signal(&self, signal: i32) {
        let value = usize::try_from(signal).ok().filter(|&n| n > 0).unwrap_or(REQUESTED);
        self.flag.store(value, Ordering::Relaxed);
    }

    /// Lowers the flag: the next `advance_to` runs again.
    pub fn clear(&self) {
        self.flag.store(0, Ordering::Relaxed);
    }

    /// True once a stop is requested (one relaxed load: what the event loop checks).
    #[inline]
    pub fn is_requested(&self) -> bool {
        self.flag.load(Ordering::Relaxed) != 0
    }

    /// Why a stop is requested, or `None`.
    pub fn cause(&self) -> Option<InterruptCause> {
        match self.flag.load(Ordering::Relaxed) {
            0 => None,
            REQUESTED => Some(InterruptCause::Requested),
            n => Some(i32::try_from(n).map_or(InterruptCause::Requested, InterruptCause::Signal)),
        }
    }

    /// The shared atomic itself, for a signal handler to store a signal's number into (e.g.
    /// `signal_hook::flag::register_usize(SIGINT, interrupt.flag(), SIGINT as usize)`): storing
    /// is async-signal-safe, unlike anything that allocates or locks.
    pub fn flag(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.flag)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_one_flag_and_report_the_cause() {
        let a = Interrupt::new();
        let b = a.clone();
        assert!(!a.is_requested() && a.cause().is_none());
        b.request_signal(15);
        assert!(a.is_requested());
        assert_eq!(a.cause(), Some(InterruptCause::Signal(15)));
        assert_eq!(a.cause().map(|c| c.name()), Some("SIGTERM".to_string()));
        assert_eq!(a.cause().map(InterruptCause::exit_code), Some(143));
        a.flag().store(2, Ordering::SeqCst);
        assert_eq!(b.cause().map(InterruptCause::exit_code), Some(130));
        b.request();
        assert_eq!(a.cause(), Some(InterruptCause::Requested));
        assert_eq!(InterruptCause::Requested.exit_code(), 130);
        a.request_signal(-3);
        assert_eq!(b.cause(), Some(InterruptCause::Requested));
        a.clear();
        assert!(!b.is_requested());
    }
}
