"""SimpleCriteriaScore: the response scored on a numeric scale against a criterion (LLM judges)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field, model_validator

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.errors import ConfigError
from ragas_boot.metrics.base import MetricConfig, ScoringOutcome
from ragas_boot.metrics.general._judging import (
    INTERACTION_READS,
    DefinitionConfig,
    JudgedTextMetric,
    render_interaction,
    render_reference,
    scale_text,
)
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.samples import Sample

__all__ = ["CriteriaScore", "SimpleCriteriaScoreConfig", "SimpleCriteriaScoreMetric", "normalize"]


class SimpleCriteriaScoreConfig(DefinitionConfig):
    """Config of :class:`SimpleCriteriaScoreMetric`: criterion, scale, repeats."""

    min_score: float = Field(default=0.0, description="Lowest score of the scale.")
    max_score: float = Field(default=5.0, description="Highest score of the scale.")

    @model_validator(mode="after")
    def _scale(self) -> SimpleCriteriaScoreConfig:
        if not self.min_score < self.max_score:
            raise ValueError(
                f"min-score ({self.min_score:g}) must be less than max-score ({self.max_score:g})"
            )
        return self


class CriteriaScore(BaseModel):
    """A judge's score on the scale (reasoning first, then the number)."""

    reasoning: str = Field(description="One to three sentences on the criterion.")
    score: float = Field(description="The score, a number on the given scale.")


_TEXT = {
    "en": {
        "summary": "Score {score:.2f} on the {low}–{high} scale (normalised 0–1)",
        "raw": "judges' raw scores: {raw}",
        "repeats": "median of {n} repeats per judge",
        "criterion": "Criterion: {definition}",
        "excluded": "{count} judge(s) excluded",
        "reference": "Compare the response with this reference answer:\n{reference}\n",
    },
    "ru": {
        "summary": "Оценка {score:.2f} по шкале {low}–{high} (нормирована в 0–1)",
        "raw": "исходные оценки судей: {raw}",
        "repeats": "медиана {n} повторов каждого судьи",
        "criterion": "Критерий: {definition}",
        "excluded": "исключено судей: {count}",
        "reference": "Сравните ответ с эталонным ответом:\n{reference}\n",
    },
}


def normalize(raw: float, low: float, high: float) -> float:
    """``raw`` clamped to ``[low, high]`` and mapped to 0–1 (a non-finite raw is 0.0)."""
    if not math.isfinite(raw):
        return 0.0
    clamped = min(max(raw, low), high)
    return (clamped - low) / (high - low)


class SimpleCriteriaScoreMetric(JudgedTextMetric[SimpleCriteriaScoreConfig]):
    """Each judge scores the criterion on ``[min_score, max_score]``; 0–1 after normalising.

    Raw scores are clamped to the scale, then ``(raw − min) / (max − min)``. With
    ``strictness`` > 1 each judge is asked that many times at once (independent calls at its
    configured temperature) and its score is the median of its repeats' normalised scores.
    A missing or non-numeric score is that repeat's failure (Java counted it as 0). Every raw
    score is kept per judge. A ``reference``, when the sample has one, is shown to the judges
    (the Java prompt mentioned a reference even when there was none).
    """

    bean_name: ClassVar[str] = "simple_criteria_score"
    name: ClassVar[str] = "SimpleCriteriaScoreMetric"
    description: ClassVar[str] = "The response scored on a numeric scale against a criterion"
    config_type: ClassVar[type[MetricConfig]] = SimpleCriteriaScoreConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": (*INTERACTION_READS, "reference")}
    criteria_key: ClassVar[str | None] = "criteria"

    def check_sample(
        self, sample: Sample, config: SimpleCriteriaScoreConfig
    ) -> SimpleCriteriaScoreConfig:
        """Needs a definition, a scale with min < max, and ``response`` or a conversation."""
        self._require(config, "definition", "a definition (the criterion to score)")
        if not config.min_score < config.max_score:
            raise ConfigError(
                f"min-score ({config.min_score:g}) must be less than max-score "
                f"({config.max_score:g})",
                key="spring.ai.ragas.metrics.simple-criteria-score.min-score",
            )
        self._check_interaction(sample, config)
        return config

    def total_steps(self, config: SimpleCriteriaScoreConfig) -> int:
        """One step (its calls are the repeats)."""
        return 1

    async def _score(
        self,
        sample: Sample,
        config: SimpleCriteriaScoreConfig,
        judges: Sequence[JudgeModel],
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        prompt = render_prompt(
            self._template(config, "simple_criteria"),
            {"interaction": render_interaction(sample, language, config.interaction)},
            {
                "definition": config.definition,
                "reference": render_reference(sample, text["reference"]),
                "min_score": scale_text(config.min_score),
                "max_score": scale_text(config.max_score),
            },
        )
        repeats = await self._ask("Evaluate", judges, prompt, CriteriaScore, config.strictness)
        exclusions = repeats.exclusions()
        scores: dict[str, float] = {}
        raw_scores: dict[str, list[float]] = {}
        reasons: dict[str, str] = {}
        for judge in judges:
            answers: list[CriteriaScore] = repeats.answers[judge.id]
            if not answers:
                continue
            raw_scores[judge.id] = [answer.score for answer in answers]
            normalised = [normalize(a.score, config.min_score, config.max_score) for a in answers]
            scores[judge.id] = float(statistics.median(normalised))
            reasons[judge.id] = answers[0].reasoning
        if not scores:
            raise self._all_failed("Evaluate", [repeats.step], exclusions)
        metadata: dict[str, Any] = {
            "definition": config.definition,
            "min_score": config.min_score,
            "max_score": config.max_score,
            "strictness": config.strictness,
            "raw_scores": raw_scores,
            "reasons": reasons,
            "repeats": repeats.record(
                lambda value: {"score": value.score, "reasoning": value.reasoning}
            ),
        }
        mean = sum(scores.values()) / len(scores)
        parts = [
            text["summary"].format(
                score=mean, low=scale_text(config.min_score), high=scale_text(config.max_score)
            ),
            text["raw"].format(
                raw=", ".join(
                    f"{judge} {'/'.join(scale_text(v) for v in values)}"
                    for judge, values in raw_scores.items()
                )
            ),
        ]
        if config.strictness > 1:
            parts.append(text["repeats"].format(n=config.strictness))
        parts.append(text["criterion"].format(definition=config.definition))
        if exclusions:
            parts.append(text["excluded"].format(count=len(exclusions)))
        return ScoringOutcome(
            model_scores=scores,
            steps=[repeats.step],
            exclusions=exclusions,
            metadata=metadata,
            explanation=". ".join(parts) + ".",
        )
