"""Scoring a case: ToolCallAccuracy on its expected calls (FLEXIBLE, every named parameter must
pass, F1 >= the pass threshold) and CaseExpectations on its keywords and budgets; a case
passes when both pass. F1 = 2PR / (P + R), worked out in the comments."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from suite_helpers import kinds, score_of, scored

from ragas_boot.runs.analysis import sample_findings
from ragas_boot.samples import ToolCall
from ragas_boot.suites import AgentTestCase, ArgumentRule, ToolCallExpectation, load_suite


def _case(**fields: Any) -> AgentTestCase:
    return AgentTestCase(id=fields.pop("id", "case"), user_message="question", **fields)


def _weather(**required: Any) -> ToolCallExpectation:
    return ToolCallExpectation(tool_name="get_weather", required_params=required)


def _messages(run: Any) -> list[str]:
    return [finding.message for finding in sample_findings(run)]


def test_a_perfect_run_scores_one() -> None:
    case = _case(expected_tool_calls=[_weather(city="Hanoi")], expected_output_contains=["Hanoi"])

    run = scored(case, ToolCall("get_weather", {"city": "Hanoi"}), response="hanoi: 31")

    assert run.passed
    assert (score_of(run, "tool_call_accuracy"), score_of(run, "case_expectations")) == (1.0, 1.0)
    assert kinds(run) == []
    assert run.sample.user_input_messages[0].content == "question"
    assert run.sample.agent_run.latency_ms == 10.0


def test_duplicate_calls_count_as_a_multiset_not_as_all_correct() -> None:
    # The seed counted every call whose name is expected as correct: precision 1.0 here, and
    # a recall of 2.0 with one expectation. A maximum matching pairs one call with it:
    # P = 1/2, R = 1, F1 = 0.667 < 0.8.
    case = _case(expected_tool_calls=[_weather(city="Hanoi")])
    call = ToolCall("get_weather", {"city": "Hanoi"})

    run = scored(case, call, call)

    assert score_of(run, "tool_call_accuracy") == pytest.approx(2 / 3)
    assert not run.passed
    assert kinds(run) == ["over_calling"]
    assert _messages(run) == ["Extra call of get_weather: expected 1 call, got 2"]


def test_calls_pair_with_the_expectation_they_fit_whatever_the_order() -> None:
    case = _case(expected_tool_calls=[_weather(city="Hanoi"), _weather(city="Da Nang")])

    run = scored(
        case,
        ToolCall("get_weather", {"city": "Da Nang"}),
        ToolCall("get_weather", {"city": "Hanoi"}),
    )

    assert run.passed
    assert score_of(run, "tool_call_accuracy") == 1.0


def test_a_missing_tool_fails_the_case() -> None:
    # P = 1, R = 1/2: F1 = 0.667.
    case = _case(
        expected_tool_calls=[_weather(city="Hanoi"), ToolCallExpectation(tool_name="get_forecast")]
    )

    run = scored(case, ToolCall("get_weather", {"city": "Hanoi"}))

    assert score_of(run, "tool_call_accuracy") == pytest.approx(2 / 3)
    assert not run.passed
    assert kinds(run) == ["tool_not_called"]
    assert _messages(run) == ["Missing expected tool call: get_forecast"]


def test_parameter_rules_missing_wrong_forbidden_and_validators() -> None:
    case = _case(
        expected_tool_calls=[
            ToolCallExpectation(
                tool_name="get_forecast",
                required_params={"city": "Hanoi", "days": 5, "lang": None},
                forbidden_params=["units"],
                param_validators={
                    "days": ArgumentRule(range=[1, 7]),
                    "tz": ArgumentRule(regex="^Asia/"),
                },
            )
        ]
    )
    call = ToolCall("get_forecast", {"city": "Saigon", "days": 9, "units": "c", "tz": "Asia/Hanoi"})

    run = scored(case, call)

    # city, days, lang and units fail, tz passes: 1/5 of the parameters, under 1.0: no match.
    assert score_of(run, "tool_call_accuracy") == 0.0
    (finding,) = sample_findings(run)
    assert finding.kind.value == "parameter_errors"
    assert finding.tool == "get_forecast"
    assert finding.params == {
        "city": "expected 'Hanoi', got 'Saigon'",
        "days": "expected 5, got 9",
        "lang": "expected the argument, which is missing",
        "units": "the argument is forbidden",
    }
    assert finding.actual == {"name": "get_forecast", "arguments": call.arguments}


def test_a_wrong_value_fails_the_call_without_partial_credit() -> None:
    # 0.1.x gave a wrong value 0.5 and passed this case at 0.917; a call matches its
    # expectation when every parameter it names is right.
    case = _case(expected_tool_calls=[_weather(city="Ho Chi Minh City", units="celsius")])

    run = scored(case, ToolCall("get_weather", {"city": "Saigon", "units": "celsius"}))

    assert score_of(run, "tool_call_accuracy") == 0.0
    assert not run.passed
    assert _messages(run) == [
        "Wrong arguments in get_weather: city: expected 'Ho Chi Minh City', got 'Saigon'"
    ]


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

    absent = scored(case, ToolCall("get_weather", {"city": "Hanoi"}))
    wrong = scored(case, ToolCall("get_weather", {"city": "Hanoi", "units": "kelvin"}))

    assert absent.passed
    assert not wrong.passed
    (finding,) = sample_findings(wrong)
    assert finding.params["units"].endswith(".<lambda> returned False, got 'kelvin'")


def test_a_raising_validator_fails_its_check_with_the_error() -> None:
    def strict(value: Any) -> bool:
        raise RuntimeError("boom")

    case = _case(
        expected_tool_calls=[
            ToolCallExpectation(tool_name="get_weather", param_validators={"city": strict})
        ]
    )

    run = scored(case, ToolCall("get_weather", {"city": "Hanoi"}))

    assert not run.passed
    assert "strict raised RuntimeError: boom" in sample_findings(run)[0].params["city"]


def test_normalized_value_comparison() -> None:
    case = _case(expected_tool_calls=[_weather(city="hanoi", days=5)])
    call = ToolCall("get_weather", {"city": " Hanoi ", "days": "5"})

    exact = scored(case, call)
    normalized = scored(case, call, scoring={"value_comparison": "normalize"})

    assert score_of(exact, "tool_call_accuracy") == 0.0
    assert score_of(normalized, "tool_call_accuracy") == 1.0


def test_must_not_call_passes_without_calls_and_fails_with_them() -> None:
    case = _case(should_not_call_tools=True, expected_output_contains=["climate"])

    clean = scored(case, response="Climate is long-term.")
    called = scored(case, ToolCall("get_weather", {"city": "Hanoi"}), response="climate")

    assert clean.passed
    assert clean.sample.reference_tool_calls == []
    assert not called.passed
    assert score_of(called, "tool_call_accuracy") == 0.0
    assert score_of(called, "case_expectations") == 1.0
    assert _messages(called) == [
        'Called tools when none should be called: get_weather({"city": "Hanoi"})'
    ]


def test_a_case_without_tool_expectations_is_scored_on_its_answer() -> None:
    # tool_call_accuracy has nothing to score (undefined, neither passing nor failing);
    # case_expectations: 2 keywords and the two default budgets, 'climate' missing: 3/4.
    case = _case(expected_output_contains=["weather", "climate"])

    run = scored(case, ToolCall("search", {}), response="Weather is short-term.")

    tools = run.evaluation("tool_call_accuracy")
    assert (tools.status, tools.score) == ("undefined", None)
    assert "expects nothing of its tool calls" in (tools.result.undefined_reason or "")
    assert score_of(run, "case_expectations") == 0.75
    assert not run.passed
    assert kinds(run) == ["missing_keywords"]
    assert sample_findings(run)[0].expected == ["climate"]
    assert scored(case, response="weather and climate").passed


def test_budgets_fail_the_case() -> None:
    case = _case(expected_tool_calls=[_weather()], max_tool_calls=1, max_latency_ms=100)
    call = ToolCall("get_weather", {})

    run = scored(case, call, call, latency_ms=250)

    assert kinds(run) == ["over_calling", "over_calling", "latency"]
    assert _messages(run)[1:] == [
        "2 tool calls, over the budget of 1",
        "Latency 250 ms, over the budget of 100 ms",
    ]
    assert [(f.expected, f.actual) for f in sample_findings(run)[1:]] == [(1, 2), (100, 250)]
    assert score_of(run, "case_expectations") == 0.0
    assert not run.passed


def test_no_latency_budget() -> None:
    case = _case(max_latency_ms=None)

    assert scored(case, latency_ms=1e9).passed


def test_the_pass_threshold_is_configurable() -> None:
    case = _case(expected_tool_calls=[_weather(city="Hanoi")])
    call = ToolCall("get_weather", {"city": "Hanoi"})

    run = scored(case, call, call, scoring={"pass_threshold": 0.5})

    assert run.passed  # F1 0.667 reaches 0.5
    assert run.evaluation("tool_call_accuracy").result.config["threshold"] == 0.5


def test_an_f1_at_the_threshold_passes() -> None:
    # P = 2/3, R = 1: F1 = 0.8 exactly, the default threshold.
    case = _case(expected_tool_calls=[_weather(city="Hanoi"), _weather(city="Hue")])

    run = scored(
        case,
        ToolCall("get_weather", {"city": "Hanoi"}),
        ToolCall("get_weather", {"city": "Hue"}),
        ToolCall("get_time", {}),
    )

    assert score_of(run, "tool_call_accuracy") == pytest.approx(0.8)
    assert run.passed


def test_an_agent_error_is_its_only_finding() -> None:
    case = _case(expected_tool_calls=[_weather()], expected_output_contains=["x"])

    run = scored(case, error="ValueError: nope", latency_ms=3)

    assert not run.passed
    assert score_of(run, "case_expectations") == 0.0
    assert kinds(run) == ["agent_errors"]
    assert _messages(run) == ["The agent failed: ValueError: nope"]
    assert run.sample.agent_run.stop_reason.value == "error"
    assert run.sample.response is None


def test_weights_no_longer_apply_and_say_so_once(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "suite.yaml"
    path.write_text(
        "name: s\nscoring:\n  weights: {tool-precision: 1, output: 0}\n  pass-threshold: 0.7\n"
        "cases:\n  - {id: c, user-message: hi}\n",
        encoding="utf-8",
    )

    with caplog.at_level(logging.WARNING, logger="ragas_boot.suites"):
        suite = load_suite(path)

    warnings = [r.getMessage() for r in caplog.records if r.name == "ragas_boot.suites"]
    assert len(warnings) == 1
    assert "scoring.weights no longer apply" in warnings[0]
    assert suite.scoring.pass_threshold == 0.7
    assert "weights" not in suite.scoring.model_dump()
