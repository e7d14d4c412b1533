//! Mesh generators of the scene format (`docs/scene-format.md`, "Meshes").
//!
//! Each returns a mesh in its own frame, centred where the doc says; scenes place it with a
//! transform. Arguments are validated here so that every caller gets the same messages.

use super::TriMesh;
use crate::math::{Compact, Real, Vec3};
use rand::{RngExt, SeedableRng};
use std::collections::HashMap;
use std::f64::consts::PI;
use std::fmt;

/// A generator argument out of range. The message names the argument and the accepted range.
#[derive(Clone, Debug, PartialEq)]
pub struct GeneratorError {
    /// The offending key, as written in a scene file.
    pub key: &'static str,
    /// What is wrong and what to use instead.
    pub message: String,
}

impl fmt::Display for GeneratorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.key, self.message)
    }
}

impl std::error::Error for GeneratorError {}

pub(super) fn positive(key: &'static str, value: Real) -> Result<(), GeneratorError> {
    if value.is_finite() && value > 0.0 {
        Ok(())
    } else {
        Err(GeneratorError { key, message: format!("must be a finite number > 0, got {}", Compact(value)) })
    }
}

/// The most vertices a generator makes: far beyond what one machine simulates, and well inside
/// `u32` vertex indices.
pub const MAX_VERTICES: u64 = 50_000_000;

/// `vertices` is computed in `u128`, where no count of `u32` parameters overflows (a product in
/// `u64` could wrap around to a small number and pass).
pub(super) fn not_too_many(key: &'static str, vertices: u128) -> Result<(), GeneratorError> {
    if vertices <= MAX_VERTICES as u128 {
        Ok(())
    } else {
        Err(GeneratorError {
            key,
            message: format!(
                "would make {vertices} vertices; at most {MAX_VERTICES} are supported, use a coarser mesh"
            ),
        })
    }
}

pub(super) fn at_least(key: &'static str, value: u32, min: u32) -> Result<(), GeneratorError> {
    if value >= min {
        Ok(())
    } else {
        Err(GeneratorError { key, message: format!("must be at least {min}, got {value}") })
    }
}

/// A rectangular sheet in the xy plane centred at the origin, `size = [x, y]` metres, with
/// `resolution = [nx, ny]` vertices along x and y (vertex `i + nx·j`). Quads are split along
/// alternating diagonals so the sheet has no preferred shear direction.
pub fn grid(size: [Real; 2], resolution: [u32; 2]) -> Result<TriMesh, GeneratorError> {
    positive("size", size[0])?;
    positive("size", size[1])?;
    at_least("resolution", resolution[0], 2)?;
    at_least("resolution", resolution[1], 2)?;
    not_too_many("resolution", resolution[0] as u128 * resolution[1] as u128)?;
    let [nx, ny] = resolution;
    let mut positions = Vec::with_capacity((nx * ny) as usize);
    for j in 0..ny {
        for i in 0..nx {
            let x = size[0] * (i as Real / (nx - 1) as Real - 0.5);
            let y = size[1] * (j as Real / (ny - 1) as Real - 0.5);
            positions.push(Vec3::new(x, y, 0.0));
        }
    }
    let mut triangles = Vec::with_capacity((2 * (nx - 1) * (ny - 1)) as usize);
    for j in 0..ny - 1 {
        for i in 0..nx - 1 {
            let a = i + nx * j;
            let (b, c, d) = (a + 1, a + nx, a + nx + 1);
            if (i + j) % 2 == 0 {
                triangles.push([a, b, d]);
                triangles.push([a, d, c]);
            } else {
                triangles.push([a, b, c]);
                triangles.push([b, d, c]);
            }
        }
    }
    Ok(TriMesh { positions, triangles })
}

/// The icosahedron's 12 vertices (on the unit sphere) and 20 outward-facing faces.
pub(super) fn icosahedron() -> (Vec<Vec3>, Vec<[u32; 3]>) {
    let p = (1.0 + 5f64.sqrt()) / 2.0;
    let corners = [
        [-1.0, p, 0.0],
        [1.0, p, 0.0],
        [-1.0, -p, 0.0],
        [1.0, -p, 0.0],
        [0.0, -1.0, p],
        [0.0, 1.0, p],
        [0.0, -1.0, -p],
        [0.0, 1.0, -p],
        [p, 0.0, -1.0],
        [p, 0.0, 1.0],
        [-p, 0.0, -1.0],
        [-p, 0.0, 1.0],
    ];
    let faces = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    (corners.iter().map(|c| Vec3::from(*c).normalize()).collect(), faces)
}

