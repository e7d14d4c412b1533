//! A loaded scene on a backend: the simulation each backend builds from it, the start a backend
//! refuses, how `avicontact info` names the scene's backend, and the runs `avicontact compare`
//! takes (`avi`, `sync:<integrator>`). The one place that maps backend names to engines.

use super::{Scene, SceneError};
use crate::backend::BackendKind;
use crate::error::SimulationError;
use crate::math::Compact;
use crate::simulation::Simulation;
use crate::sync::{ContactModel, IntegratorKind, SolverKind};

impl Scene {
    /// The scene's model, potentials and parameters on `backend` (the scene asks for
    /// [`Scene::backend`]).
    pub fn into_simulation(self, backend: BackendKind) -> Result<Simulation, SimulationError> {
        match backend {
            BackendKind::Avi
                if self.sync.contact.is_some() && self.sync.contact_model == ContactModel::PredictorCorrector =>
            {
                Err(SimulationError::BadParameter {
                    name: "contact.model",
                    message: "\"predictor-corrector\" is the synchronous backend's contact (Higher-order §4); run \
                              this scene on the synchronous backend, or remove the key for the AVI's penalty layers"
                        .into(),
                })
            }
            BackendKind::Avi => Simulation::new(self.model, self.forces, self.parameters),
            BackendKind::Sync => Simulation::new_sync(self.model, self.forces, self.parameters, self.sync),
        }
    }

    /// Why `backend` refuses to start from this scene, if it does: the AVI refuses contact
    /// primitives that start closer than η(1) ([`Scene::contact_violation`]); the synchronous
    /// backend only needs an intersection-free start, which it checks itself.
    pub fn refused_start(&self, backend: BackendKind) -> Option<&SceneError> {
        match backend {
            BackendKind::Avi => self.contact_violation.as_ref(),
            BackendKind::Sync => None,
        }
    }

    /// The backend the scene asks for, as `avicontact info` names it: `avi`, or `sync (…)` with
    /// the integrator, the time step, Newton's tolerance and IPC's parameters.
    pub fn backend_description(&self) -> String {
        match self.backend {
            BackendKind::Avi => BackendKind::Avi.name().to_string(),
            BackendKind::Sync => format!(
                "{} ({:?}, h = {} s, Newton tolerance {} m/s{})",
                BackendKind::Sync.name(),
                self.sync.integrator,
                Compact(self.sync.timestep),
                Compact(self.sync.newton.tolerance),
                self.sync.contact.map_or(String::new(), |c| format!(
                    ", IPC d̂ = {} m, κ = {} N/m",
                    Compact(c.activation),
                    Compact(c.stiffness)
                ))
            ),
        }
    }
}

/// One run of `avicontact compare --runs`: a backend, with the synchronous backend's integrator
/// or the AVI's integration of elastic potentials.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunChoice {
    backend: BackendKind,
    integrator: Option<IntegratorKind>,
    /// `sync:<integrator>:<solver>`; `None`: the scene's solver where it applies to the
    /// integrator, else Newton.
    solver: Option<SolverKind>,
    /// `avi:phantom` (every body with elastic potentials on a phantom mesh) or `avi:explicit`
    /// (none); `None`: as the scene says.
    phantom: Option<bool>,
    /// `sync:<integrator>:ipc` or `sync:<integrator>:predictor-corrector`; `None`: the scene's
    /// `[contact] model`.
    contact_model: Option<ContactModel>,
}

