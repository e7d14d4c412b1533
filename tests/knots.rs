//! A knot that stays tied (issue 22): runs the built-in scene `overhand-knot` (and a small reef
//! knot of two ribbons) through the binary, reads every written frame back, and computes a knot
//! invariant of the ribbons' centre lines, the knot determinant, which must be 3 (the trefoil's;
//! 9, the square knot's, for the reef knot closed up) on every frame. Also: `avicontact check`
//! passes every frame (law 1), `dissipated` never decreases (law 3), and the knot tightens.
//!
//! Everything after the run is written here, from the files: the centre line (the mean of each
//! cross-section's vertices), its closure far outside, the planar projection, its crossings and the
//! colouring matrix. It shares no code with the simulator.

mod common;

use common::irregular::{irregular_knot, obj, Irregular, IrregularMesh};
use std::path::{Path, PathBuf};
use std::process::Command;

type P3 = [f64; 3];

fn sub(a: P3, b: P3) -> P3 {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}
fn add(a: P3, b: P3) -> P3 {
    [a[0] + b[0], a[1] + b[1], a[2] + b[2]]
}
fn scale(a: P3, s: f64) -> P3 {
    [a[0] * s, a[1] * s, a[2] * s]
}
fn dot(a: P3, b: P3) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}
fn cross(a: P3, b: P3) -> P3 {
    [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
}
fn norm(a: P3) -> f64 {
    dot(a, a).sqrt()
}
fn unit(a: P3) -> P3 {
    scale(a, 1.0 / norm(a))
}

/// The scene's vertices across the ribbon, read from its text (`across = N` of its mesh).
fn across(scene: &str) -> usize {
    let at = scene.find("across = ").expect("the knot scene states `across`") + "across = ".len();
    scene[at..].chars().take_while(char::is_ascii_digit).collect::<String>().parse().unwrap()
}

/// The vertices of object `name` in an OBJ frame.
fn read_object(path: &Path, name: &str) -> Vec<P3> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut inside = false;
    let mut out = Vec::new();
    for line in text.lines() {
        let mut w = line.split_whitespace();
        match w.next() {
            Some("o") => inside = w.next() == Some(name),
            Some("v") if inside => {
                let c: Vec<f64> = w.map(|t| t.parse().unwrap()).collect();
                out.push([c[0], c[1], c[2]]);
            }
            _ => {}
        }
    }
    out
}

/// The ribbon's centre line: the mean of each cross-section's `across` vertices.
fn centre_line(vertices: &[P3], across: usize) -> Vec<P3> {
    assert_eq!(vertices.len() % across, 0, "whole cross-sections");
    vertices.chunks(across).map(|s| scale(s.iter().fold([0.0; 3], |a, p| add(a, *p)), 1.0 / across as f64)).collect()
}

/// The open curve closed far outside: each end led radially out from the centroid to a sphere ten
/// times the curve's radius, the two points joined along great circles of that sphere (through a
/// point a quarter turn from the first, so that no arc is between antipodes). Any path on the
/// sphere gives the same knot: the curve lies inside it.
fn close_far_outside(curve: &[P3]) -> Vec<P3> {
    let c = scale(curve.iter().fold([0.0; 3], |a, p| add(a, *p)), 1.0 / curve.len() as f64);
    let radius = 10.0 * curve.iter().map(|p| norm(sub(*p, c))).fold(0.0, f64::max);
    let a = unit(sub(curve[0], c));
    let b = unit(sub(curve[curve.len() - 1], c));
    let up = if cross(a, [0.0, 0.0, 1.0]).iter().any(|x| x.abs() > 0.1) { [0.0, 0.0, 1.0] } else { [0.0, 1.0, 0.0] };
    let mid = unit(sub(up, scale(a, dot(up, a))));
    let slerp = |u: P3, v: P3, s: f64| -> P3 {
        let angle = dot(u, v).clamp(-1.0, 1.0).acos();
        if angle < 1e-9 {
            return u;
        }
        add(scale(u, ((1.0 - s) * angle).sin() / angle.sin()), scale(v, (s * angle).sin() / angle.sin()))
    };
    let mut closed = curve.to_vec();
    let steps = 24;
    for (u, v) in [(b, mid), (mid, a)] {
        for k in 0..=steps {
            closed.push(add(c, scale(slerp(u, v, k as f64 / steps as f64), radius)));
        }
    }
    closed // the last point is radius·a out from the first: the polygon closes back to curve[0]
}

