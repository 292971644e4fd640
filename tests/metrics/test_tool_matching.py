"""Tool-call matching of ToolCallAccuracy: seeds, Java examples, anchor matrix, properties."""

from __future__ import annotations

import itertools
import json
import math
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from ragas_boot.metrics.agent.matching import (
    DEFAULT_ARGUMENT_MATCH_THRESHOLD,
    CallOrder,
    ToolCallMatching,
    ToolCallMode,
    ValueComparison,
    argument_score,
    match_tool_calls,
)
from ragas_boot.samples import ToolCall

STRICT, FLEXIBLE = ToolCallMode.STRICT, ToolCallMode.FLEXIBLE


def S(q: Any = "x") -> ToolCall:
    return ToolCall("search", {"q": q})


def B(n: Any = 1) -> ToolCall:
    return ToolCall("book", {"n": n})


def scores(matching: ToolCallMatching) -> tuple[float, float, float]:
    return matching.precision, matching.recall, matching.f1


# --- enums and arguments --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("enum", "spellings", "member"),
    [
        (ToolCallMode, ["STRICT", "strict", " Strict "], ToolCallMode.STRICT),
        (ToolCallMode, ["FLEXIBLE", "flexible"], ToolCallMode.FLEXIBLE),
        (CallOrder, ["ANY", "any"], CallOrder.ANY),
        (CallOrder, ["STRICT", "strict"], CallOrder.STRICT),
        (ValueComparison, ["EXACT", "exact"], ValueComparison.EXACT),
        (ValueComparison, ["NORMALIZE", "Normalize"], ValueComparison.NORMALIZE),
    ],
)
def test_enums_accept_any_case(enum: Any, spellings: list[str], member: Any) -> None:
    for spelling in spellings:
        assert enum(spelling) is member
    assert member == member.value  # str enums: YAML and JSON see plain strings


def test_enums_validate_from_config_models_in_any_case() -> None:
    class Config(BaseModel):
        mode: ToolCallMode = ToolCallMode.STRICT

    assert Config.model_validate({"mode": "FLEXIBLE"}).mode is ToolCallMode.FLEXIBLE
    with pytest.raises(ValueError, match="mode"):
        Config.model_validate({"mode": "fuzzy"})


def test_unknown_enum_value_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="fuzzy"):
        ToolCallMode("fuzzy")


@pytest.mark.parametrize(
    ("actual", "reference", "strict", "flexible"),
    [
        ({}, {}, 1.0, 1.0),
        (None, None, 1.0, 1.0),
        ({"a": 1}, {}, 0.0, 0.5),  # the Java rule for unexpected arguments
        ({}, {"a": 1}, 0.0, 0.0),
        ({"a": 1, "b": 2}, {"a": 1}, 0.0, 1.0),  # STRICT needs the same names
        ({"a": 1}, {"a": 1, "b": 2}, 0.0, 0.5),
        ({"b": 2, "a": 1}, {"a": 1, "b": 2}, 1.0, 1.0),  # order of names is irrelevant
        ({"a": 1.0}, {"a": 1}, 1.0, 1.0),  # JSON has one number type
        ({"a": True}, {"a": 1}, 0.0, 0.0),  # a boolean is never a number
        ({"a": False}, {"a": 0}, 0.0, 0.0),
        ({"a": [True]}, {"a": [1]}, 0.0, 0.0),
        ({"a": "1"}, {"a": 1}, 0.0, 0.0),
        ({"a": None}, {"a": None}, 1.0, 1.0),  # null equals null (Java: never in FLEXIBLE)
        ({}, {"a": None}, 0.0, 0.0),  # ... but a missing argument is a miss
        ({"a": [1, 2]}, {"a": [2, 1]}, 0.0, 0.0),  # arrays are ordered
        (
            {"a": {"x": 1, "y": [1, {"z": None}]}},
            {"a": {"y": [1, {"z": None}], "x": 1.0}},
            1.0,
            1.0,
        ),
        ({"a": {"x": 1}}, {"a": {"x": 1, "y": 2}}, 0.0, 0.0),
        ({"город": "Токио", "☔": "да"}, {"город": "Токио", "☔": "да"}, 1.0, 1.0),
        ({"город": "токио"}, {"город": "Токио"}, 0.0, 0.0),
    ],
)
def test_argument_score_exact(
    actual: dict[str, Any] | None,
    reference: dict[str, Any] | None,
    strict: float,
    flexible: float,
) -> None:
    assert argument_score(actual, reference, mode=STRICT, comparison="exact") == strict
    assert argument_score(actual, reference, mode=FLEXIBLE, comparison="exact") == flexible


