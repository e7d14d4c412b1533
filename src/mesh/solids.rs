//! Closed shells of the trash compactor (ACM §8, report §8.7: "platonic solids, tori"): the five
//! platonic solids with flat faces, subdivided, and the torus.
//!
//! Each is centred at the origin with outward-facing triangles, so its volume (by the divergence
//! theorem) is positive; the faces of a subdivided solid stay flat, so the hinges inside a face
//! start at rest angle 0 and those on its edges at the solid's dihedral angle, and a plastic shell
//! ([`crate::potential::Hinge::with_yield`]) crushes along both.

use super::generators::{at_least, icosahedron, not_too_many, positive, subdivide, GeneratorError};
use super::TriMesh;
use crate::math::{Compact, Real, Vec3};
use std::f64::consts::TAU;

/// The five platonic solids.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Platonic {
    /// 4 triangles.
    Tetrahedron,
    /// 6 squares (12 triangles).
    Cube,
    /// 8 triangles.
    Octahedron,
    /// 12 pentagons (each a fan of 5 triangles about its centre: 60 triangles, 32 vertices).
    Dodecahedron,
    /// 20 triangles.
    Icosahedron,
}

impl Platonic {
    /// Every solid with its name in scene files.
    pub const NAMES: [(&'static str, Platonic); 5] = [
        ("tetrahedron", Platonic::Tetrahedron),
        ("cube", Platonic::Cube),
        ("octahedron", Platonic::Octahedron),
        ("dodecahedron", Platonic::Dodecahedron),
        ("icosahedron", Platonic::Icosahedron),
    ];

    /// The solid called `name` in scene files.
    pub fn from_name(name: &str) -> Option<Self> {
        Self::NAMES.iter().find(|(n, _)| *n == name).map(|&(_, s)| s)
    }
}

/// The dodecahedron as the icosahedron's dual: a vertex at each icosahedron face's centroid, and
/// for each icosahedron vertex the pentagon of its five faces' centroids, fanned about its centre.
fn dodecahedron() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let (corners, faces) = icosahedron();
    // the centroids all lie at the icosahedron's inradius: normalised, the dodecahedron's
    // circumradius is 1 and its faces stay flat
    let mut positions: Vec<Vec3> =
        faces.iter().map(|f| f.iter().map(|&i| corners[i as usize]).sum::<Vec3>().normalize()).collect();
    let mut triangles = Vec::with_capacity(60);
    for (v, axis) in corners.iter().enumerate() {
        // the faces around vertex v, in angle order about its axis
        let (u, w) = {
            let u = axis.cross(&Vec3::z()).try_normalize(1e-9).unwrap_or_else(|| axis.cross(&Vec3::x()).normalize());
            (u, axis.cross(&u))
        };
        let mut ring: Vec<u32> = (0..faces.len() as u32).filter(|&f| faces[f as usize].contains(&(v as u32))).collect();
        ring.sort_by(|&a, &b| {
            let angle = |f: u32| {
                let d = positions[f as usize] - axis;
                d.dot(&w).atan2(d.dot(&u))
            };
            angle(a).total_cmp(&angle(b))
        });
        let centre = ring.iter().map(|&f| positions[f as usize]).sum::<Vec3>() / ring.len() as Real;
        positions.push(centre);
        let c = (positions.len() - 1) as u32;
        for k in 0..ring.len() {
            triangles.push([c, ring[k], ring[(k + 1) % ring.len()]]);
        }
    }
    (positions, triangles)
}

