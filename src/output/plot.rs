//! `avicontact plot DIR`: draws energy and momentum against time from `DIR/stats.csv`.
//!
//! Text is rendered with plotters' `ab_glyph` backend from the DejaVu Sans font bundled by the
//! `dejavu` crate, so no system fonts (fontconfig, freetype) are needed.

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Once;

use plotters::coord::Shift;
use plotters::prelude::*;

/// Columns read from `stats.csv`, looked up by name in its header; other columns are ignored.
const COLUMNS: [&str; 12] = [
    "time",
    "kinetic",
    "potential",
    "total",
    "dissipated",
    "external_work",
    "momentum_x",
    "momentum_y",
    "momentum_z",
    "angular_x",
    "angular_y",
    "angular_z",
];
/// Rows with a larger magnitude (a blown-up run) are skipped like NaN: plotters cannot scale to them.
const LARGEST: f64 = 1e100;
const TIME: usize = 0;
const KINETIC: usize = 1;
const POTENTIAL: usize = 2;
const TOTAL: usize = 3;
const DISSIPATED: usize = 4;
const EXTERNAL_WORK: usize = 5;
const MOMENTUM: usize = 6;
const ANGULAR: usize = 9;

/// Why `avicontact plot` could not draw its figures.
#[derive(Debug)]
#[non_exhaustive]
pub enum PlotError {
    /// `DIR/stats.csv` does not exist.
    MissingStats {
        /// The path that was looked for.
        path: PathBuf,
    },
    /// `stats.csv` exists but could not be read.
    Read {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// The header of `stats.csv` lacks a needed column.
    MissingColumn {
        /// The file.
        path: PathBuf,
        /// The column that was not found.
        column: &'static str,
    },
    /// A data row could not be parsed.
    Malformed {
        /// The file.
        path: PathBuf,
        /// 1-based line number (the header is line 1).
        line: usize,
        /// The column whose field is missing or not a number.
        column: &'static str,
        /// The offending text, empty if the row ends before this column.
        value: String,
    },
    /// Fewer than two usable (finite) rows, so there is no curve to draw.
    TooFewRows {
        /// The file.
        path: PathBuf,
        /// Rows that were usable.
        rows: usize,
        /// Rows skipped because a needed value was NaN, infinite or beyond ±1e100.
        skipped: usize,
    },
    /// Drawing or writing an output image failed.
    Write {
        /// The image that could not be written.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
}

impl fmt::Display for PlotError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::MissingStats { path } => {
                write!(f, "{} not found; run `avicontact run SCENE --out DIR` first", path.display())
            }
            Self::Read { path, source } => write!(f, "cannot read {}: {source}", path.display()),
            Self::MissingColumn { path, column } => write!(
                f,
                "{}: header has no column `{column}`; expected the stats.csv written by \
                 `avicontact run` (columns {})",
                path.display(),
                COLUMNS.join(",")
            ),
            Self::Malformed { path, line, column, value } if value.is_empty() => {
                write!(f, "{}:{line}: row ends before column `{column}`; fix or delete that line", path.display())
            }
            Self::Malformed { path, line, column, value } => write!(
                f,
                "{}:{line}: column `{column}`: `{value}` is not a number; fix or delete that line",
                path.display()
            ),
            Self::TooFewRows { path, rows, skipped } => {
                write!(f, "{}: {rows} usable data row(s), need at least 2", path.display())?;
                if *skipped > 0 {
                    write!(
                        f,
                        "; {skipped} row(s) had NaN, infinite or beyond-±1e100 values, \
                         so the run diverged: check the scene"
                    )
                } else {
                    write!(f, "; run the scene longer so that more frames are written")
                }
            }
            Self::Write { path, message } => {
                write!(f, "cannot write {}: {message}; check that the directory is writable", path.display())
            }
        }
    }
}

