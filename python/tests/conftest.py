"""Shared fixtures: the command-line binary (for the bit-identical comparisons) and a run directory."""

import os
import pathlib
import shutil
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli():
    """The avicontact binary of this checkout (AVICONTACT_BIN, or target/release, built if missing)."""
    binary = os.environ.get("AVICONTACT_BIN") or str(ROOT / "target" / "release" / "avicontact")
    if not os.path.exists(binary):
        if shutil.which("cargo") is None:
            pytest.skip("no avicontact binary and no cargo to build it (set AVICONTACT_BIN)")
        subprocess.run(["cargo", "build", "--release", "--bin", "avicontact"], cwd=ROOT, check=True)
    return binary


def read_stats(path):
    """stats.csv as a list of dicts of floats."""
    lines = pathlib.Path(path).read_text().splitlines()
    header = lines[0].split(",")
    return [dict(zip(header, map(float, line.split(",")))) for line in lines[1:]]
