"""Reference alternatives, optional calls, argument rules and failed calls, with scores
computed by hand in each test's comment (P = precision, R = recall, F1 = 2PR / (P + R))."""

from __future__ import annotations

from typing import Any

import pytest

from ragas_boot import AIMessage, HumanMessage, Sample, SampleValidationError, ToolCall
from ragas_boot.datasets import parse_dataset
from ragas_boot.errors import DatasetError
from ragas_boot.metrics import ToolCallAccuracyConfig, ToolCallAccuracyMetric
from ragas_boot.metrics.agent.matching import (
    ABSENT,
    FailedCalls,
    argument_score,
    match_tool_calls,
    rule_failure,
)
from ragas_boot.samples import ArgumentRule, ExpectedToolCall, ToolCallAlternatives, ToolMessage


def S(q: Any = "x") -> ToolCall:
    return ToolCall("search", {"q": q})


def B(n: Any = 1) -> ToolCall:
    return ToolCall("book", {"n": n})


def T() -> ToolCall:
    return ToolCall("now")


def optional(call: ToolCall) -> ExpectedToolCall:
    return ExpectedToolCall(call.name, call.arguments, optional=True)


def ruled(arguments: dict[str, Any], **rules: Any) -> ExpectedToolCall:
    return ExpectedToolCall("geo", arguments, argument_rules=rules)


def f1(actual: list[ToolCall], reference: Any, **options: Any) -> float:
    return round(match_tool_calls(actual, reference, **options).f1, 3)


# --- alternatives ---------------------------------------------------------------------------

WEATHER = ToolCall("get_weather", {"city": "Tokyo"})
FORECAST = ToolCall("get_forecast", {"city": "Tokyo", "days": 1})
EITHER = ToolCallAlternatives(any_of=[[WEATHER], [FORECAST]])


def test_either_alternative_scores_one_and_is_named() -> None:
    by_weather = match_tool_calls([WEATHER], EITHER)
    by_forecast = match_tool_calls([FORECAST], EITHER)
    assert (by_weather.f1, by_weather.alternative, by_weather.alternative_scores) == (
        1.0,
        0,
        [1.0, 0.0],
    )
    assert (by_forecast.f1, by_forecast.alternative, by_forecast.alternative_scores) == (
        1.0,
        1,
        [0.0, 1.0],
    )
    assert by_forecast.reference == [FORECAST]
    assert by_forecast.summary.endswith("| Alternative 2 of 2")


def test_without_alternatives_the_second_path_scores_zero() -> None:
    # The same trace against the first sequence only: P = 0/1, R = 0/1.
    assert f1([FORECAST], [WEATHER]) == 0.0


def test_both_paths_taken_scores_the_best_and_a_tie_goes_to_the_first() -> None:
    # Either alternative: TP 1, P = 1/2, R = 1/1, F1 = 2/3.
    matching = match_tool_calls([FORECAST, WEATHER], EITHER)
    assert (round(matching.f1, 3), matching.alternative) == (0.667, 0)
    assert [item.position for item in matching.extra] == [0]


def test_the_best_of_longer_and_shorter_sequences() -> None:
    # [S, B, B(2)]: P = 1, R = 2/3, F1 = 0.8; [S, B]: F1 = 1.0.
    reference = ToolCallAlternatives(any_of=[[S(), B(), B(2)], [S(), B()]])
    matching = match_tool_calls([S(), B()], reference)
    assert (matching.f1, matching.alternative) == (1.0, 1)
    assert [round(score, 3) for score in matching.alternative_scores] == [0.8, 1.0]


def test_an_empty_alternative_accepts_no_call() -> None:
    reference = ToolCallAlternatives(any_of=[[S()], []])
    assert (f1([], reference), match_tool_calls([], reference).alternative) == (1.0, 1)
    # One call: [S] scores 1.0, [] scores P = 0/1 → 0.
    assert match_tool_calls([S()], reference).alternative_scores == [1.0, 0.0]


