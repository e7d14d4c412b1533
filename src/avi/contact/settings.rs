//! The settings of AVI contact (the scene's `[contact]` table): penalty layers, vagueness,
//! profitability, restitution, friction, the broad phase and the method variant (ACM §3–§6).
//! A leaf of the contact subsystem.

use crate::contact::LayerSchedule;
use crate::math::Real;

/// Contact settings of the AVI backend (the scene's `[contact]` table).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub struct ContactSettings {
    /// η(1) and r(1) (ACM §4).
    pub layers: LayerSchedule,
    /// Safety factor on each layer's stable period `2/√(r(l)·Σ 1/m)`.
    pub safety: Real,
    /// Velocity tolerance ε of vague trajectories, m/s (ACM §5.3; 0: exact linear trajectories).
    pub tolerance: Real,
    /// A slab is built for layer l when the gap exceeds this factor times η(l) (ACM §5.1 uses
    /// 11/10), or in a narrower gap when it would last two periods of layer l; otherwise the layer
    /// is activated.
    pub profitability: Real,
    /// Coefficient of restitution e in [0, 1]: separating pairs feel e·r(l) (biphasic layers,
    /// ACM §6.2).
    pub restitution: Real,
    /// Coulomb coefficient μ ≥ 0, applied per layer impulse (ACM §6.3).
    pub friction: Real,
    /// How contact is resolved: the paper's method, or one of the two broken variants of ACM §3
    /// kept to reproduce its pogo experiment.
    pub variant: ContactVariant,
    /// Which primitive pairs hold certificates: all of them, those near on the hash grid, or those
    /// the k-DOP front has not separated.
    pub broad_phase: BroadPhaseKind,
    /// The broad phase's hysteresis, m (`None`: a default for the broad phase and cell size): the
    /// hash grid re-covers a primitive only once a vertex may have moved this far from its anchor
    /// (and so keeps pairs to 2·slack beyond the reach); the k-DOP front frees a pair only once
    /// its k-DOPs are apart by half of it beyond the reach. More slack: fewer broad-phase events,
    /// more pairs.
    pub broad_phase_slack: Option<Real>,
}

/// How contact is resolved. Only [`ContactVariant::RegularLayers`] keeps the guarantees; the other
/// two are the broken methods of ACM §3 (report §8.1, Fig. 2), kept so that the pogo experiment
/// can show what they do. They are reachable from the library only, never from a scene file.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ContactVariant {
    /// Penalty layers on regular clocks ticking at multiples of h(l) from t = 0 (ACM §4, law 4).
    #[default]
    RegularLayers,
    /// Broken on purpose: each layer's clock restarts at the instant its gap reaches η(l) (as
    /// predicted on the stencil's linear trajectory, re-predicted at each tick until the layer
    /// first pushes). ACM §3: this "systematically injects energy".
    RestartedClocks,
    /// Broken on purpose: no layers; when a pair's gap reaches η(1) (predicted on the linear
    /// trajectory, re-predicted after every kick) its normal relative velocity is reflected by an
    /// elastic impulse. ACM §3: the energy "takes a random walk". No safety guarantee either.
    ReflectiveImpulse,
}

impl ContactSettings {
    /// Default safety factor on layer periods: h(l)·ω(l) = 0.1, so a layer resolves a bounce in
    /// about 30 ticks. At 0.5 (ω·h = 1) a single bounce of a particle on a wall gains or loses
    /// up to 50 % of its energy; at 0.05 about 0.5 % (measured, `docs/contact.md`).
    pub const DEFAULT_SAFETY: Real = 0.05;

    /// Default vague-trajectory tolerance ε, m/s: a vertex's certificates are recomputed only when
    /// its velocity has moved more than this from the centre of its tube. On two colliding shells
    /// ε = 0.2 runs 150× faster than ε = 0 for the same trajectory (law 5).
    pub const DEFAULT_TOLERANCE: Real = 0.1;

