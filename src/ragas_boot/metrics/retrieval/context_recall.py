"""ContextRecall: the share of the reference's statements the retrieved contexts support."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import render_prompt
from ragas_boot.metrics.steps import (
    Chain,
    Statements,
    VerdictScale,
    contexts_of,
    decompose_then_judge,
    mean_text,
    numbered_list,
    outcome_text,
    require_contexts,
    require_text,
)
from ragas_boot.samples import Sample

__all__ = ["ATTRIBUTION_VERDICTS", "ContextRecallConfig", "ContextRecallMetric"]

#: 1 when the contexts support the reference statement, 0 when they do not.
ATTRIBUTION_VERDICTS = VerdictScale(
    labels=(1, 0),
    positive=frozenset({1}),
    meaning="1 if the context supports (can be credited with) the statement, else 0.",
)


class ContextRecallConfig(MetricConfig):
    """Config of :class:`ContextRecallMetric` (the shared settings only)."""


_TEXT = {
    "en": {
        "detail": "{found} of {total} reference statements found in the contexts",
        "no_contexts": "context recall is undefined: the sample has no retrieved contexts",
        "no_statements": "context recall is undefined: no judge found a statement in the reference",
    },
    "ru": {
        "detail": "в контекстах найдено {found} из {total} утверждений эталона",
        "no_contexts": "context recall не определена: в образце нет найденных контекстов",
        "no_statements": "context recall не определена: ни один судья не нашёл утверждений "
        "в эталоне",
    },
}


class ContextRecallMetric(Metric[ContextRecallConfig]):
    """Share of the reference answer's statements that the retrieved contexts support.

    Each judge splits the reference into statements (``DecomposeReference``), then attributes
    **its own** statements to the contexts, one 1/0 verdict per statement pinned by the schema
    (``ClassifyStatements``). The Java library did both in one call, so each model chose its
    own denominator and could return any integer as "attributed"; here the split is a step of
    its own and the verdicts are checked. No statements or no contexts: undefined.
    """

    bean_name: ClassVar[str] = "context_recall"
    name: ClassVar[str] = "ContextRecallMetric"
    description: ClassVar[str] = "Share of the reference's statements the contexts support"
    config_type: ClassVar[type[MetricConfig]] = ContextRecallConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "*": ("user_input", "reference", "retrieved_contexts")
    }

    def check_sample(self, sample: Sample, config: ContextRecallConfig) -> ContextRecallConfig:
        """Needs ``user_input``, ``reference`` and ``retrieved_contexts`` (may be empty)."""
        why = "ContextRecall looks for the reference's statements in the contexts"
        require_text(sample, "user_input", self.name, None, why)
        require_text(sample, "reference", self.name, None, why)
        require_contexts(sample, self.name, None, why)
        return config

    def total_steps(self, config: ContextRecallConfig) -> int:
        """Decompose the reference, then classify its statements."""
        return 2

    async def _score(
        self, sample: Sample, config: ContextRecallConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        language = self._language(config)
        text = _TEXT["ru" if language == "ru" else "en"]
        chain = Chain(self.executor, judges)
        contexts = contexts_of(sample)
        if not contexts:
            reason = text["no_contexts"]
            return chain.outcome(
                model_scores={},
                metadata={},
                explanation=outcome_text(language, [reason], []),
                undefined_reason=reason,
            )
        template = self._template(config, "attribute_statements")
        context = "\n\n".join(contexts)
        judged = await decompose_then_judge(
            chain,
            judges,
            decompose_step="DecomposeReference",
            decompose_prompt=render_prompt(
                self._template(config, "extract_statements"),
                {"question": sample.user_input, "answer": sample.reference},
            ),
            output_model=Statements,
            judge_step="ClassifyStatements",
            judge_prompt=lambda judge, items: render_prompt(
                template,
                {
                    "question": sample.user_input,
                    "context": context,
                    "statements": numbered_list(items),
                    "count": len(items),
                },
            ),
            scale=ATTRIBUTION_VERDICTS,
        )
        if not chain.alive():
            raise self._all_failed(chain.failed_step, chain.steps, chain.exclusions)
        per_judge: dict[str, dict[str, Any]] = {}
        scores: dict[str, float | None] = {}
        for judge in chain.alive():
            found = judged.verdicts.get(judge.id, [])
            scores[judge.id] = judged.share(judge.id)
            per_judge[judge.id] = {
                **judged.detail(judge.id),
                "attributed": sum(v.positive for v in found),
                "total": len(found),
            }
        model_scores = chain.scored(scores)
        undefined = None if model_scores else text["no_statements"]
        parts = [undefined or mean_text(language, model_scores)]
        if model_scores:
            parts.append(
                text["detail"].format(
                    found=sum(d["attributed"] for d in per_judge.values()),
                    total=sum(d["total"] for d in per_judge.values()),
                )
            )
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "judges": per_judge,
                "reasons": {
                    judge_id: "; ".join(f"{v['statement']}: {v['verdict']}" for v in d["verdicts"])
                    for judge_id, d in per_judge.items()
                },
            },
            explanation=outcome_text(language, parts, chain.exclusions),
            undefined_reason=undefined,
        )
