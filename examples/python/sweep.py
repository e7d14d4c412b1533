"""A parameter sweep on Ray: stiffness x contact thickness for a sheet dropped on a sphere.

Each grid point is one Ray task that builds the scene from a template, runs it with the avicontact
Python package and returns what a study of such a grid reports (ACM report §9 does this for
stiffness x thickness): events per simulated second, wall time, the smallest gap, the energy
ledger's largest imbalance, the deepest penalty layer reached. The driver collects a table
(sweep.csv) and a plot (sweep.png).

Locally (every core of this machine):

    pip install ./python "ray>=2.9" matplotlib
    python examples/python/sweep.py --out sweep-out

On a cluster, start Ray there (`ray start --head` on one node, `ray start --address=HEAD:6379` on the
others; the avicontact wheel installed on every node, e.g. `pip install ./python` on each, or the wheel
from `pip wheel ./python` in a shared directory) and pass its address; nothing else changes:

    python examples/python/sweep.py --address auto --stretching 30,100,300,1000 --thickness 0.002,0.005,0.01
"""

import argparse
import csv
import os
import pathlib
import time

# One grid point of the study: sheet-on-sphere's scene with the swept keys as placeholders.
TEMPLATE = """
[simulation]
duration = {duration}
frame_rate = 30.0
gravity = [0.0, 0.0, -9.8]
[contact]
thickness = {thickness}
stiffness = 100.0
friction = 0.1
tolerance = 0.3
[[body]]
name = "sheet"
kind = "shell"
mesh = {{ generator = "grid", size = [0.6, 0.6], resolution = [8, 8] }}
transform = {{ translate = [0.0, 0.0, 0.22] }}
density = 0.2
stretching = {stretching}
bending = 0.001
stretch_damping = 0.05
[[body]]
name = "sphere"
kind = "obstacle"
mesh = {{ generator = "icosphere", radius = 0.2, subdivisions = 1 }}
"""


def simulate(stretching, thickness, duration, samples=31):
    """Runs one grid point and returns its row of the table."""
    import numpy as np

    import avicontact

    started = time.perf_counter()
    sim = avicontact.loads(TEMPLATE.format(stretching=stretching, thickness=thickness, duration=duration))
    sheet = slice(*sim.vertex_ranges()["sheet"])
    balances, lowest = [], np.inf
    for t in np.linspace(0.0, duration, samples):
        sim.advance_to(t)
        e = sim.energy()
        balances.append(e["total"] + e["dissipated"] - e["external_work"])
        lowest = min(lowest, sim.positions()[sheet, 2].min())
    events = sum(sim.events_by_kind().values())
    return {
        "stretching": stretching,
        "thickness": thickness,
        "events_per_simulated_second": events / duration,
        "layer_events": sim.events_by_kind().get("layer", 0),
        "wall_seconds": time.perf_counter() - started,
        "ledger_gap": max(balances) - min(balances),
        "lowest_sheet_z": float(lowest),
        "worker_pid": os.getpid(),
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--address", default=None, help="a Ray cluster's address (default: start Ray locally)")
    parser.add_argument("--num-cpus", type=int, default=None, help="local Ray only: workers to start")
    parser.add_argument("--stretching", default="30,100,300", help="membrane stiffnesses, N/m")
    parser.add_argument("--thickness", default="0.003,0.005,0.01", help="contact thicknesses eta(1), m")
    parser.add_argument("--duration", type=float, default=0.5, help="simulated seconds per run")
    parser.add_argument("--out", type=pathlib.Path, default=pathlib.Path("sweep-out"))
    args = parser.parse_args(argv)

    import ray

    if args.address:
        ray.init(address=args.address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
    grid = [(float(k), float(h)) for k in args.stretching.split(",") for h in args.thickness.split(",")]
    task = ray.remote(simulate)
    started = time.perf_counter()
    rows = ray.get([task.remote(k, h, args.duration) for k, h in grid])
    wall = time.perf_counter() - started
    ray.shutdown()

    args.out.mkdir(parents=True, exist_ok=True)
    with open(args.out / "sweep.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    plot(rows, args.out / "sweep.png")
    busy = sum(r["wall_seconds"] for r in rows)
    print(f"{len(rows)} runs on {len({r['worker_pid'] for r in rows})} workers in {wall:.1f} s "
          f"({busy:.1f} s of simulation): {args.out / 'sweep.csv'}, {args.out / 'sweep.png'}")
    return rows


def plot(rows, path):
    """Events per simulated second and the ledger's gap against stiffness, one line per thickness."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for h in sorted({r["thickness"] for r in rows}):
        line = sorted((r for r in rows if r["thickness"] == h), key=lambda r: r["stretching"])
        k = [r["stretching"] for r in line]
        axes[0].plot(k, [r["events_per_simulated_second"] for r in line], "o-", label=f"η(1) = {h} m")
        axes[1].plot(k, [r["ledger_gap"] for r in line], "o-", label=f"η(1) = {h} m")
    axes[0].set(xscale="log", xlabel="stretching (N/m)", ylabel="events per simulated second")
    axes[1].set(xscale="log", xlabel="stretching (N/m)", ylabel="energy ledger's largest gap (J)")
    stiffnesses = sorted({r["stretching"] for r in rows})
    for ax in axes:
        ax.minorticks_off()
        ax.set_xticks(stiffnesses, [f"{k:g}" for k in stiffnesses])
        ax.legend()
    fig.suptitle("sheet on a sphere: stiffness x contact thickness")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