/// Splits every triangle into four at its edges' midpoints (one new vertex per edge, placed at
/// `place(midpoint)`: the midpoint itself for a flat face, projected for a sphere), appending the
/// new vertices to `positions`; returns the new triangles, oriented as the old.
pub(super) fn subdivide(
    positions: &mut Vec<Vec3>,
    triangles: &[[u32; 3]],
    place: impl Fn(Vec3) -> Vec3,
) -> Vec<[u32; 3]> {
    let mut midpoint: HashMap<(u32, u32), u32> = HashMap::new();
    let mut mid = |a: u32, b: u32, positions: &mut Vec<Vec3>| -> u32 {
        *midpoint.entry((a.min(b), a.max(b))).or_insert_with(|| {
            positions.push(place((positions[a as usize] + positions[b as usize]) * 0.5));
            (positions.len() - 1) as u32
        })
    };
    let mut next = Vec::with_capacity(triangles.len() * 4);
    for &[a, b, c] in triangles {
        let (ab, bc, ca) = (mid(a, b, positions), mid(b, c, positions), mid(c, a, positions));
        next.extend([[a, ab, ca], [b, bc, ab], [c, ca, bc], [ab, bc, ca]]);
    }
    next
}

/// A sphere of `radius` centred at the origin: an icosahedron subdivided `subdivisions` times,
/// vertices projected to the sphere (outward-facing triangles).
pub fn icosphere(radius: Real, subdivisions: u32) -> Result<TriMesh, GeneratorError> {
    positive("radius", radius)?;
    if subdivisions > 7 {
        return Err(GeneratorError {
            key: "subdivisions",
            message: format!("must be at most 7 (327 682 vertices), got {subdivisions}"),
        });
    }
    let (mut positions, mut triangles) = icosahedron();
    for _ in 0..subdivisions {
        triangles = subdivide(&mut positions, &triangles, |p| p.normalize());
    }
    for x in &mut positions {
        *x *= radius;
    }
    Ok(TriMesh { positions, triangles })
}

/// The closed surface of an axis-aligned box of `size = [x, y, z]` centred at the origin, each
/// face split into `resolution` × `resolution` quads (outward-facing triangles).
pub fn box_surface(size: [Real; 3], resolution: u32) -> Result<TriMesh, GeneratorError> {
    for s in size {
        positive("size", s)?;
    }
    at_least("resolution", resolution, 1)?;
    not_too_many("resolution", 6 * (resolution as u128 + 1).pow(2))?;
    let n = resolution;
    let half = Vec3::from(size) * 0.5;
    let mut positions: Vec<Vec3> = Vec::new();
    let mut index: HashMap<[i64; 3], u32> = HashMap::new();
    let mut triangles = Vec::new();
    // Each face: the axis it faces along, its sign, and two in-face axes (u, v) with u × v = normal.
    let faces = [(0, 1.0, 1, 2), (0, -1.0, 2, 1), (1, 1.0, 2, 0), (1, -1.0, 0, 2), (2, 1.0, 0, 1), (2, -1.0, 1, 0)];
    for (axis, sign, u, v) in faces {
        let mut id = |i: u32, j: u32| -> u32 {
            // integer lattice coordinates make shared edge vertices coincide exactly
            let mut key = [0i64; 3];
            key[axis] = if sign > 0.0 { n as i64 } else { 0 };
            key[u] = i as i64;
            key[v] = j as i64;
            *index.entry(key).or_insert_with(|| {
                let p = Vec3::from_fn(|k, _| (key[k] as Real / n as Real * 2.0 - 1.0) * half[k]);
                positions.push(p);
                (positions.len() - 1) as u32
            })
        };
        for i in 0..n {
            for j in 0..n {
                let (a, b, c, d) = (id(i, j), id(i + 1, j), id(i + 1, j + 1), id(i, j + 1));
                triangles.push([a, b, c]);
                triangles.push([a, c, d]);
            }
        }
    }
    Ok(TriMesh { positions, triangles })
}

