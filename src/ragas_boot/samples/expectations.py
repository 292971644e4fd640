"""What a case expects of the agent beyond its tool calls, and what running the agent measured.

A sample that is a *case* (a suite's case, a generated or a hand-written test) says what the
agent must do in ``expectations``; the run that produced its conversation records its facts
in ``agent_run``. The ``case_expectations`` metric checks one against the other::

    expectations:
      response_contains: [Hanoi, weather]   # keywords of the final answer, any case
      max_tool_calls: 5                     # tool-call budget
      max_latency_ms: 10000                 # latency budget
    agent_run:
      agent: weather_agent:run
      latency_ms: 812.5
      turns: 2
      stop_reason: answered
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import Field, field_validator

from ragas_boot.samples._base import SampleModel
from ragas_boot.samples.scenarios import Simulation

__all__ = ["AgentRun", "CaseExpectations", "StopReason", "checked_keywords"]


def checked_keywords(keywords: list[str]) -> list[str]:
    """``keywords``, refused when one is blank (every answer contains it: a typo's check).

    Raises:
        ValueError: for a validator to report.
    """
    for keyword in keywords:
        if not keyword.strip():
            raise ValueError("a keyword is blank; every answer contains it")
    return keywords


class StopReason(StrEnum):
    """Why the agent's run ended."""

    ANSWERED = "answered"
    """The agent gave its final answer."""
    TOOL_BUDGET = "tool_budget"
    """The runner stopped the model after it exceeded the tool-call budget."""
    ERROR = "error"
    """The agent failed."""


class CaseExpectations(SampleModel):
    """What a case expects of the agent besides its tool calls (``reference_tool_calls``).

    Every field is optional; the ``case_expectations`` metric checks the ones given.
    """

    response_contains: list[str] = Field(
        default_factory=list,
        description="Keywords the final answer must contain (compared case-insensitively).",
    )
    max_tool_calls: int | None = Field(
        default=None, ge=0, description="Most tool calls the agent may make; none: no budget."
    )
    max_latency_ms: float | None = Field(
        default=None,
        gt=0,
        allow_inf_nan=False,
        description="Longest the agent's run may take, in milliseconds (agent_run.latency_ms); "
        "none: no budget.",
    )

    @field_validator("response_contains", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        # A table gives every struct the same keys: a null is a field not given.
        return [] if value is None else value

    @field_validator("response_contains")
    @classmethod
    def _no_blank_keyword(cls, keywords: list[str]) -> list[str]:
        return checked_keywords(keywords)

    @property
    def checks(self) -> list[str]:
        """The expectations given: ``response_contains``, ``max_tool_calls``,
        ``max_latency_ms``."""
        return [
            name
            for name, given in (
                ("response_contains", bool(self.response_contains)),
                ("max_tool_calls", self.max_tool_calls is not None),
                ("max_latency_ms", self.max_latency_ms is not None),
            )
            if given
        ]


class AgentRun(SampleModel):
    """What running the agent on the case measured (the runner fills it in)."""

    agent: str | None = Field(
        default=None, description="Which agent ran: module:function, or model ID (provider)."
    )
    latency_ms: float | None = Field(
        default=None,
        ge=0.0,
        allow_inf_nan=False,
        description="Wall time of the agent's run in milliseconds, rate-limit waiting left out.",
    )
    turns: int | None = Field(default=None, ge=0, description="Model turns taken, when known.")
    stop_reason: StopReason | None = Field(default=None, description="Why the run ended.")
    error: str | None = Field(
        default=None,
        description="'ErrorType: message' when the agent failed; its conversation is then "
        "what it produced before failing, if anything.",
    )
    input_tokens: int | None = Field(
        default=None, ge=0, description="Prompt tokens the agent's model used, when known."
    )
    output_tokens: int | None = Field(
        default=None, ge=0, description="Completion tokens the agent's model used, when known."
    )
    traceback: str | None = Field(
        default=None, description="The agent's traceback when it raised (for people)."
    )
    simulation: Simulation | None = Field(
        default=None,
        description="For a scenario case: how the simulated conversation ended, the user's "
        "turns, the simulator's calls, requests, tokens and cost, the seed and the play.",
    )

    @property
    def simulator_failed(self) -> bool:
        """Whether the simulated user failed this case's conversation: the case is then left
        out of pass rates and counted apart (never the agent's failure)."""
        return self.simulation is not None and self.simulation.end == "simulator_failed"
