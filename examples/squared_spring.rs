//! Stabilizing §3 (Dinev et al. 2018, Fig. 2 and Fig. 3): the pre-stretched "squared" spring
//! E = ½k(‖x‖² − 1)², one end held at the origin, k = 1e5, a mass of 0.5 kg starting at
//! (1.5, 0, 0) m with velocity (0, 10, 0) m/s, by implicit midpoint at h = 0.00033 s and
//! h = 0.033 s, and by the energy-tracking blend at h = 0.033 s. The potential is written here,
//! on the library's `Potential` trait: it ships with no scene kind.
//!
//! ```sh
//! cargo run --release --example squared_spring -- OUT [--seconds 1]
//! ```
//!
//! Writes `fig2.png` (the moving end's path in the plane of motion, each step size, with the
//! circle of the starting length 1.5 m), `fig3.png` (energy on a log scale and the z component of
//! angular momentum at h = 0.033 s) and `squared_spring.csv` (time, run, x, y, energy, L_z per
//! step). What the runs show is in `docs/sync.md`.

use avicontact::prelude::*;
use avicontact::sync::{IntegratorKind, NewtonParameters, SyncParameters};
use nalgebra::{DMatrix, Matrix3};
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// How to call it.
const USAGE: &str = "squared_spring OUT [--seconds S]";

/// The paper's stiffness and mass.
const STIFFNESS: Real = 1e5;
const MASS: Real = 0.5;

/// E = ½k(‖x₁ − x₀‖² − 1)² (Stabilizing eq. 7, a squared Hookean spring of rest length 1 m).
#[derive(Debug)]
struct SquaredSpring {
    stencil: [VertexId; 2],
}

impl Potential for SquaredSpring {
    fn kind(&self) -> &'static str {
        "squared-spring"
    }
    fn stencil(&self) -> &[VertexId] {
        &self.stencil
    }
    fn energy(&self, x: &[Vec3]) -> Real {
        let s = (x[1] - x[0]).norm_squared() - 1.0;
        0.5 * STIFFNESS * s * s
    }
    fn gradient(&self, x: &[Vec3], grad: &mut [Vec3]) {
        let e = x[1] - x[0];
        grad[1] = e * (2.0 * STIFFNESS * (e.norm_squared() - 1.0));
        grad[0] = -grad[1];
    }
    fn hessian(&self, x: &[Vec3]) -> Option<DMatrix<Real>> {
        let e = x[1] - x[0];
        let block =
            Matrix3::identity() * (2.0 * STIFFNESS * (e.norm_squared() - 1.0)) + e * e.transpose() * (4.0 * STIFFNESS);
        Some(DMatrix::from_fn(6, 6, |r, c| if (r < 3) == (c < 3) { 1.0 } else { -1.0 } * block[(r % 3, c % 3)]))
    }
}

/// One row per frame: time, x, y, energy, L_z.
#[derive(Default)]
struct Path2 {
    rows: Vec<[Real; 5]>,
}

impl Observer for Path2 {
    fn on_frame(&mut self, f: &Frame<'_>) -> Result<(), avicontact::observe::ObserverError> {
        let x = f.positions[1];
        self.rows.push([f.time.seconds(), x.x, x.y, f.stats.total(), f.stats.angular_momentum.z]);
        Ok(())
    }
}

/// The spring run by `integrator` at step `h` for `seconds`, a frame every step.
fn run(integrator: IntegratorKind, h: Real, seconds: Real) -> Result<Vec<[Real; 5]>, Box<dyn std::error::Error>> {
    let mut model = Model::new();
    let body = model.add_body(
        Body::new("spring", BodyKind::Particles { radius: 0.01 }),
        &[Vec3::zeros(), Vec3::new(1.5, 0.0, 0.0)],
        &[Vec3::zeros(), Vec3::new(0.0, 10.0, 0.0)],
        &[MASS, MASS],
    );
    let (a, b) = (model.vertex(body, 0), model.vertex(body, 1));
    model.vertices.fix(a);
    let forces = vec![ForceSpec::new(Box::new(SquaredSpring { stencil: [a, b] }), PeriodChoice::Stable)];
    let parameters =
        SimulationParameters { duration: seconds, frame_rate: 1.0 / h, gravity: Vec3::zeros(), ..Default::default() };
    let sync = SyncParameters {
        integrator,
        timestep: h,
        newton: NewtonParameters { tolerance: 1e-12, max_iterations: 200, ..Default::default() },
        contact: None,
        ..Default::default()
    };
    let mut sim = Simulation::new_sync(model, forces, parameters, sync)?;
    let mut path = Path2::default();
    sim.run(&mut path)?;
    Ok(path.rows)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let mut out: Option<PathBuf> = None;
    let mut seconds = 1.0;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--seconds" => {
                let v = args.next().ok_or("--seconds needs a number of seconds")?;
                seconds = v.parse::<Real>().ok().filter(|s| s.is_finite() && *s > 0.0).ok_or(USAGE)?;
            }
            _ if out.is_none() && !arg.starts_with('-') => out = Some(PathBuf::from(arg)),
            _ => return Err(format!("unknown argument {arg}; usage: {USAGE}").into()),
        }
    }
    let out = out.ok_or(USAGE)?;
    std::fs::create_dir_all(&out)?;
    plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
        .map_err(|_| "the bundled font did not load")?;
    let runs = [
        ("implicit midpoint, h = 0.00033 s", IntegratorKind::ImplicitMidpoint, 0.00033),
        ("implicit midpoint, h = 0.033 s", IntegratorKind::ImplicitMidpoint, 0.033),
        ("blend, h = 0.033 s", IntegratorKind::Blend, 0.033),
    ];
    let mut series = Vec::new();
    let mut csv = String::from("time,run,x,y,energy,angular_momentum_z\n");
    for (label, integrator, h) in runs {
        let rows = run(integrator, h, seconds)?;
        let (e0, l0) = (rows[0][3], rows[0][4]);
        let e_max = rows.iter().map(|r| r[3]).fold(0.0, Real::max);
        let r_max = rows.iter().map(|r| r[1].hypot(r[2])).fold(0.0, Real::max);
        let l_drift = rows.iter().map(|r| (r[4] - l0).abs()).fold(0.0, Real::max) / l0.abs();
        println!(
            "{label}: energy starts at {e0:.1} J, peaks at {e_max:.4e} J; the end reaches {r_max:.3} m from the \
             origin; L_z drifts by {l_drift:.1e} of its start"
        );
        for r in &rows {
            csv += &format!("{},{label},{},{},{},{}\n", r[0], r[1], r[2], r[3], r[4]);
        }
        series.push((label, rows));
    }
    std::fs::write(out.join("squared_spring.csv"), csv)?;
    fig2(&out.join("fig2.png"), &series)?;
    fig3(&out.join("fig3.png"), &series[1..])?;
    println!("wrote {}", out.display());
    Ok(())
}

