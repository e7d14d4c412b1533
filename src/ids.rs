//! Handles to the things the model and the engine own.
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
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct VertexId(pub u32);

impl VertexId {
    /// The index as `usize`, for slicing the model's arrays.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Handle of a contact pair: the index of its slot. A removed pair's handle is given to a later
/// pair; no event of the removed one is left in the queue by then.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PairId(u32);

impl PairId {
    /// The slot index.
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The slot index, under which the event queue files the pair's certificate and first-layer
    /// tick.
    pub(crate) fn handle(self) -> u32 {
        self.0
    }

    /// The pair whose [`handle`](Self::handle) this is.
    pub(crate) fn from_handle(handle: u32) -> PairId {
        PairId(handle)
    }
}