def test_alternatives_with_flexible_mode_and_order() -> None:
    # FLEXIBLE 0.5: search(q=x, lang=de) half-matches search(q=x, lang=en) → alternative 0.
    reference = ToolCallAlternatives(any_of=[[ToolCall("search", {"q": "x", "lang": "en"})], [B()]])
    made = [ToolCall("search", {"q": "x", "lang": "de"})]
    assert f1(made, reference, mode="flexible", threshold=0.5) == 1.0
    assert f1(made, reference) == 0.0
    # order STRICT: [B, S] keeps only one pair of [S, B] (P = R = 1/2), but all of [B, S].
    ordered = ToolCallAlternatives(any_of=[[S(), B()], [B(), S()]])
    matching = match_tool_calls([B(), S()], ordered, order="strict")
    assert (matching.alternative_scores, matching.alternative) == ([0.5, 1.0], 1)


def test_the_metric_reports_the_alternative() -> None:
    sample = Sample(
        tool_calls=[FORECAST],
        reference_tool_calls={"any_of": [[WEATHER.model_dump()], [FORECAST.model_dump()]]},
    )
    result = ToolCallAccuracyMetric().evaluate(sample)
    assert result.score == 1.0
    assert result.metadata["alternative"] == 1
    assert result.metadata["alternative_scores"] == [0.0, 1.0]
    assert result.metadata["reference_call_count"] == 1
    assert "Alternative 2 of 2" in result.explanation
    russian = ToolCallAccuracyMetric().evaluate(sample, {"language": "ru"})
    assert "| Вариант 2 из 2." in russian.explanation


# --- optional calls -------------------------------------------------------------------------


def test_an_optional_call_made_is_not_extra() -> None:
    # T matches the optional call: counted calls 2 - 1 = 1, TP 1 → P = R = 1.
    matching = match_tool_calls([S(), T()], [S(), optional(T())])
    assert matching.f1 == 1.0
    assert [(item.actual_index, item.reference_index) for item in matching.optional] == [(1, 1)]
    assert matching.summary == (
        "Accuracy 100.0% | Correct 1/1 | Incorrect 0 | Missed 0 | Extra 0 | Optional 1"
    )


def test_an_optional_call_not_made_is_not_missed() -> None:
    matching = match_tool_calls([S()], [S(), optional(T())])
    assert (matching.f1, matching.missed, matching.recall) == (1.0, [], 1.0)


def test_without_optional_the_lookup_costs_precision() -> None:
    # Plain reference [S]: P = 1/2, R = 1 → 2/3; [S, T] without T made: R = 1/2 → 2/3.
    assert f1([S(), T()], [S()]) == 0.667
    assert f1([S()], [S(), T()]) == 0.667


def test_a_second_optional_lookup_is_extra() -> None:
    # One T matches the optional call, the other is extra: P = 1/2, R = 1 → 2/3.
    matching = match_tool_calls([S(), T(), T()], [S(), optional(T())])
    assert round(matching.f1, 3) == 0.667
    assert len(matching.extra) == 1


def test_a_required_call_outranks_an_optional_one() -> None:
    # One S, an optional S and a required S: the required one takes it (R = 1, not 0).
    for reference in ([optional(S()), S()], [S(), optional(S())]):
        matching = match_tool_calls([S()], reference)
        assert (matching.f1, matching.optional) == (1.0, [])
        for mode in ("strict", "flexible"):
            assert f1([S()], reference, mode=mode, order="strict") == 1.0


def test_required_first_even_with_scores_pulling_the_other_way() -> None:
    # FLEXIBLE 0.5: the call matches the optional reference fully (1.0) and the required one
    # by half (0.5); it must still pair with the required one: TP 1, counted 1 → F1 1.0.
    made = [ToolCall("s", {"a": 1, "b": 2})]
    reference = [optional(ToolCall("s", {"a": 1, "b": 2})), ToolCall("s", {"a": 1, "b": 9})]
    matching = match_tool_calls(made, reference, mode="flexible", threshold=0.5)
    assert (matching.f1, matching.correct[0].reference_index) == (1.0, 1)


