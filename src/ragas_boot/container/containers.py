"""dependency-injector containers, one per layer, composed by :class:`ApplicationContainer`.

Settings enter once, as one typed object; every other provider reads its own typed section.
Tests override providers (``with container.judges.override(providers.Object([...])):``).
"""

from __future__ import annotations

import logging
from typing import Any

from dependency_injector import containers, providers

from ragas_boot.chat.factory import build_judges, judge_specs, registered_judges
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.chat.local import LocalModelPool
from ragas_boot.config.settings import MetricsSettings, RagasSettings
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.execution.executor import MultiModelExecutor
from ragas_boot.execution.listeners import LoggingListener, MetricListener
from ragas_boot.execution.retry import RetryPolicy
from ragas_boot.metrics.agent.agent_goal_accuracy import AgentGoalAccuracyMetric
from ragas_boot.metrics.agent.tool_call_accuracy import ToolCallAccuracyMetric
from ragas_boot.metrics.agent.topic_adherence import TopicAdherenceMetric

__all__ = [
    "ApplicationContainer",
    "ChatContainer",
    "CoreContainer",
    "ExecutionContainer",
    "MetricsContainer",
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


class CoreContainer(containers.DeclarativeContainer):
    """The settings and the event loop that owns all I/O."""

    settings: providers.Dependency[RagasSettings] = providers.Dependency(instance_of=RagasSettings)
    portal = providers.Singleton(LoopPortal, name="ragas-boot")


class ChatContainer(containers.DeclarativeContainer):
    """The judges: one per (provider, chat model) of the settings.

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


class ExecutionContainer(containers.DeclarativeContainer):
    """Retry policy, listeners and the multi-model executor."""

    core = providers.DependenciesContainer()
    chat = providers.DependenciesContainer()
    retry_policy = providers.Singleton(RetryPolicy, settings=core.settings.provided.retry)
    listeners = providers.Singleton(_listeners, core.settings.provided.metrics)
    executor = providers.Singleton(
        MultiModelExecutor,
        judges=chat.judges,
        retry=retry_policy,
        output_retries=core.settings.provided.providers.output_retries,
        portal=core.portal,
    )


class MetricsContainer(containers.DeclarativeContainer):
    """The metric beans, configured from ``spring.ai.ragas.metrics``."""

    core = providers.DependenciesContainer()
    execution = providers.DependenciesContainer()
    tool_call_accuracy = providers.Singleton(
        ToolCallAccuracyMetric.from_settings,
        settings=core.settings.provided.metrics,
        listeners=execution.listeners,
        portal=core.portal,
    )
    agent_goal_accuracy = providers.Singleton(
        AgentGoalAccuracyMetric.from_settings,
        settings=core.settings.provided.metrics,
        executor=execution.executor,
        listeners=execution.listeners,
    )
    topic_adherence = providers.Singleton(
        TopicAdherenceMetric.from_settings,
        settings=core.settings.provided.metrics,
        executor=execution.executor,
        listeners=execution.listeners,
    )


class ApplicationContainer(containers.DeclarativeContainer):
    """Every layer, with the beans users ask for exposed at the top."""

    settings: providers.Dependency[RagasSettings] = providers.Dependency(instance_of=RagasSettings)
    chat_models: providers.Dependency[dict[str, Any]] = providers.Dependency(
        instance_of=dict, default={}
    )
    core = providers.Container(CoreContainer, settings=settings)
    chat = providers.Container(ChatContainer, core=core, chat_models=chat_models)
    execution = providers.Container(ExecutionContainer, core=core, chat=chat)
    metrics = providers.Container(MetricsContainer, core=core, execution=execution)

    portal = core.portal
    judges = chat.judges
    executor = execution.executor
    tool_call_accuracy = metrics.tool_call_accuracy
    agent_goal_accuracy = metrics.agent_goal_accuracy
    topic_adherence = metrics.topic_adherence


#: Bean names users can resolve (``container.<name>()``, ``Provide["<name>"]``).
BEAN_NAMES: tuple[str, ...] = (
    "agent_goal_accuracy",
    "executor",
    "judges",
    "settings",
    "tool_call_accuracy",
    "topic_adherence",
)
