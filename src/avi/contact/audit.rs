//! The audit (CGAL Kinetic's `audit()`; the `--audit` flag): between events, every pair is
//! checked to be guarded by active layers or a certificate that still holds, and the broad phase
//! to hold every pair of primitives nearer than the reach. It uses only the slabs' normals, the
//! vertices' trajectories and a sweep of its own, never the code it checks.

use super::manager::ContactManager;
use super::pair::{Between, Guard};
use crate::contact::AuditFailure;
use crate::ids::VertexId;
use crate::math::{Real, Time, Vec3};
use crate::model::Model;
use smallvec::SmallVec;

impl ContactManager {
    /// Audit (issue 3's debug mode): at time `t`, every pair either has its layers active or a
    /// certificate that still holds: for a slab, the two sides' vertices, projected on its
    /// normal, are at least η(n + 1) (plus radii) apart. A pair that holds neither would be
    /// unguarded. Uses only the slabs' normals and the vertices' trajectories, never the distance
    /// code.
    pub fn audit(&self, model: &Model, t: Time) -> Result<(), AuditFailure> {
        let v = &model.vertices;
        self.audit_broad_phase(model, t)?;
        for (k, pair) in self.pairs.iter() {
            let kind = self.kind_of(pair);
            // memory: a pair whose primitives are no longer near (grid) or whose leaves came apart
            // (k-DOP) must go once its layers have retired
            if pair.layers.is_empty()
                && matches!(pair.between.get(), Between::Primitives(a, b) if !self.broad.overlap(a, b))
            {
                return Err(AuditFailure {
                    pair: Some(k),
                    time: t.seconds(),
                    what: "a pair outlived its broad-phase overlap",
                });
            }
            // what the guard must certify: layer n + 1 is idle, the gap at least η(n + 1)
            let thickness = kind.schedule(self.settings.layers).thickness(pair.layers.len() as u32 + 1);
            let normal = match pair.guard {
                Guard::Slab => pair.direction.normal(),
                // the broken reflective variant guarantees nothing to audit
                Guard::Impact => continue,
                Guard::Rate => {
                    // a constraint pair: its gap, from the vertices, must still exceed the next
                    // layer's thickness
                    let x: SmallVec<[Vec3; 4]> =
                        kind.vertices().iter().map(|&u| v.position_at(u, t.seconds())).collect();
                    let gap = kind.measure(&x).gap;
                    if gap < thickness * (1.0 - 1e-12) {
                        return Err(AuditFailure {
                            pair: Some(k),
                            time: t.seconds(),
                            what: "a constraint gap went below its guard",
                        });
                    }
                    continue;
                }
                Guard::None => {
                    if pair.layers.is_empty() {
                        return Err(AuditFailure { pair: Some(k), time: t.seconds(), what: "no layer and no slab" });
                    }
                    continue;
                }
            };
            // a slab: along its normal, the two sides' vertices (spheres: centres, the radii
            // added) are at least the thickness apart, so their hulls are
            let lows = kind.low_count();
            let (mut low, mut high, mut scale) = (Real::NEG_INFINITY, Real::INFINITY, 0.0 as Real);
            for (i, &u) in kind.vertices().iter().enumerate() {
                let x = normal.dot(&v.position_at(u, t.seconds()));
                scale = scale.max(x.abs());
                if i < lows {
                    low = low.max(x);
                } else {
                    high = high.min(x);
                }
            }
            if high - low < thickness + kind.radii() - 1e-12 * (1.0 + scale) {
                return Err(AuditFailure {
                    pair: Some(k),
                    time: t.seconds(),
                    what: "a slab no longer separates its pair by its thickness",
                });
            }
        }
        Ok(())
    }

    /// Audit of the broad phase: every candidate primitive pair whose gap is below the reach
    /// profitability·η(1) (what both kinetic broad phases promise) holds a pair. Finds close
    /// primitives by its own sweep over bounding boxes sorted along x, never through the grid or
    /// the k-DOP front; nothing to check for all pairs, where every candidate holds one.
    fn audit_broad_phase(&self, model: &Model, t: Time) -> Result<(), AuditFailure> {
        let v = &model.vertices;
        let at = t.seconds();
        if let Err(what) = self.broad.audit(at, &|u: VertexId| v.position_at(u, at)) {
            return Err(AuditFailure { pair: None, time: at, what });
        }
        if self.broad.holds_every_pair() {
            return Ok(());
        }
        let primitives = self.broad.primitives();
        let reach = self.settings.reach();
        // boxes inflated by radius + reach/2: primitives whose boxes miss each other are farther
        // apart than the reach
        let mut boxes: Vec<(Vec3, Vec3, u32)> = (0..primitives.len() as u32)
            .map(|i| {
                let grow = Vec3::repeat(primitives.get(i).radius() + 0.5 * reach);
                let x = primitives.get(i).vertices().iter().map(|&u| v.position_at(u, t.seconds()));
                let (lo, hi) = x
                    .fold((Vec3::repeat(Real::INFINITY), Vec3::repeat(Real::NEG_INFINITY)), |(lo, hi), x| {
                        (lo.inf(&x), hi.sup(&x))
                    });
                (lo - grow, hi + grow, i)
            })
            .collect();
        boxes.sort_by(|a, b| a.0.x.total_cmp(&b.0.x).then(a.2.cmp(&b.2)));
        let mut x: SmallVec<[Vec3; 4]> = SmallVec::new();
        for (n, a) in boxes.iter().enumerate() {
            for b in boxes[n + 1..].iter().take_while(|b| b.0.x <= a.1.x) {
                if (1..3).any(|c| a.1[c] < b.0[c] || b.1[c] < a.0[c]) {
                    continue;
                }
                let (i, j) = (a.2.min(b.2), a.2.max(b.2));
                if self.pair_between(i, j).is_some() {
                    continue;
                }
                let Some(kind) = primitives.pair_kind(i, j) else { continue };
                x.clear();
                x.extend(kind.vertices().iter().map(|&u| v.position_at(u, t.seconds())));
                if kind.measure(&x).gap < reach * (1.0 - 1e-9) {
                    return Err(AuditFailure {
                        pair: None,
                        time: t.seconds(),
                        what: "two primitives closer than the reach hold no pair: the broad phase missed them",
                    });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_scenes::{settings, two_spheres};
    use super::*;
    use crate::kds::SlabDirection;

    #[test]
    fn the_audit_catches_a_slab_whose_direction_no_longer_separates_its_pair() {
        // spheres (radius 0.1) 1 m apart along x: a slab along x separates them by 0.8 m
        let model = two_spheres();
        let mut manager = ContactManager::new(&model, settings());
        manager.start(&model).unwrap();
        manager.audit(&model, Time::ZERO).unwrap();
        let pair = manager.pairs.keys().next().expect("the spheres' pair");
        assert_eq!(manager.pairs[pair].guard, Guard::Slab);
        // along y the centres are not apart at all: no slab on it separates them
        manager.pairs[pair].direction = SlabDirection::round(&Vec3::y());
        let failure = manager.audit(&model, Time::ZERO).expect_err("a slab along y separates nothing");
        assert_eq!(failure.pair, Some(pair));
        // and a pair with neither layers nor a guard is unguarded
        manager.pairs[pair].guard = Guard::None;
        assert_eq!(manager.audit(&model, Time::ZERO).unwrap_err().what, "no layer and no slab");
    }
}