def test_only_optional_calls() -> None:
    reference = [optional(T())]
    assert f1([], reference) == 1.0  # nothing required, nothing counted
    assert f1([T()], reference) == 1.0
    # An unexpected call: counted 1, TP 0 → P = 0, R = 1 (nothing required) → 0.
    assert f1([S()], reference) == 0.0


def test_an_optional_call_with_wrong_arguments_is_extra_not_incorrect() -> None:
    matching = match_tool_calls([S(), ToolCall("now", {"tz": "UTC"})], [S(), optional(T())])
    assert (round(matching.f1, 3), matching.incorrect, len(matching.extra)) == (0.667, [], 1)


def test_optional_calls_keep_order_rules() -> None:
    # order STRICT: [T, S] against [S, T?]: S pairs (required first), T cannot follow it,
    # so T is extra: P = 1/2, R = 1 → 2/3.
    assert f1([T(), S()], [S(), optional(T())], order="strict") == 0.667
    assert f1([S(), T()], [S(), optional(T())], order="strict") == 1.0


# --- argument rules -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("rule", "expected", "value", "passes"),
    [
        ("any", None, "Tokyo", True),
        ("any", None, None, True),  # present, even as null
        ({"regex": "^Tok"}, None, "Tokyo", True),
        ({"regex": "^Tok"}, None, "tokyo", False),
        ({"regex": "^Tok"}, None, 5, False),
        ({"regex": "yo$"}, None, "Kyoto, Tokyo", True),
        ({"tolerance": 0.01}, 35.68, 35.69, True),
        ({"tolerance": 0.01}, 35.68, 35.67, True),
        ({"tolerance": 0.01}, 35.68, 35.7, False),
        ({"tolerance": 0.01}, 35.68, "35.68", False),  # EXACT: a string is no number
        ({"tolerance": 0.01}, 35.68, True, False),
        ({"tolerance": 0}, 3, 3.0, True),
        ("subset", {"sky": "clear"}, {"sky": "clear", "wind": 3}, True),
        ("subset", {"w": {"max": 10}}, {"w": {"max": 10, "unit": "kmh"}, "x": 1}, True),
        ("subset", {"w": {"max": 10}}, {"w": {"unit": "kmh"}}, False),
        ("subset", {"sky": "clear"}, {"sky": "Clear"}, False),
        ("subset", {"sky": "clear"}, ["sky"], False),
        ("subset", {"tags": [1, 2]}, {"tags": [2, 1]}, False),  # arrays compare whole
        ("subset", {}, {"anything": 1}, True),
        ({"one_of": ["celsius", "fahrenheit"]}, None, "celsius", True),
        ({"one_of": ["celsius", "fahrenheit"]}, None, "kelvin", False),
        ({"one_of": [1, 2]}, None, 1.0, True),  # JSON equality: 1 == 1.0
        ({"one_of": [1, 2]}, None, True, False),  # ... but true is no number
        ({"type": "integer"}, None, 5, True),
        ({"type": "integer"}, None, 5.0, True),
        ({"type": "integer"}, None, 5.5, False),
        ({"type": "int"}, None, "5", False),  # Python's names too
        ({"type": "boolean"}, None, 0, False),
        ({"type": "null"}, None, None, True),
        ({"type": "object"}, None, {"a": 1}, True),
        ({"range": [1, 7]}, None, 7, True),
        ({"range": [1, 7]}, None, 8, False),
        ({"range": {"min": 1}}, None, 10**6, True),
        ({"range": {"max": 7}}, None, "3", False),  # EXACT: a string is no number
        ({"range": [1, 7]}, None, True, False),
        ({"range": [0, 1]}, None, float("nan"), False),
        ({"type": "integer", "range": [1, 7]}, None, 3, True),  # every check must pass
        ({"type": "integer", "range": [1, 7]}, None, 3.5, False),
        ({"type": "integer", "range": [1, 7]}, None, 9, False),
        ({"one_of": ["Tokyo", "Tokio"], "regex": "^Tok"}, None, "Tokio", True),
        ({"one_of": ["celsius", "fahrenheit"]}, "celsius", "fahrenheit", False),  # and equal
        ({"type": "integer"}, 5, 5, True),
        ({"type": "integer"}, 5, 6, False),
        ({"tolerance": 0.5, "range": [0, 10]}, 9.8, 10.2, False),
        ({"check": str.istitle}, None, "Hanoi", True),
        ({"check": str.istitle}, None, "hanoi", False),
        ({"one_of": ["a"], "optional": True}, None, "a", True),
        ({"one_of": ["a"], "optional": True}, None, "b", False),
        ("forbidden", None, "anything", False),
        ("forbidden", None, None, False),  # present as null is still present
    ],
)
def test_rules_one_by_one(rule: Any, expected: Any, value: Any, passes: bool) -> None:
    arguments = {} if expected is None else {"v": expected}
    reference = ruled(arguments, v=rule)
    assert f1([ToolCall("geo", {"v": value})], [reference]) == (1.0 if passes else 0.0)
    failure = rule_failure(reference.argument_rules["v"], value, arguments.get("v", ABSENT))
    assert (failure is None) == passes


