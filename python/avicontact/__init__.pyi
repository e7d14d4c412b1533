"""Type stubs of avicontact (the compiled module avicontact._avicontact, re-exported)."""

import os
from typing import Any, Dict, Optional, Tuple, TypedDict, Union

import numpy as np
import numpy.typing as npt

_Path = Union[str, "os.PathLike[str]"]

class SceneError(ValueError):
    """A scene that cannot be used: the message names the file, the key and the fix."""

class SimulationError(RuntimeError):
    """A run that failed (a solve that did not converge, an unresolvable contact, a frame not written)."""

class Energy(TypedDict):
    kinetic: float
    potential: float
    total: float
    dissipated: float
    external_work: float

class Event(TypedDict):
    time: float
    kind: str
    label: str
    tick: int
    period: float

class Simulation:
    """A scene on a backend, advanced by ``advance_to`` or ``step_event``."""

    @property
    def time(self) -> float:
        """Simulated time of the last processed event, s."""
    @property
    def name(self) -> str:
        """The scene's name (a built-in name or the file's stem)."""
    @property
    def backend(self) -> str:
        """The backend: "avi" or "sync"."""
    @property
    def duration(self) -> float:
        """The scene's duration, s."""
    @property
    def frame_rate(self) -> float:
        """The scene's frames per simulated second."""
    def advance_to(self, t: float) -> None:
        """Processes every event at or before ``t`` (s >= 0). Releases the GIL while it runs; Ctrl-C stops it
        after the event in progress and raises KeyboardInterrupt (call again to go on)."""
    def step_event(self) -> Optional[Event]:
        """Processes exactly one event and returns it; None when no event is left."""
    def positions(self) -> npt.NDArray[np.float64]:
        """Every vertex's position at ``time``, shape (n, 3), m."""
    def velocities(self) -> npt.NDArray[np.float64]:
        """Every vertex's velocity (the AVI's, as after its last kick), shape (n, 3), m/s."""
    def masses(self) -> npt.NDArray[np.float64]:
        """Every vertex's lumped mass, shape (n,), kg."""
    def energy(self) -> Energy:
        """Energy at ``time``, J, as stats.csv has it (contact energy in ``potential``)."""
    def momentum(self) -> npt.NDArray[np.float64]:
        """Linear momentum of the free vertices, shape (3,), kg m/s."""
    def angular_momentum(self) -> npt.NDArray[np.float64]:
        """Angular momentum of the free vertices about the origin, shape (3,), kg m^2/s."""
    def events_by_kind(self) -> Dict[str, int]:
        """Events processed so far, by kind, as summary.json's events_by_kind."""
    def vertex_ranges(self) -> Dict[str, Tuple[int, int]]:
        """Each body's rows of positions(): body name -> (start, stop)."""

def load(scene: _Path, backend: Optional[str] = None) -> Simulation:
    """Loads a scene file, or a built-in scene by name, on its own backend or on ``backend``
    ("avi", "sync" or "sync:<integrator>"). Raises SceneError with the command line's message."""

def loads(toml_text: str, base_dir: _Path = ".", backend: Optional[str] = None) -> Simulation:
    """Loads a scene from TOML text; mesh paths in it are relative to ``base_dir``."""

def run(
    scene: _Path,
    out: _Path,
    duration: Optional[float] = None,
    backend: Optional[str] = None,
    insist: bool = False,
    checkpoint_every: Optional[float] = None,
) -> Dict[str, Any]:
    """Runs a scene into ``out`` as ``avicontact run SCENE --out OUT`` does and returns summary.json as a dict.
    Raises SceneError on bad input (nothing written), SimulationError when the run fails (what was written
    stays, summary.json says "failed"), KeyboardInterrupt on Ctrl-C (summary.json says "interrupted").
    With ``checkpoint_every`` (simulated seconds), as ``--checkpoint-every``: ``out/checkpoint.bin`` holds the
    run's state at every multiple of it and at Ctrl-C, for ``resume(out)``."""

def resume(out: _Path, duration: Optional[float] = None) -> Dict[str, Any]:
    """Continues the run in ``out`` from ``out/checkpoint.bin`` as ``avicontact resume OUT`` does, to the files a
    run never stopped writes, byte for byte, and returns summary.json as a dict. With ``duration`` (simulated
    seconds, past the checkpoint), as ``--duration``: on to it instead of the run's own end, also past the end of
    a completed run (which keeps its last checkpoint), to the files of a run started with that duration. Raises
    SceneError when there is no usable checkpoint (damaged, of another build or of a changed scene; a completed
    run without ``duration``; nothing changed), and as ``run`` otherwise. A checkpoint resumes in the build that
    wrote it: the command line's or this package's."""

def scenes() -> list[str]:
    """The names of the built-in scenes."""
