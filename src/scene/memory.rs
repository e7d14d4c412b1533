//! The memory a scene will take, planned body by body before its potentials are built, against
//! the memory the machine has available: a scene that cannot fit is refused with the body, its
//! size and the numbers, instead of dying in the allocator minutes into the build.
//!
//! The cost of a vertex depends on its body's kind (a shell vertex carries about six membrane,
//! hinge and damping potentials, an obstacle vertex none). The figures are the peak resident
//! memory of `avicontact info` (scene, model and engine built) divided by the vertex count, on
//! bodies of 17 000 to 100 000 vertices, rounded up; contact adds the bookkeeping that `spikes`
//! measured at its peak (docs/performance.md: 1.99 KB per vertex over its first 0.3 s since pair
//! records keep their slab's planes, 1.75 KB before), with room to spare.

use super::SceneError;
use crate::math::{Compact, Real};
use crate::model::BodyKind;
use std::cell::Cell;

/// Bytes per vertex of a body of this kind, without contact.
fn bytes_per_vertex(kind: &BodyKind) -> Real {
    match kind {
        // 3.15 KB measured (membrane, hinge and their damping)
        BodyKind::Shell { .. } => 3_500.0,
        // 1.98 KB measured (about 5 tetrahedra per vertex)
        BodyKind::Solid { .. } => 2_500.0,
        // 0.46 KB measured (springs)
        BodyKind::Chain { .. } => 600.0,
        // 0.66 KB measured, with contact
        BodyKind::Particles { .. } => 800.0,
        // 0.22 KB measured
        BodyKind::Obstacle { .. } => 300.0,
    }
}

/// Bytes per vertex that contact adds (pair records, certificates, grid cells).
const CONTACT_BYTES_PER_VERTEX: Real = 2_500.0;

/// The environment variable that sets the memory a scene may plan for, in bytes (for a shared
/// machine, or a batch job's limit); without it, the machine's available memory.
pub const MEMORY_LIMIT_VARIABLE: &str = "AVICONTACT_MEMORY_LIMIT";

/// The running plan of one scene's build.
pub(super) struct MemoryPlan {
    /// Bytes planned so far.
    planned: Cell<Real>,
    /// Whether the scene has contact.
    contact: bool,
    /// The budget, bytes, and where it comes from; `None` where it cannot be read.
    budget: Option<(Real, String)>,
}

impl MemoryPlan {
    /// A plan against `AVICONTACT_MEMORY_LIMIT` or, without it, `MemAvailable` of `/proc/meminfo`.
    pub fn new(contact: bool) -> Result<Self, String> {
        let budget = match std::env::var(MEMORY_LIMIT_VARIABLE) {
            Ok(text) => match text.trim().parse::<Real>() {
                Ok(b) if b.is_finite() && b > 0.0 => Some((b, format!("{MEMORY_LIMIT_VARIABLE} = {}", text.trim()))),
                _ => return Err(format!("{MEMORY_LIMIT_VARIABLE} = {text:?} is not a number of bytes > 0")),
            },
            Err(_) => available_bytes().map(|b| (b, "available on this machine (MemAvailable)".to_string())),
        };
        Ok(MemoryPlan { planned: Cell::new(0.0), contact, budget })
    }

    /// No budget: parsing, or a system without `/proc/meminfo`.
    pub fn unlimited() -> Self {
        MemoryPlan { planned: Cell::new(0.0), contact: false, budget: None }
    }

    /// Adds a body of `vertices` vertices of `kind` at `place` of scene `file` (its key `key` sets
    /// its size) to the plan; refuses it if the scene no longer fits the budget.
    pub fn add(&self, file: &str, place: &str, key: &str, kind: &BodyKind, vertices: usize) -> Result<(), SceneError> {
        let per_vertex = bytes_per_vertex(kind) + if self.contact { CONTACT_BYTES_PER_VERTEX } else { 0.0 };
        let body = per_vertex * vertices as Real;
        let planned = self.planned.get() + body;
        self.planned.set(planned);
        match &self.budget {
            Some((budget, source)) if planned > *budget => Err(SceneError {
                file: file.to_string(),
                place: Some(format!("{place}.{key}")),
                message: format!(
                    "{vertices} vertices need about {} of memory to simulate (about {} per vertex of this kind{}), \
                     and the scene so far {}, more than the {} {source}; use a coarser mesh, fewer bodies or a \
                     machine with more memory",
                    bytes(body),
                    bytes(per_vertex),
                    if self.contact { ", with contact" } else { "" },
                    bytes(planned),
                    bytes(*budget)
                ),
            }),
            _ => Ok(()),
        }
    }
}

/// `MemAvailable` of `/proc/meminfo`, bytes (`None` where there is none).
fn available_bytes() -> Option<Real> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: Real = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024.0)
}

/// Bytes in the unit that reads best.
fn bytes(b: Real) -> String {
    let (value, unit) = if b >= 1e9 {
        (b / 1e9, "GB")
    } else if b >= 1e6 {
        (b / 1e6, "MB")
    } else {
        (b / 1e3, "KB")
    };
    format!("{} {unit}", Compact::rounded(value, 3))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_beyond_the_budget_is_refused_with_its_numbers() {
        let plan = MemoryPlan { planned: Cell::new(0.0), contact: false, budget: Some((1e8, "a test".into())) };
        let shell = BodyKind::Shell { triangles: Vec::new() };
        // 20 000 shell vertices: 70 MB, within 100 MB
        assert!(plan.add("scene.toml", "body[0] \"a\"", "mesh", &shell, 20_000).is_ok());
        // 10 000 more: 105 MB in all
        let e = plan.add("scene.toml", "body[1] \"b\"", "mesh", &shell, 10_000).unwrap_err();
        assert_eq!(e.place.as_deref(), Some("body[1] \"b\".mesh"));
        assert!(
            e.message.contains("35 MB") && e.message.contains("105 MB") && e.message.contains("100 MB a test"),
            "{}",
            e.message
        );
        // without a budget nothing is refused
        assert!(MemoryPlan::unlimited().add("scene.toml", "body[0]", "mesh", &shell, usize::MAX >> 12).is_ok());
    }

    #[test]
    fn the_machine_reports_its_available_memory() {
        if std::path::Path::new("/proc/meminfo").exists() {
            assert!(available_bytes().is_some_and(|b| b > 0.0));
        }
    }
}
