"""A run as table rows: one per sample × metric (long), or one per sample (wide).

The rows are plain dicts of str, float, int, bool and None, so every table format (pandas,
CSV, Parquet, a spreadsheet) gets the same columns in the same order. They are built from
the evaluations a run keeps (a spooled run's slim copies hold every figure used here: scores
per judge, reasons, tokens, cost, time), so a large run's full records are never read back.

Long columns (:data:`LONG_COLUMNS`, then one ``score:JUDGE`` and one ``reason:JUDGE`` column
per judge of the run, in run order): a judge's score is empty when it was not asked or was
excluded (the ``excluded`` column names it).

The rows are read from a :class:`RunTable`: what a
:class:`~ragas_boot.runs.results.RunResult` is made of, not the class itself, since
``RunResult.to_pandas()`` is built on this module.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Protocol

from ragas_boot.execution.results import CallSpend
from ragas_boot.runs.records import Evaluation, JudgeInfo, MetricInfo, SampleRun

__all__ = [
    "JUDGE_REASON_PREFIX",
    "JUDGE_SCORE_PREFIX",
    "LONG_COLUMNS",
    "RunTable",
    "evaluation_reason",
    "long_columns",
    "long_rows",
    "table_rows",
    "wide_columns",
    "wide_rows",
]

#: The columns of a long row before the per-judge ones.
LONG_COLUMNS = (
    "sample_id",
    "metric",
    "status",
    "score",
    "threshold",
    "passed",
    "reason",
    "error_kind",
    "judges_asked",
    "judges_answered",
    "excluded",
    "input_tokens",
    "output_tokens",
    "total_tokens",
    "billed_tokens",
    "cost",
    "latency_s",
)
#: ``score:gpt-4o-mini``: one judge's own score of the evaluation.
JUDGE_SCORE_PREFIX = "score:"
#: ``reason:gpt-4o-mini``: the reason the judge's verdict gave, when the metric keeps one.
JUDGE_REASON_PREFIX = "reason:"


class RunTable(Protocol):
    """What the rows of a run are read from (a :class:`~ragas_boot.runs.results.RunResult`)."""

    @property
    def metrics(self) -> Sequence[MetricInfo]:
        """The metrics, in run order."""
        ...

    @property
    def judges(self) -> Sequence[JudgeInfo]:
        """Every judge of the run, in run order."""
        ...

    @property
    def samples(self) -> Sequence[SampleRun]:
        """Every sample with its evaluations, in dataset order."""
        ...


def evaluation_reason(evaluation: Evaluation) -> str:
    """Why the evaluation came out as it did, in one line: the error, the reason its score
    is undefined, or the metric's explanation."""
    if evaluation.error is not None:
        return evaluation.error.message
    result = evaluation.result
    if result is None:
        return ""
    if result.score is None and result.undefined_reason:
        return result.undefined_reason
    return result.explanation


def _judge_ids(run: RunTable) -> list[str]:
    return [judge.id for judge in run.judges]


def long_columns(run: RunTable) -> list[str]:
    """The columns of :func:`long_rows`, in order."""
    judges = _judge_ids(run)
    return [
        *LONG_COLUMNS,
        *(JUDGE_SCORE_PREFIX + judge for judge in judges),
        *(JUDGE_REASON_PREFIX + judge for judge in judges),
    ]


def long_rows(run: RunTable) -> Iterator[dict[str, Any]]:
    """One row per sample × metric, in run order (see the module docstring)."""
    thresholds = {info.name: info.threshold for info in run.metrics}
    judges = _judge_ids(run)
    for sample in run.samples:
        for evaluation in sample.evaluations:
            result = evaluation.result
            row: dict[str, Any] = {
                "sample_id": sample.sample_id,
                "metric": evaluation.metric,
                "status": evaluation.status,
                "score": evaluation.score,
                "threshold": thresholds.get(evaluation.metric),
                "passed": evaluation.passed,
                "reason": evaluation_reason(evaluation),
                "error_kind": evaluation.error.kind if evaluation.error is not None else None,
            }
            scores: dict[str, float] = {}
            reasons: dict[str, str] = {}
            if result is not None:
                scores = result.model_scores
                reasons = result.reasons()
                usage, billed, cost = result.usage, result.billed_usage, result.cost
                row["judges_asked"] = len(result.judge_ids)
                row["judges_answered"] = len(scores)
                row["excluded"] = ", ".join(result.excluded_judges) or None
            else:
                calls = evaluation.judge_calls()
                spend = CallSpend.of(calls)
                usage, billed, cost = spend.usage, spend.billed_usage, spend.cost
                failures = evaluation.error.failures if evaluation.error is not None else []
                asked = list(dict.fromkeys(call.judge_id for call in calls))
                row["judges_asked"] = len(asked)
                row["judges_answered"] = 0
                row["excluded"] = (
                    ", ".join(dict.fromkeys(failure.judge_id for failure in failures)) or None
                )
            row["input_tokens"] = usage.input_tokens
            row["output_tokens"] = usage.output_tokens
            row["total_tokens"] = usage.total_tokens
            row["billed_tokens"] = billed.total_tokens
            row["cost"] = cost
            row["latency_s"] = evaluation.duration_s
            for judge in judges:
                row[JUDGE_SCORE_PREFIX + judge] = scores.get(judge)
            for judge in judges:
                row[JUDGE_REASON_PREFIX + judge] = reasons.get(judge)
            yield row


def wide_columns(run: RunTable) -> list[str]:
    """The columns of :func:`wide_rows`: ``sample_id``, then per metric its score,
    ``METRIC:passed`` and ``METRIC:status``."""
    columns = ["sample_id"]
    for info in run.metrics:
        columns.extend((info.name, f"{info.name}:passed", f"{info.name}:status"))
    return columns


def wide_rows(run: RunTable) -> Iterator[dict[str, Any]]:
    """One row per sample: each metric's score, whether it passed, and its status (ragas's
    ``result.to_pandas()`` shape: a column per metric)."""
    for sample in run.samples:
        row: dict[str, Any] = {"sample_id": sample.sample_id}
        for evaluation in sample.evaluations:
            row[evaluation.metric] = evaluation.score
            row[f"{evaluation.metric}:passed"] = evaluation.passed
            row[f"{evaluation.metric}:status"] = evaluation.status
        yield row


def table_rows(run: RunTable, *, wide: bool = False) -> tuple[list[str], Iterator[dict[str, Any]]]:
    """The columns and rows of the long table (default) or, with ``wide``, the wide one:
    what ``RunResult.to_pandas()`` and the CSV/Parquet tables are made of."""
    if wide:
        return wide_columns(run), wide_rows(run)
    return long_columns(run), long_rows(run)
