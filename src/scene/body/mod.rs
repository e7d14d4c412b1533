//! `[[body]]`, one file per kind: shell, solid, particles, chain and obstacle.
//!
//! A body table is read in two steps: its `name` and `kind` first, then the rest of the table as
//! the kind's own struct, which takes only the kind's keys. A key of another kind is refused when
//! the body is built, with the body, the key and the keys the kind takes (`body[0]
//! "sheet".spring_stiffness: does not apply to a body of kind "shell"; remove it (keys for this
//! kind: …)`), so a misplaced key is never silently ignored; a key of no kind, and a value of the
//! wrong type, are refused by the parser with their line and column.

mod chain;
mod knot;
mod mesh;
mod obstacle;
mod particles;
mod rest_gaps;
mod shell;
mod solid;

use super::context::{quoted_or, Ctx};
use super::schema::ScriptSpec;
use super::SceneError;
use crate::force::{ForceSpec, PeriodChoice};
use crate::ids::{BodyId, VertexId};
use crate::math::{Compact, Real, Vec3};
use crate::model::{Body, BodyKind, LinearPath, Model};
use crate::potential::Gravity;
use serde::de::{DeserializeOwned, IgnoredAny, Visitor};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use toml::de::{DeTable, DeValue, ValueDeserializer};
use toml::Spanned;

/// The smallest `inextensible` slack s: its layers, s·ℓ/2 thick, must stand far above the
/// round-off of a length (2.2e-16 of it).
const MIN_INEXTENSIBLE_SLACK: Real = 1e-12;

/// The keys every `[[body]]` starts with; its kind decides how the rest of the table is read.
#[derive(Debug, Deserialize)]
struct BodySection {
    /// Unique name.
    name: String,
    /// `shell | solid | particles | chain | obstacle`.
    kind: String,
}

/// A body kind: the struct its table is read into (`deny_unknown_fields`, every key optional)
/// and what it builds.
trait Kind: BodySpec + DeserializeOwned + 'static {
    /// Its name in scene files (`kind = "shell"`).
    const NAME: &'static str;
    /// Keys the kind takes only where they say nothing (an obstacle's `velocity = [0, 0, 0]`);
    /// left out of the keys messages offer.
    const SILENT_KEYS: &'static [&'static str] = &[];
}

/// One row of the table of body kinds.
struct KindEntry {
    /// `kind = "…"`.
    name: &'static str,
    /// See [`Kind::SILENT_KEYS`].
    silent_keys: &'static [&'static str],
    /// The keys of the kind's struct, in declaration order.
    keys: fn() -> &'static [&'static str],
    /// Reads a table (without `name` and `kind`) into the kind's struct.
    parse: fn(ValueDeserializer<'_>) -> Result<Box<dyn BodySpec>, toml::de::Error>,
}

impl KindEntry {
    const fn of<K: Kind>() -> Self {
        KindEntry { name: K::NAME, silent_keys: K::SILENT_KEYS, keys: keys_of::<K>, parse: parse_as::<K> }
    }

    /// The keys of the kind that messages offer: all but `transform` (every kind takes it) and
    /// the silent ones.
    fn offered_keys(&self) -> Vec<&'static str> {
        (self.keys)().iter().copied().filter(|k| *k != "transform" && !self.silent_keys.contains(k)).collect()
    }
}

/// Every body kind, in the order messages offer them.
const KINDS: [KindEntry; 5] = [
    KindEntry::of::<shell::ShellBody>(),
    KindEntry::of::<solid::SolidBody>(),
    KindEntry::of::<particles::ParticlesBody>(),
    KindEntry::of::<chain::ChainBody>(),
    KindEntry::of::<obstacle::ObstacleBody>(),
];

fn parse_as<K: Kind>(table: ValueDeserializer<'_>) -> Result<Box<dyn BodySpec>, toml::de::Error> {
    K::deserialize(table).map(|k| Box::new(k) as Box<dyn BodySpec>)
}

