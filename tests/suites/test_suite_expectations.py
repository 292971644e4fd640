"""A suite's expectations compile to the samples' one vocabulary (ExpectedToolCall,
ArgumentRule, ToolCallAlternatives, CaseExpectations) and are scored by ToolCallAccuracy:
alternatives, optional calls, tolerance and subset rules, recovered failures. F1 = 2PR/(P+R)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from suite_helpers import kinds, score_of, scored

from ragas_boot.errors import SuiteError
from ragas_boot.runs.analysis import sample_findings
from ragas_boot.samples import (
    AIMessage,
    ArgumentRule,
    CaseExpectations,
    ExpectedToolCall,
    ToolCall,
    ToolCallAlternatives,
    ToolMessage,
)
from ragas_boot.suites import AgentTestCase, ExpectationAlternatives, load_suite


def _case(**fields: Any) -> AgentTestCase:
    return AgentTestCase.model_validate({"id": "case", "user_message": "question", **fields})


WEATHER = {"tool_name": "get_weather", "required_params": {"city": "Tokyo"}}
FORECAST = {"tool_name": "get_forecast", "required_params": {"city": "Tokyo", "days": 1}}
EITHER = {"any-of": [[WEATHER], [FORECAST]]}


def test_a_case_compiles_to_the_sample_vocabulary() -> None:
    case = _case(
        description="Paris, any number of days",
        expected_tool_calls=[
            {
                "tool-name": "get_forecast",
                "required-params": {"city": "Paris", "days": None, "lat": 48.85},
                "forbidden-params": ["units"],
                "param-validators": {
                    "days": {"type": "integer", "range": [1, 7]},
                    "lat": {"tolerance": 0.01},
                    "lang": {"one-of": ["en", "fr"]},
                },
            },
            {"tool-name": "get_time", "optional": True},
            {"tool-name": "get_weather", "required-params": {"city": "Paris"}},
        ],
        expected_output_contains=["Paris"],
        max_tool_calls=3,
        max_latency_ms=2000,
    )

    sample = case.sample()

    forecast, time, weather = sample.reference_tool_calls
    assert forecast == ExpectedToolCall(
        "get_forecast",
        {"city": "Paris", "lat": 48.85},
        argument_rules={
            "days": ArgumentRule(type="integer", range=[1, 7]),  # required: not optional
            "lat": ArgumentRule(tolerance=0.01),
            "units": ArgumentRule(forbidden=True),
            "lang": ArgumentRule(one_of=["en", "fr"], optional=True),  # applies when present
        },
    )
    assert time == ExpectedToolCall("get_time", optional=True)
    assert type(weather) is ToolCall  # required values alone stay a plain call
    assert sample.expectations == CaseExpectations(
        response_contains=["Paris"], max_tool_calls=3, max_latency_ms=2000
    )
    assert (sample.id, sample.metadata) == ("case", {"description": "Paris, any number of days"})
    assert sample.user_input_messages[0].content == "question"
    assert sample.agent_run is None and sample.response is None


def test_a_required_parameter_of_any_value_is_the_any_rule() -> None:
    case = _case(expected_tool_calls=[{"tool_name": "t", "required_params": {"q": None}}])
    assert case.sample().reference_tool_calls == [
        ExpectedToolCall("t", argument_rules={"q": "any"})
    ]


def test_what_a_case_says_about_tools() -> None:
    assert _case(should_not_call_tools=True).sample().reference_tool_calls == []
    assert _case().sample().reference_tool_calls is None  # nothing said: not checked
    alternatives = _case(expected_tool_calls=EITHER).sample().reference_tool_calls
    assert alternatives == ToolCallAlternatives(
        any_of=[
            [ToolCall("get_weather", {"city": "Tokyo"})],
            [ToolCall("get_forecast", {"city": "Tokyo", "days": 1})],
        ]
    )


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
    run = scored(case, call)
    assert (run.passed, score_of(run, "tool_call_accuracy"), kinds(run)) == (True, 1.0, [])


def test_no_alternative_met_reports_the_first() -> None:
    case = _case(expected_tool_calls=EITHER)
    run = scored(case, ToolCall("get_time"))
    assert (score_of(run, "tool_call_accuracy"), run.passed) == (0.0, False)
    assert kinds(run) == ["tool_not_called", "wrong_tool"]
    assert sample_findings(run)[0].tool == "get_weather"


def test_an_empty_alternative_accepts_no_call() -> None:
    case = _case(expected_tool_calls={"any_of": [[WEATHER], []]})
    run = scored(case)
    # [] : no call expected, none made → F1 1.0; [weather]: R = 0.
    assert (score_of(run, "tool_call_accuracy"), run.passed) == (1.0, True)


def test_an_optional_expectation_is_never_missing_nor_extra() -> None:
    optional_time = {"tool_name": "get_time", "optional": True, "required_params": {"tz": "UTC"}}
    case = _case(expected_tool_calls=[WEATHER, optional_time])
    weather = ToolCall("get_weather", {"city": "Tokyo"})

    skipped = scored(case, weather)
    assert (skipped.passed, kinds(skipped)) == (True, [])
    made = scored(case, weather, ToolCall("get_time", {"tz": "UTC"}))
    assert (made.passed, score_of(made, "tool_call_accuracy")) == (True, 1.0)
    # Made with a wrong value it meets no expectation: an extra call, P = 1/2, F1 = 0.667.
    wrong = scored(case, weather, ToolCall("get_time", {"tz": "CET"}))
    assert score_of(wrong, "tool_call_accuracy") == pytest.approx(2 / 3)
    assert [finding.message for finding in sample_findings(wrong)] == [
        "Call of get_time meets no expected call: tz: expected 'UTC', got 'CET'"
    ]
    # A second weather call is extra; the optional call is not counted: P = 1/2.
    twice = scored(case, weather, ToolCall("get_time", {"tz": "UTC"}), weather)
    assert kinds(twice) == ["over_calling"]


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
    near = scored(case, ToolCall("geo", {"lat": 35.6812}))
    assert (near.passed, kinds(near)) == (True, [])
    far = scored(case, ToolCall("geo", {"lat": 35.7}))
    assert not far.passed
    assert sample_findings(far)[0].params == {
        "lat": "expected a number within 0.01 of 35.68, got 35.7"
    }


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
    holds = scored(case, ToolCall("find", {"filter": {"sky": "clear", "wind": 3}}))
    assert (holds.passed, kinds(holds)) == (True, [])
    lacks = scored(case, ToolCall("find", {"filter": {"wind": 3}}))
    assert kinds(lacks) == ["parameter_errors"]


def test_tolerance_pairs_the_closest_call() -> None:
    # Two geo calls, two expectations within a tolerance: pairing by the rule matches both.
    rule = {"lat": {"tolerance": 0.5}}
    case = _case(
        expected_tool_calls=[
            {"tool_name": "geo", "required_params": {"lat": 10}, "param_validators": rule},
            {"tool_name": "geo", "required_params": {"lat": 20}, "param_validators": rule},
        ]
    )
    run = scored(case, ToolCall("geo", {"lat": 20.2}), ToolCall("geo", {"lat": 9.9}))
    assert (run.passed, kinds(run)) == (True, [])


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
    # COUNT: the HCMC call is an extra call of the tool: P = 1/2, F1 = 0.667.
    counted = scored(case, *calls, messages=messages, response="31 °C")
    assert score_of(counted, "tool_call_accuracy") == pytest.approx(2 / 3)
    assert kinds(counted) == ["over_calling"]
    assert counted.evaluation("tool_call_accuracy").result.metadata["recovered"] == [0]
    excluded = scored(
        case, *calls, messages=messages, scoring={"failed_calls": "exclude-recovered"}
    )
    assert (excluded.passed, score_of(excluded, "tool_call_accuracy")) == (True, 1.0)
    # A successful first call is no failure: nothing is left out.
    calls, messages = _retry_trace("success")
    kept = scored(case, *calls, messages=messages, scoring={"failed_calls": "exclude_recovered"})
    assert score_of(kept, "tool_call_accuracy") == pytest.approx(2 / 3)


def test_calls_in_order_when_the_scoring_says_so() -> None:
    case = _case(
        expected_tool_calls=[
            {"tool_name": "search", "required_params": {"q": "x"}},
            {"tool_name": "book", "required_params": {"n": 1}},
        ]
    )
    backwards = (ToolCall("book", {"n": 1}), ToolCall("search", {"q": "x"}))
    assert scored(case, *backwards).passed
    ordered = scored(case, *backwards, scoring={"order": "strict"})
    assert not ordered.passed
    assert "wrong_order" in kinds(ordered)


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
            "expected-tool-calls: [{tool-name: geo, required-params: {f: 1}, "
            "param-validators: {f: any}}]",
            "expected-tool-calls[0]",
            "param_validators.f: the any rule takes no value, but required_params.f is 1",
        ),
        (
            "expected-tool-calls: [{tool-name: geo, required-params: {f: null}, "
            "param-validators: {f: forbidden}}]",
            "expected-tool-calls[0]",
            "parameter 'f' is both required and forbidden",
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
        (
            "expected-output-contains: [Hanoi, '  ']",
            "expected-output-contains",
            "a keyword is blank",
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
