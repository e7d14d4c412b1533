//! Frame files and `stats.csv`, written by an [`Observer`].

use super::{io_at, write_atomically, OutputError};
use crate::math::{Compact, Real, Time};
use crate::model::{BodyKind, Model};
use crate::observe::{Frame, Observer, ObserverError, StepEstimate};
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// The header of `stats.csv`.
pub const STATS_HEADER: &str =
    "time,kinetic,potential,total,dissipated,external_work,momentum_x,momentum_y,momentum_z,angular_x,angular_y,angular_z,events";

/// The header of `contact.csv` ([`crate::observe::ContactFrameStats`], one row per frame).
pub const CONTACT_HEADER: &str = "time,pairs,layers,kdop_records,occupied_cells,bookkeeping_bytes";

/// The header of `steps.csv`: one row per synchronous step of an integrator with an embedded
/// error estimate ([`crate::observe::StepEstimate`], ROS3PL).
pub const STEPS_HEADER: &str = "time,position_error,velocity_error";

/// Writes `frames/frame_NNNNN.obj` (every non-particle body, one `o` group per body, vertices in
/// body order), `particles/frame_NNNNN.csv` (`x,y,z,r`) when there are particles, one
/// `stats.csv` row per frame, for AVI runs with contact one `contact.csv` row per frame, and for
/// synchronous runs whose integrator estimates its error one `steps.csv` row per step.
/// Numbers are printed in Rust's shortest round-trip form, so files are bit-exact and
/// deterministic.
#[derive(Debug)]
pub struct FrameWriter {
    dir: PathBuf,
    stats: BufWriter<File>,
    /// `contact.csv`, opened at the first frame that reports contact.
    contact: Option<BufWriter<File>>,
    /// Rows written to `contact.csv`.
    contact_rows: u64,
    /// `steps.csv`, opened at the first step that reports an error estimate.
    steps: Option<BufWriter<File>>,
    /// Rows written to `steps.csv`.
    step_rows: u64,
    /// A failure to write `steps.csv` (an event cannot fail), reported at the next frame.
    step_failure: Option<OutputError>,
    frames_written: u64,
}

impl FrameWriter {
    /// Creates `dir` (and `frames/`, `particles/` as needed for `model`), removes the frame
    /// files, `contact.csv` and `summary.json` of an earlier run there, and starts `stats.csv`.
    pub fn create(dir: &Path, model: &Model) -> Result<Self, OutputError> {
        let has_meshes = model.bodies.values().any(|b| !matches!(b.kind, BodyKind::Particles { .. }));
        let has_particles = model.bodies.values().any(|b| matches!(b.kind, BodyKind::Particles { .. }));
        fs::create_dir_all(dir).map_err(io_at(dir))?;
        for (sub, wanted) in [("frames", has_meshes), ("particles", has_particles)] {
            let d = dir.join(sub);
            if d.is_dir() {
                for entry in fs::read_dir(&d).map_err(io_at(&d))? {
                    let p = entry.map_err(io_at(&d))?.path();
                    // an earlier run's frames, and the temporary file of one killed mid-write
                    let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                    if name.starts_with("frame_") || name.starts_with(".tmp") {
                        fs::remove_file(&p).map_err(io_at(&p))?;
                    }
                }
            }
            if wanted {
                fs::create_dir_all(&d).map_err(io_at(&d))?;
            }
        }
        // an earlier run's files that this run may not rewrite (a failed run writes no contact.csv,
        // and until this run's end no summary): none may pass as this run's
        for name in ["contact.csv", "steps.csv", "summary.json", crate::checkpoint::FILE_NAME] {
            let stale = dir.join(name);
            if stale.is_file() {
                fs::remove_file(&stale).map_err(io_at(&stale))?;
            }
        }
        let path = dir.join("stats.csv");
        let mut stats = BufWriter::new(File::create(&path).map_err(io_at(&path))?);
        writeln!(stats, "{STATS_HEADER}").map_err(io_at(&path))?;
        Ok(FrameWriter {
            dir: dir.to_path_buf(),
            stats,
            contact: None,
            contact_rows: 0,
            steps: None,
            step_rows: 0,
            step_failure: None,
            frames_written: 0,
        })
    }

