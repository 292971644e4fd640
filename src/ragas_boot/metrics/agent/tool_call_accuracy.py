"""ToolCallAccuracy: F1 of the agent's tool calls against the reference calls (no LLM)."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.errors import SampleValidationError
from ragas_boot.execution.results import StepRecord
from ragas_boot.metrics.agent.matching import (
    CallOrder,
    FailedCalls,
    ToolCallMatching,
    ToolCallMode,
    ValueComparison,
    match_tool_calls,
)
from ragas_boot.metrics.agent.matching.report import SUMMARY_TEMPLATES_RU
from ragas_boot.metrics.base import Metric, MetricConfig, Need, ScoringOutcome
from ragas_boot.metrics.prompting import localized, prompt_language
from ragas_boot.samples import Sample

__all__ = ["ToolCallAccuracyConfig", "ToolCallAccuracyMetric"]


class ToolCallAccuracyConfig(MetricConfig):
    """Config of :class:`ToolCallAccuracyMetric`."""

    mode: ToolCallMode = Field(
        default=ToolCallMode.STRICT,
        description="STRICT: all arguments equal; FLEXIBLE: share of reference args ≥ threshold.",
    )
    argument_match_threshold: float = Field(
        default=0.8, ge=0.0, le=1.0, description="FLEXIBLE: share of reference arguments to match."
    )
    order: CallOrder = Field(
        default=CallOrder.ANY, description="ANY: order ignored; STRICT: reference order kept."
    )
    value_comparison: ValueComparison = Field(
        default=ValueComparison.EXACT,
        description="EXACT JSON equality (True ≠ 1); NORMALIZE: '1' == 1, trimmed case-blind.",
    )
    failed_calls: FailedCalls = Field(
        default=FailedCalls.COUNT,
        description="COUNT failed tool calls like any; EXCLUDE_RECOVERED: leave out a failed "
        "call when a later call of the same tool succeeded.",
    )


def _matching(sample: Sample, config: ToolCallAccuracyConfig) -> ToolCallMatching:
    results = sample.actual_tool_call_results()
    return match_tool_calls(
        sample.actual_tool_calls(),
        sample.reference_tool_calls or [],
        mode=config.mode,
        threshold=config.argument_match_threshold,
        order=config.order,
        comparison=config.value_comparison,
        # No tool result known (the usual trace of calls alone): nothing failed.
        succeeded=[None if result is None else not result.failed for result in results]
        if any(results)
        else None,
        failed_calls=config.failed_calls,
    )


_FROM_MATCHING = (  # in the order of ToolCallMatching.as_dict
    "summary",
    "correct",
    "incorrect",
    "missed",
    "extra",
    "optional",
    "alternative",
    "alternative_scores",
    "failed_calls",
    "failed",
    "recovered",
    "unrecovered",
    "excluded",
)
"""Keys of :meth:`ToolCallMatching.as_dict` copied into the result's metadata."""


_TEXT = {
    "en": "{summary}. Precision {precision:.2f} (TP {tp} / {actual} calls made), "
    "recall {recall:.2f} (TP {tp} / {reference} expected), mode {mode}, order {order}",
    "ru": "{summary}. Precision {precision:.2f} (TP {tp} / {actual} сделанных вызовов), "
    "recall {recall:.2f} (TP {tp} / {reference} ожидаемых), режим {mode}, порядок {order}",
}


