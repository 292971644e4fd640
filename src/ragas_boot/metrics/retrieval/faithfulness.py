"""Faithfulness: the share of the response's statements the retrieved contexts support."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ragas_boot.metrics.base import MetricConfig
from ragas_boot.metrics.steps import VerdictScale
from ragas_boot.metrics.steps.statement_share import StatementShareMetric

__all__ = ["FAITHFUL_VERDICTS", "FaithfulnessConfig", "FaithfulnessMetric"]

#: 1 when the statement can be inferred from the contexts, 0 when it cannot.
FAITHFUL_VERDICTS = VerdictScale(
    labels=(1, 0),
    positive=frozenset({1}),
    meaning="1 if the statement can be inferred directly from the context, else 0.",
)


class FaithfulnessConfig(MetricConfig):
    """Config of :class:`FaithfulnessMetric` (the shared settings only)."""


class FaithfulnessMetric(StatementShareMetric[FaithfulnessConfig]):
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
    text_field: ClassVar[str] = "response"
    decompose_step: ClassVar[str] = "GenerateStatements"
    judge_step: ClassVar[str] = "EvaluateFaithfulness"
    judge_prompt: ClassVar[str] = "verify_statements"
    scale: ClassVar[VerdictScale] = FAITHFUL_VERDICTS
    count_key: ClassVar[str] = "faithful"
    why: ClassVar[str] = "Faithfulness checks the response's statements against the contexts"
    texts: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "en": {
            "detail": "{count} of {total} statements supported by the contexts",
            "no_contexts": "faithfulness is undefined: the sample has no retrieved contexts",
            "no_statements": "faithfulness is undefined: no judge found a statement in the "
            "response",
        },
        "ru": {
            "detail": "контекст подтверждает {count} из {total} утверждений",
            "no_contexts": "faithfulness не определена: в образце нет найденных контекстов",
            "no_statements": "faithfulness не определена: ни один судья не нашёл утверждений "
            "в ответе",
        },
    }
