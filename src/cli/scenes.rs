//! `avicontact scenes`: the built-in scenes, each with what it shows.

use avicontact::scene::{builtin_names, builtin_summary};
use std::process::ExitCode;

/// Lists the built-in scenes on stdout, one a line.
pub fn scenes() -> ExitCode {
    let names = builtin_names();
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    for name in names {
        println!("{name:<width$}  {}", builtin_summary(name).unwrap_or_default());
    }
    ExitCode::SUCCESS
}
