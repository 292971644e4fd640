"""One run's result from its evaluations: the samples in order, summarised once. The engine
builds every run with it, and ``runs merge`` builds a run of shards the same way, so that the
two give the same result."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from ragas_boot.runs.records import DatasetInfo, Evaluation, JudgeInfo, MetricInfo, SampleRun
from ragas_boot.runs.results import RunResult, StopReason
from ragas_boot.runs.spool import EvaluationSpool, SpooledSamples
from ragas_boot.runs.summaries import summarize
from ragas_boot.samples import Sample

__all__ = ["assemble_run"]


def assemble_run(
    *,
    dataset: DatasetInfo,
    samples: Sequence[Sample],
    metrics: list[MetricInfo],
    judges: list[JudgeInfo],
    held: Callable[[tuple[int, int]], Evaluation],
    spool: EvaluationSpool | None,
    concurrency: int,
    started_at: datetime,
    duration_s: float,
    stopped: StopReason | None,
    max_cost: float | None,
) -> RunResult:
    """The run of ``samples`` × ``metrics``: each evaluation from ``spool`` when it holds it,
    else ``held((sample index, metric index))``; summaries computed in one pass.

    A spooled run's samples are a :class:`SpooledSamples` (read back when asked for); the
    caller attaches the spool to the result (``RunResult._spool``).
    """
    runs: Sequence[SampleRun]
    if spool is None:
        runs = [
            SampleRun(
                sample_id=sample.id or "",
                sample=sample,
                evaluations=[held((index, position)) for position in range(len(metrics))],
            )
            for index, sample in enumerate(samples)
        ]
    else:
        kept = {
            key: held(key)
            for key in itertools.product(range(len(samples)), range(len(metrics)))
            if key not in spool
        }
        runs = SpooledSamples(spool, samples, len(metrics), kept)
    summaries = summarize(judges, metrics, runs)
    values: dict[str, Any] = dict(
        dataset=dataset,
        metrics=metrics,
        judges=judges,
        samples=runs,
        metric_summaries=summaries.metrics,
        judge_summaries=summaries.judges,
        agreement=summaries.agreement,
        totals=summaries.totals,
        concurrency=concurrency,
        started_at=started_at,
        duration_s=duration_s,
        stopped=stopped,
        max_cost=max_cost,
    )
    if isinstance(runs, list):
        return RunResult(**values)
    # A spooled run's samples are read back when asked for: validating them would read (and
    # hold) every one; the rest was validated as it was built.
    return RunResult.model_construct(**values)
