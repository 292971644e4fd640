"""dependency-injector containers, one per layer, composed by :class:`ApplicationContainer`.

The metric beans come from the metric registry: :func:`add_metric_beans` gives the
application container one provider per registered metric (built-in, entry point or
:func:`~ragas_boot.metrics.register_metric`), wired by what the metric needs.

Settings enter once, as one typed object; every other provider reads its own typed section.
Tests override providers (``with container.judges.override(providers.Object([...])):``).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Mapping
from typing import Any

from dependency_injector import containers, providers

from ragas_boot.chat.embeddings.model import EmbeddingModel
from ragas_boot.chat.factory.build import build_embedding_models, build_judges, registered_judges
from ragas_boot.chat.factory.embeddings import embedding_specs
from ragas_boot.chat.factory.judges import judge_specs
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.chat.local.server import LocalModelPool
from ragas_boot.config.settings import MetricsSettings, RagasSettings
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.execution.cache import ResponseCache
from ragas_boot.execution.embeddings import EmbeddingExecutor
from ragas_boot.execution.executor import MultiModelExecutor
from ragas_boot.execution.limits import ProviderGates
from ragas_boot.execution.listeners import LoggingListener, MetricListener
from ragas_boot.execution.retry import RetryPolicy
from ragas_boot.metrics.base import Metric, Need
from ragas_boot.metrics.registry import METRICS

__all__ = [
    "CORE_BEANS",
    "ApplicationContainer",
    "ChatContainer",
    "CoreContainer",
    "ExecutionContainer",
    "application_container",
    "bean_names",
    "metric_provider",
]

log = logging.getLogger("ragas_boot.container")


def _listeners(metrics: MetricsSettings) -> list[MetricListener]:
    if not metrics.logging.enabled:
        return []
    return [LoggingListener(level=metrics.logging.level, width=metrics.logging.chart_width)]


def _judges(
    settings: RagasSettings, local_models: LocalModelPool, chat_models: dict[str, Any]
) -> list[JudgeModel]:
    judges = list(build_judges(judge_specs(settings), local_models=local_models))
    if chat_models:
        judges += registered_judges(settings, chat_models, taken=[judge.id for judge in judges])
    log.info(
        "ragas-boot judges: %d in %d provider(s): %s",
        len(judges),
        len({judge.provider for judge in judges}),
        ", ".join(judge.id for judge in judges) or "none",
    )
    return judges


def _embedding_models(settings: RagasSettings) -> list[EmbeddingModel]:
    models = build_embedding_models(embedding_specs(settings))
    if models:
        log.info(
            "ragas-boot embedding models: %d: %s",
            len(models),
            ", ".join(model.id for model in models),
        )
    return models


class CoreContainer(containers.DeclarativeContainer):
    """The settings and the event loop that owns all I/O."""

    settings: providers.Dependency[RagasSettings] = providers.Dependency(instance_of=RagasSettings)
    portal = providers.Singleton(LoopPortal, name="ragas-boot")


class ChatContainer(containers.DeclarativeContainer):
    """The judges, one per (provider, chat model), and the embedding models.

    ``local_models`` owns the embedded local model servers (started by the local judges on
    first use, stopped when the application container closes). ``chat_models`` are LangChain
    chat models registered in code (judge id → instance), judges after the configured ones.
    """

    core = providers.DependenciesContainer()
    chat_models: providers.Dependency[dict[str, Any]] = providers.Dependency(
        instance_of=dict, default={}
    )
    local_models = providers.Singleton(LocalModelPool)
    judges = providers.Singleton(_judges, core.settings, local_models, chat_models)
    embedding_models = providers.Singleton(_embedding_models, core.settings)


class ExecutionContainer(containers.DeclarativeContainer):
    """Retry policy, listeners, provider gates and the judges' and embeddings' executors."""

    core = providers.DependenciesContainer()
    chat = providers.DependenciesContainer()
    retry_policy = providers.Singleton(RetryPolicy, settings=core.settings.provided.retry)
    listeners = providers.Singleton(_listeners, core.settings.provided.metrics)
    gates = providers.Singleton(ProviderGates)
    response_cache = providers.Singleton(ResponseCache.from_settings, core.settings.provided.cache)
    executor = providers.Singleton(
        MultiModelExecutor,
        judges=chat.judges,
        retry=retry_policy,
        output_retries=core.settings.provided.providers.output_retries,
        portal=core.portal,
        gates=gates,
        cache=response_cache,
    )
    embedding_executor = providers.Singleton(
        EmbeddingExecutor,
        models=chat.embedding_models,
        retry=retry_policy,
        output_retries=core.settings.provided.providers.output_retries,
        portal=core.portal,
        gates=gates,
    )


def metric_provider(
    metric: type[Metric[Any]], *, core: Any, execution: Any, criterion: str | None = None
) -> providers.Singleton[Metric[Any]]:
    """The bean provider of one metric class (or one of its named criteria), wired by what
    the class says it needs."""
    kwargs: dict[str, Any] = {
        "settings": core.settings.provided.metrics,
        "listeners": execution.listeners,
        "portal": core.portal,
    }
    if metric.uses(Need.JUDGES):
        kwargs["executor"] = execution.executor
    if metric.uses(Need.EMBEDDINGS):
        kwargs["embeddings"] = execution.embedding_executor
    if criterion is not None:
        kwargs["criterion"] = criterion
    return providers.Singleton(metric.from_settings, **kwargs)


class ApplicationContainer(containers.DeclarativeContainer):
    """Every layer, with the beans users ask for exposed at the top."""

    settings: providers.Dependency[RagasSettings] = providers.Dependency(instance_of=RagasSettings)
    chat_models: providers.Dependency[dict[str, Any]] = providers.Dependency(
        instance_of=dict, default={}
    )
    core = providers.Container(CoreContainer, settings=settings)
    chat = providers.Container(ChatContainer, core=core, chat_models=chat_models)
    execution = providers.Container(ExecutionContainer, core=core, chat=chat)

    portal = core.portal
    judges = chat.judges
    embedding_models = chat.embedding_models
    executor = execution.executor
    embedding_executor = execution.embedding_executor


def application_container(
    criteria: Mapping[str, tuple[type[Metric[Any]], str]] | None = None,
) -> type[ApplicationContainer]:
    """The application container class with one provider per registered metric and per named
    criterion (``aspect_critic__no_profanity``) the settings declare.

    The providers are class attributes (not set on an instance) so that dependency-injector's
    wiring, which maps an instance's providers to its class's, resolves ``Provide["<bean>"]``
    for criterion beans too. One class is made per set of metrics and criteria.
    """
    named = tuple(
        (bean, cls, criterion) for bean, (cls, criterion) in sorted((criteria or {}).items())
    )
    return _application_container(tuple(METRICS.items()), named)


@functools.cache
def _application_container(
    metrics: tuple[tuple[str, type[Metric[Any]]], ...],
    criteria: tuple[tuple[str, type[Metric[Any]], str], ...],
) -> type[ApplicationContainer]:
    core, execution = ApplicationContainer.core, ApplicationContainer.execution
    beans = {
        bean: metric_provider(metric, core=core, execution=execution) for bean, metric in metrics
    }
    beans.update(
        (bean, metric_provider(metric, core=core, execution=execution, criterion=criterion))
        for bean, metric, criterion in criteria
    )
    made: type[ApplicationContainer] = type(
        "ApplicationContainer",
        (ApplicationContainer,),
        {"__module__": __name__, "__doc__": ApplicationContainer.__doc__, **beans},
    )
    return made


#: Beans of every application container besides the metrics.
CORE_BEANS: tuple[str, ...] = (
    "embedding_executor",
    "embedding_models",
    "executor",
    "judges",
    "settings",
)


def bean_names() -> list[str]:
    """Bean names users can resolve (``container.<name>()``, ``Provide["<name>"]``)."""
    return sorted([*CORE_BEANS, *METRICS])
