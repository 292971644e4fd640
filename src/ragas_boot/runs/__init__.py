"""Dataset runs: metric beans over many samples, with summaries, judge agreement and
calibration against people's labels."""

from ragas_boot.errors import SpoolClosedError
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
from ragas_boot.runs.gates import GateFailure, RunGate
from ragas_boot.runs.records import (
    CallFacts,
    DatasetInfo,
    Evaluation,
    EvaluationError,
    EvaluationStatus,
    JudgeInfo,
    MetricInfo,
    SampleRun,
    SpooledEvaluation,
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
from ragas_boot.runs.statistics import cohen_kappa, fleiss_kappa, percentile

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_SPOOL_AFTER",
    "AgreementSummary",
    "CalibrationReport",
    "CallFacts",
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
    "ProgressCallback",
    "RunControl",
    "RunGate",
    "RunProgress",
    "RunResult",
    "RunTotals",
    "SampleRun",
    "SpoolClosedError",
    "SpooledEvaluation",
    "StopReason",
    "aevaluate_dataset",
    "calibrate",
    "cohen_kappa",
    "evaluate_dataset",
    "fleiss_kappa",
    "percentile",
]
