"""Metric beans, their configs and results: the metrics' one public face.

* every built-in metric's bean class and config (``FaithfulnessMetric``,
  ``FaithfulnessConfig``, ...), with every mode enum their configs take
  (:class:`ToolCallMode`, :class:`AgentGoalMode`, :class:`ContextPrecisionStrategy`,
  :class:`Interaction`, :class:`RougeType`, ...; :class:`Aggregation` and
  :class:`QuorumFailure`, which every config shares, are the settings' own);
* what a metric of your own is written with: :class:`Metric`, :class:`MetricConfig`,
  :class:`Need`, :class:`ScoringOutcome`, :func:`render_prompt` (sample text fenced as data),
  :func:`register_metric`;
* the registry (:data:`METRICS`, :func:`metric_class`), a result (:class:`MetricResult`), and
  ToolCallAccuracy's matching on its own (:func:`match_tool_calls`,
  :class:`ToolCallMatching`).

The sub-packages (``agent/``, ``retrieval/``, ``steps/``, ...) hold one metric or one shared
step per module and export nothing of their own.
"""

from ragas_boot.config.settings import Aggregation, QuorumFailure
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
from ragas_boot.metrics.general._judging import Interaction
from ragas_boot.metrics.general.aspect_critic import AspectCriticConfig, AspectCriticMetric
from ragas_boot.metrics.general.rubrics_score import RubricsScoreConfig, RubricsScoreMetric
from ragas_boot.metrics.general.simple_criteria_score import (
    SimpleCriteriaScoreConfig,
    SimpleCriteriaScoreMetric,
)
from ragas_boot.metrics.nlp.bleu_score import (
    BleuScoreConfig,
    BleuScoreMetric,
    BleuSmoothing,
    BleuTokenizer,
)
from ragas_boot.metrics.nlp.chrf_score import ChrfScoreConfig, ChrfScoreMetric
from ragas_boot.metrics.nlp.rouge_score import (
    RougeMode,
    RougeScoreConfig,
    RougeScoreMetric,
    RougeStemmer,
    RougeTokenizer,
    RougeType,
)
from ragas_boot.metrics.nlp.string_similarity import (
    DistanceMeasure,
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
from ragas_boot.metrics.prompting import render_prompt
from ragas_boot.metrics.registry import METRICS, metric_class, register_metric
from ragas_boot.metrics.response.factual_correctness import (
    FactualCorrectnessConfig,
    FactualCorrectnessMetric,
    FactualCorrectnessMode,
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
    ContextPrecisionStrategy,
)
from ragas_boot.metrics.retrieval.context_recall import ContextRecallConfig, ContextRecallMetric
from ragas_boot.metrics.retrieval.faithfulness import FaithfulnessConfig, FaithfulnessMetric
from ragas_boot.metrics.retrieval.noise_sensitivity import (
    NoiseSensitivityConfig,
    NoiseSensitivityMetric,
    NoiseSensitivityMode,
)

__all__ = [
    "METRICS",
    "AgentGoalAccuracyConfig",
    "AgentGoalAccuracyMetric",
    "AgentGoalMode",
    "Aggregation",
    "AnswerAccuracyConfig",
    "AnswerAccuracyMetric",
    "AnswerCorrectnessConfig",
    "AnswerCorrectnessMetric",
    "AspectCriticConfig",
    "AspectCriticMetric",
    "BleuScoreConfig",
    "BleuScoreMetric",
    "BleuSmoothing",
    "BleuTokenizer",
    "CallOrder",
    "CaseExpectationsConfig",
    "CaseExpectationsMetric",
    "ChrfScoreConfig",
    "ChrfScoreMetric",
    "ContextEntityRecallConfig",
    "ContextEntityRecallMetric",
    "ContextPrecisionConfig",
    "ContextPrecisionMetric",
    "ContextPrecisionStrategy",
    "ContextRecallConfig",
    "ContextRecallMetric",
    "ContextRelevanceConfig",
    "ContextRelevanceMetric",
    "DistanceMeasure",
    "FactualCorrectnessConfig",
    "FactualCorrectnessMetric",
    "FactualCorrectnessMode",
    "FailedCalls",
    "FaithfulnessConfig",
    "FaithfulnessMetric",
    "HallucinationConfig",
    "HallucinationMetric",
    "Interaction",
    "LongTextStrategy",
    "Metric",
    "MetricConfig",
    "MetricResult",
    "Need",
    "NoiseSensitivityConfig",
    "NoiseSensitivityMetric",
    "NoiseSensitivityMode",
    "QuorumFailure",
    "ResponseGroundednessConfig",
    "ResponseGroundednessMetric",
    "ResponseRelevancyConfig",
    "ResponseRelevancyMetric",
    "RougeMode",
    "RougeScoreConfig",
    "RougeScoreMetric",
    "RougeStemmer",
    "RougeTokenizer",
    "RougeType",
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
    "render_prompt",
]
