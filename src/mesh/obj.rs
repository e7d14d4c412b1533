//! Wavefront OBJ input through `tobj`, with the checks a simulator needs on top: triangles only,
//! finite coordinates, indices in range. All groups of the file are merged into one mesh.

use super::TriMesh;
use crate::math::Vec3;
use std::fmt;
use std::path::Path;

/// Why an OBJ file could not be used. Paths are added by the caller (`scene/`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ObjError {
    /// The file could not be opened or parsed.
    Unreadable(String),
    /// A face with other than three vertices.
    NotTriangle {
        /// Zero-based face index over the whole file.
        face: usize,
        /// Its vertex count.
        arity: u32,
    },
    /// A vertex coordinate that is NaN or infinite.
    NonFinite {
        /// Zero-based vertex index.
        vertex: usize,
    },
    /// The file has no faces.
    Empty,
}

impl fmt::Display for ObjError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObjError::Unreadable(e) => write!(f, "cannot read the OBJ file ({e}); check the path and that it is a text OBJ"),
            ObjError::NotTriangle { face, arity } => write!(
                f,
                "face {face} has {arity} vertices; avicontact needs triangles only: triangulate the mesh before export"
            ),
            ObjError::NonFinite { vertex } => write!(f, "vertex {vertex} has a NaN or infinite coordinate"),
            ObjError::Empty => write!(f, "the file has no faces; a body needs at least one triangle"),
        }
    }
}

impl std::error::Error for ObjError {}

/// Reads a triangle mesh from an OBJ file.
pub fn read_obj(path: &Path) -> Result<TriMesh, ObjError> {
    let options = tobj::LoadOptions { single_index: true, triangulate: false, ..Default::default() };
    let (models, _materials) = tobj::load_obj(path, &options).map_err(|e| ObjError::Unreadable(e.to_string()))?;
    let mut mesh = TriMesh::default();
    let mut face = 0usize;
    for model in models {
        let m = model.mesh;
        let offset = mesh.positions.len() as u32;
        for (k, p) in m.positions.chunks_exact(3).enumerate() {
            let v = Vec3::new(p[0], p[1], p[2]);
            if !v.iter().all(|c| c.is_finite()) {
                return Err(ObjError::NonFinite { vertex: offset as usize + k });
            }
            mesh.positions.push(v);
        }
        if let Some(k) = m.face_arities.iter().position(|&a| a != 3) {
            return Err(ObjError::NotTriangle { face: face + k, arity: m.face_arities[k] });
        }
        for t in m.indices.chunks_exact(3) {
            mesh.triangles.push([t[0] + offset, t[1] + offset, t[2] + offset]);
            face += 1;
        }
    }
    if mesh.triangles.is_empty() {
        return Err(ObjError::Empty);
    }
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn write(text: &str) -> tempfile::NamedTempFile {
        let mut f = tempfile::Builder::new().suffix(".obj").tempfile().unwrap();
        f.write_all(text.as_bytes()).unwrap();
        f
    }

    #[test]
    fn reads_triangles_and_refuses_quads_and_nan() {
        let ok = write("v 0 0 0\nv 1 0 0\nv 0 1 0\nv 1 1 0\nf 1 2 3\nf 2 4 3\n");
        let m = read_obj(ok.path()).unwrap();
        assert_eq!((m.positions.len(), m.triangles.len()), (4, 2));
        let quad = write("v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nf 1 2 3\nf 1 2 3 4\n");
        assert_eq!(read_obj(quad.path()), Err(ObjError::NotTriangle { face: 1, arity: 4 }));
        let nan = write("v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n");
        assert!(matches!(read_obj(nan.path()), Err(ObjError::NonFinite { vertex: 1 }) | Err(ObjError::Unreadable(_))));
        assert!(matches!(read_obj(Path::new("/nonexistent/x.obj")), Err(ObjError::Unreadable(_))));
    }
}
