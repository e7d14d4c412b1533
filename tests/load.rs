//! `[[load]]` (`potential::Load`, ACM §8's knots pulled by a prescribed force): a total force
//! shared by chosen free vertices, switched on at `start`, rising over `ramp`, off at `stop`, on
//! its own clock. Checked with the test's own sums: the momentum it puts into a free sheet
//! against the schedule summed over the clock's ticks, the ledger it books as external work on
//! both backends, and the messages for bad tables.

mod common;

use avicontact::scene;

fn parse(text: &str) -> Result<scene::Scene, String> {
    common::parse_scene(text, "load scene")
}

fn run(text: &str, sync: bool, duration: f64) -> Vec<common::LedgerRow> {
    common::ledger_rows(text, sync, duration)
}

/// A free 0.4 m × 0.3 m sheet, no gravity; its first row of 9 vertices pulled by 0.3 N along x and
/// −0.1 N along z from 0.1 s, rising over 0.1 s, until 0.4025 s, on a clock of 4.7 ms
/// (no tick falls on a frame).
const FREE_SHEET: &str = r#"
[simulation]
duration = 0.5
frame_rate = 20.0
gravity = [0.0, 0.0, 0.0]
[[load]]
body = "sheet"
vertices = [0, 1, 2, 3, 4, 5, 6, 7, 8]
force = [0.3, 0.0, -0.1]
start = 0.1
ramp = 0.1
stop = 0.4025
period = 0.0047
[[body]]
name = "sheet"
kind = "shell"
mesh = { generator = "grid", size = [0.4, 0.3], resolution = [9, 7] }
density = 0.1
stretching = 100.0
bending = 0.0001
"#;

#[test]
fn a_load_gives_a_free_sheet_the_impulse_of_its_schedule() {
    let rows = run(FREE_SHEET, false, 0.5);
    let h = 0.0047;
    // the schedule, written out here: 0 before 0.1 s, rising linearly to full at 0.2 s, 0 from 0.4025 s
    let strength = |t: f64| if (0.1..0.4025).contains(&t) { ((t - 0.1) / 0.1).min(1.0) } else { 0.0 };
    let mut checked = 0;
    for &(t, p, ..) in &rows[1..] {
        // one impulse F(k·h)·h at every tick k·h, k = 1, 2, …, before t (frames fall between ticks)
        let impulse: f64 = (1..).map(|k| k as f64 * h).take_while(|&tk| tk < t).map(|tk| strength(tk) * h).sum();
        let expected = [0.3 * impulse, 0.0, -0.1 * impulse];
        for k in 0..3 {
            assert!(
                (p[k] - expected[k]).abs() <= 1e-12 * (0.3 * impulse).max(1e-12),
                "t = {t}: momentum {p:?} against {expected:?}"
            );
        }
        checked += usize::from(impulse > 0.0);
    }
    assert!(checked >= 7, "the load acted on {checked} frames");
}

#[test]
fn a_load_s_work_is_booked_as_external_work_on_both_backends() {
    for (backend, sync) in [("avi", false), ("sync", true)] {
        let rows = run(common::HANGING_RIBBON, sync, 0.6);
        common::assert_ledger_closes(&rows, 0.01, 1e-5, &format!("{backend}: a load on the ribbon"));
    }
}

#[test]
fn bad_load_tables_are_refused_naming_the_key() {
    let base = FREE_SHEET.replace("[[body]]", "fixed = [62]\n[[body]]").replacen("fixed = [62]\n", "", 1);
    let base = format!("{base}fixed = [62]\n");
    let cases = [
        ("body = \"sheet\"", "body = \"sail\"", "load[0].body"),
        ("vertices = [0, 1, 2, 3, 4, 5, 6, 7, 8]", "vertices = []", "load[0].vertices"),
        ("vertices = [0, 1, 2, 3, 4, 5, 6, 7, 8]", "vertices = [0, 63]", "load[0].vertices[1]"),
        ("vertices = [0, 1, 2, 3, 4, 5, 6, 7, 8]", "vertices = [0, 62]", "load[0].vertices[1]"),
        ("vertices = [0, 1, 2, 3, 4, 5, 6, 7, 8]", "vertices = [4, 4]", "load[0].vertices[1]"),
        ("force = [0.3, 0.0, -0.1]", "force = [nan, 0.0, -0.1]", "load[0].force"),
        ("stop = 0.4025", "stop = 0.05", "load[0]"),
        ("ramp = 0.1", "ramp = -0.1", "load[0].ramp"),
        ("period = 0.0047", "period = 0.0", "load[0].period"),
        ("period = 0.0047", "period = 0.0047\nspeed = 3.0", "speed"),
    ];
    for (from, to, key) in cases {
        assert!(base.contains(from), "{from}");
        let text = base.replace(from, to);
        let err = parse(&text).err().unwrap_or_else(|| panic!("{to}: accepted"));
        assert!(err.contains(key), "{to}: {err}");
    }
    let wall = format!(
        "{base}\n[[body]]\nname = \"wall\"\nkind = \"obstacle\"\nmesh = {{ generator = \"plane\", size = [1.0, 1.0] }}\n\
         transform = {{ translate = [0.0, 0.0, -1.0] }}\n"
    )
    .replace("body = \"sheet\"", "body = \"wall\"");
    let Err(err) = parse(&wall) else { panic!("a load on an obstacle accepted") };
    assert!(err.contains("load[0].body") && err.contains("obstacle"), "{err}");
}