/// A cylinder along z centred at the origin: `segments` vertices around each of `rings + 1`
/// rings evenly spaced along its `height` (vertex `r·segments + k` is ring `r`'s `k`-th, at angle
/// 2πk/segments), the quads between rings split into two triangles each; `caps` closes both ends
/// by a fan around a centre vertex (the last two vertices, bottom then top). Triangles face
/// outwards. Open (`caps = false`), it is a thin tube, such as the cylindrical shell ACM §8's
/// bowline is tied around.
pub fn cylinder(radius: Real, height: Real, segments: u32, rings: u32, caps: bool) -> Result<TriMesh, GeneratorError> {
    positive("radius", radius)?;
    positive("height", height)?;
    at_least("segments", segments, 3)?;
    at_least("rings", rings, 1)?;
    not_too_many(if rings > segments { "rings" } else { "segments" }, (rings as u128 + 1) * segments as u128 + 2)?;
    let s = segments;
    let mut positions = Vec::with_capacity(((rings + 1) * s + 2) as usize);
    for r in 0..=rings {
        let z = height * (r as Real / rings as Real - 0.5);
        for k in 0..s {
            let a = 2.0 * PI * k as Real / s as Real;
            positions.push(Vec3::new(radius * a.cos(), radius * a.sin(), z));
        }
    }
    let (bottom, top) = (positions.len() as u32, positions.len() as u32 + 1);
    if caps {
        positions.push(Vec3::new(0.0, 0.0, -0.5 * height));
        positions.push(Vec3::new(0.0, 0.0, 0.5 * height));
    }
    // column by column around, as the generator did before `rings` and `caps` existed
    let mut triangles = Vec::with_capacity(2 * (rings * s + s) as usize);
    for k in 0..s {
        let k1 = (k + 1) % s;
        for r in 0..rings {
            let (lo, hi) = (r * s, (r + 1) * s);
            triangles.push([lo + k, lo + k1, hi + k1]);
            triangles.push([lo + k, hi + k1, hi + k]);
        }
        if caps {
            let last = rings * s;
            triangles.push([bottom, k1, k]);
            triangles.push([top, last + k, last + k1]);
        }
    }
    Ok(TriMesh { positions, triangles })
}

/// A hat, open at the bottom, rotationally symmetric about z (Phantom §5's hat cascade): a flat
/// crown top of `radius` at z = `height`, a vertical crown side down to z = 0 and a flat brim
/// out to `radius + brim`. `segments` vertices around every ring and `rings` rings on each of the
/// three parts, so 1 + 3·rings·segments vertices (the apex first, then ring by ring outwards and
/// down, vertex `1 + segments·r + k`); triangles face outwards (up on the crown and the brim).
pub fn hat(radius: Real, height: Real, brim: Real, segments: u32, rings: u32) -> Result<TriMesh, GeneratorError> {
    positive("radius", radius)?;
    positive("height", height)?;
    positive("brim", brim)?;
    at_least("segments", segments, 3)?;
    at_least("rings", rings, 1)?;
    not_too_many("segments", 1 + 3 * rings as u128 * segments as u128)?;
    // the profile (r, z) of every ring, from the apex outwards
    let n = rings as Real;
    let mut profile = Vec::with_capacity(3 * rings as usize);
    profile.extend((1..=rings).map(|j| (radius * j as Real / n, height)));
    profile.extend((1..=rings).map(|j| (radius, height * (1.0 - j as Real / n))));
    profile.extend((1..=rings).map(|j| (radius + brim * j as Real / n, 0.0)));
    let s = segments;
    let mut positions = vec![Vec3::new(0.0, 0.0, height)];
    for &(r, z) in &profile {
        for k in 0..s {
            let a = 2.0 * PI * k as Real / s as Real;
            positions.push(Vec3::new(r * a.cos(), r * a.sin(), z));
        }
    }
    let ring = |r: u32, k: u32| 1 + s * r + k % s;
    let mut triangles = Vec::with_capacity((2 * profile.len() - 1) * s as usize);
    for k in 0..s {
        triangles.push([0, ring(0, k), ring(0, k + 1)]);
    }
    for r in 0..profile.len() as u32 - 1 {
        for k in 0..s {
            let (a, b, c, d) = (ring(r, k), ring(r + 1, k), ring(r + 1, k + 1), ring(r, k + 1));
            // alternate the diagonals so the hat has no preferred shear direction
            if (r + k) % 2 == 0 {
                triangles.push([a, b, c]);
                triangles.push([a, c, d]);
            } else {
                triangles.push([a, b, d]);
                triangles.push([b, c, d]);
            }
        }
    }
    Ok(TriMesh { positions, triangles })
}

