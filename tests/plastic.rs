//! Plastic hinges (`bending_yield`; ACM §8's trash compactor after Bergou et al. 2007): a crushed
//! shell keeps its dent, the energy the hinges give up by yielding is booked as dissipated so the
//! ledger closes, and momentum is still kept to round-off. Momentum, the kinetic energy and the
//! enclosed volumes are recomputed here from the vertices, sharing no code with the engine's
//! measurements; intersections are the independent checker's.

mod common;

use avicontact::ids::VertexId;
use avicontact::math::Vec3;
use avicontact::observe::{Frame, Observer, ObserverError};

/// Per frame: linear and angular momentum of the free vertices, the mechanical energy (kinetic
/// recomputed here), dissipated, and the largest spread of the vertices' distances from their
/// body's centroid over the bodies (how far from round a ball is).
#[derive(Default)]
struct Rows(Vec<(Vec3, Vec3, f64, f64, f64)>);

impl Observer for Rows {
    fn on_frame(&mut self, f: &Frame<'_>) -> Result<(), ObserverError> {
        let v = &f.model.vertices;
        let (mut p, mut l) = (Vec3::zeros(), Vec3::zeros());
        for i in 0..v.len() {
            let id = VertexId(i as u32);
            if v.effective_mass(id).is_finite() {
                let mv = v.velocity(id) * v.mass(id);
                p += mv;
                l += f.positions[i].cross(&mv);
            }
        }
        let mut spread: f64 = 0.0;
        for body in f.model.bodies.values() {
            let xs = &f.positions[body.vertices.start as usize..body.vertices.end as usize];
            let centre = xs.iter().sum::<Vec3>() / xs.len() as f64;
            let r: Vec<f64> = xs.iter().map(|x| (x - centre).norm()).collect();
            let (lo, hi) = r.iter().fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
            spread = spread.max(hi - lo);
        }
        self.0.push((p, l, common::kinetic_energy(f.model) + f.stats.potential, f.stats.dissipated, spread));
        Ok(())
    }
}

fn run(text: &str, duration: f64) -> Vec<(Vec3, Vec3, f64, f64, f64)> {
    let s = common::parse_scene(text, "test scene").unwrap_or_else(|e| panic!("{e}"));
    let mut sim = avicontact::Simulation::new(s.model, s.forces, s.parameters).unwrap();
    let mut rows = Rows::default();
    sim.advance_to(duration, &mut rows).unwrap();
    rows.0
}

#[test]
fn plastic_balls_colliding_keep_their_dents_momentum_and_a_closed_ledger() {
    // two icosphere shells colliding off-centre in free space (restitution 1, no friction),
    // damped so that their vibrations die out; the same with plastic hinges
    let elastic = common::colliding_shells(1, 0.3, 1.1)
        .replace("bending = 0.01\n", "bending = 0.01\nstretch_damping = 0.02\nbend_damping = 0.0005\n");
    let plastic = elastic.replace("bending = 0.01\n", "bending = 0.01\nbending_yield = 0.05\n");
    assert_eq!((plastic.matches("bending_yield").count(), plastic.matches("bend_damping").count()), (2, 2));
    let (elastic, plastic) = (run(&elastic, 1.2), run(&plastic, 1.2));
    let first = plastic[0];
    let (last_e, last_p) = (*elastic.last().unwrap(), *plastic.last().unwrap());
    // momentum to round-off through the yields
    for (p, l, ..) in &plastic {
        assert!((p - first.0).norm() <= 1e-12 * first.0.norm(), "linear momentum {p} against {}", first.0);
        assert!((l - first.1).norm() <= 1e-12 * first.1.norm(), "angular momentum {l} against {}", first.1);
    }
    // what the yields took out of the mechanical energy is what they booked as dissipated
    let lost = last_e.2 - last_p.2;
    let booked = last_p.3 - last_e.3;
    assert!(lost > 0.03 * first.2, "the plastic balls kept {} J, the elastic ones {} J", last_p.2, last_e.2);
    assert!((booked / lost - 1.0).abs() < 0.1, "the yields took {lost} J and booked {booked} J");
    let gap =
        |rows: &[(Vec3, Vec3, f64, f64, f64)]| rows.iter().map(|r| (r.2 + r.3 - rows[0].2).abs()).fold(0.0, f64::max);
    // the ledger of the plastic run is as closed as the elastic one's (whose gap is the dampers'
    // windowed booking on this coarse mesh)
    assert!(
        gap(&plastic) <= gap(&elastic) + 0.05 * lost,
        "the ledger moved {} J plastic, {} J elastic",
        gap(&plastic),
        gap(&elastic)
    );
    // dented: once still, the elastic balls are round again and the plastic ones are not
    assert!(last_e.4 < 1e-4 && last_p.4 > 1e-3, "spread {} m elastic, {} m plastic", last_e.4, last_p.4);
}

#[test]
fn a_bad_yield_angle_is_refused_naming_the_key() {
    let base = common::colliding_shells(1, 0.3, 1.1);
    for (yield_angle, bending, needle) in [
        ("-0.1", "0.01", "must be a finite angle in radians > 0"),
        ("nan", "0.01", "must be a finite angle in radians > 0"),
        ("0.1", "0.0", "plastic hinges need `bending` > 0"),
    ] {
        let text =
            base.replacen("bending = 0.01\n", &format!("bending = {bending}\nbending_yield = {yield_angle}\n"), 1);
        let e = common::parse_scene(&text, "scene.toml").map(|_| ()).unwrap_err();
        assert!(e.contains("body[0] \"a\".bending_yield") && e.contains(needle), "{e}");
    }
}