    /// Takes over `dir` to continue a run from a checkpoint taken after `frames` frames,
    /// `contact_rows` rows of `contact.csv` and `step_rows` rows of `steps.csv`: what the run
    /// wrote after the checkpoint (frame files, rows) is removed, to be written again, and so is
    /// `summary.json`. Refuses a directory that holds fewer rows than the checkpoint counted.
    pub fn resume(dir: &Path, frames: u64, contact_rows: u64, step_rows: u64) -> Result<Self, OutputError> {
        for sub in ["frames", "particles"] {
            let d = dir.join(sub);
            if !d.is_dir() {
                continue;
            }
            for entry in fs::read_dir(&d).map_err(io_at(&d))? {
                let p = entry.map_err(io_at(&d))?.path();
                let name = p.file_stem().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                let index = name.strip_prefix("frame_").and_then(|k| k.parse::<u64>().ok());
                if index.is_some_and(|k| k >= frames) || name.starts_with(".tmp") {
                    fs::remove_file(&p).map_err(io_at(&p))?;
                }
            }
        }
        let summary = dir.join("summary.json");
        if summary.is_file() {
            fs::remove_file(&summary).map_err(io_at(&summary))?;
        }
        let stats = keep_rows(&dir.join("stats.csv"), frames)?;
        let table = |name: &str, rows: u64| -> Result<Option<BufWriter<File>>, OutputError> {
            match rows {
                0 => {
                    let path = dir.join(name);
                    if path.is_file() {
                        fs::remove_file(&path).map_err(io_at(&path))?;
                    }
                    Ok(None)
                }
                rows => Ok(Some(keep_rows(&dir.join(name), rows)?)),
            }
        };
        Ok(FrameWriter {
            dir: dir.to_path_buf(),
            stats,
            contact: table("contact.csv", contact_rows)?,
            contact_rows,
            steps: table("steps.csv", step_rows)?,
            step_rows,
            step_failure: None,
            frames_written: frames,
        })
    }

    /// Frames written so far.
    pub fn frames_written(&self) -> u64 {
        self.frames_written
    }

    /// Rows of `contact.csv` written so far.
    pub fn contact_rows(&self) -> u64 {
        self.contact_rows
    }

    /// Rows of `steps.csv` written so far.
    pub fn step_rows(&self) -> u64 {
        self.step_rows
    }

    /// Appends a step's error estimate to `steps.csv` (opened, with its header, at the first).
    fn write_step(&mut self, time: Real, estimate: &StepEstimate) -> Result<(), OutputError> {
        let path = self.dir.join("steps.csv");
        let file = opened(&mut self.steps, &path, STEPS_HEADER)?;
        writeln!(file, "{},{},{}", Compact(time), Compact(estimate.position), Compact(estimate.velocity))
            .and_then(|_| file.flush())
            .map_err(io_at(&path))?;
        self.step_rows += 1;
        Ok(())
    }

    fn write_frame(&mut self, frame: &Frame<'_>) -> Result<(), OutputError> {
        if let Some(failure) = self.step_failure.take() {
            return Err(failure);
        }
        let model = frame.model;
        let mut obj = String::new();
        let mut csv = String::new();
        let mut offset = 1usize; // OBJ indices are 1-based over the whole file
        for body in model.bodies.values() {
            let xs = &frame.positions[body.vertices.start as usize..body.vertices.end as usize];
            match &body.kind {
                BodyKind::Particles { radius } => {
                    for x in xs {
                        csv.push_str(&format!(
                            "{},{},{},{}\n",
                            Compact(x.x),
                            Compact(x.y),
                            Compact(x.z),
                            Compact(*radius)
                        ));
                    }
                }
                kind => {
                    obj.push_str(&format!("o {}\n", body.name));
                    for x in xs {
                        obj.push_str(&format!("v {} {} {}\n", Compact(x.x), Compact(x.y), Compact(x.z)));
                    }
                    for t in kind.triangles() {
                        obj.push_str(&format!(
                            "f {} {} {}\n",
                            t[0] as usize + offset,
                            t[1] as usize + offset,
                            t[2] as usize + offset
                        ));
                    }
                    if let BodyKind::Chain { edges } = kind {
                        for e in edges {
                            obj.push_str(&format!("l {} {}\n", e[0] as usize + offset, e[1] as usize + offset));
                        }
                    }
                    offset += xs.len();
                }
            }
        }
        let name = format!("frame_{:05}", frame.index);
        if !obj.is_empty() {
            let p = self.dir.join("frames").join(format!("{name}.obj"));
            write_atomically(&p, obj.as_bytes())?;
        }
        if !csv.is_empty() {
            let p = self.dir.join("particles").join(format!("{name}.csv"));
            write_atomically(&p, format!("x,y,z,r\n{csv}").as_bytes())?;
        }
        let s = &frame.stats;
        let (p, l) = (s.momentum, s.angular_momentum);
        let path = self.dir.join("stats.csv");
        writeln!(
            self.stats,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            Compact(frame.time.seconds()),
            Compact(s.kinetic),
            Compact(s.potential),
            Compact(s.total()),
            Compact(s.dissipated),
            Compact(s.external_work),
            Compact(p.x),
            Compact(p.y),
            Compact(p.z),
            Compact(l.x),
            Compact(l.y),
            Compact(l.z),
            s.events
        )
        .and_then(|_| self.stats.flush())
        .map_err(io_at(&path))?;
        if let Some(c) = &frame.contact {
            let path = self.dir.join("contact.csv");
            let file = opened(&mut self.contact, &path, CONTACT_HEADER)?;
            writeln!(
                file,
                "{},{},{},{},{},{}",
                Compact(frame.time.seconds()),
                c.pairs,
                c.layers,
                c.kdop_records,
                c.occupied_cells,
                c.bookkeeping_bytes
            )
            .and_then(|_| file.flush())
            .map_err(io_at(&path))?;
            self.contact_rows += 1;
        }
        self.frames_written += 1;
        Ok(())
    }
}

