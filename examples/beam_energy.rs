//! Higher-order §5.3: the double-clamped beam swinging under gravity without damping
//! (`examples/double-clamped-beam.toml`), integrated by BE, BDF2, SDIRK2, TR-BDF2 and ROS3PL.
//!
//! - **Fig. 3.** The change of the beam's total specific energy, |e(t) − e(0)| in J/kg, over time
//!   at Δt = 33 ms and 5 ms: `fig3_33ms.{csv,png}` and `fig3_5ms.{csv,png}`.
//! - **Fig. 4.** The change at the end of the run against the step size, with slopes of first,
//!   second and third order: `fig4.{csv,png}`.
//!
//! ```sh
//! cargo run --release --example beam_energy -- OUT [--seconds 200] [--end 10] [--only FIGURE]
//! ```
//!
//! `--seconds` is Fig. 3's span and `--end` Fig. 4's (the paper's: 200 s and 10 s, the
//! defaults); `--only` makes one figure: `fig3_33ms`, `fig3_5ms` or `fig4`. What the runs show, and how they differ from the paper's, is in `docs/sync.md`.

use avicontact::observe::ObserverError;
use avicontact::prelude::*;
use avicontact::scene;
use avicontact::sync::IntegratorKind;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// How to call it.
const USAGE: &str = "beam_energy OUT [--seconds S] [--end S] [--only fig3_33ms|fig3_5ms|fig4]";

/// The beam scene.
const SCENE: &str = include_str!("double-clamped-beam.toml");

/// The integrators of the paper's figures that the synchronous backend has, with their labels.
const INTEGRATORS: [(&str, IntegratorKind); 5] = [
    ("BE", IntegratorKind::ImplicitEuler),
    ("BDF2", IntegratorKind::Bdf2),
    ("SDIRK2", IntegratorKind::Sdirk2),
    ("TR-BDF2", IntegratorKind::TrBdf2),
    ("ROS3PL", IntegratorKind::Ros3pl),
];

/// Fig. 4's step sizes, s.
const STEPS: [Real; 7] = [0.2, 0.1, 0.05, 0.02, 0.01, 0.005, 0.002];

/// |e(t) − e(0)| at every frame, in J/kg.
struct EnergyChange {
    mass: Real,
    start: Option<Real>,
    rows: Vec<(Real, Real)>,
}

impl Observer for EnergyChange {
    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        let e = frame.stats.total() / self.mass;
        let e0 = *self.start.get_or_insert(e);
        self.rows.push((frame.time.seconds(), (e - e0).abs()));
        Ok(())
    }
}

/// The beam run by `integrator` at step `h` for `seconds`, one frame every `every` s: its rows of
/// |Δe|, and the wall time.
fn run(integrator: IntegratorKind, h: Real, seconds: Real, every: Real) -> Result<(Vec<(Real, Real)>, f64), String> {
    let mut s = scene::parse(SCENE, "double-clamped-beam", Path::new("examples"), "double-clamped-beam".into())
        .map_err(|e| e.to_string())?;
    s.parameters.duration = seconds;
    s.parameters.frame_rate = 1.0 / every;
    let mass: Real = s.model.vertices.masses().iter().sum();
    let mut sync = s.sync;
    sync.integrator = integrator;
    sync.timestep = h;
    let mut sim = Simulation::new_sync(s.model, s.forces, s.parameters, sync).map_err(|e| e.to_string())?;
    let mut change = EnergyChange { mass, start: None, rows: Vec::new() };
    let start = std::time::Instant::now();
    sim.run(&mut change).map_err(|e| format!("{integrator:?} at h = {h} s: {e}"))?;
    Ok((change.rows, start.elapsed().as_secs_f64()))
}

