"""``MetricResult``: all one evaluation produced, as frozen data (rendered elsewhere)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.chat.judge import TokenUsage
from ragas_boot.execution.results import Exclusion, StepRecord

__all__ = ["MetricResult", "meets_threshold"]


class MetricResult(BaseModel):
    """The full result of one metric on one sample.

    ``score`` is ``None`` only when the metric is undefined for the sample (for example
    TopicAdherence PRECISION when the judges found no topics); ``undefined_reason`` then says
    why. A failure of every judge is an error, never a ``None`` or ``0.0`` score.
    """

    model_config = ConfigDict(frozen=True)

    metric: str = Field(description="Metric name, e.g. AgentGoalAccuracyMetric.")
    score: float | None = Field(description="Aggregated score in [0, 1]; None when undefined.")
    model_scores: dict[str, float] = Field(
        default_factory=dict, description="Judge id → that judge's score."
    )
    exclusions: list[Exclusion] = Field(
        default_factory=list, description="Judges left out, with step and reason."
    )
    steps: list[StepRecord] = Field(
        default_factory=list, description="Every step with each judge's prompt, answer, timing."
    )
    metadata: dict[str, Any] = Field(
        default_factory=dict, description="Metric-specific details (matches, verdicts, topics)."
    )
    explanation: str = Field(default="", description="How the score came about, in `language`.")
    agreement: float = Field(
        default=1.0, description="Share of judges on the majority side (1.0 = unanimous)."
    )
    disagreement: bool = Field(default=False, description="Whether any judge voted otherwise.")
    aggregation: str = Field(default="AVERAGE", description="How judges' scores were combined.")
    judge_ids: list[str] = Field(default_factory=list, description="Judges asked, in order.")
    language: str = Field(default="en", description="Language of prompts and explanation.")
    mode: str | None = Field(default=None, description="The metric mode that ran.")
    config: dict[str, Any] = Field(default_factory=dict, description="The effective config.")
    undefined_reason: str | None = Field(default=None, description="Why score is None.")
    duration_s: float = Field(default=0.0, description="Wall time of the evaluation.")
    usage: TokenUsage = Field(
        default_factory=TokenUsage, description="Answered tokens of all judges (answers used)."
    )
    billed_usage: TokenUsage = Field(
        default_factory=TokenUsage,
        description="Billed tokens of all judges: every response that reported usage.",
    )
    cost: float | None = Field(
        default=None,
        description="Cost of the billed tokens of judges with a price; None when none has one.",
    )
    sample_id: str | None = Field(default=None, description="The sample's id, when it has one.")
    lower_is_better: bool = Field(
        default=False,
        description="Whether a lower score is better (NoiseSensitivity, Hallucination); the "
        "threshold is then a maximum.",
    )

    def passes(self, threshold: float) -> bool | None:
        """Whether the score meets ``threshold`` (a maximum when lower is better)."""
        if self.score is None:
            return None
        return meets_threshold(self.score, threshold, lower_is_better=self.lower_is_better)

    @property
    def excluded_judges(self) -> list[str]:
        """Ids of the excluded judges (each once, in order)."""
        return list(dict.fromkeys(exclusion.judge_id for exclusion in self.exclusions))

    def reasons(self) -> dict[str, str]:
        """Judge id → the reason its final verdict gave, when the metric records one."""
        reasons = self.metadata.get("reasons")
        return dict(reasons) if isinstance(reasons, dict) else {}


def meets_threshold(score: float, threshold: float, *, lower_is_better: bool = False) -> bool:
    """``score >= threshold``, or ``score <= threshold`` for a lower-is-better metric."""
    return score <= threshold if lower_is_better else score >= threshold