/// The knot determinant of a closed polygon: |det| of the colouring matrix of its projection
/// along a generic direction with one row and one column struck out (1 for the unknot, 3 for the
/// trefoil). Crossings are found segment against segment in the plane; the over strand is the one
/// higher along the direction.
fn knot_determinant(polygon: &[P3]) -> i128 {
    knot_determinant_and_crossings(polygon).0
}

/// [`knot_determinant`] and the number of crossings of the projection.
fn knot_determinant_and_crossings(polygon: &[P3]) -> (i128, usize) {
    let n = polygon.len();
    let d = unit([0.0123, 0.0371, 1.0]);
    let e1 = unit(cross(d, [1.0, 0.0, 0.0]));
    let e2 = cross(d, e1);
    let flat: Vec<(f64, f64, f64)> = polygon.iter().map(|p| (dot(*p, e1), dot(*p, e2), dot(*p, d))).collect();
    // (position of the under point along the polygon, position of the over point)
    let mut crossings: Vec<(f64, f64)> = Vec::new();
    for i in 0..n {
        for j in i + 2..n {
            if i == 0 && j == n - 1 {
                continue; // neighbours across the closing segment
            }
            let (p, q) = (flat[i], flat[(i + 1) % n]);
            let (r, s) = (flat[j], flat[(j + 1) % n]);
            let (ux, uy, vx, vy) = (q.0 - p.0, q.1 - p.1, s.0 - r.0, s.1 - r.1);
            let den = ux * vy - uy * vx;
            if den == 0.0 {
                continue;
            }
            let (wx, wy) = (r.0 - p.0, r.1 - p.1);
            let a = (wx * vy - wy * vx) / den;
            let b = (wx * uy - wy * ux) / den;
            if (0.0..1.0).contains(&a) && (0.0..1.0).contains(&b) {
                let (ha, hb) = (p.2 + a * (q.2 - p.2), r.2 + b * (s.2 - r.2));
                assert!((ha - hb).abs() > 1e-9, "the strands meet in space at a crossing");
                let (pa, pb) = (i as f64 + a, j as f64 + b);
                crossings.push(if ha < hb { (pa, pb) } else { (pb, pa) });
            }
        }
    }
    let m = crossings.len();
    if m < 2 {
        return (1, m);
    }
    let mut unders: Vec<f64> = crossings.iter().map(|c| c.0).collect();
    unders.sort_by(f64::total_cmp);
    // arc k runs from under-crossing k to under-crossing k + 1 (cyclically)
    let arc = |pos: f64| -> usize { (unders.iter().filter(|u| **u <= pos).count() + m - 1) % m };
    let mut matrix = vec![vec![0i128; m]; m];
    for (row, &(under, over)) in crossings.iter().enumerate() {
        let k = unders.iter().position(|u| *u == under).unwrap();
        matrix[row][arc(over)] += 2;
        matrix[row][k] -= 1; // the arc that starts here
        matrix[row][(k + m - 1) % m] -= 1; // the arc that ends here
    }
    let minor = matrix.into_iter().take(m - 1).map(|r| r.into_iter().take(m - 1).collect()).collect();
    (bareiss_determinant(minor).abs(), m)
}

