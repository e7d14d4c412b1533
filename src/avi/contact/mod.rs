//! Contact on the AVI backend (ACM §4–§6; report §6, Algorithms 2–5): discrete penalty layers on
//! primitive pairs, culled by kinetic separating slabs. `kds/` says *when* a certificate fails;
//! this module decides *what* happens.
//!
//! Pairs: vertex–triangle and edge–edge between triangulated bodies (self-contact included, pairs
//! sharing a vertex excluded), chain points and segments, particle–particle and particle–triangle,
//! and the two length constraints of each inextensible edge (ACM §7). Which primitive pairs hold a
//! pair at all is the broad phase's choice ([`broad_phase`]). Per pair, layers 1..=n are active, each on
//! its own regular clock ticking at multiples of h(l) from t = 0 (law 4), and one certificate, a
//! slab of thickness η(n + 1) (a rate guard for constraints), proves layer n + 1 and all deeper
//! ones inactive. Each free vertex has a vague tube, its velocity within ε of a reference; a kick
//! that leaves the tube re-centres it and re-certifies the pairs its stencil is in: those of the
//! primitives it belongs to, and its length constraints (ACM §5.2–§5.3's support lists).
//! Certificates only remove ticks whose impulse is zero, so they change the cost, never the
//! trajectory (law 5). See `docs/contact.md`.

//!
//! One concept a file:
//!
//! | file | what it holds |
//! |---|---|
//! | `manager.rs` | [`ContactManager`]: its state, its start, making and removing pairs as the broad phase gains and loses them |
//! | `settings.rs` | [`ContactSettings`], [`ContactVariant`], [`BroadPhaseKind`] |
//! | `pair.rs` | the pair vocabulary: primitives, pair kinds, pair records and their guards (a leaf) |
//! | `pair_store.rs` | the pair records' slots behind 4-byte handles |
//! | `schedule.rs` | [`Schedule`]: what the subsystem asks of the event queue |
//! | `tube.rs` | a vertex's vague tube (ACM §5.3) |
//! | `certify.rs` | slabs, rate guards, re-certification after kicks (ACM §5.1–§5.3) |
//! | `layers.rs` | activation, layer ticks, friction, the broken variants, layer energy (ACM §4, §6) |
//! | `audit.rs` | the `--audit` check of every guard and of the broad phase |
//! | `bookkeeping.rs` | [`BookkeepingBytes`] and the counters |
//! | `broad_phase/` | one trait, three broad phases: all pairs, hash grid, k-DOP hierarchy |
//!
//! Files import only files below them in this order: `pair`, `pair_store`, `schedule`, `tube`,
//! `settings` and `bookkeeping` are leaves; `broad_phase/` uses the leaves; `manager` uses
//! `broad_phase` and the leaves; `certify`, `layers` and `audit` add methods to the manager.

mod audit;
mod bookkeeping;
mod broad_phase;
mod certify;
mod layers;
mod manager;
mod pair;
mod pair_store;
mod schedule;
mod settings;
#[cfg(test)]
mod test_scenes;
mod tube;

pub use bookkeeping::BookkeepingBytes;
pub use layers::LayerOutcome;
pub use manager::ContactManager;
pub use schedule::Schedule;
pub use settings::{BroadPhaseKind, ContactSettings, ContactVariant};
