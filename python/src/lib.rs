//! `avicontact._avicontact`: the Python binding of the library (PyO3, abi3). The package
//! `avicontact` (python/avicontact/) re-exports it; `avicontact.pyi` there documents the types.
//!
//! Everything goes through the library's facade: [`avicontact::scene`] loads scenes,
//! [`avicontact::Simulation`] runs them, [`avicontact::run`] writes a run's files as
//! `avicontact run` does. Numbers cross as they are: an energy read here is the number a frame of
//! `stats.csv` prints ([`Simulation::measure`](avicontact::Simulation::measure)).
//!
//! Errors: a scene that cannot be used raises `SceneError` (a `ValueError`) with the command
//! line's message; a run that fails raises `SimulationError` (a `RuntimeError`); Ctrl-C during a
//! run stops it after its current event and raises `KeyboardInterrupt`, the simulation left
//! consistent (call `advance_to` again to go on).

use avicontact::error::SimulationError as EngineError;
use avicontact::interrupt::Interrupt;
use avicontact::math::{Compact, Vec3};
use avicontact::run::RunRequest;
use avicontact::scene::{self, RunChoice, Scene};
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyTypeError, PyUserWarning, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyTuple};
use std::ffi::CString;
use std::path::{Path, PathBuf};

pyo3::create_exception!(
    avicontact,
    SceneError,
    PyValueError,
    "A scene that cannot be used: the message names the file, the key and the fix, as the command line's does."
);
pyo3::create_exception!(
    avicontact,
    SimulationError,
    PyRuntimeError,
    "A run that failed: a solve that did not converge, a contact the engine cannot resolve, a frame that could not be written."
);

/// A scene on a backend, advanced by `advance_to` or `step_event`.
#[pyclass(module = "avicontact")]
struct Simulation {
    inner: avicontact::Simulation,
    name: String,
}

/// The scene's warnings as Python `UserWarning`s.
fn warn_all(py: Python<'_>, scene: &Scene) -> PyResult<()> {
    for w in &scene.warnings {
        let message = CString::new(w.replace('\0', " ")).expect("no NUL left");
        PyErr::warn(py, &py.get_type::<PyUserWarning>(), &message, 1)?;
    }
    Ok(())
}

/// A loaded scene on `backend` (`None`: the scene's own), refused as `avicontact run` refuses it.
fn start(py: Python<'_>, scene: Scene, backend: Option<&str>) -> PyResult<Simulation> {
    warn_all(py, &scene)?;
    let choice = match backend {
        None => RunChoice::from_backend(scene.backend),
        Some(spec) => match avicontact::backend::BackendKind::from_name(spec) {
            Some(kind) => RunChoice::from_backend(kind),
            None => RunChoice::parse(spec, &scene).map_err(|e| SceneError::new_err(format!("backend: {e}")))?,
        },
    };
    let name = scene.name.clone();
    let inner = choice.start(scene).map_err(SceneError::new_err)?;
    Ok(Simulation { inner, name })
}

/// Loads a scene file or a built-in scene by name (`avicontact scenes` lists them) on its own
/// backend, or on `backend`: "avi", "sync" or "sync:<integrator>".
#[pyfunction]
#[pyo3(signature = (scene, backend = None))]
fn load(py: Python<'_>, scene: &Bound<'_, PyAny>, backend: Option<&Bound<'_, PyAny>>) -> PyResult<Simulation> {
    let scene = path(scene, "scene")?;
    let backend = backend.map(|b| text(b, "backend")).transpose()?;
    let loaded = py.detach(|| scene::load(&scene)).map_err(|e| SceneError::new_err(e.to_string()))?;
    start(py, loaded, backend.as_deref())
}

/// Loads a scene from TOML text; mesh paths in it are relative to `base_dir`.
#[pyfunction]
#[pyo3(signature = (toml_text, base_dir = None, backend = None))]
fn loads(
    py: Python<'_>,
    toml_text: &Bound<'_, PyAny>,
    base_dir: Option<&Bound<'_, PyAny>>,
    backend: Option<&Bound<'_, PyAny>>,
) -> PyResult<Simulation> {
    let toml_text = text(toml_text, "toml_text")?;
    let base_dir = base_dir.map(|b| path(b, "base_dir")).transpose()?.unwrap_or_else(|| PathBuf::from("."));
    let backend = backend.map(|b| text(b, "backend")).transpose()?;
    let loaded = py
        .detach(|| scene::parse(&toml_text, "<scene text>", &base_dir, "scene".to_string()))
        .map_err(|e| SceneError::new_err(e.to_string()))?;
    start(py, loaded, backend.as_deref())
}

