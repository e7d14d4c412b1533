//! The broad phase of AVI contact: which primitive pairs hold a contact pair (certificate and
//! layers) at all. Three methods sit behind one trait, [`KineticBroadPhase`], each in its own
//! file: every candidate pair for all time ([`all_pairs`]), the kinetic hash grid of Phantom §4
//! ([`hash_grid`]), and the kinetic k-DOP hierarchy of ACM §5.5–5.6 ([`kdop`]). Their contract
//! is rapier's and ipc-toolkit's: false positives allowed, false negatives never. Two primitives
//! whose gap is below the contact reach always hold a pair; the choice changes the cost, never
//! the trajectory (law 5). The tests below check every method against brute-force distances;
//! `tests/broad_phase.rs` checks that they give the trajectories of all pairs.
//!
//! Primitives are the points, segments and triangles of the triangulated bodies and chains, and
//! the spheres of particle bodies ([`Primitives`]). The pair rule is the same for all methods: a
//! triangle with a mesh point or a sphere, two segments, two spheres; never two primitives that
//! share a vertex or that can both not move (`PairKind::of_primitives`).
//!
//! The three are dispatched through an enum ([`BroadPhase`]), not `dyn`: the contact manager
//! calls the broad phase on every kick that leaves a tube, and a match on three variants keeps
//! those calls inlinable.

mod all_pairs;
mod hash_grid;
mod kdop;
mod kinetic;
mod primitives;

use super::schedule::Schedule;
use super::settings::BroadPhaseKind;
use super::tube::{vertex_tube, TubeOf};
use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use crate::model::Model;
use all_pairs::AllPairs;
use hash_grid::KineticGrid;
use kdop::KdopHierarchy;
use kinetic::{BroadPhaseChange, KineticBroadPhase};
use primitives::Primitives;

/// The primitives of a model and the method that says which pairs of them may touch.
#[derive(serde::Serialize, serde::Deserialize, Debug)]
pub(super) struct BroadPhase {
    primitives: Primitives,
    method: Method,
}

/// The three broad phases (one per simulation: the variants' sizes do not matter).
#[derive(serde::Serialize, serde::Deserialize, Debug)]
#[allow(clippy::large_enum_variant)]
enum Method {
    AllPairs(AllPairs),
    HashGrid(KineticGrid),
    Kdop(KdopHierarchy),
}

/// Calls `$call` on whichever broad phase `$method` holds.
macro_rules! dispatch {
    ($method:expr, $b:ident => $call:expr) => {
        match $method {
            Method::AllPairs($b) => $call,
            Method::HashGrid($b) => $call,
            Method::Kdop($b) => $call,
        }
    };
}

impl BroadPhase {
    /// The primitives of `model` and the broad phase `kind` over them at t = 0: a hash grid
    /// places each primitive in its cells, a k-DOP hierarchy builds its front on tubes of
    /// tolerance `tolerance` (m/s) around the initial velocities. `reach` is the gap below which
    /// a pair must exist (m); `slack` is the hysteresis (m; `None`: [`default_slack`]).
    pub(super) fn new(model: &Model, kind: BroadPhaseKind, reach: Real, tolerance: Real, slack: Option<Real>) -> Self {
        let v = &model.vertices;
        let (primitives, free_edge_lengths, largest_radius) = Primitives::of_model(model);
        // Phantom's cell: twice the mean free edge length (particles: twice diameter plus reach)
        let default_cell = if free_edge_lengths.is_empty() {
            2.0 * (2.0 * largest_radius + reach)
        } else {
            2.0 * free_edge_lengths.iter().sum::<Real>() / free_edge_lengths.len() as Real
        };
        let cell = match kind {
            BroadPhaseKind::HashGrid { cell_size: Some(size) } => size,
            _ => default_cell,
        };
        let valid = cell.is_finite() && cell > 0.0;
        let slack = slack.unwrap_or_else(|| if valid { default_slack(kind, cell) } else { reach });
        let cell = if valid { cell } else { 1.0 };
        let method = match kind {
            BroadPhaseKind::AllPairs => Method::AllPairs(AllPairs),
            BroadPhaseKind::HashGrid { .. } => {
                Method::HashGrid(KineticGrid::new(&primitives, v.positions(), cell, reach, slack))
            }
            BroadPhaseKind::Kdop => {
                let velocities = v.velocities();
                let tube = |u| vertex_tube(model, velocities, tolerance, u, v.position(u), 0.0);
                Method::Kdop(KdopHierarchy::with_front(&primitives, &|u| v.position(u), reach, slack, &tube))
            }
        };
        BroadPhase { primitives, method }
    }

