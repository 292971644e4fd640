"""A scenario a simulated user plays against the agent, and what playing it recorded.

A *scenario case* is a sample whose ``scenario`` says who the user is and what they want; a
simulated user (a configured chat model, or a Python callable) talks to the agent over as
many turns as it takes, and the transcript becomes the sample's ``user_input_messages``::

    scenario:
      goal: Book a table for two on Friday at 19:00
      persona: A regular customer, brief and polite
      knows: {name: Ada Lovelace, phone: "+44 20 7946 0000"}
      first_message: I'd like to book a table.   # optional: else the simulator writes it
      max_turns: 6                                # the user's turns at most
      success: A table for two is booked on Friday at 19:00 under Ada's name
    agent_run:
      simulation: {end: goal_met, user_turns: 3, simulator_calls: 2, ...}

Keys may be snake_case, kebab-case (``first-message``) or camelCase (``firstMessage``).
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import AliasChoices, Field, field_validator

from ragas_boot.samples._base import SampleModel, json_object

__all__ = ["DEFAULT_MAX_TURNS", "ConversationEnd", "Scenario", "Simulation"]

DEFAULT_MAX_TURNS = 8
"""The user's turns a scenario may take unless it says otherwise."""


def _spellings(name: str) -> AliasChoices:
    head, *rest = name.split("_")
    camel = head + "".join(part.capitalize() for part in rest)
    return AliasChoices(name, name.replace("_", "-"), camel)


class Scenario(SampleModel):
    """Who the simulated user is, what they want, and what success looks like."""

    goal: str = Field(min_length=1, description="What the user wants from the agent.")
    persona: str | None = Field(
        default=None, description="Who the user is and how they talk (optional)."
    )
    knows: dict[str, Any] = Field(
        default_factory=dict,
        description="Facts the user can give when asked (an order id, a date): the user "
        "answers from these only and invents nothing else.",
    )
    first_message: str | None = Field(
        default=None,
        min_length=1,
        validation_alias=_spellings("first_message"),
        description="The user's first message, fixed; unset: the simulated user writes it.",
    )
    max_turns: int = Field(
        default=DEFAULT_MAX_TURNS,
        ge=1,
        le=100,
        validation_alias=_spellings("max_turns"),
        description="The user's turns at most; the conversation is 'not concluded' when "
        "the user is not done by then.",
    )
    success: str | None = Field(
        default=None,
        description="The expected outcome in words (AgentGoalAccuracy's reference).",
    )

    @field_validator("goal", "persona", "success")
    @classmethod
    def _not_blank(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("is blank")
        return value

    @field_validator("knows", mode="before")
    @classmethod
    def _facts(cls, value: Any) -> Any:
        return {} if value is None else json_object(value, what="knows")


class ConversationEnd(StrEnum):
    """Why a simulated conversation ended."""

    GOAL_MET = "goal_met"
    """The user was done: their goal was met."""
    GAVE_UP = "gave_up"
    """The user was done: they gave up (the agent could not or would not help)."""
    AGENT_ENDED = "agent_ended"
    """The user was done: the agent ended the conversation."""
    NOT_CONCLUDED = "not_concluded"
    """``max_turns`` passed without the user being done: a failure of its own kind."""
    SIMULATOR_FAILED = "simulator_failed"
    """The simulated user (or a simulated tool) gave no valid answer after its retries: the
    case is left out of the pass rate and counted apart, never the agent's failure."""
    AGENT_ERROR = "agent_error"
    """The agent raised: the case fails with its traceback (``agent_run.error``)."""


class Simulation(SampleModel):
    """What playing a scenario recorded (``agent_run.simulation``)."""

    end: ConversationEnd = Field(description="Why the conversation ended.")
    reason: str | None = Field(
        default=None,
        description="The user's own words on why they were done, or the failure's message.",
    )
    user_turns: int = Field(
        default=0, ge=0, description="Turns the user took (a fixed first message included)."
    )
    simulator_calls: int = Field(
        default=0,
        ge=0,
        description="Structured calls to the simulator (the user's turns, simulated tools).",
    )
    simulator_requests: int = Field(
        default=0,
        ge=0,
        description="Requests those calls sent: transport retries and output re-asks "
        "included, none for an answer from the response cache.",
    )
    cache_hits: int = Field(
        default=0, ge=0, description="Simulator calls answered by the response cache."
    )
    input_tokens: int = Field(default=0, ge=0, description="Prompt tokens the simulator billed.")
    output_tokens: int = Field(
        default=0, ge=0, description="Completion tokens the simulator billed."
    )
    cost: float | None = Field(
        default=None, ge=0.0, description="What the simulator's calls cost (None: no price)."
    )
    model: str | None = Field(default=None, description="The simulator's model (judge id).")
    seed: int | None = Field(default=None, description="The seed of this play's calls.")
    scenario: str | None = Field(
        default=None, description="The id of the scenario case played (the same for each play)."
    )
    play: int = Field(default=1, ge=1, description="Which play of the scenario this is (1-based).")
    plays: int = Field(default=1, ge=1, description="How many times the scenario is played.")