impl std::error::Error for PlotError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Read { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// The needed columns of `stats.csv`, one array per usable row, in [`COLUMNS`] order.
struct Stats {
    rows: Vec<[f64; COLUMNS.len()]>,
    /// Rows dropped because a needed value was NaN, infinite or beyond [`LARGEST`].
    skipped: usize,
}

impl Stats {
    fn column(&self, c: usize) -> Vec<f64> {
        self.rows.iter().map(|r| r[c]).collect()
    }
}

fn read_stats(path: &Path) -> Result<Stats, PlotError> {
    let text = std::fs::read_to_string(path).map_err(|source| match source.kind() {
        std::io::ErrorKind::NotFound => PlotError::MissingStats { path: path.to_owned() },
        _ => PlotError::Read { path: path.to_owned(), source },
    })?;
    let mut lines = text.lines().enumerate();
    let header: Vec<&str> = lines
        .next()
        .map(|(_, h)| h.trim_start_matches('\u{feff}').split(',').map(str::trim).collect())
        .unwrap_or_default();
    let mut index = [0usize; COLUMNS.len()];
    for (slot, name) in index.iter_mut().zip(COLUMNS) {
        *slot = header
            .iter()
            .position(|h| *h == name)
            .ok_or(PlotError::MissingColumn { path: path.to_owned(), column: name })?;
    }

    let mut stats = Stats { rows: Vec::new(), skipped: 0 };
    for (i, line) in lines {
        if line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let mut row = [0.0_f64; COLUMNS.len()];
        for ((value, &at), name) in row.iter_mut().zip(&index).zip(COLUMNS) {
            let field = fields.get(at).copied().unwrap_or("");
            *value = field.parse().map_err(|_| PlotError::Malformed {
                path: path.to_owned(),
                line: i + 1,
                column: name,
                value: field.to_owned(),
            })?;
        }
        if row.iter().all(|v| v.abs() <= LARGEST) {
            stats.rows.push(row);
        } else {
            stats.skipped += 1;
        }
    }
    if stats.rows.len() < 2 {
        return Err(PlotError::TooFewRows { path: path.to_owned(), rows: stats.rows.len(), skipped: stats.skipped });
    }
    Ok(stats)
}

/// One line on a chart.
struct Curve {
    label: String,
    color: RGBColor,
    dashed: bool,
    values: Vec<f64>,
    /// Its own time column (runs compared side by side), or `None` for the chart's.
    time: Option<Vec<f64>>,
}

impl Curve {
    fn new(label: &str, color: RGBColor, values: Vec<f64>) -> Self {
        Self { label: label.to_string(), color, dashed: false, values, time: None }
    }
}

/// `min..max` of `values`, widened so a flat curve still gets an axis, then padded by the fractions
/// `below` and `above` of its span (`above` leaves room for the legend).
fn range(values: impl Iterator<Item = f64>, below: f64, above: f64) -> std::ops::Range<f64> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let scale = lo.abs().max(hi.abs());
    if hi - lo <= 1e-9 * scale {
        let half = if scale > 0.0 { 0.05 * scale } else { 1.0 };
        return (lo - half)..(hi + half * (1.0 + 2.0 * above));
    }
    (lo - below * (hi - lo))..(hi + above * (hi - lo))
}

/// Draws `curves` against `time` in `area` with a caption, axis names and a legend.
fn draw_chart<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    caption: &str,
    y_desc: &str,
    time: &[f64],
    curves: &[Curve],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let x = range(time.iter().chain(curves.iter().filter_map(|c| c.time.as_ref()).flatten()).copied(), 0.0, 0.0);
    let y = range(curves.iter().flat_map(|c| c.values.iter().copied()), 0.05, 0.3);
    let (x_span, y_span) = (x.end - x.start, y.end - y.start);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(45)
        .y_label_area_size(85)
        .build_cartesian_2d(x, y)?;
    chart
        .configure_mesh()
        .x_desc("time [s]")
        .y_desc(y_desc)
        .label_style(("sans-serif", 15))
        .axis_desc_style(("sans-serif", 17))
        .y_label_formatter(&|v| tick_label(*v, y_span))
        .x_label_formatter(&|v| tick_label(*v, x_span))
        .draw()?;
    for c in curves {
        let points = c.time.as_deref().unwrap_or(time).iter().copied().zip(c.values.iter().copied());
        let style = c.color.stroke_width(2);
        let color = c.color;
        let legend = move |(x, y): (i32, i32)| PathElement::new([(x, y), (x + 24, y)], color.stroke_width(2));
        if c.dashed {
            chart.draw_series(DashedLineSeries::new(points, 8, 5, style))?.label(c.label.as_str()).legend(legend);
        } else {
            chart.draw_series(LineSeries::new(points, style))?.label(c.label.as_str()).legend(legend);
        }
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font(("sans-serif", 15))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
}

/// Short tick labels: plain decimals for ordinary magnitudes, scientific notation otherwise. A
/// tick within 1e-9 of the axis's `span` of zero is zero: the tick positions are sums of steps,
/// and their round-off (a zero tick at -2.78e-17 on an axis from -0.1 to 0.1) is no value.
fn tick_label(v: f64, span: f64) -> String {
    let v = if v.abs() <= 1e-9 * span.abs() { 0.0 } else { v };
    let a = v.abs();
    if a != 0.0 && !(1e-3..1e5).contains(&a) {
        format!("{v:.2e}")
    } else {
        let s = format!("{v:.4}");
        let s = s.trim_end_matches('0').trim_end_matches('.');
        if s == "-0" {
            "0".into()
        } else {
            s.into()
        }
    }
}