/// Argument `name` as a number of seconds: a TypeError naming the argument when it is not a
/// number, a ValueError when it is not finite or below zero.
fn seconds(value: &Bound<'_, PyAny>, name: &str) -> PyResult<f64> {
    let t: f64 = value.extract().map_err(|_| wrong_type(value, name, "a number of seconds"))?;
    if t.is_finite() && t >= 0.0 {
        Ok(t)
    } else {
        Err(PyValueError::new_err(format!("{name}: must be a finite number of seconds >= 0, got {}", Compact(t))))
    }
}

/// Argument `name` as a path (a str or an os.PathLike).
fn path(value: &Bound<'_, PyAny>, name: &str) -> PyResult<PathBuf> {
    value.extract().map_err(|_| wrong_type(value, name, "a str or os.PathLike path"))
}

/// Argument `name` as text.
fn text(value: &Bound<'_, PyAny>, name: &str) -> PyResult<String> {
    value.extract().map_err(|_| wrong_type(value, name, "a str"))
}

/// The TypeError for argument `name`, which is not `expected`.
fn wrong_type(value: &Bound<'_, PyAny>, name: &str, expected: &str) -> PyErr {
    let got = value.get_type().name().map_or_else(|_| "?".to_string(), |n| n.to_string());
    PyTypeError::new_err(format!("{name}: expected {expected}, got {got}"))
}

/// Runs `work` without the interpreter's lock, with Ctrl-C (SIGINT) raising `interrupt` so the run
/// stops after its current event. The signal is also handed on to Python's own handler, so the
/// caller's `check_signals` sees it and raises `KeyboardInterrupt`.
fn interruptible<T: Send>(py: Python<'_>, interrupt: &Interrupt, work: impl FnOnce() -> T + Send) -> T {
    use signal_hook::consts::SIGINT;
    interrupt.clear();
    let registered = signal_hook::flag::register_usize(SIGINT, interrupt.flag(), SIGINT as usize).ok();
    let result = py.detach(work);
    if let Some(id) = registered {
        signal_hook::low_level::unregister(id);
    }
    result
}

/// A run that failed at `time` (s), as the command line words it.
fn stopped(time: f64, error: &EngineError) -> PyErr {
    SimulationError::new_err(format!("the run stopped at t = {} s: {error}", Compact(time)))
}

/// An interrupted run as Python sees it: Python's own pending `KeyboardInterrupt` (or whatever
/// its SIGINT handler raises), or one of ours when its handler let the signal pass.
fn interrupted(py: Python<'_>, time: f64) -> PyErr {
    match py.check_signals() {
        Err(e) => e,
        Ok(()) => PyKeyboardInterrupt::new_err(format!("interrupted at t = {} s", Compact(time))),
    }
}

/// `values` as a new, writable numpy float64 array of `shape`: the bytes handed to
/// `numpy.frombuffer` and copied once into memory numpy owns.
fn float64_array<'py>(
    py: Python<'py>,
    values: impl Iterator<Item = f64>,
    shape: &[usize],
) -> PyResult<Bound<'py, PyAny>> {
    let bytes: Vec<u8> = values.flat_map(f64::to_ne_bytes).collect();
    let numpy = py.import("numpy")?;
    let array = numpy.call_method1("frombuffer", (PyBytes::new(py, &bytes), "float64"))?;
    array.call_method1("reshape", (PyTuple::new(py, shape)?,))?.call_method0("copy")
}

/// Rows of 3 as an (n, 3) array.
fn vec3_array<'py>(py: Python<'py>, rows: impl ExactSizeIterator<Item = Vec3>) -> PyResult<Bound<'py, PyAny>> {
    let n = rows.len();
    float64_array(py, rows.flat_map(|v| [v.x, v.y, v.z]), &[n, 3])
}

