"""ResponseLength: a judge-less metric: is the final answer within a length budget?"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import Field, model_validator

from ragas_boot import Sample, SampleValidationError
from ragas_boot.chat import JudgeModel
from ragas_boot.metrics import Metric, MetricConfig, Need, ScoringOutcome


class ResponseLengthConfig(MetricConfig):
    """Length budget of the answer, in characters."""

    min_chars: int = Field(default=1, ge=0, description="Shortest acceptable answer.")
    max_chars: int = Field(default=500, ge=1, description="Longest acceptable answer.")

    @model_validator(mode="after")
    def _ordered(self) -> ResponseLengthConfig:
        if self.min_chars > self.max_chars:
            raise ValueError(f"min-chars ({self.min_chars}) is above max-chars ({self.max_chars})")
        return self


class ResponseLengthMetric(Metric[ResponseLengthConfig]):
    """1.0 inside ``[min_chars, max_chars]``; outside, the budget over the length (or the
    length over the minimum), so a slightly long answer scores a little under 1."""

    bean_name: ClassVar[str] = "response_length"
    name: ClassVar[str] = "ResponseLengthMetric"
    description: ClassVar[str] = "Whether the final answer fits the length budget (no judge)"
    config_type: ClassVar[type[MetricConfig]] = ResponseLengthConfig
    needs: ClassVar[frozenset[Need]] = frozenset()
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("response",)}

    def check_sample(self, sample: Sample, config: ResponseLengthConfig) -> ResponseLengthConfig:
        if sample.response is None:
            raise SampleValidationError("is missing", field="response", metric=self.name)
        return config

    def total_steps(self, config: ResponseLengthConfig) -> int:
        return 0

    async def _score(
        self, sample: Sample, config: ResponseLengthConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        length = len(sample.response or "")
        if length > config.max_chars:
            score = config.max_chars / length
        elif length < config.min_chars:
            score = length / config.min_chars
        else:
            score = 1.0
        return ScoringOutcome(
            model_scores={},
            steps=[],
            exclusions=[],
            metadata={
                "length": length,
                "min_chars": config.min_chars,
                "max_chars": config.max_chars,
            },
            explanation=f"{length} characters; budget {config.min_chars}-{config.max_chars}",
            score=score,
            aggregated=False,
        )
