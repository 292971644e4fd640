"""The records of a run: what it ran (dataset, metrics, judges) and each sample's evaluations.

A :class:`SampleRun` holds one :class:`Evaluation` per metric: a result, or the
:class:`EvaluationError` that prevented one. A spooled run keeps a slim copy of each
(:class:`SpooledEvaluation`, its judge calls as :class:`CallFacts`). The run's summaries and
:class:`~ragas_boot.runs.results.RunResult` itself are in ``results.py``; this module imports
none of the modules built on it (``results``, ``rows``, ``spool``), so they never import one
another round a circle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from ragas_boot.chat.judge import TokenUsage
from ragas_boot.config.settings import QuorumFailure
from ragas_boot.execution.results import CacheOutcome, Exclusion, JudgeCall, StepRecord
from ragas_boot.metrics.results import MetricResult
from ragas_boot.runs.judges import JudgeInfo
from ragas_boot.samples import Sample

__all__ = [
    "CallFacts",
    "DatasetInfo",
    "Evaluation",
    "EvaluationError",
    "EvaluationStatus",
    "JudgeInfo",
    "MetricInfo",
    "SampleRun",
    "SpooledEvaluation",
]

#: ``scored``: a score exists; ``undefined``: the metric has no score for this sample (the
#: result says why); ``failed``: no result (every judge failed, or the sample lacks a field);
#: ``budget``: the run's spend cap was reached before it finished (the error says what was
#: spent; a partial result, when judges had answered, is kept but not counted as scored).
EvaluationStatus = Literal["scored", "undefined", "failed", "budget"]

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
    min_judges: int | None = Field(
        default=None, description="The quorum (min-judges, with the YAML default); None: none."
    )
    quorum_failure: QuorumFailure = Field(
        default=QuorumFailure.FAIL,
        description="FAIL: an evaluation without its quorum fails the gate; SKIP: it does not.",
    )


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


@dataclass(frozen=True, slots=True)
class CallFacts:
    """What a spooled run keeps of a judge call: what the summaries count (status, time,
    tokens, cost, cache), not its prompt or answers. Its fields are :class:`JudgeCall`'s."""

    judge_id: str
    step: str
    ok: bool
    error_kind: str | None
    latency_s: float
    usage: TokenUsage
    billed_usage: TokenUsage
    cost: float | None
    cache: CacheOutcome
    saved_usage: TokenUsage
    saved_cost: float | None

    @classmethod
    def of(cls, call: JudgeCall) -> CallFacts:
        """The facts of ``call``."""
        return cls(
            judge_id=call.judge_id,
            step=call.step,
            ok=call.ok,
            error_kind=call.error_kind,
            latency_s=call.latency_s,
            usage=call.usage,
            billed_usage=call.billed_usage,
            cost=call.cost,
            cache=call.cache,
            saved_usage=call.saved_usage,
            saved_cost=call.saved_cost,
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
    no_quorum: bool = Field(
        default=False,
        description="Fewer judges answered than min-judges requires (undefined, or failed "
        "with no judge answering).",
    )

    @property
    def pass_rate(self) -> float | None:
        """Share of passing runs: the repeats' pass rate, else 1.0 or 0.0 when scored."""
        if self.result is not None and self.result.repeats is not None:
            return self.result.repeats.pass_rate
        if self.passed is None:
            return None
        return 1.0 if self.passed else 0.0

    @property
    def unstable(self) -> bool:
        """Whether the repeats fell on both sides of the threshold."""
        repeats = self.result.repeats if self.result is not None else None
        return repeats is not None and repeats.unstable

    @property
    def steps(self) -> list[StepRecord]:
        """The steps run, from the result or from the failure."""
        if self.result is not None:
            return self.result.steps
        return self.error.steps if self.error is not None else []

    def judge_calls(self) -> Sequence[JudgeCall | CallFacts]:
        """Every judge call of the evaluation, in step order: the calls of :attr:`steps`, or
        the :class:`CallFacts` a spooled run keeps of them."""
        return [call for step in self.steps for call in step.calls]


class SpooledEvaluation(Evaluation):
    """An evaluation of a spooled run as the run keeps it: every field as it was, except that
    ``result.steps`` and ``error.steps`` are empty (the full evaluation is in the run's
    spool: ``RunResult.full_sample``); :meth:`judge_calls` gives the facts of each call."""

    _calls: tuple[CallFacts, ...] = PrivateAttr(default=())

    def judge_calls(self) -> Sequence[JudgeCall | CallFacts]:
        """The :class:`CallFacts` of every judge call, in step order."""
        return self._calls


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

    @property
    def counted(self) -> bool:
        """Whether the sample counts in pass rates (not when the simulator failed it)."""
        return self.sample.agent_run is None or not self.sample.agent_run.simulator_failed

    @property
    def passed(self) -> bool:
        """Whether every metric passed the sample (a suite's case passes so).

        No evaluation may have failed (``failed``, ``budget``), scored under its threshold
        or missed its quorum of judges; an undefined score (a metric with no score for this
        sample: a case that expects nothing of its tool calls) neither passes nor fails it,
        but at least one evaluation must have passed.
        """
        passed_any = False
        for evaluation in self.evaluations:
            if evaluation.status in ("failed", "budget") or evaluation.no_quorum:
                return False
            if evaluation.passed is False:
                return False
            passed_any = passed_any or evaluation.passed is True
        return passed_any