class ToolCallAccuracyMetric(Metric[ToolCallAccuracyConfig]):
    """F1 of precision (matched / calls made) and recall (matched / calls expected).

    Calls are paired by a maximum matching, not greedy first-fit, so no permutation of either
    list changes the score and duplicates count as a multiset. Actual calls come from
    ``sample.tool_calls``, else from the AI messages of ``user_input_messages``. The reference
    may list alternatives (the best one scores), optional calls and argument rules; tool
    results marked as errors are reported as failed calls, and recovered ones can be left out
    (``failed_calls``). No judge is called; ``model_scores`` is empty and the aggregation is
    ``NONE``.
    """

    bean_name: ClassVar[str] = "tool_call_accuracy"
    name: ClassVar[str] = "ToolCallAccuracyMetric"
    description: ClassVar[str] = (
        "F1 of the tool calls made against the expected calls (optimal matching)"
    )
    config_type: ClassVar[type[MetricConfig]] = ToolCallAccuracyConfig
    needs: ClassVar[frozenset[Need]] = frozenset()
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "*": ("reference_tool_calls", "tool_calls|user_input_messages")
    }

    def check_sample(
        self, sample: Sample, config: ToolCallAccuracyConfig
    ) -> ToolCallAccuracyConfig:
        """Needs ``reference_tool_calls`` and either ``tool_calls`` or ``user_input_messages``.

        A case (a sample with ``expectations``) without ``reference_tool_calls`` expects
        nothing of its tool calls: its score is undefined, not an error."""
        if sample.reference_tool_calls is None and sample.expectations is None:
            raise SampleValidationError(
                "is missing; ToolCallAccuracy compares calls with the expected ones "
                "(use [] to expect no calls)",
                field="reference_tool_calls",
                metric=self.name,
                mode=config.mode.value,
            )
        if sample.tool_calls is None and sample.user_input_messages is None:
            raise SampleValidationError(
                "is missing, and so is user_input_messages to take the calls from",
                field="tool_calls",
                metric=self.name,
                mode=config.mode.value,
            )
        return config

    def total_steps(self, config: ToolCallAccuracyConfig) -> int:
        """Alignment and scoring, both computed."""
        return 2

    def match(
        self, sample: Sample, config: ToolCallAccuracyConfig | None = None
    ) -> ToolCallMatching:
        """The matching behind the score (sync, no I/O)."""
        effective = self.resolve_config(config)
        self.check_sample(sample, effective)
        return _matching(sample, effective)

    def _score_only(self, sample: Sample, config: ToolCallAccuracyConfig) -> float | None:
        if sample.reference_tool_calls is None:
            return None  # a case that expects nothing of its calls: undefined (see _score)
        return _matching(sample, config).f1

    async def _score(
        self,
        sample: Sample,
        config: ToolCallAccuracyConfig,
        judges: Sequence[JudgeModel],
    ) -> ScoringOutcome:
        if sample.reference_tool_calls is None:  # a case that says nothing about tools
            return ScoringOutcome(
                model_scores={},
                steps=[],
                exclusions=[],
                metadata={},
                explanation="",
                mode=config.mode.value,
                score=None,
                undefined_reason=_NOT_CHECKED["ru" if self._language(config) == "ru" else "en"],
                aggregated=False,
            )
        started = time.perf_counter()
        matching = _matching(sample, config)
        elapsed = time.perf_counter() - started
        language = self._language(config)
        return ScoringOutcome(
            model_scores={},
            steps=[
                StepRecord.computed("AlignToolCalls", 0, elapsed),
                _COMPUTE_SCORE,
            ],
            exclusions=[],
            metadata={},
            explanation="",
            mode=config.mode.value,
            score=matching.f1,
            aggregated=False,
            details=lambda: _details(matching, config, language),
        )


_NOT_CHECKED = {
    "en": "the case expects nothing of its tool calls (no reference_tool_calls)",
    "ru": "кейс ничего не ожидает от вызовов инструментов (нет reference_tool_calls)",
}
"""Why a case without expected calls has no ToolCallAccuracy score."""

_COMPUTE_SCORE = StepRecord.computed("ComputeScore", 1)
"""The scoring step of every evaluation (frozen, so shared)."""


def _details(
    matching: ToolCallMatching, config: ToolCallAccuracyConfig, language: str
) -> tuple[dict[str, Any], str]:
    """The result's metadata and explanation, built when first read."""
    # One pass over the matching: its dict carries the figures and the summary line the
    # metadata and the explanation both use.
    data = matching.as_dict()
    precision, recall = data["precision"], data["recall"]
    true_positives = data["true_positives"]
    counted, required = matching.counted_count, matching.required_count
    metadata: dict[str, Any] = {
        "mode": config.mode.value,
        "argument_match_threshold": config.argument_match_threshold,
        "order": config.order.value,
        "value_comparison": config.value_comparison.value,
        "actual_call_count": len(matching.actual),
        "reference_call_count": len(matching.reference),
        "true_positives": true_positives,
        "false_positives": counted - true_positives,
        "false_negatives": required - true_positives,
        "precision": precision,
        "recall": recall,
        **{key: data[key] for key in _FROM_MATCHING},
    }
    summary = data["summary"]
    if prompt_language(language) == "ru":
        summary = matching.summary_in(SUMMARY_TEMPLATES_RU)
    explanation = localized(_TEXT, language).format(
        summary=summary,
        precision=precision,
        recall=recall,
        tp=true_positives,
        actual=counted,
        reference=required,
        mode=config.mode.value,
        order=config.order.value,
    )
    return metadata, explanation
