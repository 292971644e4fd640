"""Scoring one case from what the agent did: multiset matching, parameters, keywords, budgets."""

from __future__ import annotations

from typing import Any

import pytest

from ragas_boot.samples import ToolCall
from ragas_boot.suites import (
    AgentRun,
    AgentTestCase,
    IssueKind,
    ParamRule,
    ScoreWeights,
    ScoringSettings,
    ToolCallExpectation,
    score_case,
)


def _case(**fields: Any) -> AgentTestCase:
    return AgentTestCase(id=fields.pop("id", "case"), user_message="question", **fields)


def _run(*calls: ToolCall, response: str = "", latency_ms: float = 10.0) -> AgentRun:
    return AgentRun(response=response, tool_calls=list(calls), latency_ms=latency_ms)


def _weather(**required: Any) -> ToolCallExpectation:
    return ToolCallExpectation(tool_name="get_weather", required_params=required)


def _kinds(result: Any) -> list[IssueKind]:
    return [issue.kind for issue in result.issues]


def test_a_perfect_run_scores_one() -> None:
    case = _case(expected_tool_calls=[_weather(city="Hanoi")], expected_output_contains=["Hanoi"])

    call = ToolCall("get_weather", {"city": "Hanoi"})

    result = score_case(case, _run(call, response="hanoi: 31"))

    assert result.passed
    assert result.score == 1.0
    assert result.issues == []
    assert result.messages[0].content == "question"


def test_duplicate_calls_count_as_a_multiset_not_as_all_correct() -> None:
    # The seed counted every call whose name is expected as correct: precision 1.0 here, and
    # a recall of 2.0 with one expectation. A maximum matching pairs one call with it.
    case = _case(expected_tool_calls=[_weather(city="Hanoi")])
    call = ToolCall("get_weather", {"city": "Hanoi"})

    result = score_case(case, _run(call, call))

    assert result.tool_precision == 0.5
    assert result.tool_recall == 1.0
    assert _kinds(result) == [IssueKind.EXTRA_CALL]
    assert result.issues[0].message == "Extra call of get_weather: expected 1 call, got 2"


def test_calls_pair_with_the_expectation_they_fit_whatever_the_order() -> None:
    # The seed scored parameters on the first call of the tool; here Da Nang's call is
    # paired with Da Nang's expectation even though it comes first.
    case = _case(expected_tool_calls=[_weather(city="Hanoi"), _weather(city="Da Nang")])

    result = score_case(
        case,
        _run(
            ToolCall("get_weather", {"city": "Da Nang"}),
            ToolCall("get_weather", {"city": "Hanoi"}),
        ),
    )

    assert result.passed
    assert result.param_accuracy == 1.0


def test_a_missing_tool_fails_even_with_a_high_score() -> None:
    case = _case(
        expected_tool_calls=[_weather(city="Hanoi"), ToolCallExpectation(tool_name="get_forecast")]
    )
    weights = ScoringSettings(
        weights=ScoreWeights(tool_precision=1, tool_recall=0, param_accuracy=0, output=0)
    )

    result = score_case(case, _run(ToolCall("get_weather", {"city": "Hanoi"})), weights)

    assert result.score == 1.0
    assert not result.passed
    assert _kinds(result) == [IssueKind.MISSING_TOOL]
    assert result.issues[0].tool == "get_forecast"
    assert result.param_accuracy == 0.5  # the missing call's parameters score 0


def test_parameter_rules_missing_wrong_forbidden_and_validators() -> None:
    case = _case(
        expected_tool_calls=[
            ToolCallExpectation(
                tool_name="get_forecast",
                required_params={"city": "Hanoi", "days": 5, "lang": None},
                forbidden_params=["units"],
                param_validators={"days": ParamRule(range=[1, 7]), "tz": ParamRule(regex="^Asia/")},
            )
        ]
    )
    call = ToolCall("get_forecast", {"city": "Saigon", "days": 9, "units": "c", "tz": "Asia/Hanoi"})

    result = score_case(case, _run(call))

    assert _kinds(result) == [
        IssueKind.WRONG_VALUE,  # city: 0.5
        IssueKind.WRONG_VALUE,  # days: 0.5 ...
        IssueKind.INVALID_PARAM,  # ... then 0 for the failed range
        IssueKind.MISSING_PARAM,  # lang: 0
        IssueKind.FORBIDDEN_PARAM,  # units: 0
    ]
    # city 0.5, days 0, lang 0, units 0, tz 1 (validator passed)
    assert result.param_accuracy == pytest.approx(1.5 / 5)
    forbidden = result.issues[-1]
    assert (forbidden.tool, forbidden.param, forbidden.actual) == ("get_forecast", "units", "c")


def test_a_wrong_value_gets_partial_credit_and_can_still_pass() -> None:
    case = _case(expected_tool_calls=[_weather(city="Ho Chi Minh City", units="celsius")])

    result = score_case(case, _run(ToolCall("get_weather", {"city": "Saigon", "units": "celsius"})))

    assert result.param_accuracy == 0.75
    assert result.score == pytest.approx((0.3 + 0.3 + 0.3 * 0.75) / 0.9)
    assert result.passed
    assert _kinds(result) == [IssueKind.WRONG_VALUE]


