"""Dataset runs: metric beans over many samples, with summaries, judge agreement and
calibration against people's labels."""

from ragas_boot.runs.calibration import CalibrationReport, calibrate
from ragas_boot.runs.engine import (
    DEFAULT_CONCURRENCY,
    ProgressCallback,
    RunControl,
    RunProgress,
    aevaluate_dataset,
    evaluate_dataset,
)
from ragas_boot.runs.results import (
    AgreementSummary,
    DatasetInfo,
    Evaluation,
    EvaluationError,
    EvaluationStatus,
    GateFailure,
    JudgeInfo,
    JudgeSummary,
    MetricInfo,
    MetricSummary,
    PairAgreement,
    RunGate,
    RunResult,
    RunTotals,
    SampleRun,
    StopReason,
)
from ragas_boot.runs.statistics import cohen_kappa, fleiss_kappa, percentile

__all__ = [
    "DEFAULT_CONCURRENCY",
    "AgreementSummary",
    "CalibrationReport",
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
    "StopReason",
    "aevaluate_dataset",
    "calibrate",
    "cohen_kappa",
    "evaluate_dataset",
    "fleiss_kappa",
    "percentile",
]
