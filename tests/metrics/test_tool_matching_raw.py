"""STRICT/EXACT matching of plain calls settles most pairs on the raw arguments: these pin the
cases where raw Python equality and JSON equality part (booleans and numbers, 1 and 1.0, key
order, at any depth) and the many-calls-of-one-tool path."""

from __future__ import annotations

import pytest

from ragas_boot import ToolCall
from ragas_boot.metrics import match_tool_calls


def test_a_nested_boolean_never_matches_a_number_though_python_equates_them() -> None:
    actual = [ToolCall("t", {"f": {"x": True, "y": [1, False]}})]
    reference = [ToolCall("t", {"f": {"x": 1, "y": [1, 0]}})]

    matching = match_tool_calls(actual, reference)

    assert matching.true_positives == 0
    assert [(item.actual_index, item.different_keys) for item in matching.incorrect] == [(0, ["f"])]


def test_one_number_type_and_any_key_order_match_at_any_depth() -> None:
    actual = [ToolCall("t", {"a": 1, "f": {"x": [1, 2.5], "y": "s", "b": True}})]
    reference = [ToolCall("t", {"f": {"b": True, "y": "s", "x": [1.0, 2.5]}, "a": 1.0})]

    matching = match_tool_calls(actual, reference)

    assert matching.pairs == [(0, 0, 1.0)]
    assert matching.f1 == 1.0


def test_each_call_takes_the_reference_call_spelled_alike_else_the_first_identical() -> None:
    actual = [ToolCall("t", {"n": 1}), ToolCall("t", {"n": 1}), ToolCall("t", {"n": True})]
    reference = [
        ToolCall("t", {"n": True}),
        ToolCall("t", {"n": 1.0}),
        ToolCall("t", {"n": 2}),
        ToolCall("t", {"n": 1}),
    ]

    matching = match_tool_calls(actual, reference)

    # 1 takes the 1 (spelled alike), the second 1 the 1.0 (identical, spelled otherwise),
    # True the True; 2 is left.
    assert matching.pairs == [(0, 3, 1.0), (1, 1, 1.0), (2, 0, 1.0)]
    assert [item.position for item in matching.missed] == [2]


@pytest.mark.parametrize("count", [3, 40])  # 40 calls of one tool: the hashed path
def test_many_calls_of_one_tool_match_whatever_their_order(count: int) -> None:
    actual = [ToolCall("t", {"n": k % 7, "on": k % 2 == 0}) for k in range(count)]
    # The same calls reversed, numbers as floats, the boolean of every third call as a number.
    reference = [
        ToolCall("t", {"on": (k % 2 == 0) if k % 3 else int(k % 2 == 0), "n": float(k % 7)})
        for k in reversed(range(count))
    ]

    matching = match_tool_calls(actual, reference)

    # A call matches exactly the reference calls with its n and its boolean kept a boolean.
    expected_tp = 0
    waiting = [(ref.arguments["n"], ref.arguments["on"]) for ref in reference]
    for call in actual:
        key = (call.arguments["n"], call.arguments["on"])
        for index, (n, on) in enumerate(waiting):
            if n == key[0] and type(on) is bool and on == key[1]:
                del waiting[index]
                expected_tp += 1
                break
    assert matching.true_positives == expected_tp
    assert 0 < expected_tp < count
    assert len(matching.incorrect) == count - expected_tp


def test_nan_and_null_are_spelled_alike_but_never_match() -> None:
    actual = [ToolCall("t", {"x": float("nan")}), ToolCall("t", {"x": None})]
    reference = [ToolCall("t", {"x": None})]

    matching = match_tool_calls(actual, reference)

    assert matching.pairs == [(1, 0, 1.0)]
    assert [item.position for item in matching.extra] == [0]


def test_an_integer_orjson_cannot_spell_still_matches_by_value() -> None:
    big = 2**70
    actual = [ToolCall("t", {"n": big, "k": "a"}), ToolCall("t", {"n": big + 1})]
    reference = [ToolCall("t", {"k": "a", "n": float(big)}), ToolCall("t", {"n": big + 2})]

    matching = match_tool_calls(actual, reference)

    assert matching.pairs == [(0, 0, 1.0)]
    assert [(item.actual_index, item.different_keys) for item in matching.incorrect] == [(1, ["n"])]


def test_calls_left_over_are_compared_by_json_equality_at_any_depth() -> None:
    # Every value but one is JSON-equal though spelled otherwise (key order, 1.0, -0.0);
    # the nested boolean against a number is what differs.
    actual = [ToolCall("t", {"a": 1, "b": {"y": [0.0, "é"], "x": True}, "c": "same", "z": 1})]
    reference = [ToolCall("t", {"c": "same", "b": {"x": 1, "y": [-0.0, "é"]}, "a": 1.0})]

    matching = match_tool_calls(actual, reference)

    (incorrect,) = matching.incorrect
    assert incorrect.different_keys == ["b"]
    assert incorrect.extra_keys == ["z"]
    assert incorrect.missing_keys == []
    assert incorrect.argument_score == pytest.approx(2 / 3)
