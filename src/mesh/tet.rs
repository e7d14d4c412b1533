//! Tetrahedral meshes: storage, boundary surface, the box generator, and TetGen `.node`/`.ele`
//! input.
//!
//! TetGen's pair of text files is the tet-mesh file format: TetGen writes it directly
//! (`tetgen -pq mesh.poly`), and meshio converts from Gmsh, fTetWild, VTK and others
//! (`meshio convert in.msh out.node`), or any script can write the two short tables.

use crate::math::{Compact, Real, Vec3};
use std::collections::HashMap;
use std::fmt;
use std::path::Path;

/// A tetrahedral mesh with positively oriented tetrahedra.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TetMesh {
    /// Vertex positions, m.
    pub positions: Vec<Vec3>,
    /// Tetrahedra as indices into `positions`, each with positive signed volume.
    pub tets: Vec<[u32; 4]>,
}

impl TetMesh {
    /// Signed volume of tetrahedron `t` (positive when correctly oriented).
    pub fn signed_volume(&self, t: usize) -> Real {
        let [a, b, c, d] = self.tets[t].map(|i| self.positions[i as usize]);
        (b - a).dot(&(c - a).cross(&(d - a))) / 6.0
    }

    /// Lumped masses: each tetrahedron's mass (`density` × volume) split equally among its four
    /// vertices.
    pub fn lumped_masses(&self, density: Real) -> Vec<Real> {
        let mut masses = vec![0.0; self.positions.len()];
        for (t, tet) in self.tets.iter().enumerate() {
            let share = density * self.signed_volume(t).abs() / 4.0;
            for &i in tet {
                masses[i as usize] += share;
            }
        }
        masses
    }

    /// The boundary surface: faces that belong to exactly one tetrahedron, oriented outward, in
    /// a deterministic order.
    pub fn boundary(&self) -> Vec<[u32; 3]> {
        let mut count: HashMap<[u32; 3], (usize, [u32; 3])> = HashMap::new();
        for tet in &self.tets {
            let [a, b, c, d] = *tet;
            for face in [[a, c, b], [a, b, d], [a, d, c], [b, c, d]] {
                let mut key = face;
                key.sort_unstable();
                count.entry(key).or_insert((0, face)).0 += 1;
            }
        }
        let mut faces: Vec<[u32; 3]> = count.into_values().filter(|(n, _)| *n == 1).map(|(_, f)| f).collect();
        faces.sort_unstable();
        faces
    }
}

/// A box of `size` centred at the origin filled with `resolution = [nx, ny, nz]` cubes per
/// axis, each split into six tetrahedra around its main diagonal (a conforming Freudenthal
/// split). Bars are boxes with one long side.
pub fn box_tets(size: [Real; 3], resolution: [u32; 3]) -> Result<TetMesh, super::GeneratorError> {
    use super::GeneratorError;
    for s in size {
        if !(s.is_finite() && s > 0.0) {
            return Err(GeneratorError { key: "size", message: format!("must be finite numbers > 0, got {size:?}") });
        }
    }
    if resolution.contains(&0) {
        return Err(GeneratorError {
            key: "resolution",
            message: format!("must be at least 1 per axis, got {resolution:?}"),
        });
    }
    // in u128: the product of three u32 counts overflows u64 (and could wrap around to a small number)
    let vertices = resolution.iter().map(|&n| n as u128 + 1).product::<u128>();
    if vertices > super::MAX_VERTICES as u128 {
        return Err(GeneratorError {
            key: "resolution",
            message: format!(
                "{resolution:?} would make {vertices} vertices; at most {} are supported, use a coarser mesh",
                super::MAX_VERTICES
            ),
        });
    }
    let [nx, ny, nz] = resolution.map(|n| n as u64);
    let index = |i: u64, j: u64, k: u64| (i + (nx + 1) * (j + (ny + 1) * k)) as u32;
    let mut positions = Vec::with_capacity(((nx + 1) * (ny + 1) * (nz + 1)) as usize);
    for k in 0..=nz {
        for j in 0..=ny {
            for i in 0..=nx {
                let f = |n: u64, c: u64, s: Real| s * (c as Real / n as Real - 0.5);
                positions.push(Vec3::new(f(nx, i, size[0]), f(ny, j, size[1]), f(nz, k, size[2])));
            }
        }
    }
    let mut mesh = TetMesh { positions, tets: Vec::with_capacity((6 * nx * ny * nz) as usize) };
    let axes: [[u64; 3]; 3] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
    let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]];
    for k in 0..nz {
        for j in 0..ny {
            for i in 0..nx {
                for order in orders {
                    // path from the cube's corner (0,0,0) to (1,1,1) along the three axes in `order`
                    let mut c = [i, j, k];
                    let mut tet = [index(c[0], c[1], c[2]); 4];
                    for (step, &axis) in order.iter().enumerate() {
                        for d in 0..3 {
                            c[d] += axes[axis][d];
                        }
                        tet[step + 1] = index(c[0], c[1], c[2]);
                    }
                    mesh.tets.push(tet);
                    let t = mesh.tets.len() - 1;
                    if mesh.signed_volume(t) < 0.0 {
                        mesh.tets[t].swap(1, 2);
                    }
                }
            }
        }
    }
    Ok(mesh)
}

