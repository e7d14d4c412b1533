//! OBJ text → `avicontact::mesh::parse_obj`. Contract: any input gives `Ok` or an `Err`; a panic
//! is a bug. Bytes that are not UTF-8 are skipped: `read_obj` refuses them when it reads the file.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(mesh) = avicontact::mesh::parse_obj(text) {
            // what the scene builder does next with a mesh it accepted
            let _ = mesh.find_degenerate_triangle(1e-12);
            let _ = mesh.lumped_masses(1.0);
        }
    }
});
