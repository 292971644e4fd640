"""``RunResult``: everything a dataset run produced, as frozen data (rendered by ``reporting``).

Every sample of the dataset appears in the result with one :class:`Evaluation` per metric, in
dataset × metric order, whether it was scored, undefined or failed. Summaries per metric, per
judge (and judge × metric) and the judges' agreement are computed once, when the run ends.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.chat.judge import TokenUsage
from ragas_boot.execution.results import Exclusion, StepRecord
from ragas_boot.metrics.results import MetricResult
from ragas_boot.samples import Sample

__all__ = [
    "AgreementSummary",
    "DatasetInfo",
    "Evaluation",
    "EvaluationError",
    "EvaluationStatus",
    "GateFailure",
    "JudgeInfo",
    "JudgeSummary",
    "MetricInfo",
    "MetricSummary",
    "PairAgreement",
    "RunGate",
    "RunResult",
    "RunTotals",
    "SampleRun",
    "StopReason",
]

#: ``scored``: a score exists; ``undefined``: the metric has no score for this sample (the
#: result says why); ``failed``: no result (every judge failed, or the sample lacks a field);
#: ``budget``: the run's spend cap was reached before it finished (the error says what was
#: spent; a partial result, when judges had answered, is kept but not counted as scored).
EvaluationStatus = Literal["scored", "undefined", "failed", "budget"]

#: Why a run ended before every evaluation finished: its deadline passed, it was
#: interrupted (SIGINT / SIGTERM, or :meth:`~ragas_boot.runs.RunControl.stop`), or its spend
#: cap was reached (``budget``).
StopReason = Literal["deadline", "interrupted", "budget"]

_FROZEN = ConfigDict(frozen=True)


class DatasetInfo(BaseModel):
    """Which dataset was run."""

    model_config = _FROZEN

    name: str | None = Field(default=None, description="Dataset name, when the file gives one.")
    path: str | None = Field(default=None, description="The dataset file, when read from one.")
    size: int = Field(description="Number of samples.")


class MetricInfo(BaseModel):
    """One metric of the run, with the effective config it ran with."""

    model_config = _FROZEN

    name: str = Field(description="Bean name, e.g. agent_goal_accuracy.")
    metric: str = Field(description="Metric class name, e.g. AgentGoalAccuracyMetric.")
    threshold: float = Field(description="Pass mark of the metric's config.")
    lower_is_better: bool = Field(
        default=False, description="Whether lower scores are better (the threshold is a maximum)."
    )
    judge_ids: list[str] = Field(description="Judges the metric asks; empty when it uses none.")
    config: dict[str, Any] = Field(description="The effective metric config, as JSON.")


class JudgeInfo(BaseModel):
    """One judge taking part in the run."""

    model_config = _FROZEN

    id: str = Field(description="Judge id (alias, else model id).")
    provider: str = Field(description="Provider name from the config.")
    model: str = Field(description="Model id sent to the provider.")


class EvaluationError(BaseModel):
    """Why an evaluation has no result."""

    model_config = _FROZEN

    kind: Literal[
        "all_judges_failed",
        "sample_validation",
        "no_consensus",
        "deadline",
        "interrupted",
        "budget",
        "error",
    ] = Field(
        description="Failure kind: no judge answered, the sample lacks a field, no consensus, "
        "a deadline passed (the evaluation's or the run's), the run was interrupted or its "
        "spend cap reached before it finished, or an unexpected error."
    )
    type: str = Field(description="Exception class name.")
    message: str = Field(description="The error message.")
    field: str | None = Field(default=None, description="The sample field, for sample_validation.")
    step: str | None = Field(default=None, description="The step nobody answered.")
    failures: list[Exclusion] = Field(
        default_factory=list, description="Each judge's failure (all_judges_failed)."
    )
    steps: list[StepRecord] = Field(
        default_factory=list, description="Steps run before the failure, with every judge call."
    )


class Evaluation(BaseModel):
    """One metric on one sample: a result, or the error that prevented one."""

    model_config = _FROZEN

    metric: str = Field(description="Bean name of the metric.")
    status: EvaluationStatus = Field(
        description="scored, undefined (no score exists, see result), failed (see error) or "
        "budget (the run's spend cap was reached first; see error)."
    )
    score: float | None = Field(default=None, description="The aggregated score when scored.")
    passed: bool | None = Field(
        default=None,
        description="score >= the metric's threshold (<= when lower is better); None unless "
        "scored.",
    )
    result: MetricResult | None = Field(
        default=None, description="The full metric result; None when failed."
    )
    error: EvaluationError | None = Field(default=None, description="Why it failed; else None.")
    duration_s: float = Field(default=0.0, description="Wall time of this evaluation.")

    @property
    def steps(self) -> list[StepRecord]:
        """The steps run, from the result or from the failure."""
        if self.result is not None:
            return self.result.steps
        return self.error.steps if self.error is not None else []


class SampleRun(BaseModel):
    """A sample and its evaluations, one per metric in run order."""

    model_config = _FROZEN

    sample_id: str = Field(description="The sample's id (from the file, else sample-NNN).")
    sample: Sample = Field(description="The sample as evaluated.")
    evaluations: list[Evaluation] = Field(description="One per metric, in run order.")

    def evaluation(self, metric: str) -> Evaluation:
        """The evaluation of ``metric`` (bean name).

        Raises:
            KeyError: the metric was not part of the run.
        """
        for evaluation in self.evaluations:
            if evaluation.metric == metric:
                return evaluation
        raise KeyError(metric)


class MetricSummary(BaseModel):
    """A metric over the whole dataset."""

    model_config = _FROZEN

    metric: str = Field(description="Bean name of the metric.")
    threshold: float = Field(description="Pass mark used for passed and pass_rate.")
    lower_is_better: bool = Field(
        default=False, description="Whether lower scores are better (the threshold is a maximum)."
    )
    evaluations: int = Field(description="Samples evaluated (all of them).")
    scored: int = Field(description="Evaluations with a score.")
    undefined: int = Field(description="Evaluations whose score is undefined.")
    failed: int = Field(description="Evaluations that failed.")
    passed: int = Field(
        description="Scored evaluations at or above the threshold (at or below when lower is "
        "better)."
    )
    mean: float | None = Field(description="Mean of the scores; None when nothing was scored.")
    minimum: float | None = Field(description="Lowest score; None when nothing was scored.")
    maximum: float | None = Field(description="Highest score; None when nothing was scored.")
    pass_rate: float | None = Field(description="passed / scored; None when nothing was scored.")
    budget: int = Field(default=0, description="Evaluations cut short by the spend cap.")
    usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Answered tokens of the metric's judge calls."
    )
    billed_usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Billed tokens of the metric's judge calls."
    )
    cost: float | None = Field(
        default=None, description="Cost of the priced judges' calls; None when none has a price."
    )
    unpriced_tokens: int = Field(
        default=0, description="Billed tokens of judges without a price (not in cost)."
    )


class JudgeSummary(BaseModel):
    """One judge on one metric (or on all metrics, when ``metric`` is None)."""

    model_config = _FROZEN

    judge_id: str = Field(description="The judge.")
    provider: str = Field(description="Its provider.")
    metric: str | None = Field(description="Bean name of the metric; None for all metrics.")
    evaluations: int = Field(description="Evaluations the judge was asked for.")
    scored: int = Field(description="Evaluations where the judge's score counted.")
    excluded: int = Field(description="Evaluations the judge was left out of (it failed).")
    mean: float | None = Field(
        description="Mean of the judge's own scores; None when none, or for all metrics."
    )
    pass_rate: float | None = Field(
        description="Share of the judge's scores at or above the threshold; as mean."
    )
    calls: int = Field(description="HTTP-level judge calls (one per step asked).")
    failed_calls: int = Field(description="Calls that ended without a valid answer.")
    latency_p50_s: float | None = Field(description="Median latency of answered calls, seconds.")
    latency_p95_s: float | None = Field(description="95th percentile latency, seconds.")
    usage: TokenUsage = Field(description="Answered tokens of the judge's calls.")
    billed_usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Billed tokens of the judge's calls."
    )
    cost: float | None = Field(
        default=None, description="Cost of the billed tokens; None when the judge has no price."
    )


class PairAgreement(BaseModel):
    """How often two judges gave the same binarised verdict (score >= 0.5)."""

    model_config = _FROZEN

    judge_a: str = Field(description="First judge.")
    judge_b: str = Field(description="Second judge.")
    items: int = Field(description="Evaluations both judges scored.")
    agreed: int = Field(description="Of those, how many got the same verdict.")
    percent_agreement: float | None = Field(description="agreed / items; None without items.")
    cohen_kappa: float | None = Field(
        description="Cohen's kappa; None when undefined (no items, or one verdict throughout)."
    )


class AgreementSummary(BaseModel):
    """Agreement of the judges on one metric (or all metrics, when ``metric`` is None)."""

    model_config = _FROZEN

    metric: str | None = Field(description="Bean name of the metric; None for all metrics.")
    judges: list[str] = Field(description="Judges compared: those with at least one verdict.")
    items: int = Field(description="Evaluations scored by at least two judges.")
    pairs: list[PairAgreement] = Field(description="One entry per pair of judges.")
    fleiss_kappa: float | None = Field(
        description="Fleiss' kappa over the items every judge scored; None when undefined."
    )
    fleiss_items: int = Field(description="Items every judge scored (Fleiss' kappa's basis).")


class RunTotals(BaseModel):
    """Counts over the whole run."""

    model_config = _FROZEN

    evaluations: int = Field(description="Samples × metrics.")
    scored: int = Field(description="Evaluations with a score.")
    undefined: int = Field(description="Evaluations with an undefined score.")
    failed: int = Field(description="Evaluations that failed.")
    judge_calls: int = Field(description="Judge calls made.")
    failed_judge_calls: int = Field(description="Judge calls without a valid answer.")
    usage: TokenUsage = Field(description="Answered tokens of every judge call.")
    billed_usage: TokenUsage = Field(
        default_factory=TokenUsage,
        description="Billed tokens of every judge call: re-asks, retried attempts with usage "
        "and failed calls' answers included.",
    )
    cost: float | None = Field(
        default=None, description="Cost of the priced judges' calls; None when none has a price."
    )
    unpriced_tokens: int = Field(
        default=0, description="Billed tokens of judges without a price (not in cost)."
    )
    budget: int = Field(default=0, description="Evaluations cut short by the spend cap.")


class GateFailure(BaseModel):
    """A metric that fails the run's gate."""

    model_config = _FROZEN

    metric: str = Field(description="Bean name of the metric.")
    kind: Literal["nothing_scored", "under_fail_under", "over_maximum"] = Field(
        description="nothing_scored: every evaluation failed; under_fail_under: the mean is "
        "under (or, with nothing scored, has no value against) the required mean; "
        "over_maximum: a lower-is-better metric's mean is over 1 - fail_under."
    )
    mean: float | None = Field(description="The metric's mean score; None when none exists.")
    failed: int = Field(description="Evaluations of the metric that failed.")


