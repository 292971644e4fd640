"""AspectCritic: does the response meet one free-text criterion? (yes/no, LLM judges)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.base import MetricConfig, ScoringOutcome
from ragas_boot.metrics.general._judging import (
    DefinitionConfig,
    JudgedTextMetric,
    render_interaction,
)
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.metrics.steps.explain import votes_pass
from ragas_boot.samples import Sample

__all__ = ["AspectCriticConfig", "AspectCriticMetric", "AspectVerdict"]


class AspectCriticConfig(DefinitionConfig):
    """Config of :class:`AspectCriticMetric`: the criterion and how often each judge is asked."""


class AspectVerdict(BaseModel):
    """A judge's verdict on one criterion (reasoning first, then the verdict)."""

    reasoning: str = Field(description="One to three sentences on the criterion.")
    verdict: bool = Field(description="True if the response meets the criterion.")


_TEXT = {
    "en": {
        "met": "Criterion met",
        "not_met": "Criterion not met",
        "votes": "{yes} of {total} judges said yes",
        "repeats": "each judge asked {n} times, its majority counts (a tie is a no)",
        "criterion": "Criterion: {definition}",
        "excluded": "{count} judge(s) excluded",
    },
    "ru": {
        "met": "Критерий выполнен",
        "not_met": "Критерий не выполнен",
        "votes": "{yes} из {total} судей ответили «да»",
        "repeats": "каждого судью спросили {n} раз(а), считается его большинство (ничья — «нет»)",
        "criterion": "Критерий: {definition}",
        "excluded": "исключено судей: {count}",
    },
}


def majority(verdicts: Sequence[bool]) -> bool:
    """True when more than half of ``verdicts`` are true (a tie is false, as in Java)."""
    return sum(verdicts) * 2 > len(verdicts)


class AspectCriticMetric(JudgedTextMetric[AspectCriticConfig]):
    """1.0 per judge when (the majority of its repeats says) the criterion is met, else 0.0.

    Each judge is asked ``strictness`` times (1–5, default 1), all calls independent and sent
    at once at the judge's configured temperature; a judge's verdict is the strict majority of
    the repeats that answered (ties, possible with an even strictness or failed repeats, count
    as *not met*); a judge whose every repeat failed is excluded. Judges' scores are then
    aggregated (AVERAGE by default). The verdict means "criterion met", so a negative
    criterion ("contains profanity?") gives 1.0 to a bad answer: phrase criteria positively
    ("free of profanity").
    """

    bean_name: ClassVar[str] = "aspect_critic"
    name: ClassVar[str] = "AspectCriticMetric"
    description: ClassVar[str] = "Whether the response meets a free-text criterion (yes/no)"
    config_type: ClassVar[type[MetricConfig]] = AspectCriticConfig
    criteria_key: ClassVar[str | None] = "criteria"

    def check_sample(self, sample: Sample, config: AspectCriticConfig) -> AspectCriticConfig:
        """Needs a definition, and ``response`` or ``user_input_messages``."""
        self._require(config, "definition", "a definition (the criterion to check)")
        self._check_interaction(sample, config)
        return config

    def total_steps(self, config: AspectCriticConfig) -> int:
        """One step (its calls are the repeats)."""
        return 1

    async def _score(
        self, sample: Sample, config: AspectCriticConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        prompt = render_prompt(
            self._template(config, "aspect_critic"),
            {"interaction": render_interaction(sample, language, config.interaction)},
            {"definition": config.definition},
        )
        repeats = await self._ask("Evaluate", judges, prompt, AspectVerdict, config.strictness)
        exclusions = repeats.exclusions()
        scores: dict[str, float] = {}
        verdicts: dict[str, bool] = {}
        reasons: dict[str, str] = {}
        for judge in judges:
            answers: list[AspectVerdict] = repeats.answers[judge.id]
            if not answers:
                continue
            verdict = majority([answer.verdict for answer in answers])
            verdicts[judge.id] = verdict
            scores[judge.id] = 1.0 if verdict else 0.0
            reasons[judge.id] = next(a.reasoning for a in answers if a.verdict == verdict)
        if not scores:
            raise self._all_failed("Evaluate", [repeats.step], exclusions)
        metadata: dict[str, Any] = {
            "definition": config.definition,
            "strictness": config.strictness,
            "verdicts": verdicts,
            "reasons": reasons,
            "repeats": repeats.record(
                lambda value: {"verdict": value.verdict, "reasoning": value.reasoning}
            ),
        }
        return ScoringOutcome(
            model_scores=scores,
            steps=[repeats.step],
            exclusions=exclusions,
            metadata=metadata,
            explanation=self._explain(language, config, verdicts, exclusions),
        )

    def _explain(
        self,
        language: str,
        config: AspectCriticConfig,
        verdicts: dict[str, bool],
        exclusions: Sequence[Any],
    ) -> str:
        text = localized(_TEXT, language)
        yes = sum(verdicts.values())
        headline = text["met"] if votes_pass(yes, len(verdicts)) else text["not_met"]
        parts = [f"{headline}: " + text["votes"].format(yes=yes, total=len(verdicts))]
        if config.strictness > 1:
            parts.append(text["repeats"].format(n=config.strictness))
        parts.append(text["criterion"].format(definition=config.definition))
        if exclusions:
            parts.append(text["excluded"].format(count=len(exclusions)))
        return ". ".join(parts) + "."
