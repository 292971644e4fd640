"""A suite run is a RunResult: the run reports render it, with the case columns and the
failure analysis section; a failed case reads as a few lines."""

from __future__ import annotations

import json

import pytest

from ragas_boot.reporting import render_console, render_html, render_json
from ragas_boot.reporting.markdown import render_markdown
from ragas_boot.runs import RunResult
from ragas_boot.samples import ToolCall
from ragas_boot.suites import (
    AgentReply,
    AgentTestCase,
    AgentTestSuite,
    case_explanation,
    case_sample,
    evaluate_cases,
)

HOSTILE = "<script>alert('x')</script> [bold]markup[/bold] | pipe"


@pytest.fixture
def run() -> RunResult:
    passing = AgentTestCase(id="T001_ok", user_message="q", expected_output_contains=["yes"])
    failing = AgentTestCase(
        id="T002_bad",
        user_message=HOSTILE,
        should_not_call_tools=True,
        expected_output_contains=["climate", "weather", "season"],
    )
    suite = AgentTestSuite(name="Weather <Agent>", cases=[passing, failing])
    samples = [
        case_sample(passing, AgentReply(response="yes"), latency_ms=12, agent="weather:run"),
        case_sample(
            failing,
            AgentReply(response=HOSTILE, tool_calls=[ToolCall("get_weather", {"city": HOSTILE})]),
            latency_ms=12_500,
            agent="weather:run",
        ),
    ]
    return evaluate_cases(suite, samples)


def test_console_report(run: RunResult) -> None:
    text = render_console(run, width=160)

    assert "┃ Result ┃ Sample" in text and "┃ Latency ┃ Calls ┃" in text
    row = next(line for line in text.splitlines() if "T002_bad" in line)
    assert "FAIL" in row and "12.5 s" in row and "1/5" in row
    assert "T001_ok" in text and "undefined" in text  # no tool expectation: no score
    assert "Samples passing every metric: 1/2 (50.0%)" in text
    assert "over_calling: Called tools when none should be called: get_weather(" in text
    assert "Over-calling: 1 sample (T002_bad)" in text
    assert "Missing keywords: 1 sample (T002_bad)" in text
    assert "Latency over budget: 1 sample (T002_bad)" in text
    assert "Recommendations" in text
    assert "[bold]markup[/bold]" in text  # shown as written, not as rich markup


def test_json_report_is_the_run_report_with_the_analysis(run: RunResult) -> None:
    data = json.loads(render_json(run))

    assert data["schema_version"] == 1
    assert data["dataset"]["name"] == "Weather <Agent>"
    assert [m["name"] for m in data["metrics"]] == ["tool_call_accuracy", "case_expectations"]
    sample = data["samples"][1]["sample"]
    assert sample["agent_run"]["latency_ms"] == 12_500
    assert sample["expectations"]["response_contains"] == ["climate", "weather", "season"]
    analysis = data["analysis"]
    assert analysis["failed_sample_ids"] == ["T002_bad"]
    assert [g["kind"] for g in analysis["groups"]] == [
        "over_calling",
        "latency",
        "missing_keywords",
    ]
    finding = analysis["samples"][0]["findings"][1]
    assert (finding["kind"], finding["expected"]) == (
        "missing_keywords",
        ["climate", "weather", "season"],
    )
    assert len(analysis["recommendations"]) == 3


def test_html_report_is_self_contained_and_escaped(run: RunResult) -> None:
    page = render_html(run)

    assert "<script>alert" not in page
    assert "&lt;script&gt;alert" in page
    assert '<section class="card" id="analysis"><h2>Failure analysis</h2>' in page
    assert 'href="#sample-T002_bad"' in page
    assert "<h4>Expectations</h4>" in page and "<h4>Agent run</h4>" in page
    assert "http://" not in page and "https://" not in page


def test_markdown_summary_has_the_analysis(run: RunResult) -> None:
    text = render_markdown(run, gate=run.gate(min_sample_pass_rate=0.9))

    assert "### Failure analysis" in text
    assert "| Over-calling | T002_bad |" in text
    assert "FAILED 1/2 samples passed every metric (50.0%), under the 90.0% required" in text
    assert "\\| pipe" in text and "<script>" not in text


def test_case_explanation(run: RunResult) -> None:
    text = case_explanation(run.samples[1])

    lines = text.splitlines()
    assert lines[0] == "case T002_bad failed: latency 12.5 s, 1 tool call(s)"
    assert lines[1].startswith("  tool_call_accuracy: 0.000 fail — Accuracy 0.0%")
    # three keywords and two budgets: the tool-call budget alone passes (12.5 s > 10 s)
    assert lines[2].startswith("  case_expectations: 0.200 fail — 1/5 checks passed")
    assert "  - over_calling: Called tools when none should be called" in text
    assert "  calls: get_weather(" in text
    assert case_explanation(run.samples[0]).startswith("case T001_ok passed")


def test_a_run_of_many_failed_samples_stays_readable() -> None:
    # 30 cases the agent answers wrongly: the console lists 20, each group 10 ids.
    cases = [
        AgentTestCase(id=f"c{index:02}", user_message="q", expected_output_contains=["yes"])
        for index in range(30)
    ]
    suite = AgentTestSuite(name="many", cases=cases)
    run = evaluate_cases(
        suite, [case_sample(case, AgentReply(response="no"), latency_ms=1) for case in cases]
    )

    text = render_console(run, width=200)

    assert "  c19  missing_keywords: The answer lacks 'yes'" in text
    assert "c20  missing_keywords" not in text
    assert "… and 10 more failed samples (see the JSON or HTML)" in text
    assert (
        "Missing keywords: 30 samples (c00, c01, c02, c03, c04, c05, c06, c07, c08, c09, +20 more)"
        in text
    )
    assert len(json.loads(render_json(run))["analysis"]["samples"]) == 30
