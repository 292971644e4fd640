"""Suite cases accept ToolCallAccuracy's expectations: alternatives, optional calls,
tolerance and subset rules, and recovered failures. Scores are worked out in the comments
(overall = weighted mean of precision, recall, params 0.3 each and output 0.1)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ragas_boot.errors import SuiteError
from ragas_boot.samples import AIMessage, ToolCall, ToolMessage
from ragas_boot.suites import (
    AgentRun,
    AgentTestCase,
    ExpectationAlternatives,
    IssueKind,
    ScoringSettings,
    load_suite,
    score_case,
)


def _case(**fields: Any) -> AgentTestCase:
    return AgentTestCase.model_validate({"id": "case", "user_message": "question", **fields})


def _run(*calls: ToolCall, messages: list[Any] | None = None) -> AgentRun:
    return AgentRun(tool_calls=list(calls), messages=messages or [], latency_ms=1.0)


def _kinds(result: Any) -> list[IssueKind]:
    return [issue.kind for issue in result.issues]


WEATHER = {"tool_name": "get_weather", "required_params": {"city": "Tokyo"}}
FORECAST = {"tool_name": "get_forecast", "required_params": {"city": "Tokyo", "days": 1}}
EITHER = {"any-of": [[WEATHER], [FORECAST]]}


@pytest.mark.parametrize(
    "call",
    [
        ToolCall("get_weather", {"city": "Tokyo"}),
        ToolCall("get_forecast", {"city": "Tokyo", "days": 1}),
    ],
)
def test_either_alternative_passes(call: ToolCall) -> None:
    case = _case(expected_tool_calls=EITHER)
    assert isinstance(case.expected_tool_calls, ExpectationAlternatives)
    result = score_case(case, _run(call))
    assert (result.passed, result.score, result.issues) == (True, 1.0, [])


def test_the_best_alternative_is_scored_with_its_issues() -> None:
    # Forecast with days 3: alternative 1 gives P = R = 1 and params (1 + 0.5) / 2 = 0.75:
    # tool score (0.3 + 0.3 + 0.225) / 0.9 = 0.917; alternative 0 gives 0 (wrong tool).
    case = _case(expected_tool_calls=EITHER)
    result = score_case(case, _run(ToolCall("get_forecast", {"city": "Tokyo", "days": 3})))
    assert (result.tool_precision, result.tool_recall, result.param_accuracy) == (1.0, 1.0, 0.75)
    assert _kinds(result) == [IssueKind.WRONG_VALUE]
    assert result.score == pytest.approx(0.825 / 0.9)


def test_no_alternative_met_reports_the_first() -> None:
    case = _case(expected_tool_calls=EITHER)
    result = score_case(case, _run(ToolCall("get_time")))
    assert (result.score, result.passed) == (0.0, False)
    assert _kinds(result) == [IssueKind.MISSING_TOOL, IssueKind.UNEXPECTED_TOOL]
    assert result.issues[0].tool == "get_weather"


def test_an_empty_alternative_accepts_no_call() -> None:
    case = _case(expected_tool_calls={"any_of": [[WEATHER], []]})
    result = score_case(case, _run())
    # [] : P = R = 1, params not scored → 1.0; [weather]: R = 0.
    assert (result.score, result.param_accuracy, result.passed) == (1.0, None, True)


def test_an_optional_expectation_is_never_missing_nor_extra() -> None:
    optional_time = {"tool_name": "get_time", "optional": True, "required_params": {"tz": "UTC"}}
    case = _case(expected_tool_calls=[WEATHER, optional_time])
    weather = ToolCall("get_weather", {"city": "Tokyo"})
    skipped = score_case(case, _run(weather))
    # The optional call is not expected: P = R = params = 1.
    assert (skipped.score, skipped.issues) == (1.0, [])
    made = score_case(case, _run(weather, ToolCall("get_time", {"tz": "CET"})))
    # Made with a wrong value: not counted in precision (P = 1/1), its params score 0.5:
    # params (1 + 0.5) / 2 = 0.75 → (0.3 + 0.3 + 0.225) / 0.9.
    assert (made.tool_precision, made.tool_recall, made.param_accuracy) == (1.0, 1.0, 0.75)
    assert _kinds(made) == [IssueKind.WRONG_VALUE]
    twice = score_case(case, _run(weather, ToolCall("get_time", {"tz": "UTC"}), weather))
    # A second weather call is extra; the optional call is not counted: P = 1/2, R = 1.
    assert twice.tool_precision == 0.5
    assert _kinds(twice) == [IssueKind.EXTRA_CALL]


def test_tolerance_replaces_equality_of_the_required_value() -> None:
    case = _case(
        expected_tool_calls=[
            {
                "tool_name": "geo",
                "required_params": {"lat": 35.68},
                "param_validators": {"lat": {"tolerance": 0.01}},
            }
        ]
    )
    near = score_case(case, _run(ToolCall("geo", {"lat": 35.6812})))
    assert (near.score, near.issues) == (1.0, [])
    far = score_case(case, _run(ToolCall("geo", {"lat": 35.7})))
    # The validator fails: params 0 → (0.3 + 0.3) / 0.9 = 0.667.
    assert far.score == pytest.approx(2 / 3)
    assert _kinds(far) == [IssueKind.INVALID_PARAM]
    assert "within 0.01 of 35.68" in far.issues[0].message


def test_subset_replaces_equality_of_the_required_object() -> None:
    case = _case(
        expected_tool_calls=[
            {
                "tool_name": "find",
                "required_params": {"filter": {"sky": "clear"}},
                "param_validators": {"filter": {"subset": True}},
            }
        ]
    )
    holds = score_case(case, _run(ToolCall("find", {"filter": {"sky": "clear", "wind": 3}})))
    assert (holds.score, holds.issues) == (1.0, [])
    lacks = score_case(case, _run(ToolCall("find", {"filter": {"wind": 3}})))
    assert _kinds(lacks) == [IssueKind.INVALID_PARAM]


def test_tolerance_pairs_the_closest_call() -> None:
    # Two geo calls, two expectations within a tolerance: pairing by the rule matches both.
    rule = {"lat": {"tolerance": 0.5}}
    case = _case(
        expected_tool_calls=[
            {"tool_name": "geo", "required_params": {"lat": 10}, "param_validators": rule},
            {"tool_name": "geo", "required_params": {"lat": 20}, "param_validators": rule},
        ]
    )
    result = score_case(case, _run(ToolCall("geo", {"lat": 20.2}), ToolCall("geo", {"lat": 9.9})))
    assert (result.score, result.issues) == (1.0, [])


def _retry_trace(first_status: str) -> tuple[list[ToolCall], list[Any]]:
    calls = [
        ToolCall("get_weather", {"city": "HCMC"}, id="c1"),
        ToolCall("get_weather", {"city": "Ho Chi Minh City"}, id="c2"),
    ]
    messages = [
        AIMessage("", [calls[0]]),
        ToolMessage("unknown city", tool_call_id="c1", status=first_status),
        AIMessage("", [calls[1]]),
        ToolMessage("31", tool_call_id="c2"),
        AIMessage("31 °C"),
    ]
    return calls, messages


def test_a_recovered_failure_is_left_out_when_the_scoring_says_so() -> None:
    case = _case(
        expected_tool_calls=[
            {"tool_name": "get_weather", "required_params": {"city": "Ho Chi Minh City"}}
        ]
    )
    calls, messages = _retry_trace("error")
    run = _run(*calls, messages=messages)
    counted = score_case(case, run)
    # COUNT: the HCMC call is extra: P = 1/2 → (0.15 + 0.3 + 0.3) / 0.9 = 0.833.
    assert counted.tool_precision == 0.5
    assert _kinds(counted) == [IssueKind.EXTRA_CALL]
    excluded = score_case(case, run, ScoringSettings(failed_calls="exclude-recovered"))
    assert (excluded.tool_precision, excluded.score, excluded.issues) == (1.0, 1.0, [])
    # A successful first call is no failure: nothing is left out.
    calls, messages = _retry_trace("success")
    kept = score_case(
        case, _run(*calls, messages=messages), ScoringSettings(failed_calls="exclude_recovered")
    )
    assert kept.tool_precision == 0.5


@pytest.mark.parametrize(
    ("case_yaml", "field", "message"),
    [
        (
            "expected-tool-calls: [{tool-name: geo, param-validators: {lat: {tolerance: 0.1}}}]",
            "expected-tool-calls[0]",
            "param_validators.lat: tolerance needs the expected number in required_params.lat",
        ),
        (
            "expected-tool-calls: [{tool-name: geo, required-params: {f: 1}, "
            "param-validators: {f: {subset: true}}}]",
            "expected-tool-calls[0]",
            "param_validators.f: subset needs the expected object in required_params.f, got 1",
        ),
        (
            "expected-tool-calls: {any-of: [[{tool-name: geo}], [{tool-nam: geo}]]}",
            "expected-tool-calls.any-of[1][0].tool_name",
            "required but missing",
        ),
        ("expected-tool-calls: {any-of: []}", "expected-tool-calls.any-of", "at least 1 item"),
        (
            "expected-tool-calls: {any-of: [[{tool-name: geo, optional: maybe}]]}",
            "expected-tool-calls.any-of[0][0].optional",
            "valid boolean",
        ),
    ],
)
def test_bad_expectations_name_the_field_as_written(
    tmp_path: Path, case_yaml: str, field: str, message: str
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(f"name: s\ncases:\n  - id: c\n    user-message: hi\n    {case_yaml}\n")
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    assert (caught.value.field or "") == field
    assert message in str(caught.value)


def test_undeclared_tools_in_alternatives_are_found(tmp_path: Path) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: s\ntools: [{name: get_weather}]\ncases:\n  - id: c\n    user-message: hi\n"
        "    expected-tool-calls:\n"
        "      any-of: [[{tool-name: get_weather}], [{tool-name: get_wether}]]\n"
    )
    with pytest.raises(SuiteError) as caught:
        load_suite(path)
    assert caught.value.field == "expected_tool_calls.any_of[1][0].tool_name"
    assert "did you mean 'get_weather'?" in str(caught.value)
