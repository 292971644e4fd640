"""Metrics on embedding models: SemanticSimilarity, ResponseRelevancy, AnswerCorrectness."""

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

__all__ = [
    "AnswerCorrectnessConfig",
    "AnswerCorrectnessMetric",
    "LongTextStrategy",
    "ResponseRelevancyConfig",
    "ResponseRelevancyMetric",
    "SemanticSimilarityConfig",
    "SemanticSimilarityMetric",
]
