//! Exact intersection tests for the independent checker (`avicontact check`, law 1 in
//! `docs/design.md`).
//!
//! Every decision is the sign of an exact orientation predicate (Shewchuk's adaptive
//! `orient3d`/`orient2d` from the `robust` crate), evaluated on the coordinates exactly as
//! written in the frame files. Nothing here shares code with the simulator's distance functions:
//! the checker must be able to catch their mistakes. Touching counts as intersecting.

mod segment_triangle;
mod triangle_triangle;

pub use segment_triangle::intersect_segment_triangle;
pub use triangle_triangle::intersect_triangle_triangle;

use crate::math::Vec3;
use robust::{Coord, Coord3D};

/// Sign of the orientation of `d` relative to the plane through `a`, `b`, `c` (exact): positive
/// when `d` lies below the plane, seen with `a, b, c` counter-clockwise (Shewchuk's convention).
pub(crate) fn orient3d(a: &Vec3, b: &Vec3, c: &Vec3, d: &Vec3) -> i8 {
    let p = |v: &Vec3| Coord3D { x: v.x, y: v.y, z: v.z };
    sign(robust::orient3d(p(a), p(b), p(c), p(d)))
}

/// Sign of the orientation of the 2D points `a`, `b`, `c` (exact): positive when counter-clockwise.
pub(crate) fn orient2d(a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> i8 {
    let p = |v: [f64; 2]| Coord { x: v[0], y: v[1] };
    sign(robust::orient2d(p(a), p(b), p(c)))
}

fn sign(x: f64) -> i8 {
    if x > 0.0 {
        1
    } else if x < 0.0 {
        -1
    } else {
        0
    }
}

/// Projects coplanar points onto the coordinate plane that drops `axis` (exact: it only drops a
/// coordinate). `axis` is chosen so the projection of the common plane is not degenerate.
pub(crate) fn drop_axis(v: &Vec3, axis: usize) -> [f64; 2] {
    match axis {
        0 => [v.y, v.z],
        1 => [v.z, v.x],
        _ => [v.x, v.y],
    }
}

/// The coordinate axis to drop for a plane through `a`, `b`, `c`: the one along which the (exact
/// sign of the) plane's normal is non-zero, so the projected triangle keeps its area.
pub(crate) fn projection_axis(a: &Vec3, b: &Vec3, c: &Vec3) -> usize {
    // orient2d of the projection onto each coordinate plane is the exact sign of the normal's
    // component along the dropped axis.
    (0..3).find(|&axis| orient2d(drop_axis(a, axis), drop_axis(b, axis), drop_axis(c, axis)) != 0).unwrap_or(2)
}

/// Whether two closed 2D segments intersect (exact).
pub(crate) fn segments_intersect_2d(p: [f64; 2], q: [f64; 2], a: [f64; 2], b: [f64; 2]) -> bool {
    let (d1, d2) = (orient2d(a, b, p), orient2d(a, b, q));
    let (d3, d4) = (orient2d(p, q, a), orient2d(p, q, b));
    if d1 * d2 < 0 && d3 * d4 < 0 {
        return true;
    }
    let on = |a: [f64; 2], b: [f64; 2], p: [f64; 2]| {
        orient2d(a, b, p) == 0
            && p[0] >= a[0].min(b[0])
            && p[0] <= a[0].max(b[0])
            && p[1] >= a[1].min(b[1])
            && p[1] <= a[1].max(b[1])
    };
    on(a, b, p) || on(a, b, q) || on(p, q, a) || on(p, q, b)
}

/// Whether 2D point `p` lies in the closed triangle `abc` (exact, either orientation).
pub(crate) fn point_in_triangle_2d(p: [f64; 2], a: [f64; 2], b: [f64; 2], c: [f64; 2]) -> bool {
    let (s1, s2, s3) = (orient2d(a, b, p), orient2d(b, c, p), orient2d(c, a, p));
    (s1 >= 0 && s2 >= 0 && s3 >= 0) || (s1 <= 0 && s2 <= 0 && s3 <= 0)
}