/// The determinant of an integer matrix by fraction-free (Bareiss) elimination: exact.
fn bareiss_determinant(mut a: Vec<Vec<i128>>) -> i128 {
    let n = a.len();
    let (mut sign, mut previous) = (1i128, 1i128);
    for k in 0..n {
        if a[k][k] == 0 {
            let Some(swap) = (k + 1..n).find(|&i| a[i][k] != 0) else { return 0 };
            a.swap(k, swap);
            sign = -sign;
        }
        for i in k + 1..n {
            for j in k + 1..n {
                a[i][j] = (a[i][j] * a[k][k] - a[i][k] * a[k][j]) / previous;
            }
            a[i][k] = 0;
        }
        previous = a[k][k];
    }
    if n == 0 {
        1
    } else {
        sign * a[n - 1][n - 1]
    }
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("avicontact-knots-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn the_determinant_tells_the_trefoil_from_the_unknot() {
    // the standard trefoil, sampled, and a circle
    let trefoil: Vec<P3> = (0..120)
        .map(|k| {
            let t = std::f64::consts::TAU * k as f64 / 120.0;
            [t.sin() + 2.0 * (2.0 * t).sin(), t.cos() - 2.0 * (2.0 * t).cos(), -(3.0 * t).sin()]
        })
        .collect();
    assert_eq!(knot_determinant(&trefoil), 3);
    let circle: Vec<P3> = (0..60)
        .map(|k| {
            let t = std::f64::consts::TAU * k as f64 / 60.0;
            [t.cos(), t.sin(), 0.1 * (3.0 * t).sin()]
        })
        .collect();
    assert_eq!(knot_determinant(&circle), 1);
    // the figure-eight knot's determinant is 5
    let eight: Vec<P3> = (0..200)
        .map(|k| {
            let t = std::f64::consts::TAU * k as f64 / 200.0;
            [(2.0 + (2.0 * t).cos()) * (3.0 * t).cos(), (2.0 + (2.0 * t).cos()) * (3.0 * t).sin(), (4.0 * t).sin()]
        })
        .collect();
    assert_eq!(knot_determinant(&eight), 5);
}

/// Runs `scene` (a built-in name or a path) to `dir`, checks every frame with `avicontact check`
/// and that dissipation never falls; returns the frames' paths, in order.
fn run_and_check(scene: &str, dir: &Path) -> Vec<PathBuf> {
    let exe = env!("CARGO_BIN_EXE_avicontact");
    let run = Command::new(exe).args(["run", scene, "--quiet", "--out"]).arg(dir).output().unwrap();
    assert!(run.status.success(), "run: {}", String::from_utf8_lossy(&run.stderr));
    let check = Command::new(exe).arg("check").arg(dir).output().unwrap();
    assert!(
        check.status.success(),
        "check: {}{}",
        String::from_utf8_lossy(&check.stdout),
        String::from_utf8_lossy(&check.stderr)
    );

    // dissipation never decreases (law 3)
    let stats = std::fs::read_to_string(dir.join("stats.csv")).unwrap();
    let mut lines = stats.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = header.iter().position(|h| *h == "dissipated").unwrap();
    let dissipated: Vec<f64> = lines.map(|l| l.split(',').nth(column).unwrap().parse().unwrap()).collect();
    for (k, w) in dissipated.windows(2).enumerate() {
        assert!(w[1] >= w[0], "dissipated fell from {} to {} J at frame {}", w[0], w[1], k + 1);
    }
    let mut frames: Vec<PathBuf> = std::fs::read_dir(dir.join("frames")).unwrap().map(|e| e.unwrap().path()).collect();
    frames.sort();
    assert!(frames.len() >= 10, "{} frames", frames.len());
    frames
}

/// Runs `scene` as [`run_and_check`] does, and checks that the ribbon's centre line (the means of
/// its first `rows` cross-sections of `across` vertices; all of them when `None`) is a trefoil on
/// every frame; returns the centre line's slack per frame (its length beyond its ends' distance), m.
fn run_a_trefoil(scene: &str, across: usize, rows: Option<usize>, dir: &Path) -> Vec<f64> {
    let mut slack = Vec::new();
    for frame in &run_and_check(scene, dir) {
        let vertices = read_object(frame, "ribbon");
        let grid = rows.map_or(vertices.len(), |r| r * across);
        let curve = centre_line(&vertices[..grid], across);
        let length: f64 = curve.windows(2).map(|w| norm(sub(w[1], w[0]))).sum();
        slack.push(length - norm(sub(curve[curve.len() - 1], curve[0])));
        let (det, crossings) = knot_determinant_and_crossings(&close_far_outside(&curve));
        eprintln!(
            "{}: {crossings} crossings, determinant {det}, slack {:.4} m",
            frame.display(),
            slack[slack.len() - 1]
        );
        assert_eq!(det, 3, "{}: knot determinant {det}, not the trefoil's 3", frame.display());
    }
    slack
}

/// The two ribbons of a reef knot closed into one curve far outside, as the square knot is tied
/// around a bundle: ribbon `a` (both ends at −x) from its first end to its last, across below
/// (y far negative) to ribbon `b`'s last end (both of its ends at +x), along `b` backwards, and
/// back across above to `a`'s first end. Each end is led straight out along x first: the tails
/// point outwards, so no closing segment crosses the knot in the projection.
fn close_reef(a: &[P3], b: &[P3]) -> Vec<P3> {
    let all = a.iter().chain(b);
    let extent = all.clone().map(|p| p[0].abs().max(p[1].abs())).fold(0.0, f64::max);
    let far = 10.0 * extent;
    let (a0, a1, b0, b1) = (a[0], a[a.len() - 1], b[0], b[b.len() - 1]);
    let mut closed = a.to_vec();
    closed.extend([[-far, a1[1], a1[2]], [-far, -far, a1[2]], [far, -far, b1[2]], [far, b1[1], b1[2]]]);
    closed.extend(b.iter().rev());
    closed.extend([[far, b0[1], b0[2]], [far, far, b0[2]], [-far, far, a0[2]], [-far, a0[1], a0[2]]]);
    closed
}

/// Runs a two-ribbon reef knot scene (body "ribbons", `samples` cross-sections of `across`
/// vertices per ribbon, ribbon 0's ends at −x) as [`run_and_check`] does, and checks that the
/// closed-up centre lines are a square knot (determinant 9, the trefoil's squared) on every frame;
/// returns the knot's span along x per frame (the turn of ribbon 0 to that of ribbon 1), m.
fn run_a_reef(scene: &str, across: usize, samples: usize, dir: &Path) -> Vec<f64> {
    let mut span = Vec::new();
    for frame in &run_and_check(scene, dir) {
        let vertices = read_object(frame, "ribbons");
        assert_eq!(vertices.len(), 2 * samples * across, "two ribbons");
        let (a, b) = vertices.split_at(samples * across);
        let (a, b) = (centre_line(a, across), centre_line(b, across));
        span.push(a.iter().map(|p| p[0]).fold(f64::MIN, f64::max) - b.iter().map(|p| p[0]).fold(f64::MAX, f64::min));
        let (det, crossings) = knot_determinant_and_crossings(&close_reef(&a, &b));
        eprintln!("{}: {crossings} crossings, determinant {det}, span {:.4} m", frame.display(), span[span.len() - 1]);
        assert_eq!(det, 9, "{}: knot determinant {det}, not the square knot's 9", frame.display());
    }
    span
}

#[test]
fn the_overhand_knot_stays_tied_tightens_and_never_intersects() {
    let scene = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/overhand-knot.toml")).unwrap();
    let dir = out_dir("overhand");
    let slack = run_a_trefoil("overhand-knot", across(&scene), None, &dir);
    let (first, last) = (slack[0], slack[slack.len() - 1]);
    assert!(last < 0.5 * first, "the knot tightens: slack {first} m at the start, {last} m at the end");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `scenes/overhand-knot.toml` pulled by a force, as ACM §8 pulls its knots: the end row `held`
/// fixed, the end row `pulled` loaded with 0.08 N along +x rising over 0.05 s, for 0.3 s, with its
/// `mesh = { … }` line replaced by `mesh` when given.
fn knot_pulled_by_a_force(held: &[u32], pulled: &[u32], mesh: Option<&str>) -> String {
    let scene = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenes/overhand-knot.toml")).unwrap();
    let scene = match mesh {
        None => scene,
        Some(m) => {
            let start = scene.find("mesh = {").expect("the scene's mesh");
            let end = start + scene[start..].find('\n').unwrap();
            format!("{}{m}{}", &scene[..start], &scene[end..])
        }
    };
    let scripts = scene.find("scripted = [").expect("the scene's scripts");
    format!(
        "{}fixed = {held:?}\n\n[[load]]\nbody = \"ribbon\"\nvertices = {pulled:?}\nforce = [0.08, 0.0, 0.0]\nramp = 0.05\n",
        &scene[..scripts]
    )
    .replace("duration = 0.24", "duration = 0.3")
}

/// Nothing damps a loaded end's bounce but friction: the slack falls to half its start and stays
/// near it.
fn assert_tightens_and_stays_tight(slack: &[f64]) {
    let (first, last) = (slack[0], slack[slack.len() - 1]);
    let tightest = slack.iter().copied().fold(f64::INFINITY, f64::min);
    assert!(tightest < 0.5 * first, "the knot tightens: slack {first} m at the start, at best {tightest} m");
    assert!(last < 0.6 * first, "the knot stays tight: slack {first} m at the start, {last} m at the end");
}

#[test]
fn the_overhand_knot_pulled_by_a_force_tightens_and_stays_tied() {
    // one end held, the other loaded, in place of the scene's two scripted ends
    let scene = knot_pulled_by_a_force(&[240, 241, 242], &[0, 1, 2], None);
    let dir = out_dir("overhand-by-force");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("knot-by-force.toml");
    std::fs::write(&path, &scene).unwrap();
    let slack = run_a_trefoil(path.to_str().unwrap(), across(&scene), None, &dir.join("out"));
    assert_tightens_and_stays_tight(&slack);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_irregular_ribbon_with_slivers_and_ears_pulled_by_a_force_ties_the_knot() {
    // the knot of `overhand-knot` on an irregular mesh of its own (common/irregular.rs): rows at
    // steps of 2–5 fine samples, the middle column shifted along, diagonals at random, an ear
    // 0.6 mm out on every fourth boundary edge (276 vertices)
    let knobs = Irregular { steps: &[2, 3, 5], shift: 1, ear_every: 4, ear_height: 0.0006 };
    let IrregularMesh { positions, triangles, ends, grid_vertices: grid } = irregular_knot(240, &knobs, 7);
    assert!(positions.len() > grid, "the mesh has ears");
    let dir = out_dir("irregular-by-force");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("ribbon.obj"), obj(&positions, &triangles)).unwrap();
    let scene = knot_pulled_by_a_force(&ends[1], &ends[0], Some("mesh = \"ribbon.obj\""));
    let path = dir.join("knot.toml");
    std::fs::write(&path, &scene).unwrap();
    let slack = run_a_trefoil(path.to_str().unwrap(), 3, Some(grid / 3), &dir.join("out"));
    assert_tightens_and_stays_tight(&slack);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A reef knot of two coarse ribbons (`shape = "reef"`, 3 vertices across, 100 pieces along, 1 cm
/// wide: 606 vertices), its four ends pulled apart at 1 m/s for the first 70 ms of its
/// tightening (the whole of it, to 0.13 s, takes minutes in layer events).
fn small_reef() -> String {
    let (across, segments) = (3u32, 100u32);
    let end = |ribbon: u32, sample: u32| -> Vec<u32> {
        let first = (ribbon * (segments + 1) + sample) * across;
        (first..first + across).collect()
    };
    let ends = |ribbon: u32| [end(ribbon, 0), end(ribbon, segments)].concat();
    format!(
        "[simulation]\nduration = 0.07\nframe_rate = 150.0\ngravity = [0.0, 0.0, 0.0]\n\
         [contact]\nthickness = 0.00025\nstiffness = 1000.0\nrestitution = 0.0\nfriction = 0.2\ntolerance = 0.5\n\
         [[body]]\nname = \"ribbons\"\nkind = \"shell\"\n\
         mesh = {{ generator = \"knot\", shape = \"reef\", size = 0.034, tail = 0.02, width = 0.01, \
         segments = {segments}, across = {across} }}\n\
         density = 0.4\nstretching = 400.0\nbending = 0.0001\nscripted = [\n\
         {{ vertices = {:?}, velocity = [-0.5, 0.0, 0.0] }},\n{{ vertices = {:?}, velocity = [0.5, 0.0, 0.0] }},\n]\n",
        ends(0),
        ends(1)
    )
}

#[test]
fn a_reef_knot_of_two_ribbons_stays_a_square_knot_while_it_tightens() {
    let dir = out_dir("reef");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("reef.toml");
    std::fs::write(&path, small_reef()).unwrap();
    let span = run_a_reef(path.to_str().unwrap(), 3, 101, &dir.join("out"));
    let (first, last) = (span[0], span[span.len() - 1]);
    assert!(last < 0.6 * first, "the bights close in: span {first} m at the start, {last} m at the end");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The built-in `reef-knot` at ACM's scale (10 642 vertices, 2 s): every frame passes `check`, is a
/// square knot and the knot ends tight. About 8 minutes in release mode, so CI leaves it out:
/// `cargo test --release --test knots -- --ignored`.
#[test]
#[ignore]
fn the_reef_knot_at_acms_scale_ties_tight_and_stays_a_square_knot() {
    let dir = out_dir("reef-full");
    let span = run_a_reef("reef-knot", 17, 313, &dir);
    let (first, last) = (span[0], span[span.len() - 1]);
    assert!(last < 0.1 * first, "the knot is tight: span {first} m at the start, {last} m at the end");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The built-in `bowline` at ACM's scale (2 664 + 1 334 vertices, 5 s): every frame passes `check`
/// and its ribbon, closed far outside, is the bowline (determinant 9) on every frame; the knot
/// ends tight. About 4 minutes in release mode: `cargo test --release --test knots -- --ignored`.
#[test]
#[ignore]
fn the_bowline_at_acms_scale_ties_tight_and_stays_a_bowline() {
    let dir = out_dir("bowline-full");
    let mut sizes = Vec::new();
    for frame in &run_and_check("bowline", &dir) {
        let centre = centre_line(&read_object(frame, "ribbon"), 9);
        let (det, crossings) = knot_determinant_and_crossings(&close_far_outside(&centre));
        // the knot's size: the extent along x of the centre line's samples that lie within 1 cm
        // of a part of the ribbon more than 10 samples away, beyond 5 mm off the cylinder (whose
        // axis runs along y)
        let cylinder = read_object(frame, "cylinder");
        let axis_x = cylinder.iter().map(|p| p[0]).sum::<f64>() / cylinder.len() as f64;
        let radius = cylinder.iter().map(|p| (p[0] - axis_x).abs()).fold(0.0, f64::max);
        let in_the_knot = |i: usize| {
            centre[i][0] > axis_x + radius + 0.005
                && centre.iter().enumerate().any(|(j, q)| i.abs_diff(j) > 10 && norm(sub(centre[i], *q)) < 0.01)
        };
        let xs: Vec<f64> = (0..centre.len()).filter(|&i| in_the_knot(i)).map(|i| centre[i][0]).collect();
        let extent = xs.iter().fold(f64::MIN, |a, &x| a.max(x)) - xs.iter().fold(f64::MAX, |a, &x| a.min(x));
        sizes.push(extent);
        eprintln!("{}: {crossings} crossings, determinant {det}, knot {extent:.4} m along x", frame.display());
        assert_eq!(det, 9, "{}: knot determinant {det}, not the bowline's 9", frame.display());
    }
    let (first, last) = (sizes[0], sizes[sizes.len() - 1]);
    assert!(last < 0.3 * first, "the knot closes in: {first} m along x at the start, {last} m at the end");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_closure_tells_the_square_knot_from_two_loose_bights() {
    // the generator's reef knot closed up is a square knot; with ribbon 1 lifted clear above
    // ribbon 0 (the bights no longer interlocked) it is the unknot
    let strip = avicontact::mesh::Sweep { width: 0.01, segments: 100, across: 3, twist_deg: 0.0 };
    let mesh = avicontact::mesh::knot(avicontact::mesh::KnotShape::Reef, 0.034, 0.02, &strip).unwrap();
    let vertices: Vec<P3> = mesh.positions.iter().map(|p| [p.x, p.y, p.z]).collect();
    let (a, b) = vertices.split_at(vertices.len() / 2);
    let (a, b) = (centre_line(a, 3), centre_line(b, 3));
    let (det, crossings) = knot_determinant_and_crossings(&close_reef(&a, &b));
    assert_eq!((det, crossings), (9, 6), "the square knot's determinant and six crossings");
    let lifted: Vec<P3> = b.iter().map(|p| [p[0], p[1], p[2] + 1.0]).collect();
    assert_eq!(knot_determinant(&close_reef(&a, &lifted)), 1);
}

#[test]
fn a_knot_tied_too_tight_is_refused_with_its_key_and_exit_2() {
    let dir = out_dir("tight");
    std::fs::create_dir_all(&dir).unwrap();
    let scene = dir.join("tight.toml");
    std::fs::write(
        &scene,
        "[contact]\nthickness = 0.0005\n[[body]]\nname = \"k\"\nkind = \"shell\"\ndensity = 0.4\nstretching = 400.0\n\
         mesh = { generator = \"knot\", shape = \"overhand\", size = 0.03, tail = 0.05, width = 0.01, segments = 40 }\n",
    )
    .unwrap();
    let out = dir.join("out");
    let run =
        Command::new(env!("CARGO_BIN_EXE_avicontact")).arg("run").arg(&scene).arg("--out").arg(&out).output().unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("body[0] \"k\".mesh.size") && stderr.contains("make `size` larger"), "{stderr}");
    assert!(!out.join("frames").exists(), "nothing is written");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_bowline_is_knotted_lies_flat_on_its_cylinder_and_starts_clear_of_it() {
    // the built-in scene's first frame: the ribbon (9 across) and the cylinder as written
    let dir = out_dir("bowline");
    let exe = env!("CARGO_BIN_EXE_avicontact");
    let run = Command::new(exe).args(["run", "bowline", "--quiet", "--duration", "1e-6", "--out"]).arg(&dir).output();
    let run = run.unwrap();
    assert!(run.status.success(), "run: {}", String::from_utf8_lossy(&run.stderr));
    let frame = dir.join("frames").join("frame_00000.obj");
    let (ribbon, cylinder) = (read_object(&frame, "ribbon"), read_object(&frame, "cylinder"));
    assert_eq!((ribbon.len(), cylinder.len()), (2664, 1334), "ACM's 3 995 vertices, give or take");

    // closed far outside, the rope is knotted: determinant 9 (the unknot's is 1), |V(−1)| of the
    // Jones polynomial −t⁻⁵ + t⁻⁴ − t⁻³ + 2t⁻² − t⁻¹ + 2 − t that the design computed for this
    // bowline closed through its ends (the cowboy bowline's closure gives another)
    let centre = centre_line(&ribbon, 9);
    let (det, crossings) = knot_determinant_and_crossings(&close_far_outside(&centre));
    println!("bowline closed far outside: determinant {det}, {crossings} crossings");
    assert_eq!(det, 9, "a bowline, not a loose loop: determinant {det}");

    // the cylinder's axis, from its own vertices: along y through their mean; its radius theirs
    let n = cylinder.len() as f64;
    let mean = scale(cylinder.iter().fold([0.0; 3], |a, p| add(a, *p)), 1.0 / n);
    let off_axis = |p: P3| ((p[0] - mean[0]).powi(2) + (p[2] - mean[2]).powi(2)).sqrt();
    let radius = off_axis(cylinder[0]);
    assert!(cylinder.iter().all(|&p| (off_axis(p) - radius).abs() < 1e-9), "a round cylinder along y");
    // every ribbon vertex starts at least 3·η(1) = 0.75 mm off the cylinder's surface
    let closest = ribbon.iter().map(|&p| off_axis(p) - radius).fold(f64::INFINITY, f64::min);
    assert!(closest > 0.00075, "the ribbon starts {closest} m from the cylinder");
    // where the ribbon is close to the cylinder it lies flat on it: its width runs along the axis
    let mut wrapped = 0;
    for section in ribbon.chunks(9) {
        if off_axis(section[4]) - radius < 0.01 {
            wrapped += 1;
            let side = unit(sub(section[8], section[0]));
            assert!(side[1].abs() > 0.9999, "the ribbon's width is along y on the cylinder: {side:?}");
        }
    }
    assert!(wrapped > 20, "the loop wraps the cylinder: {wrapped} cross-sections within 1 cm of it");
    // the scene's scripted and held vertices: the standing end's cross-section (0–8) is the
    // ribbon's farthest +x, and the held samples 152–161 (vertices 1368–1457) lie on the
    // cylinder's back, a few millimetres off its surface
    let far = ribbon.iter().map(|p| p[0]).fold(f64::NEG_INFINITY, f64::max);
    assert!(ribbon[..9].iter().all(|p| p[0] == far), "vertices 0–8 are the standing end");
    for p in &ribbon[1368..=1457] {
        assert!(p[0] < mean[0] - 0.5 * radius, "{p:?} is behind the cylinder's axis");
        assert!(off_axis(*p) - radius < 0.006, "{p:?} lies on the cylinder");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
