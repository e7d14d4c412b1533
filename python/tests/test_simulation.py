"""The Simulation interface: shapes, units, laws, and the numbers of the command line bit for bit."""

import json
import subprocess

import numpy as np
import pytest

import avicontact
from conftest import read_stats


def test_load_a_built_in_scene_and_read_its_state():
    sim = avicontact.load("hanging-cloth")
    assert (sim.name, sim.backend, sim.time) == ("hanging-cloth", "avi", 0.0)
    x, v, m = sim.positions(), sim.velocities(), sim.masses()
    assert x.shape == v.shape == (400, 3) and m.shape == (400,)
    assert x.dtype == v.dtype == m.dtype == np.float64
    assert sim.vertex_ranges() == {"cloth": (0, 400)}
    assert m.sum() == pytest.approx(0.1)
    sim.advance_to(0.1)
    assert sim.time == 0.1
    moved = sim.positions()
    assert not np.array_equal(moved, x), "gravity moved the cloth"
    counts = sim.events_by_kind()
    assert counts["frame"] == 4 and counts["membrane"] > 0
    energy = sim.energy()
    assert set(energy) == {"kinetic", "potential", "total", "dissipated", "external_work"}
    assert energy["total"] == energy["kinetic"] + energy["potential"]
    assert sim.momentum().shape == sim.angular_momentum().shape == (3,)


def test_step_event_processes_one_event_in_time_order():
    sim = avicontact.load("fpu-chain")
    times = []
    for _ in range(200):
        event = sim.step_event()
        assert set(event) == {"time", "kind", "label", "tick", "period"}
        times.append(event["time"])
        assert sim.time == event["time"]
    assert times == sorted(times) and times[-1] > 0.0
    assert sum(sim.events_by_kind().values()) == 200


def test_a_free_body_keeps_its_momentum_exactly():
    """spinning-shell: no gravity, no held vertex: momentum is conserved to round-off (law 1), checked
    here from positions, velocities and masses alone."""
    sim = avicontact.load("spinning-shell")
    m = sim.masses()[:, None]
    p0 = (m * sim.velocities()).sum(axis=0)
    l0 = np.cross(sim.positions(), m * sim.velocities()).sum(axis=0)
    sim.advance_to(0.2)
    p1 = (m * sim.velocities()).sum(axis=0)
    l1 = np.cross(sim.positions(), m * sim.velocities()).sum(axis=0)
    scale = np.abs(m * sim.velocities()).sum()
    assert np.abs(p1 - p0).max() <= 1e-12 * scale
    assert np.abs(l1 - l0).max() <= 1e-11 * np.abs(l0).max()
    assert np.allclose(sim.momentum(), p1, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("scene,backend", [("sheet-on-sphere", None), ("bar-collision", "sync:bdf2")])
def test_energy_and_momentum_equal_stats_csv_bit_for_bit(tmp_path, cli, scene, backend):
    out = tmp_path / "cli"
    command = [cli, "run", scene, "--out", str(out), "--duration", "0.1", "--quiet"]
    if backend:
        command += ["--backend", backend.split(":")[0]]
    subprocess.run(command, check=True)
    rows = read_stats(out / "stats.csv")
    sim = avicontact.load(scene, backend=backend.split(":")[0] if backend else None)
    for row in rows:
        sim.advance_to(row["time"])
        energy, p, l = sim.energy(), sim.momentum(), sim.angular_momentum()
        assert energy["kinetic"] == row["kinetic"] and energy["potential"] == row["potential"]
        assert energy["total"] == row["total"] and energy["dissipated"] == row["dissipated"]
        assert energy["external_work"] == row["external_work"]
        assert list(p) == [row["momentum_x"], row["momentum_y"], row["momentum_z"]]
        assert list(l) == [row["angular_x"], row["angular_y"], row["angular_z"]]
    assert len(rows) > 3


def test_backends_are_chosen_by_name():
    sim = avicontact.load("bar-collision", backend="sync:implicit-midpoint")
    assert sim.backend == "sync"
    sim.advance_to(0.1)
    assert sim.events_by_kind()["step"] == 3
    with pytest.raises(avicontact.SceneError, match="backend: unknown run `gpu`"):
        avicontact.load("bar-collision", backend="gpu")


def test_loads_takes_scene_text_and_its_errors_name_the_place():
    text = """
[simulation]
duration = 0.1
gravity = [0.0, 0.0, 0.0]

[[body]]
name = "chain"
kind = "chain"
mesh = { generator = "line", start = [0.0, 0.0, 0.0], end = [1.0, 0.0, 0.0], segments = 4 }
mass = 1.0
spring_stiffness = [10.0]
velocity = [1.0, 0.0, 0.0]
"""
    sim = avicontact.loads(text)
    assert sim.positions().shape == (5, 3)
    sim.advance_to(0.05)
    assert np.allclose(sim.momentum(), [sim.masses().sum(), 0.0, 0.0], rtol=0, atol=1e-14)
    with pytest.raises(avicontact.SceneError) as error:
        avicontact.loads(text.replace("mass = 1.0", "mass = -1.0"))
    assert str(error.value).startswith("<scene text>: ") and "mass" in str(error.value)
    assert isinstance(error.value, ValueError)


def test_the_same_scene_gives_bit_identical_runs():
    runs = []
    for _ in range(2):
        sim = avicontact.load("sheet-on-sphere")
        sim.advance_to(0.05)
        runs.append((sim.positions(), sim.velocities(), sim.energy()))
    assert np.array_equal(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])
    assert runs[0][2] == runs[1][2]


def test_run_writes_what_the_command_line_writes(tmp_path, cli):
    summary = avicontact.run("spinning-shell", tmp_path / "py", duration=0.1)
    subprocess.run([cli, "run", "spinning-shell", "--out", str(tmp_path / "cli"), "--duration", "0.1", "--quiet"], check=True)
    assert summary["status"] == "completed" and summary["frames"] == 4
    assert summary == {**json.loads((tmp_path / "py" / "summary.json").read_text()), **{}}
    written = json.loads((tmp_path / "cli" / "summary.json").read_text())
    timing = {"wall_seconds", "events_per_second"}
    assert {k: v for k, v in summary.items() if k not in timing} == {k: v for k, v in written.items() if k not in timing}
    for name in ["stats.csv", "frames/frame_00000.obj", "frames/frame_00003.obj"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name


def test_run_on_another_backend_and_its_bad_input(tmp_path):
    summary = avicontact.run("bar-collision", tmp_path / "sync", duration=0.05, backend="sync:bdf2")
    assert (summary["backend"], summary["integrator"]) == ("sync", "bdf2")
    with pytest.raises(avicontact.SceneError, match="--duration: must be a finite number of seconds > 0"):
        avicontact.run("bar-collision", tmp_path / "bad", duration=0.0)
    assert not (tmp_path / "bad").exists(), "bad input writes nothing"
