//! `avicontact check DIR`: an exact, independent intersection test on every written frame
//! (law 1 in `docs/design.md`). Shares no code with the simulator's geometry: it reads the frame
//! files back and decides with exact orientation predicates (`geometry::intersect`).
//!
//! Checked: every pair of triangles that share no vertex (within a body and across bodies), and
//! every pair of particles (centre distance below the sum of radii, in floating point). A
//! triangle whose corners are collinear in a frame is reported as degenerate.

use super::read::{frame_files, parse_particles, read_text, read_whole, FrameMesh, FrameReadError};
use crate::geometry::intersect::{drop_axis, intersect_triangle_triangle, orient2d};
use crate::math::Vec3;
use std::fmt;
use std::path::{Path, PathBuf};

/// Something wrong found in a frame.
#[derive(Clone, Debug, PartialEq)]
pub enum Finding {
    /// Two triangles that share no vertex intersect.
    Triangles {
        /// The frame file.
        frame: PathBuf,
        /// (body name, triangle index within the body) of each.
        a: (String, usize),
        /// The other triangle.
        b: (String, usize),
    },
    /// Two particles overlap.
    Particles {
        /// The frame file.
        frame: PathBuf,
        /// Particle rows (0-based, without the header).
        a: usize,
        /// The other particle.
        b: usize,
    },
    /// A triangle whose corners are collinear.
    Degenerate {
        /// The frame file.
        frame: PathBuf,
        /// (body name, triangle index within the body).
        triangle: (String, usize),
    },
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Triangles { frame, a, b } => write!(
                f,
                "{}: triangle {} of \"{}\" intersects triangle {} of \"{}\"",
                frame.display(),
                a.1,
                a.0,
                b.1,
                b.0
            ),
            Finding::Particles { frame, a, b } => write!(f, "{}: particles {a} and {b} overlap", frame.display()),
            Finding::Degenerate { frame, triangle } => {
                write!(
                    f,
                    "{}: triangle {} of \"{}\" is degenerate (collinear corners)",
                    frame.display(),
                    triangle.1,
                    triangle.0
                )
            }
        }
    }
}

/// What `check` looked at.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CheckReport {
    /// Frame files read (meshes and particles).
    pub frames: usize,
    /// Everything found, in frame order.
    pub findings: Vec<Finding>,
}