@pytest.mark.parametrize(
    ("actual", "reference", "equal"),
    [
        ("1", 1, True),
        (" 2.50 ", 2.5, True),
        ("1e3", 1000, True),
        ("-0.5", -0.5, True),
        ("01", 1, True),
        ("Paris ", "paris", True),
        ("  ТОКИО", "токио", True),
        ("Straße", "STRASSE", True),  # case-folding, not just lower()
        ({"a": [" X ", {"b": "2"}]}, {"a": ["x", {"b": 2}]}, True),
        (["1", "2"], [2, 1], False),
        ("true", True, False),  # booleans stay booleans
        (True, 1, False),
        ("nan", "NaN", True),  # compared as words, not as numbers
        ("nan", float("nan"), False),
        ("1_000", 1000, False),
        ("0x10", 16, False),
        ("", None, False),
        ("1" * 5000, 5, False),
    ],
)
def test_argument_score_normalize(actual: Any, reference: Any, equal: bool) -> None:
    for mode in (STRICT, FLEXIBLE):
        score = argument_score({"v": actual}, {"v": reference}, mode=mode, comparison="NORMALIZE")
        assert score == (1.0 if equal else 0.0)


def test_exact_is_the_default_comparison() -> None:
    assert argument_score({"v": "1"}, {"v": 1}) == 0.0
    assert argument_score({"v": "1"}, {"v": 1}, comparison=ValueComparison.NORMALIZE) == 1.0


# --- thresholds -----------------------------------------------------------------------------


@pytest.mark.parametrize("threshold", [-0.1, 1.01, math.nan, math.inf, "0.5", True, None])
def test_threshold_outside_zero_one_is_refused(threshold: Any) -> None:
    with pytest.raises(ValueError, match=r"threshold must be a number from 0\.0 to 1\.0"):
        match_tool_calls([S()], [S()], mode=FLEXIBLE, threshold=threshold)


@pytest.mark.parametrize("threshold", [0, 0.0, 1, 1.0])
def test_threshold_bounds_are_allowed(threshold: float) -> None:
    assert match_tool_calls([S()], [S()], mode=FLEXIBLE, threshold=threshold).f1 == 1.0


def test_default_threshold_is_the_java_one() -> None:
    assert DEFAULT_ARGUMENT_MATCH_THRESHOLD == 0.8
    almost = ToolCall("f", {"a": 1, "b": 2, "c": 3, "d": 4, "e": 0})  # 4 of 5 = 0.8
    assert (
        match_tool_calls(
            [almost], [ToolCall("f", {**almost.arguments, "e": 5})], mode="flexible"
        ).f1
        == 1.0
    )


# --- the seeds ------------------------------------------------------------------------------


def test_seed_java_perfect_tool_usage_strict() -> None:
    calls = [
        ToolCall("search_flights", {"destination": "Париж", "date": "2024-01-15"}),
        ToolCall("book_flight", {"flight_id": "AF123", "passenger": "Иван Иванов"}),
    ]
    matching = match_tool_calls(calls, [c.model_copy() for c in calls], mode="STRICT")
    assert matching.f1 >= 0.99
    assert scores(matching) == (1.0, 1.0, 1.0)


