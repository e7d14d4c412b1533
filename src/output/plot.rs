//! TEMPORARY
use std::path::{Path, PathBuf};
/// x
#[derive(Debug)]
pub struct PlotError;
impl std::fmt::Display for PlotError { fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result { write!(f, "plot") } }
impl std::error::Error for PlotError {}
/// x
pub fn plot_run(_dir: &Path) -> Result<Vec<PathBuf>, PlotError> { Err(PlotError) }
