//! Why contact on the AVI backend cannot start or go on: the records its failures carry (plain
//! data, below both backends, so that `error.rs` can wrap them without knowing an engine).

use super::ZenoError;
use crate::ids::PairId;
use crate::math::{Compact, Real, Vec3};
use std::fmt;

/// A contact pair as a failure names it: its primitives, its gap, and each of its vertices with
/// its body, position and speed, so the place on the mesh can be found.
#[derive(Clone, Debug, PartialEq)]
pub struct PairReport {
    /// What the pair is between: `"point–triangle"`, `"edge–edge"`, `"sphere–sphere"` or
    /// `"edge-length"` (an inextensible edge, ACM §7).
    pub primitives: &'static str,
    /// Its gap (distance less radii), m.
    pub gap: Real,
    /// Its vertices, low side first.
    pub vertices: Vec<VertexReport>,
}

/// One vertex of a [`PairReport`].
#[derive(Clone, Debug, PartialEq)]
pub struct VertexReport {
    /// Its part of the pair: `"triangle"`, `"point"`, `"edge a"`, `"edge b"`, `"sphere"`, `"edge"`.
    pub role: &'static str,
    /// The body's name.
    pub body: String,
    /// The vertex's index within its body (the scene file's numbering).
    pub local: u32,
    /// Its global index.
    pub global: u32,
    /// Where it is, m.
    pub position: Vec3,
    /// How fast it moves, m/s.
    pub speed: Real,
}

impl fmt::Display for PairReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "The pair is {} at gap {:.3e} m:", self.primitives, self.gap)?;
        for (i, v) in self.vertices.iter().enumerate() {
            let p = v.position;
            write!(
                f,
                "{} {} vertex {} of body \"{}\" (global {}) at ({}, {}, {}) m moving {:.3e} m/s",
                if i == 0 { "" } else { ";" },
                v.role,
                v.local,
                v.body,
                v.global,
                Compact(p.x),
                Compact(p.y),
                Compact(p.z),
                v.speed
            )?;
        }
        Ok(())
    }
}

/// A contact pair got inside its zero-distance limit: the guarantee was broken (a bug, or a
/// scripted obstacle pushing through a free body faster than any finite energy can stop).
#[derive(Clone, Debug, PartialEq)]
pub struct Penetration {
    /// The pair's vertices (global indices), low side first.
    pub vertices: Vec<u32>,
    /// Its gap, m.
    pub gap: Real,
    /// When, s.
    pub time: Real,
}

impl fmt::Display for Penetration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "contact pair on vertices {:?} reached gap {:.3e} m at t = {} s: the primitives touch, which the penalty \
             layers must prevent; scripted obstacles may be driving a body through another (slow them down)",
            self.vertices,
            self.gap,
            Compact(self.time)
        )
    }
}

/// Why contact handling cannot go on.
#[derive(Clone, Debug, PartialEq)]
pub enum ContactError {
    /// A layer period fell below the clock's resolution (ACM §9, "Zeno"), on this pair.
    Zeno(ZenoError, Box<PairReport>),
    /// A pair touched.
    Penetration(Penetration),
    /// A broad-phase certificate failed again at the instant it was renewed.
    BroadPhaseStall(BroadPhaseStall),
}

/// A broad-phase certificate renewed to fail at the very instant it failed: a vertex moves so
/// fast, or the slack is so thin, that its tube leaves the slack ball in less time than the clock
/// can represent at `time` (ACM §5.3). Without this stop the event would repeat for ever.
#[derive(Clone, Debug, PartialEq)]
pub struct BroadPhaseStall {
    /// The certificate (the vertex for the hash grid, the front record for the k-DOP hierarchy).
    pub certificate: u32,
    /// When, s.
    pub time: Real,
    /// The broad phase's slack, m.
    pub slack: Real,
}

impl fmt::Display for BroadPhaseStall {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "broad-phase certificate {} fails again at t = {} s, the instant it was renewed: a vertex crosses the \
             slack of {:.3e} m faster than the clock can resolve; lower the speeds or raise contact.cell_size \
             (or broad_phase_slack)",
            self.certificate, self.time, self.slack
        )
    }
}

impl fmt::Display for ContactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ContactError::Zeno(e, pair) => write!(f, "{e}. {pair}"),
            ContactError::Penetration(e) => write!(f, "{e}"),
            ContactError::BroadPhaseStall(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ContactError {}

/// What the audit found wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct AuditFailure {
    /// The pair (`None` when the broad phase missed a pair).
    pub pair: Option<PairId>,
    /// When, s.
    pub time: Real,
    /// What is wrong.
    pub what: &'static str,
}

impl fmt::Display for AuditFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.pair {
            Some(pair) => {
                write!(f, "audit at t = {} s: contact pair {}: {}", Compact(self.time), pair.index(), self.what)
            }
            None => write!(f, "audit at t = {} s: {}", Compact(self.time), self.what),
        }
    }
}

/// A contact pair that cannot start: closer than η(1) at t = 0, or (`cause`) farther but
/// impossible to certify.
#[derive(Clone, Debug, PartialEq)]
pub struct StartError {
    /// The pair's vertices (global indices), low side first.
    pub vertices: Vec<u32>,
    /// Its gap, m.
    pub gap: Real,
    /// η(1), m.
    pub thickness: Real,
    /// Why a pair that starts farther apart than η(1) could not be certified at t = 0 (`None`
    /// when the gap is the reason).
    pub cause: Option<ContactError>,
}

impl fmt::Display for StartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (vertices, gap, thickness) = (&self.vertices, self.gap, Compact(self.thickness));
        match &self.cause {
            None => write!(
                f,
                "at t = 0 the pair on vertices {vertices:?} has gap {gap:.3e} m, below the contact thickness \
                 η(1) = {thickness} m; move the bodies apart or lower [contact] thickness"
            ),
            Some(cause) => write!(
                f,
                "at t = 0 the pair on vertices {vertices:?} (gap {gap:.3e} m, above the contact thickness η(1) = \
                 {thickness} m) cannot be certified: {cause}"
            ),
        }
    }
}

impl std::error::Error for StartError {}