/// A ball of `radius` centred at the origin: the box of side 2·`radius` with `resolution` cubes
/// per axis ([`box_tets`]), each point p moved radially to p·‖p‖_∞/‖p‖₂, which maps the cube onto
/// the ball and its faces onto the sphere. Elements near the cube's corners are flatter than the
/// rest but all keep a positive volume.
pub fn ball_tets(radius: Real, resolution: u32) -> Result<TetMesh, super::GeneratorError> {
    use super::GeneratorError;
    if !(radius.is_finite() && radius > 0.0) {
        return Err(GeneratorError {
            key: "radius",
            message: format!("must be a finite number > 0, got {}", Compact(radius)),
        });
    }
    let mut mesh = box_tets([2.0 * radius; 3], [resolution; 3])?;
    for p in &mut mesh.positions {
        let euclidean = p.norm();
        if euclidean > 0.0 {
            *p *= p.amax() / euclidean;
        }
    }
    if let Some(t) = (0..mesh.tets.len()).find(|&t| mesh.signed_volume(t) <= 0.0) {
        return Err(GeneratorError {
            key: "resolution",
            message: format!("tetrahedron {t} came out flat at resolution {resolution}; use another resolution"),
        });
    }
    Ok(mesh)
}

/// Why a TetGen file pair could not be used.
#[derive(Clone, Debug, PartialEq)]
pub struct TetGenError {
    /// The file (`.node` or `.ele`).
    pub file: String,
    /// 1-based line, when the problem is on one line.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for TetGenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}: line {l}: {}", self.file, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for TetGenError {}

/// Reads a TetGen mesh from `path` (either `NAME.node` or `NAME.ele`; the other file is found
/// beside it). Indices may start at 0 or 1 (as the `.node` file's first index says); attributes
/// and boundary markers are ignored; tetrahedra with negative orientation are flipped.
pub fn read_tetgen(path: &Path) -> Result<TetMesh, TetGenError> {
    let (node, ele) = (path.with_extension("node"), path.with_extension("ele"));
    let nodes = Table::read(&node)?;
    let eles = Table::read(&ele)?;
    let (positions, first_index) = read_points(&nodes)?;
    read_tetrahedra(&eles, positions, first_index)
}

/// Parses a TetGen mesh from the texts of its `.node` and `.ele` files, as [`read_tetgen`] reads
/// them; errors name the files `NAME.node` and `NAME.ele`.
pub fn parse_tetgen(node: &str, ele: &str, name: &str) -> Result<TetMesh, TetGenError> {
    let nodes = Table::parse(format!("{name}.node"), node);
    let eles = Table::parse(format!("{name}.ele"), ele);
    let (positions, first_index) = read_points(&nodes)?;
    read_tetrahedra(&eles, positions, first_index)
}

/// The non-empty rows of one TetGen file (comments dropped), each with its 1-based line.
struct Table {
    file: String,
    rows: Vec<(usize, Vec<String>)>,
}

impl Table {
    fn read(path: &Path) -> Result<Table, TetGenError> {
        let text = std::fs::read_to_string(path).map_err(|e| TetGenError {
            file: path.display().to_string(),
            line: None,
            message: format!("cannot read it ({e}); a TetGen mesh is a NAME.node and a NAME.ele file side by side"),
        })?;
        Ok(Table::parse(path.display().to_string(), &text))
    }