fn draw_energy<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    stats: &Stats,
    title: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let total = stats.column(TOTAL);
    // the ledger: constant up to the integrator's oscillation (crate::ledger)
    let ledger = stats.rows.iter().map(|r| r[TOTAL] + r[DISSIPATED] - r[EXTERNAL_WORK]).collect();
    let curves = [
        Curve::new("kinetic", RGBColor(31, 119, 180), stats.column(KINETIC)),
        Curve::new("potential", RGBColor(44, 160, 44), stats.column(POTENTIAL)),
        Curve::new("total", BLACK, total),
        Curve { dashed: true, ..Curve::new("total + dissipated − external work", RGBColor(214, 39, 40), ledger) },
    ];
    draw_chart(&root, &format!("energy: {title}"), "energy [J]", &stats.column(TIME), &curves)?;
    root.present()
}

fn draw_momentum<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    stats: &Stats,
    title: &str,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&WHITE)?;
    let inner = root.titled(&format!("momentum: {title}"), ("sans-serif", 24))?;
    let (top, bottom) = inner.split_vertically(50.percent());
    let time = stats.column(TIME);
    let colors = [RGBColor(214, 39, 40), RGBColor(44, 160, 44), RGBColor(31, 119, 180)];
    let xyz = |first: usize, names: [&str; 3]| -> Vec<Curve> {
        (0..3).map(|k| Curve::new(names[k], colors[k], stats.column(first + k))).collect()
    };
    let linear = xyz(MOMENTUM, ["p_x", "p_y", "p_z"]);
    draw_chart(&top, "linear momentum", "momentum [kg·m/s]", &time, &linear)?;
    let angular = xyz(ANGULAR, ["L_x", "L_y", "L_z"]);
    draw_chart(&bottom, "angular momentum", "angular momentum [kg·m²/s]", &time, &angular)?;
    root.present()
}

/// Makes the bundled DejaVu Sans the `sans-serif` font of plotters (once per process).
fn register_font() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        // Cannot fail for a valid TTF; if it did, drawing text reports a font error instead.
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
    });
}

/// Draws energy and momentum against time from `DIR/stats.csv` into PNG and SVG files in DIR.
///
/// Writes `energy.png`, `energy.svg`, `momentum.png` and `momentum.svg` and returns their paths.
/// Rows with a NaN, infinite or beyond-±1e100 value are left out (the count shows in the figure titles).
pub fn plot_run(dir: &Path) -> Result<Vec<PathBuf>, PlotError> {
    let stats = read_stats(&dir.join("stats.csv"))?;
    register_font();

    let name = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_owned());
    let mut title = name.file_name().map_or_else(|| dir.display().to_string(), |n| n.to_string_lossy().into_owned());
    if stats.skipped > 0 {
        title += &format!(" ({} row(s) with NaN/inf skipped)", stats.skipped);
    }

    const ENERGY_SIZE: (u32, u32) = (1000, 600);
    const MOMENTUM_SIZE: (u32, u32) = (1000, 900);
    let paths = ["energy.png", "energy.svg", "momentum.png", "momentum.svg"].map(|f| dir.join(f));
    let [energy_png, energy_svg, momentum_png, momentum_svg] = &paths;
    let (st, t) = (&stats, title.as_str());
    check(energy_png, draw_energy(BitMapBackend::new(energy_png, ENERGY_SIZE).into_drawing_area(), st, t))?;
    check(energy_svg, draw_energy(SVGBackend::new(energy_svg, ENERGY_SIZE).into_drawing_area(), st, t))?;
    check(momentum_png, draw_momentum(BitMapBackend::new(momentum_png, MOMENTUM_SIZE).into_drawing_area(), st, t))?;
    check(momentum_svg, draw_momentum(SVGBackend::new(momentum_svg, MOMENTUM_SIZE).into_drawing_area(), st, t))?;
    Ok(paths.into())
}

/// Colours of compared runs, in order.
const RUN_COLORS: [RGBColor; 6] = [
    RGBColor(0, 0, 0),
    RGBColor(214, 39, 40),
    RGBColor(31, 119, 180),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
    RGBColor(255, 127, 14),
];

