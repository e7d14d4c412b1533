//! Frame files read back: `frames/frame_NNNNN.obj` and `particles/frame_NNNNN.csv` as
//! [`FrameWriter`](super::FrameWriter) writes them. The one reader of frames, shared by
//! `avicontact check` ([`super::check_run`]) and `avicontact render` ([`crate::render`]).
//!
//! A leaf: it imports nothing else of `output/`.

use crate::math::Vec3;
use std::path::{Path, PathBuf};

/// A frame file or its directory cannot be read, or does not parse.
#[derive(Debug)]
pub(crate) struct FrameReadError {
    /// The file or directory.
    pub path: PathBuf,
    /// What is wrong, for the user (a parse error starts with its line).
    pub message: String,
}

/// The files `dir/sub/frame_*.ext`, in name (so frame) order; none if `dir/sub` does not exist.
pub(crate) fn frame_files(dir: &Path, sub: &str, ext: &str) -> Result<Vec<PathBuf>, FrameReadError> {
    let d = dir.join(sub);
    if !d.is_dir() {
        return Ok(Vec::new());
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
        .map_err(|e| FrameReadError { path: d.clone(), message: e.to_string() })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == ext)
                && p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("frame_"))
        })
        .collect();
    files.sort();
    Ok(files)
}

/// A text file, whole.
pub(crate) fn read_text(path: &Path) -> Result<String, FrameReadError> {
    std::fs::read_to_string(path).map_err(|e| FrameReadError { path: path.to_path_buf(), message: e.to_string() })
}

/// A frame file's text; one that does not end with a newline, or is empty, was cut short while
/// being written.
pub(crate) fn read_whole(path: &Path) -> Result<String, FrameReadError> {
    let text = read_text(path)?;
    let cut = |what: &str| FrameReadError {
        path: path.to_path_buf(),
        message: format!("the file {what}: it was cut short while being written; run the scene again"),
    };
    if !text.is_empty() && !text.ends_with('\n') {
        return Err(cut("ends mid-line"));
    }
    if text.trim().is_empty() {
        return Err(cut("is empty"));
    }
    Ok(text)
}

/// One `o` group of a frame file: a body that is not a particle set.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FrameBody {
    /// The body's name (the rest of its `o` line).
    pub name: String,
    /// Index of its first vertex in [`FrameMesh::positions`].
    pub first_vertex: usize,
    /// Index of its first triangle in [`FrameMesh::triangles`].
    pub first_triangle: usize,
    /// Index of its first edge in [`FrameMesh::edges`].
    pub first_edge: usize,
}

/// The vertices, triangles (`f`) and chain edges (`l`) of one frame file, with the body each
/// belongs to. Indices are 0-based over the whole file.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct FrameMesh {
    /// Vertex positions, m, in file order.
    pub positions: Vec<Vec3>,
    /// Triangles as vertex indices.
    pub triangles: Vec<[usize; 3]>,
    /// Chain edges as vertex indices (an `l` polyline as its consecutive pairs).
    pub edges: Vec<[usize; 2]>,
    /// The bodies in file order; one named `mesh` if the file has no `o` line.
    pub bodies: Vec<FrameBody>,
}

impl FrameMesh {
    /// Reads and parses the frame file at `path`.
    pub(crate) fn read(path: &Path) -> Result<Self, FrameReadError> {
        let text = read_whole(path)?;
        FrameMesh::parse(&text).map_err(|message| FrameReadError { path: path.to_path_buf(), message })
    }

