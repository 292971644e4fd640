"""An :class:`~ragas_boot.runs.records.Evaluation` from what a metric bean returned or raised.

One job, one translation for every caller: a dataset run (``runs/engine.py``) and the pytest
plugin's recorder both turn a bean's :class:`~ragas_boot.metrics.results.MetricResult` into a
scored or undefined evaluation, and its error into a failed one whose
:class:`~ragas_boot.runs.records.EvaluationError` names the kind (no judge answered, the
sample lacks a field, no consensus, anything else).
"""

from __future__ import annotations

from ragas_boot.errors import AllJudgesFailedError, NoConsensusError, SampleValidationError
from ragas_boot.execution.results import Exclusion
from ragas_boot.metrics.results import MetricResult
from ragas_boot.runs.records import Evaluation, EvaluationError

__all__ = ["evaluation_error", "failed_evaluation", "finished_evaluation"]


def evaluation_error(error: BaseException) -> EvaluationError:
    """Why an evaluation that raised ``error`` has no result: its kind, the step nobody
    answered and each judge's failure, the field a sample lacks."""
    kind = type(error).__name__
    if isinstance(error, AllJudgesFailedError):
        failures = getattr(error, "exclusions", None) or [
            Exclusion(judge_id=item.judge_id, step=error.step, kind=item.kind, message=item.message)
            for item in error.failures
        ]
        return EvaluationError(
            kind="all_judges_failed",
            type=kind,
            message=str(error),
            step=error.step,
            failures=list(failures),
            steps=list(getattr(error, "steps", [])),
        )
    if isinstance(error, SampleValidationError):
        return EvaluationError(
            kind="sample_validation", type=kind, message=str(error), field=error.field
        )
    if isinstance(error, NoConsensusError):
        return EvaluationError(kind="no_consensus", type=kind, message=str(error))
    return EvaluationError(kind="error", type=kind, message=str(error) or kind)


def finished_evaluation(
    metric: str, result: MetricResult, *, threshold: float, duration_s: float
) -> Evaluation:
    """The evaluation of ``result``: scored, or undefined when it has no score (a missed
    quorum marked); ``passed`` against ``threshold``."""
    return Evaluation(
        metric=metric,
        status="scored" if result.score is not None else "undefined",
        score=result.score,
        passed=result.passes(threshold),
        result=result,
        duration_s=duration_s,
        no_quorum=result.quorum is not None and not result.quorum.met,
    )


def failed_evaluation(
    metric: str, error: BaseException, *, min_judges: int | None, duration_s: float
) -> Evaluation:
    """The failed evaluation of ``error``; with a quorum (``min_judges``), no judge
    answering misses it (gates treat it as a missed quorum)."""
    return Evaluation(
        metric=metric,
        status="failed",
        error=evaluation_error(error),
        duration_s=duration_s,
        no_quorum=min_judges is not None and isinstance(error, AllJudgesFailedError),
    )
