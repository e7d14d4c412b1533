//! The AVI engine's part of a checkpoint ([`crate::checkpoint`]): what the event loop changes as
//! it runs, saved between two events and put back into an engine rebuilt from the same scene.
//!
//! Saved: each potential's clock (its tick count) and tick state (a damper's strain window, a
//! varying force's value), the event queue with every event's time and tie-breaking sequence
//! number, the frame clock, the counters, the ledger, the contact manager whole (pairs,
//! layers, slab certificates, vague tubes, the kinetic broad phase), and the phantom meshes
//! (phantom vertices, the step in progress, and the matrix of each kept Cholesky factor, which
//! is factored again on resume). Rebuilt from the scene and
//! checked: the potentials themselves and their periods.

use super::super::phantom::PhantomCheckpoint;
use super::AviEngine;
use crate::checkpoint::{decode, encode, CheckpointError};
use crate::events::{Clock, QueueSnapshot};
use crate::ledger::Ledger;
use crate::math::Real;
use crate::stats::CounterTallies;

impl AviEngine {
    /// Appends the engine's state to `out`.
    pub(crate) fn save_state(&self, out: &mut Vec<u8>) -> Result<(), CheckpointError> {
        let clocks: Vec<Clock> = self.forces.values().map(|f| f.clock).collect();
        let tick_states: Vec<Vec<Real>> = self.forces.values().map(|f| f.potential.tick_state()).collect();
        encode(&clocks, out)?;
        encode(&tick_states, out)?;
        encode(&self.queue.snapshot(), out)?;
        encode(&self.frame_clock, out)?;
        encode(&self.counters.tallies(), out)?;
        encode(&self.ledger, out)?;
        encode(&self.contact, out)?;
        encode(&self.phantoms.as_ref().map(|p| p.checkpoint()), out)
    }

    /// Puts back the state [`save_state`](Self::save_state) wrote, into an engine built from the
    /// same scene (same potentials, periods and contact settings).
    pub(crate) fn restore_state(&mut self, bytes: &[u8]) -> Result<(), CheckpointError> {
        let mismatch = |what: String| CheckpointError::Mismatch(what);
        let (clocks, bytes): (Vec<Clock>, _) = decode(bytes, "clocks")?;
        let (tick_states, bytes): (Vec<Vec<Real>>, _) = decode(bytes, "tick states")?;
        let (queue, bytes): (QueueSnapshot<super::EventKey>, _) = decode(bytes, "event queue")?;
        let (frame_clock, bytes): (Clock, _) = decode(bytes, "frame clock")?;
        let (tallies, bytes): (CounterTallies, _) = decode(bytes, "counters")?;
        let (ledger, bytes): (Ledger, _) = decode(bytes, "ledger")?;
        let (contact, bytes): (Option<Box<super::ContactManager>>, _) = decode(bytes, "contact")?;
        let (phantoms, bytes): (Option<PhantomCheckpoint>, _) = decode(bytes, "phantom meshes")?;
        if !bytes.is_empty() {
            return Err(mismatch(format!("{} bytes left over after the engine's state", bytes.len())));
        }
        if clocks.len() != self.forces.len() || tick_states.len() != self.forces.len() {
            return Err(mismatch(format!("{} potentials saved, {} in the scene", clocks.len(), self.forces.len())));
        }
        if contact.is_some() != self.contact.is_some()
            || phantoms.is_some() != self.phantoms.is_some()
            || frame_clock.period() != self.frame_clock.period()
        {
            return Err(mismatch("contact, phantom bodies or the frame rate differ".into()));
        }
        if let (Some(meshes), Some(saved)) = (self.phantoms.as_mut(), phantoms) {
            meshes.restore(saved).map_err(mismatch)?;
        }
        for ((force, clock), state) in self.forces.values_mut().zip(clocks).zip(&tick_states) {
            if clock.period().to_bits() != force.clock.period().to_bits() {
                return Err(mismatch(format!(
                    "a {} ticks every {} s in the scene, every {} s in the checkpoint",
                    force.potential.kind(),
                    force.clock.period(),
                    clock.period()
                )));
            }
            if !force.potential.restore_tick_state(state) {
                return Err(mismatch(format!("the state of a {} has the wrong shape", force.potential.kind())));
            }
            force.clock = clock;
        }
        self.queue.restore(queue).map_err(|e| mismatch(format!("event queue: {e}")))?;
        self.frame_clock = frame_clock;
        self.counters.restore_tallies(tallies).map_err(mismatch)?;
        self.ledger = ledger;
        self.contact = contact;
        if let Some(contact) = self.contact.as_mut() {
            contact.limit_layer_periods(self.layer_period_limits.clone());
        }
        Ok(())
    }
}
