"""Hallucination: the share of the response's claims the contexts do not support."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ragas_boot.metrics.base import MetricConfig
from ragas_boot.metrics.steps import VerdictScale
from ragas_boot.metrics.steps.statement_share import StatementShareMetric

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


class HallucinationMetric(StatementShareMetric[HallucinationConfig]):
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
    text_field: ClassVar[str] = "response"
    decompose_step: ClassVar[str] = "ExtractClaims"
    judge_step: ClassVar[str] = "DetectHallucinations"
    judge_prompt: ClassVar[str] = "detect_hallucinations"
    scale: ClassVar[VerdictScale] = HALLUCINATION_VERDICTS
    count_positive: ClassVar[bool] = False
    count_key: ClassVar[str] = "hallucinated"
    why: ClassVar[str] = "Hallucination checks the response's claims against the contexts"
    texts: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "en": {
            "detail": "{count} of {total} claims contradicted or not in the contexts",
            "no_contexts": "hallucination is undefined: the sample has no retrieved contexts",
            "no_statements": "hallucination is undefined: no judge found a claim in the response",
        },
        "ru": {
            "detail": "{count} из {total} утверждений противоречат контексту или отсутствуют в нём",
            "no_contexts": "hallucination не определена: в образце нет найденных контекстов",
            "no_statements": "hallucination не определена: ни один судья не нашёл утверждений "
            "в ответе",
        },
    }
