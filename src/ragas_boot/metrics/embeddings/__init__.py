"""Metrics on embedding models: SemanticSimilarity, ResponseRelevancy, and their vector steps."""

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
    "LongTextStrategy",
    "ResponseRelevancyConfig",
    "ResponseRelevancyMetric",
    "SemanticSimilarityConfig",
    "SemanticSimilarityMetric",
]
