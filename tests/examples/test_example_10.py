"""Example 10 runs offline: real exporter output in, CSV, JUnit XML and Markdown out."""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "10_production_sampling"

pytest.importorskip("openinference.instrumentation.openai", reason="the dev extra")
junitparser = pytest.importorskip("junitparser", reason="the dev extra")


def _run(*arguments: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-W", "error", *arguments],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def test_example_10_scores_sampled_traces_without_references(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k not in ("JUDGE_BASE_URL", "OPENROUTER_API_KEY")}
    env["GITHUB_STEP_SUMMARY"] = str(tmp_path / "step-summary.md")
    traces = tmp_path / "traces.jsonl"
    made = _run(str(EXAMPLE / "make_traces.py"), str(traces), env=env)
    assert made.returncode == 0, made.stderr
    assert made.stdout == f"wrote 4 conversations to {traces}\n"
    assert len(traces.read_text(encoding="utf-8").splitlines()) >= 1

    out = tmp_path / "out"
    scored = _run(str(EXAMPLE / "score.py"), str(traces), "--out", str(out), env=env)
    assert scored.returncode == 1, scored.stderr  # two conversations fail their checks
    assert scored.stdout.startswith("4 samples from 4 traces\n")

    with (out / "results.csv").open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 4 * 3
    verdicts = {(row["sample_id"], row["metric"]): row["score"] for row in rows}
    assert verdicts[("refund-brushed-off", "aspect_critic:polite")] == "0.0"
    assert verdicts[("stock-check-down", "aspect_critic:next-step")] == "0.5"
    assert verdicts[("refund-lost-parcel", "agent_goal_accuracy")] == "1.0"
    split = next(row for row in rows if row["sample_id"] == "stock-check-down"
                 and row["metric"] == "aspect_critic:next-step")  # fmt: skip
    assert (split["score:gpt-4o-mini"], split["score:gemini-2.5-flash"]) == ("1.0", "0.0")

    report = junitparser.JUnitXml.fromfile(str(out / "report.xml"))
    assert (report.tests, report.failures, report.errors) == (12, 4, 0)
    tools = junitparser.JUnitXml.fromfile(str(out / "tool_calls.xml"))
    (suite,) = list(tools)
    failing = [case for case in suite if not case.is_passed]
    assert [case.name for case in failing] == ["refund-brushed-off"]

    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "| aspect_critic:polite | 0.750 | 75.0% | 0.5 | 4 | 0 | 0 |" in summary
    assert "| tool_call_accuracy | 0.889 | 66.7% | 1 | 3 | 0 | 0 |" in summary
    assert (tmp_path / "step-summary.md").read_text(encoding="utf-8") == summary

    sampled = _run(str(EXAMPLE / "score.py"), str(traces), "--sample", "2", "--seed", "1",
                   "--out", str(tmp_path / "sampled"), env=env)  # fmt: skip
    assert sampled.stdout.startswith("2 samples from 4 traces\n"), sampled.stderr
