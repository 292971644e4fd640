"""Failure analysis: failed cases grouped by kind, each once, with the seed's recommendations."""

from __future__ import annotations

from ragas_boot.samples import ToolCall
from ragas_boot.suites import (
    AgentRun,
    AgentTestCase,
    FailureKind,
    ToolCallExpectation,
    analyze_failures,
    score_case,
)

FORECAST = ToolCallExpectation(tool_name="get_forecast", required_params={"city": "Hue", "days": 3})


def _result(case_id: str, *calls: ToolCall, latency_ms: float = 1.0, **fields: object):
    case = AgentTestCase.model_validate({"id": case_id, "user_message": "q", **fields})
    return score_case(case, AgentRun(tool_calls=list(calls), latency_ms=latency_ms))


def test_failures_are_grouped_by_kind_with_case_ids_once() -> None:
    results = [
        _result(
            "ok",
            ToolCall("get_forecast", {"city": "Hue", "days": 3}),
            expected_tool_calls=[FORECAST],
        ),
        # two wrong values: one group entry, two issues
        _result(
            "params",
            ToolCall("get_forecast", {"city": "Hanoi", "days": 9}),
            expected_tool_calls=[FORECAST],
            expected_output_contains=["Hue"],
        ),
        _result(
            "wrong_tool", ToolCall("get_weather", {"city": "Hue"}), expected_tool_calls=[FORECAST]
        ),
        _result("no_tool_wanted", ToolCall("get_weather", {}), should_not_call_tools=True),
        _result(
            "slow",
            ToolCall("get_forecast", {"city": "Hue", "days": 3}),
            expected_tool_calls=[FORECAST],
            latency_ms=500,
            max_latency_ms=100,
        ),
        _result(
            "budget",
            *[ToolCall("get_forecast", {"city": "Hue", "days": 3})] * 3,
            expected_tool_calls=[FORECAST],
            max_tool_calls=2,
        ),
    ]

    analysis = analyze_failures(results)

    assert analysis.failed_case_ids == [
        "params",
        "wrong_tool",
        "no_tool_wanted",
        "slow",
        "budget",
    ]
    groups = {group.kind: group.case_ids for group in analysis.groups}
    assert groups == {
        FailureKind.PARAMETER_ERRORS: ["params"],
        FailureKind.WRONG_TOOL: ["wrong_tool"],
        FailureKind.TOOL_NOT_CALLED: ["wrong_tool"],
        FailureKind.OVER_CALLING: ["no_tool_wanted", "budget"],
        FailureKind.LATENCY: ["slow"],
        FailureKind.MISSING_KEYWORDS: ["params"],
    }
    assert [group.kind for group in analysis.groups] == list(groups)  # report order
    params = analysis.group("parameter_errors")
    assert params is not None
    assert params.issue_count == 2
    assert analysis.recommendations[:3] == [
        "Improve tool input_schema descriptions — add examples for each param",
        "Clarify tool descriptions — disambiguate similar tools more clearly",
        "Add more trigger phrases in tool descriptions for missed tools",
    ]


def test_issues_of_passing_cases_are_left_out() -> None:
    passing = _result(
        "partial",
        ToolCall("get_forecast", {"city": "Hue", "days": 4}),
        expected_tool_calls=[FORECAST],
    )

    assert passing.passed
    assert passing.issues
    assert analyze_failures([passing]).groups == []


def test_agent_errors_have_their_own_group() -> None:
    case = AgentTestCase(id="boom", user_message="q")
    result = score_case(case, AgentRun(error="RuntimeError: boom"))

    analysis = analyze_failures([result])

    assert analysis.group(FailureKind.AGENT_ERRORS) is not None
    assert analysis.group(FailureKind.LATENCY) is None
