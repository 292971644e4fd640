"""Match the calls an agent made against the calls it was expected to make.

:func:`match_tool_calls` builds the candidate pairs of each reference sequence (same tool,
arguments meeting the mode's rule, see :mod:`.values`), picks the matching (see :mod:`.graph`;
STRICT plain calls take the fast paths here), pairs what is left over and reports it as a
:class:`~.report.ToolCallMatching`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from numbers import Real
from typing import Any

import orjson

from ragas_boot.metrics.agent.matching.graph import maximum_matching, ordered_matching
from ragas_boot.metrics.agent.matching.modes import (
    DEFAULT_ARGUMENT_MATCH_THRESHOLD,
    CallOrder,
    FailedCalls,
    ToolCallMode,
    ValueComparison,
)
from ragas_boot.metrics.agent.matching.report import (
    CorrectCall,
    IncorrectCall,
    ToolCallMatching,
    UnmatchedCall,
)
from ragas_boot.metrics.agent.matching.values import (
    ABSENT,
    SORTED_KEYS,
    Expected,
    RawExpected,
    canonical_arguments,
)
from ragas_boot.samples import ExpectedToolCall, ToolCall, ToolCallAlternatives

__all__ = ["match_tool_calls"]


def match_tool_calls(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall] | ToolCallAlternatives,
    *,
    mode: ToolCallMode | str = ToolCallMode.STRICT,
    threshold: float = DEFAULT_ARGUMENT_MATCH_THRESHOLD,
    order: CallOrder | str = CallOrder.ANY,
    comparison: ValueComparison | str = ValueComparison.EXACT,
    succeeded: Sequence[bool | None] | None = None,
    failed_calls: FailedCalls | str = FailedCalls.COUNT,
) -> ToolCallMatching:
    """Match the calls an agent made against the calls it was expected to make.

    Args:
        actual: the calls made, in order.
        reference: the calls expected, in order (plain :class:`ToolCall` or
            :class:`~ragas_boot.samples.ExpectedToolCall`), or
            :class:`~ragas_boot.samples.ToolCallAlternatives`: the best alternative counts.
        mode: ``STRICT`` (arguments equal) or ``FLEXIBLE`` (argument score ≥ ``threshold``).
        threshold: minimum argument score for a FLEXIBLE match, in [0, 1].
        order: ``ANY``, or ``STRICT`` for matches that keep both lists' order.
        comparison: ``EXACT`` or ``NORMALIZE`` value equality.
        succeeded: per actual call, whether its tool result was a success (``True``), an
            error (``False``) or unknown (``None``); ``None`` for all unknown.
        failed_calls: ``COUNT`` failed calls like any other, or ``EXCLUDE_RECOVERED``.

    Returns:
        The matching: correct pairs, then, among the calls left over, same-tool pairs paired
        best score first (incorrect), reference calls nobody made (missed) and actual calls
        nobody expected (extra); with precision, recall and F1 (see
        :class:`ToolCallMatching` for the empty-list cases).

    Raises:
        ValueError: ``threshold`` is not a number in [0, 1], a mode is unknown, or
            ``succeeded`` does not have one entry per actual call.
    """
    # Members pass as they are (the hot path); names are looked up.
    mode = mode if type(mode) is ToolCallMode else ToolCallMode(mode)
    order = order if type(order) is CallOrder else CallOrder(order)
    if type(comparison) is not ValueComparison:
        comparison = ValueComparison(comparison)
    if type(failed_calls) is not FailedCalls:
        failed_calls = FailedCalls(failed_calls)
    if type(threshold) is not float or not 0.0 <= threshold <= 1.0:
        threshold = _checked_threshold(threshold)
    actual = list(actual)
    failed, recovered, unrecovered = _failures(actual, succeeded)
    excluded = recovered if failed_calls is FailedCalls.EXCLUDE_RECOVERED else []
    left_out = set(excluded)
    kept = [i for i in range(len(actual)) if i not in left_out] if excluded else []
    scored = [actual[i] for i in kept] if excluded else actual
    normalize = comparison is ValueComparison.NORMALIZE
    # Canonical arguments are built when a matching first needs them (see _match_one).
    actual_args: list[dict[str, Any] | None] = [None] * len(scored)

    alternative: int | None = None
    alternative_scores: list[float] = []
    if isinstance(reference, ToolCallAlternatives):
        alternatives = [list(calls) for calls in reference.any_of]
        outcomes = [
            _match_one(scored, calls, actual_args, mode, threshold, order, normalize)
            for calls in alternatives
        ]
        best = max(range(len(outcomes)), key=lambda index: (outcomes[index].f1, -index))
        outcome = outcomes[best]
        alternative, alternative_scores = best, [item.f1 for item in outcomes]
    else:
        alternatives = [list(reference)]
        best = 0
        outcome = _match_one(
            scored, alternatives[0], actual_args, mode, threshold, order, normalize
        )
    if excluded:
        outcome = outcome.renumbered(kept)
    return ToolCallMatching(
        actual=actual,
        reference=alternatives[best],
        correct=outcome.correct,
        incorrect=outcome.incorrect,
        missed=outcome.missed,
        extra=outcome.extra,
        true_positives=len(outcome.correct),
        precision=outcome.precision,
        recall=outcome.recall,
        f1=outcome.f1,
        mode=mode,
        order=order,
        comparison=comparison,
        threshold=threshold,
        optional=outcome.optional,
        alternative=alternative,
        alternative_scores=alternative_scores,
        failed=failed,
        recovered=recovered,
        unrecovered=unrecovered,
        excluded=list(excluded),
        failed_calls=failed_calls,
    )


def _failures(
    actual: Sequence[ToolCall], succeeded: Sequence[bool | None] | None
) -> tuple[list[int], list[int], list[int]]:
    """Failed, recovered and unrecovered actual indices."""
    if succeeded is None:
        return [], [], []
    succeeded = list(succeeded)
    if len(succeeded) == len(actual) and False not in succeeded:  # none failed: the usual case
        return [], [], []
    if len(succeeded) != len(actual):
        raise ValueError(
            f"succeeded has {len(succeeded)} entries for {len(actual)} actual calls; give one "
            "per call"
        )
    failed = [i for i, ok in enumerate(succeeded) if ok is False]
    recovered = [
        i
        for i in failed
        if any(
            succeeded[later] is True and actual[later].name == actual[i].name
            for later in range(i + 1, len(actual))
        )
    ]
    unrecovered = [i for i in failed if i not in recovered]
    return failed, recovered, unrecovered


@dataclass(frozen=True, slots=True)
class _Outcome:
    """The matching of the counted actual calls against one reference sequence."""

    correct: list[CorrectCall]
    optional: list[CorrectCall]
    incorrect: list[IncorrectCall]
    missed: list[UnmatchedCall]
    extra: list[UnmatchedCall]
    precision: float
    recall: float
    f1: float

    def renumbered(self, kept: list[int]) -> _Outcome:
        """Actual indices mapped back to the full list (some calls were left out)."""
        return _Outcome(
            correct=[item._replace(actual_index=kept[item.actual_index]) for item in self.correct],
            optional=[
                item._replace(actual_index=kept[item.actual_index]) for item in self.optional
            ],
            incorrect=[
                item._replace(actual_index=kept[item.actual_index]) for item in self.incorrect
            ],
            missed=self.missed,
            extra=[item._replace(position=kept[item.position]) for item in self.extra],
            precision=self.precision,
            recall=self.recall,
            f1=self.f1,
        )


def _match_one(
    actual: list[ToolCall],
    reference: list[ToolCall],
    cached_args: list[dict[str, Any] | None],
    mode: ToolCallMode,
    threshold: float,
    order: CallOrder,
    normalize: bool,
) -> _Outcome:
    """One reference sequence's matching; ``cached_args`` holds the actual calls' canonical
    arguments, ``None`` where not built yet (filled here, shared between alternatives)."""
    optional_calls: list[int] = []
    ruled = False
    for j, call in enumerate(reference):
        if type(call) is not ToolCall and isinstance(call, ExpectedToolCall):
            if call.optional:
                optional_calls.append(j)
            if call.argument_rules:
                ruled = True
    optional = frozenset(optional_calls)
    strict = mode is ToolCallMode.STRICT
    plain = not optional and not ruled

    if strict and plain and not normalize and order is CallOrder.ANY:
        # The usual case, in a few passes over the calls (None: an argument orjson cannot
        # write, matched canonically below).
        fast = _match_plain(actual, reference, cached_args)
        if fast is not None:
            return fast
    pairs: list[tuple[int, int, float]]
    for i, call in enumerate(actual):
        if cached_args[i] is None:
            cached_args[i] = canonical_arguments(call.arguments, normalize)
    actual_args: list[dict[str, Any]] = cached_args  # type: ignore[assignment]
    expected = [Expected.of(call, normalize) for call in reference]
    if order is CallOrder.STRICT:
        groups = _edges_by_tool(actual, reference, actual_args, expected, strict, threshold)
        edges = [edge for group in groups for edge in group]
        pairs = ordered_matching(len(actual), len(reference), edges, optional)
    elif strict and plain:
        reference_args = [item.exact for item in expected]
        pairs = _identical_calls(actual, reference, actual_args, reference_args)
    else:
        groups = _edges_by_tool(actual, reference, actual_args, expected, strict, threshold)
        pairs = maximum_matching(groups, optional)

    correct = [
        CorrectCall(i, j, score, actual[i], reference[j])
        for i, j, score in pairs
        if j not in optional
    ]
    optional_made = [
        CorrectCall(i, j, score, actual[i], reference[j]) for i, j, score in pairs if j in optional
    ]
    incorrect, missed, extra = _leftovers(actual, reference, actual_args, expected, pairs, optional)
    counted = len(actual) - len(optional_made)
    required = len(reference) - len(optional)
    return _Outcome(
        correct, optional_made, incorrect, missed, extra, *_rates(len(correct), counted, required)
    )


def _rates(true_positives: int, counted: int, required: int) -> tuple[float, float, float]:
    """Precision, recall and F1. An empty side scores 1.0: no actual call means none was
    wrong, no reference call means none was missed (see ToolCallMatching)."""
    precision = true_positives / counted if counted else 1.0
    recall = true_positives / required if required else 1.0
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    return precision, recall, f1


def _checked_threshold(threshold: object) -> float:
    if isinstance(threshold, Real) and not isinstance(threshold, bool):
        value = float(threshold)
        if 0.0 <= value <= 1.0:
            return value
    raise ValueError(
        f"argument match threshold must be a number from 0.0 to 1.0, got {threshold!r}"
    )


def _identical_calls(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    actual_args: Sequence[dict[str, Any]],
    reference_args: Sequence[dict[str, Any]],
) -> list[tuple[int, int, float]]:
    """STRICT matching: "identical" is an equivalence, so counting each kind is maximal."""
    waiting: dict[tuple[str, frozenset[tuple[str, Any]]], deque[int]] = {}
    for j, call in enumerate(reference):
        waiting.setdefault((call.name, frozenset(reference_args[j].items())), deque()).append(j)
    pairs = []
    for i, call in enumerate(actual):
        queue = waiting.get((call.name, frozenset(actual_args[i].items())))
        if queue:
            pairs.append((i, queue.popleft(), 1.0))
    return pairs


def _match_plain(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    cached_args: list[dict[str, Any] | None],
) -> _Outcome | None:
    """STRICT, EXACT matching of plain calls in any order, by spelling first: each actual
    call, in order, takes the first waiting reference call of its tool spelled the same (the
    same JSON with keys sorted, one ``orjson`` call per call, looked up in a dict); calls left
    over on both sides then pair when identical though spelled otherwise (``1`` and ``1.0``,
    ``-0.0`` and ``0``), and the rest are paired, missed or extra as by :func:`_leftovers`,
    compared raw first (:class:`RawExpected`). ``None`` when orjson cannot write some
    arguments (an integer beyond 64 bits): the caller matches canonically.

    Equal spellings are identical calls: the spelling tells booleans from numbers and, the
    keys being sorted, ignores key order; raw ``==`` is asked too, since NaN and ``null`` are
    spelled alike. As "identical" is an equivalence, the number of pairs is the maximum
    whichever identical reference call a call takes.
    """
    waiting: dict[tuple[str, bytes], list[int]] = {}
    dumps, sort = orjson.dumps, SORTED_KEYS
    try:
        for j, call in enumerate(reference):
            key = (call.name, dumps(call.arguments, None, sort))
            queue = waiting.get(key)
            if queue is None:
                waiting[key] = [j]
            else:
                queue.append(j)
        spellings = [dumps(call.arguments, None, sort) for call in actual]
    except TypeError:  # orjson.JSONEncodeError
        return None
    correct: list[CorrectCall] = []
    left: list[int] = []
    for i, call in enumerate(actual):
        queue = waiting.get((call.name, spellings[i]))
        if queue and call.arguments == reference[queue[0]].arguments:
            j = queue.pop(0)
            correct.append(_correct(i, j, call, reference[j]))
        else:
            left.append(i)
    if not left and len(correct) == len(reference):  # all matched: nothing left over
        return _Outcome(correct, [], [], [], [], 1.0, 1.0, 1.0)
    free = [j for queue in waiting.values() for j in queue]
    free.sort()
    if (
        left
        and free
        and _pair_spelled_otherwise(actual, reference, cached_args, left, free, correct)
    ):
        correct.sort()
    expected = {j: RawExpected(reference[j].arguments) for j in free}
    raw = {i: actual[i].arguments for i in left}
    incorrect, missed, extra = _pair_leftovers(actual, reference, raw, expected, left, free)
    rates = _rates(len(correct), len(actual), len(reference))
    return _Outcome(correct, [], incorrect, missed, extra, *rates)


def _correct(i: int, j: int, actual: ToolCall, reference: ToolCall) -> CorrectCall:
    # tuple.__new__ straight away: a NamedTuple's own __new__ is a Python frame per pair.
    return tuple.__new__(CorrectCall, (i, j, 1.0, actual, reference))


def _pair_spelled_otherwise(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    cached_args: list[dict[str, Any] | None],
    left: list[int],
    free: list[int],
    correct: list[CorrectCall],
) -> bool:
    """Pair left-over calls identical to a free reference call of their tool though spelled
    otherwise (each, in order, takes the first such one); taken calls leave ``left`` and
    ``free``, their pairs join ``correct``. Whether any was found."""
    names = {reference[j].name for j in free}
    rest = [i for i in left if actual[i].name in names]
    if not rest:
        return False
    if len(free) > _SCAN_UP_TO:  # many calls left: hash canonical forms instead of scanning
        for i in rest:
            if cached_args[i] is None:
                cached_args[i] = canonical_arguments(actual[i].arguments, False)
        found = _identical_calls(
            [actual[i] for i in rest],
            [reference[j] for j in free],
            [cached_args[i] for i in rest],  # type: ignore[misc]
            [canonical_arguments(reference[j].arguments, False) for j in free],
        )
        pairs = [(rest[i], free[j]) for i, j, _ in found]
    else:
        pairs = []
        waiting = list(free)
        for i in rest:
            call = actual[i]
            for position, j in enumerate(waiting):
                other = reference[j]
                if other.name != call.name or other.arguments != call.arguments:
                    continue
                canonical = cached_args[i]
                if canonical is None:
                    canonical = cached_args[i] = canonical_arguments(call.arguments, False)
                if canonical == canonical_arguments(other.arguments, False):
                    del waiting[position]
                    pairs.append((i, j))
                    break
    for i, j in pairs:
        left.remove(i)
        free.remove(j)
        correct.append(_correct(i, j, actual[i], reference[j]))
    return bool(pairs)


_SCAN_UP_TO = 16
"""Most left-over reference calls :func:`_pair_spelled_otherwise` scans one by one per
actual call; above, it hashes canonical forms (linear instead of quadratic)."""


def _edges_by_tool(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    actual_args: Sequence[dict[str, Any]],
    expected_calls: Sequence[Expected],
    strict: bool,
    threshold: float,
) -> list[list[tuple[int, int, float]]]:
    """Every matching pair with its argument score, grouped by tool (only those can pair)."""
    references_by_name: dict[str, list[int]] = {}
    for j, call in enumerate(reference):
        references_by_name.setdefault(call.name, []).append(j)
    groups: dict[str, list[tuple[int, int, float]]] = {}
    for i, call in enumerate(actual):
        candidates = references_by_name.get(call.name)
        if not candidates:
            continue
        group = groups.setdefault(call.name, [])
        args = actual_args[i]
        for j in candidates:
            ruled = expected_calls[j]
            if ruled.rules:
                score = ruled.score(call.arguments, args, strict)
                if score >= (1.0 if strict else threshold):
                    group.append((i, j, score))
                continue
            expected = ruled.exact
            if strict:
                if args == expected:
                    group.append((i, j, 1.0))
                continue
            if expected:  # _flexible_score, inlined: this loop is the hot path
                hits = 0
                for name, value in expected.items():
                    if args.get(name, ABSENT) == value:
                        hits += 1
                score = hits / len(expected)
            else:
                score = 0.5 if args else 1.0
            if score >= threshold:
                group.append((i, j, score))
    return list(groups.values())


def _leftovers(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    actual_args: Sequence[dict[str, Any]],
    expected_calls: Sequence[Expected],
    pairs: list[tuple[int, int, float]],
    optional: frozenset[int] = frozenset(),
) -> tuple[list[IncorrectCall], list[UnmatchedCall], list[UnmatchedCall]]:
    """Unmatched calls: same-tool pairs best score first (incorrect), then missed and extra.

    Optional reference calls left over are neither incorrect nor missed.
    """
    if len(pairs) == len(actual) == len(reference):
        return [], [], []
    matched_actual = {i for i, _, _ in pairs}
    matched_reference = {j for _, j, _ in pairs} | optional
    return _pair_leftovers(
        actual,
        reference,
        actual_args,
        expected_calls,
        [i for i in range(len(actual)) if i not in matched_actual],
        [j for j in range(len(reference)) if j not in matched_reference],
    )


def _pair_leftovers(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    actual_args: Sequence[Mapping[str, Any]] | Mapping[int, Mapping[str, Any]],
    expected_calls: Sequence[Expected] | Mapping[int, RawExpected],
    free_actual: list[int],
    free_reference: list[int],
) -> tuple[list[IncorrectCall], list[UnmatchedCall], list[UnmatchedCall]]:
    """Pair the calls left over (indices in list order) by tool, best argument score first
    (incorrect, in reference order); the rest are missed (reference) and extra (actual).
    ``actual_args`` and ``expected_calls`` are read at those indices only."""
    by_name: dict[str, list[int]] = {}
    for j in free_reference:
        by_name.setdefault(reference[j].name, []).append(j)
    candidates = []
    for i in free_actual:
        call = actual[i]
        for j in by_name.get(call.name, ()):
            score = expected_calls[j].share(call.arguments, actual_args[i])
            candidates.append((-score, j, i))
    incorrect = []
    if candidates:
        candidates.sort()
        taken_actual: set[int] = set()
        taken_reference: set[int] = set()
        for negative_score, j, i in candidates:
            if i in taken_actual or j in taken_reference:
                continue
            taken_actual.add(i)
            taken_reference.add(j)
            missing, extra_keys, different = expected_calls[j].differences(
                actual[i].arguments, actual_args[i]
            )
            incorrect.append(
                IncorrectCall(
                    actual_index=i,
                    reference_index=j,
                    argument_score=-negative_score,
                    actual=actual[i],
                    reference=reference[j],
                    missing_keys=missing,
                    extra_keys=extra_keys,
                    different_keys=different,
                )
            )
        incorrect.sort(key=lambda call: call.reference_index)
        free_actual = [i for i in free_actual if i not in taken_actual]
        free_reference = [j for j in free_reference if j not in taken_reference]
    missed = [UnmatchedCall(j, reference[j]) for j in free_reference]
    extra = [UnmatchedCall(i, actual[i]) for i in free_actual]
    return incorrect, missed, extra
