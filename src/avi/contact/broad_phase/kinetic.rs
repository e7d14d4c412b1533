//! The contract of a kinetic broad phase (ACM §5.5, Phantom §4): the trait its three
//! implementations share, and what a certificate event hands back to the contact manager.

use super::primitives::Primitives;
use crate::avi::contact::schedule::Schedule;
use crate::avi::contact::tube::TubeOf;
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use crate::model::Model;

/// What a broad phase's certificate event changed: the primitive pairs (i < j, sorted) it now
/// holds near and no longer holds near, and the next failure of its own certificate when that is
/// to be requested after the pairs are followed.
#[derive(Debug, Default)]
pub(in crate::avi::contact) struct BroadPhaseChange {
    /// Primitive pairs (i < j) that now must hold a contact pair.
    pub(in crate::avi::contact) gained: Vec<(u32, u32)>,
    /// Primitive pairs (i < j) that no longer must.
    pub(in crate::avi::contact) lost: Vec<(u32, u32)>,
    /// The failed certificate's renewal, asked of the queue after the gained and lost pairs.
    pub(in crate::avi::contact) renewal: Option<Schedule>,
}

/// A kinetic broad phase (ACM §5.5, Phantom §4): it keeps certificates of its own in the event
/// queue, under ids of its choosing, and says which primitive pairs must hold a contact pair.
pub(in crate::avi::contact) trait KineticBroadPhase {
    /// The label of its certificate events in `events_by_kind` and the profile.
    fn label(&self) -> &'static str;

    /// The primitive pairs (i < j, in increasing order) it holds near at the start, before the
    /// pair rule is applied.
    fn candidate_pairs(&self, primitives: &Primitives) -> Vec<(u32, u32)>;

    /// Asks the queue for its certificates at t = 0 (after the contact pairs are certified);
    /// `tube` gives each vertex's tube from t = 0.
    fn start(&mut self, primitives: &Primitives, tube: &TubeOf, out: &mut Vec<Schedule>);

    /// Its certificate `id` failed at `t`: update, push the requests that precede the pairs'
    /// to `out`, and return the pairs gained and lost. `tube` gives each vertex's tube from `t`.
    fn certificate_failed(
        &mut self,
        id: u32,
        t: Real,
        primitives: &Primitives,
        model: &Model,
        tube: &TubeOf,
        out: &mut Vec<Schedule>,
    ) -> BroadPhaseChange;

    /// A kick moved vertex `u` out of its tube at `t`: it was re-centred on `velocity` (within
    /// `tolerance`); `tube` gives its new tube from `t`. Reschedule what depends on it.
    #[allow(clippy::too_many_arguments)]
    fn tube_moved(
        &mut self,
        u: VertexId,
        t: Real,
        velocity: &Vec3,
        tolerance: Real,
        primitives: &Primitives,
        tube: &TubeOf,
        out: &mut Vec<Schedule>,
    );

    /// True while primitives `i` and `j` must hold a pair (a pair whose primitives no longer
    /// overlap goes once its last layer retires).
    fn overlap(&self, primitives: &Primitives, i: u32, j: u32) -> bool;

    /// True if every candidate pair holds a pair for the whole run (nothing to audit).
    fn holds_every_pair(&self) -> bool {
        false
    }

    /// Audit of its own certificates at `t` (positions `x`): `Err` names what no longer holds.
    fn audit(&self, primitives: &Primitives, t: Real, x: &dyn Fn(VertexId) -> Vec3) -> Result<(), &'static str>;

    /// Its hysteresis, m (0 if it has none).
    fn slack(&self) -> Real;

    /// Heap bytes of its structure (an estimate from capacities).
    fn heap_bytes(&self) -> usize;

    /// The hash grid's cell side, m (`None` for the others).
    fn cell_size(&self) -> Option<Real> {
        None
    }

    /// Occupied hash-grid cells (0 for the others).
    fn occupied_cells(&self) -> usize {
        0
    }

    /// Live k-DOP front records, each with its certificate (0 for the others).
    fn front_records(&self) -> usize {
        0
    }
}