/// A small trash compactor (the built-in `trash-compactor`'s set-up and parameters at CI scale):
/// a plastic cube and a plastic torus in a 16 × 10 cm box whose four walls close in at 20 and
/// 10 cm/s for 0.4 s, under gravity.
fn small_compactor() -> String {
    let (x0, y0, h, gap) = (0.08, 0.05, 0.06, 1e-5);
    let material = "density = 0.01\nstretching = 1.0\nbending = 1e-6\nstretch_damping = 0.015\n\
                    bend_damping = 5e-8\nbending_yield = 0.1\n";
    let mut text = format!(
        "[simulation]\nduration = 0.5\nframe_rate = 50.0\ngravity = [0.0, 0.0, -9.8]\n\
         [contact]\nthickness = 0.0005\nstiffness = 1.0\nrestitution = 0.01\nfriction = 0.2\ntolerance = 0.2\n\
         [[body]]\nname = \"cube\"\nkind = \"shell\"\n\
         mesh = {{ generator = \"platonic\", solid = \"cube\", radius = 0.03, subdivisions = 1 }}\n\
         transform = {{ rotate_deg = [0.0, 0.0, 20.0], translate = [-0.035, 0.0, 0.02]  }}\n{material}\
         [[body]]\nname = \"torus\"\nkind = \"shell\"\n\
         mesh = {{ generator = \"torus\", major = 0.025, minor = 0.008, segments = 8, sides = 5 }}\n\
         transform = {{ translate = [0.04, 0.0, 0.01] }}\n{material}\
         [[body]]\nname = \"floor\"\nkind = \"obstacle\"\nmesh = {{ generator = \"plane\", size = [0.2, 0.14] }}\n"
    );
    // each wall's ends close in with the walls across, so the corners keep their 10 µm gaps
    let (vx, vy) = (0.1, 0.05);
    for s in [1.0, -1.0] {
        text += &format!(
            "[[body]]\nname = \"wall y{s}\"\nkind = \"obstacle\"\n\
             mesh = {{ generator = \"plane\", size = [{}, {h}] }}\n\
             transform = {{ rotate_deg = [90.0, 0.0, 0.0], translate = [0.0, {}, {}] }}\n\
             scripted = [{{ vertices = [0, 2], velocity = [{vx}, {}, 0.0], stop = 0.4 }}, \
             {{ vertices = [1, 3], velocity = [{}, {}, 0.0], stop = 0.4 }}]\n",
            2.0 * (x0 - gap),
            s * y0,
            h / 2.0 + gap,
            -s * vy,
            -vx,
            -s * vy
        );
        text += &format!(
            "[[body]]\nname = \"wall x{s}\"\nkind = \"obstacle\"\n\
             mesh = {{ generator = \"plane\", size = [{}, {h}] }}\n\
             transform = {{ rotate_deg = [90.0, 0.0, 90.0], translate = [{}, 0.0, {}] }}\n\
             scripted = [{{ vertices = [0, 2], velocity = [{}, {vy}, 0.0], stop = 0.4 }}, \
             {{ vertices = [1, 3], velocity = [{}, {}, 0.0], stop = 0.4 }}]\n",
            2.0 * (y0 - gap),
            s * x0,
            h / 2.0 + gap,
            -s * vx,
            -s * vx,
            -vy
        );
    }
    text
}

/// The volume a closed body encloses at a frame, by the divergence theorem.
fn volume(frame: &Frame<'_>, name: &str) -> f64 {
    let body = frame.model.bodies.values().find(|b| b.name == name).expect("the body");
    let x = |i: u32| frame.positions[(body.vertices.start + i) as usize];
    body.kind.triangles().iter().map(|t| x(t[0]).dot(&x(t[1]).cross(&x(t[2]))) / 6.0).sum()
}

/// The cube's and the torus's volumes and `dissipated`, per frame.
#[derive(Default)]
struct Crush(Vec<(f64, f64, f64)>);

impl Observer for Crush {
    fn on_frame(&mut self, f: &Frame<'_>) -> Result<(), ObserverError> {
        self.0.push((volume(f, "cube"), volume(f, "torus"), f.stats.dissipated));
        Ok(())
    }
}

#[test]
fn a_small_compactor_crushes_plastic_solids_without_a_crossing() {
    let dir = tempfile::tempdir().unwrap();
    let scene = dir.path().join("compactor.toml");
    std::fs::write(&scene, small_compactor()).unwrap();
    let out = dir.path().join("out");
    let request = avicontact::run::RunRequest::new(scene.to_str().unwrap(), &out);
    let mut crush = Crush::default();
    let finished = request.load().and_then(|l| l.build()).expect("a valid scene").execute(&mut crush);
    assert!(finished.result.is_ok(), "{:?}", finished.result);
    let report = avicontact::output::check_run(&out).expect("frames to check");
    assert!(report.findings.is_empty(), "intersections: {:?}", &report.findings[..report.findings.len().min(3)]);
    let rows = crush.0;
    // dissipated never falls, but for the energy a friction kick gives back when it reverses a
    // slide: ACM §6.3 does not cap friction (no cap keeps simultaneous events order-independent),
    // and bounds that reversal by μ·r(l)·η(l)·h; here it is 6e-12 J once, at the first landing
    let total = rows.last().unwrap().2;
    for w in rows.windows(2) {
        assert!(w[1].2 >= w[0].2 - 1e-6 * total, "dissipated fell from {} to {} J", w[0].2, w[1].2);
    }
    let (first, last) = (rows[0], *rows.last().unwrap());
    assert!(first.0 > 0.0 && first.1 > 0.0, "outward-facing solids");
    // crushed: the walls closed the box to 8 × 6 cm around the two
    assert!(last.0 < 0.9 * first.0 || last.1 < 0.9 * first.1, "volumes {first:?} → {last:?}");
}
