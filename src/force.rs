//! What a scene hands to a backend: each potential with the choice of its clock period (the AVI
//! ticks it on that clock; the synchronous backend evaluates every potential at every step and
//! ignores the choice). Below both backends, so neither imports the other.

use crate::ids::BodyId;
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
    /// The body whose own elastic or damping potential this is (set by the scene builder for a
    /// body kind's potentials, not for gravity): what a phantom body's implicit step takes over
    /// from the clocks (Phantom §3.2, [`SimulationParameters::phantom`]). `None`: always on its
    /// own clock.
    ///
    /// [`SimulationParameters::phantom`]: crate::SimulationParameters::phantom
    pub body: Option<BodyId>,
}

impl ForceSpec {
    /// `potential` on a clock of `period`, belonging to no body's implicit step.
    pub fn new(potential: Box<dyn Potential>, period: PeriodChoice) -> Self {
        ForceSpec { potential, period, body: None }
    }
}
