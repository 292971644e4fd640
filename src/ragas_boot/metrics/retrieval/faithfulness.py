"""Faithfulness: the share of the response's statements the retrieved contexts support."""

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

__all__ = ["FAITHFUL_VERDICTS", "FaithfulnessConfig", "FaithfulnessMetric"]

#: 1 when the statement can be inferred from the contexts, 0 when it cannot.
FAITHFUL_VERDICTS = VerdictScale(
    labels=(1, 0),
    positive=frozenset({1}),
    meaning="1 if the statement can be inferred directly from the context, else 0.",
)


class FaithfulnessConfig(MetricConfig):
    """Config of :class:`FaithfulnessMetric` (the shared settings only)."""


_TEXT = {
    "en": {
        "detail": "{faithful} of {total} statements supported by the contexts",
        "no_contexts": "faithfulness is undefined: the sample has no retrieved contexts",
        "no_statements": "faithfulness is undefined: no judge found a statement in the response",
    },
    "ru": {
        "detail": "контекст подтверждает {faithful} из {total} утверждений",
        "no_contexts": "faithfulness не определена: в образце нет найденных контекстов",
        "no_statements": "faithfulness не определена: ни один судья не нашёл утверждений в ответе",
    },
}


class FaithfulnessMetric(Metric[FaithfulnessConfig]):
    """Share of the response's statements that the retrieved contexts support.

    Each judge splits the response into standalone statements (``GenerateStatements``), then
    judges **its own** statements against the contexts in one call whose schema pins one
    verdict (1/0) per statement (``EvaluateFaithfulness``). Score per judge = supported /
    statements. No statements, or no contexts, leaves the score undefined (the Java library
    returned 0.0 for the first and judged against an empty context for the second).
    """

    bean_name: ClassVar[str] = "faithfulness"
    name: ClassVar[str] = "FaithfulnessMetric"
    description: ClassVar[str] = "Share of the response's statements the contexts support"
    config_type: ClassVar[type[MetricConfig]] = FaithfulnessConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "*": ("user_input", "response", "retrieved_contexts")
    }

    def check_sample(self, sample: Sample, config: FaithfulnessConfig) -> FaithfulnessConfig:
        """Needs ``user_input``, ``response`` and ``retrieved_contexts`` (may be empty)."""
        why = "Faithfulness checks the response's statements against the contexts"
        require_text(sample, "user_input", self.name, None, why)
        require_text(sample, "response", self.name, None, why)
        require_contexts(sample, self.name, None, why)
        return config

    def total_steps(self, config: FaithfulnessConfig) -> int:
        """Generate statements, then evaluate them."""
        return 2

    async def _score(
        self, sample: Sample, config: FaithfulnessConfig, judges: Sequence[JudgeModel]
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
        template = self._template(config, "verify_statements")
        context = "\n\n".join(contexts)
        judged = await decompose_then_judge(
            chain,
            judges,
            decompose_step="GenerateStatements",
            decompose_prompt=render_prompt(
                self._template(config, "extract_statements"),
                {"question": sample.user_input, "answer": sample.response},
            ),
            output_model=Statements,
            judge_step="EvaluateFaithfulness",
            judge_prompt=lambda judge, items: render_prompt(
                template,
                {"context": context, "statements": numbered_list(items), "count": len(items)},
            ),
            scale=FAITHFUL_VERDICTS,
        )
        if not chain.alive():
            raise self._all_failed(chain.failed_step, chain.steps, chain.exclusions)
        per_judge: dict[str, dict[str, Any]] = {}
        scores: dict[str, float | None] = {}
        for judge in chain.alive():
            found = judged.verdicts.get(judge.id, [])
            faithful = sum(v.positive for v in found)
            scores[judge.id] = judged.share(judge.id)
            per_judge[judge.id] = {
                **judged.detail(judge.id),
                "faithful": faithful,
                "total": len(found),
            }
        model_scores = chain.scored(scores)
        undefined = None if model_scores else text["no_statements"]
        parts = [undefined or mean_text(language, model_scores)]
        if model_scores:
            faithful = sum(d["faithful"] for d in per_judge.values())
            total = sum(d["total"] for d in per_judge.values())
            parts.append(text["detail"].format(faithful=faithful, total=total))
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "judges": per_judge,
                "reasons": {
                    judge_id: "; ".join(
                        f"{v['statement']}: {v['verdict']} ({v['reason']})" for v in d["verdicts"]
                    )
                    for judge_id, d in per_judge.items()
                },
            },
            explanation=outcome_text(language, parts, chain.exclusions),
            undefined_reason=undefined,
        )