/// The keys of a struct with a derived `Deserialize`, in declaration order, read by a
/// deserializer that only asks for them.
fn keys_of<T: DeserializeOwned>() -> &'static [&'static str] {
    /// Carries the keys out of `deserialize_struct`.
    #[derive(Debug)]
    struct Keys(&'static [&'static str]);
    impl std::fmt::Display for Keys {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "keys {:?}", self.0)
        }
    }
    impl std::error::Error for Keys {}
    impl serde::de::Error for Keys {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Keys(&[])
        }
    }
    struct Probe;
    impl<'de> serde::Deserializer<'de> for Probe {
        type Error = Keys;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Keys> {
            Err(Keys(&[]))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Keys> {
            Err(Keys(fields))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
            unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    T::deserialize(Probe).err().map_or(&[], |k| k.0)
}

/// A `[[body]]` as parsed: its name, its kind's keys, and the keys of other kinds it was given.
pub(super) struct ParsedBody {
    /// The body's name (checked for uniqueness when the scene is built).
    pub name: String,
    kind: &'static KindEntry,
    spec: Box<dyn BodySpec>,
    /// Keys of other kinds, in the table's order: refused when the body is built.
    foreign_keys: Vec<String>,
}

impl ParsedBody {
    /// The inextensibility slack, for kinds that take one.
    pub fn inextensible(&self) -> Option<f64> {
        self.spec.inextensible()
    }

    /// Refuses a key that means nothing for the body's kind (a typo trap otherwise: a `bending`
    /// on a chain would be silently ignored).
    fn refuse_foreign_keys(&self, ctx: &Ctx, place: &str) -> Result<(), SceneError> {
        match self.foreign_keys.first().map(String::as_str).or_else(|| self.spec.misapplied()) {
            None => Ok(()),
            Some(key) => Err(ctx.err(
                format!("{place}.{key}"),
                format!(
                    "does not apply to a body of kind \"{}\"{}; remove it (keys for this kind: {})",
                    self.kind.name,
                    if key == "integration" {
                        " (it has no elastic potentials to integrate implicitly on a phantom mesh)"
                    } else {
                        ""
                    },
                    self.kind.offered_keys().join(", ")
                ),
            )),
        }
    }
}

/// Reads every `[[body]]` of a parsed document (`None`: it has none), in order. `parse_error`
/// turns the parser's errors into messages located by line and column.
pub(super) fn parse_bodies(
    ctx: &Ctx,
    bodies: Option<&Spanned<DeValue<'_>>>,
    parse_error: &dyn Fn(toml::de::Error) -> SceneError,
) -> Result<Vec<ParsedBody>, SceneError> {
    let Some(bodies) = bodies else { return Ok(Vec::new()) };
    Vec::<IgnoredAny>::deserialize(ValueDeserializer::from(bodies.clone())).map_err(parse_error)?;
    let DeValue::Array(tables) = bodies.get_ref() else { return Ok(Vec::new()) }; // a sequence, read above
    tables.iter().enumerate().map(|(index, table)| parse_body(ctx, index, table, parse_error)).collect()
}

/// Reads one `[[body]]`: its name and kind, then the rest as the kind's struct.
fn parse_body(
    ctx: &Ctx,
    index: usize,
    item: &Spanned<DeValue<'_>>,
    parse_error: &dyn Fn(toml::de::Error) -> SceneError,
) -> Result<ParsedBody, SceneError> {
    let BodySection { name, kind } =
        BodySection::deserialize(ValueDeserializer::from(item.clone())).map_err(parse_error)?;
    let place = format!("body[{index}] \"{name}\"");
    let Some(entry) = KINDS.iter().find(|k| k.name == kind) else {
        let names: Vec<&str> = KINDS.iter().map(|k| k.name).collect();
        return Err(
            ctx.err(format!("{place}.kind"), format!("unknown body kind \"{kind}\"; use {}", quoted_or(&names)))
        );
    };
    let DeValue::Table(table) = item.get_ref() else {
        return Err(ctx.err(place, "must be a table: [[body]] with its keys, or { name = …, kind = …, … }"));
    };
    let keys = (entry.keys)();
    let mut own = DeTable::new();
    let mut foreign_keys = Vec::new();
    let mut unknown = Vec::new();
    for (key, value) in table.iter() {
        let k: &str = key.get_ref();
        if k == "name" || k == "kind" {
            continue;
        }
        if !keys.contains(&k) {
            if KINDS.iter().any(|other| (other.keys)().contains(&k)) {
                foreign_keys.push(k.to_string());
                continue;
            }
            unknown.push((key.span(), k.to_string())); // the kind's struct refuses it
        }
        own.insert(key.clone(), value.clone());
    }
    let spec = (entry.parse)(ValueDeserializer::from(Spanned::new(item.span(), DeValue::Table(own)))).map_err(|e| {
        let key = unknown.iter().find(|(span, _)| e.span().as_ref() == Some(span)).map(|(_, k)| k.clone());
        let mut error = parse_error(e);
        if let Some(key) = key {
            let takes: Vec<String> = ["name", "kind"]
                .into_iter()
                .chain((entry.keys)().iter().copied().filter(|k| !entry.silent_keys.contains(k)))
                .map(|k| format!("`{k}`"))
                .collect();
            error.message =
                format!("unknown field `{key}` in {place}; a body of kind \"{kind}\" takes {}", takes.join(", "));
        }
        error
    })?;
    Ok(ParsedBody { name, kind: entry, spec, foreign_keys })
}

/// The keys of a body's motion: initial velocities, held and scripted vertices.
struct Motion<'a> {
    velocity: [f64; 3],
    angular_velocity: [f64; 3],
    velocities: Option<&'a [[f64; 3]]>,
    fixed: &'a [i64],
    scripted: &'a [ScriptSpec],
}

/// A body's vertices as its kind makes them, before its motion keys apply.
struct Geometry {
    kind: BodyKind,
    positions: Vec<Vec3>,
    /// Lumped masses, kg (infinite for an obstacle).
    masses: Vec<Real>,
    /// Initial velocities of the kind's own (a particle lattice's random speeds), or zeros.
    velocities: Vec<Vec3>,
}

/// A body added to the model, for its potentials.
struct Placed<'a> {
    kind: &'a BodyKind,
    /// Positions after `transform`: the rest shape.
    positions: &'a [Vec3],
    /// The model's index of the body's vertex 0.
    first: u32,
    /// `[simulation] period`, for the period keys.
    common_period: Option<Real>,
}

