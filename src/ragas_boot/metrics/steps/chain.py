"""A metric's run of steps: numbering, levels of independent steps, exclusions."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Sequence
from typing import Any, TypeVar

from pydantic import BaseModel

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.execution.executor import MultiModelExecutor, OutputSource, PromptSource
from ragas_boot.execution.results import Exclusion, JudgeCall, StepRecord
from ragas_boot.metrics.base import Metric, ScoringOutcome
from ragas_boot.metrics.steps.explain import outcome_text

__all__ = ["Chain"]

T = TypeVar("T")
OutputT = TypeVar("OutputT", bound=BaseModel)


class Chain:
    """The steps and exclusions of one evaluation, and the judges still in the running.

    A judge drops out at its first failure (failed call, invalid or misaligned answer) and is
    asked nothing more. Steps are numbered in the order they are started; the steps started
    inside one :meth:`level` are sent at once and count as one dependent step.

    Args:
        executor: the multi-model executor.
        judges: the judges selected for the evaluation, in order.
    """

    def __init__(self, executor: MultiModelExecutor, judges: Sequence[JudgeModel]) -> None:
        self._executor = executor
        self.judges = list(judges)
        self.steps: list[StepRecord] = []
        self.exclusions: list[Exclusion] = []
        self.levels: list[list[str]] = []
        self._current: list[str] | None = None
        self._next_index = 0
        self._failed: set[str] = set()

    # ------------------------------------------------------------------ judges

    def alive(self, judges: Sequence[JudgeModel] | None = None) -> list[JudgeModel]:
        """``judges`` (default: all) that have not failed yet, in order."""
        return [j for j in (self.judges if judges is None else judges) if j.id not in self._failed]

    def failed(self, judge_id: str) -> bool:
        """Whether the judge has failed a step."""
        return judge_id in self._failed

    def exclude_call(self, call: JudgeCall) -> None:
        """Record a failed call as its judge's exclusion."""
        self._failed.add(call.judge_id)
        self.exclusions.append(Exclusion.from_call(call))

    def exclude(self, judge_id: str, step: str, message: str, kind: str = "invalid_output") -> None:
        """Record that a judge's answer at ``step`` cannot be used, and why."""
        self._failed.add(judge_id)
        self.exclusions.append(Exclusion(judge_id=judge_id, step=step, kind=kind, message=message))

    @property
    def failed_step(self) -> str:
        """The step of the last exclusion (where the last judge dropped out)."""
        return self.exclusions[-1].step if self.exclusions else ""

    def ensure_alive(self, metric: Metric[Any]) -> None:
        """Raise AllJudgesFailedError (with the steps so far) when every judge has failed."""
        if not self.alive():
            raise metric._all_failed(self.failed_step, self.steps, self.exclusions)

    def scored(self, scores: dict[str, float | None]) -> dict[str, float]:
        """The defined scores of the judges still in the running, in judge order."""
        return {
            judge.id: value for judge in self.alive() if (value := scores.get(judge.id)) is not None
        }

    # ------------------------------------------------------------------ steps

    async def run(
        self,
        name: str,
        judges: Sequence[JudgeModel],
        prompt: PromptSource,
        output_model: OutputSource[OutputT],
    ) -> StepRecord:
        """Ask ``judges`` one step at once; the record is kept in start order."""
        index = self._next_index
        self._next_index += 1
        if self._current is not None:
            self._current.append(name)
        else:
            self.levels.append([name])
        placeholder = len(self.steps)
        self.steps.append(StepRecord(name=name, index=index))
        record = await self._executor.run_step(name, judges, prompt, output_model, index=index)
        self.steps[placeholder] = record
        return record

    async def level(self, *steps: Awaitable[T]) -> list[T]:
        """Run independent steps at once, as one dependent step (levels do not nest)."""
        if self._current is not None:
            return list(await asyncio.gather(*steps))
        self._current = []
        try:
            results = list(await asyncio.gather(*steps))
        finally:
            if self._current:
                self.levels.append(self._current)
            self._current = None
        return results

    # ------------------------------------------------------------------ figures

    @property
    def dependent_steps(self) -> int:
        """How many steps waited for another (levels run)."""
        return len(self.levels)

    @property
    def calls(self) -> int:
        """Judge calls made (one per judge per step)."""
        return sum(len(step.calls) for step in self.steps)

    def figures(self) -> dict[str, Any]:
        """Calls, dependent steps and the steps of each level, for the result's metadata."""
        return {
            "calls": self.calls,
            "dependent_steps": self.dependent_steps,
            "levels": [list(level) for level in self.levels],
        }

    def outcome(
        self,
        *,
        model_scores: dict[str, float],
        metadata: dict[str, Any],
        explanation: str,
        undefined_reason: str | None = None,
        mode: str | None = None,
    ) -> ScoringOutcome:
        """The scoring outcome, with every step, exclusion and the chain's figures."""
        return ScoringOutcome(
            model_scores=model_scores,
            steps=list(self.steps),
            exclusions=list(self.exclusions),
            metadata={**metadata, **self.figures()},
            explanation=explanation,
            mode=mode,
            undefined_reason=None if model_scores else undefined_reason,
        )

    def undefined(
        self,
        reason: str,
        language: str,
        *,
        lower_is_better: bool = False,
        mode: str | None = None,
    ) -> ScoringOutcome:
        """An outcome with no score, and why (e.g. no contexts: no judge is asked)."""
        return self.outcome(
            model_scores={},
            metadata={},
            explanation=outcome_text(language, [reason], [], lower_is_better=lower_is_better),
            undefined_reason=reason,
            mode=mode,
        )