/// A log-scale chart of one series per integrator into `path` (PNG).
fn chart(
    path: &Path,
    title: &str,
    (x_label, y_label): (&str, &str),
    series: &[(String, Vec<(Real, Real)>)],
    log_x: bool,
    guides: &[(String, Vec<(Real, Real)>)],
) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let points = || series.iter().chain(guides).flat_map(|(_, rows)| rows.iter()).filter(|(_, y)| *y > 0.0);
    let (x_min, x_max) = points().fold((Real::INFINITY, Real::NEG_INFINITY), |(a, b), (x, _)| (a.min(*x), b.max(*x)));
    let (y_min, y_max) = points().fold((Real::INFINITY, Real::NEG_INFINITY), |(a, b), (_, y)| (a.min(*y), b.max(*y)));
    let root = BitMapBackend::new(path, (900, 600)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let colors = [RED, BLUE, GREEN, MAGENTA, BLACK];
    let mut builder = ChartBuilder::on(&root);
    builder.caption(title, ("sans-serif", 22)).margin(15).x_label_area_size(45).y_label_area_size(80);
    let y_range = (y_min / 2.0..y_max * 2.0).log_scale();
    macro_rules! draw {
        ($chart:expr) => {{
            let mut chart = $chart;
            chart
                .configure_mesh()
                .x_desc(x_label)
                .y_desc(y_label)
                .x_labels(8)
                .x_label_formatter(&|x| short(*x))
                .y_label_formatter(&|y| format!("{:.0e}", y))
                .draw()
                .map_err(|e| err(&e))?;
            for ((label, rows), color) in series.iter().zip(colors.iter().cycle()) {
                let rows: Vec<(Real, Real)> = rows.iter().copied().filter(|(_, y)| *y > 0.0).collect();
                let style = ShapeStyle::from(color).stroke_width(2);
                chart
                    .draw_series(LineSeries::new(rows, style))
                    .map_err(|e| err(&e))?
                    .label(label.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            }
            for (label, rows) in guides {
                let style = ShapeStyle::from(&BLACK.mix(0.4)).stroke_width(1);
                chart
                    .draw_series(LineSeries::new(rows.clone(), style))
                    .map_err(|e| err(&e))?
                    .label(label.as_str())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
            }
            chart
                .configure_series_labels()
                .background_style(WHITE.mix(0.8))
                .border_style(BLACK)
                .position(SeriesLabelPosition::LowerRight)
                .draw()
                .map_err(|e| err(&e))?;
        }};
    }
    if log_x {
        draw!(builder.build_cartesian_2d((x_min / 1.5..x_max * 1.5).log_scale(), y_range).map_err(|e| err(&e))?);
    } else {
        draw!(builder.build_cartesian_2d(x_min..x_max, y_range).map_err(|e| err(&e))?);
    }
    root.present().map_err(|e| err(&e))
}

/// `x` with at most four decimals and no trailing zeros, for a tick label.
fn short(x: Real) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Writes `rows` of `header` to `path`.
fn write_csv(path: &Path, header: &str, rows: &[String]) -> Result<(), String> {
    std::fs::write(path, format!("{header}\n{}\n", rows.join("\n"))).map_err(|e| format!("{}: {e}", path.display()))
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut out: Option<PathBuf> = None;
    let (mut seconds, mut end) = (200.0, 10.0);
    let mut only: Option<String> = None;
    while let Some(arg) = args.next() {
        let mut value = |name: &str| -> Result<Real, String> {
            let v = args.next().ok_or(format!("{name} needs a number of seconds"))?;
            v.parse::<Real>().ok().filter(|s| s.is_finite() && *s > 0.0).ok_or(format!("{name}: not seconds > 0: {v}"))
        };
        match arg.as_str() {
            "--seconds" => seconds = value("--seconds")?,
            "--end" => end = value("--end")?,
            "--only" => {
                let figures = ["fig3_33ms", "fig3_5ms", "fig4"];
                only = Some(args.next().filter(|f| figures.contains(&f.as_str())).ok_or(USAGE)?)
            }
            _ if out.is_none() && !arg.starts_with('-') => out = Some(PathBuf::from(arg)),
            _ => return Err(format!("unknown argument {arg}; usage: {USAGE}")),
        }
    }
    let out = out.ok_or(USAGE)?;
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "the bundled font did not load")?;

    let wanted = |figure: &str| only.as_deref().is_none_or(|o| o == figure);
    // Fig. 3: |Δe| over time at the paper's two step sizes
    for (h, name) in [(0.033, "33ms"), (0.005, "5ms")].into_iter().filter(|(_, name)| wanted(&format!("fig3_{name}"))) {
        let mut series = Vec::new();
        for (label, integrator) in INTEGRATORS {
            let (rows, wall) = run(integrator, h, seconds, 0.1)?;
            println!(
                "Fig. 3, h = {h} s, {label}: |Δe| at {seconds} s = {:.4e} J/kg ({wall:.1} s)",
                rows.last().map_or(0.0, |r| r.1)
            );
            series.push((label.to_string(), rows));
        }
        let rows: Vec<String> = (0..series[0].1.len())
            .map(|k| {
                let cells: Vec<String> =
                    series.iter().map(|(_, r)| r.get(k).map_or(String::new(), |v| v.1.to_string())).collect();
                format!("{},{}", series[0].1[k].0, cells.join(","))
            })
            .collect();
        let labels: Vec<&str> = INTEGRATORS.iter().map(|(l, _)| *l).collect();
        write_csv(&out.join(format!("fig3_{name}.csv")), &format!("time,{}", labels.join(",")), &rows)?;
        let title = format!("Double-clamped beam, Δt = {} ms: change of total specific energy", h * 1e3);
        chart(&out.join(format!("fig3_{name}.png")), &title, ("t [s]", "|Δe| [J/kg]"), &series, false, &[])?;
    }

    if !wanted("fig4") {
        println!("wrote {}", out.display());
        return Ok(());
    }
    // Fig. 4: |Δe| at the end against the step size, with ideal slopes
    let mut series = Vec::new();
    let mut rows = Vec::new();
    for (label, integrator) in INTEGRATORS {
        let mut points = Vec::new();
        for h in STEPS {
            let (r, wall) = run(integrator, h, end, end)?;
            let change = r.last().map_or(Real::NAN, |r| r.1);
            println!("Fig. 4, {label}, h = {h} s: |Δe| at {end} s = {change:.4e} J/kg ({wall:.1} s)");
            rows.push(format!("{label},{h},{change}"));
            points.push((h, change));
        }
        series.push((label.to_string(), points));
    }
    write_csv(&out.join("fig4.csv"), "integrator,step,energy_change", &rows)?;
    // slopes 1, 2 and 3 through the smallest step's BE, BDF2 and ROS3PL points
    let at = |label: &str| series.iter().find(|(l, _)| l == label).map(|(_, p)| p[p.len() - 1]).expect("run");
    let guides: Vec<(String, Vec<(Real, Real)>)> = [("BE", 1), ("BDF2", 2), ("ROS3PL", 3)]
        .iter()
        .map(|&(label, order)| {
            let (h0, e0) = at(label);
            let line = [h0, STEPS[0]].iter().map(|&h| (h, e0 * (h / h0).powi(order))).collect();
            (format!("order {order}"), line)
        })
        .collect();
    let title = format!("Double-clamped beam: change of total specific energy at {end} s");
    chart(&out.join("fig4.png"), &title, ("Δt [s]", "|Δe| [J/kg]"), &series, true, &guides)?;
    println!("wrote {}", out.display());
    Ok(())
}
