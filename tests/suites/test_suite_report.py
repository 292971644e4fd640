"""Renderers of suite results: console, JSON and a self-contained HTML page."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest

from ragas_boot.samples import ToolCall
from ragas_boot.suites import (
    AgentRun,
    AgentTestCase,
    SuiteResult,
    case_explanation,
    render_console,
    render_html,
    render_json,
    score_case,
)

HOSTILE = "<script>alert('x')</script> [bold]markup[/bold]"


@pytest.fixture
def result() -> SuiteResult:
    passing = score_case(
        AgentTestCase(id="T001_ok", user_message="q", expected_output_contains=["yes"]),
        AgentRun(response="yes", latency_ms=12),
    )
    failing = score_case(
        AgentTestCase(
            id="T002_bad",
            user_message=HOSTILE,
            should_not_call_tools=True,
            expected_output_contains=["climate", "weather", "season"],
        ),
        AgentRun(
            response=HOSTILE,
            tool_calls=[ToolCall("get_weather", {"city": HOSTILE})],
            latency_ms=12_500,
        ),
    )
    return SuiteResult(
        suite="Weather <Agent>",
        agent="weather_agent:run",
        started_at=datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC),
        duration_s=1.25,
        concurrency=2,
        cases=[passing, failing],
    )


def test_console_report(result: SuiteResult) -> None:
    text = render_console(result, result.gate(0.9))

    lines = text.splitlines()
    assert (
        lines[0]
        == "Tool suite: Weather <Agent> — 2 case(s), agent weather_agent:run, concurrency 2"
    )
    assert any(line.startswith("PASS     T001_ok") for line in lines)
    assert any(line.startswith("FAIL     T002_bad") and "12.5 s" in line for line in lines)
    # the first two issues of a case, then how many more
    assert "forbidden_call: Called tools when none should be called: get_weather(" in text
    assert "missing_keywords: Response missing keywords: ['climate'," in text
    assert "… and 1 more" in text
    assert "[bold]markup[/bold]" in text  # user text is not read as rich markup
    assert "Results: 1/2 passed (50.0%)" in text
    assert re.search(r"Over-calling: 1 case +\(T002_bad\)", text)
    assert re.search(r"Latency over budget: 1 case +\(T002_bad\)", text)
    assert text.rstrip().endswith("CI GATE FAILED: 50.0% < 90.0% required")


def test_console_colours_only_when_asked(result: SuiteResult) -> None:
    assert "\x1b[" in render_console(result, color=True)
    assert "CI GATE" not in render_console(result)


def test_json_report(result: SuiteResult) -> None:
    data = json.loads(render_json(result, result.gate(0.5)))

    assert data["suite"] == "Weather <Agent>"
    assert (data["total"], data["passed"], data["failed"], data["pass_rate"]) == (2, 1, 1, 0.5)
    assert data["gate"] == {"min_pass_rate": 0.5, "pass_rate": 0.5, "passed": True}
    issue = data["cases"][1]["issues"][0]
    assert issue["kind"] == "forbidden_call"
    assert issue["actual"] == [{"name": "get_weather", "arguments": {"city": HOSTILE}}]
    assert data["analysis"]["groups"][0]["case_ids"] == ["T002_bad"]
    assert data["analysis"]["recommendations"]
    assert data["cases"][1]["tool_precision"] == 0.0
    assert data["cases"][0]["tool_precision"] is None


def test_html_report_is_self_contained_and_escaped(result: SuiteResult) -> None:
    page = render_html(result, result.gate(0.9))

    assert page.startswith("<!DOCTYPE html>")
    assert "<script>" not in page
    assert "&lt;script&gt;" in page
    assert "Weather &lt;Agent&gt;" in page
    assert "http://" not in page
    assert "https://" not in page
    assert "CI GATE FAILED" in page
    assert 'id="case-T002_bad" open' in page
    assert "Recommendation" in page


def test_case_explanation(result: SuiteResult) -> None:
    text = case_explanation(result.cases[1])

    assert text.startswith("case T002_bad failed: score 0.000")
    assert "  - forbidden_call:" in text
    assert "  calls: get_weather(" in text
