"""FactualCorrectness: the claims of the response and the reference, checked both ways."""

from __future__ import annotations

from collections.abc import Awaitable, Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import localized, render_prompt
from ragas_boot.metrics.steps import (
    Chain,
    Claims,
    Verdict,
    VerdictScale,
    decompose,
    judge_statements,
    mean_text,
    numbered_list,
    outcome_text,
)
from ragas_boot.samples import Sample

__all__ = [
    "CLAIM_VERDICTS",
    "FactualCorrectnessConfig",
    "FactualCorrectnessMetric",
    "FactualCorrectnessMode",
]

#: Claim verdicts against a source of truth; only SUPPORTED counts.
CLAIM_VERDICTS = VerdictScale(
    labels=("SUPPORTED", "CONTRADICTED", "NEUTRAL"),
    positive=frozenset({"SUPPORTED"}),
    meaning="SUPPORTED (the context states or implies it), CONTRADICTED or NEUTRAL.",
)


class FactualCorrectnessMode(CaseInsensitiveEnum):
    """Which of precision, recall or their F1 is the score."""

    F1 = "F1"
    PRECISION = "PRECISION"
    RECALL = "RECALL"


class FactualCorrectnessConfig(MetricConfig):
    """Config of :class:`FactualCorrectnessMetric`."""

    mode: FactualCorrectnessMode = Field(
        default=FactualCorrectnessMode.F1,
        description="F1 (default), PRECISION (response claims) or RECALL (reference claims).",
    )


_TEXT = {
    "en": {
        "detail": "precision {precision}, recall {recall}",
        "undefined": "{mode} is undefined: no judge found a claim in {which}",
        "response": "the response",
        "reference": "the reference",
        "either": "the response or the reference",
    },
    "ru": {
        "detail": "precision {precision}, recall {recall}",
        "undefined": "{mode} не определена: ни один судья не нашёл утверждений в {which}",
        "response": "ответе",
        "reference": "эталоне",
        "either": "ответе или эталоне",
    },
}


def _ratio(verdicts: Sequence[Verdict]) -> float:
    return sum(v.positive for v in verdicts) / len(verdicts)


def _f1(precision: float, recall: float) -> float:
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def _mean(values: Sequence[float | None]) -> str:
    defined = [value for value in values if value is not None]
    return f"{sum(defined) / len(defined):.2f}" if defined else "n/a"


