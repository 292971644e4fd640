"""ContextPrecision: are the useful contexts ranked first? (average precision per judge)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.execution.results import StepRecord
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.metrics.steps import (
    Chain,
    contexts_of,
    mean_text,
    outcome_text,
)
from ragas_boot.samples import Sample

__all__ = [
    "ContextPrecisionConfig",
    "ContextPrecisionMetric",
    "ContextPrecisionStrategy",
    "ContextUsefulness",
    "average_precision",
]


class ContextPrecisionStrategy(CaseInsensitiveEnum):
    """What the judges compare each context with."""

    AUTO = "AUTO"
    REFERENCE_BASED = "REFERENCE_BASED"
    RESPONSE_BASED = "RESPONSE_BASED"


class ContextPrecisionConfig(MetricConfig):
    """Config of :class:`ContextPrecisionMetric`."""

    evaluation_strategy: ContextPrecisionStrategy = Field(
        default=ContextPrecisionStrategy.AUTO,
        description="AUTO (reference when the sample has one, else response), REFERENCE_BASED "
        "or RESPONSE_BASED.",
    )


class ContextUsefulness(BaseModel):
    """A judge's verdict on one retrieved context."""

    reason: str = Field(description="One short sentence, given before the verdict.")
    verdict: bool = Field(description="True if the context is useful for the answer.")


def average_precision(relevant: Sequence[bool]) -> float:
    """Mean of precision@k over the ranks k of the relevant items; 0.0 when none is relevant."""
    hits = 0
    total = 0.0
    for rank, useful in enumerate(relevant, 1):
        if useful:
            hits += 1
            total += hits / rank
    return total / hits if hits else 0.0


_TEXT = {
    "en": {
        "detail": "{relevant} of {total} context verdicts relevant ({strategy})",
        "no_contexts": "context precision is undefined: the sample has no retrieved contexts",
    },
    "ru": {
        "detail": "релевантных вердиктов по контекстам: {relevant} из {total} ({strategy})",
        "no_contexts": "context precision не определена: в образце нет найденных контекстов",
    },
}


class ContextPrecisionMetric(Metric[ContextPrecisionConfig]):
    """Average precision of the retrieved contexts' ranking, per judge, then aggregated.

    Every judge rates every context (useful or not) as a separate call, all sent at once (one
    dependent step, ``EvaluateContext_<i>``); against the reference (REFERENCE_BASED) or the
    response (RESPONSE_BASED); AUTO picks the reference when the sample has one. Score per
    judge = Σ precision@k over relevant ranks k / number of relevant contexts (0.0 when none
    is relevant). A judge that fails any context is excluded (the Java library counted the
    failure as "not relevant" and still scored the judge). No contexts: undefined.
    """

    bean_name: ClassVar[str] = "context_precision"
    name: ClassVar[str] = "ContextPrecisionMetric"
    description: ClassVar[str] = "Whether useful contexts are ranked above useless ones"
    config_type: ClassVar[type[MetricConfig]] = ContextPrecisionConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "AUTO": ("user_input", "retrieved_contexts", "reference|response"),
        "REFERENCE_BASED": ("user_input", "retrieved_contexts", "reference"),
        "RESPONSE_BASED": ("user_input", "retrieved_contexts", "response"),
    }

    mode_field: ClassVar[str | None] = "evaluation_strategy"
    why: ClassVar[str] = "ContextPrecision judges each context's usefulness for the question"

    def check_sample(
        self, sample: Sample, config: ContextPrecisionConfig
    ) -> ContextPrecisionConfig:
        """The fields of ``reads``; AUTO then becomes the strategy the sample allows."""
        config = super().check_sample(sample, config)
        if config.evaluation_strategy is not ContextPrecisionStrategy.AUTO:
            return config  # nothing to resolve: no copy per sample
        strategy = (
            ContextPrecisionStrategy.REFERENCE_BASED
            if (sample.reference or "").strip()
            else ContextPrecisionStrategy.RESPONSE_BASED
        )
        return config.model_copy(update={"evaluation_strategy": strategy})

    def total_steps(self, config: ContextPrecisionConfig) -> int:
        """One step per context, all sent at once."""
        return 1

    async def _score(
        self, sample: Sample, config: ContextPrecisionConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        strategy = config.evaluation_strategy
        chain = Chain(self.executor, judges)
        contexts = contexts_of(sample)
        if not contexts:
            return chain.undefined(text["no_contexts"], language, mode=strategy.value)
        by_reference = strategy is ContextPrecisionStrategy.REFERENCE_BASED
        template = self._template(
            config,
            "judge_context_with_reference" if by_reference else "judge_context_with_response",
        )
        guide = {"reference": sample.reference} if by_reference else {"response": sample.response}
        records: list[StepRecord] = await chain.level(
            *(
                chain.run(
                    f"EvaluateContext_{number}",
                    judges,
                    render_prompt(
                        template, {"question": sample.user_input, "context": context, **guide}
                    ),
                    ContextUsefulness,
                )
                for number, context in enumerate(contexts, 1)
            )
        )
        relevance: dict[str, list[bool]] = {judge.id: [] for judge in judges}
        reasons: dict[str, list[str]] = {judge.id: [] for judge in judges}
        for record in records:
            for call in record.calls:
                if call.ok:
                    relevance[call.judge_id].append(call.value.verdict)
                    reasons[call.judge_id].append(call.value.reason)
                else:
                    chain.exclude_call(call)
        chain.ensure_alive(self)
        model_scores = chain.scored(
            {judge.id: average_precision(relevance[judge.id]) for judge in chain.alive()}
        )
        per_judge: dict[str, dict[str, Any]] = {
            judge_id: {"relevant": relevance[judge_id], "reasons": reasons[judge_id]}
            for judge_id in model_scores
        }
        relevant = sum(sum(d["relevant"]) for d in per_judge.values())
        parts = [
            mean_text(language, model_scores),
            text["detail"].format(
                relevant=relevant,
                total=len(contexts) * len(per_judge),
                strategy=strategy.value,
            ),
        ]
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "evaluation_strategy": strategy.value,
                "context_count": len(contexts),
                "judges": per_judge,
                "reasons": {
                    judge_id: "; ".join(
                        f"#{n}: {'relevant' if ok else 'not relevant'} ({why})"
                        for n, (ok, why) in enumerate(
                            zip(d["relevant"], d["reasons"], strict=True), 1
                        )
                    )
                    for judge_id, d in per_judge.items()
                },
            },
            explanation=outcome_text(language, parts, chain.exclusions),
            mode=strategy.value,
        )