/// The solid's corners and faces, on or inside the unit sphere (circumradius 1), before
/// subdivision and orientation.
fn corners_and_faces(solid: Platonic) -> (Vec<Vec3>, Vec<[u32; 3]>) {
    match solid {
        Platonic::Tetrahedron => {
            let corners = [[1.0, 1.0, 1.0], [1.0, -1.0, -1.0], [-1.0, 1.0, -1.0], [-1.0, -1.0, 1.0]];
            (
                corners.iter().map(|c| Vec3::from(*c).normalize()).collect(),
                vec![[0, 1, 2], [0, 3, 1], [0, 2, 3], [1, 3, 2]],
            )
        }
        Platonic::Cube => {
            let corners: Vec<Vec3> = (0..8)
                .map(|i| {
                    let s = |bit: u32| if i & (1 << bit) != 0 { 1.0 } else { -1.0 };
                    Vec3::new(s(0), s(1), s(2)).normalize()
                })
                .collect();
            // each face: the four corners with one coordinate fixed, in cyclic order
            let quads = [[0, 2, 6, 4], [1, 5, 7, 3], [0, 4, 5, 1], [2, 3, 7, 6], [0, 1, 3, 2], [4, 6, 7, 5]];
            (corners, quads.iter().flat_map(|&[a, b, c, d]| [[a, b, c], [a, c, d]]).collect())
        }
        Platonic::Octahedron => {
            let corners = vec![Vec3::x(), -Vec3::x(), Vec3::y(), -Vec3::y(), Vec3::z(), -Vec3::z()];
            let mut faces = Vec::new();
            for z in [4, 5] {
                for (a, b) in [(0, 2), (2, 1), (1, 3), (3, 0)] {
                    faces.push([a, b, z]);
                }
            }
            (corners, faces)
        }
        Platonic::Dodecahedron => dodecahedron(),
        Platonic::Icosahedron => icosahedron(),
    }
}

/// A platonic `solid` of circumradius `radius` (m) centred at the origin, each triangle of its
/// faces split into 4 `subdivisions` times (midpoints on the flat face: the solid keeps its
/// shape), outward-facing. Vertices: tetrahedron 2·4ˢ + 2, cube 6·4ˢ + 2, octahedron 4ˢ⁺¹ + 2,
/// dodecahedron 30·4ˢ + 2, icosahedron 10·4ˢ + 2.
pub fn platonic(solid: Platonic, radius: Real, subdivisions: u32) -> Result<TriMesh, GeneratorError> {
    positive("radius", radius)?;
    if subdivisions > 6 {
        return Err(GeneratorError {
            key: "subdivisions",
            message: format!("must be at most 6 (a dodecahedron of 122 882 vertices), got {subdivisions}"),
        });
    }
    let (mut positions, mut triangles) = corners_and_faces(solid);
    for t in &mut triangles {
        // outward: the face's normal points away from the centre
        let [a, b, c] = t.map(|i| positions[i as usize]);
        if (b - a).cross(&(c - a)).dot(&(a + b + c)) < 0.0 {
            t.swap(1, 2);
        }
    }
    for _ in 0..subdivisions {
        triangles = subdivide(&mut positions, &triangles, |p| p);
    }
    for x in &mut positions {
        *x *= radius;
    }
    Ok(TriMesh { positions, triangles })
}

