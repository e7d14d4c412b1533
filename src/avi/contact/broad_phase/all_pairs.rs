//! All pairs: every candidate primitive pair holds a contact pair for the whole run. Cost grows
//! with the square of the number of primitives; for small scenes, and the reference of law 5 that
//! the kinetic broad phases are checked against.

use super::kinetic::{BroadPhaseChange, KineticBroadPhase};
use super::primitives::Primitives;
use crate::avi::contact::schedule::Schedule;
use crate::avi::contact::tube::TubeOf;
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use crate::model::Model;

/// The broad phase without certificates: nothing ever changes.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub(in crate::avi::contact) struct AllPairs;

impl KineticBroadPhase for AllPairs {
    fn label(&self) -> &'static str {
        "all-pairs"
    }

    fn candidate_pairs(&self, primitives: &Primitives) -> Vec<(u32, u32)> {
        let n = primitives.len() as u32;
        (0..n).flat_map(|i| (i + 1..n).map(move |j| (i, j))).collect()
    }

    fn start(&mut self, _: &Primitives, _: &TubeOf, _: &mut Vec<Schedule>) {}

    fn certificate_failed(
        &mut self,
        _: u32,
        _: Real,
        _: &Primitives,
        _: &Model,
        _: &TubeOf,
        _: &mut Vec<Schedule>,
    ) -> BroadPhaseChange {
        unreachable!("all pairs schedule no certificate")
    }

    fn tube_moved(
        &mut self,
        _: VertexId,
        _: Real,
        _: &Vec3,
        _: Real,
        _: &Primitives,
        _: &TubeOf,
        _: &mut Vec<Schedule>,
    ) {
    }

    fn overlap(&self, _: &Primitives, _: u32, _: u32) -> bool {
        true
    }

    fn holds_every_pair(&self) -> bool {
        true
    }

    fn audit(&self, _: &Primitives, _: Real, _: &dyn Fn(VertexId) -> Vec3) -> Result<(), &'static str> {
        Ok(())
    }

    fn slack(&self) -> Real {
        0.0
    }

    fn heap_bytes(&self) -> usize {
        0
    }
}
