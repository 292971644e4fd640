"""Metric beans, their configs and results."""

from ragas_boot.metrics.agent.agent_goal_accuracy import (
    AgentGoalAccuracyConfig,
    AgentGoalAccuracyMetric,
    AgentGoalMode,
)
from ragas_boot.metrics.agent.tool_call_accuracy import (
    ToolCallAccuracyConfig,
    ToolCallAccuracyMetric,
)
from ragas_boot.metrics.agent.tool_matching import (
    CallOrder,
    FailedCalls,
    ToolCallMatching,
    ToolCallMode,
    ValueComparison,
    match_tool_calls,
)
from ragas_boot.metrics.agent.topic_adherence import (
    TopicAdherenceConfig,
    TopicAdherenceMetric,
    TopicAdherenceMode,
)
from ragas_boot.metrics.base import Metric, MetricConfig, Need, ScoringOutcome
from ragas_boot.metrics.registry import METRICS, metric_class, register_metric
from ragas_boot.metrics.results import MetricResult

__all__ = [
    "METRICS",
    "AgentGoalAccuracyConfig",
    "AgentGoalAccuracyMetric",
    "AgentGoalMode",
    "CallOrder",
    "FailedCalls",
    "Metric",
    "MetricConfig",
    "MetricResult",
    "Need",
    "ScoringOutcome",
    "ToolCallAccuracyConfig",
    "ToolCallAccuracyMetric",
    "ToolCallMatching",
    "ToolCallMode",
    "TopicAdherenceConfig",
    "TopicAdherenceMetric",
    "TopicAdherenceMode",
    "ValueComparison",
    "match_tool_calls",
    "metric_class",
    "register_metric",
]
