//! Pure geometry on nalgebra values: no ids, no state, no allocation (DESIGN L1; STYLE habit 2).
//!
//! `intersect` holds the exact predicates of the independent intersection checker.

pub mod intersect;