    /// The primitives.
    pub(super) fn primitives(&self) -> &Primitives {
        &self.primitives
    }

    /// The primitive pairs (i < j, in order) that hold a contact pair at the start.
    pub(super) fn initial_pairs(&self) -> Vec<(u32, u32)> {
        let primitives = &self.primitives;
        let candidates = dispatch!(&self.method, b => b.candidate_pairs(primitives));
        candidates.into_iter().filter(|&(i, j)| primitives.pair_kind(i, j).is_some()).collect()
    }

    /// See [`KineticBroadPhase::label`].
    pub(super) fn label(&self) -> &'static str {
        dispatch!(&self.method, b => b.label())
    }

    /// See [`KineticBroadPhase::start`].
    pub(super) fn start(&mut self, tube: &TubeOf, out: &mut Vec<Schedule>) {
        let primitives = &self.primitives;
        dispatch!(&mut self.method, b => b.start(primitives, tube, out))
    }

    /// See [`KineticBroadPhase::certificate_failed`].
    pub(super) fn certificate_failed(
        &mut self,
        id: u32,
        t: Real,
        model: &Model,
        tube: &TubeOf,
        out: &mut Vec<Schedule>,
    ) -> BroadPhaseChange {
        let primitives = &self.primitives;
        dispatch!(&mut self.method, b => b.certificate_failed(id, t, primitives, model, tube, out))
    }

    /// See [`KineticBroadPhase::tube_moved`].
    pub(super) fn tube_moved(
        &mut self,
        u: VertexId,
        t: Real,
        (velocity, tolerance): (&Vec3, Real),
        tube: &TubeOf,
        out: &mut Vec<Schedule>,
    ) {
        let primitives = &self.primitives;
        dispatch!(&mut self.method, b => b.tube_moved(u, t, velocity, tolerance, primitives, tube, out))
    }

    /// See [`KineticBroadPhase::overlap`].
    pub(super) fn overlap(&self, i: u32, j: u32) -> bool {
        let primitives = &self.primitives;
        dispatch!(&self.method, b => b.overlap(primitives, i, j))
    }

    /// See [`KineticBroadPhase::holds_every_pair`].
    pub(super) fn holds_every_pair(&self) -> bool {
        dispatch!(&self.method, b => b.holds_every_pair())
    }

    /// See [`KineticBroadPhase::audit`].
    pub(super) fn audit(&self, t: Real, x: &dyn Fn(VertexId) -> Vec3) -> Result<(), &'static str> {
        let primitives = &self.primitives;
        dispatch!(&self.method, b => b.audit(primitives, t, x))
    }

    /// See [`KineticBroadPhase::slack`].
    pub(super) fn slack(&self) -> Real {
        dispatch!(&self.method, b => b.slack())
    }

    /// See [`KineticBroadPhase::cell_size`].
    pub(super) fn cell_size(&self) -> Option<Real> {
        dispatch!(&self.method, b => b.cell_size())
    }

    /// See [`KineticBroadPhase::occupied_cells`].
    pub(super) fn occupied_cells(&self) -> usize {
        dispatch!(&self.method, b => b.occupied_cells())
    }

    /// See [`KineticBroadPhase::front_records`].
    pub(super) fn front_records(&self) -> usize {
        dispatch!(&self.method, b => b.front_records())
    }

    /// True for the k-DOP hierarchy.
    pub(super) fn is_kdop(&self) -> bool {
        matches!(self.method, Method::Kdop(_))
    }

    /// Heap bytes held by the primitives with their vertex lists, and by the broad phase's
    /// structure (an estimate from capacities).
    pub(super) fn heap_bytes(&self) -> (usize, usize) {
        (self.primitives.heap_bytes(), dispatch!(&self.method, b => b.heap_bytes()))
    }
}

