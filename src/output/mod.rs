//! Output files of the command-line contract (`docs/design.md`): frames, `stats.csv`,
//! `summary.json`, plots, and the progress line. With `scene/`, the only module that writes files.
//!
//! Every file is written as the run goes (a frame as soon as it is taken, `stats.csv` flushed
//! row by row), so a run that fails half-way keeps everything up to the failure. Frames and
//! `summary.json` are written atomically (a temporary file renamed over the target): a run killed while writing one
//! leaves it whole or absent, never cut short.

mod check;
mod compare;
mod frames;
mod penetration;
pub mod plot;
mod progress;
pub(crate) mod read;
mod summary;

pub use check::{check_run, CheckError, CheckReport, Finding};
pub use compare::{write_comparison, ComparisonRow, COMPARISON_HEADER};
pub use frames::{FrameWriter, STATS_HEADER};
pub use penetration::{Penetration, PenetrationGauge, PenetrationWriter, PENETRATION_HEADER};
pub use plot::{plot_comparison, plot_run, PlotError};
pub use progress::{format_wall_seconds, grouped, progress_line, Progress, DEFAULT_PROGRESS_INTERVAL};
pub use summary::{write_summary, RunStatus, Summary};

use crate::checkpoint::{Checkpoint, CheckpointError};
use std::fmt;
use std::path::{Path, PathBuf};

/// An output file could not be written.
#[derive(Debug)]
pub struct OutputError {
    /// The file or directory.
    pub path: PathBuf,
    /// The underlying error.
    pub source: std::io::Error,
}

impl fmt::Display for OutputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: {} (check that the directory is writable and the disk is not full)",
            self.path.display(),
            self.source
        )
    }
}

impl std::error::Error for OutputError {}

pub(crate) fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> OutputError + '_ {
    move |source| OutputError { path: path.to_path_buf(), source }
}

/// Writes `contents` to `path` atomically: into a temporary file beside it, then renamed over it,
/// so a reader (or a run killed half-way) sees the old file or the whole new one, never a part.
pub(crate) fn write_atomically(path: &Path, contents: &[u8]) -> Result<(), OutputError> {
    use std::io::Write;
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut file = tempfile::NamedTempFile::new_in(dir).map_err(io_at(path))?;
    file.write_all(contents).map_err(io_at(path))?;
    file.persist(path).map_err(|e| OutputError { path: path.to_path_buf(), source: e.error })?;
    Ok(())
}

/// A file written atomically as it is streamed: into a buffered temporary file beside `path`,
/// renamed over `path` by [`AtomicFile::commit`]. Dropped without a commit, it leaves `path` as it
/// was (the temporary file is removed). For files too large to build in memory first.
pub(crate) struct AtomicFile {
    path: PathBuf,
    writer: std::io::BufWriter<tempfile::NamedTempFile>,
}

impl AtomicFile {
    /// Starts the temporary file beside `path`.
    pub(crate) fn create(path: &Path) -> Result<Self, OutputError> {
        let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let file = tempfile::NamedTempFile::new_in(dir).map_err(io_at(path))?;
        Ok(AtomicFile { path: path.to_path_buf(), writer: std::io::BufWriter::new(file) })
    }

    /// Where the contents go until the commit.
    pub(crate) fn writer(&mut self) -> &mut impl std::io::Write {
        &mut self.writer
    }

    /// Flushes the contents and renames the temporary file over `path`.
    pub(crate) fn commit(self) -> Result<(), OutputError> {
        let path = self.path;
        let file = self.writer.into_inner().map_err(|e| OutputError { path: path.clone(), source: e.into_error() })?;
        file.persist(&path).map_err(|e| OutputError { path: path.clone(), source: e.error })?;
        Ok(())
    }
}

/// `dir`, or its nearest ancestor that exists (`.` for a relative path none of whose parts do).
fn nearest_existing(dir: &Path) -> &Path {
    let existing = dir.ancestors().find(|a| a.as_os_str().is_empty() || a.exists()).unwrap_or(Path::new("."));
    if existing.as_os_str().is_empty() {
        Path::new(".")
    } else {
        existing
    }
}

/// Writes `checkpoint` to `dir/checkpoint.bin`, replacing the last one atomically.
pub fn write_checkpoint(dir: &Path, checkpoint: &Checkpoint) -> Result<(), CheckpointError> {
    let path = dir.join(crate::checkpoint::FILE_NAME);
    write_atomically(&path, &checkpoint.to_bytes()?)
        .map_err(|e| CheckpointError::Io { path, source: std::io::Error::other(e.to_string()) })
}

/// Reads `dir/checkpoint.bin`, checked to be complete and of this build.
pub fn read_checkpoint(dir: &Path) -> Result<Checkpoint, CheckpointError> {
    let path = dir.join(crate::checkpoint::FILE_NAME);
    let bytes = std::fs::read(&path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => CheckpointError::Missing { path: path.clone() },
        _ => CheckpointError::Io { path: path.clone(), source },
    })?;
    Checkpoint::from_bytes(&path, &bytes)
}

/// Bytes free for this user on the disk that holds `dir` (or would hold it, once created), if
/// the system tells: what the work estimate holds a run's frames against
/// ([`crate::workload::Workload::check`]).
#[cfg(unix)]
pub fn free_bytes(dir: &Path) -> Option<f64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(nearest_existing(dir).as_os_str().as_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `stats` a buffer of the type statvfs fills.
    let status = unsafe { libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) };
    if status != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so it filled `stats`.
    let stats = unsafe { stats.assume_init() };
    Some(stats.f_bavail as f64 * stats.f_frsize as f64)
}

/// Bytes free on the disk that holds `dir`: unknown on this system.
#[cfg(not(unix))]
pub fn free_bytes(_dir: &Path) -> Option<f64> {
    None
}

/// Checks, before a run is built, that `dir` can hold its output: a directory (or a path whose
/// nearest existing ancestor is one) that accepts a new file. Writes nothing that stays.
pub fn check_output_dir(dir: &Path) -> Result<(), String> {
    let existing = nearest_existing(dir);
    if !existing.is_dir() {
        return Err(format!(
            "{} is a file, not a directory; name a directory for the run's output (it is created if missing)",
            existing.display()
        ));
    }
    tempfile::tempfile_in(existing)
        .map(drop)
        .map_err(|e| format!("{}: cannot write there ({e}); choose a writable directory", existing.display()))
}
