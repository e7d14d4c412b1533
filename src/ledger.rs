//! The energy ledger: what kicks take out of the system (`dissipated`) and what scripted vertices
//! put in (`external_work`), booked kick by kick, so that `stats.csv` can show
//! `total + dissipated − external_work`, the starting energy up to the integrator's bounded
//! oscillation.
//!
//! A kick gives vertex u the impulse −I_u (the convention of [`Vertices::kick`]: I = h·∂V/∂x for a
//! potential V ticking with period h), i.e. the force −I_u/h over the period it stands for.
//!
//! * A **free** vertex's kinetic energy changes by ΔK_u = −I_u·v̄_u, with v̄_u the mean of its
//!   velocities before and after the kick: exact, since kinetic energy is quadratic.
//! * A **scripted** vertex does not move in response; its path does work on the system against the
//!   force, I_u·v_u for a path velocity v_u (ACM §6 treats scripted vertices as infinite masses).
//!   That is `external_work`, for every kick (elastic, damping, contact).
//! * A **dissipative** kick (friction, ACM §6.3) takes out −Σ ΔK_u over its free vertices plus
//!   Σ I_u·v_u over its scripted ones: the work of its force against the motion of every vertex,
//!   so friction dragged by a script books what it takes from the script too (and never reads as
//!   energy gained).
//! * A **viscous** kick (damping, ACM §6.1) books only its scripted vertices' work; the damper
//!   books its dissipation itself, from its strain rate averaged over a window
//!   ([`Potential::end_tick`](crate::potential::Potential::end_tick)), because a single kick's ΔK
//!   also counts the saw-tooth energy that asynchronous clocks exchange back and forth (see
//!   `potential::damping`).
//!
//! * An **external** force (wind, a load: a force from outside the system whose energy is linear
//!   in the positions and changes with time) is booked as a potential that changes in time, as
//!   gravity is a potential that does not: its kicks are conservative, and `external_shifts`
//!   holds its energy at the start plus every jump of that energy, at the positions of the
//!   moment, as the force changes (a load switched on, a gust). The work it has done at a frame
//!   is `external_shifts` minus its energy there ([`FrameStats::measure`] adds it to
//!   `external_work`): ∫ f·ẋ dt, by parts. Booking each kick's ΔK instead would depend on the
//!   order of kicks at one instant: a load balanced by a membrane that ticks with it books
//!   ±f²h²/2m per tick, a drift.
//!
//! Held vertices have zero velocity: no work.
//!
//! [`Vertices::kick`]: crate::model::Vertices::kick
//! [`FrameStats::measure`]: crate::observe::FrameStats::measure

use crate::ids::VertexId;
use crate::math::{Real, Vec3};
use crate::model::Vertices;

/// Running sums of the energy ledger, J.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq)]
pub struct Ledger {
    /// Energy taken out by dissipative kicks so far.
    pub dissipated: Real,
    /// Work done on the system by scripted vertices so far.
    pub external_work: Real,
    /// The external potentials' energy at the start plus its jumps as their forces changed, J;
    /// minus their energy now, the work they have done (see the module doc).
    pub external_shifts: Real,
}

/// Whether a kick's work is booked as dissipation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KickKind {
    /// A conservative potential or a penalty layer: only scripted vertices' work is booked.
    Conservative,
    /// Friction: the work against every vertex's motion is booked as dissipated.
    Dissipative,
    /// Damping: only scripted vertices' work is booked here; the damper books what it
    /// dissipates itself ([`Potential::end_tick`](crate::potential::Potential::end_tick)).
    Viscous,
}

impl Ledger {
    /// Kicks vertex `u` with impulse `impulse` at time `t` ([`Vertices::kick`]) and books it.
    ///
    /// [`Vertices::kick`]: crate::model::Vertices::kick
    pub fn kick(&mut self, vertices: &mut Vertices, u: VertexId, impulse: Vec3, t: Real, kind: KickKind) {
        let dissipative = kind == KickKind::Dissipative;
        if vertices.inverse_mass(u) > 0.0 {
            if dissipative {
                let before = vertices.velocity(u);
                vertices.kick(u, impulse);
                // −ΔK = −½m(|v⁺|² − |v⁻|²) = I·v̄
                self.dissipated += impulse.dot(&(before + vertices.velocity(u))) * 0.5;
            } else {
                vertices.kick(u, impulse);
            }
        } else {
            let work = impulse.dot(&vertices.velocity_at(u, t));
            self.external_work += work;
            if dissipative {
                self.dissipated += work;
            }
        }
    }

    /// A penalty-layer kick under restitution (ACM §6.2): the layer's potential asks for the
    /// impulse `full`, of which the pair gets `applied` (e_COR·`full` while it separates). The
    /// kick applies `applied`; the part withheld, W = `applied − full`, is booked as dissipated:
    /// W·v̄, its work against the vertex's mean velocity v̄ over the kick, the same midpoint
    /// rule by which an applied kick trades kinetic for the layer's potential energy (which
    /// `potential` counts at full stiffness). Not the kinetic energy a kick of W after the full
    /// one would take out: that adds |W|²/2m per tick, which a pair resting in its layers books
    /// tick after tick as if it were sliding out of them (`tests/ledger.rs`).
    pub fn kick_restituted(&mut self, vertices: &mut Vertices, u: VertexId, applied: Vec3, full: Vec3, t: Real) {
        let withheld = applied - full;
        let mass = vertices.effective_mass(u);
        if mass.is_finite() {
            let before = vertices.velocity(u);
            vertices.kick(u, applied);
            let after = vertices.velocity(u);
            self.dissipated += withheld.dot(&(before + after)) * 0.5;
        } else {
            let velocity = vertices.velocity_at(u, t);
            self.external_work += applied.dot(&velocity);
            self.dissipated += withheld.dot(&velocity);
        }
    }

