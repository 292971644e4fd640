"""Tool-call matching for ToolCallAccuracy: which actual calls match which expected ones.

Pure computation (no LLM, no I/O). A pair (actual, reference) *matches* when the tool names
are equal (case-sensitive) and the arguments meet the mode's rule:

* ``STRICT``: the same argument names with equal values (argument score 1.0);
* ``FLEXIBLE``: the argument score (the share of reference arguments the actual call got
  right) is at least the threshold.

True positives are the size of a *maximum* matching of disjoint matching pairs, never a
greedy first fit; among maximum matchings the one with the highest total argument score is
reported. So permuting either list never changes the score, and duplicate calls count as
many times as they occur. With ``order=STRICT`` the matched pairs must also keep both lists'
order (a longest common subsequence, weighted the same way).

Value equality is JSON equality: JSON has one number type, so ``1 == 1.0``; a boolean never
equals a number (``True != 1``), a string never equals a number (``"1" != 1``), object key
order is irrelevant, arrays are order-sensitive, ``null == null``; nested values compare
recursively. ``ValueComparison.NORMALIZE`` also equates numeric strings with numbers
(``"1" == 1``, ``" 2.50 " == 2.5``) and compares strings trimmed and case-insensitively, at
any depth. Argument *names* are always compared exactly.

A reference may say more (see :mod:`ragas_boot.samples.references`):

* **alternatives** (:class:`~ragas_boot.samples.ToolCallAlternatives`): each acceptable
  sequence is matched on its own and the best F1 wins (the first on a tie);
* **optional calls** (``ExpectedToolCall(optional=True)``): a required reference call
  outranks any number of optional ones in the matching; an actual call matched to an optional
  one counts neither as made nor as expected, and an optional call nobody made is not missed;
* **argument rules** (``argument_rules``): an argument with a rule passes by the rule (any
  value, a regex, a numeric tolerance, a subset of an object) instead of by equality; it
  counts as one expected argument like any other.

**Failed calls.** Given whether each actual call succeeded (its tool result), a failed call
is *recovered* when a later call of the same tool succeeded, else *unrecovered*. With
``failed_calls=EXCLUDE_RECOVERED`` recovered failures are left out before matching, so a
retry that worked costs no precision; by default (``COUNT``) they count like any call.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from numbers import Real
from typing import Any, NamedTuple

import orjson

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.samples import ArgumentRule, ExpectedToolCall, ToolCall, ToolCallAlternatives

__all__ = [
    "DEFAULT_ARGUMENT_MATCH_THRESHOLD",
    "SUMMARY_TEMPLATES",
    "CallOrder",
    "CorrectCall",
    "FailedCalls",
    "IncorrectCall",
    "MatchedPair",
    "ToolCallMatching",
    "ToolCallMode",
    "UnmatchedCall",
    "ValueComparison",
    "argument_score",
    "match_tool_calls",
    "rule_failure",
]

DEFAULT_ARGUMENT_MATCH_THRESHOLD = 0.8
"""FLEXIBLE mode's default minimum argument score for a pair to match (as in the Java library)."""


class ToolCallMode(CaseInsensitiveEnum):
    """How arguments must agree for two calls of the same tool to match."""

    STRICT = "STRICT"
    """Same argument names, every value equal."""
    FLEXIBLE = "FLEXIBLE"
    """Argument score at least the threshold."""


class CallOrder(CaseInsensitiveEnum):
    """Whether matched calls must come in the reference order."""

    ANY = "ANY"
    """Order is ignored."""
    STRICT = "STRICT"
    """Matched pairs keep the order of both lists."""


class ValueComparison(CaseInsensitiveEnum):
    """How two argument values are compared."""

    EXACT = "EXACT"
    """JSON equality."""
    NORMALIZE = "NORMALIZE"
    """JSON equality after trimming and case-folding strings and reading numeric strings."""


class FailedCalls(CaseInsensitiveEnum):
    """What a failed tool call (its result an error) counts for."""

    COUNT = "COUNT"
    """Failed calls count like any other call."""
    EXCLUDE_RECOVERED = "EXCLUDE_RECOVERED"
    """A failed call followed by a successful call of the same tool is left out."""


class MatchedPair(NamedTuple):
    """Indices of a matched pair and its argument score under the mode's rule."""

    actual_index: int
    reference_index: int
    argument_score: float


class CorrectCall(NamedTuple):
    """An actual call that matched a reference call.

    Attributes:
        actual_index: position of the call in the actual list.
        reference_index: position of the call it matched in the reference list.
        argument_score: the argument score under the mode's rule (1.0 in STRICT mode).
        actual: the call made.
        reference: the call expected.
    """

    actual_index: int
    reference_index: int
    argument_score: float
    actual: ToolCall
    reference: ToolCall