    /// Parses a frame file's text; the error names the line.
    pub(crate) fn parse(text: &str) -> Result<Self, String> {
        let mut m = FrameMesh::default();
        for (k, line) in text.lines().enumerate() {
            let mut w = line.split_whitespace();
            let bad = |what: &str| format!("line {}: {what}", k + 1);
            let indices = |w: std::str::SplitWhitespace<'_>, n: usize| -> Result<Vec<usize>, String> {
                let i: Vec<usize> =
                    w.map(|x| x.parse().map_err(|_| bad("not a vertex index"))).collect::<Result<_, _>>()?;
                if i.iter().any(|&i| i == 0 || i > n) {
                    return Err(bad("a vertex index that does not exist"));
                }
                Ok(i.into_iter().map(|i| i - 1).collect())
            };
            match w.next() {
                Some("o") => m.bodies.push(FrameBody {
                    name: w.collect::<Vec<_>>().join(" "),
                    first_vertex: m.positions.len(),
                    first_triangle: m.triangles.len(),
                    first_edge: m.edges.len(),
                }),
                Some("v") => {
                    let c: Vec<f64> =
                        w.map(|x| x.parse().map_err(|_| bad("not a number"))).collect::<Result<_, _>>()?;
                    if c.len() != 3 || c.iter().any(|x: &f64| !x.is_finite()) {
                        return Err(bad("a vertex needs three finite coordinates"));
                    }
                    m.positions.push(Vec3::new(c[0], c[1], c[2]));
                }
                Some("f") => {
                    let i =
                        indices(w, m.positions.len()).map_err(|_| bad("a face needs three existing vertex indices"))?;
                    if i.len() != 3 {
                        return Err(bad("a face needs three existing vertex indices"));
                    }
                    m.triangles.push([i[0], i[1], i[2]]);
                }
                Some("l") => {
                    let i = indices(w, m.positions.len())
                        .map_err(|_| bad("a line needs two or more existing vertex indices"))?;
                    if i.len() < 2 {
                        return Err(bad("a line needs two or more existing vertex indices"));
                    }
                    m.edges.extend(i.windows(2).map(|p| [p[0], p[1]]));
                }
                _ => {}
            }
        }
        if m.bodies.is_empty() {
            m.bodies.push(FrameBody { name: "mesh".into(), first_vertex: 0, first_triangle: 0, first_edge: 0 });
        }
        Ok(m)
    }

    /// The frame without the bodies named in `names`: their vertices, triangles and edges
    /// removed, the others' indices shifted down.
    pub(crate) fn without(self, names: &[String]) -> FrameMesh {
        if names.is_empty() {
            return self;
        }
        let mut kept = FrameMesh::default();
        // where each vertex of the frame went, if kept
        let mut new_index: Vec<Option<usize>> = vec![None; self.positions.len()];
        for (b, body) in self.bodies.iter().enumerate() {
            let next = self.bodies.get(b + 1);
            let vertices = body.first_vertex..next.map_or(self.positions.len(), |n| n.first_vertex);
            let triangles = body.first_triangle..next.map_or(self.triangles.len(), |n| n.first_triangle);
            let edges = body.first_edge..next.map_or(self.edges.len(), |n| n.first_edge);
            if names.contains(&body.name) {
                continue;
            }
            kept.bodies.push(FrameBody {
                name: body.name.clone(),
                first_vertex: kept.positions.len(),
                first_triangle: kept.triangles.len(),
                first_edge: kept.edges.len(),
            });
            for v in vertices {
                new_index[v] = Some(kept.positions.len());
                kept.positions.push(self.positions[v]);
            }
            // a body's faces and lines use its own vertices (the frame writer's layout)
            let at = |i: usize| new_index[i].expect("a kept body's element uses kept vertices");
            kept.triangles.extend(self.triangles[triangles].iter().map(|t| t.map(at)));
            kept.edges.extend(self.edges[edges].iter().map(|e| e.map(at)));
        }
        kept
    }

    /// The index of the body that owns vertex `v` (the last whose first vertex is at or before it).
    pub(crate) fn body_of_vertex(&self, v: usize) -> usize {
        self.bodies.iter().rposition(|b| b.first_vertex <= v).unwrap_or(0)
    }
}

/// Reads the particle frame at `path`: `(centre, radius)` per row.
pub(crate) fn read_particles(path: &Path) -> Result<Vec<(Vec3, f64)>, FrameReadError> {
    let text = read_whole(path)?;
    parse_particles(&text).map_err(|message| FrameReadError { path: path.to_path_buf(), message })
}

/// Parses a particle frame's text (`x,y,z,r` after a header line); the error names the line.
pub(crate) fn parse_particles(text: &str) -> Result<Vec<(Vec3, f64)>, String> {
    text.lines()
        .enumerate()
        .skip(1)
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(k, l)| {
            let c: Vec<f64> = l
                .split(',')
                .map(|x| x.trim().parse().map_err(|_| format!("line {}: not a number", k + 1)))
                .collect::<Result<_, _>>()?;
            if c.len() != 4 || c.iter().any(|x| !x.is_finite()) {
                return Err(format!("line {}: expected four finite numbers x,y,z,r", k + 1));
            }
            Ok((Vec3::new(c[0], c[1], c[2]), c[3]))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_frame_without_a_body_keeps_the_others_whole() {
        let text = "o floor\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no sheet\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 4 5 6\n\
                    o chain\nv 0 0 2\nv 1 0 2\nl 7 8\n";
        let m = FrameMesh::parse(text).unwrap().without(&["floor".to_string()]);
        let expected =
            FrameMesh::parse("o sheet\nv 0 0 1\nv 1 0 1\nv 0 1 1\nf 1 2 3\no chain\nv 0 0 2\nv 1 0 2\nl 4 5\n");
        assert_eq!(m, expected.unwrap());
    }

    #[test]
    fn a_frame_holds_its_bodies_triangles_and_chain_edges() {
        let text = "o sheet\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\no chain\nv 0 0 1\nv 1 0 1\nv 2 0 1\nl 4 5\nl 5 6\n";
        let m = FrameMesh::parse(text).unwrap();
        assert_eq!(m.positions.len(), 6);
        assert_eq!(m.triangles, vec![[0, 1, 2]]);
        assert_eq!(m.edges, vec![[3, 4], [4, 5]]);
        assert_eq!(m.bodies[1], FrameBody { name: "chain".into(), first_vertex: 3, first_triangle: 1, first_edge: 0 });
        assert_eq!((m.body_of_vertex(2), m.body_of_vertex(3)), (0, 1));
        assert!(FrameMesh::parse("v 0 0 0\nl 1 2\n").unwrap_err().starts_with("line 2"));
        assert!(FrameMesh::parse("v 0 0 0\nv 1 0 0\nf 1 2\n").unwrap_err().contains("three"));
    }
}
