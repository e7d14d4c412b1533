//! Checkpoints: a run's whole state in one file, from which `avicontact resume DIR` continues the
//! run bit-identically to one never stopped (`avicontact run --checkpoint-every T`;
//! `docs/checkpoints.md`).
//!
//! A checkpoint is taken between two events. It holds every vertex (position, velocity, time of
//! the last kick, motion), and the backend's state ([`crate::backend::Backend::save_state`]): on
//! the AVI each clock's tick count, the event queue with every event's time and tie-breaking
//! sequence number, the contact manager whole (pairs and their layers, slab certificates, vague
//! tubes, the kinetic broad phase), the ledger and the counters. Whatever is built from the scene
//! (meshes, potentials, periods) is rebuilt from it on resume, and checked against a fingerprint.
//!
//! The file is `DIR/checkpoint.bin`, replaced atomically at each checkpoint: a run killed at any
//! moment leaves the last complete checkpoint. Its layout: the 8 bytes `AVICKPT1`, then
//! [`Checkpoint`] in postcard's binary form (every float as its 8 bytes), then an 8-byte checksum
//! of what precedes it. A checkpoint of another build (the running executable's bytes differ)
//! or of another scene (the rebuilt start differs) is refused with the reason.

use std::hash::Hasher;
use std::path::{Path, PathBuf};

/// The checkpoint's file name in the output directory.
pub const FILE_NAME: &str = "checkpoint.bin";

/// The first bytes of every checkpoint file: the name and the format's version.
const MAGIC: &[u8; 8] = b"AVICKPT1";

/// What a checkpoint holds besides the state: enough to rebuild the run and check that it is the
/// same one.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Checkpoint {
    /// The build that wrote it ([`build_id`]).
    pub build: u64,
    /// The run's start, rebuilt from its scene ([`crate::Simulation::fingerprint`]).
    pub fingerprint: u64,
    /// How the run was asked for, to rebuild it.
    pub request: ResumeRequest,
    /// The simulated time of the last processed event, s.
    pub time: f64,
    /// The simulated time the run had been taken to, s: every event at or before it processed
    /// (the run is complete once this reaches its duration).
    pub reached: f64,
    /// Frames written when it was taken (the frame files, `stats.csv` rows).
    pub frames_written: u64,
    /// Rows of `contact.csv` written when it was taken.
    pub contact_rows: u64,
    /// Rows of `steps.csv` written when it was taken.
    pub step_rows: u64,
    /// The simulation's state ([`crate::Simulation::save_state`]).
    pub state: Vec<u8>,
}

/// The `avicontact run` request a checkpoint continues: the scene and the overrides.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ResumeRequest {
    /// The scene file (an absolute path) or built-in name.
    pub scene: String,
    /// `--duration`, s.
    pub duration: Option<f64>,
    /// `--frame-rate`, frames per simulated second.
    pub frame_rate: Option<f64>,
    /// `--backend`.
    pub backend: Option<String>,
    /// `--insist`.
    pub insist: bool,
    /// `--audit`.
    pub audit: bool,
    /// `--profile`.
    pub profile: bool,
    /// `--checkpoint-every`, simulated seconds.
    pub checkpoint_every: f64,
}

/// Why a checkpoint could not be written or read.
#[derive(Debug)]
pub enum CheckpointError {
    /// This run cannot be checkpointed yet (what, and what to do instead).
    Unsupported(String),
    /// There is no checkpoint file.
    Missing {
        /// The file looked for.
        path: PathBuf,
    },
    /// Reading the file failed.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a complete checkpoint of this format.
    Corrupt {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The checkpoint was written by another build of avicontact, whose trajectory may differ.
    OtherBuild {
        /// The file.
        path: PathBuf,
    },
    /// The scene (or a mesh it reads) changed since the checkpoint was written.
    OtherScene {
        /// The file.
        path: PathBuf,
        /// The scene as the checkpoint names it.
        scene: String,
    },
    /// The state does not fit the rebuilt simulation.
    Mismatch(String),
}

impl std::fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CheckpointError::Unsupported(what) => write!(f, "checkpoints are not supported for {what}"),
            CheckpointError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            CheckpointError::Missing { path } => {
                write!(f, "{}: no checkpoint: the run was not started with --checkpoint-every", path.display())
            }
            CheckpointError::Corrupt { path, reason } => {
                write!(f, "{}: not a complete checkpoint ({reason}); run the scene again", path.display())
            }
            CheckpointError::OtherBuild { path } => write!(
                f,
                "{}: written by another build of avicontact, whose trajectory may differ; resume it with the \
                 build that wrote it, or run the scene again",
                path.display()
            ),
            CheckpointError::OtherScene { path, scene } => write!(
                f,
                "{}: the scene {scene} (or a mesh it reads) has changed since this checkpoint was written; \
                 restore it, or run the scene again",
                path.display()
            ),
            CheckpointError::Mismatch(what) => write!(f, "the checkpoint does not fit the scene: {what}"),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// A 64-bit hash of `bytes` (std's `DefaultHasher::new()`, the same in every run of one build).
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    hasher.write(bytes);
    hasher.finish()
}

/// The identity of this build: a hash of the bytes of the file that holds this code (any change to
/// the code, the compiler or the profile changes it): the executable, or the Python package's
/// shared library; 0 when it cannot be read.
pub fn build_id() -> u64 {
    static ID: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *ID.get_or_init(|| {
        own_file().and_then(|path| std::fs::read(path).ok()).map_or(0, |bytes| hash_bytes(&bytes) ^ bytes.len() as u64)
    })
}