@pytest.mark.parametrize(
    ("rule", "value", "message"),
    [
        ({"type": "integer"}, "5", "expected type integer, got string"),
        ({"type": "string"}, 5.0, "expected type string, got integer"),
        ({"one_of": ["c", "f"]}, "k", "expected one of ['c', 'f']"),
        ({"regex": "^T"}, "Paris", "expected a string matching /^T/"),
        ({"range": [1, 7]}, 9, "expected a number in [1, 7]"),
        ({"range": {"min": 1}}, 0, "expected a number >= 1"),
        ("forbidden", "x", "the argument is forbidden"),
        ({"check": str.istitle}, "hanoi", "check str.istitle returned False"),
    ],
)
def test_a_failed_rule_says_why(rule: Any, value: Any, message: str) -> None:
    assert rule_failure(ArgumentRule.model_validate(rule), value) == message


def test_absent_arguments_and_their_rules() -> None:
    required = ArgumentRule(one_of=["c"])
    assert rule_failure(required, None, present=False) == "expected the argument, which is missing"
    assert rule_failure(ArgumentRule(one_of=["c"], optional=True), None, present=False) is None
    assert rule_failure(ArgumentRule(forbidden=True), None, present=False) is None
    # a forbidden argument absent passes; present it fails the pair
    reference = ruled(
        {"city": "Oslo"}, debug="forbidden", units={"one_of": ["c"], "optional": True}
    )
    assert f1([ToolCall("geo", {"city": "Oslo"})], [reference]) == 1.0
    assert f1([ToolCall("geo", {"city": "Oslo", "units": "c"})], [reference]) == 1.0
    assert f1([ToolCall("geo", {"city": "Oslo", "units": "k"})], [reference]) == 0.0
    forbidden = match_tool_calls([ToolCall("geo", {"city": "Oslo", "debug": 1})], [reference])
    assert forbidden.f1 == 0.0
    assert forbidden.incorrect[0].different_keys == ["debug"]
    assert forbidden.incorrect[0].missing_keys == []  # units is optional, debug forbidden


def test_a_check_that_raises_fails_with_its_error() -> None:
    def strict(value: Any) -> bool:
        raise RuntimeError("boom")

    failure = rule_failure(ArgumentRule(check=strict), "x")
    assert failure is not None
    assert failure.endswith(
        "test_a_check_that_raises_fails_with_its_error.<locals>.strict raised RuntimeError: boom"
    )
    assert f1([ToolCall("geo", {"v": 1})], [ruled({}, v=strict)]) == 0.0


