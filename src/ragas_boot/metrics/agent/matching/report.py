"""What a matching reports: the pairs and left-overs, the rates, the summary line (en by
default, other languages by template) and the JSON-ready dump for result metadata."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from ragas_boot.metrics.agent.matching.modes import (
    CallOrder,
    FailedCalls,
    ToolCallMode,
    ValueComparison,
)
from ragas_boot.samples import ExpectedToolCall, ToolCall

__all__ = [
    "SUMMARY_TEMPLATES",
    "SUMMARY_TEMPLATES_RU",
    "CorrectCall",
    "IncorrectCall",
    "MatchedPair",
    "ToolCallMatching",
    "UnmatchedCall",
]


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

SUMMARY_TEMPLATES_RU = {
    "head": "Точность {accuracy:.1f}% | Верно {correct}/{required} | Неверно {incorrect}"
    " | Пропущено {missed} | Лишние {extra}",
    "optional": " | Необязательные {optional}",
    "alternative": " | Вариант {number} из {count}",
    "failed": " | Ошибки {failed} (исправлено {recovered}, исключено {excluded})",
}
""":data:`SUMMARY_TEMPLATES` in Russian (ToolCallAccuracy's explanation with ``language: ru``)."""


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