def test_seed_ru_tool_call_accuracy_example() -> None:
    actual = [
        ToolCall("поиск_рейсов", {"откуда": "Москва", "куда": "Петербург", "дата": "2024-01-15"}),
        ToolCall("бронирование_рейса", {"номер_рейса": "СВ123", "пассажиров": 1}),
    ]
    reference = [
        ToolCall("поиск_рейсов", {"откуда": "Москва", "куда": "Петербург", "дата": "2024-01-15"}),
        ToolCall("бронирование_рейса", {"номер_рейса": "СВ123", "пассажиров": 1}),
    ]
    assert scores(match_tool_calls(actual, reference)) == (1.0, 1.0, 1.0)


def test_seed_java_flexible_mode_partial_match() -> None:
    actual = [ToolCall("get_weather", {"city": "Токио", "units": "celsius"})]
    reference = [ToolCall("get_weather", {"city": "Токио", "units": "fahrenheit"})]
    matching = match_tool_calls(actual, reference, mode="FLEXIBLE", threshold=0.5)
    assert matching.f1 >= 0.5
    assert matching.f1 == 1.0
    assert matching.pairs == [(0, 0, 0.5)]
    assert match_tool_calls(actual, reference, mode="STRICT").f1 == 0.0


def test_seed_npm_example_scores_by_its_own_formula() -> None:
    # The README prints 0.667, but its formula gives P = 1/3, R = 1/2, F1 = 0.4.
    expected = [
        ToolCall("searchWeb", {"query": "AI news"}),
        ToolCall("summarize", {"text": "long article..."}),
    ]
    actual = [
        ToolCall("searchWeb", {"query": "AI news"}),
        ToolCall("summarize", {"text": "different text"}),
        ToolCall("translateText", {"text": "hello", "to": "es"}),
    ]
    matching = match_tool_calls(actual, expected)
    assert matching.precision == pytest.approx(1 / 3)
    assert matching.recall == pytest.approx(1 / 2)
    assert matching.f1 == pytest.approx(0.4)
    assert [(c.actual.name, c.reference.name) for c in matching.correct] == [
        ("searchWeb", "searchWeb")
    ]
    (incorrect,) = matching.incorrect
    assert (incorrect.actual.name, incorrect.reference.name) == ("summarize", "summarize")
    assert incorrect.different_keys == ["text"]
    assert (incorrect.missing_keys, incorrect.extra_keys) == ([], [])
    assert incorrect.details == "arguments differ; different: text"
    assert matching.missed == []
    assert [(e.position, e.call.name) for e in matching.extra] == [(2, "translateText")]
    assert matching.summary == "Accuracy 40.0% | Correct 1/2 | Incorrect 1 | Missed 0 | Extra 1"


def test_matching_as_json_ready_data() -> None:
    actual = [ToolCall("searchWeb", {"query": "AI"}), ToolCall("summarize", {"text": "b"})]
    reference = [ToolCall("searchWeb", {"query": "AI"}), ToolCall("summarize", {"text": "a"})]
    data = json.loads(json.dumps(match_tool_calls(actual, reference).as_dict()))
    assert data["f1"] == 0.5
    assert data["mode"] == "STRICT"
    assert data["correct"][0]["actual"] == {
        "name": "searchWeb",
        "arguments": {"query": "AI"},
        "id": None,
    }
    assert data["incorrect"][0]["different_keys"] == ["text"]
    assert data["incorrect"][0]["details"] == "arguments differ; different: text"
    assert (data["missed"], data["extra"]) == ([], [])


def test_seed_npm_research_agent_forgot_summarize() -> None:
    expected = [
        ToolCall("searchWeb", {"query": "latest AI research 2024"}),
        ToolCall("fetchUrl", {"url": "https://arxiv.org/..."}),
        ToolCall("summarize", {"maxLength": 500}),
    ]
    matching = match_tool_calls(expected[:2], expected)
    assert matching.f1 == pytest.approx(0.8)
    assert [m.call.name for m in matching.missed] == ["summarize"]
    assert matching.summary == "Accuracy 80.0% | Correct 2/3 | Incorrect 0 | Missed 1 | Extra 0"


# --- the Java worked examples (java-anchor §5.2) ---------------------------------------------

W = ToolCall("get_weather", {"city": "Paris"})
T = ToolCall("get_time", {"zone": "CET"})
F = ToolCall("search_flights", {"to": "Rome"})
H = ToolCall("book_hotel", {"city": "Rome"})