def test_a_python_check_is_named_in_json_and_left_out_of_the_schema() -> None:
    reference = ruled({}, city=str.istitle)
    dumped = Sample(tool_calls=[], reference_tool_calls=[reference]).model_dump(mode="json")
    rule = dumped["reference_tool_calls"][0]["argument_rules"]["city"]
    assert rule["check"] == "check str.istitle"
    assert "check" not in ArgumentRule.model_json_schema()["properties"]
    with pytest.raises(SampleValidationError, match="check is a Python callable"):
        Sample.model_validate(
            {
                "tool_calls": [],
                "reference_tool_calls": [
                    {"name": "geo", "argument_rules": {"city": {"check": "check str.istitle"}}}
                ],
            }
        )


def test_normalize_reaches_into_rules() -> None:
    tolerance = ruled({"lat": 35.68}, lat={"tolerance": 0.01})
    subset = ruled({"f": {"sky": "clear"}}, f="subset")
    assert f1([ToolCall("geo", {"lat": " 35.685 "})], [tolerance], comparison="normalize") == 1.0
    assert f1([ToolCall("geo", {"f": {"sky": " CLEAR"}})], [subset], comparison="normalize") == 1.0


def test_a_rule_argument_must_be_there() -> None:
    reference = ruled({}, city="any")
    assert f1([ToolCall("geo")], [reference]) == 0.0
    matching = match_tool_calls([ToolCall("geo")], [reference])
    assert matching.incorrect[0].missing_keys == ["city"]


def test_strict_mode_with_rules_wants_the_same_argument_names() -> None:
    # city: any, units exactly "c"; an extra argument fails STRICT but not FLEXIBLE.
    reference = ruled({"units": "c"}, city="any")
    exact_names = ToolCall("geo", {"city": "Oslo", "units": "c"})
    extra_name = ToolCall("geo", {"city": "Oslo", "units": "c", "zoom": 3})
    assert f1([exact_names], [reference]) == 1.0
    assert f1([extra_name], [reference]) == 0.0
    assert f1([extra_name], [reference], mode="flexible") == 1.0


def test_flexible_counts_a_rule_as_one_expected_argument() -> None:
    # city must match ^T (fails), units equal (passes): argument score 1/2.
    reference = ruled({"units": "c"}, city={"regex": "^T"})
    made = [ToolCall("geo", {"city": "Paris", "units": "c"})]
    assert argument_score(
        made[0].arguments, reference.arguments, mode="flexible", rules=reference.argument_rules
    ) == pytest.approx(0.5)
    assert f1(made, [reference], mode="flexible") == 0.0  # threshold 0.8
    assert f1(made, [reference], mode="flexible", threshold=0.5) == 1.0
    matching = match_tool_calls(made, [reference])
    assert matching.incorrect[0].different_keys == ["city"]
    assert matching.incorrect[0].argument_score == pytest.approx(0.5)


def test_rules_and_plain_references_mix_in_one_matching() -> None:
    # Two geo calls; the ruled reference takes any city, the plain one wants Oslo. A greedy
    # pairing of the first call (Oslo) with the ruled reference would lose the second pair.
    references = [ruled({}, city="any"), ToolCall("geo", {"city": "Oslo"})]
    made = [ToolCall("geo", {"city": "Oslo"}), ToolCall("geo", {"city": "Rome"})]
    assert f1(made, references) == 1.0
    assert f1(made[::-1], references[::-1]) == 1.0


def test_the_metric_reads_rules_from_a_sample_dict() -> None:
    sample = Sample.model_validate(
        {
            "tool_calls": [{"name": "geo", "arguments": {"lat": 35.681, "city": "Tokyo"}}],
            "reference_tool_calls": [
                {
                    "name": "geo",
                    "arguments": {"lat": 35.68},
                    "argument_rules": {"lat": {"tolerance": 0.01}, "city": {"regex": "^To"}},
                }
            ],
        }
    )
    assert ToolCallAccuracyMetric().evaluate(sample).score == 1.0


# --- rule and reference validation ----------------------------------------------------------