/// The default hysteresis of the broad phase for cells of side `cell` (the scene's or the default
/// one), m: a twentieth of a cell for the hash grid, a tenth of the default cell for the k-DOP
/// hierarchy. Measured on `spikes` (`docs/performance.md`): the grid's pairs multiply once twice
/// its slack plus the reach passes the mesh spacing (a tenth of a cell: 3.6× the pairs and
/// 1.3× slower at the landing), while the k-DOP front holds the same records either way and a
/// twentieth makes 1.4× its events.
pub(super) fn default_slack(kind: BroadPhaseKind, cell: Real) -> Real {
    match kind {
        BroadPhaseKind::HashGrid { .. } => 0.05 * cell,
        BroadPhaseKind::Kdop | BroadPhaseKind::AllPairs => 0.1 * cell,
    }
}

#[cfg(test)]
mod tests {
    //! Every broad phase against brute force (ipc-toolkit's `broad_phase` test): on random
    //! irregular meshes and particles moving on straight lines, after each of its certificate
    //! events the pairs a broad phase holds include every pair that testing all of them with the
    //! distance functions finds nearer than the reach.

    use super::*;
    use crate::avi::contact::pair::Shape;
    use crate::avi::contact::tube::tubes_at;
    use crate::geometry::distance::{distance_edge_edge, distance_point_point, distance_point_triangle};
    use crate::model::{Body, BodyKind};
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    const REACH: Real = 0.004;

    /// Two 4×4 sheets 6 mm apart with every vertex jittered (irregular triangles), and a few
    /// particles between them; every vertex with its own velocity.
    fn scene(jitter: &[Real], speeds: &[Real]) -> Model {
        let sheet = crate::mesh::grid([0.04, 0.04], [3, 3]).unwrap();
        let mut model = Model::new();
        let mut k = 0;
        let mut next = |scale: Real| {
            k += 1;
            scale
                * Vec3::new(
                    jitter[k % jitter.len()],
                    jitter[(3 * k + 1) % jitter.len()],
                    jitter[(7 * k + 2) % jitter.len()],
                )
        };
        for (name, dz) in [("low", 0.0), ("high", 0.006)] {
            let positions: Vec<Vec3> = sheet.positions.iter().map(|x| x + Vec3::z() * dz + next(0.003)).collect();
            let velocities: Vec<Vec3> = positions.iter().map(|_| next(speeds[0])).collect();
            let masses = vec![1.0; positions.len()];
            model.add_body(
                Body::new(name, BodyKind::Shell { triangles: sheet.triangles.clone() }),
                &positions,
                &velocities,
                &masses,
            );
        }
        let grains: Vec<Vec3> =
            (0..4).map(|i| Vec3::new(-0.012 + 0.008 * i as Real, 0.0, 0.003) + next(0.002)).collect();
        let velocities: Vec<Vec3> = grains.iter().map(|_| next(speeds[1])).collect();
        model.add_body(Body::new("grains", BodyKind::Particles { radius: 0.001 }), &grains, &velocities, &[1.0; 4]);
        model
    }

    /// The gap of primitives `i` and `j` at positions `x`, by their shapes (+∞ if they form no pair).
    fn gap(primitives: &Primitives, i: u32, j: u32, x: &dyn Fn(VertexId) -> Vec3) -> Real {
        let (a, b) = (primitives.get(i), primitives.get(j));
        let (xa, xb): (Vec<Vec3>, Vec<Vec3>) =
            (a.vertices().iter().map(|&u| x(u)).collect(), b.vertices().iter().map(|&u| x(u)).collect());
        match (a.shape, b.shape) {
            (Shape::Triangle, Shape::Point | Shape::Sphere) => {
                distance_point_triangle(xb[0], xa[0], xa[1], xa[2]) - b.radius()
            }
            (Shape::Segment, Shape::Segment) => distance_edge_edge(xa[0], xa[1], xb[0], xb[1]),
            (Shape::Sphere, Shape::Sphere) => distance_point_point(xa[0], xb[0]) - a.radius() - b.radius(),
            _ => Real::INFINITY,
        }
    }