JAVA_EXAMPLES = [
    ("identical 2 calls", [W, T], [W, T], {}, 1.0),
    ("different tools", [W], [T], {}, 0.0),
    ("2 actual / 2 ref, one shared", [W, F], [W, T], {}, 0.5),
    ("reversed order", [T, W], [W, T], {}, 1.0),
    ("3 actual / 1 ref", [W, T, F], [W], {}, 0.5),
    ("1 actual / 3 ref", [W], [W, T, F], {}, 0.5),
    ("duplicates x2 vs x2", [W, W], [W, W], {}, 1.0),
    (
        "FLEXIBLE limit 10 vs 20 at 0.5",
        [ToolCall("search", {"query": "weather", "limit": 10})],
        [ToolCall("search", {"query": "weather", "limit": 20})],
        {"mode": FLEXIBLE, "threshold": 0.5},
        1.0,
    ),
    (
        "three args all wrong at 0.9",
        [ToolCall("f", {"a": 1, "b": 2, "c": 3})],
        [ToolCall("f", {"a": 9, "b": 8, "c": 7})],
        {"mode": FLEXIBLE, "threshold": 0.9},
        0.0,
    ),
    ("empty args both sides STRICT", [ToolCall("f", {})], [ToolCall("f")], {}, 1.0),
    ("null args both sides STRICT", [ToolCall("f", None)], [ToolCall("f", None)], {}, 1.0),
    (
        "null args both sides FLEXIBLE",
        [ToolCall("f", None)],
        [ToolCall("f", {})],
        {"mode": FLEXIBLE},
        1.0,
    ),
    (
        "3 of 4 reference args at 0.5",
        [ToolCall("f", {"a": 1, "b": 2, "c": 3, "d": 0})],
        [ToolCall("f", {"a": 1, "b": 2, "c": 3, "d": 4})],
        {"mode": FLEXIBLE, "threshold": 0.5},
        1.0,
    ),
    (
        "1 of 4 reference args at 0.8",
        [ToolCall("f", {"a": 1, "b": 0, "c": 0, "d": 0})],
        [ToolCall("f", {"a": 1, "b": 2, "c": 3, "d": 4})],
        {"mode": FLEXIBLE, "threshold": 0.8},
        0.0,
    ),
    (
        "two calls each 2/3 at 0.5",
        [ToolCall("f", {"a": 1, "b": 2, "c": 0}), ToolCall("g", {"x": 1, "y": 2, "z": 0})],
        [ToolCall("f", {"a": 1, "b": 2, "c": 3}), ToolCall("g", {"x": 1, "y": 2, "z": 3})],
        {"mode": FLEXIBLE, "threshold": 0.5},
        1.0,
    ),
    ("4 actual / 1 ref", [W, T, F, H], [W], {}, 0.4),
    ("no tool calls but a reference", [], [W], {}, 0.0),
    ("partial: 3 actual (one extra) vs 2 ref", [F, H, W], [F, H], {}, 0.8),
    (
        "same tool, different args, STRICT",
        [W],
        [ToolCall("get_weather", {"city": "Lyon"})],
        {},
        0.0,
    ),
]


@pytest.mark.parametrize(
    ("actual", "reference", "options", "f1"),
    [example[1:] for example in JAVA_EXAMPLES],
    ids=[example[0] for example in JAVA_EXAMPLES],
)
def test_java_worked_examples(
    actual: list[ToolCall], reference: list[ToolCall], options: dict[str, Any], f1: float
) -> None:
    assert match_tool_calls(actual, reference, **options).f1 == pytest.approx(f1)


# --- the python-anchors §0 matrix -------------------------------------------------------------


def test_matrix_retry_is_one_extra_call() -> None:
    for mode in (STRICT, FLEXIBLE):
        matching = match_tool_calls([S(), S(), B()], [S(), B()], mode=mode)
        assert scores(matching) == pytest.approx((2 / 3, 1.0, 0.8))
        assert [e.position for e in matching.extra] == [1]


