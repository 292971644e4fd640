"""Multi-judge execution: fan-out, retry, rate limits, aggregation, listeners, the sync bridge."""

from ragas_boot.execution.aggregation import (
    DEFAULT_CONSENSUS_TOLERANCE,
    Agreement,
    aggregate,
    agreement,
)
from ragas_boot.execution.attempts import CallTally, call_with_retries
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.execution.cache import ResponseCache
from ragas_boot.execution.executor import MultiModelExecutor, PromptSource
from ragas_boot.execution.gantt import render_gantt
from ragas_boot.execution.limits import ProviderGate
from ragas_boot.execution.listeners import (
    EvaluationFinished,
    EvaluationStarted,
    ListenerRegistry,
    LoggingListener,
    MetricListener,
)
from ragas_boot.execution.results import CacheOutcome, Exclusion, JudgeCall, StepRecord
from ragas_boot.execution.retry import RetryPolicy

__all__ = [
    "DEFAULT_CONSENSUS_TOLERANCE",
    "Agreement",
    "CacheOutcome",
    "CallTally",
    "EvaluationFinished",
    "EvaluationStarted",
    "Exclusion",
    "JudgeCall",
    "ListenerRegistry",
    "LoggingListener",
    "LoopPortal",
    "MetricListener",
    "MultiModelExecutor",
    "PromptSource",
    "ProviderGate",
    "ResponseCache",
    "RetryPolicy",
    "StepRecord",
    "aggregate",
    "agreement",
    "call_with_retries",
    "render_gantt",
]
