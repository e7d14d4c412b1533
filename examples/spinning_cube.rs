//! Stabilizing §5's spinning cube (Dinev et al. 2018, Fig. 5): total energy and angular momentum
//! of a corotated cube spinning in free space at h = 0.033 s (`examples/spinning-cube.toml`),
//! integrated by BDF1 (backward Euler), BDF2, implicit midpoint, the trapezoidal rule and the
//! energy-tracking blend, each implicit solve by Newton's method and, for implicit midpoint, the
//! blend and BDF1 (then Projective Dynamics), by the local/global solver of §4.2 as well.
//!
//! ```sh
//! cargo run --release --example spinning_cube -- OUT [--seconds 100] [--timestep 0.033]
//! ```
//!
//! Writes `fig5.csv` (time, then each run's energy and |L|) and `fig5.png` (energy above, |L|
//! below); a run whose energy passes 100 times its start has exploded and stops there. Each run's
//! wall time and solve count are printed. What the runs show is in `docs/sync.md`.

use avicontact::error::SimulationError;
use avicontact::observe::ObserverError;
use avicontact::prelude::*;
use avicontact::scene;
use avicontact::sync::{IntegratorKind, SolverKind};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// How to call it.
const USAGE: &str = "spinning_cube OUT [--seconds S] [--timestep H]";

/// The cube scene.
const SCENE: &str = include_str!("spinning-cube.toml");

/// The paper's iterations of the local/global midpoint solve.
const LOCAL_GLOBAL: SolverKind = SolverKind::LocalGlobal { iterations: 10 };

/// The runs of the figure: label, integrator, solver.
const RUNS: [(&str, IntegratorKind, SolverKind); 8] = [
    ("BDF1", IntegratorKind::ImplicitEuler, SolverKind::Newton),
    ("BDF2", IntegratorKind::Bdf2, SolverKind::Newton),
    ("implicit midpoint", IntegratorKind::ImplicitMidpoint, SolverKind::Newton),
    ("trapezoid", IntegratorKind::Trapezoid, SolverKind::Newton),
    ("blend", IntegratorKind::Blend, SolverKind::Newton),
    ("implicit midpoint, local/global", IntegratorKind::ImplicitMidpoint, LOCAL_GLOBAL),
    ("blend, local/global", IntegratorKind::Blend, LOCAL_GLOBAL),
    ("BDF1, local/global (Projective Dynamics)", IntegratorKind::ImplicitEuler, LOCAL_GLOBAL),
];

/// (time, energy, |L|) per frame.
type Rows = Vec<(Real, Real, Real)>;

/// The rows of a run, until the energy passes 100 times its start.
#[derive(Default)]
struct Record {
    rows: Rows,
}

/// What one run did.
struct Outcome {
    rows: Rows,
    exploded: bool,
    wall_seconds: f64,
    iterations: u64,
}

impl Observer for Record {
    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        let e = frame.stats.total();
        self.rows.push((frame.time.seconds(), e, frame.stats.angular_momentum.norm()));
        let e0 = self.rows[0].1;
        if e.is_nan() || e >= 100.0 * e0 {
            return Err(format!("exploded: energy {e:.3e} J at {:.2} s", frame.time.seconds()).into());
        }
        Ok(())
    }
}