/// A length-3 array.
fn vec3<'py>(py: Python<'py>, v: Vec3) -> PyResult<Bound<'py, PyAny>> {
    float64_array(py, [v.x, v.y, v.z].into_iter(), &[3])
}

#[pymethods]
impl Simulation {
    /// Simulated time of the last processed event, s.
    #[getter]
    fn time(&self) -> f64 {
        self.inner.now().seconds()
    }

    /// The scene's name (a built-in name or the file's stem).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The backend: "avi" or "sync".
    #[getter]
    fn backend(&self) -> &'static str {
        self.inner.backend_name()
    }

    /// The scene's duration, s (what `run` runs to).
    #[getter]
    fn duration(&self) -> f64 {
        self.inner.parameters().duration
    }

    /// The scene's frames per simulated second.
    #[getter]
    fn frame_rate(&self) -> f64 {
        self.inner.parameters().frame_rate
    }

    /// Processes every event at or before `t` (s). Releases the interpreter's lock while it runs;
    /// Ctrl-C stops it after the event in progress and raises KeyboardInterrupt (call again to go on).
    fn advance_to(&mut self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<()> {
        let t = seconds(t, "t")?;
        let sim = &mut self.inner;
        let interrupt = sim.interrupt().clone();
        match interruptible(py, &interrupt, || sim.advance_to(t, &mut ())) {
            Ok(()) => Ok(()),
            Err(EngineError::Interrupted { time, .. }) => Err(interrupted(py, time)),
            Err(e) => Err(stopped(self.time(), &e)),
        }
    }

    /// Processes exactly one event; returns what it was (a dict with "time", "kind", "label",
    /// "tick" and "period"), or None when no event is left.
    fn step_event<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let record = self.inner.step_event(&mut ()).map_err(|e| stopped(self.inner.now().seconds(), &e))?;
        let Some(record) = record else { return Ok(None) };
        let event = PyDict::new(py);
        event.set_item("time", record.time.seconds())?;
        event.set_item("kind", record.kind.name())?;
        event.set_item("label", record.label)?;
        event.set_item("tick", record.tick)?;
        event.set_item("period", record.period)?;
        Ok(Some(event))
    }

    /// Every vertex's position at `time`, an (n, 3) float64 array, m.
    fn positions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        vec3_array(py, self.inner.positions().into_iter())
    }

    /// Every vertex's velocity (the AVI's: as it stands after its last kick), an (n, 3) float64
    /// array, m/s.
    fn velocities<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        vec3_array(py, self.inner.model().vertices.velocities().iter().copied())
    }

    /// Every vertex's lumped mass, an (n,) float64 array, kg.
    fn masses<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let v = &self.inner.model().vertices;
        float64_array(py, (0..v.len()).map(|i| v.mass(avicontact::ids::VertexId(i as u32))), &[v.len()])
    }

    /// Energy at `time`, J, as `stats.csv` has it: "kinetic", "potential" (contact included),
    /// "total", "dissipated" (by damping, friction and restitution so far) and "external_work"
    /// (done by scripted vertices so far).
    fn energy<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let stats = self.inner.measure();
        let energy = PyDict::new(py);
        energy.set_item("kinetic", stats.kinetic)?;
        energy.set_item("potential", stats.potential)?;
        energy.set_item("total", stats.total())?;
        energy.set_item("dissipated", stats.dissipated)?;
        energy.set_item("external_work", stats.external_work)?;
        Ok(energy)
    }

    /// Linear momentum of the free vertices at `time`, a length-3 array, kg·m/s.
    fn momentum<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        vec3(py, self.inner.measure().momentum)
    }

    /// Angular momentum of the free vertices about the origin at `time`, a length-3 array, kg·m²/s.
    fn angular_momentum<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        vec3(py, self.inner.measure().angular_momentum)
    }

    /// Events processed so far, by kind ("membrane", "hinge", "frame", "layer", …), as
    /// summary.json's "events_by_kind".
    fn events_by_kind<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let counts = PyDict::new(py);
        for (kind, n) in self.inner.counters().events_by_kind() {
            counts.set_item(kind, n)?;
        }
        Ok(counts)
    }

    /// Each body's vertices as rows of positions()[start:stop]: a dict body name → (start, stop).
    fn vertex_ranges<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let ranges = PyDict::new(py);
        for body in self.inner.model().bodies.values() {
            ranges.set_item(&body.name, (body.vertices.start as usize, body.vertices.end as usize))?;
        }
        Ok(ranges)
    }

    fn __repr__(&self) -> String {
        format!(
            "<avicontact.Simulation {:?} on {} at t = {} s, {} vertices>",
            self.name,
            self.inner.backend_name(),
            Compact(self.inner.now().seconds()),
            self.inner.model().vertices.len()
        )
    }
}

