//! What the contact subsystem asks of the event queue: the requests its manager and broad phases
//! return instead of touching the queue themselves (the engine applies them, in order). A leaf.

use crate::ids::PairId;
use crate::math::{Real, Time};

/// A request to the event queue from the contact manager.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Schedule {
    /// Schedule the pair's certificate failure at this time, unless its event is already due no
    /// later: that event then fires early, which is safe (it re-certifies), and saves a queue
    /// update per re-certification.
    Certificate(PairId, Time),
    /// Schedule the next tick of the pair's layer l.
    Layer(PairId, u32, Time),
    /// `ContactVariant::ReflectiveImpulse`: (re)schedule the pair's impact check (its layer-1
    /// event key) at this time, replacing any pending one.
    Impact(PairId, Time),
    /// (Re)schedule a broad-phase certificate at this time, replacing any pending one: a
    /// vertex's hash-grid certificate, or a k-DOP front record's.
    BroadPhase(u32, Time),
    /// The broad-phase certificate is gone (a k-DOP front record was removed, or its certificate
    /// no longer fails): drop its pending event.
    ForgetBroadPhase(u32),
    /// The pair was removed (the broad phase no longer holds its primitives near): drop its
    /// events before its handle goes to another pair.
    Forget(PairId),
}

/// Asks the queue for broad-phase certificate `id` at `at`, or drops its pending event if it
/// never fails (`at` infinite or not a time).
pub(super) fn request_front(id: u32, at: Real, out: &mut Vec<Schedule>) {
    match Time::new(at) {
        Some(at) if at.seconds().is_finite() => out.push(Schedule::BroadPhase(id, at)),
        _ => out.push(Schedule::ForgetBroadPhase(id)),
    }
}