/// Draws the runs in `runs` (label, run directory with a `stats.csv`) side by side into
/// `dir/energy.{png,svg}` (total energy against time) and `dir/momentum.{png,svg}` (‖p‖ and ‖L‖
/// against time) and, when every run has a `penetration.csv` (`avicontact compare` writes one),
/// `dir/penetration.{png,svg}` (the deepest vertex inside another body against time); returns the
/// paths.
pub fn plot_comparison(dir: &Path, runs: &[(String, PathBuf)]) -> Result<Vec<PathBuf>, PlotError> {
    register_font();
    let mut series = Vec::new();
    for (label, run_dir) in runs {
        series.push((label.clone(), read_stats(&run_dir.join("stats.csv"))?));
    }
    let curves = |f: &dyn Fn(&[f64]) -> f64| -> Vec<Curve> {
        series
            .iter()
            .enumerate()
            .map(|(k, (label, stats))| Curve {
                time: Some(stats.column(TIME)),
                ..Curve::new(label, RUN_COLORS[k % RUN_COLORS.len()], stats.rows.iter().map(|r| f(r)).collect())
            })
            .collect()
    };
    let energy = curves(&|r| r[TOTAL]);
    let linear = curves(&|r| {
        (r[MOMENTUM] * r[MOMENTUM] + r[MOMENTUM + 1] * r[MOMENTUM + 1] + r[MOMENTUM + 2] * r[MOMENTUM + 2]).sqrt()
    });
    let angular = curves(&|r| {
        (r[ANGULAR] * r[ANGULAR] + r[ANGULAR + 1] * r[ANGULAR + 1] + r[ANGULAR + 2] * r[ANGULAR + 2]).sqrt()
    });
    let paths = ["energy.png", "energy.svg", "momentum.png", "momentum.svg"].map(|f| dir.join(f));
    let [energy_png, energy_svg, momentum_png, momentum_svg] = &paths;
    fn energy_chart<DB: DrawingBackend>(
        root: DrawingArea<DB, Shift>,
        curves: &[Curve],
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        draw_chart(&root, "total energy", "energy [J]", &[], curves)?;
        root.present()
    }
    fn momentum_chart<DB: DrawingBackend>(
        root: DrawingArea<DB, Shift>,
        linear: &[Curve],
        angular: &[Curve],
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(50.percent());
        draw_chart(&top, "linear momentum ‖p‖", "momentum [kg·m/s]", &[], linear)?;
        draw_chart(&bottom, "angular momentum ‖L‖", "angular momentum [kg·m²/s]", &[], angular)?;
        root.present()
    }
    check(energy_png, energy_chart(BitMapBackend::new(energy_png, (1000, 600)).into_drawing_area(), &energy))?;
    check(energy_svg, energy_chart(SVGBackend::new(energy_svg, (1000, 600)).into_drawing_area(), &energy))?;
    check(
        momentum_png,
        momentum_chart(BitMapBackend::new(momentum_png, (1000, 900)).into_drawing_area(), &linear, &angular),
    )?;
    check(
        momentum_svg,
        momentum_chart(SVGBackend::new(momentum_svg, (1000, 900)).into_drawing_area(), &linear, &angular),
    )?;
    let mut paths: Vec<PathBuf> = paths.into();
    let mut depths = Vec::new();
    for (k, (label, run_dir)) in runs.iter().enumerate() {
        let path = run_dir.join("penetration.csv");
        if !path.exists() {
            return Ok(paths);
        }
        let (time, depth) = read_penetration(&path)?;
        depths.push(Curve { time: Some(time), ..Curve::new(label, RUN_COLORS[k % RUN_COLORS.len()], depth) });
    }
    fn penetration_chart<DB: DrawingBackend>(
        root: DrawingArea<DB, Shift>,
        curves: &[Curve],
    ) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
        root.fill(&WHITE)?;
        draw_chart(&root, "deepest vertex inside another body", "depth [m]", &[], curves)?;
        root.present()
    }
    let (png, svg) = (dir.join("penetration.png"), dir.join("penetration.svg"));
    check(&png, penetration_chart(BitMapBackend::new(&png, (1000, 600)).into_drawing_area(), &depths))?;
    check(&svg, penetration_chart(SVGBackend::new(&svg, (1000, 600)).into_drawing_area(), &depths))?;
    paths.extend([png, svg]);
    Ok(paths)
}

/// The `time` and `depth` columns of a `penetration.csv`.
fn read_penetration(path: &Path) -> Result<(Vec<f64>, Vec<f64>), PlotError> {
    let text = std::fs::read_to_string(path).map_err(|source| PlotError::Read { path: path.to_owned(), source })?;
    let (mut time, mut depth) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate().skip(1).filter(|(_, l)| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        for (k, (column, values)) in [("time", &mut time), ("depth", &mut depth)].into_iter().enumerate() {
            let field = fields.get(k).copied().unwrap_or("");
            values.push(field.parse().map_err(|_| PlotError::Malformed {
                path: path.to_owned(),
                line: i + 1,
                column,
                value: field.to_owned(),
            })?);
        }
    }
    Ok((time, depth))
}

