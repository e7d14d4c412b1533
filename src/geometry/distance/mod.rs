//! Euclidean distances between the contact primitives, their closest points and their gradients.
//!
//! One primitive pair per file: [`point_point`], [`point_edge`],
//! [`point_triangle`], [`edge_edge`]. Each offers
//!
//! * `distance_<a>_<b>` and `distance_squared_<a>_<b>`;
//! * `closest_<a>_<b>`: a small `Copy` struct with the closest points and their parameters
//!   (segment parameters, barycentric coordinates);
//! * `gradient_distance_<a>_<b>`: ∂d/∂(each vertex), in argument order, or `None` at zero
//!   distance, where the distance is not differentiable (distances below 1e-150 count as zero:
//!   their squares are subnormal and the direction would lose precision).
//!
//! Edges and triangles are closed segments and closed triangles, degenerate ones included: a
//! zero-length edge is a point and a zero-area triangle the union of its edges. Nothing returns NaN
//! for finite input (coordinates below ~1e75, whose fourth powers stay finite).
//!
//! ## Robustness
//! The closest feature is never chosen by a region test alone. Point–triangle returns the nearest
//! of the plane projection (only if a barycentric test puts it inside) and the three point–edge
//! answers; edge–edge returns the nearest of an interior answer (only if the edges are not nearly
//! parallel; the lines' closest point on one edge, projected onto the other and back) and the four
//! endpoint–edge answers. Every candidate is a pair of points on the primitives, so the result
//! never undershoots the true distance beyond round-off, and a misclassified candidate costs no
//! more than round-off, because a neighbouring candidate covers it. This keeps parallel and nearly
//! parallel edges and sliver triangles (the report's spikes have 3.47° apex angles) correct: the
//! tests hold them to 1e-12 (times the coordinates' size) of an independent minimisation.
//!
//! ## Gradients
//! The distance is `d = |pa − pb|` at the closest points `pa = Σ αᵢ aᵢ`, `pb = Σ βⱼ bⱼ`. Since the
//! closest points minimise, their own motion does not change `d` to first order (envelope theorem),
//! so with `n = (pa − pb)/d`: `∂d/∂aᵢ = αᵢ n` and `∂d/∂bⱼ = −βⱼ n`. This holds wherever the
//! closest points are unique: always for d > 0 when one side is a point (the distance to a convex
//! set is C¹ outside it), and for edge–edge except at exactly parallel edges whose closest points
//! form a segment, where `d` has a kink and the returned gradient is one of its one-sided
//! derivatives.

pub mod edge_edge;
pub mod point_edge;
pub mod point_point;
pub mod point_triangle;

#[cfg(test)]
mod reference;

use crate::math::Vec3;

/// The unit vector along `v` (from the closest point of one primitive to the other's), or `None`
/// when `|v|` is below 1e-150, the zero of the gradients.
#[inline]
fn unit(v: Vec3) -> Option<Vec3> {
    v.try_normalize(1e-150)
}

pub use edge_edge::{
    closest_edge_edge, distance_edge_edge, distance_squared_edge_edge, gradient_distance_edge_edge, EdgeEdgeClosest,
};
pub use point_edge::{
    closest_point_edge, distance_point_edge, distance_squared_point_edge, gradient_distance_point_edge,
    PointEdgeClosest,
};
pub use point_point::{distance_point_point, distance_squared_point_point, gradient_distance_point_point};
pub use point_triangle::{
    closest_point_triangle, distance_point_triangle, distance_squared_point_triangle, gradient_distance_point_triangle,
    PointTriangleClosest, PointTriangleRegion,
};