impl Placed<'_> {
    /// The model's id of the body's vertex `local`.
    fn global(&self, local: u32) -> VertexId {
        VertexId(self.first + local)
    }
}

/// What building a body needs from its kind (one implementation per file of this module).
trait BodySpec: std::fmt::Debug {
    /// The motion keys (an obstacle's stay at their defaults).
    fn motion(&self) -> Motion<'_>;

    /// The inextensibility slack, for kinds that take one.
    fn inextensible(&self) -> Option<f64> {
        None
    }

    /// The `integration` key, for kinds with elastic potentials.
    fn integration(&self) -> Option<&str> {
        None
    }

    /// A key the kind takes only at its default, given otherwise ([`Kind::SILENT_KEYS`]).
    fn misapplied(&self) -> Option<&'static str> {
        None
    }

    /// The body's vertices, placed by its `transform`, with their masses.
    fn geometry(&self, ctx: &Ctx, place: &str, base: &Path) -> Result<Geometry, SceneError>;

    /// Adds the body's potentials but gravity (the kind's elastic and damping potentials).
    fn potentials(
        &self,
        _ctx: &Ctx,
        _place: &str,
        _body: &Placed<'_>,
        _forces: &mut Vec<ForceSpec>,
    ) -> Result<(), SceneError> {
        Ok(())
    }
}

/// How a body's elastic potentials are integrated (`integration`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Integration {
    /// On their own clocks (the default).
    Explicit,
    /// On a phantom mesh with one implicit step (Phantom §3.2).
    Phantom,
}