def test_matrix_two_identical_expected_both_made() -> None:
    for mode in (STRICT, FLEXIBLE):
        assert match_tool_calls([S(), S()], [S(), S()], mode=mode).f1 == 1.0


def test_matrix_two_identical_expected_only_one_made() -> None:
    for mode in (STRICT, FLEXIBLE):
        matching = match_tool_calls([S()], [S(), S()], mode=mode)
        assert scores(matching) == pytest.approx((1.0, 0.5, 2 / 3))
        assert [m.position for m in matching.missed] == [1]


def test_matrix_wrong_order() -> None:
    assert match_tool_calls([B(), S()], [S(), B()]).f1 == 1.0
    in_order = match_tool_calls([B(), S()], [S(), B()], order="STRICT")
    assert scores(in_order) == (0.5, 0.5, 0.5)
    # The call left out of the ordered match had the right arguments: it is out of order.
    (late,) = in_order.incorrect
    assert late.details == "arguments match, but the call is out of order"


def test_matrix_one_of_two_args_wrong() -> None:
    actual = [ToolCall("search", {"q": "x", "limit": 10}), B()]
    reference = [ToolCall("search", {"q": "x", "limit": 20}), B()]
    assert scores(match_tool_calls(actual, reference, mode=STRICT)) == (0.5, 0.5, 0.5)
    assert match_tool_calls(actual, reference, mode=FLEXIBLE).f1 == 0.5  # 0.5 < 0.8
    assert match_tool_calls(actual, reference, mode=FLEXIBLE, threshold=0.5).f1 == 1.0


def test_matrix_extra_predicted_argument() -> None:
    actual = [ToolCall("search", {"q": "x", "lang": "en"})]
    reference = [S()]
    strict = match_tool_calls(actual, reference, mode=STRICT)
    assert strict.f1 == 0.0  # STRICT demands the same argument names
    assert strict.incorrect[0].extra_keys == ["lang"]
    assert match_tool_calls(actual, reference, mode=FLEXIBLE).f1 == 1.0


def test_matrix_missing_call() -> None:
    matching = match_tool_calls([S()], [S(), B()])
    assert scores(matching) == pytest.approx((1.0, 0.5, 2 / 3))
    assert [m.call.name for m in matching.missed] == ["book"]


@pytest.mark.parametrize("mode", [STRICT, FLEXIBLE])
@pytest.mark.parametrize("order", [CallOrder.ANY, CallOrder.STRICT])
def test_empty_lists(mode: ToolCallMode, order: CallOrder) -> None:
    # Nothing expected and nothing done is a perfect trace.
    assert scores(match_tool_calls([], [], mode=mode, order=order)) == (1.0, 1.0, 1.0)
    # Calls nobody expected: all wrong (precision 0), but nothing was missed (recall 1).
    assert scores(match_tool_calls([S()], [], mode=mode, order=order)) == (0.0, 1.0, 0.0)
    # Expected calls never made: nothing wrong was called (precision 1), all missed.
    assert scores(match_tool_calls([], [S()], mode=mode, order=order)) == (1.0, 0.0, 0.0)


def test_matrix_string_one_versus_number_one() -> None:
    actual, reference = [ToolCall("get", {"id": "1"})], [ToolCall("get", {"id": 1})]
    assert match_tool_calls(actual, reference).f1 == 0.0
    assert match_tool_calls(actual, reference, comparison="normalize").f1 == 1.0
    assert match_tool_calls(actual, reference, mode=FLEXIBLE, comparison="NORMALIZE").f1 == 1.0


def test_matrix_flexible_pairing_is_by_content_not_position() -> None:
    # ragas pairs after a sort and scores 0; the one true match must be found.
    matching = match_tool_calls([S("b"), S("c")], [S("a"), S("b")], mode=FLEXIBLE)
    assert matching.f1 == 0.5
    assert matching.pairs == [(0, 1, 1.0)]


