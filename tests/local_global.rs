//! Dinev et al.'s local/global solver (Stabilizing §4.2) on the synchronous backend: its
//! iteration is the paper's global solve, it converges to Newton's solution, it keeps linear
//! momentum, it keeps the blend stable where implicit midpoint explodes, and what it cannot take
//! is refused.

use avicontact::avi::{ForceSpec, PeriodChoice};
use avicontact::ids::VertexId;
use avicontact::math::{Real, Vec3};
use avicontact::observe::{Frame, Observer, ObserverError};
use avicontact::potential::Spring;
use avicontact::scene;
use avicontact::sync::{IntegratorKind, NewtonParameters, SolverKind, SyncParameters};
use avicontact::Simulation;
use std::path::Path;

/// Stabilizing §3's pre-stretched spring as a Hookean one: rest length 1 m, one end held at the
/// origin, the other at (1.5, 0, 0) m moving at (0, 10, 0) m/s, no gravity.
const STIFFNESS: Real = 1e3;

fn spring(integrator: IntegratorKind, solver: SolverKind, h: Real, steps: usize) -> (Vec3, Vec3, Real) {
    let text = format!(
        r#"
[simulation]
duration = {duration:?}
frame_rate = {rate:?}
gravity = [0.0, 0.0, 0.0]
[[body]]
name = "spring"
kind = "chain"
mesh = {{ generator = "line", start = [0.0, 0.0, 0.0], end = [1.5, 0.0, 0.0], segments = 1 }}
mass = 0.5
spring_stiffness = [1.0]
fixed = [0]
velocities = [[0, 0, 0], [0, 10, 0]]
"#,
        duration = h * steps as Real,
        rate = 1.0 / (h * steps as Real)
    );
    let mut s = scene::parse(&text, "spring", Path::new("."), "spring".into()).unwrap();
    let mass = s.model.vertices.masses()[1];
    s.forces = vec![ForceSpec::new(
        Box::new(Spring::new(VertexId(0), VertexId(1), STIFFNESS, 0.0, 1.0)),
        PeriodChoice::Stable,
    )];
    let sync = SyncParameters {
        integrator,
        solver,
        timestep: h,
        newton: NewtonParameters { tolerance: 1e-14, max_iterations: 100, ..Default::default() },
        contact: None,
        ..Default::default()
    };
    let mut sim = Simulation::new_sync(s.model, s.forces, s.parameters, sync).unwrap();
    sim.run(&mut ()).unwrap();
    let x = sim.model().vertices.positions()[1];
    let v = sim.model().vertices.velocities()[1];
    (x, v, mass)
}

#[test]
fn each_local_global_iteration_is_the_global_solve_of_eqs_28_and_30() {
    let h = 0.033;
    let (xn, vn) = (Vec3::new(1.5, 0.0, 0.0), Vec3::new(0.0, 10.0, 0.0));
    let y = xn + vn * h;
    for iterations in [1, 2, 3] {
        let (x, v, m) = spring(IntegratorKind::ImplicitMidpoint, SolverKind::LocalGlobal { iterations }, h, 1);
        // by hand: from x = y, project the midpoint's edge onto the sphere of the rest length
        // (local), then (M + h²/4·L) x = M y + h²/2·J p − h²/4·L x_n (global; the held end at 0)
        let k = STIFFNESS;
        let mut expected = y;
        for _ in 0..iterations {
            let p = ((expected + xn) / 2.0).normalize();
            expected = (y * m + p * (h * h / 2.0 * k) - xn * (h * h / 4.0 * k)) / (m + h * h / 4.0 * k);
        }
        assert!((x - expected).norm() < 1e-12, "{iterations} iterations: {x} vs {expected}");
        let expected_v = (expected - xn) * (2.0 / h) - vn;
        assert!((v - expected_v).norm() < 1e-10, "{iterations} iterations: v {v} vs {expected_v}");

        // backward Euler (Projective Dynamics, eq. 28): (M + h²L) x = M y + h²J p
        let (x, _, _) = spring(IntegratorKind::ImplicitEuler, SolverKind::LocalGlobal { iterations }, h, 1);
        let mut expected = y;
        for _ in 0..iterations {
            let p = expected.normalize();
            expected = (y * m + p * (h * h * k)) / (m + h * h * k);
        }
        assert!((x - expected).norm() < 1e-12, "backward Euler, {iterations} iterations: {x} vs {expected}");
    }
}

/// The positions of `examples/spinning-cube.toml` after `steps` steps by `integrator` and
/// `solver` (Newton to round-off).
fn cube_after(integrator: IntegratorKind, solver: SolverKind, steps: usize) -> Vec<Vec3> {
    let h = 0.033;
    let text = include_str!("../examples/spinning-cube.toml")
        .replace("duration = 10.0", &format!("duration = {:?}", h * steps as Real));
    let s = scene::parse(&text, "cube", Path::new("examples"), "cube".into()).unwrap();
    let mut sync = s.sync;
    sync.integrator = integrator;
    sync.solver = solver;
    sync.newton = NewtonParameters { tolerance: 1e-13, max_iterations: 100, ..sync.newton };
    let mut sim = Simulation::new_sync(s.model, s.forces, s.parameters, sync).unwrap();
    sim.run(&mut ()).unwrap();
    sim.model().vertices.positions().to_vec()
}