/// The run directory or a frame file cannot be read.
#[derive(Debug)]
pub struct CheckError {
    /// The file or directory.
    pub path: PathBuf,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for CheckError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for CheckError {}

impl From<FrameReadError> for CheckError {
    fn from(e: FrameReadError) -> Self {
        CheckError { path: e.path, message: e.message }
    }
}

/// Checks every frame under `dir/frames` and `dir/particles`.
pub fn check_run(dir: &Path) -> Result<CheckReport, CheckError> {
    let mut report = CheckReport::default();
    let frames = frame_files(dir, "frames", "obj")?;
    let particles = frame_files(dir, "particles", "csv")?;
    if frames.is_empty() && particles.is_empty() {
        return Err(CheckError {
            path: dir.to_path_buf(),
            message: "no frames/frame_*.obj or particles/frame_*.csv here; run `avicontact run SCENE --out DIR` first"
                .into(),
        });
    }
    check_frame_count(dir, &frames, &particles)?;
    // every frame of a run holds the same bodies, vertices and triangles (or spheres) as its
    // first: a frame that differs was cut short or comes from another run
    let mut first_mesh: Option<(PathBuf, usize, usize, usize)> = None;
    for path in frames {
        let text = read_whole(&path)?;
        let mesh = FrameMesh::parse(&text).map_err(|message| CheckError { path: path.clone(), message })?;
        let shape = (mesh.bodies.len(), mesh.positions.len(), mesh.triangles.len());
        match &first_mesh {
            None => first_mesh = Some((path.clone(), shape.0, shape.1, shape.2)),
            Some((first, bodies, vertices, triangles)) if (*bodies, *vertices, *triangles) != shape => {
                return Err(CheckError {
                    path: path.clone(),
                    message: format!(
                        "{} bodies, {} vertices and {} triangles where {} has {bodies}, {vertices} and {triangles}: \
                         the frame is cut short or from another run; run the scene again",
                        shape.0,
                        shape.1,
                        shape.2,
                        first.display()
                    ),
                });
            }
            Some(_) => {}
        }
        mesh.check(&path, &mut report.findings);
        report.frames += 1;
    }
    let mut first_count: Option<(PathBuf, usize)> = None;
    for path in particles {
        let text = read_whole(&path)?;
        let spheres = parse_particles(&text).map_err(|message| CheckError { path: path.clone(), message })?;
        match &first_count {
            None => first_count = Some((path.clone(), spheres.len())),
            Some((first, n)) if *n != spheres.len() => {
                return Err(CheckError {
                    path: path.clone(),
                    message: format!(
                        "{} particles where {} has {n}: the frame is cut short or from another run; run the scene again",
                        spheres.len(),
                        first.display()
                    ),
                });
            }
            Some(_) => {}
        }
        check_particles(&path, &spheres, &mut report.findings);
        report.frames += 1;
    }
    Ok(report)
}

/// With a `stats.csv` beside them (one row per frame), the run's frame files must number its
/// rows: fewer is a run whose frames were lost, more a directory mixing two runs.
fn check_frame_count(dir: &Path, frames: &[PathBuf], particles: &[PathBuf]) -> Result<(), CheckError> {
    let stats = dir.join("stats.csv");
    if !stats.is_file() {
        return Ok(());
    }
    let rows = read_text(&stats)?.lines().skip(1).filter(|l| !l.trim().is_empty()).count();
    for (files, what) in [(frames, "frames/frame_*.obj"), (particles, "particles/frame_*.csv")] {
        if !files.is_empty() && files.len() != rows {
            return Err(CheckError {
                path: dir.to_path_buf(),
                message: format!(
                    "{} {what} files but {rows} rows in stats.csv: frames are missing or left from another run; \
                     run the scene again into an empty directory",
                    files.len()
                ),
            });
        }
    }
    Ok(())
}

/// The checks on a frame's triangles (the reader is `output::read`, shared with `render`).
impl FrameMesh {
    /// (body name, index within the body) of triangle `t`.
    fn name(&self, t: usize) -> (String, usize) {
        let body = self.bodies.iter().rev().find(|b| b.first_triangle <= t).unwrap_or(&self.bodies[0]);
        (body.name.clone(), t - body.first_triangle)
    }

    fn corners(&self, t: usize) -> [&Vec3; 3] {
        self.triangles[t].map(|i| &self.positions[i])
    }