class IncorrectCall(NamedTuple):
    """The right tool with the wrong arguments (or, with ``order=STRICT``, out of order).

    Attributes:
        actual_index: position of the call in the actual list.
        reference_index: position of the expected call in the reference list.
        argument_score: the FLEXIBLE-rule share of reference arguments the call got right,
            whatever the mode, because it tells how close the call came.
        actual: the call made.
        reference: the call expected.
        missing_keys: expected argument names the call lacks.
        extra_keys: argument names the call has but the reference does not.
        different_keys: argument names in both whose values differ (or break their rule).
    """

    actual_index: int
    reference_index: int
    argument_score: float
    actual: ToolCall
    reference: ToolCall
    missing_keys: list[str]
    extra_keys: list[str]
    different_keys: list[str]

    @property
    def details(self) -> str:
        """One line naming the arguments that differ."""
        parts = [
            f"{label}: {', '.join(keys)}"
            for label, keys in (
                ("different", self.different_keys),
                ("missing", self.missing_keys),
                ("extra", self.extra_keys),
            )
            if keys
        ]
        if not parts:
            return "arguments match, but the call is out of order"
        return "arguments differ; " + "; ".join(parts)


class UnmatchedCall(NamedTuple):
    """A reference call nobody made (missed), or an actual call nobody expected (extra).

    Attributes:
        position: index of the call in its list.
        call: the call.
    """

    position: int
    call: ToolCall


@dataclass(frozen=True, slots=True)
class ToolCallMatching:
    """How the actual calls of a trace line up with the reference calls.

    Precision is TP / counted calls made, recall TP / required calls expected, F1 their
    harmonic mean (0.0 when both are 0). Calls made that matched an optional reference call,
    and failed calls left out by ``failed_calls``, are not counted; optional reference calls
    are not expected. Empty lists are scored so that the F1 says whether the trace did what
    was expected:

    * both empty: precision = recall = F1 = 1.0 (nothing expected, nothing done);
    * no reference but some actual calls: precision 0.0, recall 1.0 (nothing was missed),
      F1 0.0;
    * no actual calls but some reference: precision 1.0 (nothing wrong was called),
      recall 0.0, F1 0.0.

    Attributes:
        actual: the calls made.
        reference: the calls expected (with alternatives, the sequence that scored best).
        correct: matched pairs, in actual order.
        incorrect: left-over calls of an expected tool, paired with a left-over required
            reference call of that tool (best argument score first), in reference order.
        missed: left-over required reference calls with no incorrect counterpart.
        extra: left-over counted actual calls with no incorrect counterpart.
        true_positives: number of matched pairs.
        precision: true positives / counted actual calls.
        recall: true positives / required reference calls.
        f1: harmonic mean of precision and recall: the ToolCallAccuracy score.
        mode: the argument rule used.
        order: the order rule used.
        comparison: the value equality used.
        threshold: the FLEXIBLE threshold used.
        optional: actual calls that matched an optional reference call (not counted).
        alternative: index of the alternative in ``any_of`` that scored best; ``None`` when
            the reference is a plain list.
        alternative_scores: the F1 of each alternative, in ``any_of`` order.
        failed: actual indices whose tool result was an error.
        recovered: failed calls followed by a successful call of the same tool.
        unrecovered: failed calls never followed by such a success.
        excluded: failed calls left out of the score (recovered ones under
            ``EXCLUDE_RECOVERED``; none under ``COUNT``).
        failed_calls: the policy used.
    """

    actual: list[ToolCall]
    reference: list[ToolCall]
    correct: list[CorrectCall]
    incorrect: list[IncorrectCall]
    missed: list[UnmatchedCall]
    extra: list[UnmatchedCall]
    true_positives: int
    precision: float
    recall: float
    f1: float
    mode: ToolCallMode
    order: CallOrder
    comparison: ValueComparison
    threshold: float
    optional: list[CorrectCall] = field(default_factory=list)
    alternative: int | None = None
    alternative_scores: list[float] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    recovered: list[int] = field(default_factory=list)
    unrecovered: list[int] = field(default_factory=list)
    excluded: list[int] = field(default_factory=list)
    failed_calls: FailedCalls = FailedCalls.COUNT

    @property
    def pairs(self) -> list[MatchedPair]:
        """``(actual_index, reference_index, argument_score)`` of every matched pair."""
        return [MatchedPair(*correct[:3]) for correct in self.correct]

    @property
    def required_count(self) -> int:
        """Reference calls that are not optional: the recall's denominator."""
        # Plain calls are never optional: only the others are asked (this is read per summary).
        return len(self.reference) - sum(
            1 for call in self.reference if type(call) is not ToolCall and _is_optional(call)
        )

    @property
    def counted_count(self) -> int:
        """Actual calls that count: the precision's denominator."""
        return len(self.actual) - len(self.optional) - len(self.excluded)

    def as_dict(self) -> dict[str, Any]:
        """The matching as JSON-ready data (named fields, calls dumped), for result metadata."""
        return {
            "true_positives": self.true_positives,
            "precision": self.precision,
            "recall": self.recall,
            "f1": self.f1,
            "summary": self.summary,
            "mode": self.mode.value,
            "order": self.order.value,
            "comparison": self.comparison.value,
            "threshold": self.threshold,
            "correct": [_pair_data(item) for item in self.correct],
            "incorrect": [
                {
                    **_pair_data(item),
                    "missing_keys": list(item.missing_keys),
                    "extra_keys": list(item.extra_keys),
                    "different_keys": list(item.different_keys),
                    "details": item.details,
                }
                for item in self.incorrect
            ],
            "missed": [
                {"position": item.position, "call": _call_data(item.call)} for item in self.missed
            ],
            "extra": [
                {"position": item.position, "call": _call_data(item.call)} for item in self.extra
            ],
            "optional": [_pair_data(item) for item in self.optional],
            "alternative": self.alternative,
            "alternative_scores": list(self.alternative_scores),
            "failed_calls": self.failed_calls.value,
            "failed": list(self.failed),
            "recovered": list(self.recovered),
            "unrecovered": list(self.unrecovered),
            "excluded": list(self.excluded),
        }

    @property
    def summary(self) -> str:
        """One line: ``Accuracy 40.0% | Correct 1/2 | Incorrect 1 | Missed 0 | Extra 1``.

        Optional calls made, the alternative chosen and failed calls are appended when there
        are any: ``| Optional 1 | Alternative 2 of 2 | Failed 1 (recovered 1, excluded 1)``.
        """
        return self.summary_in(SUMMARY_TEMPLATES)

    def summary_in(self, templates: Mapping[str, str]) -> str:
        """The summary line from other ``templates`` (another language): the keys and
        placeholders of :data:`SUMMARY_TEMPLATES`."""
        line = templates["head"].format(
            accuracy=self.f1 * 100,
            correct=self.true_positives,
            required=self.required_count,
            incorrect=len(self.incorrect),
            missed=len(self.missed),
            extra=len(self.extra),
        )
        if self.optional:
            line += templates["optional"].format(optional=len(self.optional))
        if self.alternative is not None:
            line += templates["alternative"].format(
                number=self.alternative + 1, count=len(self.alternative_scores)
            )
        if self.failed:
            line += templates["failed"].format(
                failed=len(self.failed),
                recovered=len(self.recovered),
                excluded=len(self.excluded),
            )
        return line


