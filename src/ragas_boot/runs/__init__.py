"""Dataset runs: metric beans over many samples, with summaries, judge agreement, the run
history and calibration against people's labels.

The public face:

* running: :func:`evaluate_dataset` and :func:`aevaluate_dataset` (defaults
  :data:`DEFAULT_CONCURRENCY` and :data:`DEFAULT_SPOOL_AFTER`; a :class:`RunControl` stops a
  run, a :data:`ProgressCallback` is told its :class:`RunProgress`); :func:`estimate_run` and
  :func:`aestimate_run`, a dry run that sends nothing (a :class:`RunEstimate`, one
  :class:`CallEstimate` per judge call);
* the result, :class:`RunResult`: each :class:`SampleRun` holds one :class:`Evaluation` per
  metric (its :data:`EvaluationStatus`, an :class:`EvaluationError` when it failed,
  :class:`CallFacts` for what a spooled run keeps of a judge call); what the run was of
  (:class:`DatasetInfo`, :class:`MetricInfo`, :class:`JudgeInfo`); its summaries
  (:class:`MetricSummary`, :class:`JudgeSummary`, :class:`AgreementSummary` and
  :class:`PairAgreement`, :class:`RunTotals`); why it stopped early (:data:`StopReason`); its
  CI gate (:class:`RunGate`, :class:`GateFailure`);
* the history: :func:`open_history` (a :class:`RunHistory`), :func:`snapshot_run` (a
  :class:`StoredRun` with its :class:`StoredMetric` and :class:`StoredScore` rows) and
  :func:`diff_runs` (a :class:`RunDiff`: :class:`MetricChange` per metric,
  :class:`SampleMove` per sample, within :data:`DEFAULT_TOLERANCE`);
* :func:`calibrate`: the judges against people's labels (a :class:`CalibrationReport`; its
  parts are in :mod:`ragas_boot.runs.calibration`).

A tool suite's run is a :class:`RunResult` too (:mod:`ragas_boot.suites`). The spool, the
journal, shards, the summaries' arithmetic and the statistics are the engine's own parts.
"""

from ragas_boot.runs.calibration import CalibrationReport, calibrate
from ragas_boot.runs.engine import (
    DEFAULT_CONCURRENCY,
    DEFAULT_SPOOL_AFTER,
    ProgressCallback,
    RunControl,
    RunProgress,
    aevaluate_dataset,
    evaluate_dataset,
)
from ragas_boot.runs.estimate import CallEstimate, RunEstimate, aestimate_run, estimate_run
from ragas_boot.runs.gates import GateFailure, RunGate
from ragas_boot.runs.history import (
    RunHistory,
    StoredMetric,
    StoredRun,
    StoredScore,
    open_history,
    snapshot_run,
)
from ragas_boot.runs.records import (
    CallFacts,
    DatasetInfo,
    Evaluation,
    EvaluationError,
    EvaluationStatus,
    JudgeInfo,
    MetricInfo,
    SampleRun,
)
from ragas_boot.runs.regressions import (
    DEFAULT_TOLERANCE,
    MetricChange,
    RunDiff,
    SampleMove,
    diff_runs,
)
from ragas_boot.runs.results import (
    AgreementSummary,
    JudgeSummary,
    MetricSummary,
    PairAgreement,
    RunResult,
    RunTotals,
    StopReason,
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_SPOOL_AFTER",
    "DEFAULT_TOLERANCE",
    "AgreementSummary",
    "CalibrationReport",
    "CallEstimate",
    "CallFacts",
    "DatasetInfo",
    "Evaluation",
    "EvaluationError",
    "EvaluationStatus",
    "GateFailure",
    "JudgeInfo",
    "JudgeSummary",
    "MetricChange",
    "MetricInfo",
    "MetricSummary",
    "PairAgreement",
    "ProgressCallback",
    "RunControl",
    "RunDiff",
    "RunEstimate",
    "RunGate",
    "RunHistory",
    "RunProgress",
    "RunResult",
    "RunTotals",
    "SampleMove",
    "SampleRun",
    "StopReason",
    "StoredMetric",
    "StoredRun",
    "StoredScore",
    "aestimate_run",
    "aevaluate_dataset",
    "calibrate",
    "diff_runs",
    "estimate_run",
    "evaluate_dataset",
    "open_history",
    "snapshot_run",
]