const COLORS: [RGBColor; 3] = [BLUE, RED, GREEN];

/// The moving end's path in the xy plane, with the circle of the starting length.
fn fig2(path: &Path, series: &[(&str, Vec<[Real; 5]>)]) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (1200, 420)).into_drawing_area();
    root.fill(&WHITE)?;
    for (area, ((label, rows), color)) in root.split_evenly((1, series.len())).iter().zip(series.iter().zip(COLORS)) {
        // the window of the paper's figure, or wide enough for a path that leaves it
        let reach = rows.iter().map(|r| r[1].abs().max(r[2].abs())).fold(2.0, Real::max).min(1e3);
        let mut chart = ChartBuilder::on(area)
            .caption(*label, ("sans-serif", 18))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(40)
            .build_cartesian_2d(-reach..reach, -reach..reach)?;
        chart.configure_mesh().light_line_style(TRANSPARENT).x_desc("x [m]").y_desc("y [m]").draw()?;
        let circle = (0..=200).map(|k| {
            let a = k as Real / 200.0 * std::f64::consts::TAU;
            (1.5 * a.cos(), 1.5 * a.sin())
        });
        chart.draw_series(LineSeries::new(circle, ShapeStyle::from(&RED.mix(0.6)).stroke_width(1)))?;
        let inside = rows.iter().filter(|r| r[1].abs() <= reach && r[2].abs() <= reach);
        chart.draw_series(inside.map(|r| Circle::new((r[1], r[2]), 2, color.filled())))?;
    }
    root.present()?;
    Ok(())
}

/// Energy (log scale) above and L_z below, over time.
fn fig3(path: &Path, series: &[(&str, Vec<[Real; 5]>)]) -> Result<(), Box<dyn std::error::Error>> {
    let root = BitMapBackend::new(path, (900, 700)).into_drawing_area();
    root.fill(&WHITE)?;
    let (top, bottom) = root.split_vertically(350);
    let all = || series.iter().flat_map(|(_, r)| r.iter());
    let t_end = all().map(|r| r[0]).fold(0.0, Real::max);
    let (e_min, e_max) = all().fold((Real::INFINITY, 0.0), |(a, b): (Real, Real), r| (a.min(r[3]), b.max(r[3])));
    let (l_min, l_max) = all().fold((Real::INFINITY, Real::NEG_INFINITY), |(a, b), r| (a.min(r[4]), b.max(r[4])));
    let pad = (l_max - l_min).max(1e-3 * l_max.abs());
    let mut energy = ChartBuilder::on(&top)
        .caption("Squared spring, h = 0.033 s: total energy", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..t_end, (e_min / 2.0..e_max * 2.0).log_scale())?;
    energy
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_desc("t [s]")
        .y_desc("energy [J]")
        .y_label_formatter(&|y| format!("{y:.0e}"))
        .draw()?;
    let mut momentum = ChartBuilder::on(&bottom)
        .caption("angular momentum L_z", ("sans-serif", 20))
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..t_end, (l_min - pad)..(l_max + pad))?;
    momentum.configure_mesh().light_line_style(TRANSPARENT).x_desc("t [s]").y_desc("L_z [kg m²/s]").draw()?;
    for ((label, rows), color) in series.iter().zip(COLORS.iter().skip(1)) {
        let style = ShapeStyle::from(color).stroke_width(2);
        energy
            .draw_series(LineSeries::new(rows.iter().map(|r| (r[0], r[3])), style))?
            .label(*label)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
        momentum.draw_series(LineSeries::new(rows.iter().map(|r| (r[0], r[4])), style))?;
    }
    energy.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    root.present()?;
    Ok(())
}
