"""Metric beans, their configs and results."""

from ragas_boot.metrics.agent.agent_goal_accuracy import (
    AgentGoalAccuracyConfig,
    AgentGoalAccuracyMetric,
    AgentGoalMode,
)
from ragas_boot.metrics.agent.case_expectations import (
    CaseExpectationsConfig,
    CaseExpectationsMetric,
)
from ragas_boot.metrics.agent.matching import (
    CallOrder,
    FailedCalls,
    ToolCallMatching,
    ToolCallMode,
    ValueComparison,
    match_tool_calls,
)
from ragas_boot.metrics.agent.tool_call_accuracy import (
    ToolCallAccuracyConfig,
    ToolCallAccuracyMetric,
)
from ragas_boot.metrics.agent.topic_adherence import (
    TopicAdherenceConfig,
    TopicAdherenceMetric,
    TopicAdherenceMode,
)
from ragas_boot.metrics.base import Metric, MetricConfig, Need, ScoringOutcome
from ragas_boot.metrics.embeddings.answer_correctness import (
    AnswerCorrectnessConfig,
    AnswerCorrectnessMetric,
)
from ragas_boot.metrics.embeddings.response_relevancy import (
    ResponseRelevancyConfig,
    ResponseRelevancyMetric,
)
from ragas_boot.metrics.embeddings.semantic_similarity import (
    SemanticSimilarityConfig,
    SemanticSimilarityMetric,
)
from ragas_boot.metrics.embeddings.vectors import LongTextStrategy
from ragas_boot.metrics.general.aspect_critic import AspectCriticConfig, AspectCriticMetric
from ragas_boot.metrics.general.rubrics_score import RubricsScoreConfig, RubricsScoreMetric
from ragas_boot.metrics.general.simple_criteria_score import (
    SimpleCriteriaScoreConfig,
    SimpleCriteriaScoreMetric,
)
from ragas_boot.metrics.nlp.bleu_score import BleuScoreConfig, BleuScoreMetric
from ragas_boot.metrics.nlp.chrf_score import ChrfScoreConfig, ChrfScoreMetric
from ragas_boot.metrics.nlp.rouge_score import RougeScoreConfig, RougeScoreMetric
from ragas_boot.metrics.nlp.string_similarity import (
    StringSimilarityConfig,
    StringSimilarityMetric,
)
from ragas_boot.metrics.nvidia.answer_accuracy import AnswerAccuracyConfig, AnswerAccuracyMetric
from ragas_boot.metrics.nvidia.context_relevance import (
    ContextRelevanceConfig,
    ContextRelevanceMetric,
)
from ragas_boot.metrics.nvidia.response_groundedness import (
    ResponseGroundednessConfig,
    ResponseGroundednessMetric,
)
from ragas_boot.metrics.registry import METRICS, metric_class, register_metric
from ragas_boot.metrics.response.factual_correctness import (
    FactualCorrectnessConfig,
    FactualCorrectnessMetric,
)
from ragas_boot.metrics.response.hallucination import HallucinationConfig, HallucinationMetric
from ragas_boot.metrics.results import MetricResult
from ragas_boot.metrics.retrieval.context_entity_recall import (
    ContextEntityRecallConfig,
    ContextEntityRecallMetric,
)
from ragas_boot.metrics.retrieval.context_precision import (
    ContextPrecisionConfig,
    ContextPrecisionMetric,
)
from ragas_boot.metrics.retrieval.context_recall import ContextRecallConfig, ContextRecallMetric
from ragas_boot.metrics.retrieval.faithfulness import FaithfulnessConfig, FaithfulnessMetric
from ragas_boot.metrics.retrieval.noise_sensitivity import (
    NoiseSensitivityConfig,
    NoiseSensitivityMetric,
)

__all__ = [
    "METRICS",
    "AgentGoalAccuracyConfig",
    "AgentGoalAccuracyMetric",
    "AgentGoalMode",
    "AnswerAccuracyConfig",
    "AnswerAccuracyMetric",
    "AnswerCorrectnessConfig",
    "AnswerCorrectnessMetric",
    "AspectCriticConfig",
    "AspectCriticMetric",
    "BleuScoreConfig",
    "BleuScoreMetric",
    "CallOrder",
    "CaseExpectationsConfig",
    "CaseExpectationsMetric",
    "ChrfScoreConfig",
    "ChrfScoreMetric",
    "ContextEntityRecallConfig",
    "ContextEntityRecallMetric",
    "ContextPrecisionConfig",
    "ContextPrecisionMetric",
    "ContextRecallConfig",
    "ContextRecallMetric",
    "ContextRelevanceConfig",
    "ContextRelevanceMetric",
    "FactualCorrectnessConfig",
    "FactualCorrectnessMetric",
    "FailedCalls",
    "FaithfulnessConfig",
    "FaithfulnessMetric",
    "HallucinationConfig",
    "HallucinationMetric",
    "LongTextStrategy",
    "Metric",
    "MetricConfig",
    "MetricResult",
    "Need",
    "NoiseSensitivityConfig",
    "NoiseSensitivityMetric",
    "ResponseGroundednessConfig",
    "ResponseGroundednessMetric",
    "ResponseRelevancyConfig",
    "ResponseRelevancyMetric",
    "RougeScoreConfig",
    "RougeScoreMetric",
    "RubricsScoreConfig",
    "RubricsScoreMetric",
    "ScoringOutcome",
    "SemanticSimilarityConfig",
    "SemanticSimilarityMetric",
    "SimpleCriteriaScoreConfig",
    "SimpleCriteriaScoreMetric",
    "StringSimilarityConfig",
    "StringSimilarityMetric",
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
