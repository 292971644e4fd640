"""Multi-judge execution: fan-out, retry, rate limits, aggregation, listeners, the sync bridge.

The public face lists what a metric's author and a run's caller meet:

* a step's outcome as data: :class:`JudgeCall` (with its :data:`CacheOutcome`),
  :class:`StepRecord`, :class:`Exclusion`;
* the executor a metric asks its judges through (:class:`MultiModelExecutor`, a prompt being
  a :data:`PromptSource`), its :class:`RetryPolicy` and :class:`ResponseCache`;
* how judges' scores are combined: :func:`aggregate`, :func:`agreement`
  (:class:`Agreement`, :data:`DEFAULT_CONSENSUS_TOLERANCE`);
* listeners of a bean's evaluations: :class:`MetricListener`, the events
  :class:`EvaluationStarted` and :class:`EvaluationFinished`, a bean's
  :class:`ListenerRegistry` and the built-in :class:`LoggingListener`;
* :func:`cap_coverage`: which of a run's models a spend cap counts.

The attempt loop, provider gates, the I/O loop's portal and the latency chart are the
executors' own parts: import them from their modules (``attempts``, ``limits``, ``bridge``,
``gantt``) when testing them.
"""

from ragas_boot.execution.aggregation import (
    DEFAULT_CONSENSUS_TOLERANCE,
    Agreement,
    aggregate,
    agreement,
)
from ragas_boot.execution.cache import ResponseCache
from ragas_boot.execution.executor import MultiModelExecutor, PromptSource
from ragas_boot.execution.listeners import (
    EvaluationFinished,
    EvaluationStarted,
    ListenerRegistry,
    LoggingListener,
    MetricListener,
)
from ragas_boot.execution.results import CacheOutcome, Exclusion, JudgeCall, StepRecord
from ragas_boot.execution.retry import RetryPolicy
from ragas_boot.execution.spending import cap_coverage

__all__ = [
    "DEFAULT_CONSENSUS_TOLERANCE",
    "Agreement",
    "CacheOutcome",
    "EvaluationFinished",
    "EvaluationStarted",
    "Exclusion",
    "JudgeCall",
    "ListenerRegistry",
    "LoggingListener",
    "MetricListener",
    "MultiModelExecutor",
    "PromptSource",
    "ResponseCache",
    "RetryPolicy",
    "StepRecord",
    "aggregate",
    "agreement",
    "cap_coverage",
]
