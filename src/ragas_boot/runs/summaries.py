"""From the evaluations of a run to its summaries: per metric, per judge, agreement, totals."""

from __future__ import annotations

import itertools
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from ragas_boot.chat.judge import TokenUsage
from ragas_boot.execution.results import CallSpend
from ragas_boot.metrics.results import meets_threshold
from ragas_boot.runs.records import Evaluation, JudgeInfo, MetricInfo, SampleRun
from ragas_boot.runs.results import (
    AgreementSummary,
    JudgeSummary,
    MetricSummary,
    PairAgreement,
    RunTotals,
)
from ragas_boot.runs.statistics import cohen_kappa, fleiss_kappa, mean, percentile, verdict

__all__ = ["RunSummaries", "summarize"]


class _MetricTally:
    """What one metric's evaluations came to, added one evaluation at a time."""

    def __init__(self) -> None:
        self.evaluations = self.passed = self.undefined = self.failed = 0
        self.budget = self.no_quorum = self.unstable = 0
        self.scores = array("d")
        self.spend = CallSpend.of(())

    def add(self, evaluation: Evaluation) -> None:
        self.evaluations += 1
        status = evaluation.status
        if status == "scored" and evaluation.score is not None:
            self.scores.append(evaluation.score)
        self.passed += bool(evaluation.passed and status == "scored")
        self.undefined += status == "undefined"
        self.failed += status == "failed"
        self.budget += status == "budget"
        self.no_quorum += evaluation.no_quorum
        self.unstable += evaluation.unstable
        for call in evaluation.judge_calls():
            self.spend = self.spend.plus(call)

    def summary(self, info: MetricInfo) -> MetricSummary:
        scores = self.scores
        return MetricSummary(
            metric=info.name,
            threshold=info.threshold,
            lower_is_better=info.lower_is_better,
            evaluations=self.evaluations,
            scored=len(scores),
            undefined=self.undefined,
            failed=self.failed,
            passed=self.passed,
            mean=mean(scores),
            minimum=min(scores, default=None),
            maximum=max(scores, default=None),
            pass_rate=self.passed / len(scores) if scores else None,
            budget=self.budget,
            usage=self.spend.usage,
            billed_usage=self.spend.billed_usage,
            cost=self.spend.cost,
            unpriced_tokens=self.spend.unpriced_tokens,
            no_quorum=self.no_quorum,
            unstable=self.unstable,
        )