/// One run of `integrator` solved by `solver` at step `h` for `seconds`.
fn run(integrator: IntegratorKind, solver: SolverKind, h: Real, seconds: Real) -> Result<Outcome, String> {
    let mut s = scene::parse(SCENE, "spinning-cube", Path::new("examples"), "spinning-cube".into())
        .map_err(|e| e.to_string())?;
    s.parameters.duration = seconds;
    let mut sync = s.sync;
    sync.integrator = integrator;
    sync.solver = solver;
    sync.timestep = h;
    let mut sim = Simulation::new_sync(s.model, s.forces, s.parameters, sync).map_err(|e| e.to_string())?;
    let mut record = Record::default();
    let start = std::time::Instant::now();
    let exploded = match sim.run(&mut record) {
        Ok(_) => false,
        Err(SimulationError::Observer(e)) => {
            println!("  {e}");
            true
        }
        Err(e) => return Err(format!("{integrator:?} with {solver:?}: {e}")),
    };
    let iterations = sim.sync().map_or(0, |e| e.newton_iterations());
    Ok(Outcome { rows: record.rows, exploded, wall_seconds: start.elapsed().as_secs_f64(), iterations })
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut out: Option<PathBuf> = None;
    let (mut seconds, mut h) = (100.0, 0.033);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<Real, String> {
            let v = args.next().ok_or(format!("{name} needs a number of seconds"))?;
            v.parse::<Real>().ok().filter(|s| s.is_finite() && *s > 0.0).ok_or(format!("{name}: not seconds > 0: {v}"))
        };
        match arg.as_str() {
            "--seconds" => seconds = value("--seconds")?,
            "--timestep" => h = value("--timestep")?,
            _ if out.is_none() && !arg.starts_with('-') => out = Some(PathBuf::from(arg)),
            _ => return Err(format!("unknown argument {arg}; usage: {USAGE}")),
        }
    }
    let out = out.ok_or(USAGE)?;
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "the bundled font did not load")?;

    let mut series = Vec::new();
    for (label, integrator, solver) in RUNS {
        let Outcome { rows, exploded, wall_seconds: wall, iterations } = run(integrator, solver, h, seconds)?;
        let (e0, l0) = (rows[0].1, rows[0].2);
        let (t, e, l) = *rows.last().expect("a frame at the start");
        println!(
            "{label}: at {t:.2} s energy {:.4} and |L| {:.4} of the start{}; {iterations} solver iterations, {wall:.2} s",
            e / e0,
            l / l0,
            if exploded { " (exploded)" } else { "" }
        );
        series.push((label, rows));
    }
    write_csv(&out.join("fig5.csv"), &series)?;
    chart(&out.join("fig5.png"), h, &series)?;
    println!("wrote {}", out.display());
    Ok(())
}

/// Writes every run's energy and |L| per frame, side by side (empty cells after an explosion).
fn write_csv(path: &Path, series: &[(&str, Rows)]) -> Result<(), String> {
    let longest = series.iter().max_by_key(|(_, r)| r.len()).map_or(&[][..], |(_, r)| &r[..]);
    let mut text = String::from("time");
    for (label, _) in series {
        text += &format!(",{label} energy,{label} angular momentum");
    }
    for (k, (t, _, _)) in longest.iter().enumerate() {
        text += &format!("\n{t}");
        for (_, rows) in series {
            match rows.get(k) {
                Some((_, e, l)) => text += &format!(",{e},{l}"),
                None => text += ",,",
            }
        }
    }
    text.push('\n');
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Energy (log scale) above, |L| below, one line per run.
fn chart(path: &Path, h: Real, series: &[(&str, Rows)]) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = BitMapBackend::new(path, (1000, 900)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, bottom) = root.split_vertically(450);
    let t_end = series.iter().flat_map(|(_, r)| r.last()).map(|r| r.0).fold(0.0, Real::max);
    let all = || series.iter().flat_map(|(_, r)| r.iter());
    let (e_min, e_max) = all().fold((Real::INFINITY, 0.0), |(a, b): (Real, Real), r| (a.min(r.1), b.max(r.1)));
    let (l_min, l_max) = all().fold((Real::INFINITY, 0.0), |(a, b): (Real, Real), r| (a.min(r.2), b.max(r.2)));
    let colors = [RED, BLUE, GREEN, MAGENTA, BLACK, CYAN, RGBColor(255, 140, 0), RGBColor(128, 128, 128)];
    let mut energy = ChartBuilder::on(&top)
        .caption(format!("Spinning corotated cube, h = {h} s: total energy"), ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..t_end, (e_min / 1.5..e_max * 1.5).log_scale())
        .map_err(|e| err(&e))?;
    energy
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_desc("t [s]")
        .y_desc("energy [J]")
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()
        .map_err(|e| err(&e))?;
    let mut momentum = ChartBuilder::on(&bottom)
        .caption("angular momentum |L|", ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..t_end, (l_min * 0.95)..(l_max * 1.05))
        .map_err(|e| err(&e))?;
    momentum
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_desc("t [s]")
        .y_desc("|L| [kg m²/s]")
        .draw()
        .map_err(|e| err(&e))?;
    for ((label, rows), color) in series.iter().zip(colors.iter().cycle()) {
        let style = ShapeStyle::from(color).stroke_width(2);
        energy
            .draw_series(LineSeries::new(rows.iter().map(|r| (r.0, r.1)), style))
            .map_err(|e| err(&e))?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        momentum.draw_series(LineSeries::new(rows.iter().map(|r| (r.0, r.2)), style)).map_err(|e| err(&e))?;
    }
    energy
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::LowerLeft)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