    /// Runs `kind` with vague tubes of tolerance `tolerance` (m/s) over [0, `end`] s and checks it
    /// against brute force at its events and at `checks` evenly spaced times; returns how many
    /// pairs brute force found near in all. Tubes wider than the vertices' motion let the hash
    /// grid renew certificates without re-anchoring.
    fn check_against_brute_force(
        model: &Model,
        kind: BroadPhaseKind,
        slack: Option<Real>,
        tolerance: Real,
        end: Real,
    ) -> usize {
        let v = &model.vertices;
        let mut broad = BroadPhase::new(model, kind, REACH, tolerance, slack);
        let mut held: BTreeSet<(u32, u32)> = broad.initial_pairs().into_iter().collect();
        // a queue of the broad phase's own certificates: id → time, and (time, id) in order
        let mut due: BTreeMap<u32, Real> = BTreeMap::new();
        let mut queue: BTreeSet<(u64, u32)> = BTreeSet::new();
        let apply = |requests: Vec<Schedule>, due: &mut BTreeMap<u32, Real>, queue: &mut BTreeSet<(u64, u32)>| {
            for request in requests {
                let (id, at) = match request {
                    Schedule::BroadPhase(id, at) => (id, Some(at.seconds())),
                    Schedule::ForgetBroadPhase(id) => (id, None),
                    other => panic!("a broad phase asked for {other:?}"),
                };
                if let Some(old) = due.remove(&id) {
                    queue.remove(&(old.to_bits(), id));
                }
                if let Some(at) = at {
                    due.insert(id, at);
                    queue.insert((at.to_bits(), id));
                }
            }
        };
        let velocities = v.velocities();
        let mut out = Vec::new();
        broad.start(&tubes_at(model, velocities, tolerance, 0.0), &mut out);
        apply(std::mem::take(&mut out), &mut due, &mut queue);
        let n = broad.primitives().len() as u32;
        let mut found = 0;
        let checks = 40;
        for step in 0..=checks {
            let now = end * step as Real / checks as Real;
            // every certificate due by now, in time order (times are non-negative: bits sort as reals)
            while let Some(&(bits, id)) = queue.iter().next().filter(|(bits, _)| Real::from_bits(*bits) <= now) {
                queue.remove(&(bits, id));
                due.remove(&id);
                let t = Real::from_bits(bits);
                let tube = tubes_at(model, velocities, tolerance, t);
                let change = broad.certificate_failed(id, t, model, &tube, &mut out);
                for pair in change.lost {
                    held.remove(&pair);
                }
                held.extend(change.gained.into_iter().filter(|&(i, j)| broad.primitives().pair_kind(i, j).is_some()));
                out.extend(change.renewal);
                apply(std::mem::take(&mut out), &mut due, &mut queue);
            }
            let x = |u: VertexId| v.position_at(u, now);
            for i in 0..n {
                for j in i + 1..n {
                    if broad.primitives().pair_kind(i, j).is_none() || gap(broad.primitives(), i, j, &x) >= REACH {
                        continue;
                    }
                    found += 1;
                    assert!(
                        held.contains(&(i, j)),
                        "{kind:?} at t = {now}: primitives {i} and {j} are nearer than the reach without a pair"
                    );
                    assert!(broad.overlap(i, j), "{kind:?} at t = {now}: primitives {i} and {j} do not overlap");
                }
            }
            broad.audit(now, &x).unwrap_or_else(|what| panic!("{kind:?} at t = {now}: {what}"));
        }
        found
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

        #[test]
        fn every_broad_phase_holds_every_pair_that_brute_force_finds_within_reach(
            jitter in proptest::collection::vec(-1.0..1.0f64, 16..40),
            sheet_speed in 0.005..0.05f64,
            grain_speed in 0.005..0.08f64,
            cell in 0.002..0.03f64,
            slack in proptest::option::of(0.0002..0.003f64),
            tolerance in proptest::option::of(0.001..0.2f64),
        ) {
            let model = scene(&jitter, &[sheet_speed, grain_speed]);
            let end = 0.2;
            for kind in [BroadPhaseKind::AllPairs, BroadPhaseKind::HashGrid { cell_size: Some(cell) }, BroadPhaseKind::HashGrid { cell_size: None }, BroadPhaseKind::Kdop] {
                check_against_brute_force(&model, kind, slack, tolerance.unwrap_or(0.0), end);
            }
        }
    }

    #[test]
    fn the_brute_force_check_sees_pairs_come_and_go() {
        // the sheets and grains meet within the run: the check is not vacuous
        let jitter: Vec<Real> = (0..32).map(|k| ((k * 37 % 19) as Real / 9.5) - 1.0).collect();
        let model = scene(&jitter, &[0.03, 0.06]);
        let found = check_against_brute_force(&model, BroadPhaseKind::default(), None, 0.0, 0.2);
        assert!(found > 50, "only {found} near pairs over the run");
    }
}
