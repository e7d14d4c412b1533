//! Small models and settings shared by the contact subsystem's unit tests.

use super::schedule::Schedule;
use super::settings::{BroadPhaseKind, ContactSettings};
use crate::contact::LayerSchedule;
use crate::math::{Real, Vec3};
use crate::model::{Body, BodyKind, Model};

/// Two unit spheres of radius 0.1 with centres 1 m apart on the x axis, at rest.
pub(super) fn two_spheres() -> Model {
    two_spheres_apart(1.0)
}

/// Two unit spheres of radius 0.1 with centres `d` apart on the x axis, at rest.
pub(super) fn two_spheres_apart(d: Real) -> Model {
    let mut model = Model::new();
    model.add_body(
        Body::new("s", BodyKind::Particles { radius: 0.1 }),
        &[Vec3::zeros(), Vec3::x() * d],
        &[Vec3::zeros(); 2],
        &[1.0; 2],
    );
    model
}

pub(super) fn settings() -> ContactSettings {
    // all pairs: these tests are about one pair's certificate, not about the broad phase
    ContactSettings {
        tolerance: 0.1,
        broad_phase: BroadPhaseKind::AllPairs,
        ..ContactSettings::new(LayerSchedule { thickness: 0.05, stiffness: 100.0 }, 0.05)
    }
}

/// The failure time the manager asked the queue for, for pair 0.
pub(super) fn requested(out: &[Schedule]) -> Option<Real> {
    out.iter().rev().find_map(|s| match s {
        Schedule::Certificate(_, t) => Some(t.seconds()),
        _ => None,
    })
}