@pytest.mark.parametrize(
    ("reference", "field", "message"),
    [
        (
            [{"name": "g", "argument_rules": {"x": {"regex": "("}}}],
            "reference_tool_calls[0].argument_rules.x.regex",
            "not a valid regular expression",
        ),
        (
            [{"name": "g", "argument_rules": {"x": "anything"}}],
            "reference_tool_calls[0].argument_rules.x",
            "unknown rule 'anything'",
        ),
        (
            [{"name": "g", "argument_rules": {"x": {"tolerance": 0.1, "any": True}}}],
            "reference_tool_calls[0].argument_rules.x",
            "any stands alone, but the rule also says tolerance",
        ),
        (
            [{"name": "g", "argument_rules": {"x": {}}}],
            "reference_tool_calls[0].argument_rules.x",
            "a rule needs a check",
        ),
        (
            [{"name": "g", "argument_rules": {"x": {"tolerance": -1}}}],
            "reference_tool_calls[0].argument_rules.x.tolerance",
            "greater than or equal to 0",
        ),
        (
            [{"name": "g", "arguments": {"x": "1"}, "argument_rules": {"x": {"tolerance": 1}}}],
            "reference_tool_calls[0].argument_rules.x",
            "needs the expected number in arguments.x, got '1'",
        ),
        (
            [{"name": "g", "argument_rules": {"x": "subset"}}],
            "reference_tool_calls[0].argument_rules.x",
            "needs the expected object in arguments.x, got nothing",
        ),
        (
            [{"name": "g", "arguments": {"x": 1}, "argument_rules": {"x": "any"}}],
            "reference_tool_calls[0].argument_rules.x",
            "takes no value in arguments",
        ),
        (
            [{"name": "g", "arguments": {"x": 1}, "argument_rules": {"x": "forbidden"}}],
            "reference_tool_calls[0].argument_rules.x",
            "the forbidden rule takes no value in arguments",
        ),
        (
            [{"name": "g", "argument_rules": {"x": {"forbidden": True, "optional": True}}}],
            "reference_tool_calls[0].argument_rules.x",
            "forbidden stands alone, but the rule also says optional",
        ),
        (
            [
                {
                    "name": "g",
                    "arguments": {"x": 1},
                    "argument_rules": {"x": {"tolerance": 1, "subset": True}},
                }
            ],
            "reference_tool_calls[0].argument_rules.x",
            "tolerance compares numbers and subset objects",
        ),
        (
            [{"name": "g", "argument_rules": {"x": {"range": [7, 1]}}}],
            "reference_tool_calls[0].argument_rules.x.range",
            "range min 7 is above max 1",
        ),
        (
            [{"name": "g", "argument_rules": {"x": {"one_of": []}}}],
            "reference_tool_calls[0].argument_rules.x.one_of",
            "at least 1 item",
        ),
        (
            [{"name": "g", "argument_rules": {"x": {"type": "decimal"}}}],
            "reference_tool_calls[0].argument_rules.x.type",
            "'string', 'integer'",
        ),
        (
            [{"name": "g", "optional": "sometimes"}],
            "reference_tool_calls[0].optional",
            "valid boolean",
        ),
        (
            [{"name": "g", "optinal": True}],
            "reference_tool_calls[0].optinal",
            "did you mean 'optional'?",
        ),
        (
            {"any_of": [[{"name": "a"}], [{"name": "b", "argument_rules": {"ü": {"regex": "["}}}]]},
            "reference_tool_calls.any_of[1][0].argument_rules.ü.regex",
            "not a valid regular expression",
        ),
        ({"any_of": []}, "reference_tool_calls.any_of", "at least 1 item"),
        ({"anyof": [[]]}, "reference_tool_calls.any_of", "required but missing"),
        ({"any_of": [{"name": "a"}]}, "reference_tool_calls.any_of[0]", "valid list"),
        ("search", "reference_tool_calls", "valid list"),
    ],
)
def test_bad_references_name_the_path(reference: Any, field: str, message: str) -> None:
    with pytest.raises(SampleValidationError) as caught:
        Sample.model_validate({"tool_calls": [], "reference_tool_calls": reference})
    assert caught.value.field == field
    assert message in str(caught.value)