    /// The largest `profitability` a scene may give. A pair whose gap lies between η(l) and
    /// profitability·η(l) switches layer l on instead of building a slab, so a pair may start
    /// with up to profitability⁴ layers (η(l) = η₁·l^(−1/4)), and the broad phase's reach grows
    /// with it; law 5 is tested from 1.1 to 2.
    pub const MAX_PROFITABILITY: Real = 2.0;

    /// The reach, m: the gap below which two primitives must hold a pair, profitability·η(1).
    /// A pair is made no closer than this, so above η(1): it starts with a slab of thickness η(1)
    /// (or, within round-off of the reach, its first layer). Twice this, as before 2026-11-23,
    /// held 2.5× the pairs on `spikes` and ran 1.4× slower (`docs/performance.md`).
    pub fn reach(&self) -> Real {
        self.profitability * self.layers.thickness(1)
    }

    /// Settings with the given layers and safety factor, the default vagueness, the paper's 11/10
    /// profitability rule, elastic and frictionless.
    pub fn new(layers: LayerSchedule, safety: Real) -> Self {
        ContactSettings {
            layers,
            safety,
            tolerance: Self::DEFAULT_TOLERANCE,
            profitability: 1.1,
            restitution: 1.0,
            friction: 0.0,
            variant: ContactVariant::RegularLayers,
            broad_phase: BroadPhaseKind::default(),
            broad_phase_slack: None,
        }
    }
}

/// Which broad phase the AVI contact manager uses (the scene's `[contact] broad_phase`).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq)]
pub enum BroadPhaseKind {
    /// Every candidate pair holds a certificate for the whole run: cost grows with the square of
    /// the number of primitives; for small scenes and as the reference of law 5.
    AllPairs,
    /// The kinetic hash grid (Phantom §4) with cubic cells of this side, m; `None`: twice the mean
    /// edge length of the free bodies (Phantom's choice), or for particles only, twice the sum of
    /// the largest diameter and the contact reach.
    HashGrid {
        /// Cell side, m.
        cell_size: Option<Real>,
    },
    /// The kinetic k-DOP hierarchy (ACM §5.5–5.6): bounding-volume trees of 26-DOPs and a front
    /// of overlap and non-overlap certificates (`src/avi/contact/broad_phase/kdop.rs`).
    Kdop,
}

impl Default for BroadPhaseKind {
    fn default() -> Self {
        BroadPhaseKind::HashGrid { cell_size: None }
    }
}

impl BroadPhaseKind {
    /// Every broad phase's name in scene files (`[contact] broad_phase`), the default first.
    pub const NAMES: [&'static str; 3] = ["hash-grid", "kdop", "all-pairs"];

    /// The broad phase called `name` in scene files; `cell_size` is the hash grid's cell side
    /// (ignored by the others).
    pub fn from_name(name: &str, cell_size: Option<Real>) -> Option<Self> {
        match name {
            "hash-grid" => Some(BroadPhaseKind::HashGrid { cell_size }),
            "kdop" => Some(BroadPhaseKind::Kdop),
            "all-pairs" => Some(BroadPhaseKind::AllPairs),
            _ => None,
        }
    }

    /// Its name in scene files.
    pub fn name(self) -> &'static str {
        match self {
            BroadPhaseKind::HashGrid { .. } => Self::NAMES[0],
            BroadPhaseKind::Kdop => Self::NAMES[1],
            BroadPhaseKind::AllPairs => Self::NAMES[2],
        }
    }
}

/// [`ContactVariant::RestartedClocks`] only: how a layer's clock was restarted at the predicted
/// contact instant (kept apart, so that a layer of the real method is a bare 16-byte [`Clock`]
/// on multiples of h(l) from t = 0).
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug)]
pub(super) struct Restart {
    /// Added to every tick time of the layer's clock.
    pub(super) origin: Real,
    /// The layer has not pushed yet, so each tick re-predicts contact.
    pub(super) awaiting_contact: bool,
}