/// Adds `body` to `model` and its potentials to `forces`: gravity on its free vertices (unless
/// `gravity` is zero) and its kind's own. Returns its id and how its elastic potentials are
/// integrated.
#[allow(clippy::too_many_arguments)]
pub(super) fn build_body(
    ctx: &Ctx,
    place: &str,
    body: &ParsedBody,
    base: &Path,
    gravity: Vec3,
    common_period: Option<Real>,
    model: &mut Model,
    forces: &mut Vec<ForceSpec>,
) -> Result<(BodyId, Integration), SceneError> {
    body.refuse_foreign_keys(ctx, place)?;
    let spec = body.spec.as_ref();
    let integration = match spec.integration() {
        None | Some("explicit") => Integration::Explicit,
        Some("phantom") => Integration::Phantom,
        Some(other) => {
            return Err(ctx.err(
                format!("{place}.integration"),
                format!(
                    "unknown integration \"{other}\"; use \"explicit\" (every potential on its own clock, the \
                     default) or \"phantom\" (the elastic potentials on one implicit step, [simulation] implicit_step)"
                ),
            ))
        }
    };
    let motion = spec.motion();
    let velocity = ctx.finite_vec(place, "velocity", motion.velocity)?;
    let spin = ctx.finite_vec(place, "angular_velocity", motion.angular_velocity)?;
    let Geometry { kind, positions, masses, mut velocities } = spec.geometry(ctx, place, base)?;
    let size_key = if matches!(kind, BodyKind::Particles { .. }) { "positions" } else { "mesh" };
    ctx.memory.add(ctx.file, place, size_key, &kind, positions.len())?;
    add_initial_velocities(ctx, place, (&positions, &masses), velocity, spin, motion.velocities, &mut velocities)?;
    refuse_overflowing_motion(ctx, place, &positions, &masses, &velocities)?;
    let is_obstacle = matches!(kind, BodyKind::Obstacle { .. });
    let mut new_body = Body::new(body.name.clone(), kind);
    if let Some(slack) = spec.inextensible() {
        if !(slack > 0.0 && slack < 1.0) {
            return Err(ctx.err(
                format!("{place}.inextensible"),
                format!("must be in (0, 1), got {}; it is the slack s: every edge keeps its length within (1 ± s) of its initial length", Compact(slack)),
            ));
        }
        if slack < MIN_INEXTENSIBLE_SLACK {
            return Err(ctx.err(
                format!("{place}.inextensible"),
                format!(
                    "must be at least {MIN_INEXTENSIBLE_SLACK:e}, got {}; it is the slack s: every edge keeps its \
                     length within (1 ± s) of its initial length, and f64 resolves a length only to about 2.2e-16 of \
                     it, so a smaller s rounds (1 ± s)·ℓ to ℓ and the edge starts outside its own layers",
                    Compact(slack)
                ),
            ));
        }
        new_body.inextensibility = Some(slack);
    }
    let body_id = model.add_body(new_body, &positions, &velocities, &masses);
    let n = positions.len();
    let first = model.bodies[body_id].vertices.start;
    if is_obstacle {
        for k in 0..n as u32 {
            model.vertices.fix(VertexId(first + k));
        }
    }
    let held = Held { n, first, is_obstacle, inextensible: spec.inextensible().is_some() };
    hold_and_script(ctx, place, &motion, &held, model)?;
    if is_obstacle {
        return Ok((body_id, integration));
    }
    let free: Vec<VertexId> =
        (0..n as u32).map(|k| VertexId(first + k)).filter(|&v| model.vertices.effective_mass(v).is_finite()).collect();
    if gravity != Vec3::zeros() && !free.is_empty() {
        let m = free.iter().map(|&v| model.vertices.mass(v)).collect();
        let period = common_period.map_or(PeriodChoice::Stable, PeriodChoice::Fixed);
        forces.push(ForceSpec::new(Box::new(Gravity::new(free.iter().copied(), m, gravity)), period));
    }
    let placed = Placed { kind: &model.bodies[body_id].kind, positions: &positions, first, common_period };
    let own = forces.len();
    spec.potentials(ctx, place, &placed, forces)?;
    for force in &mut forces[own..] {
        force.body = Some(body_id);
    }
    Ok((body_id, integration))
}