class FactualCorrectnessMetric(Metric[FactualCorrectnessConfig]):
    """Precision, recall or F1 of the response's facts against the reference.

    Each judge decomposes the response and the reference into claims (two calls sent at
    once), then checks its own response claims against the reference (precision) and its
    own reference claims against the response (recall), again two calls at once, each with
    one verdict per claim pinned by the schema. PRECISION and RECALL make only the calls
    they need. P = supported response claims / response claims; R = supported reference
    claims / reference claims; F1 = 2PR / (P + R) (0 when both are 0). A side with no claims
    leaves its ratio undefined, and a score that needs it undefined (never a silent 0.0).
    """

    bean_name: ClassVar[str] = "factual_correctness"
    name: ClassVar[str] = "FactualCorrectnessMetric"
    description: ClassVar[str] = "Share of claims the response and the reference support both ways"
    config_type: ClassVar[type[MetricConfig]] = FactualCorrectnessConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response", "reference")}
    mode_field: ClassVar[str | None] = "mode"
    why: ClassVar[str] = "FactualCorrectness compares the response's claims with the reference's"

    def total_steps(self, config: FactualCorrectnessConfig) -> int:
        """Decompose and verify each side the mode needs (4 for F1, 2 otherwise)."""
        return 4 if config.mode is FactualCorrectnessMode.F1 else 2

    async def _score(
        self,
        sample: Sample,
        config: FactualCorrectnessConfig,
        judges: Sequence[JudgeModel],
    ) -> ScoringOutcome:
        language = self._language(config)
        text = localized(_TEXT, language)
        response, reference = sample.response or "", sample.reference or ""
        mode = config.mode
        sides = {
            "response": mode is not FactualCorrectnessMode.RECALL,
            "reference": mode is not FactualCorrectnessMode.PRECISION,
        }
        chain = Chain(self.executor, judges)
        claims_template = self._template(config, "extract_claims")
        decompositions: list[Awaitable[dict[str, list[str]]]] = []
        if sides["response"]:
            decompositions.append(
                decompose(
                    chain,
                    "DecomposeResponseClaims",
                    judges,
                    render_prompt(claims_template, {"text": response}),
                    Claims,
                )
            )
        if sides["reference"]:
            decompositions.append(
                decompose(
                    chain,
                    "DecomposeReferenceClaims",
                    judges,
                    render_prompt(claims_template, {"text": reference}),
                    Claims,
                )
            )
        found = await chain.level(*decompositions)
        response_claims = found[0] if sides["response"] else {}
        reference_claims = found[-1] if sides["reference"] else {}
        chain.ensure_alive(self)

        verify_template = self._template(config, "verify_claims")

        def against(context: str) -> Any:
            return lambda judge, claims: render_prompt(
                verify_template,
                {"context": context, "statements": numbered_list(claims)},
                {"count": len(claims)},
            )

        checks: list[Awaitable[dict[str, list[Verdict]]]] = []
        if sides["response"]:
            checks.append(
                judge_statements(
                    chain,
                    "VerifyResponseClaims",
                    judges,
                    response_claims,
                    against(reference),
                    CLAIM_VERDICTS,
                )
            )
        if sides["reference"]:
            checks.append(
                judge_statements(
                    chain,
                    "VerifyReferenceClaims",
                    judges,
                    reference_claims,
                    against(response),
                    CLAIM_VERDICTS,
                )
            )
        verified = await chain.level(*checks)
        precision_verdicts = verified[0] if sides["response"] else {}
        recall_verdicts = verified[-1] if sides["reference"] else {}
        chain.ensure_alive(self)

        per_judge: dict[str, dict[str, Any]] = {}
        scores: dict[str, float | None] = {}
        for judge in chain.alive():
            precision = (
                _ratio(precision_verdicts[judge.id]) if judge.id in precision_verdicts else None
            )
            recall = _ratio(recall_verdicts[judge.id]) if judge.id in recall_verdicts else None
            f1 = _f1(precision, recall) if precision is not None and recall is not None else None
            per_judge[judge.id] = {
                "response_claims": response_claims.get(judge.id, []),
                "reference_claims": reference_claims.get(judge.id, []),
                "precision_verdicts": [v.as_dict() for v in precision_verdicts.get(judge.id, [])],
                "recall_verdicts": [v.as_dict() for v in recall_verdicts.get(judge.id, [])],
                "precision": precision,
                "recall": recall,
                "f1": f1,
            }
            scores[judge.id] = {
                FactualCorrectnessMode.F1: f1,
                FactualCorrectnessMode.PRECISION: precision,
                FactualCorrectnessMode.RECALL: recall,
            }[mode]
        model_scores = chain.scored(scores)
        which = {
            FactualCorrectnessMode.F1: text["either"],
            FactualCorrectnessMode.PRECISION: text["response"],
            FactualCorrectnessMode.RECALL: text["reference"],
        }[mode]
        undefined = None if model_scores else text["undefined"].format(mode=mode.value, which=which)
        detail = text["detail"].format(
            precision=_mean([d["precision"] for d in per_judge.values()]),
            recall=_mean([d["recall"] for d in per_judge.values()]),
        )
        parts = (
            [f"{mode.value} {mean_text(language, model_scores)}", detail]
            if model_scores
            else [undefined or ""]
        )
        return chain.outcome(
            model_scores=model_scores,
            metadata={
                "mode": mode.value,
                "judges": per_judge,
                "reasons": {
                    judge_id: "; ".join(
                        f"{v['statement']}: {v['verdict']}"
                        for v in d["precision_verdicts"] + d["recall_verdicts"]
                    )
                    for judge_id, d in per_judge.items()
                },
            },
            explanation=outcome_text(language, parts, chain.exclusions),
            mode=mode.value,
            undefined_reason=undefined,
        )
