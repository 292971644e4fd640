"""What one play of a scenario keeps while it runs: the simulator's tally, the results its
simulated tools gave, and its first fault.

The simulated user and the simulated tools add to the same :class:`PlayState`, so a play's
``agent_run.simulation`` counts every simulator call, request, token and cache hit, and a
fault in either makes the play a simulator failure (never the agent's). The state of the play
running now is a context variable: the suite's agent calls tools through its own code (the
built-in model agent through its tool functions), and each play runs in its own task, whose
context is its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from ragas_boot.execution.roles import ModelRole, RoleAnswer
from ragas_boot.samples import ConversationEnd, Simulation

__all__ = ["PlayState", "ToolRecord", "current_play", "playing"]


@dataclass(frozen=True, slots=True)
class ToolRecord:
    """One call a simulated tool answered in this play: what later calls must agree with."""

    tool: str
    arguments: dict[str, Any]
    result: Any


@dataclass
class PlayState:
    """The running tally of one play.

    Attributes:
        role: the simulator's model (``None`` when a Python callable plays the user and no
            tool is simulated).
        seed_offset: the play's offset to the role's seed (play 1 → 0).
        calls: structured simulator calls made.
        requests: requests they sent (retries and re-asks included; 0 from the cache).
        cache_hits: calls the response cache answered.
        input_tokens: billed prompt tokens.
        output_tokens: billed completion tokens.
        cost: billed cost (``None`` while no call had a price).
        tools: what the simulated tools answered, in order.
        fault: the first simulator fault, ``"kind (cause): message"``.
    """

    role: ModelRole | None = None
    seed_offset: int = 0
    calls: int = 0
    requests: int = 0
    cache_hits: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost: float | None = None
    tools: list[ToolRecord] = field(default_factory=list)
    fault: str | None = None

    @property
    def seed(self) -> int | None:
        """The seed of this play's calls (``None`` without a model)."""
        return self.role.seed_for(self.seed_offset) if self.role is not None else None

    def count(self, answer: RoleAnswer[Any]) -> None:
        """Add one simulator call to the tally (and its fault, if it is the first)."""
        call = answer.call
        self.calls += 1
        self.requests += answer.requests
        self.cache_hits += call.cached
        self.input_tokens += call.billed_usage.input_tokens
        self.output_tokens += call.billed_usage.output_tokens
        if call.cost is not None:
            self.cost = (self.cost or 0.0) + call.cost
        if answer.fault is not None:
            self.failed(str(answer.fault))

    def record(
        self,
        end: ConversationEnd,
        reason: str | None,
        *,
        user_turns: int = 0,
        scenario: str | None = None,
        play: int = 1,
        plays: int = 1,
    ) -> Simulation:
        """What the play recorded: how it ended and the tally (``agent_run.simulation``)."""
        return Simulation(
            end=end,
            reason=reason,
            user_turns=user_turns,
            simulator_calls=self.calls,
            simulator_requests=self.requests,
            cache_hits=self.cache_hits,
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cost=self.cost,
            model=self.role.model_id if self.role is not None else None,
            seed=self.seed,
            scenario=scenario,
            play=play,
            plays=plays,
        )

    def failed(self, fault: str) -> None:
        """Record a simulator fault (the first one is the play's)."""
        if self.fault is None:
            self.fault = fault


_CURRENT: ContextVar[PlayState | None] = ContextVar("ragas_boot_play", default=None)


def current_play() -> PlayState | None:
    """The state of the play running in this context, if any."""
    return _CURRENT.get()


@contextmanager
def playing(state: PlayState) -> Iterator[PlayState]:
    """Make ``state`` the current play's for the block."""
    token = _CURRENT.set(state)
    try:
        yield state
    finally:
        _CURRENT.reset(token)
