"""``RunResult``: everything a dataset run produced, as frozen data (rendered by ``reporting``).

Every sample of the dataset appears in the result with one :class:`Evaluation` per metric, in
dataset × metric order, whether it was scored, undefined or failed. Summaries per metric, per
judge (and judge × metric) and the judges' agreement are computed once, when the run ends.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    SerializerFunctionWrapHandler,
    field_serializer,
)

from ragas_boot.chat.judge import TokenUsage
from ragas_boot.config.settings import QuorumFailure
from ragas_boot.execution.results import CacheOutcome, Exclusion, JudgeCall, StepRecord
from ragas_boot.metrics.results import MetricResult
from ragas_boot.runs.gates import GateFailure, GateFailureKind, RunGate
from ragas_boot.runs.judges import JudgeInfo
from ragas_boot.samples import Sample

if TYPE_CHECKING:  # runs/spool.py builds on this module
    import pandas

    from ragas_boot.runs.spool import EvaluationSpool

__all__ = [
    "AgreementSummary",
    "CallFacts",
    "DatasetInfo",
    "Evaluation",
    "EvaluationError",
    "EvaluationStatus",
    "GateFailure",
    "GateFailureKind",
    "JudgeInfo",
    "JudgeSummary",
    "MetricInfo",
    "MetricSummary",
    "PairAgreement",
    "RunGate",
    "RunResult",
    "RunTotals",
    "SampleRun",
    "SpooledEvaluation",
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
    no_quorum: int = Field(default=0, description="Evaluations without their quorum of judges.")
    unstable: int = Field(
        default=0, description="Samples whose repeats fell on both sides of the threshold."
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
    cache_hits: int = Field(default=0, description="Calls answered by the response cache.")
    cache_misses: int = Field(
        default=0, description="Calls the response cache was asked for and did not hold."
    )
    saved_usage: TokenUsage = Field(
        default_factory=TokenUsage,
        description="Tokens the cache hits saved (what their answers cost when first asked).",
    )
    saved_cost: float | None = Field(
        default=None, description="What the saved tokens cost at the judge's price (None: none)."
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
    cache_hits: int = Field(default=0, description="Judge calls answered by the response cache.")
    cache_misses: int = Field(
        default=0, description="Judge calls the response cache was asked for and did not hold."
    )
    saved_usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Tokens the cache hits saved."
    )
    saved_cost: float | None = Field(
        default=None,
        description="Money the cache hits saved, at the prices of the judges that have one.",
    )


class RunResult(BaseModel):
    """The result of running metrics over a dataset: every sample, every metric, summaries."""

    model_config = _FROZEN

    dataset: DatasetInfo = Field(description="The dataset run.")
    metrics: list[MetricInfo] = Field(description="The metrics, in run order.")
    judges: list[JudgeInfo] = Field(description="Every judge asked by any metric.")
    samples: Sequence[SampleRun] = Field(
        description="Every sample, in dataset order (a spooled run reads each back from its "
        "spool when it is asked for: see runs/spool.py)."
    )
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
    #: The full evaluations of a spooled run (see ``runs/spool.py``); not a field, so not in
    #: dumps, the schema or equality.
    _spool: EvaluationSpool | None = PrivateAttr(default=None)

    @field_serializer("samples", mode="wrap")
    def _every_sample(
        self, samples: Sequence[SampleRun], handler: SerializerFunctionWrapHandler
    ) -> Any:
        # A spooled run's samples are a lazy sequence: dumping the whole run reads them all.
        return handler(samples if isinstance(samples, list) else list(samples))

    @property
    def spooled(self) -> bool:
        """Whether the judge calls kept in ``samples`` are slim (no prompt, parsed answer or
        raw answers): the run had more samples than ``spool-after``, and the full
        evaluations are in its spool (read back with :meth:`full_sample`)."""
        return self._spool is not None

    def full_sample(self, index: int) -> SampleRun:
        """The sample at ``index`` with its evaluations in full (prompts and raw answers
        included), read back from the spool of a spooled run; ``samples[index]`` otherwise.
        Read back from JSON, each call's parsed answer (``JudgeCall.value``) is JSON data,
        not the answer's model.

        Raises:
            SpoolClosedError: the spool was closed (:meth:`close_spool`).
        """
        run = self.samples[index]
        spool = self._spool
        if spool is None:
            return run
        evaluations = [
            spool.evaluation((index, position)) or evaluation
            for position, evaluation in enumerate(run.evaluations)
        ]
        return run.model_copy(update={"evaluations": evaluations})

    def sample_document(self, index: int) -> dict[str, Any]:
        """``full_sample(index).model_dump(mode="json")``: the sample as the JSON report shows
        it (a spooled evaluation is taken from the spool as it was written, not re-validated).

        Raises:
            SpoolClosedError: the spool was closed (:meth:`close_spool`).
        """
        run = self.samples[index]
        spool = self._spool
        if spool is None:
            return run.model_dump(mode="json")
        # ``evaluations`` is SampleRun's last field: appending it keeps the dump's key order.
        document = run.model_dump(mode="json", exclude={"evaluations"})
        document["evaluations"] = [
            spool.document((index, position)) or evaluation.model_dump(mode="json")
            for position, evaluation in enumerate(run.evaluations)
        ]
        return document

    def close_spool(self) -> None:
        """Close the spool of a spooled run (its unnamed file is then gone); afterwards the
        slim evaluations remain, :meth:`full_sample` and the reports' prompts do not. A
        no-op for a run that was not spooled; the spool is closed anyway when the result is
        garbage-collected or the process ends."""
        if self._spool is not None:
            self._spool.close()

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

    @property
    def passed_samples(self) -> int:
        """Samples that passed every metric (:attr:`SampleRun.passed`), of those counted."""
        return sum(1 for run in self.samples if run.counted and run.passed)

    @property
    def simulator_failures(self) -> int:
        """Samples the simulator failed (not :attr:`SampleRun.counted`): not the agent's."""
        return sum(1 for run in self.samples if not run.counted)

    @property
    def sample_pass_rate(self) -> float | None:
        """Share of the counted samples that passed every metric; None when none counts."""
        total = len(self.samples) - self.simulator_failures
        return self.passed_samples / total if total else None

    def gate(
        self,
        fail_under: float | None = None,
        *,
        min_pass_rate: float | None = None,
        min_sample_pass_rate: float | None = None,
    ) -> RunGate:
        """The CI gate's verdict (``ragas-boot evaluate --fail-under --min-pass-rate
        --min-passed``, ``ragas-boot suite run --min-pass-rate``).

        Args:
            fail_under: the mean every metric needs (None: not checked).
            min_pass_rate: the share of passing repeats every sample needs, for every metric
                (None: each metric's ``min-pass-rate``, when it has one). A sample scored once
                has a pass rate of 1 or 0.
            min_sample_pass_rate: the share of samples that must pass every metric (a
                suite's ``min-pass-rate``; None: not checked). Compared unrounded.

        Raises:
            ValueError: a value is outside [0, 1].
        """
        for name, value in (
            ("fail_under", fail_under),
            ("min_pass_rate", min_pass_rate),
            ("min_sample_pass_rate", min_sample_pass_rate),
        ):
            if value is not None and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be within [0, 1], got {value!r}")
        infos = {info.name: info for info in self.metrics}
        failures = []
        for summary in self.metric_summaries:
            info = infos[summary.metric]
            if summary.no_quorum and info.quorum_failure is QuorumFailure.FAIL:
                failures.append(
                    GateFailure(
                        metric=summary.metric,
                        kind="no_quorum",
                        mean=summary.mean,
                        failed=summary.failed,
                        count=summary.no_quorum,
                    )
                )
            required = min_pass_rate
            if required is None:
                required = info.config.get("min_pass_rate")
            if required is not None:
                rates = [
                    rate
                    for run in self.samples
                    if (rate := run.evaluation(summary.metric).pass_rate) is not None
                ]
                under = [rate for rate in rates if rate < required - 1e-12]
                if under:
                    failures.append(
                        GateFailure(
                            metric=summary.metric,
                            kind="under_min_pass_rate",
                            mean=summary.mean,
                            failed=summary.failed,
                            count=len(under),
                            lowest_pass_rate=min(under),
                        )
                    )
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
        gate = RunGate(
            fail_under=fail_under,
            min_pass_rate=min_pass_rate,
            min_sample_pass_rate=min_sample_pass_rate,
            samples=len(self.samples) - self.simulator_failures,
            passed_samples=self.passed_samples,
            simulator_failures=self.simulator_failures,
            failures=failures,
            passed=not failures,
        )
        if gate.samples_passed_gate:
            return gate
        return gate.model_copy(update={"passed": False})

    def to_pandas(self, *, wide: bool = False) -> pandas.DataFrame:
        """The run as a pandas DataFrame (the ``[tables]`` extra).

        Args:
            wide: one row per sample with a score, ``:passed`` and ``:status`` column per
                metric (ragas's shape); default: one row per sample × metric with status,
                score, threshold, passed, reason, tokens, cost, latency and each judge's
                score and reason (``score:JUDGE``, ``reason:JUDGE``); see ``runs/rows.py``.

        Raises:
            MissingExtraError: pandas is not installed.
        """
        from ragas_boot._extras import import_extra
        from ragas_boot.runs.rows import table_rows

        pd = import_extra("pandas", feature="to_pandas()", extra="tables", package="pandas")
        columns, rows = table_rows(self, wide=wide)
        return pd.DataFrame(list(rows), columns=columns)

    def failures(self) -> list[tuple[str, Evaluation]]:
        """``(sample id, evaluation)`` of every failed evaluation, in run order."""
        return [
            (run.sample_id, evaluation)
            for run in self.samples
            for evaluation in run.evaluations
            if evaluation.status == "failed"
        ]
