"""Example 08: one panel of an OpenAI-compatible, a GigaChat and a LangChain-class judge, each
reached by its own client library over HTTP (local fakes), scores a dataset together."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytest.importorskip("langchain_gigachat")
pytest.importorskip("langchain_anthropic")


def test_example_05_scores_the_quickstart_with_three_kinds_of_judge(tmp_path):
    report = tmp_path / "report.json"
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SPRING_", "RAGAS_", "GIGACHAT_", "ANTHROPIC_", "OPENAI"))
        or k == "RAGAS_BOOT_HOME"  # the run history goes to the test's folder
    }
    completed = subprocess.run(
        [sys.executable, "examples/08_every_provider/offline.py", "--out", str(report)],
        cwd=ROOT,
        env=env | {"COLUMNS": "160", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert completed.returncode == 0, completed.stderr
    assert "ResourceWarning" not in completed.stderr
    out = completed.stdout
    assert "9 scored, 0 undefined, 0 failed · 27 judge calls (0 failed)" in out
    assert "requests: openai-compatible 9, gigachat 9 (+1 token exchanges), anthropic 9" in out
    data = json.loads(report.read_text(encoding="utf-8"))
    text = json.dumps(data)
    assert {(j["id"], j["provider"]) for j in data["judges"]} == {
        ("gpt-4o-mini", "openrouter"),
        ("GigaChat-2-Max", "gigachat"),
        ("claude-haiku", "anthropic"),
    }
    for summary in data["judge_summaries"]:  # every judge scored every sample, tokens counted
        expected = 3 if summary["metric"] else 6  # per judge metric, and over both
        assert summary["scored"] == summary["evaluations"] == expected, summary
        assert summary["failed_calls"] == 0 and summary["usage"]["total_tokens"] > 0
    for secret in ("sk-ant-offline-example-not-a-real-key", "sk-or-offline-example"):
        assert secret not in text + out + completed.stderr
