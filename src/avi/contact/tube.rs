//! The vague tube of a vertex (ACM §5.3): where its certificates assume it may be. A free vertex's
//! velocity stays within a tolerance ε of its tube's centre, a reference velocity that a kick
//! re-centres only when it leaves the tube; a fixed vertex stands still, a scripted one follows its
//! path. Pair certificates and the kinetic broad phases are computed on tubes. A leaf.

use crate::ids::VertexId;
use crate::kds::VagueTrajectory;
use crate::math::{Real, Vec3};
use crate::model::{LinearPath, Model, Motion};

/// The tube of a vertex from a given time, and the next change of its nominal velocity, s (+∞:
/// none).
pub(super) type TubeOf<'a> = dyn Fn(VertexId) -> (VagueTrajectory, Real) + 'a;

/// The vague tube of vertex `u` from its position `x0` at `t` (ACM §5.3) and the next change of its nominal velocity
/// (+∞: none): a free vertex's tube is centred on its reference velocity with tolerance
/// `tolerance`; a fixed vertex stands still; a scripted one follows its path exactly until the
/// path's next start or stop.
pub(super) fn vertex_tube(
    model: &Model,
    reference_velocity: &[Vec3],
    tolerance: Real,
    u: VertexId,
    x0: Vec3,
    t: Real,
) -> (VagueTrajectory, Real) {
    let free = |capture| (VagueTrajectory { x0, v0: reference_velocity[u.index()], tolerance }, capture);
    let scripted = |path: &LinearPath| {
        let next = [path.start, path.stop].into_iter().filter(|&c| c > t).fold(Real::INFINITY, Real::min);
        (VagueTrajectory::linear(x0, path.velocity(t)), next)
    };
    // read in place (a motion is 72 bytes; this runs for every vertex of every certificate)
    match model.vertices.motion_ref(u) {
        Motion::Free => free(Real::INFINITY),
        // a vertex free until a script starts changes its nominal velocity then
        Motion::FreeUntil(path) if t < path.start => free(path.start),
        Motion::FreeUntil(path) | Motion::Scripted(path) => scripted(path),
        Motion::Fixed => (VagueTrajectory::linear(x0, Vec3::zeros()), Real::INFINITY),
    }
}

/// Each vertex's tube from `t` ([`vertex_tube`] at its position on its trajectory at `t`), with
/// the next change of its nominal velocity: what the broad phases are given.
pub(super) fn tubes_at<'a>(
    model: &'a Model,
    reference_velocity: &'a [Vec3],
    tolerance: Real,
    t: Real,
) -> impl Fn(VertexId) -> (VagueTrajectory, Real) + 'a {
    move |u| vertex_tube(model, reference_velocity, tolerance, u, model.vertices.position_at(u, t), t)
}