impl RunChoice {
    /// Parses `spec`: a backend's name, `avi:phantom` or `avi:explicit` (every body with elastic
    /// potentials on a phantom mesh, Phantom §3.2, or none), or for the synchronous backend
    /// `sync:<integrator>` with a name of [`IntegratorKind::NAMES`], optionally followed by a
    /// solver, `:newton` or `:local-global` ([`SolverKind::NAMES`]), and a contact model, `:ipc`
    /// or `:predictor-corrector` ([`ContactModel::NAMES`]; for a scene with `[contact]`), in
    /// either order. `sync:a-search` keeps `scene`'s energy target and α range when its `[sync]`
    /// asks for A-search. The error says what is wrong and what to use.
    pub fn parse(spec: &str, scene: &Scene) -> Result<Self, String> {
        let unknown_run = || {
            let runs: Vec<String> = BackendKind::NAMES
                .iter()
                .flat_map(|&(name, kind)| match kind {
                    BackendKind::Sync => vec![format!("`{name}:<integrator>`")],
                    BackendKind::Avi => {
                        vec![format!("`{name}`"), format!("`{name}:phantom`"), format!("`{name}:explicit`")]
                    }
                })
                .collect();
            let (last, rest) = runs.split_last().expect("there are backends");
            format!("unknown run `{spec}`; use {} or {last}", rest.join(", "))
        };
        let (backend, integrator) = match spec.split_once(':') {
            None => (BackendKind::from_name(spec).ok_or_else(unknown_run)?, None),
            Some((backend, integrator)) => (BackendKind::from_name(backend).ok_or_else(unknown_run)?, Some(integrator)),
        };
        match (backend, integrator) {
            (BackendKind::Sync, Some(integrator)) => {
                let mut parts = integrator.split(':');
                let kind = Self::integrator(spec, parts.next().unwrap_or(""), scene)?;
                let (mut solver, mut contact_model) = (None, None);
                for option in parts {
                    if let Some(&(_, model)) = ContactModel::NAMES.iter().find(|(n, _)| *n == option) {
                        if scene.sync.contact.is_none() {
                            return Err(format!(
                                "`{spec}` asks for the contact model `{option}`, but the scene has no [contact]; \
                                 add a [contact] section or leave `:{option}` out"
                            ));
                        }
                        if contact_model.replace(model).is_some() {
                            return Err(format!("`{spec}` names two contact models; give one"));
                        }
                    } else if solver.replace(Self::solver(spec, option, scene)?).is_some() {
                        return Err(format!("`{spec}` names two solvers; give one"));
                    }
                }
                Ok(RunChoice { backend, integrator: Some(kind), solver, phantom: None, contact_model })
            }
            (BackendKind::Avi, Some(integration @ ("phantom" | "explicit"))) => {
                Ok(RunChoice { phantom: Some(integration == "phantom"), ..Self::from_backend(backend) })
            }
            (BackendKind::Sync, None) | (_, Some(_)) => Err(unknown_run()),
            (backend, None) => Ok(Self::from_backend(backend)),
        }
    }

    /// The synchronous integrator called `name` in `spec`.
    fn integrator(spec: &str, name: &str, scene: &Scene) -> Result<IntegratorKind, String> {
        match IntegratorKind::from_name(name) {
            // the scene's own energy target and α range when it asks for A-search
            Some(IntegratorKind::ASearch { .. }) => Ok(match scene.sync.integrator {
                k @ IntegratorKind::ASearch { .. } => k,
                _ => IntegratorKind::A_SEARCH,
            }),
            Some(kind) => Ok(kind),
            None => {
                let names: Vec<&str> = IntegratorKind::NAMES.iter().map(|(n, _)| *n).collect();
                let (last, rest) = names.split_last().expect("there are integrators");
                Err(format!("unknown integrator `{name}` in `{spec}`; use {} or {last}", rest.join(", ")))
            }
        }
    }

    /// The solver called `name` in `spec`: the scene's own local/global iterations when it asks
    /// for that solver.
    fn solver(spec: &str, name: &str, scene: &Scene) -> Result<SolverKind, String> {
        match SolverKind::NAMES.iter().find(|(n, _)| *n == name) {
            Some((_, SolverKind::LocalGlobal { .. }))
                if matches!(scene.sync.solver, SolverKind::LocalGlobal { .. }) =>
            {
                Ok(scene.sync.solver)
            }
            Some(&(_, kind)) => Ok(kind),
            None => {
                let names: Vec<&str> = SolverKind::NAMES.iter().map(|(n, _)| *n).collect();
                let models: Vec<&str> = ContactModel::NAMES.iter().map(|(n, _)| *n).collect();
                Err(format!(
                    "unknown solver or contact model `{name}` in `{spec}`; use a solver ({}) or a contact model ({})",
                    names.join(" or "),
                    models.join(" or ")
                ))
            }
        }
    }

