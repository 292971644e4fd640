"""The quick start's script, as the README runs it: a real evaluation on the local model."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.local_llm

ROOT = Path(__file__).resolve().parents[2]


def _clean_env() -> dict[str, str]:
    """This environment without profile or config overrides, and a wide terminal."""
    kept = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SPRING_", "RAGAS_")) or k == "RAGAS_BOOT_HOME"
    }
    return kept | {"COLUMNS": "160", "NO_COLOR": "1"}


def test_the_quickstart_script_prints_a_score_table_from_the_local_model():
    # One sample of the three keeps it short; the README runs them all.
    done = subprocess.run(
        [sys.executable, "examples/quickstart/run.py", "--sample", "refund-12345"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=_clean_env(),
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert f"config: {ROOT / 'application.yaml'}" in out
    assert "judge smollm2-135m (local): local GGUF SmolLM2-135M-Instruct.Q4_1.gguf" in out
    assert "refund-12345" in out
    assert "flight-paris" not in out
    assert "Scores (1.0 = best)" in out
    assert "judge calls" in out
    assert "local model server ready in" in out
    assert "smoke-test judge" in out
