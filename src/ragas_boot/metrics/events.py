"""What a metric bean tells its listeners about each evaluation.

One job: the :class:`~ragas_boot.execution.listeners.EvaluationStarted` and
:class:`~ragas_boot.execution.listeners.EvaluationFinished` events of an evaluation, of each
repeat and of the repeats together, finished or failed. The cost it keeps: callers send
nothing to a bean nobody listens to (``if listeners:`` first; these functions build the
event), so a judge-less evaluation pays for no event.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragas_boot.execution.listeners import (
    EvaluationFinished,
    EvaluationStarted,
    ListenerRegistry,
)
from ragas_boot.execution.results import Exclusion, StepRecord
from ragas_boot.metrics.configuration import MetricConfig
from ragas_boot.metrics.results import MetricResult
from ragas_boot.samples import Sample

__all__ = ["notify_failed", "notify_finished", "notify_started"]


def notify_started(
    listeners: ListenerRegistry,
    *,
    metric: str,
    sample: Sample,
    config: MetricConfig,
    judge_ids: list[str],
    total_steps: int,
) -> None:
    """Before the metric's first step."""
    listeners.notify_before(
        EvaluationStarted(
            metric=metric,
            sample=sample,
            config=config,
            judge_ids=judge_ids,
            total_steps=total_steps,
        )
    )


def notify_finished(
    listeners: ListenerRegistry,
    *,
    metric: str,
    bean_name: str,
    sample: Sample,
    config: MetricConfig,
    result: MetricResult,
    repeat: int | None,
    min_judges: int | None,
) -> None:
    """After an evaluation that produced ``result`` (``repeat``: the index of one repeat of
    ``repeat: N``; None for an ordinary evaluation or for the repeats together)."""
    listeners.notify_after(
        EvaluationFinished(
            metric=metric,
            bean_name=bean_name,
            min_judges=min_judges,
            sample=sample,
            config=config,
            judge_ids=result.judge_ids,
            score=result.score,
            model_scores=result.model_scores,
            steps=result.steps,
            exclusions=result.exclusions,
            duration_s=result.duration_s,
            result=result,
            metadata=result.metadata,
            repeat=repeat,
        )
    )


def notify_failed(
    listeners: ListenerRegistry,
    *,
    metric: str,
    bean_name: str,
    sample: Sample,
    config: MetricConfig,
    judge_ids: list[str],
    error: Exception,
    steps: Sequence[StepRecord],
    exclusions: Sequence[Exclusion],
    model_scores: dict[str, float] | None = None,
    duration_s: float,
    repeat: int | None = None,
    min_judges: int | None,
) -> None:
    """After an evaluation (or every repeat of one) that raised ``error``: what was run
    before the failure still reaches listeners (reports show it)."""
    listeners.notify_after(
        EvaluationFinished(
            metric=metric,
            bean_name=bean_name,
            failure=error,
            min_judges=min_judges,
            sample=sample,
            config=config,
            judge_ids=judge_ids,
            score=None,
            model_scores=model_scores or {},
            steps=list(steps),
            exclusions=list(exclusions),
            duration_s=duration_s,
            error=str(error),
            repeat=repeat,
        )
    )