def test_maximum_matching_beats_greedy_first_fit() -> None:
    # Greedy (the Java alignment) gives actual[0] its best reference r0 (score 1.0), so
    # actual[1], which only fits r0, is left over: TP 1, F1 0.5. The maximum matching pairs
    # actual[0]-r1 and actual[1]-r0 at 0.5 each: TP 2, F1 1.0.
    actual = [ToolCall("s", {"x": 1, "y": 1}), ToolCall("s", {"x": 9, "y": 1})]
    reference = [ToolCall("s", {"x": 1, "y": 1}), ToolCall("s", {"x": 1, "y": 2})]
    matching = match_tool_calls(actual, reference, mode=FLEXIBLE, threshold=0.5)
    assert matching.true_positives == 2
    assert matching.f1 == 1.0
    assert sorted(matching.pairs) == [(0, 1, 0.5), (1, 0, 0.5)]


def test_among_maximum_matchings_the_highest_total_score_wins() -> None:
    actual = [ToolCall("s", {"x": 1, "y": 1}), ToolCall("s", {"x": 1, "y": 2})]
    reference = [ToolCall("s", {"x": 1, "y": 2}), ToolCall("s", {"x": 1, "y": 1})]
    matching = match_tool_calls(actual, reference, mode=FLEXIBLE, threshold=0.5)
    assert matching.pairs == [(0, 1, 1.0), (1, 0, 1.0)]  # not the two 0.5 pairs


def test_reversed_reference_cannot_change_the_score() -> None:
    # deepeval #3338: greedy pairing gave 0.5 or 0.667 depending on the reference order.
    actual = [ToolCall("s", {"a": 1, "b": 2}), ToolCall("s", {"a": 1, "b": 3})]
    reference = [ToolCall("s", {"a": 1, "b": 3}), ToolCall("s", {"a": 5, "b": 2})]
    forward = match_tool_calls(actual, reference, mode=FLEXIBLE, threshold=0.5)
    backward = match_tool_calls(actual, reference[::-1], mode=FLEXIBLE, threshold=0.5)
    assert forward.f1 == backward.f1 == 1.0


def test_tool_names_are_case_sensitive() -> None:
    assert match_tool_calls([ToolCall("Search")], [ToolCall("search")], mode=FLEXIBLE).f1 == 0.0


def test_unicode_and_nested_arguments() -> None:
    arguments = {"город": "Токио", "фильтры": {"даты": ["2024-01-15", None], "☔": True}}
    same = {"фильтры": {"☔": True, "даты": ["2024-01-15", None]}, "город": "Токио"}
    assert match_tool_calls([ToolCall("погода", arguments)], [ToolCall("погода", same)]).f1 == 1.0
    changed = {"город": "Токио", "фильтры": {"даты": ["2024-01-16", None], "☔": True}}
    matching = match_tool_calls([ToolCall("погода", changed)], [ToolCall("погода", arguments)])
    assert matching.f1 == 0.0
    assert matching.incorrect[0].different_keys == ["фильтры"]


def test_boolean_is_not_one() -> None:
    actual, reference = [ToolCall("f", {"on": True})], [ToolCall("f", {"on": 1})]
    for comparison in ValueComparison:
        for mode in ToolCallMode:
            assert match_tool_calls(actual, reference, mode=mode, comparison=comparison).f1 == 0.0


def test_incorrect_calls_are_paired_best_score_first() -> None:
    actual = [ToolCall("f", {"a": 0, "b": 0, "c": 0}), ToolCall("f", {"a": 1, "b": 2, "c": 0})]
    reference = [ToolCall("f", {"a": 1, "b": 2, "c": 3})]
    matching = match_tool_calls(actual, reference)
    (incorrect,) = matching.incorrect
    assert (incorrect.actual_index, incorrect.argument_score) == (1, pytest.approx(2 / 3))
    assert incorrect.details == "arguments differ; different: c"
    assert [e.position for e in matching.extra] == [0]


def test_differing_keys_are_named() -> None:
    actual = [ToolCall("f", {"a": 1, "b": 2, "extra": 0})]
    reference = [ToolCall("f", {"a": 1, "b": 3, "gone": 4})]
    (incorrect,) = match_tool_calls(actual, reference).incorrect
    assert (incorrect.missing_keys, incorrect.extra_keys, incorrect.different_keys) == (
        ["gone"],
        ["extra"],
        ["b"],
    )
    assert incorrect.details == "arguments differ; different: b; missing: gone; extra: extra"


