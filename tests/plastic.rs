//! Plastic hinges (`bending_yield`; ACM §8's trash compactor after Bergou et al. 2007): a crushed
//! shell keeps its dent, the energy the hinges give up by yielding is booked as dissipated so the
//! ledger closes, and momentum is still kept to round-off. Momentum and energy are recomputed here
//! from the vertices, sharing no code with the engine's measurements.

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
    let gap = |rows: &[(Vec3, Vec3, f64, f64, f64)]| {
        rows.iter().map(|r| (r.2 + r.3 - rows[0].2).abs()).fold(0.0, f64::max)
    };
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
        let text = base.replacen("bending = 0.01\n", &format!("bending = {bending}\nbending_yield = {yield_angle}\n"), 1);
        let e = common::parse_scene(&text, "scene.toml").map(|_| ()).unwrap_err();
        assert!(e.contains("body[0] \"a\".bending_yield") && e.contains(needle), "{e}");
    }
}