/// Runs a scene into `out` as `avicontact run SCENE --out OUT` does (frames, stats.csv,
/// summary.json) and returns summary.json as a dict. With `checkpoint_every`, as
/// `--checkpoint-every`: `out/checkpoint.bin` at every multiple of it and on Ctrl-C, for
/// [`resume`].
#[pyfunction]
#[pyo3(signature = (scene, out, duration = None, backend = None, insist = None, checkpoint_every = None))]
fn run<'py>(
    py: Python<'py>,
    scene: &Bound<'py, PyAny>,
    out: &Bound<'py, PyAny>,
    duration: Option<&Bound<'py, PyAny>>,
    backend: Option<&Bound<'py, PyAny>>,
    insist: Option<&Bound<'py, PyAny>>,
    checkpoint_every: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let scene = path(scene, "scene")?.to_string_lossy().into_owned();
    let out = path(out, "out")?;
    let duration = duration.map(|d| seconds(d, "duration")).transpose()?;
    let checkpoint_every = checkpoint_every.map(|d| seconds(d, "checkpoint_every")).transpose()?;
    let backend = backend.map(|b| text(b, "backend")).transpose()?;
    let insist = match insist {
        None => false,
        Some(flag) => flag.extract::<bool>().map_err(|_| wrong_type(flag, "insist", "True or False"))?,
    };
    let mut request = RunRequest::new(&scene, Path::new(&out));
    request.duration = duration;
    request.backend = backend.as_deref();
    request.insist = insist;
    request.checkpoint_every = checkpoint_every;
    let loaded = py.detach(|| request.load()).map_err(SceneError::new_err)?;
    warn_all(py, &loaded.scene)?;
    let ready = py.detach(|| loaded.build()).map_err(SceneError::new_err)?;
    carry_out(py, ready)
}

/// Continues the run in `out` from its checkpoint, as `avicontact resume OUT [--duration S]` does
/// (on to `duration` s when given, also past a completed run's end), and returns summary.json as
/// a dict.
#[pyfunction]
#[pyo3(signature = (out, duration = None))]
fn resume<'py>(py: Python<'py>, out: &Bound<'py, PyAny>, duration: Option<f64>) -> PyResult<Bound<'py, PyAny>> {
    let out = path(out, "out")?;
    let ready = py.detach(|| avicontact::run::resume_to(Path::new(&out), duration)).map_err(SceneError::new_err)?;
    carry_out(py, ready)
}

/// Runs `ready` to its end with Ctrl-C heard, and returns summary.json as a dict or the error.
fn carry_out<'py>(py: Python<'py>, ready: avicontact::run::ReadyRun) -> PyResult<Bound<'py, PyAny>> {
    let interrupt = ready.simulation.interrupt().clone();
    let finished = interruptible(py, &interrupt, || ready.execute(&mut ()));
    let summary = serde_json::to_string(&finished.summary).expect("the summary serialises");
    match (finished.result, finished.summary_written) {
        (Ok(()), Ok(())) => py.import("json")?.call_method1("loads", (summary,)),
        (Err(EngineError::Interrupted { time, .. }), _) => Err(interrupted(py, time)),
        (Err(e), _) => Err(stopped(finished.summary.simulated_time, &e)),
        (Ok(()), Err(e)) => Err(SimulationError::new_err(e.to_string())),
    }
}

/// The names of the built-in scenes.
#[pyfunction]
fn scenes() -> Vec<&'static str> {
    scene::builtin_names()
}

#[pymodule]
fn _avicontact(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Simulation>()?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(loads, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    m.add_function(wrap_pyfunction!(resume, m)?)?;
    m.add_function(wrap_pyfunction!(scenes, m)?)?;
    m.add("SceneError", m.py().get_type::<SceneError>())?;
    m.add("SimulationError", m.py().get_type::<SimulationError>())?;
    Ok(())
}
