"""Running an example as its README does, for the tests of ``tests/examples``."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from types import ModuleType

#: The checkout's root: the examples run from there, as their READMEs say.
ROOT = Path(__file__).resolve().parents[2]


def run_example_tests(
    example: Path, report: Path, *, unset: Iterable[str]
) -> subprocess.CompletedProcess[str]:
    """Run an example's pytest suite in a fresh process, warnings as errors, its score table
    written to ``report`` (``--ragas-report``), without the variables ``unset`` (those that
    would point it at a live service)."""
    dropped = set(unset)
    environ = {name: value for name, value in os.environ.items() if name not in dropped}
    return subprocess.run(
        [
            sys.executable, "-m", "pytest", str(example), "-p", "no:cacheprovider",
            "-W", "error", "--ragas-report", str(report),
        ],
        cwd=ROOT, env=environ, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def load_example_module(path: Path, name: str) -> ModuleType:
    """Import an example's file (a ``conftest.py``, a script) under ``name``, to call its
    scripted judges or read its constants from a test."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
