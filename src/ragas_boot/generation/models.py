"""The model calls of a generator: the generating model's, and the judges' votes.

The generating model is the ``spring.ai.ragas.generation`` role (:class:`ModelRole`): one
seeded structured call per candidate through the judges' executor, so retries, re-asks,
limits, the response cache (a seeded call is cached at any temperature), billing and the spend
cap come with it; a call that still fails is a ``generator_failed`` fault. The vote is one
structured call to each configured judge at once (the executor's fan-out), each answering
whether the candidate is right; a candidate passes when a quorum of judges answered
(``spring.ai.ragas.metrics.min-judges``, else one) and more of them said yes than no. Judges
with temperature 0 are cached like any judge call, so a replay sends nothing.

The cost: one call per candidate to the generating model, one per judge per vote; both
recorded in the :class:`CallMeter` under their kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.chat.judge import JudgeModel
from ragas_boot.config.settings import ModelRoleSettings, QuorumFailure
from ragas_boot.execution.executor import MultiModelExecutor
from ragas_boot.execution.results import Exclusion
from ragas_boot.execution.roles import ModelRole, RoleAnswer
from ragas_boot.generation.budget import CallMeter
from ragas_boot.metrics.quorum import quorum_check

if TYPE_CHECKING:
    from ragas_boot.container import RagasContainer

__all__ = ["JudgeVerdict", "Vote", "ask_generator", "generation_role", "role_of", "vote"]

OutputT = TypeVar("OutputT", bound=BaseModel)

_VOTE_STEP = "GenerationVote"


def generation_role(container: RagasContainer) -> ModelRole:
    """The container's ``spring.ai.ragas.generation`` model as a role (default: the first
    judge, which is the embedded local model in an offline configuration).

    Raises:
        ConfigError: the model named is not a judge, or there is no judge.
    """
    return role_of(container.settings().generation, container.executor())


def role_of(settings: ModelRoleSettings, executor: MultiModelExecutor) -> ModelRole:
    """The generation role of ``settings`` over ``executor``'s judges (built by hand).

    Raises:
        ConfigError: the model named is not a judge, or there is no judge.
    """
    return ModelRole.from_settings(
        settings, executor, name="generation", fault_kind="generator_failed"
    )


async def ask_generator(
    role: ModelRole,
    meter: CallMeter,
    step: str,
    prompt: str,
    output_model: type[OutputT],
    *,
    attempt: int,
) -> RoleAnswer[OutputT]:
    """One generation call, seeded with the role's seed plus ``attempt`` (so every attempt
    asks for a different candidate, and a replay asks the same), counted as ``generation``."""
    answer = await role.ask(step, prompt, output_model, seed_offset=attempt)
    meter.record("generation", answer.call)
    return answer


class JudgeVerdict(BaseModel):
    """A judge's vote on a generated case."""

    model_config = ConfigDict(frozen=True)

    reason: str = Field(description="One short sentence: why the case is right or wrong.")
    correct: bool = Field(description="Whether the case is right.")


@dataclass(frozen=True, slots=True)
class Vote:
    """The judges' vote on one candidate.

    Attributes:
        passed: a quorum answered and more said yes than no.
        yes: judges that said the candidate is right.
        no: judges that said it is wrong.
        failed: judges that gave no valid answer.
        required: answering judges the quorum needs.
        reasons: each answering judge's reason, ``judge: reason``.
    """

    passed: bool
    yes: int
    no: int
    failed: int
    required: int
    reasons: tuple[str, ...]

    def describe(self) -> str:
        """``2 of 3 judges said no (quorum 2): judge-a: ...; judge-b: ...``."""
        answered = self.yes + self.no
        if answered < self.required:
            return (
                f"only {answered} of {answered + self.failed} judges answered (quorum "
                f"{self.required})"
            )
        said = f"{self.no} of {answered} judges said no" if self.no else "no judge said no"
        return f"{said}: " + "; ".join(self.reasons) if self.reasons else said


async def vote(
    executor: MultiModelExecutor,
    judges: Sequence[JudgeModel],
    meter: CallMeter,
    prompt: str,
    *,
    required: int = 1,
) -> Vote:
    """Ask every judge in ``judges`` at once whether a candidate is right (``prompt`` says
    what right means), each call counted as ``judge_vote``."""
    record = await executor.run_step(_VOTE_STEP, list(judges), prompt, JudgeVerdict)
    yes = no = 0
    reasons = []
    exclusions = []
    for call in record.calls:
        meter.record("judge_vote", call)
        if not call.ok:
            exclusions.append(Exclusion.from_call(call))
            continue
        verdict: JudgeVerdict = call.value
        yes += verdict.correct
        no += not verdict.correct
        reasons.append(f"{call.judge_id}: {verdict.reason}")
    quorum = quorum_check(required, QuorumFailure.FAIL, [judge.id for judge in judges], exclusions)
    failed = len(exclusions)
    return Vote(
        passed=quorum.met and yes > no,
        yes=yes,
        no=no,
        failed=failed,
        required=required,
        reasons=tuple(reasons),
    )