class RunGate(BaseModel):
    """The CI gate's verdict on a dataset run: the counterpart of a suite's ``SuiteGate``.

    A metric fails it when no sample could be scored (every evaluation failed), or when
    ``fail_under`` is given and its mean is under it (or does not exist); for a
    lower-is-better metric (NoiseSensitivity, Hallucination) the gate is on ``1 - score``,
    so its mean may be at most ``1 - fail_under``.
    """

    model_config = _FROZEN

    fail_under: float | None = Field(description="Mean every metric needs; None: not checked.")
    failures: list[GateFailure] = Field(description="The metrics that fail it, in run order.")
    passed: bool = Field(description="Whether no metric fails it.")


class RunResult(BaseModel):
    """The result of running metrics over a dataset: every sample, every metric, summaries."""

    model_config = _FROZEN

    dataset: DatasetInfo = Field(description="The dataset run.")
    metrics: list[MetricInfo] = Field(description="The metrics, in run order.")
    judges: list[JudgeInfo] = Field(description="Every judge asked by any metric.")
    samples: list[SampleRun] = Field(description="Every sample, in dataset order.")
    metric_summaries: list[MetricSummary] = Field(description="One per metric, in run order.")
    judge_summaries: list[JudgeSummary] = Field(
        description="Per judge × metric, then per judge over all metrics (metric None)."
    )
    agreement: list[AgreementSummary] = Field(
        description="Per metric with judges, then over all metrics (metric None)."
    )
    totals: RunTotals = Field(description="Counts over the whole run.")
    concurrency: int = Field(description="Evaluations allowed in flight at once.")
    started_at: datetime = Field(description="When the run started (UTC).")
    duration_s: float = Field(description="Wall time of the run.")
    stopped: StopReason | None = Field(
        default=None,
        description="Why the run ended early (deadline, interrupted, budget); None when it "
        "finished. Evaluations it did not finish are failed with that kind (budget: status "
        "budget).",
    )
    max_cost: float | None = Field(
        default=None, description="The run's spend cap; None when it had none."
    )

    def metric_summary(self, metric: str) -> MetricSummary:
        """The summary of ``metric`` (bean name).

        Raises:
            KeyError: the metric was not part of the run.
        """
        for summary in self.metric_summaries:
            if summary.metric == metric:
                return summary
        raise KeyError(metric)

    def judge_summary(self, judge_id: str, metric: str | None = None) -> JudgeSummary:
        """The summary of a judge on ``metric`` (None: over all metrics).

        Raises:
            KeyError: no such judge (or the judge did not take part in that metric).
        """
        for summary in self.judge_summaries:
            if summary.judge_id == judge_id and summary.metric == metric:
                return summary
        raise KeyError((judge_id, metric))

    def agreement_for(self, metric: str | None = None) -> AgreementSummary | None:
        """The judges' agreement on ``metric`` (None: over all metrics), if computed."""
        for summary in self.agreement:
            if summary.metric == metric:
                return summary
        return None

    def gate(self, fail_under: float | None = None) -> RunGate:
        """The CI gate's verdict (``ragas-boot evaluate --fail-under``).

        Raises:
            ValueError: ``fail_under`` is outside [0, 1].
        """
        if fail_under is not None and not 0.0 <= fail_under <= 1.0:
            raise ValueError(f"fail_under must be within [0, 1], got {fail_under!r}")
        failures = []
        for summary in self.metric_summaries:
            kind: Literal["nothing_scored", "under_fail_under", "over_maximum"] | None = None
            if summary.mean is None and summary.failed:
                kind = "nothing_scored"
            elif fail_under is None:
                pass
            elif summary.lower_is_better:
                if summary.mean is None or summary.mean > 1 - fail_under:
                    kind = "over_maximum"
            elif summary.mean is None or summary.mean < fail_under:
                kind = "under_fail_under"
            if kind is not None:
                failures.append(
                    GateFailure(
                        metric=summary.metric, kind=kind, mean=summary.mean, failed=summary.failed
                    )
                )
        return RunGate(fail_under=fail_under, failures=failures, passed=not failures)

    def failures(self) -> list[tuple[str, Evaluation]]:
        """``(sample id, evaluation)`` of every failed evaluation, in run order."""
        return [
            (run.sample_id, evaluation)
            for run in self.samples
            for evaluation in run.evaluations
            if evaluation.status == "failed"
        ]