    fn parse(file: String, text: &str) -> Table {
        let rows = text
            .lines()
            .enumerate()
            .map(|(k, l)| (k + 1, l.split('#').next().unwrap_or("").split_whitespace().map(String::from).collect()))
            .filter(|(_, w): &(usize, Vec<String>)| !w.is_empty())
            .collect();
        Table { file, rows }
    }

    fn err(&self, line: usize, message: String) -> TetGenError {
        TetGenError { file: self.file.clone(), line: Some(line), message }
    }

    fn num(&self, line: usize, w: &str) -> Result<f64, TetGenError> {
        w.parse::<f64>().map_err(|_| self.err(line, format!("`{w}` is not a number")))
    }

    /// Indices and counts are whole numbers (a fraction would be truncated to another point).
    fn integer(&self, line: usize, w: &str, what: &str) -> Result<i64, TetGenError> {
        w.parse::<i64>().map_err(|_| self.err(line, format!("`{w}` is not a whole number; {what} must be one")))
    }

    /// The header's count: whole, not negative, and no more than the rows that follow it.
    fn announced(&self, line: usize, w: &str, what: &str) -> Result<usize, TetGenError> {
        let rows = self.rows.len() - 1;
        let count = self.integer(line, w, "a count")?;
        if count < 0 || count as u64 > rows as u64 {
            return Err(self
                .err(line, format!("the header announces {count} {what} but the file has {rows}; correct the count")));
        }
        Ok(count as usize)
    }

