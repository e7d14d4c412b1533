//! Pure geometry on nalgebra values: no ids, no state, no allocation (layer L1 of
//! `docs/design.md`).
//!
//! Both backends and the intersection checker build on it; `Option` means "no answer", and
//! geometry never sees a [`VertexId`](crate::ids::VertexId).
//!
//! * [`distance`]: point–point, point–edge, point–triangle and edge–edge distances, closest points
//!   and gradients: the `d` of the penalty layers' gap `g = d − η(l)` (ACM §4) and the distances
//!   the separating-slab certificates are measured against (ACM §5.1).
//! * [`ccd`]: conservative times of impact (additive CCD) for point–triangle and edge–edge.
//! * [`intersect`]: the exact predicates of the independent intersection checker; they share no
//!   code with `distance`.

pub mod ccd;
pub mod distance;
pub mod intersect;