/// The file this code was loaded from: on Linux the mapping of `/proc/self/maps` that holds this
/// function (the executable, or a shared library loaded by Python), elsewhere the executable.
fn own_file() -> Option<PathBuf> {
    let here = own_file as fn() -> Option<PathBuf> as usize;
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap_or_default();
    let mapped = maps.lines().find_map(|line| {
        // "start-end perms offset dev inode path"
        let mut fields = line.split_whitespace();
        let (start, end) = fields.next()?.split_once('-')?;
        let (start, end) = (usize::from_str_radix(start, 16).ok()?, usize::from_str_radix(end, 16).ok()?);
        let path = fields.nth(4)?;
        (start <= here && here < end && path.starts_with('/')).then(|| PathBuf::from(path))
    });
    mapped.or_else(|| std::env::current_exe().ok())
}

/// Serializes `value` onto `out` (postcard).
pub fn encode<T: serde::Serialize + ?Sized>(value: &T, out: &mut Vec<u8>) -> Result<(), CheckpointError> {
    let bytes = std::mem::take(out);
    *out = postcard::to_extend(value, bytes).map_err(|e| CheckpointError::Mismatch(format!("encoding: {e}")))?;
    Ok(())
}

/// Deserializes one `T` from the front of `bytes`, returning the rest.
pub fn decode<'a, T: serde::Deserialize<'a>>(bytes: &'a [u8], what: &str) -> Result<(T, &'a [u8]), CheckpointError> {
    postcard::take_from_bytes(bytes).map_err(|e| CheckpointError::Mismatch(format!("{what}: {e}")))
}

impl Checkpoint {
    /// The file's bytes (`output` writes them atomically to [`FILE_NAME`]).
    pub fn to_bytes(&self) -> Result<Vec<u8>, CheckpointError> {
        let mut bytes = MAGIC.to_vec();
        encode(self, &mut bytes)?;
        let sum = hash_bytes(&bytes);
        bytes.extend_from_slice(&sum.to_le_bytes());
        Ok(bytes)
    }

    /// The checkpoint in `bytes`, read from `path` (named in the errors), checked to be complete
    /// and of this build.
    pub fn from_bytes(path: &Path, bytes: &[u8]) -> Result<Self, CheckpointError> {
        let corrupt = |reason: &str| CheckpointError::Corrupt { path: path.to_path_buf(), reason: reason.to_string() };
        if bytes.len() < MAGIC.len() + 8 || !bytes.starts_with(MAGIC) {
            return Err(corrupt("it does not start as a checkpoint of this format does"));
        }
        let (body, sum) = bytes.split_at(bytes.len() - 8);
        if hash_bytes(body).to_le_bytes() != sum {
            return Err(corrupt("its checksum does not match: the file was cut short or changed"));
        }
        let checkpoint: Checkpoint =
            postcard::from_bytes(&body[MAGIC.len()..]).map_err(|e| corrupt(&format!("it does not decode: {e}")))?;
        if checkpoint.build != build_id() {
            return Err(CheckpointError::OtherBuild { path: path.to_path_buf() });
        }
        Ok(checkpoint)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        Checkpoint {
            build: build_id(),
            fingerprint: 7,
            request: ResumeRequest {
                scene: "hanging-cloth".into(),
                duration: Some(0.5),
                frame_rate: None,
                backend: None,
                insist: false,
                audit: false,
                profile: true,
                checkpoint_every: 0.1,
            },
            time: 0.1,
            reached: 0.1,
            frames_written: 7,
            contact_rows: 0,
            step_rows: 0,
            state: vec![1, 2, 3, 255],
        }
    }

    #[test]
    fn the_build_is_the_file_that_holds_this_code() {
        // statically linked into the test executable
        let canonical = |p: PathBuf| p.canonicalize().expect("an existing file");
        assert_eq!(own_file().map(canonical), std::env::current_exe().ok().map(canonical));
        assert_ne!(build_id(), 0);
    }

    #[test]
    fn a_checkpoint_reads_back_as_written_and_a_damaged_one_is_refused() {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let checkpoint = sample();
        std::fs::write(dir.path().join(FILE_NAME), checkpoint.to_bytes().expect("encoded")).expect("written");
        let path = dir.path().join(FILE_NAME);
        let read = |path: &Path| Checkpoint::from_bytes(path, &std::fs::read(path).expect("the file"));
        assert_eq!(read(&path).expect("read"), checkpoint);
        let bytes = std::fs::read(&path).expect("the file");
        std::fs::write(&path, &bytes[..bytes.len() - 3]).expect("cut short");
        let e = read(&path).unwrap_err().to_string();
        assert!(e.contains("not a complete checkpoint") && e.contains("checksum"), "{e}");
        let mut changed = bytes.clone();
        changed[20] ^= 1;
        std::fs::write(&path, &changed).expect("changed");
        assert!(read(&path).unwrap_err().to_string().contains("checksum"));
        std::fs::write(&path, b"not a checkpoint at all").expect("other");
        assert!(read(&path).unwrap_err().to_string().contains("does not start"));
        let other = Checkpoint { build: build_id() ^ 1, ..sample() };
        std::fs::write(&path, other.to_bytes().expect("encoded")).expect("written");
        assert!(read(&path).unwrap_err().to_string().contains("another build"));
    }
}
