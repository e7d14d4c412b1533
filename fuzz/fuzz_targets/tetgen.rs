//! TetGen text → `avicontact::mesh::parse_tetgen`. The input is the `.node` file, a NUL byte, then
//! the `.ele` file (no NUL: all of it is the `.node` file and the `.ele` file is empty).
//! Contract: any input gives `Ok` or an `Err`; a panic is a bug.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (node, ele) = match data.iter().position(|&b| b == 0) {
        Some(k) => (&data[..k], &data[k + 1..]),
        None => (data, &[][..]),
    };
    let (Ok(node), Ok(ele)) = (std::str::from_utf8(node), std::str::from_utf8(ele)) else { return };
    if let Ok(mesh) = avicontact::mesh::parse_tetgen(node, ele, "fuzz") {
        // what the scene builder does next with a mesh it accepted
        let _ = mesh.boundary();
        let _ = mesh.lumped_masses(1.0);
    }
});
