"""From the evaluations of a run to its summaries: per metric, per judge, agreement, totals."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

from ragas_boot.chat.judge import TokenUsage
from ragas_boot.execution.results import CallSpend
from ragas_boot.metrics.results import meets_threshold
from ragas_boot.runs.results import (
    AgreementSummary,
    Evaluation,
    JudgeInfo,
    JudgeSummary,
    MetricInfo,
    MetricSummary,
    PairAgreement,
    RunTotals,
    SampleRun,
)
from ragas_boot.runs.statistics import cohen_kappa, fleiss_kappa, mean, percentile, verdict

__all__ = ["agreement_summaries", "judge_summaries", "metric_summaries", "run_totals"]


def metric_summaries(
    metrics: Sequence[MetricInfo], samples: Sequence[SampleRun]
) -> list[MetricSummary]:
    """One summary per metric, in run order."""
    summaries = []
    for info in metrics:
        evaluations = [run.evaluation(info.name) for run in samples]
        scores = [e.score for e in evaluations if e.status == "scored" and e.score is not None]
        passed = sum(1 for e in evaluations if e.passed and e.status == "scored")
        spend = CallSpend.of(call for e in evaluations for call in e.judge_calls())
        summaries.append(
            MetricSummary(
                metric=info.name,
                threshold=info.threshold,
                lower_is_better=info.lower_is_better,
                evaluations=len(evaluations),
                scored=len(scores),
                undefined=sum(1 for e in evaluations if e.status == "undefined"),
                failed=sum(1 for e in evaluations if e.status == "failed"),
                passed=passed,
                mean=mean(scores),
                minimum=min(scores, default=None),
                maximum=max(scores, default=None),
                pass_rate=passed / len(scores) if scores else None,
                budget=sum(1 for e in evaluations if e.status == "budget"),
                usage=spend.usage,
                billed_usage=spend.billed_usage,
                cost=spend.cost,
                unpriced_tokens=spend.unpriced_tokens,
                no_quorum=sum(1 for e in evaluations if e.no_quorum),
                unstable=sum(1 for e in evaluations if e.unstable),
            )
        )
    return summaries


@dataclass
class _Tally:
    """What one judge did on one metric (or all of them)."""

    evaluations: int = 0
    excluded: int = 0
    scores: list[float] = field(default_factory=list)
    passed: int = 0
    calls: int = 0
    failed_calls: int = 0
    latencies: list[float] = field(default_factory=list)
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


def judge_summaries(
    judges: Sequence[JudgeInfo], metrics: Sequence[MetricInfo], samples: Sequence[SampleRun]
) -> list[JudgeSummary]:
    """Per judge × metric (judge order, then metric order), then per judge over all metrics."""
    per_metric: list[JudgeSummary] = []
    overall: list[JudgeSummary] = []
    for judge in judges:
        total = _Tally()
        for info in metrics:
            if judge.id not in info.judge_ids:
                continue
            tally = _Tally()
            for run in samples:
                evaluation = run.evaluation(info.name)
                tally.add_evaluation(evaluation, judge.id, info)
                total.add_evaluation(evaluation, judge.id, info)
            per_metric.append(tally.summary(judge, info.name))
        overall.append(total.summary(judge, None))
    return per_metric + overall


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


def agreement_summaries(
    judges: Sequence[JudgeInfo], metrics: Sequence[MetricInfo], samples: Sequence[SampleRun]
) -> list[AgreementSummary]:
    """Per metric asking two judges or more; then over all of them when there are several."""
    summaries = []
    pooled: list[dict[str, bool]] = []
    pooled_judges: set[str] = set()
    for info in metrics:
        if len(info.judge_ids) < 2:
            continue
        items = [_verdicts(run.evaluation(info.name)) for run in samples]
        summaries.append(_agreement(info.name, list(info.judge_ids), items))
        pooled.extend(items)
        pooled_judges.update(info.judge_ids)
    if len(summaries) > 1:
        ordered = [judge.id for judge in judges if judge.id in pooled_judges]
        summaries.append(_agreement(None, ordered, pooled))
    return summaries


def run_totals(samples: Sequence[SampleRun]) -> RunTotals:
    """Counts over every evaluation and judge call of the run."""
    evaluations = [evaluation for run in samples for evaluation in run.evaluations]
    calls = [call for e in evaluations for call in e.judge_calls()]
    spend = CallSpend.of(calls)
    saved = TokenUsage()
    saved_cost: float | None = None
    for call in calls:
        saved = saved + call.saved_usage
        if call.saved_cost is not None:
            saved_cost = (saved_cost or 0.0) + call.saved_cost
    return RunTotals(
        evaluations=len(evaluations),
        scored=sum(1 for e in evaluations if e.status == "scored"),
        undefined=sum(1 for e in evaluations if e.status == "undefined"),
        failed=sum(1 for e in evaluations if e.status == "failed"),
        judge_calls=len(calls),
        failed_judge_calls=sum(1 for call in calls if not call.ok),
        usage=spend.usage,
        billed_usage=spend.billed_usage,
        cost=spend.cost,
        unpriced_tokens=spend.unpriced_tokens,
        budget=sum(1 for e in evaluations if e.status == "budget"),
        cache_hits=sum(1 for call in calls if call.cache == "hit"),
        cache_misses=sum(1 for call in calls if call.cache == "miss"),
        saved_usage=saved,
        saved_cost=saved_cost,
    )