def test_correct_entries_carry_the_calls() -> None:
    matching = match_tool_calls([T, W], [W, T])
    assert matching.pairs == [(0, 1, 1.0), (1, 0, 1.0)]
    assert [(c.actual, c.reference) for c in matching.correct] == [(T, T), (W, W)]
    assert matching.mode is STRICT
    assert matching.order is CallOrder.ANY


def test_long_traces_work() -> None:
    rng = random.Random(3)
    tools = ["search", "fetch", "book", "send"]
    reference = [
        ToolCall(
            rng.choice(tools), {"q": rng.randrange(20), "n": rng.randrange(3), "k": {"z": i % 7}}
        )
        for i in range(200)
    ]
    actual = reference[:]
    rng.shuffle(actual)
    for options in (
        {"mode": STRICT},
        {"mode": FLEXIBLE, "threshold": 0.3},
        {"mode": FLEXIBLE, "threshold": 0.0},
    ):
        assert match_tool_calls(actual, reference, **options).f1 == 1.0
    in_order = match_tool_calls(actual, reference, order="strict", mode=FLEXIBLE)
    assert 0.0 < in_order.f1 < 1.0
    same_tool = [ToolCall("s", {"a": i % 3, "b": i % 5, "c": i % 7}) for i in range(200)]
    shuffled = same_tool[:]
    rng.shuffle(shuffled)
    assert match_tool_calls(shuffled, same_tool, mode=FLEXIBLE, threshold=0.3).f1 == 1.0


# --- properties -----------------------------------------------------------------------------

values = st.sampled_from([1, 1.0, 2, "1", " 1 ", "x", " X ", True, False, None, [1, 2], {"a": 1}])
calls = st.builds(
    ToolCall,
    st.sampled_from(["search", "book", "Search"]),
    st.dictionaries(st.sampled_from(["q", "limit", "city"]), values, max_size=3),
)
call_lists = st.lists(calls, max_size=6)
options = st.fixed_dictionaries(
    {
        "mode": st.sampled_from(ToolCallMode),
        "threshold": st.sampled_from([0.0, 0.3, 0.5, 2 / 3, 0.8, 1.0]),
        "comparison": st.sampled_from(ValueComparison),
    }
)


@settings(max_examples=300, deadline=None)
@given(actual=call_lists, reference=call_lists, options=options, seed=st.integers())
def test_permutations_never_change_the_score(
    actual: list[ToolCall], reference: list[ToolCall], options: dict[str, Any], seed: int
) -> None:
    expected = match_tool_calls(actual, reference, **options)
    rng = random.Random(seed)
    rng.shuffle(actual)
    rng.shuffle(reference)
    permuted = match_tool_calls(actual, reference, **options)
    assert scores(permuted) == scores(expected)
    assert sum(p.argument_score for p in permuted.pairs) == pytest.approx(
        sum(p.argument_score for p in expected.pairs)
    )


@settings(max_examples=300, deadline=None)
@given(actual=call_lists, reference=call_lists, options=options, order=st.sampled_from(CallOrder))
def test_scores_are_bounded_and_every_call_is_accounted_for(
    actual: list[ToolCall], reference: list[ToolCall], options: dict[str, Any], order: CallOrder
) -> None:
    matching = match_tool_calls(actual, reference, order=order, **options)
    for value in scores(matching):
        assert 0.0 <= value <= 1.0
    assert len(matching.correct) + len(matching.incorrect) + len(matching.missed) == len(reference)
    assert len(matching.correct) + len(matching.incorrect) + len(matching.extra) == len(actual)
    assert matching.true_positives == len(matching.pairs)
    for incorrect in matching.incorrect:
        assert incorrect.actual.name == incorrect.reference.name