/// The spiked plate of report §8.6: a square plate of side `size` in the xy plane (two triangles,
/// centred, facing +z) with `count × count` spikes standing on it in a regular array. Each spike is
/// an open hexagonal pyramid with its apex at `height` whose six side triangles have an apex angle
/// of `apex_deg` degrees (the report's 3.47° slivers); its base radius follows from that angle. The
/// base ring stands a thousandth of the height above the plate, so the obstacle does not touch
/// itself (`avicontact check` tests every triangle pair of a frame).
pub fn spikes(size: Real, count: u32, height: Real, apex_deg: Real) -> Result<TriMesh, GeneratorError> {
    positive("size", size)?;
    positive("height", height)?;
    at_least("count", count, 1)?;
    not_too_many("count", 4 + 7 * (count as u128) * (count as u128))?;
    if !(apex_deg > 0.0 && apex_deg < 60.0) {
        return Err(GeneratorError {
            key: "apex_deg",
            message: format!("must be in (0, 60) degrees, got {}; the report's spikes use 3.47", Compact(apex_deg)),
        });
    }
    // a side triangle has base R (the hexagon's side) and slant height s = √(h² + (R·cos 30°)²),
    // so tan(apex/2) = R / (2s); solve for R by fixed-point iteration (it contracts quickly)
    let lift = 1e-3 * height;
    let rise = height - lift;
    let half = (apex_deg.to_radians() * 0.5).tan();
    let mut radius = 2.0 * rise * half;
    for _ in 0..50 {
        let slant = (rise * rise + (radius * 0.75f64.sqrt()).powi(2)).sqrt();
        radius = 2.0 * slant * half;
    }
    let pitch = size / count as Real;
    if 2.0 * radius >= pitch {
        return Err(GeneratorError {
            key: "count",
            message: format!(
                "spikes of base radius {radius:.4} m overlap at a pitch of {pitch:.4} m; use fewer or thinner spikes"
            ),
        });
    }
    let h = 0.5 * size;
    let mut positions =
        vec![Vec3::new(-h, -h, 0.0), Vec3::new(h, -h, 0.0), Vec3::new(h, h, 0.0), Vec3::new(-h, h, 0.0)];
    let mut triangles = vec![[0, 1, 2], [0, 2, 3]];
    for i in 0..count {
        for j in 0..count {
            let centre = Vec3::new(-h + (i as Real + 0.5) * pitch, -h + (j as Real + 0.5) * pitch, 0.0);
            let base = positions.len() as u32;
            for k in 0..6 {
                let a = PI / 3.0 * k as Real;
                positions.push(centre + Vec3::new(radius * a.cos(), radius * a.sin(), lift));
            }
            positions.push(centre + Vec3::new(0.0, 0.0, height));
            for k in 0..6 {
                triangles.push([base + k, base + (k + 1) % 6, base + 6]);
            }
        }
    }
    Ok(TriMesh { positions, triangles })
}

/// A strip of `width` swept along the polyline `path`, resampled into `segments` pieces of equal
/// arc length: vertices `2k` and `2k + 1` are the two sides at sample `k`. The side direction is
/// carried along the path by parallel transport, so a straight path gives a flat strip. The
/// two-across case of [`sweep`].
pub fn ribbon(width: Real, segments: u32, path: &[Vec3]) -> Result<TriMesh, GeneratorError> {
    sweep(&Sweep { width, segments, ..Sweep::default() }, path)
}

/// How a strip is swept along a centre line: the `ribbon` and `knot` generators' shared keys.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sweep {
    /// The strip's width, m (> 0).
    pub width: Real,
    /// Pieces of equal arc length along the centre line (≥ 1).
    pub segments: u32,
    /// Vertices across the width (≥ 2), evenly spaced from one side to the other.
    pub across: u32,
    /// Twist of the side direction about the centre line from the first sample to the last,
    /// degrees (finite; positive turns right-handed about the tangent), spread evenly over the
    /// arc length.
    pub twist_deg: Real,
}

impl Default for Sweep {
    /// Today's ribbon: two vertices across and no twist (width 1 cm, 10 segments).
    fn default() -> Self {
        Sweep { width: 0.01, segments: 10, across: 2, twist_deg: 0.0 }
    }
}

