"""The examples of examples/python run as a user runs them: the notebook-style energy example, and a small
sweep on a local Ray with two workers."""

import csv
import importlib.util
import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples" / "python"


def test_energy_and_backends_writes_its_plots(tmp_path):
    pytest.importorskip("matplotlib", reason="the example plots with matplotlib (pip install matplotlib)")
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "energy_and_backends.py"), "--quick", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "energy.png").stat().st_size > 10_000
    assert (tmp_path / "backends.png").stat().st_size > 10_000
    assert "bar-collision on sync:a-search" in done.stdout


def test_a_small_sweep_runs_on_a_local_ray_with_two_workers(tmp_path):
    if importlib.util.find_spec("ray") is None:
        pytest.skip("Ray is not installed here (pip install 'ray>=2.9'); the sweep needs it")
    pytest.importorskip("matplotlib", reason="the sweep plots with matplotlib (pip install matplotlib)")
    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_USAGE_STATS_ENABLED": "0"}
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / "sweep.py"), "--num-cpus", "2", "--stretching", "30,300",
         "--thickness", "0.005,0.01", "--duration", "0.05", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600, env=env,
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(open(tmp_path / "sweep.csv")))
    assert sorted((float(r["stretching"]), float(r["thickness"])) for r in rows) == [
        (30.0, 0.005), (30.0, 0.01), (300.0, 0.005), (300.0, 0.01)]
    assert all(int(r["worker_pid"]) != os.getpid() for r in rows), "the runs ran in Ray's workers"
    # a stiffer sheet needs more events per simulated second
    rate = {(float(r["stretching"]), float(r["thickness"])): float(r["events_per_simulated_second"]) for r in rows}
    assert rate[(300.0, 0.005)] > rate[(30.0, 0.005)]
    assert (tmp_path / "sweep.png").stat().st_size > 10_000
