"""AgentGoalAccuracy: did the agent achieve what the user wanted? (LLM judges)."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, Field

from ragas_boot._enums import CaseInsensitiveEnum
from ragas_boot.chat.judge import JudgeModel
from ragas_boot.errors import SampleValidationError
from ragas_boot.execution.results import Exclusion
from ragas_boot.metrics.base import Metric, MetricConfig, ScoringOutcome
from ragas_boot.metrics.prompting import localized, render_conversation, render_prompt
from ragas_boot.metrics.steps.explain import votes_pass
from ragas_boot.samples import Sample

__all__ = [
    "AgentGoalAccuracyConfig",
    "AgentGoalAccuracyMetric",
    "AgentGoalMode",
    "GoalVerdict",
    "InferredGoal",
]

log = logging.getLogger("ragas_boot.metrics")


class AgentGoalMode(CaseInsensitiveEnum):
    """Whether the expected outcome is given (``reference``) or inferred by each judge."""

    WITH_REFERENCE = "WITH_REFERENCE"
    WITHOUT_REFERENCE = "WITHOUT_REFERENCE"


class AgentGoalAccuracyConfig(MetricConfig):
    """Config of :class:`AgentGoalAccuracyMetric`."""

    mode: AgentGoalMode = Field(
        default=AgentGoalMode.WITH_REFERENCE,
        description="WITH_REFERENCE compares with sample.reference; WITHOUT_REFERENCE infers it.",
    )


class GoalVerdict(BaseModel):
    """A judge's verdict on whether the goal was achieved."""

    goal_achieved: bool = Field(description="True only if the goal was fully achieved.")
    reason: str = Field(description="One or two sentences explaining the verdict.")


class InferredGoal(BaseModel):
    """The user's goal as a judge reads it from the conversation."""

    inferred_goal: str = Field(description="The user's primary goal, in one sentence.")
    reason: str = Field(description="What in the conversation shows this goal.")


_TEXT = {
    "en": {
        "achieved": "Goal achieved",
        "not_achieved": "Goal not achieved",
        "votes": "{yes} of {total} judges said the goal was achieved",
        "reference": "Expected outcome: {reference}",
        "inferred": "Each judge inferred the goal itself ({count} goals)",
        "excluded": "{count} judge(s) excluded",
    },
    "ru": {
        "achieved": "Цель достигнута",
        "not_achieved": "Цель не достигнута",
        "votes": "{yes} из {total} судей считают цель достигнутой",
        "reference": "Ожидаемый результат: {reference}",
        "inferred": "Каждый судья сам вывел цель ({count} целей)",
        "excluded": "исключено судей: {count}",
    },
}


