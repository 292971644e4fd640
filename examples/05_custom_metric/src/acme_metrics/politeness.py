"""Politeness: a judge-based metric: every judge says whether the answer is polite."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from pydantic import BaseModel, Field

from ragas_boot import Sample, SampleValidationError
from ragas_boot.chat import JudgeModel
from ragas_boot.execution import Exclusion
from ragas_boot.metrics import Metric, MetricConfig, ScoringOutcome, render_prompt

PROMPT = """Is the assistant's answer below polite and respectful towards the user?
Answer "polite": true or false, with a one-sentence reason.

User's request:
{user_input}

Assistant's answer:
{response}
"""


class PolitenessConfig(MetricConfig):
    """Politeness has no options of its own beyond the shared ones (models, threshold, ...)."""


class PolitenessVerdict(BaseModel):
    """One judge's answer."""

    polite: bool = Field(description="Whether the answer is polite.")
    reason: str = Field(description="One sentence on why.")


class PolitenessMetric(Metric[PolitenessConfig]):
    """Share of judges that find the answer polite."""

    bean_name: ClassVar[str] = "politeness"
    name: ClassVar[str] = "PolitenessMetric"
    description: ClassVar[str] = "Whether judges find the agent's answer polite"
    config_type: ClassVar[type[MetricConfig]] = PolitenessConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {"*": ("user_input", "response")}

    def check_sample(self, sample: Sample, config: PolitenessConfig) -> PolitenessConfig:
        for field in ("user_input", "response"):
            if not (getattr(sample, field) or "").strip():
                raise SampleValidationError("is missing or empty", field=field, metric=self.name)
        return config

    def total_steps(self, config: PolitenessConfig) -> int:
        return 1

    async def _score(
        self, sample: Sample, config: PolitenessConfig, judges: Sequence[JudgeModel]
    ) -> ScoringOutcome:
        prompt = render_prompt(
            PROMPT, {"user_input": sample.user_input, "response": sample.response}
        )
        step = await self.executor.run_step("JudgePoliteness", judges, prompt, PolitenessVerdict)
        scores: dict[str, float] = {}
        reasons: dict[str, str] = {}
        exclusions: list[Exclusion] = []
        for call in step.calls:
            if not call.ok:
                exclusions.append(Exclusion.from_call(call))
                continue
            scores[call.judge_id] = 1.0 if call.value.polite else 0.0
            reasons[call.judge_id] = call.value.reason
        if not scores:
            raise self._all_failed(step.name, [step], exclusions)
        polite = sum(scores.values())
        return ScoringOutcome(
            model_scores=scores,
            steps=[step],
            exclusions=exclusions,
            metadata={"reasons": reasons},
            explanation=f"{polite:.0f} of {len(scores)} judge(s) find the answer polite",
        )