/// Refuses initial velocities so large that the body's kinetic energy, momentum or angular
/// momentum overflows f64: the first frame could not be measured (the run would stop at t = 0 as
/// diverged, exit 1, instead of naming the key).
fn refuse_overflowing_motion(
    ctx: &Ctx,
    place: &str,
    positions: &[Vec3],
    masses: &[Real],
    velocities: &[Vec3],
) -> Result<(), SceneError> {
    let (mut kinetic, mut momentum, mut angular) = (0.0, Vec3::zeros(), Vec3::zeros());
    for ((x, m), v) in positions.iter().zip(masses).zip(velocities).filter(|((_, m), _)| m.is_finite()) {
        kinetic += 0.5 * m * v.norm_squared();
        momentum += v * *m;
        angular += x.cross(&(v * *m));
    }
    if kinetic.is_finite() && momentum.iter().chain(angular.iter()).all(|c| c.is_finite()) {
        return Ok(());
    }
    let fastest = velocities.iter().map(|v| v.amax()).fold(0.0, Real::max);
    Err(ctx.err(
        format!("{place}.velocity"),
        format!(
            "the initial motion (velocity, angular_velocity and velocities together; largest velocity component {} m/s) gives \
             the body a kinetic energy or momentum beyond f64; give physical speeds in m/s",
            Compact::rounded(fastest, 4)
        ),
    ))
}

/// Initial velocities: translation plus rigid spin about the centre of mass (of the vertices
/// with finite mass), plus the per-vertex list.
fn add_initial_velocities(
    ctx: &Ctx,
    place: &str,
    (positions, masses): (&[Vec3], &[Real]),
    velocity: Vec3,
    spin: Vec3,
    list: Option<&[[f64; 3]]>,
    velocities: &mut [Vec3],
) -> Result<(), SceneError> {
    let total_mass: Real = masses.iter().filter(|m| m.is_finite()).sum();
    if spin != Vec3::zeros() && total_mass > 0.0 {
        let com: Vec3 =
            positions.iter().zip(masses).filter(|(_, m)| m.is_finite()).map(|(x, m)| x * *m).sum::<Vec3>() / total_mass;
        for (v, x) in velocities.iter_mut().zip(positions) {
            *v += spin.cross(&(x - com));
        }
    }
    for v in velocities.iter_mut() {
        *v += velocity;
    }
    if let Some(list) = list {
        if list.len() != velocities.len() {
            return Err(ctx.err(
                format!("{place}.velocities"),
                format!(
                    "has {} entries but the body has {} vertices; give one [vx, vy, vz] per vertex",
                    list.len(),
                    velocities.len()
                ),
            ));
        }
        for (k, (v, extra)) in velocities.iter_mut().zip(list).enumerate() {
            *v += ctx.finite_vec(place, &format!("velocities[{k}]"), *extra)?;
        }
    }
    Ok(())
}

/// What `fixed` and `scripted` need to know of the body.
struct Held {
    /// Vertices.
    n: usize,
    /// The model's index of vertex 0.
    first: u32,
    /// Obstacles have no mass to move freely with before a script starts.
    is_obstacle: bool,
    /// Inextensible bodies cannot be free before a script starts yet.
    inextensible: bool,
}

