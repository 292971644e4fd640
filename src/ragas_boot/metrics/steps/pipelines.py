"""Two-step chains several metrics share: decompose a text, then judge the statements."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.metrics.steps.chain import Chain
from ragas_boot.metrics.steps.decompose import Claims, Entities, Statements, decompose
from ragas_boot.metrics.steps.verdicts import Verdict, VerdictScale, judge_statements

__all__ = ["JudgedStatements", "decompose_then_judge"]


@dataclass
class JudgedStatements:
    """What each surviving judge found and decided."""

    statements: dict[str, list[str]] = field(default_factory=dict)
    verdicts: dict[str, list[Verdict]] = field(default_factory=dict)

    def share(self, judge_id: str, *, positive: bool = True) -> float | None:
        """Share of the judge's verdicts that are (not) positive; None with no statements."""
        found = self.verdicts.get(judge_id, [])
        if not found:
            return None
        return sum(v.positive == positive for v in found) / len(found)

    def detail(self, judge_id: str) -> dict[str, Any]:
        """The judge's statements and verdicts, as plain data."""
        return {
            "statements": self.statements.get(judge_id, []),
            "verdicts": [v.as_dict() for v in self.verdicts.get(judge_id, [])],
        }


async def decompose_then_judge(
    chain: Chain,
    judges: Sequence[JudgeModel],
    *,
    decompose_step: str,
    decompose_prompt: str,
    output_model: type[Statements] | type[Claims] | type[Entities],
    judge_step: str,
    judge_prompt: Callable[[JudgeModel, list[str]], str],
    scale: VerdictScale,
) -> JudgedStatements:
    """Each judge splits a text, then judges its own statements (two dependent steps).

    Raises nothing: failures are the chain's exclusions; the caller checks who is left.
    """
    statements = await decompose(chain, decompose_step, judges, decompose_prompt, output_model)
    verdicts = await judge_statements(chain, judge_step, judges, statements, judge_prompt, scale)
    return JudgedStatements(statements=statements, verdicts=verdicts)
