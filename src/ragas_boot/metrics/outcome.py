"""From what a metric's scoring produced to its :class:`~ragas_boot.metrics.results.MetricResult`.

One job: :class:`ScoringOutcome` (what a metric's ``_score`` returns), the error of a step
no judge answered (:func:`all_failed`, carrying the steps run so far) and the result made of
an outcome (:func:`build_result`). The cost it keeps: a metric that calls no model adds up no
tokens, and a judge-less outcome's metadata and explanation are built only when the
result's are first read (:meth:`MetricResult.built`, not validated again).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ragas_boot.chat.judge import TokenUsage, no_tokens
from ragas_boot.errors import AllJudgesFailedError, JudgeFailureSummary
from ragas_boot.execution.aggregation import agreement
from ragas_boot.execution.results import CallSpend, Exclusion, StepRecord
from ragas_boot.metrics.results import Details, MetricResult, Quorum

__all__ = [
    "ScoringOutcome",
    "all_failed",
    "build_result",
    "exclusions_of",
    "labelled",
    "steps_of",
]

#: The spend of a metric that calls no model.
_NO_SPEND = CallSpend.of(())
_ONE = agreement([])
"""The agreement of a result no judge voted on (unanimous)."""


@dataclass
class ScoringOutcome:
    """What a metric's scoring produced, before it becomes a :class:`MetricResult`."""

    model_scores: dict[str, float]
    steps: list[StepRecord]
    exclusions: list[Exclusion]
    metadata: dict[str, Any]
    explanation: str
    mode: str | None = None
    score: float | None = None
    undefined_reason: str | None = None
    aggregated: bool = True
    extra_usage: TokenUsage = field(default_factory=no_tokens)
    details: Details | None = None
    """A judge-less metric's metadata and explanation, built when the result's are first
    read (``metadata`` and ``explanation`` above are then left empty): the result is built
    from the figures alone, not validated again (:meth:`MetricResult.built`)."""


def all_failed(
    metric: str, step: str, steps: Sequence[StepRecord], exclusions: Sequence[Exclusion]
) -> AllJudgesFailedError:
    """The error for a step nobody answered, carrying the steps run so far and the
    exclusions (:func:`steps_of`, :func:`exclusions_of` read them back)."""
    failures = [
        JudgeFailureSummary(judge_id=item.judge_id, kind=item.kind, message=item.message)
        for item in exclusions
        if item.step == step
    ]
    error = AllJudgesFailedError(metric, step, failures)
    error.steps = list(steps)  # type: ignore[attr-defined]
    error.exclusions = list(exclusions)  # type: ignore[attr-defined]
    return error


def steps_of(error: Exception) -> list[StepRecord]:
    """The steps an error of :func:`all_failed` carries (none for any other error)."""
    steps: list[StepRecord] = getattr(error, "steps", [])
    return steps


def exclusions_of(error: Exception) -> list[Exclusion]:
    """The exclusions an error of :func:`all_failed` carries (none for any other error)."""
    exclusions: list[Exclusion] = getattr(error, "exclusions", [])
    return exclusions


def labelled(metadata: dict[str, Any], criterion: str | None) -> dict[str, Any]:
    """``metadata`` with the bean's named criterion first, when it has one."""
    return {"criterion": criterion, **metadata} if criterion else metadata


def _labelled_details(details: Details, criterion: str | None) -> Details:
    """``details`` whose metadata is :func:`labelled`."""
    if not criterion:
        return details

    def with_criterion() -> tuple[dict[str, Any], str]:
        metadata, explanation = details()
        return labelled(metadata, criterion), explanation

    return with_criterion


def build_result(
    outcome: ScoringOutcome,
    *,
    metric: str,
    score: float | None,
    judge_ids: list[str],
    aggregation: str,
    language: str,
    config: dict[str, Any],
    undefined_reason: str | None,
    duration_s: float,
    sample_id: str | None,
    lower_is_better: bool,
    quorum: Quorum | None,
    calls_models: bool,
    criterion: str | None,
) -> MetricResult:
    """The result of ``outcome``: the judges' agreement, the tokens and cost of every call
    (none added up when the metric ``calls_models`` not), the criterion in its metadata."""
    votes = agreement(list(outcome.model_scores.values())) if outcome.model_scores else _ONE
    spend = (
        CallSpend.of(call for step in outcome.steps for call in step.calls)
        if calls_models
        else _NO_SPEND
    )
    values: dict[str, Any] = {
        "metric": metric,
        "score": None if score is None else float(score),
        "model_scores": outcome.model_scores,
        "exclusions": outcome.exclusions,
        "steps": outcome.steps,
        "agreement": votes.share,
        "disagreement": votes.disagreement,
        "aggregation": aggregation,
        "judge_ids": judge_ids,
        "language": language,
        "mode": outcome.mode,
        "config": config,
        "undefined_reason": undefined_reason,
        "duration_s": duration_s,
        # A zero side of a sum is the other side itself: no new object without a model.
        "usage": outcome.extra_usage + spend.usage,
        "billed_usage": outcome.extra_usage + spend.billed_usage,
        "cost": spend.cost,
        "sample_id": sample_id,
        "lower_is_better": lower_is_better,
        "quorum": quorum,
        "repeats": None,
    }
    if outcome.details is not None:
        return MetricResult.built(_labelled_details(outcome.details, criterion), values)
    return MetricResult(
        **values,
        metadata=labelled(outcome.metadata, criterion),
        explanation=outcome.explanation,
    )