/// Holds the `fixed` vertices and scripts the `scripted` ones; each vertex takes at most one
/// motion (a second would silently win).
fn hold_and_script(
    ctx: &Ctx,
    place: &str,
    motion: &Motion<'_>,
    body: &Held,
    model: &mut Model,
) -> Result<(), SceneError> {
    let global = |local: u32| VertexId(body.first + local);
    let mut claimed: BTreeMap<u32, String> = BTreeMap::new();
    let mut claim = |local: u32, where_: String| -> Result<(), SceneError> {
        match claimed.insert(local, where_.clone()) {
            Some(first) => Err(ctx.err(
                where_,
                format!("vertex {local} is already held or scripted by {first}; give each vertex one motion"),
            )),
            None => Ok(()),
        }
    };
    for (k, &i) in motion.fixed.iter().enumerate() {
        let local = index_in_range(ctx, &format!("{place}.fixed[{k}]"), i, body.n)?;
        claim(local, format!("{place}.fixed[{k}]"))?;
        model.vertices.fix(global(local));
    }
    for (s, script) in motion.scripted.iter().enumerate() {
        let sp = format!("{place}.scripted[{s}]");
        let v = ctx.finite_vec(&sp, "velocity", script.velocity)?;
        if !(script.start.is_finite() && script.start >= 0.0 && script.stop > script.start) {
            return Err(
                ctx.err(sp, format!("needs 0 ≤ start < stop, got start = {}, stop = {}", script.start, script.stop))
            );
        }
        let free_before_start = free_before_start(ctx, &sp, script, body)?;
        let locals: Vec<u32> = match &script.vertices {
            None => (0..body.n as u32).collect(),
            // an empty list scripts nothing: a script that moves no vertex is a mistake
            Some(list) if list.is_empty() => {
                return Err(ctx.err(
                    format!("{sp}.vertices"),
                    "is empty, so the script moves no vertex; list the vertices to move, or drop the key to move the whole body",
                ))
            }
            Some(list) => list
                .iter()
                .enumerate()
                .map(|(k, &i)| index_in_range(ctx, &format!("{sp}.vertices[{k}]"), i, body.n))
                .collect::<Result<_, _>>()?,
        };
        for local in locals {
            claim(local, sp.clone())?;
            let origin = model.vertices.position(global(local));
            let path = LinearPath { origin, velocity: v, start: script.start, stop: script.stop };
            if free_before_start {
                model.vertices.script_from_start(global(local), path);
            } else {
                model.vertices.script(global(local), path);
            }
        }
    }
    Ok(())
}

/// A script's `before_start`: `"held"` (the default) or `"free"`.
fn free_before_start(ctx: &Ctx, sp: &str, script: &ScriptSpec, body: &Held) -> Result<bool, SceneError> {
    match script.before_start.as_deref() {
        None | Some("held") => Ok(false),
        Some("free") if body.is_obstacle => Err(ctx.err(
            format!("{sp}.before_start"),
            "an obstacle has no mass to move freely with; use \"held\" or script a body with mass",
        )),
        Some("free") if script.start <= 0.0 => Err(ctx.err(
            format!("{sp}.before_start"),
            "\"free\" needs start > 0 (with start = 0 the vertices are scripted from the beginning; drop the key)",
        )),
        Some("free") if body.inextensible => Err(ctx.err(
            format!("{sp}.before_start"),
            "\"free\" is not supported on inextensible bodies yet (their length certificates assume velocities change only by kicks); use \"held\"",
        )),
        Some("free") => Ok(true),
        Some(other) => Err(ctx.err(
            format!("{sp}.before_start"),
            format!("unknown value \"{other}\"; use \"held\" (in place until start) or \"free\" (moving with the body until start)"),
        )),
    }
}

