"""Bad input from Python: an exception naming the argument or the scene's place, never a Rust panic that
takes the interpreter down, and the interpreter goes on afterwards."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

import avicontact


def test_wrong_types_name_the_argument():
    sim = avicontact.load("fpu-chain")
    cases = [
        (lambda: sim.advance_to("1"), "t: expected a number of seconds, got str"),
        (lambda: sim.advance_to(None), "t: expected a number of seconds, got NoneType"),
        (lambda: avicontact.load(3), "scene: expected a str or os.PathLike path, got int"),
        (lambda: avicontact.load("fpu-chain", backend=1), "backend: expected a str, got int"),
        (lambda: avicontact.loads(b"[simulation]"), "toml_text: expected a str, got bytes"),
        (lambda: avicontact.loads("", base_dir=1.5), "base_dir: expected a str or os.PathLike path, got float"),
        (lambda: avicontact.run("fpu-chain", 5), "out: expected a str or os.PathLike path, got int"),
        (lambda: avicontact.run("fpu-chain", "x", duration="1"), "duration: expected a number of seconds, got str"),
        (lambda: avicontact.run("fpu-chain", "x", insist="yes"), "insist: expected True or False, got str"),
    ]
    for call, message in cases:
        with pytest.raises(TypeError) as error:
            call()
        assert str(error.value) == message


@pytest.mark.parametrize("t", [-1.0, float("nan"), float("inf")])
def test_bad_times_name_the_argument(t):
    sim = avicontact.load("fpu-chain")
    with pytest.raises(ValueError, match="^t: must be a finite number of seconds >= 0"):
        sim.advance_to(t)
    sim.advance_to(0.01)  # still usable
    assert sim.time > 0.0


def test_scene_errors_carry_the_command_lines_message(tmp_path, cli):
    bad = tmp_path / "bad.toml"
    bad.write_text("[simulation]\nduration = -1.0\n")
    with pytest.raises(avicontact.SceneError) as error:
        avicontact.load(bad)
    printed = subprocess.run([cli, "info", str(bad)], capture_output=True, text=True)
    assert printed.returncode == 2
    assert printed.stderr.strip() == f"error: {error.value}"
    with pytest.raises(avicontact.SceneError, match="no such scene file"):
        avicontact.load(tmp_path / "missing.toml")


def test_ctrl_c_stops_advance_to_after_an_event_and_the_run_goes_on(tmp_path):
    """A real SIGINT to a process inside advance_to: KeyboardInterrupt, the time where it stopped, and
    advance_to again reaches the target."""
    script = tmp_path / "interrupt.py"
    script.write_text(textwrap.dedent("""
        import sys, time, avicontact
        sim = avicontact.load("hanging-cloth")
        print("ready", flush=True)
        start = time.time()
        try:
            sim.advance_to(1000.0)
            print("not interrupted", flush=True)
        except KeyboardInterrupt:
            print("interrupted", sim.time, round(time.time() - start, 1), flush=True)
        t = sim.time
        sim.advance_to(t + 0.01)
        print("went on", sim.time > t, flush=True)
    """))
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    import time
    time.sleep(1.5)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    lines = out.splitlines()
    assert lines[0].startswith("interrupted"), out
    assert 0.0 < float(lines[0].split()[1]) < 1000.0
    assert lines[1] == "went on True"
    assert process.returncode == 0


def test_ctrl_c_stops_run_and_summary_says_interrupted(tmp_path):
    script = tmp_path / "interrupt_run.py"
    out_dir = tmp_path / "out"
    script.write_text(textwrap.dedent(f"""
        import avicontact
        print("ready", flush=True)
        try:
            avicontact.run("hanging-cloth", {str(out_dir)!r}, duration=1000.0, insist=True)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """))
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    import json, time
    time.sleep(2.0)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert out.strip() == "interrupted"
    summary = json.loads((out_dir / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["signal"] == "SIGINT"
    assert (out_dir / "stats.csv").read_text().count("\n") == summary["frames"] + 1


def test_a_run_stopped_by_ctrl_c_resumes_from_its_checkpoint_to_the_files_of_one_never_stopped(tmp_path):
    script = tmp_path / "checkpointed_run.py"
    out_dir, straight = tmp_path / "out", tmp_path / "straight"
    script.write_text(textwrap.dedent(f"""
        import avicontact
        print("ready", flush=True)
        try:
            avicontact.run("sheet-on-sphere", {str(out_dir)!r}, duration=6.0, checkpoint_every=0.5)
        except KeyboardInterrupt:
            print("interrupted", flush=True)
    """))
    process = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    import time
    # interrupted once its first checkpoint (t = 0.5 s) is written: the whole 6 s run takes about
    # 1.5 s, so a fixed sleep could outlast it
    deadline = time.monotonic() + 60
    while not (out_dir / "checkpoint.bin").is_file():
        assert time.monotonic() < deadline, "no checkpoint within 60 s"
        time.sleep(0.005)
    process.send_signal(signal.SIGINT)
    out, _ = process.communicate(timeout=60)
    assert out.strip() == "interrupted"
    assert (out_dir / "checkpoint.bin").is_file(), "a checkpoint at the interruption"
    summary = avicontact.resume(out_dir)
    assert summary["status"] == "completed" and summary["frames"] == 181
    avicontact.run("sheet-on-sphere", straight, duration=6.0)
    for name in ["stats.csv", "frames/frame_00000.obj", "frames/frame_00090.obj", "frames/frame_00180.obj"]:
        assert (out_dir / name).read_bytes() == (straight / name).read_bytes(), name
    # a completed run keeps its last checkpoint: resuming it as it is says so
    with pytest.raises(avicontact.SceneError, match="the run is complete"):
        avicontact.resume(out_dir)
    # and on to 6.5 s: the files of a 6.5 s run
    summary = avicontact.resume(out_dir, duration=6.5)
    assert summary["status"] == "completed" and summary["frames"] == 196 and summary["duration"] == 6.5
    longer = tmp_path / "longer"
    avicontact.run("sheet-on-sphere", longer, duration=6.5)
    for name in ["stats.csv", "frames/frame_00180.obj", "frames/frame_00195.obj"]:
        assert (out_dir / name).read_bytes() == (longer / name).read_bytes(), name
    with pytest.raises(avicontact.SceneError, match="no checkpoint"):
        avicontact.resume(straight)
