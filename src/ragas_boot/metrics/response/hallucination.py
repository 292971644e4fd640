"""Hallucination: the share of the response's claims the contexts do not support."""

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

__all__ = ["HALLUCINATION_VERDICTS", "HallucinationConfig", "HallucinationMetric"]

#: A claim is supported, contradicted or hallucinated (not in the context); only SUPPORTED
#: is fine.
HALLUCINATION_VERDICTS = VerdictScale(
    labels=("SUPPORTED", "CONTRADICTED", "HALLUCINATED"),
    positive=frozenset({"SUPPORTED"}),
    meaning="SUPPORTED by the context, CONTRADICTED by it, or HALLUCINATED (not in it).",
)


class HallucinationConfig(MetricConfig):
    """Config of :class:`HallucinationMetric`; the threshold is a maximum (lower is better)."""


_TEXT = {
    "en": {
        "detail": "{bad} of {total} claims contradicted or not in the contexts",
        "no_contexts": "hallucination is undefined: the sample has no retrieved contexts",
        "no_claims": "hallucination is undefined: no judge found a claim in the response",
    },
    "ru": {
        "detail": "{bad} из {total} утверждений противоречат контексту или отсутствуют в нём",
        "no_contexts": "hallucination не определена: в образце нет найденных контекстов",
        "no_claims": "hallucination не определена: ни один судья не нашёл утверждений в ответе",
    },
}


class HallucinationMetric(Metric[HallucinationConfig]):
    """Share of the response's claims that are contradicted by, or absent from, the contexts.

    **Lower is better** (0.0 = every claim supported); a threshold is a maximum. Each judge
    splits the response into claims (``ExtractClaims``), then labels **its own** claims
    SUPPORTED / CONTRADICTED / HALLUCINATED in one call pinned to one verdict per claim
    (``DetectHallucinations``). The Java class (not a bean there) had the judge invent and
    label claims in one call and returned 0.0, "perfect", when it listed none; here no claims
    or no contexts leave the score undefined.
    """

    bean_name: ClassVar[str] = "hallucination"
    name: ClassVar[str] = "HallucinationMetric"
    description: ClassVar[str] = "Share of the response's claims the contexts do not support"
    config_type: ClassVar[type[MetricConfig]] = HallucinationConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "*": ("user_input", "response", "retrieved_contexts")
    }
    lower_is_better: ClassVar[bool] = True

    def check_sample(self, sample: Sample, config: HallucinationConfig) -> HallucinationConfig:
        """Needs ``user_input``, ``response`` and ``retrieved_contexts`` (may be empty)."""
        why = "Hallucination checks the response's claims against the contexts"
        require_text(sample, "user_input", self.name, None, why)
        require_text(sample, "response", self.name, None, why)
        require_contexts(sample, self.name, None, why)
        return config

    def total_steps(self, config: HallucinationConfig) -> int:
        """Extract claims, then label them."""
        return 2

    async def _score(
        self, sample: Sample, config: HallucinationConfig, judges: Sequence[JudgeModel]
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
                explanation=outcome_text(language, [reason], [], lower_is_better=True),
                undefined_reason=reason,
            )
        template = self._template(config, "detect_hallucinations")
        context = "\n\n".join(contexts)
        judged = await decompose_then_judge(
            chain,
            judges,
            decompose_step="ExtractClaims",
            decompose_prompt=render_prompt(
                self._template(config, "extract_statements"),
                {"question": sample.user_input, "answer": sample.response},
            ),
            output_model=Statements,
            judge_step="DetectHallucinations",
            judge_prompt=lambda judge, items: render_prompt(
                template,
                {
                    "question": sample.user_input,
                    "context": context,
                    "statements": numbered_list(items),
                    "count": len(items),
                },
            ),
            scale=HALLUCINATION_VERDICTS,
        )
        if not chain.alive():
            raise self._all_failed(chain.failed_step, chain.steps, chain.exclusions)
        per_judge: dict[str, dict[str, Any]] = {}
        scores: dict[str, float | None] = {}
        for judge in chain.alive():
            found = judged.verdicts.get(judge.id, [])
            bad = sum(not v.positive for v in found)
            scores[judge.id] = judged.share(judge.id, positive=False)
            per_judge[judge.id] = {
                **judged.detail(judge.id),
                "hallucinated": bad,
                "total": len(found),
            }
        model_scores = chain.scored(scores)
        undefined = None if model_scores else text["no_claims"]
        parts = [undefined or mean_text(language, model_scores)]
        if model_scores:
            parts.append(
                text["detail"].format(
                    bad=sum(d["hallucinated"] for d in per_judge.values()),
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
            explanation=outcome_text(language, parts, chain.exclusions, lower_is_better=True),
            undefined_reason=undefined,
        )
