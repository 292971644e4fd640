"""Dataset runs: metric beans over many samples, with summaries and judge agreement."""

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
    JudgeInfo,
    JudgeSummary,
    MetricInfo,
    MetricSummary,
    PairAgreement,
    RunResult,
    RunTotals,
    SampleRun,
    StopReason,
)
from ragas_boot.runs.statistics import cohen_kappa, fleiss_kappa, percentile

__all__ = [
    "DEFAULT_CONCURRENCY",
    "AgreementSummary",
    "DatasetInfo",
    "Evaluation",
    "EvaluationError",
    "EvaluationStatus",
    "JudgeInfo",
    "JudgeSummary",
    "MetricInfo",
    "MetricSummary",
    "PairAgreement",
    "ProgressCallback",
    "RunControl",
    "RunProgress",
    "RunResult",
    "RunTotals",
    "SampleRun",
    "StopReason",
    "aevaluate_dataset",
    "cohen_kappa",
    "evaluate_dataset",
    "fleiss_kappa",
    "percentile",
]