fn index_in_range(ctx: &Ctx, place: &str, i: i64, n: usize) -> Result<u32, SceneError> {
    if i >= 0 && (i as usize) < n {
        Ok(i as u32)
    } else {
        Err(ctx.err(
            place.to_string(),
            format!("vertex index {i} is out of range: the body has {n} vertices (0..={})", n - 1),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(bodies: &str) -> Result<crate::scene::Scene, SceneError> {
        let text = format!("[simulation]\ngravity = [0.0, 0.0, 0.0]\n{bodies}");
        crate::scene::parse(&text, "t.toml", Path::new("."), "t".into())
    }

    const SHEET: &str = "[[body]]\nname = \"s\"\nkind = \"shell\"\n\
                         mesh = { generator = \"grid\", size = [1.0, 1.0], resolution = [3, 3] }\n\
                         density = 0.5\nstretching = 10.0\n";
    const FLOOR: &str = "[[body]]\nname = \"o\"\nkind = \"obstacle\"\n\
                         mesh = { generator = \"plane\", size = [1.0, 1.0] }\ntransform = { translate = [0.0, 0.0, -1.0] }\n";

    #[test]
    fn each_kind_offers_its_own_keys_in_the_order_of_the_scene_format() {
        let offered = |name: &str| KINDS.iter().find(|k| k.name == name).expect("a kind").offered_keys().join(", ");
        let motion = "velocity, angular_velocity, velocities, fixed, scripted";
        assert_eq!(
            offered("shell"),
            format!(
                "mesh, density, stretching, poisson_ratio, bending, stretch_damping, bend_damping, bending_yield, \
                 inextensible, stretch_period, bend_period, damping_period, integration, {motion}"
            )
        );
        assert_eq!(
            offered("chain"),
            format!(
                "mesh, mass, inextensible, spring_stiffness, spring_quartic, spring_damping, material, axial_stiffness, \
                 stretch_period, damping_period, integration, {motion}"
            )
        );
        assert_eq!(offered("particles"), format!("radius, mass, positions, {motion}"));
        assert_eq!(offered("obstacle"), "mesh, scripted");
        assert_eq!(
            offered("solid"),
            format!("mesh, density, material, youngs_modulus, poisson_ratio, stretch_period, integration, {motion}")
        );
        for kind in &KINDS {
            assert_eq!((kind.keys)().first(), Some(&"transform"), "{}: every kind is placed", kind.name);
        }
    }

    #[test]
    fn a_key_of_another_kind_is_named_with_the_body_and_a_key_of_no_kind_with_its_line() {
        let e = scene(&format!("{SHEET}spring_stiffness = [1.0]\n")).unwrap_err();
        assert_eq!(e.place.as_deref(), Some("body[0] \"s\".spring_stiffness"), "{e}");
        assert!(e
            .message
            .starts_with("does not apply to a body of kind \"shell\"; remove it (keys for this kind: mesh,"));
        let e = scene(&format!("{SHEET}densty = 1.0\n")).unwrap_err();
        assert_eq!(e.place.as_deref(), Some("line 9, column 1 (`densty = 1.0`)"), "{e}");
        assert!(e
            .message
            .starts_with("unknown field `densty` in body[0] \"s\"; a body of kind \"shell\" takes `name`"));
        assert!(e.message.contains("`density`"), "{e}");
        // a wrong type is the parser's, located at the value
        let e = scene(&SHEET.replace("density = 0.5", "density = \"heavy\"")).unwrap_err();
        assert_eq!(e.place.as_deref(), Some("line 7, column 11 (`density = \"heavy\"`)"), "{e}");
        let e = scene(&SHEET.replace("kind = \"shell\"", "kind = \"cloth\"")).unwrap_err();
        assert_eq!(e.place.as_deref(), Some("body[0] \"s\".kind"), "{e}");
        assert!(e.message.contains("use \"shell\", \"solid\", \"particles\", \"chain\" or \"obstacle\""), "{e}");
        let e = scene(&SHEET.replace("name = \"s\"\n", "")).unwrap_err();
        assert_eq!(e.message, "missing field `name`");
    }

    #[test]
    fn an_obstacle_takes_motion_keys_only_where_they_say_nothing() {
        let quiet = "velocity = [0, 0, 0]\nangular_velocity = [0.0, 0.0, 0.0]\nfixed = []\n";
        assert!(scene(&format!("{SHEET}{FLOOR}{quiet}")).is_ok());
        for (key, value) in [("velocity", "[0.0, 1.0, 0.0]"), ("angular_velocity", "[1.0, 0.0, 0.0]"), ("fixed", "[0]")]
        {
            let e = scene(&format!("{SHEET}{FLOOR}{key} = {value}\n")).unwrap_err();
            assert_eq!(e.place, Some(format!("body[1] \"o\".{key}")), "{e}");
            assert_eq!(
                e.message,
                "does not apply to a body of kind \"obstacle\"; remove it (keys for this kind: mesh, scripted)"
            );
        }
    }
}
