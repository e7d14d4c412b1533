//! Build a model by hand and integrate your own potential on its own clock.
//!
//! Two particles joined by a Morse bond (a potential avicontact does not ship), plus a stiff
//! Hookean spring from the library, each on its own clock: the AVI takes the bond's large steps
//! and the spring's small ones in one event queue.
//!
//! `cargo run --release --example custom_potential`

use avicontact::potential::{Potential, Spring};
use avicontact::prelude::*;
use nalgebra::DMatrix;

/// Morse bond E = D (1 − e^{−a (l − L)})² between two vertices.
#[derive(Debug)]
struct Morse {
    stencil: [VertexId; 2],
    depth: Real,
    width: Real,
    rest: Real,
}

impl Potential for Morse {
    fn kind(&self) -> &'static str {
        "morse"
    }
    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }
    fn energy(&self, x: &[Vec3]) -> Real {
        let e = 1.0 - (-self.width * ((x[1] - x[0]).norm() - self.rest)).exp();
        self.depth * e * e
    }
    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        let d = x[1] - x[0];
        let l = d.norm();
        let ex = (-self.width * (l - self.rest)).exp();
        let de_dl = 2.0 * self.depth * (1.0 - ex) * self.width * ex;
        grad[1] = d / l * de_dl;
        grad[0] = -grad[1];
    }
    fn hessian(&self, _x: &[Vec3]) -> Option<DMatrix<Real>> {
        None // not needed by the AVI; give it to use the default stable-step estimate
    }
    fn stable_step(&self, _x: &[Vec3], masses: &[Real]) -> Option<Real> {
        let k = 2.0 * self.depth * self.width * self.width; // curvature at the minimum
        Some(2.0 / (k * (1.0 / masses[0] + 1.0 / masses[1])).sqrt())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut model = Model::new();
    let positions = [Vec3::zeros(), Vec3::new(1.2, 0.0, 0.0), Vec3::new(1.2, 0.5, 0.0)];
    let velocities = [Vec3::zeros(), Vec3::new(0.0, 0.3, 0.0), Vec3::zeros()];
    let body = model.add_body(
        Body::new("molecule", BodyKind::Particles { radius: 0.05 }),
        &positions,
        &velocities,
        &[1.0, 1.0, 0.1],
    );
    let (a, b, c) = (model.vertex(body, 0), model.vertex(body, 1), model.vertex(body, 2));
    let forces = vec![
        ForceSpec::new(Box::new(Morse { stencil: [a, b], depth: 1.0, width: 2.0, rest: 1.0 }), PeriodChoice::Stable),
        ForceSpec::new(Box::new(Spring::new(b, c, 500.0, 0.0, 0.5)), PeriodChoice::Stable),
    ];
    let parameters = SimulationParameters {
        duration: 5.0,
        frame_rate: 2.0,
        gravity: Vec3::zeros(),
        safety_factor: 0.1,
        ..Default::default()
    };
    let mut sim = Simulation::new(model, forces, parameters)?;
    for (_, p, h) in sim.avi().expect("AVI backend").forces() {
        println!("{:<7} ticks every {h:.4e} s", p.kind());
    }
    struct Print;
    impl Observer for Print {
        fn on_frame(&mut self, f: &Frame<'_>) -> Result<(), avicontact::observe::ObserverError> {
            println!(
                "t = {:4.1} s  E = {:.8} J  p = {:.2e}",
                f.time.seconds(),
                f.stats.total(),
                f.stats.momentum.norm()
            );
            Ok(())
        }
    }
    sim.run(&mut Print)?;
    println!("events by kind: {:?}", sim.counters().events_by_kind());
    Ok(())
}