    /// `backend` with the scene's own integrator.
    pub fn from_backend(backend: BackendKind) -> Self {
        RunChoice { backend, integrator: None, solver: None, phantom: None, contact_model: None }
    }

    /// The run's backend.
    pub fn backend(&self) -> BackendKind {
        self.backend
    }

    /// `scene` on this run's backend (and integrator).
    pub fn simulation(&self, mut scene: Scene) -> Result<Simulation, SimulationError> {
        if let Some(kind) = self.integrator {
            scene.sync.integrator = kind;
            scene.sync.solver = match self.solver {
                Some(solver) => solver,
                None if kind.takes_local_global() => scene.sync.solver,
                None => SolverKind::Newton,
            };
        }
        if let Some(model) = self.contact_model {
            scene.sync.contact_model = model;
        }
        match self.phantom {
            Some(true) => {
                let bodies = &mut scene.parameters.phantom.bodies;
                bodies.clear();
                for body in scene.forces.iter().filter_map(|f| f.body) {
                    if !bodies.contains(&body) {
                        bodies.push(body);
                    }
                }
            }
            Some(false) => scene.parameters.phantom.bodies.clear(),
            None => {}
        }
        scene.into_simulation(self.backend)
    }

    /// `scene` on this run's backend, refused as `avicontact run` refuses it: a start the backend
    /// refuses ([`Scene::refused_start`]) or a simulation that cannot be built. The error is the
    /// message for the user, naming the scene.
    pub fn start(&self, scene: Scene) -> Result<Simulation, String> {
        if let Some(refusal) = scene.refused_start(self.backend) {
            return Err(refusal.to_string());
        }
        let label = scene.label();
        self.simulation(scene).map_err(|e| format!("{label}: {e}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_are_a_backend_or_sync_with_an_integrator() {
        let scene = crate::scene::load("bar-collision").expect("built-in scene");
        assert_eq!(RunChoice::parse("avi", &scene).map(|c| c.backend()), Ok(BackendKind::Avi));
        let bdf2 = RunChoice::parse("sync:bdf2", &scene).expect("a run");
        assert_eq!((bdf2.backend(), bdf2.integrator), (BackendKind::Sync, Some(IntegratorKind::Bdf2)));
        for spec in ["sync", "avi:bdf2", "gpu", ""] {
            assert_eq!(
                RunChoice::parse(spec, &scene),
                Err(format!("unknown run `{spec}`; use `avi`, `avi:phantom`, `avi:explicit` or `sync:<integrator>`"))
            );
        }
        let phantom = RunChoice::parse("avi:phantom", &scene).expect("a run");
        assert_eq!((phantom.backend(), phantom.phantom), (BackendKind::Avi, Some(true)));
        assert_eq!(
            RunChoice::parse("sync:rk4", &scene),
            Err("unknown integrator `rk4` in `sync:rk4`; use implicit-euler, bdf2, implicit-midpoint, trapezoid, \
                 a1, a-search, blend, sdirk2, tr-bdf2 or ros3pl"
                .to_string())
        );
    }

    #[test]
    fn a_sync_run_may_name_its_solver_and_otherwise_takes_the_scenes_where_it_applies() {
        let mut scene = crate::scene::load("bar-collision").expect("built-in scene");
        let choice = RunChoice::parse("sync:blend:local-global", &scene).expect("a run");
        assert_eq!(choice.solver, Some(SolverKind::LocalGlobal { iterations: 10 }));
        assert_eq!(
            RunChoice::parse("sync:blend:pd", &scene),
            Err("unknown solver or contact model `pd` in `sync:blend:pd`; use a solver (newton or local-global) \
                 or a contact model (ipc or predictor-corrector)"
                .to_string())
        );
        scene.sync.solver = SolverKind::LocalGlobal { iterations: 4 };
        let choice = RunChoice::parse("sync:implicit-midpoint:local-global", &scene).expect("a run");
        assert_eq!(choice.solver, Some(scene.sync.solver), "the scene's own iterations");
        let cube = || {
            let text = include_str!("../../examples/spinning-cube.toml");
            crate::scene::parse(text, "cube", std::path::Path::new("examples"), "cube".into()).expect("the example")
        };
        let scene = cube();
        assert_eq!(scene.sync.solver, SolverKind::LocalGlobal { iterations: 10 });
        for (spec, solver) in [("sync:blend", scene.sync.solver), ("sync:bdf2", SolverKind::Newton)] {
            let choice = RunChoice::parse(spec, &scene).expect("a run");
            let sim = choice.simulation(cube()).expect("a simulation");
            assert_eq!(sim.sync().expect("sync").parameters().solver, solver, "{spec}");
        }
    }

    #[test]
    fn a_sync_run_may_name_its_contact_model_when_the_scene_has_contact() {
        let ball = || {
            let text = include_str!("../../examples/jumping-ball.toml");
            crate::scene::parse(text, "ball", std::path::Path::new("examples"), "ball".into()).expect("the example")
        };
        let scene = ball();
        assert_eq!(scene.sync.contact_model, ContactModel::PredictorCorrector);
        for (spec, model) in [
            ("sync:sdirk2", ContactModel::PredictorCorrector),
            ("sync:sdirk2:ipc", ContactModel::Ipc),
            ("sync:implicit-euler:newton:ipc", ContactModel::Ipc),
            ("sync:implicit-euler:predictor-corrector:newton", ContactModel::PredictorCorrector),
        ] {
            let choice = RunChoice::parse(spec, &scene).expect("a run");
            let sim = choice.simulation(ball()).expect("a simulation");
            assert_eq!(sim.sync().expect("sync").parameters().contact_model, model, "{spec}");
        }
        assert_eq!(
            RunChoice::parse("sync:sdirk2:ipc:predictor-corrector", &scene),
            Err("`sync:sdirk2:ipc:predictor-corrector` names two contact models; give one".to_string())
        );
        assert_eq!(
            RunChoice::parse("sync:sdirk2:newton:newton", &scene),
            Err("`sync:sdirk2:newton:newton` names two solvers; give one".to_string())
        );
        let cube = include_str!("../../examples/spinning-cube.toml");
        let cube = crate::scene::parse(cube, "cube", std::path::Path::new("examples"), "cube".into()).expect("cube");
        assert_eq!(
            RunChoice::parse("sync:blend:ipc", &cube),
            Err("`sync:blend:ipc` asks for the contact model `ipc`, but the scene has no [contact]; add a [contact] \
                 section or leave `:ipc` out"
                .to_string())
        );
    }

    #[test]
    fn a_search_keeps_the_scenes_energy_target() {
        let mut scene = crate::scene::load("bar-collision").expect("built-in scene");
        let decay = crate::sync::EnergyTarget::Decay { half_life: 1.0, start: 0.5, ground: 0.0 };
        scene.sync.integrator = IntegratorKind::ASearch { target: decay, alpha_range: (0.5, 1.5) };
        let choice = RunChoice::parse("sync:a-search", &scene).expect("a run");
        assert_eq!(choice.integrator, Some(scene.sync.integrator));
        scene.sync.integrator = IntegratorKind::Bdf2;
        let choice = RunChoice::parse("sync:a-search", &scene).expect("a run");
        assert_eq!(choice.integrator, Some(IntegratorKind::A_SEARCH));
    }
}
