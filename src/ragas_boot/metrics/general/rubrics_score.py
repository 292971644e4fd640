"""RubricsScore: the judge picks the level of a rubric that fits the response (LLM judges)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, Field, create_model, field_validator

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.errors import SampleValidationError
from ragas_boot.metrics.base import MetricConfig, ScoringOutcome
from ragas_boot.metrics.general._judging import (
    INTERACTION_READS,
    InteractionConfig,
    JudgedTextMetric,
    render_interaction,
    render_reference,
)
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.samples import Sample

__all__ = ["RubricsScoreConfig", "RubricsScoreMetric", "level_model", "parse_rubrics"]

_DIGITS = re.compile(r"\d+")


def parse_rubrics(rubrics: Mapping[Any, Any]) -> dict[int, str]:
    """Rubric levels by number, in ascending order.

    Keys are the Java ``score1_description`` form or any key holding the level's number
    (``1``, ``"score1"``, ``"level_1"``); values are what the level requires.

    Raises:
        ValueError: fewer than two levels, a key without a number, two keys with the same
            number, or an empty description.
    """
    levels: dict[int, str] = {}
    for key, text in rubrics.items():
        found = _DIGITS.findall(str(key))
        if len(found) != 1:
            raise ValueError(
                f"rubric key '{key}' must hold one level number (e.g. score1_description)"
            )
        level = int(found[0])
        if level in levels:
            raise ValueError(f"rubric level {level} is given twice")
        if not isinstance(text, str) or not text.strip():
            raise ValueError(f"rubric level {level} has no description")
        levels[level] = text.strip()
    if len(levels) < 2:
        raise ValueError(
            f"a rubric needs at least two levels, got {len(levels)}; "
            "e.g. score1_description ... score5_description"
        )
    return dict(sorted(levels.items()))


class RubricsScoreConfig(InteractionConfig):
    """Config of :class:`RubricsScoreMetric`."""

    rubrics: dict[str, str] = Field(
        default_factory=dict,
        description="Level → what it requires (score1_description: ...); else the sample's.",
    )

    @field_validator("rubrics", mode="before")
    @classmethod
    def _keys_as_text(cls, value: Any) -> Any:
        if isinstance(value, Mapping):
            return {str(key): item for key, item in value.items()}
        return value

    @field_validator("rubrics")
    @classmethod
    def _valid(cls, value: dict[str, str]) -> dict[str, str]:
        if value:
            parse_rubrics(value)
        return value


@lru_cache(maxsize=256)
def level_model(levels: tuple[int, ...]) -> type[BaseModel]:
    """The judge's answer model for a rubric: ``score`` must be one of its levels.

    The schema lists the levels (``enum``), so a judge with constrained decoding can only pick
    one of them, and an answer naming another level is invalid output (asked again, then
    that judge's failure) rather than a silent score (Java accepted any number).
    """
    choice: Any = Literal.__getitem__(levels)
    return create_model(
        "RubricLevel",
        __doc__="The rubric level that fits the response.",
        reasoning=(str, Field(description="One to three sentences on why this level fits.")),
        score=(choice, Field(description="The number of the chosen rubric level.")),
    )


_TEXT = {
    "en": {
        "summary": "Level {level:g} of {low}–{high} (score {score:.2f} on 0–1)",
        "levels": "judges' levels: {levels}",
        "source": "rubric from the {source}",
        "excluded": "{count} judge(s) excluded",
        "reference": "Reference answer (use it as context):\n{reference}\n",
        "config": "config",
        "sample": "sample",
    },
    "ru": {
        "summary": "Уровень {level:g} из {low}–{high} (оценка {score:.2f} в 0–1)",
        "levels": "уровни судей: {levels}",
        "source": "рубрика из {source}",
        "excluded": "исключено судей: {count}",
        "reference": "Эталонный ответ (используйте как контекст):\n{reference}\n",
        "config": "конфигурации",
        "sample": "образца",
    },
}


class RubricsScoreMetric(JudgedTextMetric[RubricsScoreConfig]):
    """Each judge picks a rubric level; the score is the level mapped to 0–1.

    The rubric comes from the config (a call's config, a named criterion, the YAML defaults)
    or else from ``sample.rubrics``. A judge's score is ``(level − lowest) / (highest −
    lowest)`` of the rubric's levels, so 4 on a 1–5 rubric is 0.75; the raw levels stay in
    ``metadata["levels"]`` (per judge) and ``metadata["level"]`` (their mean). Java returned
    the raw level: a Java ``assertThat(score).isGreaterThanOrEqualTo(4.0)`` becomes
    ``assert result.metadata["level"] >= 4`` or ``assert result.score >= 0.75``. The judge's
    answer must be one of the rubric's levels. A ``reference`` is shown when present.
    """

    bean_name: ClassVar[str] = "rubrics_score"
    name: ClassVar[str] = "RubricsScoreMetric"
    description: ClassVar[str] = "The rubric level that fits the response, as a 0–1 score"
    config_type: ClassVar[type[MetricConfig]] = RubricsScoreConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "*": (*INTERACTION_READS, "reference", "rubrics")
    }
    criteria_key: ClassVar[str | None] = "criteria"

    def check_sample(self, sample: Sample, config: RubricsScoreConfig) -> RubricsScoreConfig:
        """Needs a rubric (config or sample) and ``response`` or a conversation."""
        if not config.rubrics:
            if not sample.rubrics:
                raise SampleValidationError(
                    "is missing or empty, and the config has no rubrics either; give "
                    "score1_description ... scoreN_description in one of them",
                    field="rubrics",
                    metric=self.name,
                )
            try:
                parse_rubrics(sample.rubrics)
            except ValueError as error:
                raise SampleValidationError(str(error), field="rubrics", metric=self.name) from None
        self._check_interaction(sample, config)
        return config

    def total_steps(self, config: RubricsScoreConfig) -> int:
        """One step."""
        return 1

    async def _score(
        self, sample: Sample, config: RubricsScoreConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        source = "config" if config.rubrics else "sample"
        levels = parse_rubrics(config.rubrics or sample.rubrics or {})
        low, high = min(levels), max(levels)
        prompt = render_prompt(
            self._template(config, "rubrics_score"),
            {"interaction": render_interaction(sample, language, config.interaction)},
            {
                "rubrics": "\n".join(f"Score {level}: {what}" for level, what in levels.items()),
                "reference": render_reference(sample, text["reference"]),
            },
        )
        repeats = await self._ask("Evaluate", judges, prompt, level_model(tuple(levels)), 1)
        exclusions = repeats.exclusions()
        scores: dict[str, float] = {}
        chosen: dict[str, int] = {}
        reasons: dict[str, str] = {}
        for judge in judges:
            answers = repeats.answers[judge.id]
            if not answers:
                continue
            level = int(answers[0].score)
            chosen[judge.id] = level
            scores[judge.id] = (level - low) / (high - low)
            reasons[judge.id] = answers[0].reasoning
        if not scores:
            raise self._all_failed("Evaluate", [repeats.step], exclusions)
        mean_level = sum(chosen.values()) / len(chosen)
        metadata: dict[str, Any] = {
            "rubrics": {str(level): what for level, what in levels.items()},
            "rubrics_source": source,
            "levels": chosen,
            "level": mean_level,
            "min_level": low,
            "max_level": high,
            "reasons": reasons,
        }
        parts = [
            text["summary"].format(
                level=mean_level, low=low, high=high, score=sum(scores.values()) / len(scores)
            ),
            text["levels"].format(levels=", ".join(f"{j} {v}" for j, v in chosen.items())),
            text["source"].format(source=text[source]),
        ]
        if exclusions:
            parts.append(text["excluded"].format(count=len(exclusions)))
        return ScoringOutcome(
            model_scores=scores,
            steps=[repeats.step],
            exclusions=exclusions,
            metadata=metadata,
            explanation=". ".join(parts) + ".",
        )