def test_validators_only_apply_to_present_parameters() -> None:
    case = _case(
        expected_tool_calls=[
            ToolCallExpectation(
                tool_name="get_weather",
                required_params={"city": "Hanoi"},
                param_validators={"units": lambda value: value in ("celsius", "fahrenheit")},
            )
        ]
    )

    absent = score_case(case, _run(ToolCall("get_weather", {"city": "Hanoi"})))
    wrong = score_case(case, _run(ToolCall("get_weather", {"city": "Hanoi", "units": "kelvin"})))

    assert absent.param_accuracy == 1.0
    assert wrong.param_accuracy == 0.5
    assert wrong.issues[0].kind is IssueKind.INVALID_PARAM
    assert "returned False" in wrong.issues[0].message


def test_a_raising_validator_fails_its_check_with_the_error() -> None:
    def strict(value: Any) -> bool:
        raise RuntimeError("boom")

    case = _case(
        expected_tool_calls=[
            ToolCallExpectation(tool_name="get_weather", param_validators={"city": strict})
        ]
    )

    result = score_case(case, _run(ToolCall("get_weather", {"city": "Hanoi"})))

    assert result.param_accuracy == 0.0
    assert "raised RuntimeError: boom" in result.issues[0].message


def test_normalized_value_comparison() -> None:
    case = _case(expected_tool_calls=[_weather(city="hanoi", days=5)])
    call = ToolCall("get_weather", {"city": " Hanoi ", "days": "5"})

    exact = score_case(case, _run(call))
    normalized = score_case(case, _run(call), ScoringSettings(value_comparison="normalize"))

    assert exact.param_accuracy == 0.5
    assert normalized.param_accuracy == 1.0


def test_must_not_call_passes_without_calls_and_scores_zero_with_them() -> None:
    case = _case(should_not_call_tools=True, expected_output_contains=["climate"])

    clean = score_case(case, _run(response="Climate is long-term."))
    called = score_case(case, _run(ToolCall("get_weather", {"city": "Hanoi"}), response="climate"))

    assert clean.passed
    assert clean.score == 1.0
    assert (clean.tool_precision, clean.tool_recall, clean.param_accuracy) == (1.0, 1.0, None)
    assert not called.passed
    assert called.score == 0.0
    assert called.issues[0].kind is IssueKind.FORBIDDEN_CALL


def test_a_case_without_tool_expectations_is_scored_on_its_answer() -> None:
    # The seed gave such a case 1.0 or 0.5; here the overall score is the keyword score.
    case = _case(expected_output_contains=["weather", "climate"])

    result = score_case(case, _run(ToolCall("search", {}), response="Weather is short-term."))

    assert result.tool_precision is None
    assert result.output_score == 0.5
    assert result.score == 0.5
    assert not result.passed
    assert result.issues[0].kind is IssueKind.MISSING_KEYWORDS
    assert result.issues[0].expected == ["climate"]


def test_budgets_fail_the_case() -> None:
    case = _case(expected_tool_calls=[_weather()], max_tool_calls=1, max_latency_ms=100)
    call = ToolCall("get_weather", {})

    result = score_case(case, _run(call, call, latency_ms=250))

    assert _kinds(result) == [IssueKind.EXTRA_CALL, IssueKind.OVER_BUDGET, IssueKind.LATENCY]
    assert (result.issues[1].expected, result.issues[1].actual) == (1, 2)
    assert (result.issues[2].expected, result.issues[2].actual) == (100, 250)
    assert not result.passed


def test_no_latency_budget() -> None:
    case = _case(max_latency_ms=None)

    assert score_case(case, _run(latency_ms=1e9)).passed


def test_weights_are_configurable() -> None:
    case = _case(expected_tool_calls=[_weather(city="Hanoi")], expected_output_contains=["x"])
    scoring = ScoringSettings(
        weights=ScoreWeights(tool_precision=0, tool_recall=0, param_accuracy=0, output=1),
        pass_threshold=0.5,
    )

    result = score_case(case, _run(ToolCall("get_weather", {"city": "Hanoi"})), scoring)

    assert result.score == 0.0
    assert not result.passed


def test_the_threshold_is_reached_despite_float_rounding() -> None:
    # 0.3 + 0.3 + 0.3 * (2/3) is 0.7999999999999999 in floating point
    case = _case(
        expected_tool_calls=[
            ToolCallExpectation(tool_name="t", required_params={"a": 1, "b": 2, "c": 3}),
        ],
        expected_output_contains=["never"],
    )
    # a and b right, c missing: 2/3; keywords missing: 0
    result = score_case(case, _run(ToolCall("t", {"a": 1, "b": 2})))

    assert result.param_accuracy == pytest.approx(2 / 3)
    assert result.score == pytest.approx(0.8)
    assert result.passed


def test_an_agent_error_is_unscored() -> None:
    case = _case(expected_tool_calls=[_weather()])

    result = score_case(case, AgentRun(error="ValueError: nope", latency_ms=3))

    assert not result.passed
    assert result.score == 0.0
    assert result.tool_precision is result.tool_recall is result.param_accuracy is None
    assert _kinds(result) == [IssueKind.AGENT_ERROR]


def test_weights_must_not_all_be_zero() -> None:
    with pytest.raises(ValueError, match="at least one weight"):
        ScoreWeights(tool_precision=0, tool_recall=0, param_accuracy=0, output=0)