@dataclass
class _Tally:
    """What one judge did on one metric (or all of them)."""

    evaluations: int = 0
    excluded: int = 0
    scores: array[float] = field(default_factory=lambda: array("d"))
    passed: int = 0
    calls: int = 0
    failed_calls: int = 0
    latencies: array[float] = field(default_factory=lambda: array("d"))
    usage: TokenUsage = field(default_factory=TokenUsage)
    billed: TokenUsage = field(default_factory=TokenUsage)
    cost: float | None = None
    cache_hits: int = 0
    cache_misses: int = 0
    saved_usage: TokenUsage = field(default_factory=TokenUsage)
    saved_cost: float | None = None

    def add_evaluation(self, evaluation: Evaluation, judge_id: str, info: MetricInfo) -> None:
        calls = [call for call in evaluation.judge_calls() if call.judge_id == judge_id]
        result = evaluation.result
        asked = judge_id in result.judge_ids if result is not None else bool(calls)
        if not asked:
            return
        self.evaluations += 1
        if result is not None and judge_id in result.model_scores:
            score = result.model_scores[judge_id]
            self.scores.append(score)
            self.passed += meets_threshold(
                score, info.threshold, lower_is_better=info.lower_is_better
            )
        elif result is None or judge_id in result.excluded_judges:
            self.excluded += 1
        for call in calls:
            self.calls += 1
            self.usage = self.usage + call.usage
            self.billed = self.billed + call.billed_usage
            if call.cost is not None:
                self.cost = (self.cost or 0.0) + call.cost
            self.cache_hits += call.cache == "hit"
            self.cache_misses += call.cache == "miss"
            self.saved_usage = self.saved_usage + call.saved_usage
            if call.saved_cost is not None:
                self.saved_cost = (self.saved_cost or 0.0) + call.saved_cost
            if call.ok:
                self.latencies.append(call.latency_s)
            else:
                self.failed_calls += 1

    def merge(self, other: _Tally) -> None:
        """Add what ``other`` counted (the same judge on another metric)."""
        self.evaluations += other.evaluations
        self.excluded += other.excluded
        self.scores.extend(other.scores)
        self.passed += other.passed
        self.calls += other.calls
        self.failed_calls += other.failed_calls
        self.latencies.extend(other.latencies)
        self.usage = self.usage + other.usage
        self.billed = self.billed + other.billed
        if other.cost is not None:
            self.cost = (self.cost or 0.0) + other.cost
        self.cache_hits += other.cache_hits
        self.cache_misses += other.cache_misses
        self.saved_usage = self.saved_usage + other.saved_usage
        if other.saved_cost is not None:
            self.saved_cost = (self.saved_cost or 0.0) + other.saved_cost

    def summary(self, judge: JudgeInfo, metric: str | None) -> JudgeSummary:
        scored = len(self.scores)
        per_metric = metric is not None
        return JudgeSummary(
            judge_id=judge.id,
            provider=judge.provider,
            metric=metric,
            evaluations=self.evaluations,
            scored=scored,
            excluded=self.excluded,
            mean=mean(self.scores) if per_metric else None,
            pass_rate=self.passed / scored if per_metric and scored else None,
            calls=self.calls,
            failed_calls=self.failed_calls,
            latency_p50_s=percentile(self.latencies, 0.5),
            latency_p95_s=percentile(self.latencies, 0.95),
            usage=self.usage,
            billed_usage=self.billed,
            cost=self.cost,
            cache_hits=self.cache_hits,
            cache_misses=self.cache_misses,
            saved_usage=self.saved_usage,
            saved_cost=self.saved_cost,
        )


def _verdicts(evaluation: Evaluation) -> dict[str, bool]:
    if evaluation.result is None:
        return {}
    return {judge: verdict(score) for judge, score in evaluation.result.model_scores.items()}


def _agreement(
    metric: str | None, judges: list[str], items: list[dict[str, bool]]
) -> AgreementSummary:
    items = [item for item in items if len(item) >= 2]
    # A judge that never gave a verdict (down for the whole run) would leave Fleiss' kappa
    # with no complete item; it is left out, and its exclusions show in the judge summaries.
    judges = [judge for judge in judges if any(judge in item for item in items)]
    pairs = []
    for first, second in itertools.combinations(judges, 2):
        both = [item for item in items if first in item and second in item]
        a = [item[first] for item in both]
        b = [item[second] for item in both]
        agreed = sum(x == y for x, y in zip(a, b, strict=True))
        pairs.append(
            PairAgreement(
                judge_a=first,
                judge_b=second,
                items=len(both),
                agreed=agreed,
                percent_agreement=agreed / len(both) if both else None,
                cohen_kappa=cohen_kappa(a, b),
            )
        )
    complete = [[item[judge] for judge in judges] for item in items if len(item) == len(judges)]
    return AgreementSummary(
        metric=metric,
        judges=judges,
        items=len(items),
        pairs=pairs,
        fleiss_kappa=fleiss_kappa(complete),
        fleiss_items=len(complete),
    )


@dataclass(frozen=True, slots=True)
class RunSummaries:
    """Every summary of a run (see :func:`summarize`)."""

    metrics: list[MetricSummary]
    judges: list[JudgeSummary]
    agreement: list[AgreementSummary]
    totals: RunTotals


