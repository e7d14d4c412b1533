//! `avicontact plot DIR`: energy and momentum against time from `DIR/stats.csv`, PNG and SVG.

use super::bad_input;
use avicontact::output::{plot_run, PlotError};
use std::path::Path;
use std::process::ExitCode;

/// Plots the run in `dir` and prints the files written.
pub fn plot(dir: &Path) -> ExitCode {
    match plot_run(dir) {
        Ok(files) => {
            for f in files {
                println!("{}", f.display());
            }
            ExitCode::SUCCESS
        }
        // a missing or malformed stats.csv is bad input; failing to write the plots is not
        Err(e @ PlotError::Write { .. }) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
        Err(e) => bad_input(e),
    }
}
