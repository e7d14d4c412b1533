//! Higher-order §5.4's jumping ball (Löschner et al. 2020, Fig. 8): a neo-Hookean ball
//! (`examples/jumping-ball.toml`: ρ = 1000 kg/m³, E = 6·10⁵ Pa, ν = 0.48, 1 m across) dropped
//! from 3 m with no damping, its contact resolved by the predictor–corrector of §4, predicted by
//! backward Euler and by SDIRK2 at Δt = 5 ms and 0.5 ms.
//!
//! ```sh
//! cargo run --release --example jumping_ball -- OUT [--seconds 10] [--resolution 6]
//! ```
//!
//! Writes `fig8.csv` (time, then each run's total specific energy in J/kg, centre-of-mass height
//! and lowest vertex height in m) and `fig8.png` (the specific energy above, as the paper's left
//! panel; the height of the centre of mass below, its right panel as a plot). Each run's energy
//! at the end, its lowest point over the whole run (the ground is z = 0) and its wall time are
//! printed. `--resolution` sets the ball's cells per side (the scene's 6: 343 vertices). What
//! the runs show is in `docs/sync.md`.

use avicontact::observe::ObserverError;
use avicontact::prelude::*;
use avicontact::scene;
use avicontact::sync::IntegratorKind;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// How to call it.
const USAGE: &str = "jumping_ball OUT [--seconds S] [--resolution N]";

/// The ball scene.
const SCENE: &str = include_str!("jumping-ball.toml");

/// The runs of the figure: label, predictor, step.
const RUNS: [(&str, IntegratorKind, Real); 4] = [
    ("BE, 5 ms", IntegratorKind::ImplicitEuler, 0.005),
    ("SDIRK2, 5 ms", IntegratorKind::Sdirk2, 0.005),
    ("BE, 0.5 ms", IntegratorKind::ImplicitEuler, 0.0005),
    ("SDIRK2, 0.5 ms", IntegratorKind::Sdirk2, 0.0005),
];

/// (time, specific energy, centre-of-mass height, lowest vertex height) per frame.
type Rows = Vec<(Real, Real, Real, Real)>;

/// The ball's rows, frame by frame.
#[derive(Default)]
struct Record {
    rows: Rows,
}

impl Observer for Record {
    fn on_frame(&mut self, frame: &Frame<'_>) -> Result<(), ObserverError> {
        // the ball's vertices are those with a finite mass (the ground's are held)
        let masses = frame.model.vertices.masses();
        let (mut mass, mut moment, mut lowest) = (0.0, 0.0, Real::INFINITY);
        for (x, &m) in frame.positions.iter().zip(masses) {
            if m.is_finite() {
                mass += m;
                moment += m * x.z;
                lowest = lowest.min(x.z);
            }
        }
        self.rows.push((frame.time.seconds(), frame.stats.total() / mass, moment / mass, lowest));
        Ok(())
    }
}

/// The ball of `resolution` cells per side predicted by `integrator` at step `h` for `seconds`:
/// its rows and the wall time.
fn run(integrator: IntegratorKind, h: Real, seconds: Real, resolution: usize) -> Result<(Rows, f64), String> {
    let text = SCENE.replace("resolution = 6", &format!("resolution = {resolution}"));
    let mut s =
        scene::parse(&text, "jumping-ball", Path::new("examples"), "jumping-ball".into()).map_err(|e| e.to_string())?;
    s.parameters.duration = seconds;
    let mut sync = s.sync;
    sync.integrator = integrator;
    sync.timestep = h;
    let mut sim = Simulation::new_sync(s.model, s.forces, s.parameters, sync).map_err(|e| e.to_string())?;
    let mut record = Record::default();
    let start = std::time::Instant::now();
    sim.run(&mut record).map_err(|e| format!("{integrator:?} at h = {h} s: {e}"))?;
    Ok((record.rows, start.elapsed().as_secs_f64()))
}

fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let mut out: Option<PathBuf> = None;
    let (mut seconds, mut resolution) = (10.0, 6);
    assert!(SCENE.contains("resolution = 6"), "the scene's ball has 6 cells per side");
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value; usage: {USAGE}"));
        match arg.as_str() {
            "--seconds" => {
                let v = value("--seconds")?;
                seconds = v
                    .parse()
                    .ok()
                    .filter(|s: &Real| s.is_finite() && *s > 0.0)
                    .ok_or(format!("--seconds: not > 0: {v}"))?
            }
            "--resolution" => {
                let v = value("--resolution")?;
                resolution = v.parse().ok().filter(|&n| n >= 2).ok_or(format!("--resolution: not a count ≥ 2: {v}"))?
            }
            _ if out.is_none() && !arg.starts_with('-') => out = Some(PathBuf::from(arg)),
            _ => return Err(format!("unknown argument {arg}; usage: {USAGE}")),
        }
    }
    let out = out.ok_or(USAGE)?;
    std::fs::create_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "the bundled font did not load")?;

    let mut series = Vec::new();
    for (label, integrator, h) in RUNS {
        let (rows, wall) = run(integrator, h, seconds, resolution)?;
        let e0 = rows[0].1;
        let (t, e, _, _) = *rows.last().expect("a frame at the start");
        let lowest = rows.iter().map(|r| r.3).fold(Real::INFINITY, Real::min);
        println!(
            "{label}: at {t:.2} s {:.1} % of the energy left (relative to the ground: e = {e:.3} J/kg); \
             lowest point {lowest:.3e} m; {wall:.1} s",
            100.0 * e / e0
        );
        series.push((label, rows));
    }
    write_csv(&out.join("fig8.csv"), &series)?;
    chart(&out.join("fig8.png"), resolution, &series)?;
    println!("wrote {}", out.display());
    Ok(())
}

/// Writes every run's specific energy, centre-of-mass height and lowest point per frame.
fn write_csv(path: &Path, series: &[(&str, Rows)]) -> Result<(), String> {
    let longest = series.iter().max_by_key(|(_, r)| r.len()).map_or(&[][..], |(_, r)| &r[..]);
    let mut text = String::from("time");
    for (label, _) in series {
        let label = label.replace(',', ""); // "BE 5 ms": a comma would split the column
        text += &format!(",{label} energy [J/kg],{label} centre height [m],{label} lowest point [m]");
    }
    for (k, row) in longest.iter().enumerate() {
        text += &format!("\n{}", row.0);
        for (_, rows) in series {
            match rows.get(k) {
                Some((_, e, z, low)) => text += &format!(",{e},{z},{low}"),
                None => text += ",,,",
            }
        }
    }
    text.push('\n');
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

/// Specific energy above, centre-of-mass height below, one line per run.
fn chart(path: &Path, resolution: usize, series: &[(&str, Rows)]) -> Result<(), String> {
    let err = |e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let root = BitMapBackend::new(path, (1000, 900)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(&e))?;
    let (top, bottom) = root.split_vertically(450);
    let t_end = series.iter().flat_map(|(_, r)| r.last()).map(|r| r.0).fold(0.0, Real::max);
    let all = || series.iter().flat_map(|(_, r)| r.iter());
    let (e_min, e_max) = all().fold((Real::INFINITY, Real::NEG_INFINITY), |(a, b), r| (a.min(r.1), b.max(r.1)));
    let z_max = all().map(|r| r.2).fold(0.0, Real::max);
    let colors = [RGBColor(255, 140, 0), RGBColor(0, 170, 255), RED, BLUE];
    let mut energy = ChartBuilder::on(&top)
        .caption(
            format!("Jumping ball, predictor–corrector contact ({resolution}³ cells): total specific energy"),
            ("sans-serif", 22),
        )
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..t_end, (e_min - 0.05 * (e_max - e_min))..(e_max + 0.05 * (e_max - e_min)))
        .map_err(|e| err(&e))?;
    energy
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_desc("t [s]")
        .y_desc("e [J/kg]")
        .draw()
        .map_err(|e| err(&e))?;
    let mut height = ChartBuilder::on(&bottom)
        .caption("height of the centre of mass (the ground is z = 0)", ("sans-serif", 22))
        .margin(15)
        .x_label_area_size(40)
        .y_label_area_size(80)
        .build_cartesian_2d(0.0..t_end, 0.0..z_max * 1.05)
        .map_err(|e| err(&e))?;
    height
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_desc("t [s]")
        .y_desc("z [m]")
        .draw()
        .map_err(|e| err(&e))?;
    for ((label, rows), color) in series.iter().zip(colors.iter().cycle()) {
        let style = ShapeStyle::from(color).stroke_width(2);
        energy
            .draw_series(LineSeries::new(rows.iter().map(|r| (r.0, r.1)), style))
            .map_err(|e| err(&e))?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        height.draw_series(LineSeries::new(rows.iter().map(|r| (r.0, r.2)), style)).map_err(|e| err(&e))?;
    }
    energy
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperRight)
        .draw()
        .map_err(|e| err(&e))?;
    root.present().map_err(|e| err(&e))
}
