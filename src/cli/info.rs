//! `avicontact info SCENE`: the run parameters, the bodies, and the potentials with the AVI's
//! clock periods (whatever backend the scene asks for), then the backend's own facts.

use super::{bad_input, load};
use avicontact::backend::BackendKind;
use avicontact::error::SimulationError;
use avicontact::math::Compact;
use std::collections::BTreeMap;
use std::process::ExitCode;

/// Describes the scene on stdout.
pub fn info(scene: &str) -> ExitCode {
    let mut s = match load(scene) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // info describes the AVI's clocks; describe the scene even from a start the AVI refuses, and
    // say on the contact line why it does
    let mut refusal = s.refused_start(BackendKind::Avi).map(|e| e.to_string());
    if let Some(why) = &refusal {
        eprintln!("warning: {why}; the AVI backend refuses to run from this start");
        s.parameters.contact = None;
    }
    let (name, label, params, backend) = (s.name.clone(), s.label(), s.parameters.clone(), s.backend_description());
    let sim = match s.into_simulation(BackendKind::Avi) {
        Ok(sim) => sim,
        // contact that cannot be certified at t = 0: the rest of the scene without it
        Err(SimulationError::InitialContact(e)) => {
            let why = format!("{label}: {}", SimulationError::InitialContact(e));
            eprintln!("warning: {why}; the AVI backend refuses to run from this start");
            // loaded again (a scene is not Clone), its warnings already printed
            let mut s = match avicontact::scene::load(scene) {
                Ok(s) => s,
                Err(e) => return bad_input(e),
            };
            s.parameters.contact = None;
            refusal = Some(why);
            match s.into_simulation(BackendKind::Avi) {
                Ok(sim) => sim,
                Err(e) => return bad_input(format!("{label}: {e}")),
            }
        }
        Err(e) => return bad_input(format!("{label}: {e}")),
    };
    println!(
        "scene {name}: duration {} s, {} frames/s, gravity {:?} m/s², safety factor {}, {}",
        Compact(params.duration),
        Compact(params.frame_rate),
        params.gravity.as_slice(),
        Compact(params.safety_factor),
        match params.period_ladder.rungs() {
            0 => "exact stable periods".to_string(),
            r => format!("stable periods rounded down to {r} rungs per octave"),
        }
    );
    let model = sim.model();
    // a phantom body's vertices carry half their mass; the phantom the other half
    let phantom = |id| sim.avi().and_then(|a| a.phantoms()).is_some_and(|p| p.settings().is_phantom(id));
    println!("bodies:");
    for (id, b) in &model.bodies {
        println!(
            "  {:<16} {:<9} {:>7} vertices {:>7} triangles {:>6} held/scripted  mass {:.4e} kg",
            b.name,
            b.kind.name(),
            b.vertex_count(),
            b.kind.triangles().len(),
            model.held_vertices(id),
            model.body_mass(id) * if phantom(id) { 2.0 } else { 1.0 }
        );
    }
    println!("potentials (period = clock period h):");
    let mut by_kind: BTreeMap<&str, (usize, f64, f64)> = BTreeMap::new();
    for (p, h) in sim.backend().periods() {
        let e = by_kind.entry(p.kind()).or_insert((0, f64::INFINITY, 0.0));
        e.0 += 1;
        e.1 = e.1.min(h);
        e.2 = e.2.max(h);
    }
    for (kind, (count, hmin, hmax)) in &by_kind {
        println!("  {kind:<18} {count:>8}  period {hmin:.3e} .. {hmax:.3e} s");
    }
    for line in sim.backend().describe() {
        println!("{line}");
    }
    if let Some(why) = refusal {
        println!("contact (AVI penalty layers): not started, the AVI refuses this start: {why}");
    }
    println!("{} (AVI)", sim.workload().describe());
    println!("backend: {backend}");
    ExitCode::SUCCESS
}