/// Turns a drawing error into [`PlotError::Write`] naming the image.
fn check<E: fmt::Display>(path: &Path, result: Result<(), E>) -> Result<(), PlotError> {
    result.map_err(|e| PlotError::Write { path: path.to_owned(), message: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "time,kinetic,potential,total,dissipated,external_work,momentum_x,momentum_y,momentum_z,\
                          angular_x,angular_y,angular_z,events";

    fn write_stats(dir: &Path, body: &str) {
        std::fs::write(dir.join("stats.csv"), format!("{HEADER}\n{body}")).unwrap();
    }

    #[test]
    fn writes_four_nonempty_images() {
        let dir = tempfile::tempdir().unwrap();
        let mut body = String::new();
        for i in 0..200 {
            let t = i as f64 * 0.01;
            let (k, u) = (5.0 * (3.0 * t).sin().powi(2), 5.0 * (3.0 * t).cos().powi(2) - 0.01 * t);
            body += &format!("{t},{k},{u},{},{},0,1.5,0,-{t},0.25,0.5,2.0,{i}\n", k + u, 0.01 * t);
        }
        body += "2.0,NaN,0,0,0,0,0,0,0,0,0,0,0\n";
        write_stats(dir.path(), &body);
        let written = plot_run(dir.path()).unwrap();
        let names: Vec<_> = written.iter().map(|p| p.file_name().unwrap().to_str().unwrap()).collect();
        assert_eq!(names, ["energy.png", "energy.svg", "momentum.png", "momentum.svg"]);
        for path in &written {
            assert!(std::fs::metadata(path).unwrap().len() > 1000, "{} is empty", path.display());
        }
        let svg = std::fs::read_to_string(dir.path().join("momentum.svg")).unwrap();
        assert!(svg.contains("angular momentum [kg·m²/s]"));
    }

    #[test]
    fn round_off_ticks_are_labelled_zero() {
        // the zero tick of an axis from -0.1 to 0.1, as the sum of steps puts it
        assert_eq!(tick_label(-2.7755575615628914e-17, 0.2), "0");
        assert_eq!(tick_label(2.0e-12, 1.0), "0");
        assert_eq!(tick_label(-0.0, 1.0), "0");
        // a small value on an axis of small values is a value
        assert_eq!(tick_label(-2.78e-17, 1e-16), "-2.78e-17");
        assert_eq!(tick_label(0.05, 0.2), "0.05");
        assert_eq!(tick_label(2.5e6, 1e7), "2.50e6");
    }

    #[test]
    fn bad_inputs_give_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        let err = plot_run(dir.path()).unwrap_err();
        assert!(matches!(err, PlotError::MissingStats { .. }));
        assert!(err.to_string().contains("avicontact run SCENE --out DIR"));

        write_stats(dir.path(), "0,1,2,3,0,0,0,0,0,0,0,0,0\n0.1,1,2,x3,0,0,0,0,0,0,0,0,0\n");
        let err = plot_run(dir.path()).unwrap_err();
        assert!(matches!(err, PlotError::Malformed { line: 3, column: "total", .. }), "{err:?}");
        assert!(err.to_string().contains("stats.csv:3: column `total`"), "{err}");

        write_stats(dir.path(), "0,1,2,3,0,0,0,0,0,0,0,0,0\n0.1,1,2,3\n");
        let err = plot_run(dir.path()).unwrap_err();
        assert!(matches!(err, PlotError::Malformed { line: 3, column: "dissipated", .. }), "{err:?}");

        write_stats(dir.path(), "0,1,2,3,0,0,0,0,0,0,0,0,0\n");
        assert!(matches!(plot_run(dir.path()), Err(PlotError::TooFewRows { rows: 1, .. })));

        write_stats(dir.path(), "0,1,2,3,0,0,0,0,0,0,0,0,0\n1,1,2,3,0,0,0,0,0,0,0,0,0\n");
        std::fs::create_dir(dir.path().join("energy.png")).unwrap();
        let err = plot_run(dir.path()).unwrap_err();
        assert!(matches!(err, PlotError::Write { .. }), "{err:?}");
        assert!(err.to_string().contains("energy.png"), "{err}");

        std::fs::write(dir.path().join("stats.csv"), "time,kinetic\n0,1\n1,2\n").unwrap();
        let err = plot_run(dir.path()).unwrap_err();
        assert!(matches!(err, PlotError::MissingColumn { column: "potential", .. }), "{err:?}");
    }
}
