//! Scene TOML text → `avicontact::scene::parse`: parsing, validation and building of the model and
//! its potentials, the path `avicontact run` takes before the first event. Nothing is simulated.
//! Relative mesh paths resolve in `fuzz/fixtures/`, which holds `sheet.obj` (a shell's OBJ) and
//! `block.node`/`block.ele` (a solid's TetGen pair). Contract: any input gives `Ok` or an `Err`
//! (a `SceneError` naming the place); a panic is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let base = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures"));
    let _ = avicontact::scene::parse(text, "fuzz.toml", base, "fuzz".into());
});