    fn check(&self, frame: &Path, findings: &mut Vec<Finding>) {
        for t in 0..self.triangles.len() {
            let [a, b, c] = self.corners(t);
            if (0..3).all(|axis| orient2d(drop_axis(a, axis), drop_axis(b, axis), drop_axis(c, axis)) == 0) {
                findings.push(Finding::Degenerate { frame: frame.to_path_buf(), triangle: self.name(t) });
            }
        }
        // broad phase: sweep along x over axis-aligned boxes (false positives only)
        let boxes: Vec<(Vec3, Vec3)> = (0..self.triangles.len())
            .map(|t| {
                let [a, b, c] = self.corners(t);
                (a.inf(b).inf(c), a.sup(b).sup(c))
            })
            .collect();
        let mut order: Vec<usize> = (0..boxes.len()).collect();
        order.sort_by(|&i, &j| boxes[i].0.x.total_cmp(&boxes[j].0.x).then(i.cmp(&j)));
        for (k, &i) in order.iter().enumerate() {
            for &j in &order[k + 1..] {
                if boxes[j].0.x > boxes[i].1.x {
                    break;
                }
                let overlap = (1..3).all(|d| boxes[j].0[d] <= boxes[i].1[d] && boxes[i].0[d] <= boxes[j].1[d]);
                let shares_vertex = self.triangles[i].iter().any(|v| self.triangles[j].contains(v));
                if overlap && !shares_vertex && intersect_triangle_triangle(self.corners(i), self.corners(j)) {
                    let (a, b) = (i.min(j), i.max(j));
                    findings.push(Finding::Triangles { frame: frame.to_path_buf(), a: self.name(a), b: self.name(b) });
                }
            }
        }
    }
}

fn check_particles(frame: &Path, spheres: &[(Vec3, f64)], findings: &mut Vec<Finding>) {
    let mut order: Vec<usize> = (0..spheres.len()).collect();
    order.sort_by(|&i, &j| (spheres[i].0.x - spheres[i].1).total_cmp(&(spheres[j].0.x - spheres[j].1)).then(i.cmp(&j)));
    for (k, &i) in order.iter().enumerate() {
        for &j in &order[k + 1..] {
            if spheres[j].0.x - spheres[j].1 > spheres[i].0.x + spheres[i].1 {
                break;
            }
            let reach = spheres[i].1 + spheres[j].1;
            if (spheres[i].0 - spheres[j].0).norm_squared() < reach * reach {
                findings.push(Finding::Particles { frame: frame.to_path_buf(), a: i.min(j), b: i.max(j) });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn finds_crossing_triangles_and_overlapping_particles_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("frames")).unwrap();
        fs::create_dir_all(dir.path().join("particles")).unwrap();
        // a flat grid piece (adjacent triangles share vertices: not pairs) and a piercing triangle
        let clean = "o sheet\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n";
        let pierced = format!("{clean}o spike\nv 0.2 0.2 -1\nv 0.2 0.2 1\nv 0.3 -1 0\nf 5 6 7\n");
        // the spike far away first: every frame of a run has the same bodies
        let apart = format!("{clean}o spike\nv 5 5 4\nv 5 5 6\nv 5.1 4 5\nf 5 6 7\n");
        fs::write(dir.path().join("frames/frame_00000.obj"), apart).unwrap();
        fs::write(dir.path().join("frames/frame_00001.obj"), &pierced).unwrap();
        fs::write(dir.path().join("particles/frame_00000.csv"), "x,y,z,r\n0,0,0,0.1\n0.3,0,0,0.1\n").unwrap();
        fs::write(dir.path().join("particles/frame_00001.csv"), "x,y,z,r\n0,0,0,0.1\n0.15,0,0,0.1\n").unwrap();
        let report = check_run(dir.path()).unwrap();
        assert_eq!(report.frames, 4);
        assert_eq!(report.findings.len(), 2, "{:?}", report.findings);
        assert!(
            matches!(&report.findings[0], Finding::Triangles { a, b, .. } if a == &("sheet".to_string(), 0) && b == &("spike".to_string(), 0))
        );
        assert!(matches!(report.findings[1], Finding::Particles { a: 0, b: 1, .. }));
        assert!(report.findings[0].to_string().contains("frame_00001.obj"));
    }

    #[test]
    fn a_frame_cut_short_or_a_count_that_disagrees_with_stats_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let frames = dir.path().join("frames");
        fs::create_dir_all(&frames).unwrap();
        let whole = "o sheet\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n";
        fs::write(frames.join("frame_00000.obj"), whole).unwrap();
        fs::write(frames.join("frame_00001.obj"), whole).unwrap();
        fs::write(dir.path().join("stats.csv"), "time,kinetic\n0,0\n0.1,0\n").unwrap();
        assert_eq!(check_run(dir.path()).unwrap().frames, 2);
        // cut at a line: it parses, but has fewer triangles than the first frame
        fs::write(frames.join("frame_00001.obj"), &whole[..whole.len() - 8]).unwrap();
        let e = check_run(dir.path()).unwrap_err();
        assert!(e.path.ends_with("frame_00001.obj") && e.message.contains("cut short"), "{e}");
        // cut mid-line, and empty
        fs::write(frames.join("frame_00001.obj"), &whole[..whole.len() - 3]).unwrap();
        assert!(check_run(dir.path()).unwrap_err().message.contains("mid-line"));
        fs::write(frames.join("frame_00001.obj"), "").unwrap();
        assert!(check_run(dir.path()).unwrap_err().message.contains("empty"));
        // a frame more than stats.csv has rows
        fs::write(frames.join("frame_00001.obj"), whole).unwrap();
        fs::write(frames.join("frame_00002.obj"), whole).unwrap();
        let e = check_run(dir.path()).unwrap_err();
        assert!(e.message.contains("3 frames/frame_*.obj files but 2 rows"), "{e}");
    }

    #[test]
    fn an_empty_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(check_run(dir.path()).unwrap_err().message.contains("avicontact run"));
    }
}
