//! Wavefront OBJ input: `v` and `f` lines, with errors that give the line.
//!
//! Written here rather than taken from `tobj` because a simulator needs the file's own vertex
//! numbering (scene keys such as `fixed` refer to it) and one connected mesh across groups:
//! `tobj` renumbers vertices by first use in each group and splits groups into separate meshes.
//! Normals, texture coordinates, groups, materials and smoothing are ignored; vertex `k` of the
//! file (the k-th `v` line, from 0) is vertex `k` of the mesh.

use super::TriMesh;
use crate::math::Vec3;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// Why an OBJ file could not be used. The path is added by the caller (`scene/`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ObjError {
    /// The file could not be read.
    Unreadable(String),
    /// A line that is not valid OBJ.
    Malformed {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A face with other than three vertices.
    NotTriangle {
        /// 1-based line number.
        line: usize,
        /// Its vertex count.
        arity: usize,
    },
    /// The file has no faces.
    Empty,
}

impl fmt::Display for ObjError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjError::Unreadable(e) => write!(f, "cannot read the OBJ file ({e}); check the path"),
            ObjError::Malformed { line, message } => write!(f, "line {line}: {message}"),
            ObjError::NotTriangle { line, arity } => write!(
                f,
                "line {line}: a face with {arity} vertices; avicontact needs triangles only: triangulate the mesh before export"
            ),
            ObjError::Empty => write!(f, "the file has no faces; a body needs at least one triangle"),
        }
    }
}

impl std::error::Error for ObjError {}

/// Reads a triangle mesh from an OBJ file.
pub fn read_obj(path: &Path) -> Result<TriMesh, ObjError> {
    let text = std::fs::read_to_string(path).map_err(|e| ObjError::Unreadable(e.to_string()))?;
    parse_obj(&text)
}

/// Parses OBJ text (see the module docs for what is read).
pub fn parse_obj(text: &str) -> Result<TriMesh, ObjError> {
    let mut mesh = TriMesh::default();
    // each face's line, its references as written and as resolved (1-based)
    let mut faces: Vec<(usize, [i64; 3], [i64; 3])> = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let malformed = |message: String| ObjError::Malformed { line, message };
        let mut words = raw.split('#').next().unwrap_or("").split_whitespace();
        match words.next() {
            Some("v") => {
                let c: Vec<f64> = words
                    .by_ref()
                    .take(3)
                    .map(|w| w.parse::<f64>().map_err(|_| malformed(format!("`{w}` is not a number"))))
                    .collect::<Result<_, _>>()?;
                if c.len() < 3 {
                    return Err(malformed("a vertex needs three coordinates".into()));
                }
                if c.iter().any(|x| !x.is_finite()) {
                    return Err(malformed(format!("vertex {} has a NaN or infinite coordinate", mesh.positions.len())));
                }
                mesh.positions.push(Vec3::new(c[0], c[1], c[2]));
            }
            Some("f") => {
                let refs: Vec<i64> = words
                    .map(|w| {
                        let v = w.split('/').next().unwrap_or("");
                        v.parse::<i64>().map_err(|_| malformed(format!("`{w}` is not a vertex reference")))
                    })
                    .collect::<Result<_, _>>()?;
                if refs.len() != 3 {
                    return Err(ObjError::NotTriangle { line, arity: refs.len() });
                }
                // negative references count back from the vertices read so far
                let n = mesh.positions.len() as i64;
                let written = [refs[0], refs[1], refs[2]];
                let resolved = written.map(|r| if r < 0 { n + r + 1 } else { r });
                faces.push((line, written, resolved));
            }
            _ => {}
        }
    }
    let n = mesh.positions.len() as i64;
    // each triangle's sorted vertices, with its line: a repeated (or flipped) face is one
    // surface listed twice, which doubles its mass and puts two primitives in one place
    let mut seen: HashMap<[u32; 3], usize> = HashMap::with_capacity(faces.len());
    for (line, written, f) in faces {
        if let Some(k) = (0..3).find(|&k| f[k] < 1 || f[k] > n) {
            let message = if written[k] < 0 {
                format!(
                    "vertex reference {} counts back past the first vertex (it names vertex {} of the {} read so far)",
                    written[k], f[k], n
                )
            } else {
                format!("vertex {} does not exist (the file has {n} vertices)", written[k])
            };
            return Err(ObjError::Malformed { line, message });
        }
        let triangle = f.map(|r| (r - 1) as u32);
        let mut key = triangle;
        key.sort_unstable();
        if let Some(first) = seen.insert(key, line) {
            return Err(ObjError::Malformed {
                line,
                message: format!("this face repeats the one on line {first} (the same three vertices); remove one"),
            });
        }
        mesh.triangles.push(triangle);
    }
    if mesh.triangles.is_empty() {
        return Err(ObjError::Empty);
    }
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_file_numbering_across_groups() {
        let text =
            "# two groups share vertex 2\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\no a\nf 1/1/1 2//2 3\no b\nf 2 4 -2\n";
        let m = parse_obj(text).unwrap();
        assert_eq!(m.positions.len(), 4);
        assert_eq!(m.triangles, vec![[0, 1, 2], [1, 3, 2]]);
    }

    #[test]
    fn errors_give_the_line() {
        assert_eq!(
            parse_obj("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3 4\n"),
            Err(ObjError::NotTriangle { line: 5, arity: 4 })
        );
        assert!(matches!(
            parse_obj("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n"),
            Err(ObjError::Malformed { line: 2, .. })
        ));
        assert!(matches!(parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n"), Err(ObjError::Malformed { line: 4, .. })));
        assert!(matches!(parse_obj("v 0 0 x\n"), Err(ObjError::Malformed { line: 1, .. })));
        assert_eq!(parse_obj("v 0 0 0\n"), Err(ObjError::Empty));
        assert!(matches!(read_obj(Path::new("/nonexistent/x.obj")), Err(ObjError::Unreadable(_))));
    }

    #[test]
    fn a_negative_reference_is_reported_as_written() {
        let Err(ObjError::Malformed { line, message }) = parse_obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 -9\n")
        else {
            panic!("a reference before the first vertex")
        };
        assert_eq!(line, 5);
        assert!(message.contains("-9") && !message.contains("vertex -5"), "{message}");
    }

    #[test]
    fn a_face_listed_twice_is_refused_in_either_orientation() {
        let quad = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n";
        assert!(parse_obj(quad).is_ok());
        for again in ["f 1 2 3", "f 3 2 1", "f 2 3 1"] {
            let Err(ObjError::Malformed { line, message }) = parse_obj(&format!("{quad}{again}\n")) else {
                panic!("{again}: a repeated face")
            };
            assert_eq!(line, 7, "{again}");
            assert!(message.contains("repeats the one on line 5"), "{again}: {message}");
        }
    }
}
