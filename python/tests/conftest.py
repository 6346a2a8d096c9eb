"""Shared fixtures: small scenarios, and the CLI binary the results are compared with."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A 4x4 torus under uniform random traffic: a run of a few milliseconds.
SMALL: Dict[str, Any] = {"topology": {"shape": [4, 4]}, "sim": {"duration": "2us"}}


@pytest.fixture
def small() -> Dict[str, Any]:
    return json.loads(json.dumps(SMALL))


def _cli_path() -> str:
    given = os.environ.get("FABRICSIM_CLI")
    if given:
        if not Path(given).is_file():
            raise RuntimeError(f"FABRICSIM_CLI={given} is not a file")
        return given
    for p in [ROOT / "target" / "release" / "fabricsim", Path(shutil.which("fabricsim") or "/nonexistent")]:
        if p.is_file():
            return str(p)
    pytest.skip("no fabricsim binary: build it (cargo build --release -p fabricsim-cli) or set FABRICSIM_CLI")
    raise AssertionError  # unreachable


@pytest.fixture(scope="session")
def cli() -> Any:
    """Run the CLI with arguments; returns its standard output."""
    path = _cli_path()

    def run(*args: str) -> str:
        out = subprocess.run([path, *args], check=True, capture_output=True, text=True)
        return out.stdout

    return run


def without(d: Any, drop: List[str]) -> Any:
    """``d`` without the keys ``drop`` at any depth."""
    if isinstance(d, dict):
        return {k: without(v, drop) for k, v in d.items() if k not in drop}
    if isinstance(d, list):
        return [without(v, drop) for v in d]
    return d


# Fields that differ between any two runs (wall clock) or builds (the git commit).
WALL = ["wall_seconds", "events_per_second", "packet_hops_per_second", "wall_s", "git_commit"]
