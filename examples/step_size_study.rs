//! Energy behaviour against step size: the FPU chain (Phantom §5.1) at several safety factors.
//! Smaller steps shrink the reported energy oscillation in proportion to h (the reported kinetic
//! energy uses the AVI's piecewise-constant velocities, which sit half a kick away from the
//! synchronous ones); none of them drifts.
//!
//! `cargo run --release --example step_size_study`

use avicontact::prelude::*;
use avicontact::scene;

#[derive(Default)]
struct Extremes {
    e0: Option<Real>,
    worst: Real,
}

impl Observer for Extremes {
    fn on_frame(&mut self, f: &Frame<'_>) -> Result<(), avicontact::observe::ObserverError> {
        let e = f.stats.total();
        let e0 = *self.e0.get_or_insert(e);
        self.worst = self.worst.max(((e - e0) / e0).abs());
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("safety  stiff-spring period [s]  max |E - E0| / E0 over 100 s");
    for safety in [0.4, 0.2, 0.1, 0.05] {
        let mut scene = scene::load("fpu-chain")?;
        scene.parameters.safety_factor = safety;
        let mut sim = Simulation::new(scene.model, scene.forces, scene.parameters)?;
        let h = sim.avi().expect("AVI backend").forces().map(|(_, _, h)| h).fold(Real::INFINITY, Real::min);
        let mut e = Extremes::default();
        sim.run(&mut e)?;
        println!("{safety:6}  {h:24.3e}  {:.3e}", e.worst);
    }
    Ok(())
}