SUMMARY_TEMPLATES = {
    "head": "Accuracy {accuracy:.1f}% | Correct {correct}/{required} | Incorrect {incorrect}"
    " | Missed {missed} | Extra {extra}",
    "optional": " | Optional {optional}",
    "alternative": " | Alternative {number} of {count}",
    "failed": " | Failed {failed} (recovered {recovered}, excluded {excluded})",
}
"""The parts of :attr:`ToolCallMatching.summary`; the last three only when they apply."""


def _is_optional(call: ToolCall) -> bool:
    return isinstance(call, ExpectedToolCall) and call.optional


def _pair_data(item: CorrectCall | IncorrectCall) -> dict[str, Any]:
    return {
        "actual_index": item.actual_index,
        "reference_index": item.reference_index,
        "argument_score": item.argument_score,
        "actual": _call_data(item.actual),
        "reference": _call_data(item.reference),
    }


def _call_data(call: ToolCall) -> dict[str, Any]:
    """``call.model_dump(mode="json")``, several times faster: a call's arguments are plain
    JSON already (checked and copied when it was made), so a copy is all the dump does."""
    if type(call) is not ToolCall:
        return call.model_dump(mode="json")
    return {"name": call.name, "arguments": _json_copy(call.arguments), "id": call.id}


_COPIED_AS_IS = frozenset({str, int, bool, type(None)})