/// A strip swept along the polyline `path` (resampled into `sweep.segments` pieces of equal arc
/// length, so `segments + 1` samples). Vertex `k·across + j` is sample `k`'s `j`-th vertex across,
/// at centre + side·width·(j/(across − 1) − ½). Each quad between samples `k`, `k + 1` and columns
/// `j`, `j + 1`, with corners `a = k·across + j`, `b = a + 1`, `c = a + across`, `d = c + 1`, is
/// split along its diagonal `b`–`c` into `[a, c, b]` and `[b, c, d]`, so every triangle faces the
/// same side.
///
/// The side direction is a rotation-minimising frame (discrete parallel transport: at each sample
/// the side is turned by the rotation that takes the previous tangent to the next), so the strip
/// does not flip and a straight path gives a flat strip; it starts as +z × (first tangent), or
/// +x × (first tangent) when the path starts along z, then turns by `twist_deg` in proportion to
/// arc length.
pub fn sweep(sweep: &Sweep, path: &[Vec3]) -> Result<TriMesh, GeneratorError> {
    let Sweep { width, segments, across, twist_deg } = *sweep;
    positive("width", width)?;
    at_least("segments", segments, 1)?;
    at_least("across", across, 2)?;
    not_too_many("segments", across as u128 * (segments as u128 + 1))?;
    if !twist_deg.is_finite() {
        return Err(GeneratorError {
            key: "twist",
            message: format!("must be a finite number of degrees, got {}", Compact(twist_deg)),
        });
    }
    let centre = resample(path, segments)?;
    let tangent = |k: usize| -> Vec3 {
        let (a, b) = if k + 1 < centre.len() { (k, k + 1) } else { (k - 1, k) };
        (centre[b] - centre[a]).normalize()
    };
    // initial side: perpendicular to the first tangent, as close to +z × tangent as possible
    let t0 = tangent(0);
    let mut side = Vec3::z().cross(&t0);
    if side.norm() < 1e-6 {
        side = Vec3::x().cross(&t0);
    }
    let mut side = side.normalize();
    let mut positions = Vec::with_capacity(across as usize * centre.len());
    let mut previous = t0;
    for (k, c) in centre.iter().enumerate() {
        let t = tangent(k);
        // parallel transport: rotate `side` by the rotation taking `previous` to `t`
        let axis = previous.cross(&t);
        if axis.norm() > 1e-12 {
            let angle = previous.dot(&t).clamp(-1.0, 1.0).acos();
            let r = nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(axis), angle);
            side = (r * side).normalize();
        }
        previous = t;
        // the twist turns the transported frame, never the frame carried on (no accumulation)
        let turned = if twist_deg == 0.0 {
            side
        } else {
            let angle = twist_deg.to_radians() * k as Real / segments as Real;
            nalgebra::Rotation3::from_axis_angle(&nalgebra::Unit::new_normalize(t), angle) * side
        };
        if across == 2 {
            // today's two-across ribbon, bit for bit
            positions.push(c - turned * (0.5 * width));
            positions.push(c + turned * (0.5 * width));
        } else {
            for j in 0..across {
                positions.push(c + turned * (width * (j as Real / (across - 1) as Real - 0.5)));
            }
        }
    }
    let mut triangles = Vec::with_capacity(2 * (across as usize - 1) * segments as usize);
    for k in 0..segments {
        for j in 0..across - 1 {
            let a = k * across + j;
            let (b, c) = (a + 1, a + across);
            let d = c + 1;
            triangles.push([a, c, b]);
            triangles.push([b, c, d]);
        }
    }
    Ok(TriMesh { positions, triangles })
}

/// `segments + 1` points evenly spaced from `start` to `end`: the vertices of a chain.
pub fn line(start: Vec3, end: Vec3, segments: u32) -> Result<Vec<Vec3>, GeneratorError> {
    at_least("segments", segments, 1)?;
    not_too_many("segments", segments as u128 + 1)?;
    // compared exactly: a line too short or too long for f64 is the scene's size check's to name
    if end == start {
        return Err(GeneratorError { key: "end", message: "must differ from `start`".into() });
    }
    Ok((0..=segments).map(|k| start + (end - start) * (k as Real / segments as Real)).collect())
}

/// `count` points on the coarsest regular lattice of the box [lo, hi] with at least `count`
/// sites (filled in x, then y, then z order), with seeded random velocities of uniform direction
/// and speed uniform in [0, max_speed] from a PCG generator seeded with `seed` (portable: the
/// same seed gives the same particles on every platform).
pub fn lattice(
    lo: Vec3,
    hi: Vec3,
    count: u32,
    seed: u64,
    max_speed: Real,
) -> Result<(Vec<Vec3>, Vec<Vec3>), GeneratorError> {
    not_too_many("count", count as u128)?;
    if count > 1 && (hi - lo).iter().all(|e| *e <= 0.0) {
        return Err(GeneratorError {
            key: "max",
            message: "equals `min`: all particles would sit at one point".into(),
        });
    }
    let extent = hi - lo;
    let volume_per_point = extent.iter().map(|e| e.max(1e-12)).product::<Real>() / count as Real;
    let spacing = volume_per_point.cbrt();
    // no axis needs more sites than `count` (a box flat along two axes makes e / spacing huge)
    let mut n = extent.map(|e| ((e / spacing).floor().min(count as Real) as u32).saturating_add(1));
    while (n.x as u128) * (n.y as u128) * (n.z as u128) < count as u128 {
        let k = (0..3).max_by(|&a, &b| (extent[a] / n[a] as Real).total_cmp(&(extent[b] / n[b] as Real))).unwrap_or(0);
        n[k] += 1;
    }
    let coord = |k: usize, i: u32| {
        if n[k] > 1 {
            lo[k] + extent[k] * i as Real / (n[k] - 1) as Real
        } else {
            0.5 * (lo[k] + hi[k])
        }
    };
    let mut rng = rand_pcg::Pcg64::seed_from_u64(seed);
    let mut points = Vec::with_capacity(count as usize);
    let mut velocities = Vec::with_capacity(count as usize);
    'fill: for k in 0..n.z {
        for j in 0..n.y {
            for i in 0..n.x {
                if points.len() == count as usize {
                    break 'fill;
                }
                points.push(Vec3::new(coord(0, i), coord(1, j), coord(2, k)));
                let z: Real = rng.random_range(-1.0..=1.0);
                let phi: Real = rng.random_range(0.0..std::f64::consts::TAU);
                let r = (1.0 - z * z).max(0.0).sqrt();
                let speed: Real = if max_speed > 0.0 { rng.random_range(0.0..=max_speed) } else { 0.0 };
                velocities.push(Vec3::new(r * phi.cos(), r * phi.sin(), z) * speed);
            }
        }
    }
    Ok((points, velocities))
}