def test_reference_shapes_round_trip_through_json() -> None:
    sample = Sample(
        tool_calls=[S()],
        reference_tool_calls=ToolCallAlternatives(
            any_of=[
                [S(), ExpectedToolCall("now", optional=True)],
                [ruled({"lat": 1.5, "f": {"a": [1]}}, lat={"tolerance": 0.5}, f="subset")],
                [],
            ]
        ),
    )
    again = Sample.model_validate_json(sample.model_dump_json())
    assert again == sample
    assert isinstance(again.reference_tool_calls, ToolCallAlternatives)
    assert type(again.reference_tool_calls.any_of[0][0]) is ToolCall  # plain stays plain
    assert again.reference_alternatives() == [
        list(calls) for calls in sample.reference_tool_calls.any_of
    ]


def test_short_rule_words_any_case() -> None:
    assert ArgumentRule.model_validate(" ANY ").any
    assert ArgumentRule.model_validate("Subset").subset
    assert ArgumentRule(regex="^a").describe() == "matches /^a/"
    assert ArgumentRule(tolerance=0.5).describe() == "within 0.5"


# --- failed calls and recovery --------------------------------------------------------------


def weather(city: str, call_id: str | None) -> ToolCall:
    return ToolCall("get_weather", {"city": city}, id=call_id)


def retried_sample(*, ids: bool = True, **fields: Any) -> Sample:
    first, second = ("c1", "c2") if ids else (None, None)
    return Sample(
        user_input_messages=[
            HumanMessage("Weather in HCMC?"),
            AIMessage("", [weather("HCMC", first)]),
            ToolMessage("unknown city 'HCMC'", tool_call_id=first, status="error"),
            AIMessage("", [weather("Ho Chi Minh City", second)]),
            ToolMessage('{"temp": 31}', tool_call_id=second),
            AIMessage("31 °C"),
        ],
        reference_tool_calls=[ToolCall("get_weather", {"city": "Ho Chi Minh City"})],
        **fields,
    )


@pytest.mark.parametrize("ids", [True, False])
def test_a_recovered_failure_is_reported_and_excluded_by_the_option(ids: bool) -> None:
    metric = ToolCallAccuracyMetric()
    sample = retried_sample(ids=ids)
    counted = metric.evaluate(sample)
    # COUNT: two calls made, one correct → P = 1/2, R = 1 → 2/3.
    assert round(counted.score, 3) == 0.667
    assert (counted.metadata["failed"], counted.metadata["recovered"]) == ([0], [0])
    assert (counted.metadata["unrecovered"], counted.metadata["excluded"]) == ([], [])
    assert counted.metadata["failed_calls"] == "COUNT"
    excluded = metric.evaluate(sample, ToolCallAccuracyConfig(failed_calls="exclude_recovered"))
    # EXCLUDE_RECOVERED: the failed call is left out → P = 1/1, R = 1 → 1.0.
    assert excluded.score == 1.0
    assert excluded.metadata["excluded"] == [0]
    assert excluded.metadata["correct"][0]["actual_index"] == 1  # index in the whole trace
    assert excluded.metadata["false_positives"] == 0
    assert "Failed 1 (recovered 1, excluded 1)" in excluded.explanation
    russian = metric.evaluate(sample, {"failed_calls": "exclude_recovered", "language": "ru"})
    assert "Ошибки 1 (исправлено 1, исключено 1)" in russian.explanation


def test_an_unrecovered_failure_is_never_excluded() -> None:
    sample = Sample(
        user_input_messages=[
            HumanMessage("Weather?"),
            AIMessage("", [weather("Atlantis", "c1"), ToolCall("now", id="c2")]),
            ToolMessage("no such city", tool_call_id="c1", status="ERROR"),
            ToolMessage("12:00", tool_call_id="c2"),  # a success of another tool
        ],
        reference_tool_calls=[ToolCall("now")],
    )
    config = {"failed_calls": "EXCLUDE_RECOVERED"}
    result = ToolCallAccuracyMetric().evaluate(sample, config)
    # Nothing excluded: P = 1/2, R = 1 → 2/3.
    assert round(result.score, 3) == 0.667
    assert (result.metadata["failed"], result.metadata["unrecovered"]) == ([0], [0])
    assert result.metadata["excluded"] == []