    /// The header row, or an error for an empty file.
    fn header(&self) -> Result<&(usize, Vec<String>), TetGenError> {
        self.rows.first().ok_or_else(|| TetGenError {
            file: self.file.clone(),
            line: None,
            message: "the file is empty".into(),
        })
    }
}

/// The points of a `.node` file and the index its first point has (0 or 1).
fn read_points(nodes: &Table) -> Result<(Vec<Vec3>, usize), TetGenError> {
    let (hl, header) = nodes.header()?;
    if header.get(1).map(String::as_str) != Some("3") {
        return Err(nodes.err(*hl, "the header must say the points are 3D: `<count> 3 <attributes> <markers>`".into()));
    }
    let count = nodes.announced(*hl, &header[0], "points")?;
    let mut positions = Vec::with_capacity(count);
    let mut first_index = 0usize;
    for (k, (line, w)) in nodes.rows[1..=count].iter().enumerate() {
        if w.len() < 4 {
            return Err(nodes.err(*line, "a point needs `<index> <x> <y> <z>`".into()));
        }
        let index = nodes.integer(*line, &w[0], "a point's index")?;
        if k == 0 {
            if !(0..=1).contains(&index) {
                return Err(nodes.err(*line, format!("the first point is numbered {index}; number from 0 or 1")));
            }
            first_index = index as usize;
        }
        if index != (first_index + k) as i64 {
            return Err(
                nodes.err(*line, format!("points must be numbered consecutively; expected {}", first_index + k))
            );
        }
        let p = Vec3::new(nodes.num(*line, &w[1])?, nodes.num(*line, &w[2])?, nodes.num(*line, &w[3])?);
        if !p.iter().all(|c| c.is_finite()) {
            return Err(nodes.err(*line, "a NaN or infinite coordinate".into()));
        }
        positions.push(p);
    }
    Ok((positions, first_index))
}

/// The tetrahedra of an `.ele` file on `positions`, numbered from `first_index`.
fn read_tetrahedra(eles: &Table, positions: Vec<Vec3>, first_index: usize) -> Result<TetMesh, TetGenError> {
    let (hl, header) = eles.header()?;
    if header.get(1).map(String::as_str) != Some("4") {
        return Err(
            eles.err(*hl, "only linear tetrahedra are supported: the header must say 4 nodes per tetrahedron".into())
        );
    }
    let count = eles.announced(*hl, &header[0], "tetrahedra")?;
    if count == 0 {
        return Err(eles.err(*hl, "the header announces no tetrahedra; a solid needs at least one".into()));
    }
    let mut mesh = TetMesh { positions, tets: Vec::with_capacity(count) };
    // each tetrahedron's sorted points, with its line: one listed twice would count its mass twice
    let mut seen: HashMap<[u32; 4], usize> = HashMap::with_capacity(count);
    for (line, w) in &eles.rows[1..=count] {
        if w.len() < 5 {
            return Err(eles.err(*line, "a tetrahedron needs `<index> <n1> <n2> <n3> <n4>`".into()));
        }
        let mut tet = [0u32; 4];
        for (slot, word) in tet.iter_mut().zip(&w[1..5]) {
            let i = eles.integer(*line, word, "a point's index")? - first_index as i64;
            if i < 0 || i as usize >= mesh.positions.len() {
                return Err(eles.err(*line, format!("point {word} does not exist")));
            }
            *slot = i as u32;
        }
        let mut key = tet;
        key.sort_unstable();
        if let Some(first) = seen.insert(key, *line) {
            return Err(eles.err(
                *line,
                format!("this tetrahedron repeats the one on line {first} (the same four points); remove one"),
            ));
        }
        mesh.tets.push(tet);
        let t = mesh.tets.len() - 1;
        let v = mesh.signed_volume(t);
        if v == 0.0 {
            return Err(eles.err(*line, "a tetrahedron with zero volume".into()));
        }
        if v < 0.0 {
            mesh.tets[t].swap(1, 2);
        }
    }
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_fills_its_volume_with_positive_tets_and_a_closed_boundary() {
        let m = box_tets([1.0, 2.0, 0.5], [3, 4, 2]).unwrap();
        assert_eq!(m.tets.len(), 6 * 3 * 4 * 2);
        assert!((0..m.tets.len()).all(|t| m.signed_volume(t) > 0.0));
        let volume: Real = (0..m.tets.len()).map(|t| m.signed_volume(t)).sum();
        assert!((volume - 1.0).abs() < 1e-12);
        let b = m.boundary();
        // boundary of a 3×4×2 box grid: 2 triangles per boundary square
        assert_eq!(b.len(), 2 * 2 * (3 * 4 + 4 * 2 + 3 * 2));
        // closed and outward: the signed volume enclosed by the boundary is the box's
        let enclosed: Real = b
            .iter()
            .map(|f| {
                let [a, b, c] = f.map(|i| m.positions[i as usize]);
                a.dot(&b.cross(&c)) / 6.0
            })
            .sum();
        assert!((enclosed - 1.0).abs() < 1e-12, "{enclosed}");
        let total: Real = m.lumped_masses(1000.0).iter().sum();
        assert!((total - 1000.0).abs() < 1e-9);
    }

    /// Found with the scene fuzz target on an input of `u32::MAX` resolutions (docs/fuzzing.md):
    /// (2³²)³ vertices overflowed `u64` (a panic with overflow checks; without them the count
    /// wrapped around to 0 and passed).
    #[test]
    fn a_resolution_too_large_for_u64_is_refused() {
        let e = box_tets([1.0; 3], [u32::MAX; 3]).unwrap_err();
        assert_eq!(e.key, "resolution");
        assert!(e.message.contains("79228162514264337593543950336 vertices"), "{}", e.message);
        assert_eq!(ball_tets(1.0, u32::MAX).unwrap_err().key, "resolution");
    }

    #[test]
    fn ball_is_a_ball_of_positive_tets() {
        for n in [1, 2, 5, 11] {
            let m = ball_tets(0.05, n).unwrap();
            assert_eq!(m.positions.len() as u32, (n + 1).pow(3));
            assert!((0..m.tets.len()).all(|t| m.signed_volume(t) > 0.0), "resolution {n}");
            // the boundary lies on the sphere; the volume approaches 4/3 π r³ from below
            for f in m.boundary() {
                for i in f {
                    assert!((m.positions[i as usize].norm() - 0.05).abs() < 1e-15);
                }
            }
            let volume: Real = (0..m.tets.len()).map(|t| m.signed_volume(t)).sum();
            let sphere = 4.0 / 3.0 * std::f64::consts::PI * 0.05f64.powi(3);
            assert!(volume < sphere && (n < 5 || volume > 0.95 * sphere), "resolution {n}: {volume} vs {sphere}");
        }
    }

    #[test]
    fn reads_tetgen_and_reports_lines() {
        let dir = tempfile::tempdir().unwrap();
        let node = "# a unit tetrahedron\n4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n";
        std::fs::write(dir.path().join("t.node"), node).unwrap();
        std::fs::write(dir.path().join("t.ele"), "1 4 0\n1 1 3 2 4\n").unwrap();
        let m = read_tetgen(&dir.path().join("t.ele")).unwrap();
        assert_eq!(m.positions.len(), 4);
        assert!(m.signed_volume(0) > 0.0, "flipped to positive orientation");
        std::fs::write(dir.path().join("t.ele"), "1 4 0\n1 1 2 3 9\n").unwrap();
        let e = read_tetgen(&dir.path().join("t.node")).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.message.contains("9"));
        assert!(read_tetgen(&dir.path().join("missing.ele")).unwrap_err().message.contains(".node"));
    }

