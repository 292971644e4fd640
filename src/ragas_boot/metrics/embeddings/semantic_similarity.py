"""SemanticSimilarity: cosine of the response's and the reference's embeddings."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from pydantic import Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.execution.results import Exclusion
from ragas_boot.metrics.base import Metric, MetricConfig, Need, ScoringOutcome
from ragas_boot.metrics.embeddings.vectors import (
    DEFAULT_CHARS_PER_TOKEN,
    DEFAULT_MAX_TOKENS_PER_CHUNK,
    LongTextStrategy,
    average_vectors,
    cosine_similarity,
    prepare_texts,
)
from ragas_boot.metrics.prompting import localized
from ragas_boot.samples import Sample

__all__ = [
    "SemanticSimilarityConfig",
    "SemanticSimilarityMetric",
    "SimilarityScores",
]


class SemanticSimilarityConfig(MetricConfig):
    """Config of :class:`SemanticSimilarityMetric`."""

    similarity_threshold: float | None = Field(
        default=None,
        ge=-1.0,
        le=1.0,
        description="Binary mode: each embedding model scores 1.0 when its cosine is at least "
        "this, else 0.0 (before averaging); unset or <= 0: the raw cosine (Java's "
        "'threshold'; 'threshold' here is the pass mark of assertions).",
    )
    long_text_strategy: LongTextStrategy = Field(
        default=LongTextStrategy.CHUNK,
        description="Texts over max-tokens-per-chunk: CHUNK (average the chunks' vectors), "
        "TRUNCATE or FAIL_FAST (sent whole).",
    )
    max_tokens_per_chunk: int = Field(
        default=DEFAULT_MAX_TOKENS_PER_CHUNK, ge=1, description="Token budget per chunk."
    )
    chars_per_token: float = Field(
        default=DEFAULT_CHARS_PER_TOKEN,
        gt=0.0,
        description="Characters per token of the estimate (2.5 suits Russian, 3.5 long English).",
    )


@dataclass(frozen=True, slots=True)
class SimilarityScores:
    """What the similarity steps produced for one sample (reused by AnswerCorrectness)."""

    scores: dict[str, float]
    cosines: dict[str, float]
    outcome: ScoringOutcome


_TEXT = {
    "en": {
        "headline": "Semantic similarity of response and reference",
        "models": "{count} embedding model(s): {details}",
        "binary": "binary at threshold {threshold}",
        "chunks": "texts split into {response} + {reference} chunk(s)",
        "excluded": "{count} embedding model(s) excluded",
    },
    "ru": {
        "headline": "Семантическая близость ответа и эталона",
        "models": "моделей эмбеддингов: {count}: {details}",
        "binary": "бинарно при пороге {threshold}",
        "chunks": "тексты разбиты на {response} + {reference} фрагм.",
        "excluded": "исключено моделей эмбеддингов: {count}",
    },
}


class SemanticSimilarityMetric(Metric[SemanticSimilarityConfig]):
    """Cosine similarity of ``response`` and ``reference`` per embedding model, aggregated.

    Every embedding model embeds both texts in one request (``ComputeEmbeddings``); a long
    text is chunked (and its chunks' vectors averaged), truncated or sent whole, as configured.
    Each model's cosine (or, with ``similarity-threshold``, 1.0/0.0) is its score; the scores
    are aggregated like judges' scores. A failed embedding model is excluded, not scored 0.0;
    only when all fail is :class:`~ragas_boot.errors.AllJudgesFailedError` raised. The cosine is
    not clamped at 0: opposite texts can score below zero (as in Java and RAGAS).
    """

    bean_name: ClassVar[str] = "semantic_similarity"
    name: ClassVar[str] = "SemanticSimilarityMetric"
    description: ClassVar[str] = "Cosine similarity of the response and reference embeddings"
    config_type: ClassVar[type[MetricConfig]] = SemanticSimilarityConfig
    needs: ClassVar[frozenset[Need]] = frozenset({Need.EMBEDDINGS})
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "reference")}
    why: ClassVar[str] = "SemanticSimilarity compares the response with the reference"

    def total_steps(self, config: SemanticSimilarityConfig) -> int:
        """One embedding step."""
        return 1

    async def _score(
        self, sample: Sample, config: SemanticSimilarityConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        return (await self.similarity(sample, config)).outcome

    async def similarity(
        self, sample: Sample, config: SemanticSimilarityConfig, *, index: int = 0
    ) -> SimilarityScores:
        """Run the embedding step and score each embedding model (the metric's whole work).

        Raises:
            AllJudgesFailedError: no embedding model answered.
        """
        response = sample.response or ""
        reference = sample.reference or ""
        strategy = config.long_text_strategy
        response_texts = prepare_texts(
            response, strategy, config.max_tokens_per_chunk, config.chars_per_token
        )
        reference_texts = prepare_texts(
            reference, strategy, config.max_tokens_per_chunk, config.chars_per_token
        )
        step = await self.embeddings.embed(
            "ComputeEmbeddings", [*response_texts, *reference_texts], index=index
        )
        split = len(response_texts)
        cosines: dict[str, float] = {}
        scores: dict[str, float] = {}
        exclusions = step.exclusions
        threshold = config.similarity_threshold
        for outcome in step.outcomes:
            if outcome.vectors is None:
                continue
            cosine = cosine_similarity(
                average_vectors(outcome.vectors[:split]), average_vectors(outcome.vectors[split:])
            )
            cosines[outcome.model_id] = cosine
            if threshold is not None and threshold > 0:
                scores[outcome.model_id] = 1.0 if cosine >= threshold else 0.0
            else:
                scores[outcome.model_id] = cosine
        if not scores:
            raise self._all_failed(step.record.name, [step.record], exclusions)
        metadata: dict[str, Any] = {
            "embedding_models": list(cosines),
            "cosine_similarities": cosines,
            "similarity_threshold": threshold,
            "long_text_strategy": strategy.value,
            "chunking_applied": len(response_texts) > 1 or len(reference_texts) > 1,
            "response_chunk_count": len(response_texts),
            "reference_chunk_count": len(reference_texts),
        }
        scored = ScoringOutcome(
            model_scores=scores,
            steps=[step.record],
            exclusions=exclusions,
            metadata=metadata,
            explanation=self._explain(config, scores, cosines, metadata, exclusions),
        )
        return SimilarityScores(scores=scores, cosines=cosines, outcome=scored)

    def _explain(
        self,
        config: SemanticSimilarityConfig,
        scores: Mapping[str, float],
        cosines: Mapping[str, float],
        metadata: Mapping[str, Any],
        exclusions: Sequence[Exclusion],
    ) -> str:
        text = localized(_TEXT, self._language(config))
        details = ", ".join(f"{model} {value:.3f}" for model, value in cosines.items())
        parts = [
            text["headline"],
            text["models"].format(count=len(cosines), details=details),
        ]
        threshold = metadata["similarity_threshold"]
        if threshold is not None and threshold > 0:
            parts.append(text["binary"].format(threshold=threshold))
        if metadata["chunking_applied"]:
            parts.append(
                text["chunks"].format(
                    response=metadata["response_chunk_count"],
                    reference=metadata["reference_chunk_count"],
                )
            )
        if exclusions:
            parts.append(text["excluded"].format(count=len(exclusions)))
        return ". ".join(parts) + "."
