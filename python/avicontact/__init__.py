"""avicontact: deformable bodies in tight contact, integrated asynchronously.

Every force has its own clock (an asynchronous variational integrator, ACM §3); contact is a stack of
penalty layers on kinetic data structures (ACM §4–5): no interpenetration, momentum conserved exactly,
no energy drift. This package drives the Rust library from Python:

>>> import avicontact
>>> sim = avicontact.load("hanging-cloth")       # a built-in scene, or a path to a scene file
>>> sim.advance_to(0.1)                          # releases the GIL; Ctrl-C stops it cleanly
>>> sim.positions().shape                        # (n, 3) float64, metres
>>> sim.energy()["total"]                        # the numbers stats.csv prints, bit for bit

``avicontact.run(scene, out)`` writes the files of ``avicontact run SCENE --out OUT``;
``avicontact.resume(out)`` continues one started with ``checkpoint_every`` from its checkpoint
(``duration=`` takes it further, also past its end).
The scene format is docs/scene-format.md of the repository.
"""

from ._avicontact import (
    SceneError,
    Simulation,
    SimulationError,
    load,
    loads,
    resume,
    run,
    scenes,
)

__all__ = ["SceneError", "Simulation", "SimulationError", "load", "loads", "resume", "run", "scenes"]
