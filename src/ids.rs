//! Handles to the things the model and the engine own (STYLE habit 5).
//!
//! Bodies and forces live in slot maps and are named by versioned keys; vertices are dense, never
//! removed, and stored as structure-of-arrays, so a vertex is named by its plain index.

slotmap::new_key_type! {
    /// A body of the model (a shell, a particle set, a chain or an obstacle).
    pub struct BodyId;
    /// A potential registered with the AVI engine, with its own clock.
    pub struct ForceId;
}

/// Index of a vertex in the model's vertex arrays (global over all bodies).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VertexId(pub u32);

impl VertexId {
    /// The index as `usize`, for slicing the model's arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}
