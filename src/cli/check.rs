//! `avicontact check DIR`: every written frame tested for intersections with exact predicates;
//! exit 1 and name them if any.

use super::bad_input;
use avicontact::output::check_run;
use std::path::Path;
use std::process::ExitCode;

/// How many findings are printed; the rest are counted.
const SHOWN: usize = 20;

/// Checks the frames in `dir`.
pub fn check(dir: &Path) -> ExitCode {
    match check_run(dir) {
        Ok(report) if report.findings.is_empty() => {
            println!("{}: {} frames checked, no intersection", dir.display(), report.frames);
            ExitCode::SUCCESS
        }
        Ok(report) => {
            for f in report.findings.iter().take(SHOWN) {
                println!("{f}");
            }
            if report.findings.len() > SHOWN {
                println!("… and {} more", report.findings.len() - SHOWN);
            }
            eprintln!("error: {} problems in {} frames checked", report.findings.len(), report.frames);
            ExitCode::from(1)
        }
        Err(e) => bad_input(e),
    }
}
