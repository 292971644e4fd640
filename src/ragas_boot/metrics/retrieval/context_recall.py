"""ContextRecall: the share of the reference's statements the retrieved contexts support."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from ragas_boot.metrics.base import MetricConfig
from ragas_boot.metrics.steps import VerdictScale
from ragas_boot.metrics.steps.statement_share import StatementShareMetric

__all__ = ["ATTRIBUTION_VERDICTS", "ContextRecallConfig", "ContextRecallMetric"]

#: 1 when the contexts support the reference statement, 0 when they do not.
ATTRIBUTION_VERDICTS = VerdictScale(
    labels=(1, 0),
    positive=frozenset({1}),
    meaning="1 if the context supports (can be credited with) the statement, else 0.",
)


class ContextRecallConfig(MetricConfig):
    """Config of :class:`ContextRecallMetric` (the shared settings only)."""


class ContextRecallMetric(StatementShareMetric[ContextRecallConfig]):
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
    text_field: ClassVar[str] = "reference"
    decompose_step: ClassVar[str] = "DecomposeReference"
    judge_step: ClassVar[str] = "ClassifyStatements"
    judge_prompt: ClassVar[str] = "attribute_statements"
    scale: ClassVar[VerdictScale] = ATTRIBUTION_VERDICTS
    count_key: ClassVar[str] = "attributed"
    why: ClassVar[str] = "ContextRecall looks for the reference's statements in the contexts"
    texts: ClassVar[Mapping[str, Mapping[str, str]]] = {
        "en": {
            "detail": "{count} of {total} reference statements found in the contexts",
            "no_contexts": "context recall is undefined: the sample has no retrieved contexts",
            "no_statements": "context recall is undefined: no judge found a statement in the "
            "reference",
        },
        "ru": {
            "detail": "в контекстах найдено {count} из {total} утверждений эталона",
            "no_contexts": "context recall не определена: в образце нет найденных контекстов",
            "no_statements": "context recall не определена: ни один судья не нашёл утверждений "
            "в эталоне",
        },
    }