/// The table `table`, created at `path` with its `header` row if it is not open yet.
fn opened<'t>(
    table: &'t mut Option<BufWriter<File>>,
    path: &Path,
    header: &str,
) -> Result<&'t mut BufWriter<File>, OutputError> {
    if table.is_none() {
        let mut file = BufWriter::new(File::create(path).map_err(io_at(path))?);
        writeln!(file, "{header}").map_err(io_at(path))?;
        *table = Some(file);
    }
    Ok(table.as_mut().expect("opened above"))
}

/// Cuts the table at `path` to its header and first `rows` rows (atomically) and opens it to
/// append.
fn keep_rows(path: &Path, rows: u64) -> Result<BufWriter<File>, OutputError> {
    let text = fs::read_to_string(path).map_err(io_at(path))?;
    let lines = usize::try_from(rows).map_or(usize::MAX, |r| r.saturating_add(1));
    let kept: Vec<&str> = text.lines().take(lines).collect();
    if kept.len() < lines {
        return Err(OutputError {
            path: path.to_path_buf(),
            source: std::io::Error::other(format!(
                "holds {} rows, fewer than the {rows} the checkpoint counted: it was cut or edited since",
                kept.len().saturating_sub(1)
            )),
        });
    }
    let mut contents = kept.join("\n");
    contents.push('\n');
    write_atomically(path, contents.as_bytes())?;
    let file = fs::OpenOptions::new().append(true).open(path).map_err(io_at(path))?;
    Ok(BufWriter::new(file))
}

impl Observer for FrameWriter {
    fn on_step_estimate(&mut self, time: Time, estimate: &StepEstimate) {
        if self.step_failure.is_none() {
            if let Err(failure) = self.write_step(time.seconds(), estimate) {
                self.step_failure = Some(failure);
            }
        }
    }

    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        self.write_frame(frame).map_err(|e| Box::new(e) as ObserverError)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Vec3;
    use crate::model::Body;

    #[test]
    fn a_new_writer_clears_an_earlier_run_s_frames_summary_and_temporary_files() {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path();
        fs::create_dir_all(out.join("frames")).unwrap();
        for stale in ["frames/frame_00007.obj", "frames/.tmpAbC123", "summary.json", "contact.csv"] {
            fs::write(out.join(stale), "from an earlier run").unwrap();
        }
        fs::write(out.join("frames/notes.txt"), "the user's own").unwrap();
        let mut model = Model::new();
        let body = Body::new("sheet", BodyKind::Shell { triangles: vec![[0, 1, 2]] });
        model.add_body(body, &[Vec3::zeros(), Vec3::x(), Vec3::y()], &[Vec3::zeros(); 3], &[1.0; 3]);
        FrameWriter::create(out, &model).unwrap();
        for stale in ["frames/frame_00007.obj", "frames/.tmpAbC123", "summary.json", "contact.csv"] {
            assert!(!out.join(stale).exists(), "{stale} is left beside the new run's files");
        }
        assert!(out.join("frames/notes.txt").exists(), "only the run's own files are cleared");
        assert!(out.join("stats.csv").is_file());
    }
}
