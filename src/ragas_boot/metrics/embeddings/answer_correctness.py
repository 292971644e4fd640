"""AnswerCorrectness: FactualCorrectness (F1) and SemanticSimilarity, weighted."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field, model_validator

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.errors import AllJudgesFailedError
from ragas_boot.execution.results import Exclusion, StepRecord
from ragas_boot.metrics.base import Metric, MetricConfig, Need, ScoringOutcome
from ragas_boot.metrics.embeddings.semantic_similarity import (
    SemanticSimilarityConfig,
    SemanticSimilarityMetric,
)
from ragas_boot.metrics.prompting import localized
from ragas_boot.metrics.response.factual_correctness import (
    FactualCorrectnessConfig,
    FactualCorrectnessMetric,
    FactualCorrectnessMode,
)
from ragas_boot.samples import Sample

__all__ = ["AnswerCorrectnessConfig", "AnswerCorrectnessMetric"]

#: Steps of FactualCorrectness in F1 mode; SemanticSimilarity's step comes after them.
_FACTUAL_STEPS = 4


class AnswerCorrectnessConfig(MetricConfig):
    """Config of :class:`AnswerCorrectnessMetric`.

    The weights are normalised by their sum (1.5 and 1.0 weigh 0.6 and 0.4); a part whose
    weight is 0 is not computed at all.
    """

    factual_weight: float = Field(
        default=0.75, ge=0.0, description="Weight of FactualCorrectness (F1)."
    )
    semantic_weight: float = Field(
        default=0.25, ge=0.0, description="Weight of SemanticSimilarity."
    )
    semantic: SemanticSimilarityConfig = Field(
        default_factory=SemanticSimilarityConfig,
        description="Options of the SemanticSimilarity part (long texts, chunk size).",
    )

    @model_validator(mode="after")
    def _some_weight(self) -> AnswerCorrectnessConfig:
        if self.factual_weight + self.semantic_weight <= 0:
            raise ValueError("factual-weight and semantic-weight must not both be 0")
        return self


_TEXT = {
    "en": {
        "headline": "Answer correctness {score}",
        "part": "{part} {score} (weight {weight})",
        "failed": "{part} failed: {error}",
        "undefined": "{part} is undefined: {reason}",
    },
    "ru": {
        "headline": "Корректность ответа {score}",
        "part": "{part} {score} (вес {weight})",
        "failed": "{part} не посчитана: {error}",
        "undefined": "{part} не определена: {reason}",
    },
}


class AnswerCorrectnessMetric(Metric[AnswerCorrectnessConfig]):
    """``factual-weight × FactualCorrectness(F1) + semantic-weight × SemanticSimilarity``.

    Both parts run at once, each exactly as its own metric would (the judges for the claims,
    the embedding models for the similarity), and each part's score is aggregated as that
    metric aggregates it. Unlike the Java library, a part that fails or is undefined is not
    counted as 0.0: the score is then undefined, the reason names the part, and the other
    part's score stays in the metadata. Only when both parts fail is
    :class:`~ragas_boot.errors.AllJudgesFailedError` raised.
    """

    bean_name: ClassVar[str] = "answer_correctness"
    name: ClassVar[str] = "AnswerCorrectnessMetric"
    description: ClassVar[str] = (
        "Weighted FactualCorrectness (F1) and SemanticSimilarity of response and reference"
    )
    config_type: ClassVar[type[MetricConfig]] = AnswerCorrectnessConfig
    needs: ClassVar[frozenset[Need]] = frozenset({Need.JUDGES, Need.EMBEDDINGS})
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "reference")}
    why: ClassVar[str] = "AnswerCorrectness compares the response with the reference"

    def total_steps(self, config: AnswerCorrectnessConfig) -> int:
        """FactualCorrectness's four steps and SemanticSimilarity's one (as weighted)."""
        return (_FACTUAL_STEPS if config.factual_weight > 0 else 0) + (
            1 if config.semantic_weight > 0 else 0
        )

    def _factual(self) -> FactualCorrectnessMetric:
        return FactualCorrectnessMetric(
            executor=self.executor, settings=self._settings, portal=self._portal
        )

    def _semantic(self) -> SemanticSimilarityMetric:
        return SemanticSimilarityMetric(
            embeddings=self.embeddings, settings=self._settings, portal=self._portal
        )

    async def _score(
        self, sample: Sample, config: AnswerCorrectnessConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        total = config.factual_weight + config.semantic_weight
        weights = {
            "factual": config.factual_weight / total,
            "semantic": config.semantic_weight / total,
        }
        factual_metric = self._factual()
        semantic_metric = self._semantic()
        factual_config = FactualCorrectnessConfig(
            mode=FactualCorrectnessMode.F1,
            models=config.models,
            aggregation=config.aggregation,
            consensus_tolerance=config.consensus_tolerance,
            language=config.language,
        )
        semantic_config = config.semantic.model_copy(
            update={
                "aggregation": config.semantic.aggregation or config.aggregation,
                "language": config.language,
            }
        )

        async def factual() -> ScoringOutcome | None:
            if weights["factual"] == 0:
                return None
            return await factual_metric._score(sample, factual_config, judges)

        async def semantic() -> ScoringOutcome | None:
            if weights["semantic"] == 0:
                return None
            similarity = await semantic_metric.similarity(
                sample, semantic_config, index=_FACTUAL_STEPS if weights["factual"] else 0
            )
            return similarity.outcome

        results = await asyncio.gather(factual(), semantic(), return_exceptions=True)
        parts: dict[str, dict[str, Any]] = {}
        steps: list[StepRecord] = []
        exclusions: list[Exclusion] = []
        problems: list[str] = []
        failures: list[AllJudgesFailedError] = []
        labels = {"factual": "FactualCorrectness", "semantic": "SemanticSimilarity"}
        configs: dict[str, MetricConfig] = {"factual": factual_config, "semantic": semantic_config}
        metrics: dict[str, Metric[Any]] = {"factual": factual_metric, "semantic": semantic_metric}
        for part, result in zip(("factual", "semantic"), results, strict=True):
            if result is None:
                continue
            if isinstance(result, AllJudgesFailedError):
                failures.append(result)
                steps.extend(getattr(result, "steps", []))
                exclusions.extend(getattr(result, "exclusions", []))
                parts[part] = {"weight": weights[part], "score": None, "error": str(result)}
                problems.append(text["failed"].format(part=labels[part], error=result))
                continue
            if isinstance(result, BaseException):
                raise result
            steps.extend(result.steps)
            exclusions.extend(result.exclusions)
            score: float | None = result.score
            if result.model_scores:
                score = metrics[part]._aggregate(configs[part], result.model_scores)
            parts[part] = {
                "weight": weights[part],
                "score": score,
                "model_scores": result.model_scores,
                "metadata": result.metadata,
            }
            if score is None:
                reason = result.undefined_reason or "no score"
                parts[part]["undefined_reason"] = reason
                problems.append(text["undefined"].format(part=labels[part], reason=reason))
        if failures and len(failures) == len(parts):
            error = failures[0]
            error.steps = steps  # type: ignore[attr-defined]
            error.exclusions = exclusions  # type: ignore[attr-defined]
            raise error
        combined: float | None = None
        if not problems:
            combined = sum(weights[part] * parts[part]["score"] for part in parts)
        described = [
            text["part"].format(
                part=labels[part], score=f"{info['score']:.3f}", weight=f"{info['weight']:.2f}"
            )
            for part, info in parts.items()
            if info["score"] is not None
        ]
        headline = text["headline"].format(score=f"{combined:.3f}" if combined is not None else "-")
        return ScoringOutcome(
            model_scores={},
            steps=steps,
            exclusions=exclusions,
            metadata={
                "factual_score": parts.get("factual", {}).get("score"),
                "semantic_score": parts.get("semantic", {}).get("score"),
                "normalized_factual_weight": weights["factual"],
                "normalized_semantic_weight": weights["semantic"],
                "parts": parts,
            },
            explanation=". ".join([headline, *described, *problems]) + ".",
            score=combined,
            undefined_reason="; ".join(problems) if problems else None,
            aggregated=False,
        )