def _json_copy(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return {
            key: item if type(item) in _COPIED_AS_IS else _json_copy(item)
            for key, item in value.items()
        }
    if kind is list:
        return [item if type(item) in _COPIED_AS_IS else _json_copy(item) for item in value]
    if kind is float and not math.isfinite(value):
        return None  # as pydantic's JSON mode dumps NaN and infinities
    return value


def argument_score(
    actual_args: Mapping[str, Any] | None,
    reference_args: Mapping[str, Any] | None,
    *,
    mode: ToolCallMode | str = ToolCallMode.STRICT,
    comparison: ValueComparison | str = ValueComparison.EXACT,
    rules: Mapping[str, ArgumentRule] | None = None,
) -> float:
    """Score how well one call's arguments agree with the expected ones, in [0, 1].

    Args:
        actual_args: the arguments the agent passed (``None`` means ``{}``).
        reference_args: the expected arguments (``None`` means ``{}``).
        mode: ``STRICT``: 1.0 iff the same names with equal values, else 0.0. ``FLEXIBLE``:
            1.0 when both are empty; 0.5 when only the reference is empty (the Java rule);
            else the share of reference names whose actual value is present and equal
            (extra actual names are ignored).
        comparison: ``EXACT`` or ``NORMALIZE`` value equality (see the module docs).
        rules: per argument name, a rule that replaces equality (the expected value, where
            the rule needs one, is the one in ``reference_args``); a name with a rule is an
            expected argument even when ``reference_args`` lacks it.

    Returns:
        The argument score.
    """
    normalize = ValueComparison(comparison) is ValueComparison.NORMALIZE
    strict = ToolCallMode(mode) is ToolCallMode.STRICT
    actual = _canonical_arguments(actual_args, normalize)
    if rules:
        expected = _Expected.build(dict(reference_args or {}), dict(rules), normalize)
        return expected.score(dict(actual_args or {}), actual, strict)
    reference = _canonical_arguments(reference_args, normalize)
    if strict:
        return 1.0 if actual == reference else 0.0
    return _flexible_score(actual, reference)


def rule_failure(
    rule: ArgumentRule,
    value: Any,
    expected: Any = None,
    *,
    comparison: ValueComparison | str = ValueComparison.EXACT,
) -> str | None:
    """Why ``value`` (a present argument) breaks ``rule``, or ``None`` when it passes.

    Args:
        rule: the rule.
        value: the argument's value.
        expected: the expected value a ``tolerance`` or ``subset`` rule compares with.
        comparison: value equality inside a ``subset`` (and numeric strings for
            ``tolerance`` under ``NORMALIZE``).
    """
    normalize = ValueComparison(comparison) is ValueComparison.NORMALIZE
    if _rule_passes(rule, expected, True, value, normalize):
        return None
    if rule.regex is not None:
        return f"expected a string matching /{rule.regex}/"
    if rule.tolerance is not None:
        return f"expected a number within {rule.tolerance:g} of {expected!r}"
    if rule.subset:
        return f"expected an object holding {expected!r}"
    return "expected a value"  # pragma: no cover - ``any`` passes for every present value


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
            cached_args[i] = _canonical_arguments(call.arguments, normalize)
    actual_args: list[dict[str, Any]] = cached_args  # type: ignore[assignment]
    expected = [_Expected.of(call, normalize) for call in reference]
    if order is CallOrder.STRICT:
        groups = _edges_by_tool(actual, reference, actual_args, expected, strict, threshold)
        edges = [edge for group in groups for edge in group]
        pairs = _ordered_matching(len(actual), len(reference), edges, optional)
    elif strict and plain:
        reference_args = [item.exact for item in expected]
        pairs = _identical_calls(actual, reference, actual_args, reference_args)
    else:
        groups = _edges_by_tool(actual, reference, actual_args, expected, strict, threshold)
        pairs = _maximum_matching(groups, optional)

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


# --- canonical values --------------------------------------------------------------------
# Each argument value becomes a hashable canonical form whose ``==`` is the value equality
# of the comparison mode; a call's arguments become a dict of names to canonical forms.
# Booleans and arrays get marker objects so that neither can equal a number or a string.


class _Marker:
    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return self._name


_TRUE, _FALSE, _ARRAY, _OTHER, _ABSENT = (
    _Marker(name) for name in ("true", "false", "array", "other", "absent")
)
_NUMERIC = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")
_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER_STARTS = frozenset("0123456789+-.")


_AS_IS = frozenset({int, float, type(None)})
_AS_IS_EXACT = _AS_IS | {str}


def _canonical_arguments(arguments: Mapping[str, Any] | None, normalize: bool) -> dict[str, Any]:
    if not arguments:
        return {}
    if normalize:
        return {name: _normalized(value) for name, value in arguments.items()}
    canonical = {}
    for name, value in arguments.items():
        kind = type(value)
        # Plain strings and numbers are most values: no call for them (the hot path).
        if kind is str or kind is int or kind is float or value is None:
            canonical[name] = value
        else:
            canonical[name] = _exact(value)
    return canonical


def _exact(value: Any) -> Any:
    kind = type(value)
    if kind is dict:
        return frozenset(
            [
                (key, item if type(item) in _AS_IS_EXACT else _exact(item))
                for key, item in value.items()
            ]
        )
    if kind is list:
        return (_ARRAY, *[item if type(item) in _AS_IS_EXACT else _exact(item) for item in value])
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind in _AS_IS_EXACT:
        return value
    if isinstance(value, Mapping):
        return _exact(dict(value))
    if isinstance(value, tuple | list):
        return _exact(list(value))
    return _scalar(value)


def _normalized(value: Any) -> Any:
    kind = type(value)
    if kind is str:
        return _normalized_text(value)
    if kind in _AS_IS:
        return value
    if kind is bool:
        return _TRUE if value else _FALSE
    if kind is dict or isinstance(value, Mapping):
        return frozenset([(key, _normalized(item)) for key, item in value.items()])
    if kind is list or isinstance(value, tuple | list):
        return (_ARRAY, *[_normalized(item) for item in value])
    if isinstance(value, str):
        return _normalized_text(value)
    return _scalar(value)


def _scalar(value: Any) -> Any:
    """Subclasses of str and numbers as themselves; anything else (not JSON) by its repr."""
    if isinstance(value, bool):
        return _TRUE if value else _FALSE
    if isinstance(value, str | int | float):
        return value
    return (_OTHER, repr(value))


def _normalized_text(text: str) -> Any:
    stripped = text.strip()
    # The first-character test spares the regex for ordinary words.
    if stripped[:1] in _NUMBER_STARTS and _NUMERIC.fullmatch(stripped):
        try:
            return int(stripped) if _INTEGER.fullmatch(stripped) else float(stripped)
        except ValueError:  # more digits than int() accepts
            return float(stripped)
    return stripped.casefold()


def _flexible_score(actual: Mapping[str, Any], reference: Mapping[str, Any]) -> float:
    if not reference:
        return 0.5 if actual else 1.0
    hits = 0
    for name, expected in reference.items():
        if actual.get(name, _ABSENT) == expected:
            hits += 1
    return hits / len(reference)


def _canonical_value(value: Any, normalize: bool) -> Any:
    if normalize:
        return _normalized(value)
    return value if type(value) in _AS_IS_EXACT else _exact(value)


class _Expected:
    """What one reference call expects: canonical values by name, plus rules by name."""

    __slots__ = ("_names", "_order", "exact", "normalize", "rules")

    def __init__(
        self,
        exact: dict[str, Any],
        rules: dict[str, tuple[ArgumentRule, Any]],
        normalize: bool,
        order: list[str] | None = None,
    ) -> None:
        self.exact = exact  # name -> canonical value, for names without a rule
        self.rules = rules  # name -> (rule, expected value from the arguments or None)
        self.normalize = normalize
        # The names and their order are built when first asked for: most reference calls of
        # a run are matched whole and never asked (the hot path).
        self._names: set[str] | None = None
        self._order = order

    @property
    def names(self) -> set[str]:
        """Every expected argument name (with or without a rule)."""
        if self._names is None:
            self._names = set(self.exact) | set(self.rules)
        return self._names

    @property
    def order(self) -> list[str]:
        """The expected argument names in the reference's order."""
        if self._order is None:
            self._order = list(self.exact)
        return self._order

    @classmethod
    def of(cls, call: ToolCall, normalize: bool) -> _Expected:
        if isinstance(call, ExpectedToolCall) and call.argument_rules:
            return cls.build(call.arguments, call.argument_rules, normalize)
        return cls(_canonical_arguments(call.arguments, normalize), {}, normalize)

    @classmethod
    def build(
        cls, arguments: Mapping[str, Any], rules: Mapping[str, ArgumentRule], normalize: bool
    ) -> _Expected:
        plain = {name: value for name, value in arguments.items() if name not in rules}
        return cls(
            _canonical_arguments(plain, normalize),
            {name: (rule, arguments.get(name)) for name, rule in rules.items()},
            normalize,
            list(dict.fromkeys([*arguments, *rules])),
        )

    def passes(self, name: str, raw: Mapping[str, Any], canonical: Mapping[str, Any]) -> bool:
        """Whether the actual call's argument ``name`` meets the expectation."""
        if name in self.rules:
            rule, expected = self.rules[name]
            return _rule_passes(rule, expected, name in raw, raw.get(name), self.normalize)
        return bool(canonical.get(name, _ABSENT) == self.exact[name])

    def score(self, raw: Mapping[str, Any], canonical: Mapping[str, Any], strict: bool) -> float:
        """The argument score of an actual call (raw and canonical arguments)."""
        if not self.rules:  # equality only: no rule to look up per name
            exact = self.exact
            if strict:
                return 1.0 if canonical == exact else 0.0
            return _flexible_score(canonical, exact)
        if strict:
            if set(raw) != self.names:
                return 0.0
            return 1.0 if all(self.passes(name, raw, canonical) for name in self.order) else 0.0
        if not self.names:
            return 0.5 if raw else 1.0
        hits = sum(1 for name in self.order if self.passes(name, raw, canonical))
        return hits / len(self.names)

    def share(self, raw: Mapping[str, Any], canonical: Mapping[str, Any]) -> float:
        """The FLEXIBLE argument score, whatever the mode: how close a left-over call came."""
        return self.score(raw, canonical, False)

    def differences(
        self, raw: Mapping[str, Any], canonical: Mapping[str, Any]
    ) -> tuple[list[str], list[str], list[str]]:
        """Missing, extra and different argument names of an actual call."""
        if not self.rules:
            exact = self.exact
            return (
                [name for name in exact if name not in raw],
                [name for name in raw if name not in exact],
                [
                    name
                    for name, value in exact.items()
                    if name in raw and canonical.get(name, _ABSENT) != value
                ],
            )
        missing = [name for name in self.order if name not in raw]
        extra = [name for name in raw if name not in self.names]
        different = [
            name for name in self.order if name in raw and not self.passes(name, raw, canonical)
        ]
        return missing, extra, different


class _RawExpected:
    """A plain reference call's expectation under EXACT comparison, read off its raw
    arguments: the same shares and differences as :class:`_Expected` without canonical
    forms (the arguments given in place of canonical ones are not read). The comparison
    behind the last share is kept for the differences of the same call."""

    __slots__ = ("_last", "exact")

    def __init__(self, arguments: dict[str, Any]) -> None:
        self.exact = arguments
        self._last: tuple[Mapping[str, Any], list[str], list[str]] | None = None

    def _compare(self, raw: Mapping[str, Any]) -> tuple[list[str], list[str]]:
        """Missing and different argument names of an actual call."""
        last = self._last
        if last is not None and last[0] is raw:
            return last[1], last[2]
        missing, different = [], []
        for name, value in self.exact.items():
            if name not in raw:
                missing.append(name)
            elif not _json_equal(raw[name], value):
                different.append(name)
        self._last = (raw, missing, different)
        return missing, different

    def share(self, raw: Mapping[str, Any], canonical: Mapping[str, Any]) -> float:
        """The FLEXIBLE argument score of an actual call with ``raw`` arguments."""
        exact = self.exact
        if not exact:
            return 0.5 if raw else 1.0
        missing, different = self._compare(raw)
        return (len(exact) - len(missing) - len(different)) / len(exact)

    def differences(
        self, raw: Mapping[str, Any], canonical: Mapping[str, Any]
    ) -> tuple[list[str], list[str], list[str]]:
        """Missing, extra and different argument names of an actual call."""
        exact = self.exact
        missing, different = self._compare(raw)
        return list(missing), [name for name in raw if name not in exact], list(different)


def _json_equal(value: Any, expected: Any) -> bool:
    """JSON equality of two values (the canonical forms' ``==``), deciding on the raw values
    where they settle it: values JSON calls equal are equal in Python too; of Python-equal
    values, plain strings, numbers and nulls are JSON-equal, a boolean equals only a
    boolean, objects and arrays spelled alike are equal (see :func:`_match_plain`),
    and the rest is compared canonically."""
    if value != expected:
        return False
    kind, other = type(value), type(expected)
    if kind in _AS_IS_EXACT and other in _AS_IS_EXACT:
        return True
    if kind is bool or other is bool:
        return kind is other
    try:
        if orjson.dumps(value, None, _SORTED_KEYS) == orjson.dumps(expected, None, _SORTED_KEYS):
            return True
    except TypeError:  # orjson.JSONEncodeError: an integer beyond 64 bits
        pass
    return bool(_exact(value) == _exact(expected))


def _rule_passes(
    rule: ArgumentRule, expected: Any, present: bool, value: Any, normalize: bool
) -> bool:
    if not present:
        return False
    if rule.any:
        return True
    if rule.regex is not None:
        return isinstance(value, str) and re.search(rule.regex, value) is not None
    if rule.tolerance is not None:
        number, target = _as_number(value, normalize), _as_number(expected, False)
        if number is None or target is None:
            return False
        # A hair of slack so that 35.69 is within 0.01 of 35.68 despite binary floats.
        return abs(number - target) <= rule.tolerance + 1e-9 * max(1.0, abs(target))
    return _contains(value, expected, normalize)


def _as_number(value: Any, normalize: bool) -> float | None:
    if isinstance(value, bool):
        return None
    if normalize and isinstance(value, str):
        value = _normalized_text(value)
        if isinstance(value, str):
            return None
    if isinstance(value, int | float):
        number = float(value)
        return number if math.isfinite(number) else None
    return None


def _contains(value: Any, expected: Any, normalize: bool) -> bool:
    """``subset``: objects hold at least the expected keys (recursively); others are equal."""
    if isinstance(expected, Mapping):
        return isinstance(value, Mapping) and all(
            key in value and _contains(value[key], item, normalize)
            for key, item in expected.items()
        )
    return bool(_canonical_value(value, normalize) == _canonical_value(expected, normalize))


# --- matchings ---------------------------------------------------------------------------


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
    compared raw first (:class:`_RawExpected`). ``None`` when orjson cannot write some
    arguments (an integer beyond 64 bits): the caller matches canonically.

    Equal spellings are identical calls: the spelling tells booleans from numbers and, the
    keys being sorted, ignores key order; raw ``==`` is asked too, since NaN and ``null`` are
    spelled alike. As "identical" is an equivalence, the number of pairs is the maximum
    whichever identical reference call a call takes.
    """
    waiting: dict[tuple[str, bytes], list[int]] = {}
    dumps, sort = orjson.dumps, _SORTED_KEYS
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
    expected = {j: _RawExpected(reference[j].arguments) for j in free}
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
                cached_args[i] = _canonical_arguments(actual[i].arguments, False)
        found = _identical_calls(
            [actual[i] for i in rest],
            [reference[j] for j in free],
            [cached_args[i] for i in rest],  # type: ignore[misc]
            [_canonical_arguments(reference[j].arguments, False) for j in free],
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
                    canonical = cached_args[i] = _canonical_arguments(call.arguments, False)
                if canonical == _canonical_arguments(other.arguments, False):
                    del waiting[position]
                    pairs.append((i, j))
                    break
    for i, j in pairs:
        left.remove(i)
        free.remove(j)
        correct.append(_correct(i, j, actual[i], reference[j]))
    return bool(pairs)


_SORTED_KEYS = orjson.OPT_SORT_KEYS

_SCAN_UP_TO = 16
"""Most left-over reference calls :func:`_pair_spelled_otherwise` scans one by one per
actual call; above, it hashes canonical forms (linear instead of quadratic)."""


def _edges_by_tool(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    actual_args: Sequence[dict[str, Any]],
    expected_calls: Sequence[_Expected],
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
                    if args.get(name, _ABSENT) == value:
                        hits += 1
                score = hits / len(expected)
            else:
                score = 0.5 if args else 1.0
            if score >= threshold:
                group.append((i, j, score))
    return list(groups.values())


def _maximum_matching(
    groups: list[list[tuple[int, int, float]]], optional: frozenset[int] = frozenset()
) -> list[tuple[int, int, float]]:
    """Most pairs with required reference calls, then most with optional ones, then highest
    total score; solved per tool and, in big groups, per connected component."""
    pairs: list[tuple[int, int, float]] = []
    for edges in groups:
        if _disjoint(edges):
            pairs.extend(edges)  # no call can pair twice: nothing to choose (the usual case)
            continue
        for component in _components(edges) if len(edges) > _SPLIT_ABOVE else [edges]:
            uniform = len({score for _, _, score in component}) == 1
            if uniform and not any(j in optional for _, j, _ in component):
                pairs.extend(_maximum_cardinality(component))
            else:
                pairs.extend(_maximum_weight(component, optional))
    pairs.sort()
    return pairs


_SPLIT_ABOVE = 32
"""Edge count above which a tool's edges are split into connected components first: the
assignment costs cubic time in the group size, the split linear time in the edges."""


def _disjoint(edges: list[tuple[int, int, float]]) -> bool:
    actual_seen: set[int] = set()
    reference_seen: set[int] = set()
    for i, j, _ in edges:
        if i in actual_seen or j in reference_seen:
            return False
        actual_seen.add(i)
        reference_seen.add(j)
    return True


def _components(edges: list[tuple[int, int, float]]) -> list[list[tuple[int, int, float]]]:
    """Edges grouped by connected component (actual and reference indices are apart)."""
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def root(node: tuple[int, int]) -> tuple[int, int]:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for i, j, _ in edges:
        a, r = root((0, i)), root((1, j))
        if a != r:
            parent[a] = r
    groups: dict[tuple[int, int], list[tuple[int, int, float]]] = {}
    for edge in edges:
        groups.setdefault(root((0, edge[0])), []).append(edge)
    return list(groups.values())


def _maximum_cardinality(edges: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Most pairs (all scores equal), by breadth-first augmenting paths."""
    score = edges[0][2]
    adjacent: dict[int, list[int]] = {}
    for i, j, _ in edges:
        adjacent.setdefault(i, []).append(j)
    partner_of_actual: dict[int, int] = {}
    partner_of_reference: dict[int, int] = {}
    for start in adjacent:
        reached_from: dict[int, int] = {}  # reference index -> actual index that reached it
        frontier = [start]
        free: int | None = None
        while frontier and free is None:
            following = []
            for i in frontier:
                for j in adjacent[i]:
                    if j in reached_from:
                        continue
                    reached_from[j] = i
                    if j not in partner_of_reference:
                        free = j
                        break
                    following.append(partner_of_reference[j])
                if free is not None:
                    break
            frontier = following
        # Flip the path start -> ... -> free: each actual on it takes the next reference.
        step = free
        while step is not None:
            i = reached_from[step]
            previous = partner_of_actual.get(i)
            partner_of_actual[i] = step
            partner_of_reference[step] = i
            step = previous
    return [(i, j, score) for i, j in partner_of_actual.items()]


def _tier_weights(size: int, optional: frozenset[int]) -> tuple[float, float]:
    """Weights of a pair with a required and with an optional reference call.

    With at most ``size`` pairs and scores in [0, 1], an optional pair (``BIG + score``)
    outweighs any score gain, and a required one any number of optional pairs.
    """
    big = size + 1.0
    return ((size + 1.0) * (big + 1.0) if optional else big), big


def _maximum_weight(
    edges: list[tuple[int, int, float]], optional: frozenset[int] = frozenset()
) -> list[tuple[int, int, float]]:
    """Most pairs (required ones first), then highest total score: an assignment problem
    (Hungarian algorithm).

    Each edge weighs its tier's weight plus its score (see :func:`_tier_weights`); a missing
    edge weighs 0 and is dropped afterwards.
    """
    actuals = list(dict.fromkeys(i for i, _, _ in edges))
    references = list(dict.fromkeys(j for _, j, _ in edges))
    required_weight, optional_weight = _tier_weights(min(len(actuals), len(references)), optional)
    # The algorithm wants no more rows than columns.
    transposed = len(actuals) > len(references)
    rows, columns = (references, actuals) if transposed else (actuals, references)
    row_of = {key: row for row, key in enumerate(rows)}
    column_of = {key: column for column, key in enumerate(columns)}
    weight = [[0.0] * len(columns) for _ in rows]
    score_of = {}
    for i, j, score in edges:
        row, column = (row_of[j], column_of[i]) if transposed else (row_of[i], column_of[j])
        weight[row][column] = (optional_weight if j in optional else required_weight) + score
        score_of[i, j] = score
    pairs = []
    for row, column in enumerate(_assignment(weight)):
        i, j = (columns[column], rows[row]) if transposed else (rows[row], columns[column])
        if (i, j) in score_of:
            pairs.append((i, j, score_of[i, j]))
    pairs.sort()
    return pairs


def _assignment(weight: list[list[float]]) -> list[int]:
    """Column of each row in a maximum-weight assignment; needs rows ≤ columns.

    The O(n²·m) shortest-augmenting-path form of the Hungarian algorithm, on costs
    ``-weight``, with 1-based potentials ``u`` (rows) and ``v`` (columns).
    """
    n, m = len(weight), len(weight[0])
    infinity = math.inf
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    row_at = [0] * (m + 1)  # row_at[j]: 1-based row assigned to column j; column 0 is a sentinel
    way = [0] * (m + 1)
    for row in range(1, n + 1):
        row_at[0] = row
        column = 0
        min_slack = [infinity] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[column] = True
            current_row = row_at[column]
            costs = weight[current_row - 1]
            u_row = u[current_row]
            delta = infinity
            next_column = 0
            for j in range(1, m + 1):
                if not used[j]:
                    slack = -costs[j - 1] - u_row - v[j]
                    if slack < min_slack[j]:
                        min_slack[j] = slack
                        way[j] = column
                    if min_slack[j] < delta:
                        delta = min_slack[j]
                        next_column = j
            for j in range(m + 1):
                if used[j]:
                    u[row_at[j]] += delta
                    v[j] -= delta
                else:
                    min_slack[j] -= delta
            column = next_column
            if row_at[column] == 0:
                break
        while column:
            previous = way[column]
            row_at[column] = row_at[previous]
            column = previous
    result = [0] * n
    for j in range(1, m + 1):
        if row_at[j]:
            result[row_at[j] - 1] = j - 1
    return result


def _ordered_matching(
    n: int, m: int, edges: list[tuple[int, int, float]], optional: frozenset[int] = frozenset()
) -> list[tuple[int, int, float]]:
    """Most pairs that keep both orders (required ones first), then highest total score
    (weighted LCS).

    ``best[i][j]`` is the best weight of the first ``i`` actual and ``j`` reference calls,
    a pair weighing its tier's weight plus its score as in :func:`_maximum_weight`.
    """
    required_weight, optional_weight = _tier_weights(min(n, m), optional)
    tier = [optional_weight if j in optional else required_weight for j in range(m)]
    score_of: list[dict[int, float]] = [{} for _ in range(n)]
    for i, j, score in edges:
        score_of[i][j] = score
    best = [[0.0] * (m + 1)]
    for i in range(n):
        above, scores = best[-1], score_of[i]
        if not scores:
            best.append(above)  # a call that matches nothing changes no prefix's best
            continue
        here = [0.0] * (m + 1)
        left = 0.0
        for j in range(m):
            value = above[j + 1]
            if left > value:
                value = left
            gained = scores.get(j)
            if gained is not None:
                through = above[j] + tier[j] + gained
                if through > value:
                    value = through
            here[j + 1] = left = value
        best.append(here)
    pairs = []
    i, j = n, m
    while i and j:
        gained = score_of[i - 1].get(j - 1)
        if gained is not None and best[i][j] == best[i - 1][j - 1] + tier[j - 1] + gained:
            pairs.append((i - 1, j - 1, gained))
            i, j = i - 1, j - 1
        elif best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs


# --- what is left over ---------------------------------------------------------------------


def _leftovers(
    actual: Sequence[ToolCall],
    reference: Sequence[ToolCall],
    actual_args: Sequence[dict[str, Any]],
    expected_calls: Sequence[_Expected],
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
    expected_calls: Sequence[_Expected] | Mapping[int, _RawExpected],
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