/// A torus about the z axis centred at the origin: its tube of radius `minor` (m) swept around a
/// circle of radius `major` (m, > `minor`), `segments` vertices around the ring and `sides`
/// around the tube (vertex `i·sides + j`: i around the ring from +x, j around the tube from the
/// outside); outward-facing. segments·sides vertices, 2·segments·sides triangles.
pub fn torus(major: Real, minor: Real, segments: u32, sides: u32) -> Result<TriMesh, GeneratorError> {
    positive("major", major)?;
    positive("minor", minor)?;
    if minor >= major {
        return Err(GeneratorError {
            key: "minor",
            message: format!(
                "must be less than `major` ({}), or the tube crosses itself, got {}",
                Compact(major),
                Compact(minor)
            ),
        });
    }
    at_least("segments", segments, 3)?;
    at_least("sides", sides, 3)?;
    not_too_many("segments", segments as u128 * sides as u128)?;
    let mut positions = Vec::with_capacity((segments * sides) as usize);
    for i in 0..segments {
        let theta = TAU * i as Real / segments as Real;
        for j in 0..sides {
            let phi = TAU * j as Real / sides as Real;
            let r = major + minor * phi.cos();
            positions.push(Vec3::new(r * theta.cos(), r * theta.sin(), minor * phi.sin()));
        }
    }
    let id = |i: u32, j: u32| (i % segments) * sides + (j % sides);
    let mut triangles = Vec::with_capacity(2 * (segments * sides) as usize);
    for i in 0..segments {
        for j in 0..sides {
            let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
            triangles.push([a, b, c]);
            triangles.push([a, c, d]);
        }
    }
    Ok(TriMesh { positions, triangles })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mesh::edges;
    use std::collections::HashMap;

    /// The enclosed volume by the divergence theorem: positive when triangles face outwards.
    fn volume(m: &TriMesh) -> Real {
        m.triangles
            .iter()
            .map(|t| {
                let [a, b, c] = t.map(|i| m.positions[i as usize]);
                a.dot(&b.cross(&c)) / 6.0
            })
            .sum()
    }

    /// Closed and manifold: every edge in exactly two triangles, Euler characteristic `chi`.
    fn closed(m: &TriMesh, chi: i64) {
        let mut uses: HashMap<(u32, u32), u32> = HashMap::new();
        for t in &m.triangles {
            for k in 0..3 {
                let (a, b) = (t[k], t[(k + 1) % 3]);
                *uses.entry((a.min(b), a.max(b))).or_default() += 1;
            }
        }
        assert!(uses.values().all(|&n| n == 2), "every edge shared by two triangles");
        let e = edges(&m.triangles).len() as i64;
        assert_eq!(m.positions.len() as i64 - e + m.triangles.len() as i64, chi);
    }

    #[test]
    fn the_platonic_solids_are_closed_outward_and_of_their_known_volumes() {
        // volumes at circumradius 1
        let known = [
            (Platonic::Tetrahedron, 8.0 / (9.0 * 3f64.sqrt()), 4),
            (Platonic::Cube, 8.0 / (3.0 * 3f64.sqrt()), 8),
            (Platonic::Octahedron, 4.0 / 3.0, 6),
            (Platonic::Dodecahedron, 2.785_163_863_123_03, 32),
            (Platonic::Icosahedron, 2.536_150_710_492_35, 12),
        ];
        for (solid, v, corners) in known {
            for s in 0..3 {
                let m = platonic(solid, 2.0, s).expect("a solid");
                closed(&m, 2);
                assert!((volume(&m) / (8.0 * v) - 1.0).abs() < 1e-9, "{solid:?} subdivided {s}: {}", volume(&m));
                if s == 0 {
                    assert_eq!(m.positions.len(), corners, "{solid:?}");
                }
                assert!(m.positions.iter().all(|p| p.norm() <= 2.0 + 1e-12), "{solid:?}: within its circumradius");
            }
        }
        assert_eq!(platonic(Platonic::Dodecahedron, 1.0, 1).unwrap().positions.len(), 122);
        assert_eq!(Platonic::from_name("cube"), Some(Platonic::Cube));
        assert!(platonic(Platonic::Cube, 0.0, 1).unwrap_err().to_string().contains("`radius`"));
        assert!(platonic(Platonic::Cube, 1.0, 7).unwrap_err().to_string().contains("`subdivisions`"));
    }

    #[test]
    fn the_torus_is_closed_outward_and_of_its_volume() {
        let m = torus(0.05, 0.02, 48, 24).expect("a torus");
        closed(&m, 0);
        assert_eq!((m.positions.len(), m.triangles.len()), (48 * 24, 2 * 48 * 24));
        // 2π²Rr² for the smooth torus; the polygon's is a little less
        let smooth = 2.0 * std::f64::consts::PI.powi(2) * 0.05 * 0.02 * 0.02;
        assert!(volume(&m) > 0.97 * smooth && volume(&m) < smooth, "{} against {smooth}", volume(&m));
        assert!(torus(0.05, 0.05, 8, 8).unwrap_err().to_string().contains("`minor`: must be less than `major`"));
        assert!(torus(0.05, 0.01, 2, 8).unwrap_err().to_string().contains("`segments`"));
    }
}
