//! What a scene hands to a backend: each potential with the choice of its clock period (the AVI
//! ticks it on that clock; the synchronous backend evaluates every potential at every step and
//! ignores the choice). Below both backends, so neither imports the other.

use crate::math::Real;
use crate::potential::Potential;

/// How a potential's clock period is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PeriodChoice {
    /// The potential's stable-step estimate at the initial positions times the safety factor.
    /// Potentials without a limit (gravity) take the smallest period of all other potentials.
    Stable,
    /// Exactly this period, s.
    Fixed(Real),
}

/// A potential to integrate and how to choose its clock.
#[derive(Debug)]
pub struct ForceSpec {
    /// The potential.
    pub potential: Box<dyn Potential>,
    /// Its period.
    pub period: PeriodChoice,
}