    #[test]
    fn parse_tetgen_reads_the_texts_as_read_tetgen_reads_the_files() {
        let node = "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n";
        let ele = "1 4 0\n1 1 3 2 4\n";
        assert_eq!(parse_tetgen(node, ele, "t"), read_pair(node, ele));
        let e = parse_tetgen(node, "1 4 0\n1 1 2 3 9\n", "block").unwrap_err();
        assert_eq!((e.file.as_str(), e.line), ("block.ele", Some(2)));
    }

    /// Writes `node` and `ele` as t.node and t.ele and reads them.
    fn read_pair(node: &str, ele: &str) -> Result<TetMesh, TetGenError> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("t.node"), node).unwrap();
        std::fs::write(dir.path().join("t.ele"), ele).unwrap();
        read_tetgen(&dir.path().join("t.node"))
    }

    #[test]
    fn counts_and_indices_must_be_whole_and_possible() {
        let node = "4 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n";
        let ele = "1 4 0\n1 1 3 2 4\n";
        assert!(read_pair(node, ele).is_ok());
        // a huge count is refused at the header, before anything is allocated for it
        for huge in ["1e20", "100000000000000000000", "18446744073709551615"] {
            let e = read_pair(&node.replacen('4', huge, 1), ele).unwrap_err();
            assert!(e.file.ends_with(".node") && e.line == Some(1), "{huge}: {e}");
        }
        let e = read_pair(node, &ele.replacen('1', "99999999999", 1)).unwrap_err();
        assert!(e.file.ends_with(".ele") && e.message.contains("announces 99999999999 tetrahedra"), "{e}");
        // a negative count is the .node file's fault, not the .ele's
        let e = read_pair(&node.replacen('4', "-4", 1), ele).unwrap_err();
        assert!(e.file.ends_with(".node") && e.line == Some(1) && e.message.contains("-4"), "{e}");
        // fractional indices would be truncated to another point
        let e = read_pair(node, "1 4 0\n1 1 3.5 2 4\n").unwrap_err();
        assert!(e.message.contains("`3.5` is not a whole number"), "{e}");
        let e = read_pair(&node.replace("2 1 0 0", "2.5 1 0 0"), ele).unwrap_err();
        assert_eq!(e.line, Some(3), "{e}");
    }

    #[test]
    fn a_tetrahedron_listed_twice_is_refused() {
        let node = "5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n";
        assert!(read_pair(node, "2 4 0\n1 1 2 3 4\n2 2 3 4 5\n").is_ok());
        // the same four points, in another order (which flips it): its mass would count twice
        let e = read_pair(node, "3 4 0\n1 1 2 3 4\n2 2 3 4 5\n3 2 1 3 4\n").unwrap_err();
        assert_eq!(e.line, Some(4));
        assert!(e.message.contains("repeats the one on line 2"), "{e}");
    }
}