@settings(max_examples=200, deadline=None)
@given(calls=call_lists, options=options, order=st.sampled_from(CallOrder))
def test_identical_lists_score_one(
    calls: list[ToolCall], options: dict[str, Any], order: CallOrder
) -> None:
    copies = [call.model_copy(deep=True) for call in calls]
    assert match_tool_calls(calls, copies, order=order, **options).f1 == 1.0


@settings(max_examples=200, deadline=None)
@given(actual=call_lists, reference=call_lists, options=options)
def test_duplicating_both_lists_keeps_the_score(
    actual: list[ToolCall], reference: list[ToolCall], options: dict[str, Any]
) -> None:
    once = match_tool_calls(actual, reference, **options)
    twice = match_tool_calls(actual * 2, reference * 2, **options)
    assert scores(twice) == pytest.approx(scores(once))
    assert twice.true_positives == 2 * once.true_positives


@settings(max_examples=300, deadline=None)
@given(
    actual=call_lists,
    reference=call_lists,
    threshold=st.floats(min_value=0.0, max_value=1.0),
    comparison=st.sampled_from(ValueComparison),
    order=st.sampled_from(CallOrder),
)
def test_strict_never_scores_above_flexible(
    actual: list[ToolCall],
    reference: list[ToolCall],
    threshold: float,
    comparison: ValueComparison,
    order: CallOrder,
) -> None:
    common = {"threshold": threshold, "comparison": comparison, "order": order}
    strict = match_tool_calls(actual, reference, mode=STRICT, **common)
    flexible = match_tool_calls(actual, reference, mode=FLEXIBLE, **common)
    assert strict.f1 <= flexible.f1


@settings(max_examples=200, deadline=None)
@given(actual=call_lists, reference=call_lists, options=options, order=st.sampled_from(CallOrder))
def test_normalize_never_scores_below_exact(
    actual: list[ToolCall], reference: list[ToolCall], options: dict[str, Any], order: CallOrder
) -> None:
    options = {**options, "order": order}
    exact = match_tool_calls(actual, reference, **{**options, "comparison": "exact"})
    normalized = match_tool_calls(actual, reference, **{**options, "comparison": "normalize"})
    assert exact.f1 <= normalized.f1


def brute_force(
    actual: list[ToolCall], reference: list[ToolCall], options: dict[str, Any], in_order: bool
) -> tuple[int, float]:
    """Most matched pairs, then highest total score, by trying every matching."""
    mode, threshold = options["mode"], options["threshold"]

    def score(i: int, j: int) -> float | None:
        if actual[i].name != reference[j].name:
            return None
        value = argument_score(
            actual[i].arguments,
            reference[j].arguments,
            mode=mode,
            comparison=options["comparison"],
        )
        needed = 1.0 if mode is STRICT else threshold
        return value if value >= needed else None

    best = (0, 0.0)
    for size in range(min(len(actual), len(reference)), 0, -1):
        for chosen in itertools.combinations(range(len(actual)), size):
            for targets in itertools.permutations(range(len(reference)), size):
                if in_order and list(targets) != sorted(targets):
                    continue
                found = [score(i, j) for i, j in zip(chosen, targets, strict=True)]
                if None not in found:
                    total = sum(s for s in found if s is not None)
                    if (size, round(total, 9)) > (best[0], round(best[1], 9)):
                        best = (size, total)
        if best[0]:
            break
    return best


@settings(max_examples=300, deadline=None)
@given(
    actual=st.lists(calls, max_size=4),
    reference=st.lists(calls, max_size=4),
    options=options,
    order=st.sampled_from(CallOrder),
)
def test_matching_is_a_maximum_then_best_scoring_one(
    actual: list[ToolCall], reference: list[ToolCall], options: dict[str, Any], order: CallOrder
) -> None:
    matching = match_tool_calls(actual, reference, order=order, **options)
    size, total = brute_force(actual, reference, options, order is CallOrder.STRICT)
    assert matching.true_positives == size
    assert sum(p.argument_score for p in matching.pairs) == pytest.approx(total)
    if order is CallOrder.STRICT:
        ordered = [p.reference_index for p in sorted(matching.pairs)]
        assert ordered == sorted(ordered)
