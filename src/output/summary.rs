//! `summary.json`: what a run did.

use super::{write_atomically, OutputError};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// How a run ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum RunStatus {
    /// Reached the end of its duration.
    Completed,
    /// Stopped by an error (see `error`).
    Failed,
    /// Stopped from outside after an event (Ctrl-C, SIGTERM, or an
    /// [`Interrupt`](crate::interrupt::Interrupt) raised by code; see `signal` and `error`): every
    /// file up to that event is complete.
    Interrupted,
}

/// The contents of `summary.json`. Everything but `wall_seconds` and `events_per_second` is
/// deterministic.
#[derive(Clone, Debug, Serialize)]
pub struct Summary {
    /// Scene name.
    pub scene: String,
    /// `"avi"` or `"sync"`.
    pub backend: &'static str,
    /// The synchronous integrator (sync runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrator: Option<&'static str>,
    /// How the implicit solves are carried out, `"newton"` or `"local-global"` (sync runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver: Option<&'static str>,
    /// The linear solver, `"cholesky"` or `"pcg"` (sync runs only; always Cholesky for
    /// local/global).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linear_solver: Option<&'static str>,
    /// Newton iterations over the run (sync runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub newton_iterations: Option<u64>,
    /// Wall-clock seconds in linear solves (sync runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linear_solve_seconds: Option<f64>,
    /// Phantom implicit steps that stopped within the loose tolerance, not the tight one (AVI
    /// runs with phantom bodies only; docs/phantom.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub implicit_loose_steps: Option<u64>,
    /// How the run ended.
    pub status: RunStatus,
    /// The error that stopped a failed run, or what interrupted an interrupted one.
    pub error: Option<String>,
    /// What interrupted the run: `"SIGINT"`, `"SIGTERM"`, … or `"request"` (absent unless
    /// interrupted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<String>,
    /// Requested duration, s.
    pub duration: f64,
    /// Time of the last processed event, s.
    pub simulated_time: f64,
    /// Frames written.
    pub frames: u64,
    /// Vertices in the model.
    pub vertices: usize,
    /// Potentials on clocks.
    pub potentials: usize,
    /// All processed events.
    pub events: u64,
    /// Processed events by kind.
    pub events_by_kind: BTreeMap<&'static str, u64>,
    /// Deepest penalty layer activated (0: no contact layer was ever active).
    pub deepest_layer: u32,
    /// Smallest gap between contact primitives seen at a layer event, m (`null` without contact).
    pub smallest_distance: Option<f64>,
    /// AVI contact: the largest estimated heap size of the contact bookkeeping at a frame, per
    /// vertex of the model, bytes (`null` without contact).
    pub contact_peak_bytes_per_vertex: Option<f64>,
    /// AVI contact: that peak by part, per vertex, bytes (`null` without contact).
    pub contact_peak_parts_per_vertex: Option<BTreeMap<&'static str, f64>>,
    /// AVI contact: certificates recomputed after kicks, slab certificates kept, kicks inside
    /// their tubes ([`crate::backend::BackendFacts::contact_rescheduling`]; `null` without contact).
    pub contact_rescheduling: Option<BTreeMap<&'static str, u64>>,
    /// Wall-clock seconds in the event loop.
    pub wall_seconds: f64,
    /// With `run --profile`: wall seconds by event kind (`force` for all potentials) and, apart,
    /// the re-certification of contact pairs after kicks (`rescheduling`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seconds_by_kind: Option<BTreeMap<&'static str, f64>>,
    /// Events per wall-clock second.
    pub events_per_second: f64,
}

/// Writes `summary` to `dir/summary.json`, atomically (a full disk leaves the previous file, not
/// an empty one).
pub fn write_summary(dir: &Path, summary: &Summary) -> Result<(), OutputError> {
    let path = dir.join("summary.json");
    let text = serde_json::to_string_pretty(summary).expect("a summary always serialises");
    write_atomically(&path, (text + "\n").as_bytes())
}
