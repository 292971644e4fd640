"""Which metrics cannot run with a configuration, and why: what ``config check`` reports.

A configuration can load and build while some of its metrics cannot run: a metric that needs
embeddings (ResponseRelevancy, SemanticSimilarity, AnswerCorrectness) with no embedding model,
a judge metric with no judge. Each of them fails only when called; this module names them up
front, from the judges and embedding models the container built.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragas_boot.config.settings import RagasSettings
from ragas_boot.metrics.base import Need
from ragas_boot.metrics.registry import METRICS, criterion_beans

__all__ = ["UnrunnableMetric", "unrunnable_metrics"]

_METRICS_KEY = "spring.ai.ragas.metrics"
_WHAT = {
    Need.JUDGES: (
        "a judge",
        "declare chat-models under spring.ai.ragas.providers (or spring.ai.gigachat, or "
        "enable the local judge)",
    ),
    Need.EMBEDDINGS: (
        "an embedding model",
        "declare embedding-models under an openai-compatible provider, "
        "spring.ai.gigachat.embedding.options.model, or enable the local provider",
    ),
}


@dataclass(frozen=True, slots=True)
class UnrunnableMetric:
    """A metric that cannot run with the configuration.

    Attributes:
        metric: the bean name (``response_relevancy``; ``aspect_critic:polite`` for a named
            criterion).
        missing: what it needs and the configuration lacks, judges first.
        configured: whether the YAML configures it (its section or a named criterion), so a
            run that uses it is expected; otherwise it is only available.
        reason: one sentence: what it needs, and how to give it that.
    """

    metric: str
    missing: tuple[Need, ...]
    configured: bool
    reason: str


def unrunnable_metrics(
    settings: RagasSettings,
    *,
    judges: Sequence[object],
    embedding_models: Sequence[object],
) -> list[UnrunnableMetric]:
    """The metrics of the registry (and the named criteria) that cannot run, in registry order.

    Args:
        settings: the configuration (which metric sections and criteria it declares).
        judges: the judges the container built (``container.judges()``).
        embedding_models: its embedding models (``container.embedding_models()``).
    """
    have = {Need.JUDGES: bool(judges), Need.EMBEDDINGS: bool(embedding_models)}
    sections = set(settings.metrics.sections)
    named = criterion_beans(settings)
    found: list[UnrunnableMetric] = []
    entries = [(name, cls, name in sections) for name, cls in METRICS.items()]
    entries += [(f"{cls.bean_name}:{criterion}", cls, True) for cls, criterion in named.values()]
    for name, cls, configured in entries:
        missing = tuple(need for need in (Need.JUDGES, Need.EMBEDDINGS) if cls.uses(need))
        missing = tuple(need for need in missing if not have[need])
        if not missing:
            continue
        needs = " and ".join(_WHAT[need][0] for need in missing)
        fixes = "; ".join(_WHAT[need][1] for need in missing)
        found.append(
            UnrunnableMetric(
                metric=name,
                missing=missing,
                configured=configured,
                reason=f"{cls.name} needs {needs}, and the configuration has none: {fixes}",
            )
        )
    return found