def summarize(
    judges: Sequence[JudgeInfo], metrics: Sequence[MetricInfo], samples: Iterable[SampleRun]
) -> RunSummaries:
    """Every summary in ONE pass over the samples, in order, holding only the figures: a
    spooled run's samples are read back from disk one at a time, so summing them keeps
    nothing per evaluation but its score, its judges' verdicts and call latencies.

    Per metric, in run order; per judge × metric (judge order, then metric order), then per
    judge over all metrics; judges' agreement per metric asking two judges or more, then over
    all of them when there are several; totals over every evaluation and judge call.
    """
    names = [info.name for info in metrics]
    tallies = {info.name: _MetricTally() for info in metrics}
    asked = [
        (judge, info, _Tally())
        for judge in judges
        for info in metrics
        if judge.id in info.judge_ids
    ]
    overall = {judge.id: _Tally() for judge in judges}
    compared = [info for info in metrics if len(info.judge_ids) >= 2]
    verdicts: dict[str, list[dict[str, bool]]] = {info.name: [] for info in compared}
    totals = _Totals()
    for run in samples:
        for evaluation in run.evaluations:
            totals.add(evaluation)
        by_name = {name: run.evaluation(name) for name in names}
        for name, evaluation in by_name.items():
            tallies[name].add(evaluation)
            if name in verdicts:
                verdicts[name].append(_verdicts(evaluation))
        for judge, info, tally in asked:
            tally.add_evaluation(by_name[info.name], judge.id, info)
    # Per judge over all metrics: its per-metric tallies merged, in metric order.
    for judge in judges:
        total = overall[judge.id]
        for other, _info, tally in asked:
            if other is judge:
                total.merge(tally)
    judge_rows = [tally.summary(judge, info.name) for judge, info, tally in asked]
    judge_rows += [overall[judge.id].summary(judge, None) for judge in judges]
    agreement = [
        _agreement(info.name, list(info.judge_ids), verdicts[info.name]) for info in compared
    ]
    if len(agreement) > 1:
        pooled_judges = {judge for info in compared for judge in info.judge_ids}
        ordered = [judge.id for judge in judges if judge.id in pooled_judges]
        pooled = [item for info in compared for item in verdicts[info.name]]
        agreement.append(_agreement(None, ordered, pooled))
    return RunSummaries(
        metrics=[tallies[info.name].summary(info) for info in metrics],
        judges=judge_rows,
        agreement=agreement,
        totals=totals.summary(),
    )


class _Totals:
    """Counts over every evaluation and judge call, added one evaluation at a time."""

    def __init__(self) -> None:
        self.evaluations = self.scored = self.undefined = self.failed = self.budget = 0
        self.calls = self.failed_calls = self.cache_hits = self.cache_misses = 0
        self.spend = CallSpend.of(())
        self.saved = TokenUsage()
        self.saved_cost: float | None = None

    def add(self, evaluation: Evaluation) -> None:
        self.evaluations += 1
        status = evaluation.status
        self.scored += status == "scored"
        self.undefined += status == "undefined"
        self.failed += status == "failed"
        self.budget += status == "budget"
        for call in evaluation.judge_calls():
            self.calls += 1
            self.failed_calls += not call.ok
            self.spend = self.spend.plus(call)
            self.cache_hits += call.cache == "hit"
            self.cache_misses += call.cache == "miss"
            self.saved = self.saved + call.saved_usage
            if call.saved_cost is not None:
                self.saved_cost = (self.saved_cost or 0.0) + call.saved_cost

    def summary(self) -> RunTotals:
        return RunTotals(
            evaluations=self.evaluations,
            scored=self.scored,
            undefined=self.undefined,
            failed=self.failed,
            judge_calls=self.calls,
            failed_judge_calls=self.failed_calls,
            usage=self.spend.usage,
            billed_usage=self.spend.billed_usage,
            cost=self.spend.cost,
            unpriced_tokens=self.spend.unpriced_tokens,
            budget=self.budget,
            cache_hits=self.cache_hits,
            cache_misses=self.cache_misses,
            saved_usage=self.saved,
            saved_cost=self.saved_cost,
        )