/// Resamples a polyline into `segments` pieces of equal arc length.
fn resample(path: &[Vec3], segments: u32) -> Result<Vec<Vec3>, GeneratorError> {
    if path.len() < 2 {
        return Err(GeneratorError { key: "path", message: "needs at least two points".into() });
    }
    let lengths: Vec<Real> = path.windows(2).map(|w| (w[1] - w[0]).norm()).collect();
    if lengths.iter().any(|&l| l.is_nan() || l <= 0.0) {
        return Err(GeneratorError { key: "path", message: "has two equal consecutive points".into() });
    }
    let total: Real = lengths.iter().sum();
    let mut out = Vec::with_capacity(segments as usize + 1);
    let (mut piece, mut start) = (0usize, 0.0);
    for k in 0..=segments {
        let s = total * k as Real / segments as Real;
        while piece + 1 < lengths.len() && s > start + lengths[piece] {
            start += lengths[piece];
            piece += 1;
        }
        let f = ((s - start) / lengths[piece]).clamp(0.0, 1.0);
        out.push(path[piece] + (path[piece + 1] - path[piece]) * f);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    #[test]
    fn spikes_are_slivers_with_the_reports_apex_angle() {
        let m = spikes(0.2, 6, 0.078, 3.47).unwrap();
        assert_eq!(m.positions.len(), 4 + 36 * 7);
        assert_eq!(m.triangles.len(), 2 + 36 * 6);
        for t in &m.triangles[2..] {
            let [b0, b1, apex] = t.map(|i| m.positions[i as usize]);
            let (u, v) = (b0 - apex, b1 - apex);
            let angle = (u.dot(&v) / (u.norm() * v.norm())).acos().to_degrees();
            assert!((angle - 3.47).abs() < 1e-9, "apex angle {angle}");
            assert!((apex.z - 0.078).abs() < 1e-12);
        }
        assert!(spikes(0.2, 60, 0.078, 3.47).is_err(), "spikes too dense to fit");
        assert!(spikes(0.2, 6, 0.078, 0.0).is_err());
    }

    use super::*;

    #[test]
    fn a_lattice_box_far_longer_on_one_axis_than_it_has_particles_fills_without_overflow() {
        // once a fuzzed scene's box: 1.8e20 m along x, 1 m along y, 0.5 m along z
        let (lo, hi) = (Vec3::new(-0.5, -0.5, 0.1), Vec3::new(1.8e20, 0.5, 0.6));
        let (points, velocities) = lattice(lo, hi, 200, 7, 1.0).unwrap();
        assert_eq!((points.len(), velocities.len()), (200, 200));
        assert!(points.iter().all(|p| (0..3).all(|k| p[k] >= lo[k] && p[k] <= hi[k])), "{points:?}");
    }

    #[test]
    fn a_hat_is_a_manifold_open_at_the_bottom_facing_outwards() {
        let m = hat(0.06, 0.05, 0.04, 15, 2).unwrap();
        assert_eq!(m.positions.len(), 1 + 3 * 2 * 15);
        let mut edges: HashMap<(u32, u32), u32> = HashMap::new();
        for t in &m.triangles {
            for e in 0..3 {
                let (a, b) = (t[e], t[(e + 1) % 3]);
                *edges.entry((a.min(b), a.max(b))).or_default() += 1;
            }
            // outwards: away from the axis, or up on the flat parts
            let [a, b, c] = t.map(|i| m.positions[i as usize]);
            let n = (b - a).cross(&(c - a));
            let centre = (a + b + c) / 3.0;
            assert!(n.z > 1e-12 || Vec3::new(centre.x, centre.y, 0.0).dot(&n) > 1e-12, "{t:?} faces inwards");
        }
        let boundary = edges.values().filter(|&&k| k == 1).count();
        assert!(edges.values().all(|&k| k <= 2));
        assert_eq!(boundary, 15, "the only boundary is the brim's rim");
        assert!(hat(0.06, 0.05, 0.0, 15, 2).is_err());
        assert!(hat(0.06, 0.05, 0.04, 15, 0).is_err());
    }
    use crate::mesh::{edges, hinges};

    /// Euler characteristic V − E + F of a mesh.
    fn euler(m: &TriMesh) -> i64 {
        m.positions.len() as i64 - edges(&m.triangles).len() as i64 + m.triangles.len() as i64
    }

    #[test]
    fn closed_generators_are_spheres_with_outward_normals() {
        for m in [
            icosphere(1.0, 2).unwrap(),
            box_surface([1.0, 2.0, 3.0], 3).unwrap(),
            cylinder(1.0, 2.0, 12, 1, true).unwrap(),
            cylinder(1.0, 2.0, 12, 3, true).unwrap(),
        ] {
            assert_eq!(euler(&m), 2, "closed genus-0 surface");
            let centroid: Vec3 = m.positions.iter().sum::<Vec3>() / m.positions.len() as Real;
            let volume: Real = m
                .triangles
                .iter()
                .map(|t| {
                    let [a, b, c] = t.map(|i| m.positions[i as usize] - centroid);
                    a.dot(&b.cross(&c)) / 6.0
                })
                .sum();
            assert!(volume > 0.0, "outward orientation gives positive signed volume");
            assert_eq!(hinges(&m.triangles).len(), edges(&m.triangles).len(), "every edge has a hinge");
            assert!(m.find_degenerate_triangle(1e-9).is_none());
        }
    }

    #[test]
    fn grid_and_ribbon_have_expected_counts() {
        let g = grid([1.0, 1.0], [4, 3]).unwrap();
        assert_eq!((g.positions.len(), g.triangles.len()), (12, 12));
        assert_eq!(euler(&g), 1);
        let path = [Vec3::zeros(), Vec3::new(1.0, 0.0, 0.0), Vec3::new(1.0, 1.0, 0.0)];
        let r = ribbon(0.1, 10, &path).unwrap();
        assert_eq!((r.positions.len(), r.triangles.len()), (22, 20));
        assert!(r.find_degenerate_triangle(1e-9).is_none());
    }

    #[test]
    fn a_ribbon_of_any_width_count_is_one_consistently_oriented_strip() {
        let path = [Vec3::zeros(), Vec3::new(0.5, 0.0, 0.0), Vec3::new(1.0, 0.0, 0.0)];
        for across in [2, 3, 5] {
            let m = sweep(&Sweep { width: 0.2, segments: 4, across, twist_deg: 0.0 }, &path).unwrap();
            let n = across as usize;
            assert_eq!(m.positions.len(), 5 * n);
            assert_eq!(m.triangles.len(), 2 * 4 * (n - 1));
            assert_eq!(euler(&m), 1, "a disc");
            // vertex k·across + j: sample k along x, evenly across y from −w/2 to +w/2 (side = z × x)
            for k in 0..5 {
                for j in 0..n {
                    let expected = Vec3::new(0.25 * k as Real, 0.2 * (j as Real / (n - 1) as Real - 0.5), 0.0);
                    assert!((m.positions[k * n + j] - expected).norm() < 1e-12, "vertex ({k}, {j})");
                }
            }
            // every triangle faces the same way, and every edge is used once in each direction at most
            let up = |t: &[u32; 3]| {
                let [a, b, c] = t.map(|i| m.positions[i as usize]);
                (b - a).cross(&(c - a)).z > 0.0
            };
            let first = up(&m.triangles[0]);
            assert!(m.triangles.iter().all(|t| up(t) == first), "one orientation");
            let mut directed = std::collections::HashSet::new();
            for t in &m.triangles {
                for e in 0..3 {
                    assert!(
                        directed.insert((t[e], t[(e + 1) % 3])),
                        "edge {:?} twice in one direction",
                        (t[e], t[(e + 1) % 3])
                    );
                }
            }
            assert_eq!(hinges(&m.triangles).len(), edges(&m.triangles).len() - (2 * 4 + 2 * (n - 1)), "interior edges");
        }
        // two across is the ribbon of before, triangle for triangle
        let two = sweep(&Sweep { width: 0.2, segments: 4, across: 2, twist_deg: 0.0 }, &path).unwrap();
        assert_eq!(two, ribbon(0.2, 4, &path).unwrap());
        assert_eq!(&two.triangles[..2], &[[0, 2, 1], [1, 2, 3]]);
    }

    #[test]
    fn the_frame_is_transported_without_flips_and_twists_on_request() {
        // a helix: the side turns with the curve but never jumps
        let helix: Vec<Vec3> = (0..=200)
            .map(|k| {
                let t = 6.0 * PI * k as Real / 200.0;
                Vec3::new(t.cos(), t.sin(), 0.3 * t)
            })
            .collect();
        let m = sweep(&Sweep { width: 0.1, segments: 150, across: 3, twist_deg: 0.0 }, &helix).unwrap();
        let side = |k: usize| (m.positions[3 * k + 2] - m.positions[3 * k]).normalize();
        for k in 0..150 {
            assert!(side(k).dot(&side(k + 1)) > 0.99, "the side flips at sample {k}");
        }
        // a straight strip with a quarter twist ends with its side along z
        let straight = [Vec3::zeros(), Vec3::x()];
        let m = sweep(&Sweep { width: 0.1, segments: 10, across: 4, twist_deg: 90.0 }, &straight).unwrap();
        let last = (m.positions[43] - m.positions[40]).normalize();
        assert!((last - Vec3::z()).norm() < 1e-9, "{last}");
        let halfway = (m.positions[23] - m.positions[20]).normalize();
        assert!((halfway.dot(&Vec3::y()) - (PI / 4.0).cos()).abs() < 1e-9);
        assert_eq!(sweep(&Sweep { twist_deg: Real::NAN, ..Sweep::default() }, &straight).unwrap_err().key, "twist");
        assert_eq!(sweep(&Sweep { across: 1, ..Sweep::default() }, &straight).unwrap_err().key, "across");
        let huge = Sweep { across: u32::MAX, segments: u32::MAX, ..Sweep::default() };
        assert_eq!(sweep(&huge, &straight).unwrap_err().key, "segments");
    }

    #[test]
    fn an_open_cylinder_is_a_tube_of_rings_facing_outwards() {
        let m = cylinder(0.5, 2.0, 46, 28, false).unwrap();
        assert_eq!(m.positions.len(), 29 * 46, "ACM's bowline cylinder: 1 334 vertices");
        assert_eq!(euler(&m), 0, "a tube is an annulus");
        for t in &m.triangles {
            let [a, b, c] = t.map(|i| m.positions[i as usize]);
            let centre = (a + b + c) / 3.0;
            let n = (b - a).cross(&(c - a));
            assert!(Vec3::new(centre.x, centre.y, 0.0).dot(&n) > 0.0, "{t:?} faces inwards");
        }
        let z: Vec<Real> = m.positions.iter().map(|p| p.z).collect();
        assert_eq!((z[0], z[28 * 46]), (-1.0, 1.0));
        assert_eq!(cylinder(0.5, 2.0, 46, 0, false).unwrap_err().key, "rings");
        // the defaults (one ring of pieces, caps) give the mesh of the generator before the two
        // keys existed, triangle for triangle (its list for four segments)
        let old = cylinder(1.0, 2.0, 4, 1, true).unwrap();
        let expected: Vec<[u32; 3]> = (0..4u32)
            .flat_map(|k| {
                let k1 = (k + 1) % 4;
                [[k, k1, 4 + k1], [k, 4 + k1, 4 + k], [8, k1, k], [9, 4 + k, 4 + k1]]
            })
            .collect();
        assert_eq!(old.triangles, expected);
        assert_eq!(old.positions.len(), 10);
        assert_eq!((old.positions[8].z, old.positions[9].z, old.positions[5].z), (-1.0, 1.0, 1.0));
    }

    #[test]
    fn bad_arguments_name_their_key() {
        assert_eq!(grid([1.0, -1.0], [3, 3]).unwrap_err().key, "size");
        assert_eq!(grid([1.0, 1.0], [1, 3]).unwrap_err().key, "resolution");
        assert_eq!(icosphere(f64::NAN, 1).unwrap_err().key, "radius");
        assert_eq!(ribbon(0.1, 4, &[Vec3::zeros()]).unwrap_err().key, "path");
        assert_eq!(line(Vec3::zeros(), Vec3::zeros(), 3).unwrap_err().key, "end");
        assert_eq!(grid([1.0, 1.0], [u32::MAX, u32::MAX]).unwrap_err().key, "resolution");
        assert_eq!(cylinder(1.0, 1.0, u32::MAX, 1, true).unwrap_err().key, "segments");
        assert_eq!(box_surface([1.0; 3], 100_000).unwrap_err().key, "resolution");
    }

    /// Found with the scene fuzz target on an input of `u32::MAX` resolutions (docs/fuzzing.md):
    /// vertex counts of large `u32` parameters overflowed `u64` (6·(2³²)² wraps around to 0), a
    /// panic with overflow checks and a count that passed the limit without them.
    #[test]
    fn vertex_counts_of_the_largest_parameters_do_not_overflow() {
        assert_eq!(box_surface([1.0; 3], u32::MAX).unwrap_err().key, "resolution");
        assert_eq!(spikes(0.2, u32::MAX, 0.078, 3.47).unwrap_err().key, "count");
        assert_eq!(ribbon(0.1, u32::MAX, &[Vec3::zeros(), Vec3::x()]).unwrap_err().key, "segments");
        assert_eq!(line(Vec3::zeros(), Vec3::x(), u32::MAX).unwrap_err().key, "segments");
    }
}