    /// A penalty-layer kick that restitution withholds entirely (e_COR = 0 while the pair
    /// separates): the layer asks vertex `u` for the impulse `full` and applies none of it, so the
    /// vertex's velocity does not change; the withheld impulse, −`full`, is booked as dissipated by
    /// its work against that velocity, as [`Ledger::kick_restituted`] books it when it applies
    /// nothing.
    pub fn withhold(&mut self, vertices: &Vertices, u: VertexId, full: Vec3, t: Real) {
        self.dissipated -= full.dot(&vertices.velocity_at(u, t));
    }

    /// Kicks every vertex of `stencil` with `h`·`gradient` at `t` and books it.
    pub fn kick_stencil(
        &mut self,
        vertices: &mut Vertices,
        stencil: &[VertexId],
        gradient: &[Vec3],
        h: Real,
        t: Real,
        kind: KickKind,
    ) {
        for (&u, g) in stencil.iter().zip(gradient) {
            self.kick(vertices, u, g * h, t, kind);
        }
    }

    /// The sum of two ledgers (the engine's and the contact manager's).
    pub fn plus(self, other: Ledger) -> Ledger {
        Ledger {
            dissipated: self.dissipated + other.dissipated,
            external_work: self.external_work + other.external_work,
            external_shifts: self.external_shifts + other.external_shifts,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Body, BodyKind, LinearPath, Model};

    /// A free vertex of 2 kg moving at +x, and a vertex scripted at 3 m/s along +x.
    fn two_vertices() -> Model {
        let mut model = Model::new();
        model.add_body(
            Body::new("pair", BodyKind::Particles { radius: 0.1 }),
            &[Vec3::zeros(), Vec3::x()],
            &[Vec3::x(), Vec3::zeros()],
            &[2.0, 1.0],
        );
        let path = LinearPath { origin: Vec3::x(), velocity: Vec3::x() * 3.0, start: 0.0, stop: Real::INFINITY };
        model.vertices.script(VertexId(1), path);
        model
    }

    fn kinetic(model: &Model) -> Real {
        0.5 * 2.0 * model.vertices.velocity(VertexId(0)).norm_squared()
    }

    #[test]
    fn a_dissipative_kick_books_the_kinetic_energy_it_takes_out() {
        let mut model = two_vertices();
        let mut ledger = Ledger::default();
        let before = kinetic(&model);
        ledger.kick(&mut model.vertices, VertexId(0), Vec3::new(0.5, 0.3, 0.0), 0.0, KickKind::Dissipative);
        let taken = before - kinetic(&model);
        assert!(taken > 0.0);
        assert!((ledger.dissipated - taken).abs() < 1e-15, "{} vs {taken}", ledger.dissipated);
        assert_eq!(ledger.external_work, 0.0);
        // a conservative kick books nothing on a free vertex
        let mut ledger = Ledger::default();
        ledger.kick(&mut model.vertices, VertexId(0), Vec3::x(), 0.0, KickKind::Conservative);
        assert_eq!(ledger, Ledger::default());
    }

    #[test]
    fn restitution_books_the_work_of_the_impulse_it_withholds() {
        // 2 kg at 1 m/s; the layer asks for −1 N·s and gets −0.6: the vertex leaves at 1.3 m/s,
        // and the withheld 0.4 N·s works against the mean velocity 1.15 m/s: 0.46 J (a kick of
        // the withheld part after the full one, 1.5 → 1.3 m/s, would book 0.56 J)
        let mut model = two_vertices();
        let (full, applied) = (Vec3::x() * -1.0, Vec3::x() * -0.6);
        let mut ledger = Ledger::default();
        ledger.kick_restituted(&mut model.vertices, VertexId(0), applied, full, 0.0);
        assert_eq!(model.vertices.velocity(VertexId(0)), Vec3::x() * 1.3);
        assert!((ledger.dissipated - 0.46).abs() < 1e-15, "{}", ledger.dissipated);
        // a pair at rest in its layer books nothing for the impulse it withholds
        let mut model = two_vertices();
        model.vertices.set_velocity(VertexId(0), Vec3::zeros());
        let mut ledger = Ledger::default();
        ledger.kick_restituted(&mut model.vertices, VertexId(0), Vec3::zeros(), full, 0.0);
        assert_eq!(ledger.dissipated, 0.0);
        // on a scripted vertex: the path's work on what was applied, and the withheld part's
        let mut ledger = Ledger::default();
        ledger.kick_restituted(&mut model.vertices, VertexId(1), applied, full, 0.0);
        assert!((ledger.external_work - -1.8).abs() < 1e-15 && (ledger.dissipated - 1.2).abs() < 1e-15, "{ledger:?}");
    }

    #[test]
    fn a_scripted_vertex_does_the_work_of_its_path_against_the_force() {
        let mut model = two_vertices();
        let mut ledger = Ledger::default();
        // the force on the scripted vertex is −I/h = −x·(2/h): its path at +3 m/s works against
        // it, putting I·v = 6 J into the system
        ledger.kick(&mut model.vertices, VertexId(1), Vec3::x() * 2.0, 0.5, KickKind::Conservative);
        assert_eq!(ledger.external_work, 6.0);
        assert_eq!(model.vertices.velocity_at(VertexId(1), 0.5), Vec3::x() * 3.0, "a script ignores kicks");
        // a damper dragged by the script takes that work out
        ledger.kick(&mut model.vertices, VertexId(1), Vec3::x() * 2.0, 0.5, KickKind::Dissipative);
        assert_eq!((ledger.external_work, ledger.dissipated), (12.0, 6.0));
    }
}
