# %% [markdown]
# # Energy of a run, and two backends side by side
#
# A notebook-style script (cells marked `# %%`, runnable as a script or cell by cell in Jupyter/VS Code):
# it runs a built-in scene with the Python package, plots its energy ledger with matplotlib, then runs
# one scene on the asynchronous integrator (AVI) and on a synchronous one and compares their energy.
#
#     pip install ./python matplotlib
#     python examples/python/energy_and_backends.py [--out DIR] [--quick]
#
# It writes DIR/energy.png and DIR/backends.png (DIR defaults to examples/python/out/).

# %%
import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")  # files only: runs headless
import matplotlib.pyplot as plt
import numpy as np

import avicontact

parser = argparse.ArgumentParser(description=__doc__)
parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path(__file__).parent / "out")
parser.add_argument("--quick", action="store_true", help="short runs (for the tests)")
args = parser.parse_args()
args.out.mkdir(parents=True, exist_ok=True)

# %% [markdown]
# ## 1. A damped cloth: where the energy goes
# `energy()` returns the numbers `stats.csv` prints. The ledger closes: kinetic + potential + dissipated
# stays at its starting value (minus the work of scripted vertices, none here).


# %%
def history(sim, duration, samples):
    """Energy and momentum of `sim` at `samples` evenly spaced times up to `duration`."""
    rows = []
    for t in np.linspace(0.0, duration, samples):
        sim.advance_to(t)
        rows.append({"time": sim.time, **sim.energy(), "momentum": np.linalg.norm(sim.momentum())})
    return rows


duration = 0.2 if args.quick else 2.0
cloth = history(avicontact.load("hanging-cloth"), duration, 41)
t = [r["time"] for r in cloth]
fig, ax = plt.subplots(figsize=(9, 4))
ax.plot(t, [r["kinetic"] for r in cloth], label="kinetic")
ax.plot(t, [r["potential"] for r in cloth], label="potential (gravity + elastic)")
ax.plot(t, [r["dissipated"] for r in cloth], label="dissipated by damping")
ax.plot(t, [r["total"] + r["dissipated"] for r in cloth], "k--", label="total + dissipated")
ax.set(xlabel="time (s)", ylabel="energy (J)", title="hanging-cloth on the AVI: the energy ledger")
ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
fig.tight_layout()
fig.savefig(args.out / "energy.png", dpi=120)
balance = [r["total"] + r["dissipated"] for r in cloth]
print(f"hanging-cloth: ledger balance moves by {max(balance) - min(balance):.3e} J "
      f"of {max(abs(b) for b in balance):.3e} J")

# %% [markdown]
# ## 2. The same scene on two backends
# `bar-collision` (a neo-Hookean bar hitting a wall, the A-search paper's test) on the AVI, on A-search
# (the scene's own synchronous integrator, which tracks the energy) and on BDF2, which damps it. The
# synchronous step is the scene's 1/30 s.

# %%
duration = 0.5 if args.quick else 4.0
runs = {
    "avi": avicontact.load("bar-collision", backend="avi"),
    "sync:a-search": avicontact.load("bar-collision", backend="sync:a-search"),
    "sync:bdf2": avicontact.load("bar-collision", backend="sync:bdf2"),
}
fig, ax = plt.subplots(figsize=(7, 4))
for label, sim in runs.items():
    rows = history(sim, duration, 61)
    ax.plot([r["time"] for r in rows], [r["total"] for r in rows], label=f"{label}: total energy")
    drift = rows[-1]["total"] - rows[0]["total"]
    print(f"bar-collision on {label}: {sum(sim.events_by_kind().values())} events, energy change {drift:+.3e} J")
ax.set(xlabel="time (s)", ylabel="energy (J)", title="bar-collision: AVI against two synchronous integrators")
ax.legend()
fig.tight_layout()
fig.savefig(args.out / "backends.png", dpi=120)
print(f"wrote {args.out / 'energy.png'} and {args.out / 'backends.png'}")
