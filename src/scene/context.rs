//! The error context of a scene's build: the file a message names, and the range checks every
//! value goes through, each with its message (what is wrong and what to do).

use super::memory::MemoryPlan;
use super::SceneError;
use crate::force::PeriodChoice;
use crate::math::{Compact, Real, Vec3};

/// Error context: the file being built, for messages located by key path, and the memory the
/// build plans for.
pub(super) struct Ctx<'a> {
    /// The scene file as messages name it (a path, or `built-in scene NAME`).
    pub file: &'a str,
    /// The memory planned so far against the machine's ([`MemoryPlan`]).
    pub memory: MemoryPlan,
    /// η(1), `[contact] thickness` (its default when the key is absent), when the scene has
    /// `[contact]`: generated knots keep their gaps above a multiple of it.
    pub contact_thickness: Option<Real>,
    /// Warnings the build has given so far, each `FILE: KEY: message`.
    pub warnings: std::cell::RefCell<Vec<String>>,
}

impl Ctx<'_> {
    /// An error at the key path `place`.
    pub fn err(&self, place: impl Into<String>, message: impl Into<String>) -> SceneError {
        SceneError { file: self.file.to_string(), place: Some(place.into()), message: message.into() }
    }

    /// A warning at the key path `place`: the build goes on.
    pub fn warn(&self, place: &str, message: impl std::fmt::Display) {
        self.warnings.borrow_mut().push(format!("{}: {place}: {message}", self.file));
    }

    /// `v` as a vector when every component is finite (`place.key` in the message otherwise).
    pub fn finite_vec(&self, place: &str, key: &str, v: [f64; 3]) -> Result<Vec3, SceneError> {
        if v.iter().all(|c| c.is_finite()) {
            Ok(Vec3::from(v))
        } else {
            Err(self.err(
                format!("{place}.{key}"),
                format!("{v:?} has a NaN or infinite component; give three finite numbers"),
            ))
        }
    }

    /// A required value that is finite and > 0; `what` says what to give.
    pub fn positive(&self, place: &str, key: &str, value: Option<f64>, what: &str) -> Result<Real, SceneError> {
        match value {
            Some(v) if v.is_finite() && v > 0.0 => Ok(v),
            Some(v) => {
                Err(self
                    .err(format!("{place}.{key}"), format!("must be a finite number > 0, got {}; {what}", Compact(v))))
            }
            None => Err(self.err(place.to_string(), format!("`{key}` is required; {what}"))),
        }
    }

    /// An optional value that is finite and ≥ 0 (0 when absent); `what` says what to give.
    pub fn non_negative(&self, place: &str, key: &str, value: Option<f64>, what: &str) -> Result<Real, SceneError> {
        match value {
            None => Ok(0.0),
            Some(v) if v.is_finite() && v >= 0.0 => Ok(v),
            Some(v) => {
                Err(self
                    .err(format!("{place}.{key}"), format!("must be a finite number ≥ 0, got {}; {what}", Compact(v))))
            }
        }
    }

    /// A clock period key: the key's value, else the scene's common period, else the stable
    /// estimate.
    pub fn period(
        &self,
        place: &str,
        key: &str,
        value: Option<f64>,
        common: Option<Real>,
    ) -> Result<PeriodChoice, SceneError> {
        match value.or(common) {
            None => Ok(PeriodChoice::Stable),
            Some(h) if h.is_finite() && h > 0.0 => Ok(PeriodChoice::Fixed(h)),
            Some(h) => Err(self
                .err(format!("{place}.{key}"), format!("must be a finite period in seconds > 0, got {}", Compact(h)))),
        }
    }
}

/// `"a", "b" or "c"`: the names a message offers, quoted.
pub(super) fn quoted_or(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match quoted.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}
