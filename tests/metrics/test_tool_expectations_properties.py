"""Properties of the matching with alternatives, optional calls, rules and failed calls:
permutation invariance, bounds, identical → 1, and optimality against a brute force."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ragas_boot.metrics.agent.matching import (
    CallOrder,
    FailedCalls,
    ToolCallMatching,
    ToolCallMode,
    ValueComparison,
    argument_score,
    match_tool_calls,
)
from ragas_boot.samples import ExpectedToolCall, ToolCall, ToolCallAlternatives

NAMES = ["search", "book"]
ARGUMENT_NAMES = ["q", "limit", "city"]
values = st.sampled_from([1, 1.0, 2, "1", " 1 ", "x", True, None, [1, 2], {"a": 1}])
arguments = st.dictionaries(st.sampled_from(ARGUMENT_NAMES), values, max_size=2)
calls = st.builds(ToolCall, st.sampled_from(NAMES), arguments)


@st.composite
def expected_calls(draw: st.DrawFn) -> ToolCall:
    name = draw(st.sampled_from(NAMES))
    given_arguments = draw(arguments)
    free = [key for key in ARGUMENT_NAMES if key not in given_arguments]
    rules: dict[str, Any] = {}
    if free and draw(st.booleans()):
        rules[draw(st.sampled_from(free))] = draw(
            st.sampled_from(["any", {"regex": "^x"}, {"regex": "1"}])
        )
    is_optional = draw(st.booleans())
    if not rules and not is_optional:
        return ToolCall(name, given_arguments)
    return ExpectedToolCall(name, given_arguments, optional=is_optional, argument_rules=rules)


reference_lists = st.lists(expected_calls(), max_size=5)
alternatives = st.lists(reference_lists, min_size=1, max_size=3).map(
    lambda lists: ToolCallAlternatives(any_of=lists)
)
references = reference_lists | alternatives
options = st.fixed_dictionaries(
    {
        "mode": st.sampled_from(ToolCallMode),
        "threshold": st.sampled_from([0.0, 0.5, 0.8, 1.0]),
        "comparison": st.sampled_from(ValueComparison),
        "order": st.sampled_from(CallOrder),
    }
)


def sequences(reference: list[ToolCall] | ToolCallAlternatives) -> list[list[ToolCall]]:
    if isinstance(reference, ToolCallAlternatives):
        return [list(calls) for calls in reference.any_of]
    return [list(reference)]


def is_optional(call: ToolCall) -> bool:
    return isinstance(call, ExpectedToolCall) and call.optional


def scores(matching: ToolCallMatching) -> tuple[float, float, float]:
    return matching.precision, matching.recall, matching.f1


@settings(max_examples=300, deadline=None)
@given(
    actual=st.lists(calls, max_size=6), reference=references, options=options, seed=st.integers()
)
def test_permuting_calls_within_every_list_keeps_the_score(
    actual: list[ToolCall], reference: Any, options: dict[str, Any], seed: int
) -> None:
    options = {**options, "order": CallOrder.ANY}
    expected = match_tool_calls(actual, reference, **options)
    rng = random.Random(seed)
    shuffled = [call for call in actual]
    rng.shuffle(shuffled)
    lists = [rng.sample(calls_, len(calls_)) for calls_ in sequences(reference)]
    permuted_reference: Any = (
        ToolCallAlternatives(any_of=lists)
        if isinstance(reference, ToolCallAlternatives)
        else lists[0]
    )
    permuted = match_tool_calls(shuffled, permuted_reference, **options)
    assert scores(permuted) == pytest.approx(scores(expected))
    assert permuted.alternative_scores == pytest.approx(expected.alternative_scores)


@settings(max_examples=200, deadline=None)
@given(
    actual=st.lists(calls, max_size=6),
    lists=st.lists(reference_lists, min_size=1, max_size=3),
    options=options,
    seed=st.integers(),
)
def test_reordering_alternatives_keeps_the_score(
    actual: list[ToolCall], lists: list[list[ToolCall]], options: dict[str, Any], seed: int
) -> None:
    reordered = lists[:]
    random.Random(seed).shuffle(reordered)
    first = match_tool_calls(actual, ToolCallAlternatives(any_of=lists), **options)
    second = match_tool_calls(actual, ToolCallAlternatives(any_of=reordered), **options)
    assert first.f1 == pytest.approx(second.f1)
    assert sorted(first.alternative_scores) == pytest.approx(sorted(second.alternative_scores))


@settings(max_examples=300, deadline=None)
@given(
    actual=st.lists(calls, max_size=6),
    reference=references,
    options=options,
    succeeded=st.lists(st.sampled_from([True, False, None]), min_size=6, max_size=6),
    policy=st.sampled_from(FailedCalls),
)
def test_scores_are_bounded_and_every_call_is_accounted_for(
    actual: list[ToolCall],
    reference: Any,
    options: dict[str, Any],
    succeeded: list[bool | None],
    policy: FailedCalls,
) -> None:
    matching = match_tool_calls(
        actual, reference, succeeded=succeeded[: len(actual)], failed_calls=policy, **options
    )
    for value in scores(matching):
        assert 0.0 <= value <= 1.0
    required = [call for call in matching.reference if not is_optional(call)]
    assert matching.required_count == len(required)
    assert len(matching.correct) + len(matching.incorrect) + len(matching.missed) == len(required)
    assert len(matching.correct) + len(matching.incorrect) + len(matching.extra) + len(
        matching.optional
    ) + len(matching.excluded) == len(actual)
    assert all(not is_optional(item.reference) for item in matching.correct + matching.incorrect)
    assert all(is_optional(item.reference) for item in matching.optional)
    assert all(not is_optional(item.call) for item in matching.missed)
    if isinstance(reference, ToolCallAlternatives):
        assert matching.f1 == max(matching.alternative_scores)
        assert matching.reference == list(reference.any_of[matching.alternative or 0])
    assert set(matching.recovered) | set(matching.unrecovered) == set(matching.failed)
    if policy is FailedCalls.COUNT:
        assert matching.excluded == []
    else:
        assert matching.excluded == matching.recovered


def instance(call: ToolCall) -> ToolCall:
    """A call that meets the expected call exactly (rules get a value they accept)."""
    rules = call.argument_rules if isinstance(call, ExpectedToolCall) else {}
    values_ = {name: "x1" for name in rules}  # starts with x and contains 1
    return ToolCall(call.name, {**call.arguments, **values_})


@settings(max_examples=300, deadline=None)
@given(reference=references, options=options, data=st.data())
def test_doing_exactly_what_an_alternative_says_scores_one(
    reference: Any, options: dict[str, Any], data: st.DataObject
) -> None:
    chosen = data.draw(st.sampled_from(sequences(reference)))
    keep_optional = data.draw(st.lists(st.booleans(), min_size=len(chosen), max_size=len(chosen)))
    made = [
        instance(call)
        for call, keep in zip(chosen, keep_optional, strict=True)
        if keep or not is_optional(call)
    ]
    if options["order"] is CallOrder.ANY:
        random.Random(data.draw(st.integers())).shuffle(made)
    assert match_tool_calls(made, reference, **options).f1 == 1.0


def brute_force(
    actual: list[ToolCall], reference: list[ToolCall], options: dict[str, Any]
) -> tuple[int, int, float]:
    """Most required pairs, then most optional pairs, then highest total score."""
    mode, threshold = options["mode"], options["threshold"]
    in_order = options["order"] is CallOrder.STRICT

    def score(i: int, j: int) -> float | None:
        if actual[i].name != reference[j].name:
            return None
        expected = reference[j]
        value = argument_score(
            actual[i].arguments,
            expected.arguments,
            mode=mode,
            comparison=options["comparison"],
            rules=expected.argument_rules if isinstance(expected, ExpectedToolCall) else None,
        )
        return value if value >= (1.0 if mode is ToolCallMode.STRICT else threshold) else None

    best = (0, 0, 0.0)
    for size in range(min(len(actual), len(reference)) + 1):
        for chosen in itertools.combinations(range(len(actual)), size):
            for targets in itertools.permutations(range(len(reference)), size):
                if in_order and list(targets) != sorted(targets):
                    continue
                found = [score(i, j) for i, j in zip(chosen, targets, strict=True)]
                if None in found:
                    continue
                required = sum(1 for j in targets if not is_optional(reference[j]))
                total = round(sum(s for s in found if s is not None), 9)
                candidate = (required, size - required, total)
                best = max(best, candidate)
    return best


@settings(max_examples=300, deadline=None)
@given(
    actual=st.lists(calls, max_size=4),
    reference=st.lists(expected_calls(), max_size=4),
    options=options,
)
def test_required_pairs_then_optional_pairs_then_score_are_maximal(
    actual: list[ToolCall], reference: list[ToolCall], options: dict[str, Any]
) -> None:
    matching = match_tool_calls(actual, reference, **options)
    required, optional_, total = brute_force(actual, reference, options)
    assert (len(matching.correct), len(matching.optional)) == (required, optional_)
    found = sum(item.argument_score for item in matching.correct + matching.optional)
    assert found == pytest.approx(total)


@settings(max_examples=200, deadline=None)
@given(
    actual=st.lists(calls, max_size=6),
    reference=references,
    options=options,
    succeeded=st.lists(st.sampled_from([True, False, None]), min_size=6, max_size=6),
)
def test_excluding_recovered_failures_is_matching_without_them(
    actual: list[ToolCall], reference: Any, options: dict[str, Any], succeeded: list[bool | None]
) -> None:
    succeeded = succeeded[: len(actual)]
    excluded = match_tool_calls(
        actual, reference, succeeded=succeeded, failed_calls="exclude_recovered", **options
    )
    kept = [call for i, call in enumerate(actual) if i not in excluded.excluded]
    without = match_tool_calls(kept, reference, **options)
    assert scores(excluded) == scores(without)
    assert [actual[item.actual_index] for item in excluded.correct] == [
        item.actual for item in without.correct
    ]
