"""Which metrics a dataset run scores: ``--metric`` names, or the default choice."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ragas_boot.cli._errors import UsageError

if TYPE_CHECKING:
    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.metrics.base import Need

__all__ = ["metric_choices", "metric_names", "needs_models", "without_embedding_metrics"]


def metric_choices() -> str:
    """The registered metrics for ``--metric``'s help (importing no LLM client)."""
    from ragas_boot.metrics.registry import METRICS

    return ", ".join(METRICS)


def metric_names(
    names: Sequence[str], settings: RagasSettings | None = None, samples: Sequence[Any] = ()
) -> list[str]:
    """Bean names for ``--metric`` (``aspect_critic:no-profanity`` names a criterion).

    Without ``--metric``: every metric that uses judges and can read some sample of the
    dataset (an agent dataset does not run the RAG metrics, nor a RAG dataset the agent
    ones); a metric with named criteria (AspectCritic, ...) runs as its declared criteria,
    since it needs one.

    Raises:
        UsageError: an unknown metric.
        ConfigError: a criterion the settings do not declare (lists the declared ones).
    """
    from ragas_boot.metrics.base import Need
    from ragas_boot.metrics.registry import METRICS, metric_class, split_criterion

    if not names:
        chosen = []
        for name, cls in METRICS.items():
            if not cls.uses(Need.JUDGES):
                continue
            if samples and not any(map(cls.can_read, samples)):
                continue
            if cls.criteria_key is None:
                chosen.append(name)
            elif settings is not None:
                chosen.extend(f"{name}:{c}" for c in cls.criteria(settings.metrics))
        return chosen
    chosen = []
    for name in names:
        metric, criterion = split_criterion(name)
        try:
            cls = metric_class(metric)
        except KeyError as error:
            raise UsageError(str(error.args[0])) from None
        key = cls.bean_name
        if criterion is not None:
            if not criterion:
                raise UsageError(f"--metric {name}: name the criterion after the colon")
            if settings is not None:
                criterion = cls.find_criterion(settings.metrics, criterion)
            key = f"{key}:{criterion}"
        if key not in chosen:
            chosen.append(key)
    return chosen


def needs_models(names: Sequence[str]) -> bool:
    """Whether any of the metrics uses judges or embedding models."""
    from ragas_boot.metrics.base import Need

    return any(_uses(name, Need.JUDGES) or _uses(name, Need.EMBEDDINGS) for name in names)


def without_embedding_metrics(names: Sequence[str]) -> list[str]:
    """``names`` without the metrics that need embedding models."""
    from ragas_boot.metrics.base import Need

    return [name for name in names if not _uses(name, Need.EMBEDDINGS)]


def _uses(name: str, need: Need) -> bool:
    """Whether the metric of a bean name (``aspect_critic:no-profanity`` too) needs ``need``."""
    from ragas_boot.metrics.registry import metric_class, split_criterion

    return metric_class(split_criterion(name)[0]).uses(need)
