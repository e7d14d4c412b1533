//! `comparison.csv`: one row per run of `avicontact compare`.

use super::{io_at, OutputError};
use crate::math::Compact;
use std::fmt::Write as _;
use std::path::Path;

/// One run of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub struct ComparisonRow {
    /// `avi` or `sync:<integrator>`.
    pub run: String,
    /// Total energy of the first frame, J.
    pub initial_energy: f64,
    /// (E_end − E_0)/|E_0|.
    pub final_relative: f64,
    /// min over frames of (E − E_0)/|E_0|.
    pub min_relative: f64,
    /// max over frames of (E − E_0)/|E_0|.
    pub max_relative: f64,
    /// Wall-clock seconds of the run.
    pub wall_seconds: f64,
    /// AVI: force events; sync: time steps.
    pub steps: u64,
    /// Newton iterations (sync runs; empty for the AVI).
    pub newton_iterations: Option<u64>,
    /// The largest depth of a vertex inside another body over the frames, m
    /// ([`PenetrationGauge`](super::PenetrationGauge); 0 when none ever was).
    pub deepest_penetration: f64,
}

/// The header of `comparison.csv`.
pub const COMPARISON_HEADER: &str =
    "run,initial_energy,final_relative,min_relative,max_relative,wall_seconds,steps,newton_iterations,deepest_penetration";

/// Writes `rows` to `dir/comparison.csv`.
pub fn write_comparison(dir: &Path, rows: &[ComparisonRow]) -> Result<(), OutputError> {
    let mut text = format!("{COMPARISON_HEADER}\n");
    for r in rows {
        let newton = r.newton_iterations.map_or(String::new(), |n| n.to_string());
        let _ = writeln!(
            text,
            "{},{},{},{},{},{},{},{},{}",
            r.run,
            Compact(r.initial_energy),
            Compact(r.final_relative),
            Compact(r.min_relative),
            Compact(r.max_relative),
            Compact(r.wall_seconds),
            r.steps,
            newton,
            Compact(r.deepest_penetration)
        );
    }
    let path = dir.join("comparison.csv");
    std::fs::write(&path, text).map_err(io_at(&path))
}
