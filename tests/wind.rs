//! `[[wind]]` (`potential::Wind`, Phantom §5's cape in wind): a force per area along a direction,
//! gusting, on its own clock. Checked here with the test's own sums: the momentum it puts into a
//! free sheet against pressure × area × the clock's ticks, the energy ledger it books as external
//! work on both backends, and the messages for bad tables.

mod common;

use avicontact::scene;

fn parse(text: &str) -> Result<scene::Scene, String> {
    common::parse_scene(text, "wind scene")
}

fn run(text: &str, sync: bool, duration: f64) -> Vec<common::LedgerRow> {
    common::ledger_rows(text, sync, duration)
}

/// A 0.4 m × 0.3 m sheet of 0.1 kg/m² (0.012 kg), free, no gravity, in a steady wind of 2 Pa
/// along z on a clock of 7 ms.
const FREE_SHEET: &str = r#"
[simulation]
duration = 0.5
frame_rate = 10.0
gravity = [0.0, 0.0, 0.0]
[[wind]]
pressure = 2.0
direction = [0.0, 0.0, 3.0]
period = 0.007
[[body]]
name = "sheet"
kind = "shell"
mesh = { generator = "grid", size = [0.4, 0.3], resolution = [9, 7] }
density = 0.1
stretching = 100.0
bending = 0.0001
"#;

#[test]
fn a_steady_wind_gives_a_free_sheet_pressure_times_area_per_unit_time() {
    let rows = run(FREE_SHEET, false, 0.5);
    let (period, force) = (0.007, 2.0 * 0.4 * 0.3);
    for &(t, p, ..) in &rows[1..] {
        // one impulse force·h at every tick k·h, k = 1, 2, …, before t (frames fall between ticks)
        let ticks = (t / period).floor();
        let expected = force * period * ticks;
        assert!((p[2] - expected).abs() <= 1e-12 * expected, "t = {t}: momentum {} against {expected}", p[2]);
        assert!(p[0].abs() + p[1].abs() <= 1e-15, "t = {t}: the wind blows along z only: {p:?}");
    }
}

/// A cloth hanging from two corners under gravity in a gusting wind.
const HANGING_CLOTH: &str = r#"
[simulation]
duration = 1.0
frame_rate = 20.0
gravity = [0.0, 0.0, -9.8]
[sync]
integrator = "implicit-midpoint"
timestep = 0.002
[[wind]]
pressure = 1.0
direction = [0.2, 1.0, 0.0]
gust = 0.8
gust_period = 0.3
[[body]]
name = "cloth"
kind = "shell"
mesh = { generator = "grid", size = [0.3, 0.3], resolution = [7, 7] }
transform = { rotate_deg = [90.0, 0.0, 0.0] }
density = 0.1
stretching = 100.0
bending = 0.0001
fixed = [42, 48]
"#;

#[test]
fn the_wind_s_work_is_booked_as_external_work_on_both_backends() {
    for (backend, sync, tolerance) in [("avi", false, 0.02), ("sync", true, 0.02)] {
        let rows = run(HANGING_CLOTH, sync, 0.6);
        common::assert_ledger_closes(&rows, tolerance, 1e-3, &format!("{backend}: gusts on the cloth"));
    }
}

#[test]
fn bad_wind_tables_are_refused_naming_the_key() {
    let base = FREE_SHEET;
    let cases = [
        ("pressure = 2.0", "pressure = -2.0", "wind[0].pressure"),
        ("direction = [0.0, 0.0, 3.0]", "direction = [0.0, 0.0, 0.0]", "wind[0].direction"),
        ("period = 0.007", "period = 0.007\ngust = 1.5", "wind[0].gust"),
        ("period = 0.007", "period = 0.007\ngust_period = 0.0", "wind[0].gust_period"),
        ("period = 0.007", "period = 0.007\nbodies = [\"sail\"]", "wind[0].bodies[0]"),
        ("period = 0.007", "period = 0.007\nspeed = 3.0", "speed"),
    ];
    for (from, to, key) in cases {
        let text = base.replace(from, to);
        let err = parse(&text).err().unwrap_or_else(|| panic!("{to}: accepted"));
        assert!(err.contains(key), "{to}: {err}");
    }
    let particles = format!(
        "{base}\n[[body]]\nname = \"dust\"\nkind = \"particles\"\nradius = 0.01\nmass = 0.001\npositions = [[0.0, 0.0, 1.0]]\n"
    )
    .replace("period = 0.007", "period = 0.007\nbodies = [\"dust\"]");
    let Err(err) = parse(&particles) else { panic!("wind on particles accepted") };
    assert!(err.contains("wind[0].bodies[0]") && err.contains("particles"), "{err}");
}
