"""ContextRelevance: a 0/1/2 rating of each retrieved context for the question, per judge."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.execution.results import StepRecord
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.metrics.steps import (
    Chain,
    Rating,
    contexts_of,
    mean_text,
    outcome_text,
    rating_model,
)
from ragas_boot.samples import Sample

__all__ = ["ContextRelevanceConfig", "ContextRelevanceMetric"]


class ContextRelevanceConfig(MetricConfig):
    """Config of :class:`ContextRelevanceMetric` (the shared settings only)."""


_TEXT = {
    "en": {
        "detail": "per context (mean over judges): {scores}",
        "no_contexts": "context relevance is undefined: the sample has no retrieved contexts",
    },
    "ru": {
        "detail": "по контекстам (среднее по судьям): {scores}",
        "no_contexts": "context relevance не определена: в образце нет найденных контекстов",
    },
}


class ContextRelevanceMetric(Metric[ContextRelevanceConfig]):
    """How relevant the retrieved contexts are to the question: mean of 0/1/2 ratings (/2).

    Each judge rates every context in its own call; all calls are sent at once (one dependent
    step; the Java library rated contexts one after another). Score per judge = mean of its
    normalised ratings over the contexts. A judge failing any context is excluded (Java
    dropped a context nobody rated, which could raise the score). No contexts: undefined.
    """

    bean_name: ClassVar[str] = "context_relevance"
    name: ClassVar[str] = "ContextRelevanceMetric"
    description: ClassVar[str] = "How relevant each retrieved context is to the question (0/1/2)"
    config_type: ClassVar[type[MetricConfig]] = ContextRelevanceConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("user_input", "retrieved_contexts")}
    why: ClassVar[str] = "ContextRelevance rates each context for the question"

    def total_steps(self, config: ContextRelevanceConfig) -> int:
        """One step per context, all sent at once."""
        return 1

    async def _score(
        self, sample: Sample, config: ContextRelevanceConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        chain = Chain(self.executor, judges)
        contexts = contexts_of(sample)
        if not contexts:
            return chain.undefined(text["no_contexts"], language)
        template = self._template(config, "rate_context_relevance")
        records: list[StepRecord] = await chain.level(
            *(
                chain.run(
                    f"EvaluateRelevance_{number}",
                    judges,
                    render_prompt(template, {"question": sample.user_input, "context": context}),
                    rating_model(2),
                )
                for number, context in enumerate(contexts, 1)
            )
        )
        ratings: dict[str, list[Rating]] = {judge.id: [] for judge in judges}
        for record in records:
            for call in record.calls:
                if call.ok:
                    ratings[call.judge_id].append(
                        Rating(raw=call.value.rating, maximum=2, reason=call.value.reason)
                    )
                else:
                    chain.exclude_call(call)
        chain.ensure_alive(self)
        model_scores = chain.scored(
            {
                judge.id: sum(r.score for r in ratings[judge.id]) / len(contexts)
                for judge in chain.alive()
            }
        )
        per_context = [
            sum(ratings[j][c].score for j in model_scores) / len(model_scores)
            for c in range(len(contexts))
        ]
        parts = [
            mean_text(language, model_scores),
            text["detail"].format(scores=", ".join(f"{s:.2f}" for s in per_context)),
        ]
        per_judge: dict[str, Any] = {j: [r.as_dict() for r in ratings[j]] for j in model_scores}
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "context_count": len(contexts),
                "context_scores": per_context,
                "judges": per_judge,
                "reasons": {
                    j: "; ".join(f"#{n}: {r.raw} ({r.reason})" for n, r in enumerate(ratings[j], 1))
                    for j in model_scores
                },
            },
            explanation=outcome_text(language, parts, chain.exclusions),
        )
