//! Scenes: the TOML format of `docs/scene-format.md`, its validation, and the built-in scenes
//! (layer L6 of `docs/design.md`). The only module besides `output/` that touches files.
//!
//! [`load`] takes a path or a built-in name and returns a [`Scene`]: a model, its potentials
//! with clock choices, and the run parameters, ready for [`Simulation::new`](crate::Simulation::new).
//! Errors name the file, the key and the fix (`docs/scene-format.md` documents every key).

mod body;
mod build;
mod builtin;
mod context;
mod exact;
mod loads;
mod memory;
pub mod schema;
mod simulate;
mod wind;

pub use builtin::{builtin_names, builtin_source, builtin_summary};
pub use simulate::RunChoice;

use crate::force::ForceSpec;
use crate::model::Model;
use crate::simulation::SimulationParameters;
use serde::Deserialize;
use std::fmt;
use std::path::{Path, PathBuf};

/// Which backend a scene asks for: [`BackendKind`](crate::backend::BackendKind), by the name
/// this module has always given it.
pub use crate::backend::BackendKind as Backend;

/// A loaded, validated scene.
#[derive(Debug)]
pub struct Scene {
    /// The scene's name: a built-in name or the file stem.
    pub name: String,
    /// The scene file, for file scenes.
    pub path: Option<PathBuf>,
    /// Bodies and vertices.
    pub model: Model,
    /// Potentials and their clock choices.
    pub forces: Vec<ForceSpec>,
    /// Run parameters.
    pub parameters: SimulationParameters,
    /// The backend the scene asks for.
    pub backend: Backend,
    /// The `[sync]` table (defaults when absent): used with the synchronous backend.
    pub sync: crate::sync::SyncParameters,
    /// Things the user should know that do not stop the run (e.g. sections parsed but not yet
    /// simulated).
    pub warnings: Vec<String>,
    /// With `[contact]`: the closest pair of primitives that starts closer than η(1), if any.
    /// The AVI backend refuses such a start (its layers would begin inside their own range).
    pub contact_violation: Option<SceneError>,
}

impl Scene {
    /// The scene as every message names it: the file's path, or `built-in scene NAME` (the
    /// `file` of its [`SceneError`]s).
    pub fn label(&self) -> String {
        match &self.path {
            Some(path) => path.display().to_string(),
            None => format!("built-in scene {}", self.name),
        }
    }
}

/// A scene that cannot be used, with where and why.
#[derive(Clone, Debug, PartialEq)]
pub struct SceneError {
    /// The scene file (or `built-in scene NAME`).
    pub file: String,
    /// Where in the file: a key path such as `body[1] "sheet".density`, or a line and column.
    pub place: Option<String>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.place {
            Some(place) => write!(f, "{}: {}: {}", self.file, place, self.message),
            None => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

impl std::error::Error for SceneError {}

/// Loads a scene from a file path or, when no such file exists, a built-in scene by name.
pub fn load(scene: impl AsRef<Path>) -> Result<Scene, SceneError> {
    let path = scene.as_ref();
    if path.is_file() {
        let text = std::fs::read_to_string(path).map_err(|e| SceneError {
            file: path.display().to_string(),
            place: None,
            message: format!("cannot read the scene file: {e}"),
        })?;
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let base = path.parent().unwrap_or(Path::new("."));
        let mut s = parse(&text, &path.display().to_string(), base, name)?;
        s.path = Some(path.to_path_buf());
        return Ok(s);
    }
    let name = path.to_string_lossy();
    match builtin_source(&name) {
        Some(text) => parse(text, &format!("built-in scene {name}"), Path::new("."), name.into_owned()),
        None => Err(SceneError {
            file: name.into_owned(),
            place: None,
            message: format!(
                "no such scene file, and no built-in scene of that name; built-in scenes are: {}",
                builtin_names().join(", ")
            ),
        }),
    }
}

/// Parses and validates scene `text`. `file` names it in messages; OBJ paths are relative to
/// `base`.
pub fn parse(text: &str, file: &str, base: &Path, name: String) -> Result<Scene, SceneError> {
    let parse_error = |e: toml::de::Error| {
        let place = e.span().map(|span| {
            let line = text[..span.start].matches('\n').count() + 1;
            let line_start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
            let column = span.start - line_start + 1;
            let source = text[line_start..].lines().next().unwrap_or("").trim();
            format!("line {line}, column {column} (`{source}`)")
        });
        SceneError { file: file.to_string(), place, message: e.message().trim().to_string() }
    };
    let document = toml::de::DeTable::parse(text).map_err(parse_error)?;
    // the bodies first, each by its kind, as the parser visits `body` before the other tables
    let bodies = body::parse_bodies(
        &context::Ctx {
            file,
            memory: memory::MemoryPlan::unlimited(),
            contact_thickness: None,
            warnings: Default::default(),
        },
        document.get_ref().get("body"),
        &parse_error,
    )?;
    let raw = schema::SceneFile::deserialize(toml::de::Deserializer::from(document)).map_err(parse_error)?;
    build::build(raw, bodies, file, base, name)
}