def test_failures_before_a_success_are_recovered_and_after_it_not() -> None:
    made = [weather("A", None), weather("B", None), weather("C", None)]
    matching = match_tool_calls(
        made,
        [weather("C", None)],
        succeeded=[False, False, True],
        failed_calls=FailedCalls.EXCLUDE_RECOVERED,
    )
    # Both failures precede the success of C: both recovered and excluded → P = R = 1.
    assert (matching.recovered, matching.excluded, matching.f1) == ([0, 1], [0, 1], 1.0)
    later_failure = match_tool_calls(
        made, [weather("C", None)], succeeded=[True, None, False], failed_calls="exclude_recovered"
    )
    # The failure comes last, nothing after it: unrecovered and counted; C still matches:
    # P = 1/3, R = 1 → F1 = 0.5.
    assert (later_failure.unrecovered, later_failure.excluded, later_failure.f1) == ([2], [], 0.5)


def test_results_are_linked_by_id_when_tool_calls_are_given() -> None:
    sample = retried_sample(tool_calls=[weather("Ho Chi Minh City", "c2"), weather("HCMC", "c1")])
    results = sample.actual_tool_call_results()
    assert [result.status if result else None for result in results] == ["success", "error"]
    # The failure comes after the success here: not recovered.
    result = ToolCallAccuracyMetric().evaluate(sample, {"failed_calls": "exclude_recovered"})
    assert (result.metadata["failed"], result.metadata["unrecovered"]) == ([1], [1])


def test_calls_without_a_result_are_neither_failed_nor_successes() -> None:
    sample = Sample(
        user_input_messages=[
            HumanMessage("hi"),
            AIMessage("", [weather("A", None), weather("B", None)]),
            ToolMessage("boom", status="error"),
            HumanMessage("and?"),
        ],
        reference_tool_calls=[weather("B", None)],
    )
    assert [r.status if r else None for r in sample.actual_tool_call_results()] == ["error", None]
    result = ToolCallAccuracyMetric().evaluate(sample, {"failed_calls": "exclude_recovered"})
    assert result.metadata["unrecovered"] == [0]  # B has no result: it did not "succeed"


def test_succeeded_must_cover_every_call() -> None:
    with pytest.raises(ValueError, match="succeeded has 1 entries for 2 actual calls"):
        match_tool_calls([S(), S()], [S()], succeeded=[True])


def test_tool_message_status_values() -> None:
    assert ToolMessage("x").status == "success"
    assert ToolMessage("x", status=" Error ").failed
    with pytest.raises(SampleValidationError) as caught:
        ToolMessage("x", status="crashed")
    assert caught.value.field == "status"


def test_a_dataset_file_error_points_at_the_rule_line() -> None:
    text = """\
samples:
  - id: umbrella
    tool_calls: [{name: geo, arguments: {lat: 35.6}}]
    reference_tool_calls:
      any_of:
        - - {name: get_weather}
        - - name: geo
            argument_rules:
              lat: {tolerance: 0.01}
"""
    with pytest.raises(DatasetError) as caught:
        parse_dataset(text, source="umbrella.yaml")
    error = caught.value
    assert error.field == "reference_tool_calls.any_of[1][0].argument_rules.lat"
    assert error.line == 9
    assert "needs the expected number in arguments.lat, got nothing" in str(error)
    fixed = parse_dataset(
        text.replace("name: geo\n", "name: geo\n            arguments: {lat: 35.605}\n")
    )
    assert ToolCallAccuracyMetric().evaluate(fixed.samples[0]).score == 1.0
