"""AnswerAccuracy: a 0/1/2 rating of the response against the reference, per judge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.metrics.steps import (
    Chain,
    Rating,
    mean_text,
    outcome_text,
    rate,
    rating_model,
)
from ragas_boot.samples import Sample

__all__ = ["AnswerAccuracyConfig", "AnswerAccuracyMetric"]

_CONFIRMED = (("agrees_with_initial", "Whether the final rating equals the first one."),)


class AnswerAccuracyConfig(MetricConfig):
    """Config of :class:`AnswerAccuracyMetric`."""

    use_dual_judge: bool = Field(
        default=False,
        description="Ask each judge to review its own first rating (a second, dependent step).",
    )


_TEXT = {
    "en": {
        "ratings": "ratings {ratings} (0 wrong, 1 partly, 2 fully correct)",
        "confirmed": "each judge reviewed its own rating; {changed} changed it",
    },
    "ru": {
        "ratings": "оценки {ratings} (0 неверно, 1 частично, 2 полностью верно)",
        "confirmed": "каждый судья перепроверил свою оценку; изменили: {changed}",
    },
}


class AnswerAccuracyMetric(Metric[AnswerAccuracyConfig]):
    """How well the response agrees with the reference: each judge rates 0, 1 or 2 (/2).

    ``InitialJudgment``: one rating per judge (reason first). With ``use_dual_judge`` each
    judge then reviews **its own** rating (``ConfirmJudgment``) and the reviewed rating
    counts; the Java library showed every model the averaged score and one arbitrary model's
    reasoning, and replaced the whole score map with the confirmations. Ratings outside 0..2
    are clamped (and marked so in the metadata).
    """

    bean_name: ClassVar[str] = "answer_accuracy"
    name: ClassVar[str] = "AnswerAccuracyMetric"
    description: ClassVar[str] = "How well the response agrees with the reference (0/1/2 rating)"
    config_type: ClassVar[type[MetricConfig]] = AnswerAccuracyConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "reference")}
    why: ClassVar[str] = "AnswerAccuracy rates the response against the reference"

    def total_steps(self, config: AnswerAccuracyConfig) -> int:
        """1, or 2 with the dual judge."""
        return 2 if config.use_dual_judge else 1

    async def _score(
        self, sample: Sample, config: AnswerAccuracyConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        chain = Chain(self.executor, judges)
        values = {"response": sample.response, "reference": sample.reference}
        initial = await rate(
            chain,
            "InitialJudgment",
            judges,
            render_prompt(self._template(config, "rate_answer_accuracy"), values),
        )
        chain.ensure_alive(self)
        final: dict[str, Rating] = dict(initial)
        confirmed: dict[str, dict[str, Any]] = {}
        if config.use_dual_judge:
            template = self._template(config, "confirm_answer_accuracy")
            record = await chain.run(
                "ConfirmJudgment",
                chain.alive(),
                lambda judge: render_prompt(
                    template,
                    {**values, "initial_reason": initial[judge.id].reason},
                    {"initial_rating": initial[judge.id].raw},
                ),
                rating_model(2, _CONFIRMED),
            )
            for call in record.calls:
                if not call.ok:
                    chain.exclude_call(call)
                    continue
                final[call.judge_id] = Rating(
                    raw=call.value.rating, maximum=2, reason=call.value.reason
                )
                confirmed[call.judge_id] = {
                    **final[call.judge_id].as_dict(),
                    "agrees_with_initial": call.value.agrees_with_initial,
                }
            chain.ensure_alive(self)
        model_scores = chain.scored({judge_id: r.score for judge_id, r in final.items()})
        parts = [
            mean_text(language, model_scores),
            text["ratings"].format(ratings=", ".join(str(final[j].raw) for j in model_scores)),
        ]
        if config.use_dual_judge:
            changed = sum(final[j].raw != initial[j].raw for j in model_scores)
            parts.append(text["confirmed"].format(changed=changed))
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "initial": {j: r.as_dict() for j, r in initial.items()},
                "confirmed": confirmed or None,
                "used_dual_judge": config.use_dual_judge,
                "reasons": {j: final[j].reason for j in model_scores},
            },
            explanation=outcome_text(language, parts, chain.exclusions),
        )
