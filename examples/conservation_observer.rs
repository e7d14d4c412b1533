//! Run a built-in scene from Rust and watch energy and momentum with your own observer.
//!
//! `cargo run --release --example conservation_observer`

use avicontact::prelude::*;
use avicontact::scene;

/// Prints one line per frame and remembers the worst relative change of angular momentum.
struct Watch {
    first: Option<FrameStats>,
    worst_angular: Real,
}

impl Observer for Watch {
    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), avicontact::observe::ObserverError> {
        let s = frame.stats;
        let first = *self.first.get_or_insert(s);
        let drift = (s.angular_momentum - first.angular_momentum).norm() / first.angular_momentum.norm();
        self.worst_angular = self.worst_angular.max(drift);
        if frame.index.is_multiple_of(10) {
            println!(
                "t = {:6.3} s  E = {:.6e} J (kinetic {:.3e}, potential {:.3e})  |L| change {:.1e}",
                frame.time.seconds(),
                s.total(),
                s.kinetic,
                s.potential,
                drift
            );
        }
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let scene = scene::load("spinning-shell")?;
    let mut sim = Simulation::new(scene.model, scene.forces, scene.parameters)?;
    let mut watch = Watch { first: None, worst_angular: 0.0 };
    sim.run(&mut watch)?;
    println!(
        "{} events; worst relative change of angular momentum: {:.2e}",
        sim.counters().events,
        watch.worst_angular
    );
    Ok(())
}
