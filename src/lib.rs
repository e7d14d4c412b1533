//! # avicontact
//!
//! Deformable bodies (shells, chains, particles, obstacles) integrated by an **asynchronous
//! variational integrator** (ACM §3, Algorithm 1; Phantom §3.1): every potential has its own
//! regular clock, events are drawn from a priority queue in causal order, and each event advances
//! only its stencil's vertices. Momentum is conserved exactly and energy does not drift.
//!
//! ## Lifecycle
//! ```text
//! scene file ──scene::load──▶ Scene { Model, Vec<ForceSpec>, SimulationParameters }
//!            ──Scene::into_simulation──▶ Simulation (a Backend: the AviEngine's potentials on
//!                                        clocks + event queue, or the SyncEngine's steps)
//!            ──run / advance_to / step_event──▶ Observer (frames, stats.csv, summary.json, progress)
//! ```
//!
//! ## The map (each layer uses only the layers above it; laws and full map: `docs/design.md`)
//! | layer | modules | what |
//! |---|---|---|
//! | L0 | [`math`], [`error`], [`ids`], [`mesh`], [`interrupt`], [`checkpoint`] | scalars and [`Time`](math::Time); handles; meshes, generators, OBJ; the flag that stops a run after its current event; the checkpoint file |
//! | L1 | [`geometry`] | pure geometry: distances, closest points and gradients of the contact primitives; exact intersection predicates for the checker |
//! | L2 | [`model`] | bodies and vertices `(x, v, t_last, mass)`; [`drift_to`](model::Vertices::drift_to) |
//! | L3 | [`contact`], [`kds`] | penalty-layer laws η(l), r(l), h(l); separating-slab certificates on vague trajectories |
//! | L3 | [`events`], [`potential`], [`force`], [`observe`], [`stats`] | `(Time, Seq)` queue and clocks; potentials on stencils and their clock choices; observers; counters |
//! | L4 | [`backend`] | the seam: the [`Backend`](backend::Backend) trait the engines implement; [`BackendKind`](backend::BackendKind), the table of backend names |
//! | L4 | [`avi`] | the event loop: pop → drift → kick → push; the contact manager (layers and certificates) |
//! | L4 | [`sync`] | the synchronous backend: implicit Euler, BDF2, implicit midpoint, trapezoid, A-1, A-search, blend, SDIRK2, TR-BDF2 on the same potentials |
//! | L5 | [`simulation`] | the [`Simulation`] facade over any backend |
//! | L6 | [`scene`], [`output`], [`render`] | scene files and built-in scenes; output files and plots; pictures of a run's frames (PNG and GIF) |
//! | L7 | [`run`] | one run of a scene into an output directory: what `avicontact run` and the Python package's `run` do |
//!
//! ## FAQ
//! * **Where is contact?** `[contact]` in a scene switches on discrete penalty layers with
//!   separating-slab certificates on the AVI backend ([`avi::ContactManager`], kinetic hash grid broad phase)
//!   and IPC on the synchronous backend.
//! * **Why do velocities in `stats.csv` look staggered?** AVI velocities are constant between
//!   kicks (leapfrog); kinetic energy oscillates with the kicks, without drift.
//! * **How do I compare with Verlet?** Set `[simulation] period = h`: every potential then ticks
//!   at `h` and the run is velocity Verlet (law 7, tested in `tests/laws.rs`).
//! * **My own potential?** Implement [`potential::Potential`] and pass it in a
//!   [`force::ForceSpec`]; see `examples/custom_potential.rs`.
#![warn(missing_docs)]

pub mod avi;
pub mod backend;
pub mod checkpoint;
pub mod contact;
pub mod error;
pub mod events;
pub mod force;
pub mod geometry;
pub mod ids;
pub mod interrupt;
pub mod kds;
pub mod ledger;
pub mod math;
pub mod mesh;
pub mod model;
pub mod newton;
pub mod observe;
pub mod output;
pub mod potential;
pub mod render;
pub mod run;
pub mod scene;
pub mod simulation;
pub mod stats;
pub mod sync;
pub mod workload;

pub use simulation::{Simulation, SimulationParameters};

/// The names most programs need.
pub mod prelude {
    pub use crate::force::{ForceSpec, PeriodChoice};
    pub use crate::ids::{BodyId, ForceId, VertexId};
    pub use crate::math::{Real, Time, Vec3};
    pub use crate::model::{Body, BodyKind, Model};
    pub use crate::observe::{EventRecord, Frame, FrameStats, Observer};
    pub use crate::potential::Potential;
    pub use crate::simulation::{Simulation, SimulationParameters};
}
