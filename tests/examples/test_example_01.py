"""Example 01 runs as the README says and prints judges and scores."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_example_01_runs_offline_and_prints_every_judge_and_metric():
    env = {k: v for k, v in os.environ.items() if k not in ("JUDGE_BASE_URL", "GROQ_BASE_URL")}
    env["OPENROUTER_API_KEY"] = "sk-example-key-123456"
    completed = subprocess.run(
        [sys.executable, "examples/01_config_and_judges/run.py"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    out = completed.stdout
    for judge in ("anthropic/claude-3.5-sonnet", "gemini-flash", "llama-70b"):
        assert judge in out
    assert "ToolCallAccuracyMetric     score=1.000" in out
    assert "AgentGoalAccuracyMetric    score=1.000" in out
    assert "TopicAdherenceMetric       score=0.720" in out
    assert "openai/gpt-4o-mini=0.40" in out
    assert "sk-example-key-123456" not in out + completed.stderr
