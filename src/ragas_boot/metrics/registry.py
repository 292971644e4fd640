"""Metric beans by name: what ``--metric``, ``ragas_metric("...")`` and plugins look up."""

from __future__ import annotations

from ragas_boot.metrics.agent.agent_goal_accuracy import AgentGoalAccuracyMetric
from ragas_boot.metrics.agent.tool_call_accuracy import ToolCallAccuracyMetric
from ragas_boot.metrics.agent.topic_adherence import TopicAdherenceMetric
from ragas_boot.metrics.base import Metric

__all__ = ["METRICS", "metric_class"]

#: Bean name → metric class of the built-in metrics.
METRICS: dict[str, type[Metric]] = {  # type: ignore[type-arg]
    "agent_goal_accuracy": AgentGoalAccuracyMetric,
    "tool_call_accuracy": ToolCallAccuracyMetric,
    "topic_adherence": TopicAdherenceMetric,
}


def metric_class(name: str) -> type[Metric]:  # type: ignore[type-arg]
    """The metric class for a bean name, a Java class name or a kebab-case name.

    Raises:
        KeyError: no such metric; the message lists the known ones.
    """
    wanted = name.strip().replace("-", "_")
    if wanted in METRICS:
        return METRICS[wanted]
    for cls in METRICS.values():
        if cls.name.lower() in (name.lower(), name.lower() + "metric"):
            return cls
    raise KeyError(f"unknown metric '{name}'; known: {', '.join(sorted(METRICS))}")
