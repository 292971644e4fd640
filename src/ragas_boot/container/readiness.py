"""Which metrics cannot run with a container's configuration, and why (``config check``).

A metric that needs embedding models when none is configured, or judges when there are
none, builds fine and fails only at its first evaluation; :func:`unrunnable_metrics` asks
each bean now (:meth:`~ragas_boot.metrics.base.Metric.check_ready`), so that a configuration
check can say so before a run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ragas_boot.errors import ConfigError, JudgeNotFoundError
from ragas_boot.metrics.base import Need
from ragas_boot.metrics.registry import METRICS, criterion_beans, metric_class, split_criterion

if TYPE_CHECKING:
    from ragas_boot.container.application import RagasContainer

__all__ = ["NO_EMBEDDING_MODEL", "NO_JUDGE", "UnrunnableMetric", "unrunnable_metrics"]

#: Why a metric that needs embedding models cannot run without one.
NO_EMBEDDING_MODEL = (
    "needs an embedding model, and none is configured "
    "(spring.ai.ragas.providers.openai-compatible[].embedding-models, or the local provider)"
)
#: Why a metric that needs judges cannot run without one.
NO_JUDGE = (
    "needs a judge, and none is configured (chat-models under spring.ai.ragas.providers, "
    "or the local judge)"
)


@dataclass(frozen=True, slots=True)
class UnrunnableMetric:
    """A metric that would fail its first evaluation with this configuration.

    Attributes:
        name: the bean name (``response_relevancy``, ``aspect_critic:polite``).
        reason: why, with the YAML key to set (:data:`NO_EMBEDDING_MODEL`, :data:`NO_JUDGE`,
            or the error the metric raises, e.g. a ``models`` default naming no judge).
    """

    name: str
    reason: str


def unrunnable_metrics(
    container: RagasContainer, names: Sequence[str] | None = None
) -> list[UnrunnableMetric]:
    """The metrics among ``names`` that cannot run with ``container``'s configuration.

    Args:
        container: a container built with its judges (``create_container(settings)``).
        names: bean names (``aspect_critic:polite`` names a criterion); default: every
            registered metric and every named criterion the settings declare.

    Returns:
        One entry per metric that cannot run, in the order of ``names``; empty when all can.

    Raises:
        KeyError: a name no registered metric answers to.
        ConfigError: a metric's YAML section is invalid, or a criterion is not declared.
    """
    if names is None:
        names = [*METRICS, *criterion_beans(container.settings())]
    judges = bool(container.judges())
    embeddings = bool(container.embedding_models())
    found: list[UnrunnableMetric] = []
    for name in names:
        cls = metric_class(split_criterion(name)[0])
        if cls.uses(Need.EMBEDDINGS) and not embeddings:
            found.append(UnrunnableMetric(name, NO_EMBEDDING_MODEL))
            continue
        if cls.uses(Need.JUDGES) and not judges:
            found.append(UnrunnableMetric(name, NO_JUDGE))
            continue
        try:
            container.metric(name).check_ready()
        except (ConfigError, JudgeNotFoundError) as error:
            found.append(UnrunnableMetric(name, str(error)))
    return found