#[test]
fn local_global_converges_to_newtons_solution() {
    // (the blend's midpoint solve is this one; its correction takes the paper's one iteration
    // whatever the count, so it does not converge to Newton's backward-Euler step)
    let midpoint = IntegratorKind::ImplicitMidpoint;
    let newton = cube_after(midpoint, SolverKind::Newton, 3);
    let distance = |iterations| {
        let x = cube_after(midpoint, SolverKind::LocalGlobal { iterations }, 3);
        x.iter().zip(&newton).map(|(a, b)| (a - b).norm()).fold(0.0, Real::max)
    };
    let (paper, many) = (distance(10), distance(400));
    println!("local/global against Newton after 3 steps: {paper:.3e} m (10 iterations), {many:.3e} m (400)");
    assert!(many < 1e-8, "400 iterations end {many} m from Newton's solution");
    assert!(paper > 100.0 * many, "10 iterations are not yet converged ({paper} m)");
}

/// Energy and momenta per frame, until the energy passes 100 times its start.
#[derive(Default)]
struct Record(Vec<(Real, Real, Vec3, Vec3)>);

impl Observer for Record {
    fn on_frame(&mut self, f: &Frame<'_>) -> Result<(), ObserverError> {
        self.0.push((f.time.seconds(), f.stats.total(), f.stats.momentum, f.stats.angular_momentum));
        if f.stats.total() > 100.0 * self.0[0].1 {
            return Err("exploded".into());
        }
        Ok(())
    }
}

/// `examples/spinning-cube.toml` (Stabilizing Fig. 5) for `seconds`, drifting at 0.2 m/s, by
/// `integrator` with the local/global solver; whether it exploded.
fn spinning_cube(integrator: IntegratorKind, seconds: Real) -> (Record, bool) {
    let text =
        include_str!("../examples/spinning-cube.toml").replace("duration = 10.0", &format!("duration = {seconds}"));
    let mut s = scene::parse(&text, "cube", Path::new("examples"), "cube".into()).unwrap();
    for i in 0..s.model.vertices.len() as u32 {
        let v = s.model.vertices.velocities()[i as usize];
        s.model.vertices.set_velocity(VertexId(i), v + Vec3::new(0.2, 0.0, 0.0));
    }
    let mut sync = s.sync;
    sync.integrator = integrator;
    assert_eq!(sync.solver, SolverKind::LocalGlobal { iterations: 10 }, "the example takes the paper's solver");
    let mut sim = Simulation::new_sync(s.model, s.forces, s.parameters, sync).unwrap();
    let mut record = Record::default();
    let exploded = sim.run(&mut record).is_err();
    (record, exploded)
}

#[test]
fn on_the_spinning_cube_the_blend_keeps_its_energy_and_momentum_where_implicit_midpoint_explodes() {
    let (midpoint, exploded) = spinning_cube(IntegratorKind::ImplicitMidpoint, 6.0);
    let (t, e, _, _) = *midpoint.0.last().unwrap();
    println!("implicit midpoint, local/global: energy {:.3e} of the start at {t:.2} s", e / midpoint.0[0].1);
    assert!(exploded, "implicit midpoint at h = 0.033 s kept the cube's energy for 6 s");

    let (blend, exploded) = spinning_cube(IntegratorKind::Blend, 6.0);
    assert!(!exploded);
    let (_, e0, p0, l0) = blend.0[0];
    for &(t, e, p, l) in &blend.0 {
        // ε = 1 % of the energy, measured by the frames' own sums
        assert!((e - e0).abs() <= 0.0101 * e0, "energy {e} against {e0} at {t} s");
        // linear momentum: L's rows sum to zero, so every iteration keeps it
        assert!((p - p0).norm() <= 1e-9 * p0.norm(), "momentum {p} against {p0} at {t} s");
        // angular momentum is not kept exactly (the blend is not), but well
        assert!((l - l0).norm() <= 0.05 * l0.norm(), "angular momentum {l} against {l0} at {t} s");
    }
}

#[test]
fn what_the_local_global_solver_cannot_take_is_refused_naming_it() {
    let cube = include_str!("../examples/spinning-cube.toml");
    let refusal = |text: &str| -> String {
        match scene::parse(text, "cube", Path::new("examples"), "cube".into()) {
            Err(e) => e.to_string(),
            Ok(s) => Simulation::new_sync(s.model, s.forces, s.parameters, s.sync).unwrap_err().to_string(),
        }
    };
    // an integrator §4.2 does not solve
    let e = refusal(&cube.replace("integrator = \"blend\"", "integrator = \"bdf2\""));
    assert!(e.contains("implicit-midpoint") && e.contains("blend") && e.contains("implicit-euler"), "{e}");
    assert!(e.contains("sync.solver") && e.contains("bdf2") && e.contains("local-global"), "{e}");
    // a volume term with no projective form
    let e = refusal(&cube.replace("poisson_ratio = 0.0", "poisson_ratio = 0.3"));
    assert!(e.contains("sync.solver") && e.contains("tetrahedron") && e.contains("poisson_ratio = 0"), "{e}");
    let e = refusal(&cube.replace("material = \"corotated\"", "material = \"neo-hookean\""));
    assert!(e.contains("tetrahedron"), "{e}");
    // contact
    let e = refusal(&format!("{cube}\n[contact]\nthickness = 0.001\n"));
    assert!(e.contains("sync.solver") && e.contains("[contact]"), "{e}");
    // the iterations of the other solver, or none
    let e = refusal(&cube.replace("solver = \"local-global\"", "solver = \"newton\"\nlocal_global_iterations = 5"));
    assert!(e.contains("sync.local_global_iterations") && e.contains("local-global"), "{e}");
    let e =
        refusal(&cube.replace("solver = \"local-global\"", "solver = \"local-global\"\nlocal_global_iterations = 0"));
    assert!(e.contains("sync.local_global_iterations") && e.contains("at least 1"), "{e}");
    let e = refusal(&cube.replace("solver = \"local-global\"", "solver = \"projective\""));
    assert!(e.contains("sync.solver") && e.contains("newton, local-global"), "{e}");
}