class AgentGoalAccuracyMetric(Metric[AgentGoalAccuracyConfig]):
    """Binary per judge (1.0 achieved, 0.0 not), aggregated across judges.

    WITH_REFERENCE (default): each judge compares the conversation's outcome with
    ``sample.reference`` (step ``CompareOutcome``). Without a reference the metric falls back
    to WITHOUT_REFERENCE and logs it. WITHOUT_REFERENCE: each judge infers the user's goal
    (``InferGoal``), then judges achievement of the goal **it** inferred (``EvaluateOutcome``);
    the Java library used the first judge's goal for everyone. Every inferred goal is recorded.
    """

    bean_name: ClassVar[str] = "agent_goal_accuracy"
    name: ClassVar[str] = "AgentGoalAccuracyMetric"
    description: ClassVar[str] = "Whether the agent achieved the user's goal"
    config_type: ClassVar[type[MetricConfig]] = AgentGoalAccuracyConfig
    reads: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "WITH_REFERENCE": ("user_input_messages", "reference"),
        "WITHOUT_REFERENCE": ("user_input_messages",),
    }

    def check_sample(
        self, sample: Sample, config: AgentGoalAccuracyConfig
    ) -> AgentGoalAccuracyConfig:
        """Needs ``user_input_messages``; ``reference`` for WITH_REFERENCE (else falls back)."""
        if not sample.user_input_messages:
            raise SampleValidationError(
                "is missing or empty; AgentGoalAccuracy judges a conversation",
                field="user_input_messages",
                metric=self.name,
                mode=config.mode.value,
            )
        if config.mode is AgentGoalMode.WITH_REFERENCE and not (sample.reference or "").strip():
            log.info(
                "No reference provided for WITH_REFERENCE mode - falling back to WITHOUT_REFERENCE"
            )
            return config.model_copy(update={"mode": AgentGoalMode.WITHOUT_REFERENCE})
        return config

    def total_steps(self, config: AgentGoalAccuracyConfig) -> int:
        """1 with a reference, 2 without."""
        return 1 if config.mode is AgentGoalMode.WITH_REFERENCE else 2

    async def _score(
        self,
        sample: Sample,
        config: AgentGoalAccuracyConfig,
        judges: Sequence[JudgeModel],
    ) -> ScoringOutcome:
        language = self._language(config)
        conversation = render_conversation(sample.user_input_messages or [])
        steps = []
        exclusions: list[Exclusion] = []
        goals: dict[str, str] = {}

        if config.mode is AgentGoalMode.WITH_REFERENCE:
            prompt = render_prompt(
                self._template(config, "compare_outcome"),
                {"reference": sample.reference, "conversation": conversation},
            )
            verdict_step = await self.executor.run_step(
                "CompareOutcome", judges, prompt, GoalVerdict, index=0
            )
            steps.append(verdict_step)
        else:
            infer_template = self._template(config, "infer_goal")
            infer = await self.executor.run_step(
                "InferGoal",
                judges,
                render_prompt(infer_template, {"conversation": conversation}),
                InferredGoal,
                index=0,
            )
            steps.append(infer)
            survivors: list[JudgeModel] = []
            for judge, call in zip(judges, infer.calls, strict=True):
                if not call.ok:
                    exclusions.append(Exclusion.from_call(call))
                elif not call.value.inferred_goal.strip():
                    exclusions.append(
                        Exclusion(
                            judge_id=call.judge_id,
                            step=call.step,
                            kind="invalid_output",
                            message="the inferred goal is empty",
                        )
                    )
                else:
                    goals[judge.id] = call.value.inferred_goal.strip()
                    survivors.append(judge)
            if not survivors:
                raise self._all_failed("InferGoal", steps, exclusions)
            evaluate_template = self._template(config, "evaluate_outcome")
            verdict_step = await self.executor.run_step(
                "EvaluateOutcome",
                survivors,
                lambda judge: render_prompt(
                    evaluate_template, {"goal": goals[judge.id], "conversation": conversation}
                ),
                GoalVerdict,
                index=1,
            )
            steps.append(verdict_step)

        scores: dict[str, float] = {}
        verdicts: dict[str, bool] = {}
        reasons: dict[str, str] = {}
        for call in verdict_step.calls:
            if not call.ok:
                exclusions.append(Exclusion.from_call(call))
                continue
            verdict: GoalVerdict = call.value
            verdicts[call.judge_id] = verdict.goal_achieved
            reasons[call.judge_id] = verdict.reason
            scores[call.judge_id] = 1.0 if verdict.goal_achieved else 0.0
        if not scores:
            raise self._all_failed(verdict_step.name, steps, exclusions)

        metadata: dict[str, Any] = {
            "mode": config.mode.value,
            "reference": sample.reference if config.mode is AgentGoalMode.WITH_REFERENCE else None,
            "inferred_goals": goals,
            "verdicts": verdicts,
            "reasons": reasons,
        }
        return ScoringOutcome(
            model_scores=scores,
            steps=steps,
            exclusions=exclusions,
            metadata=metadata,
            explanation=self._explain(language, config, sample, verdicts, goals, exclusions),
            mode=config.mode.value,
        )

    def _explain(
        self,
        language: str,
        config: AgentGoalAccuracyConfig,
        sample: Sample,
        verdicts: dict[str, bool],
        goals: dict[str, str],
        exclusions: list[Exclusion],
    ) -> str:
        text = localized(_TEXT, language)
        yes = sum(verdicts.values())
        headline = text["achieved"] if votes_pass(yes, len(verdicts)) else text["not_achieved"]
        parts = [f"{headline}: " + text["votes"].format(yes=yes, total=len(verdicts))]
        if config.mode is AgentGoalMode.WITH_REFERENCE:
            parts.append(text["reference"].format(reference=sample.reference))
        else:
            parts.append(text["inferred"].format(count=len(goals)))
        if exclusions:
            parts.append(text["excluded"].format(count=len({e.judge_id for e in exclusions})))
        return ". ".join(parts) + "."
