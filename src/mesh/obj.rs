//! Wavefront OBJ input: `v` and `f` lines, with errors that give the line.
//!
//! Written here rather than taken from `tobj` because a simulator needs the file's own vertex
//! numbering (scene keys such as `fixed` refer to it) and one connected mesh across groups:
//! `tobj` renumbers vertices by first use in each group and splits groups into separate meshes.
//! Normals, texture coordinates, groups, materials and smoothing are ignored; vertex `k` of the
//! file (the k-th `v` line, from 0) is vertex `k` of the mesh.

use super::TriMesh;
use crate::math::Vec3;
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
    let mut faces: Vec<(usize, [i64; 3])> = Vec::new();
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
                let resolved = [0, 1, 2].map(|i| if refs[i] < 0 { n + refs[i] + 1 } else { refs[i] });
                faces.push((line, resolved));
            }
            _ => {}
        }
    }
    let n = mesh.positions.len() as i64;
    for (line, f) in faces {
        if let Some(bad) = f.iter().find(|&&r| r < 1 || r > n) {
            return Err(ObjError::Malformed {
                line,
                message: format!("vertex {bad} does not exist (the file has {n} vertices)"),
            });
        }
        mesh.triangles.push(f.map(|r| (r - 1) as u32));
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
}
