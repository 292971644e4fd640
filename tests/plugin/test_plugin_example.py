"""``pytest examples/02_pytest_gate`` passes offline, as its README says, and prints the table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
JUDGES = ("claude-3.5-sonnet", "gemini-2.5-flash", "gpt-4o-mini", "deepseek-v3.2")


def test_the_pytest_gate_example_passes_against_the_local_server_and_prints_scores(tmp_path):
    environ = {k: v for k, v in os.environ.items() if k not in ("JUDGE_BASE_URL", "RAGAS_LIVE")}
    report = tmp_path / "scores.json"

    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "examples/02_pytest_gate",
            "-p",
            "no:cacheprovider",
            "-W",
            "error",
            "--ragas-report",
            str(report),
        ],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    out = completed.stdout
    assert completed.returncode == 0, out + completed.stderr
    assert "7 passed" in out
    assert "ragas-boot: config application.yaml (profiles: default)" in out
    assert "ragas-boot: 4 judge(s) - openrouter: anthropic/claude-3.5-sonnet" in out
    table = out.split("ragas-boot scores", 1)[1].splitlines()
    assert table[1].split() == ["test", "metric", "score", "check", *JUDGES]
    rows = {line.split()[0]: line.split()[1:] for line in table[2:9]}
    prefix = "test_agent.py::"
    assert rows[prefix + "TestToolCallAccuracy::test_perfect_tool_usage"] == [
        "ToolCallAccuracy", "1.000", "ok", ">=", "0.99", "—", "—", "—", "—",
    ]  # fmt: skip
    assert rows[prefix + "TestAgentGoalAccuracy::test_goal_achieved_with_reference"] == [
        "AgentGoalAccuracy", "1.000", "ok", ">=", "0.9", "1.00", "1.00", "1.00", "1.00",
    ]  # fmt: skip
    assert rows[prefix + "TestTopicAdherence::test_on_topic_conversation"] == [
        "TopicAdherence", "0.810", "ok", ">=", "0.7", "0.86", "0.86", "0.67", "0.86",
    ]  # fmt: skip
    assert rows[prefix + "TestTopicAdherence::test_off_topic_conversation"] == [
        "TopicAdherence", "0.375", "ok", "<=", "0.6", "0.33", "0.33", "0.33", "0.50",
    ]  # fmt: skip
    assert "7 scored test x metric row(s), 7 evaluation(s), 0 failed check(s)" in out
    document = json.loads(report.read_text(encoding="utf-8"))
    assert len(document["rows"]) == 7
    assert all(row["passed"] for row in document["rows"])
    assert "offline-demo-key" not in out + report.read_text(encoding="utf-8")
