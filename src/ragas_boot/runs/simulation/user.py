"""The simulated user: a configured chat model (or a Python callable) plays a scenario's user.

Each user turn is **one** structured call (:class:`UserTurn`): the next message *and*
whether the user is done, and why (``goal_met``, ``gave_up``, ``agent_ended``). The peers
that ask a separate "is the goal met?" question first spend about two calls a turn; one call
is enough, since the model that writes the next message has just read the same conversation.

What the model is told (``prompts/simulated_user.txt``): its goal, its persona, the facts it
knows (answer the agent's questions from these only, invent nothing), to confirm when the
agent proposes an action that fits the goal, never to end because the agent asked something,
and when it is done. It sees the conversation as a user does: the messages, not the agent's
tool calls or their results.

The peers' simulators end a conversation when the agent asks for confirmation; instructions
alone do not stop a weak model doing so. So a model user that says it is done right after an
agent turn that asks a question and calls no tool (a proposal waiting for a "yes", a request
for a detail) is asked once more, reminded of that rule (``prompts/simulated_user_recheck.txt``);
its second answer stands. The re-ask is a simulator call like any other (counted, cached,
seeded); a turn that ends after the agent acted, or without a question, costs nothing extra.

A Python callable can play the user instead (scripted tests): ``user(conversation, scenario)``,
sync or async, returning the next message (a string), a :class:`UserTurn`, or ``None`` when
the user is done with its goal met.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ragas_boot.execution.roles import ModelRole
from ragas_boot.metrics.prompting import render_prompt
from ragas_boot.runs.simulation.state import PlayState
from ragas_boot.samples import AIMessage, HumanMessage, Message, Scenario

__all__ = [
    "FirstMessage",
    "ModelUser",
    "ScriptedUser",
    "SimulatedUser",
    "UserAnswer",
    "UserScript",
    "UserTurn",
    "asked_without_acting",
    "simulated_user_prompt",
    "user_view",
]

_STEP = "SimulatedUserTurn"

Outcome = Literal["goal_met", "gave_up", "agent_ended"]


class FirstMessage(BaseModel):
    """The user's first message to the assistant."""

    model_config = ConfigDict(frozen=True)

    # No maxLength in the schemas: a grammar of a long bounded string is huge (llama.cpp
    # refuses it); the role's max-tokens bounds the answer, the local model its strings.
    message: str = Field(min_length=1, description="Your first message to the assistant.")

    @field_validator("message")
    @classmethod
    def _not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("the first message is blank")
        return value


class UserTurn(BaseModel):
    """The user's next turn: the next message, or that the user is done and why."""

    model_config = ConfigDict(frozen=True)

    message: str = Field(
        description="Your next message to the assistant (may be empty only when done)."
    )
    done: bool = Field(
        description="true only when your goal is met, you give up, or the assistant ended "
        "the conversation; never because the assistant asked you something."
    )
    outcome: Outcome | None = Field(
        description="When done: goal_met, gave_up or agent_ended; else null."
    )
    why: str = Field(description="When done: why, in one sentence; else empty.")

    @model_validator(mode="after")
    def _consistent(self) -> UserTurn:
        if not self.done and not self.message.strip():
            raise ValueError("message is empty and done is false: write the next message")
        if self.done and self.outcome is None:
            raise ValueError(
                "done is true and outcome is null: give goal_met, gave_up or agent_ended"
            )
        return self


@dataclass(frozen=True, slots=True)
class UserAnswer:
    """What the user did this turn: a turn, or the simulator's fault (``turn`` is None)."""

    turn: UserTurn | None
    fault: str | None = None


class SimulatedUser(Protocol):
    """Plays a scenario's user, one turn at a time."""

    async def turn(
        self, conversation: Sequence[Message], scenario: Scenario, state: PlayState
    ) -> UserAnswer:
        """The user's next turn after ``conversation`` (empty: the first message).

        Never raises for the simulator's fault: the answer carries it (and ``state`` counts
        the call).
        """
        ...


UserScript = Callable[..., Any]
"""A Python callable playing the user: ``(conversation, scenario)`` → the next message, a
:class:`UserTurn`, or ``None`` (done, goal met); sync or async."""


def user_view(messages: Sequence[Message]) -> str:
    """The conversation as the user sees it: their messages and the assistant's words, not
    the assistant's tool calls or their results."""
    lines: list[str] = []
    for message in messages:
        if isinstance(message, HumanMessage):
            lines.append(f"USER: {message.content}")
        elif isinstance(message, AIMessage) and message.content.strip():
            lines.append(f"ASSISTANT: {message.content}")
    return "\n".join(lines)


def _template(name: str = "simulated_user.txt") -> str:
    return resources.files(__package__).joinpath(f"prompts/{name}").read_text("utf-8")


def asked_without_acting(conversation: Sequence[Message]) -> bool:
    """Whether the agent's last turn (what follows the user's last message) asks a question
    and calls no tool: a proposal or a request the user should answer, not an end."""
    turn: list[Message] = []
    for message in reversed(conversation):
        if isinstance(message, HumanMessage):
            break
        turn.append(message)
    if any(not isinstance(message, AIMessage) or message.tool_calls for message in turn):
        return False
    said = next((m.content.strip() for m in turn if m.content.strip()), "")
    return said.endswith(("?", "\uff1f", "\u061f"))


def _fact(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def simulated_user_prompt(conversation: Sequence[Message], scenario: Scenario) -> str:
    """The whole prompt of the simulated user's next turn (what the simulator is told)."""
    knows = (
        "\n".join(f"- {name}: {_fact(value)}" for name, value in scenario.knows.items())
        or "(nothing beyond your goal)"
    )
    if conversation:
        situation = "The conversation so far:\n{conversation}\n\nWrite your next turn."
    else:
        situation = (
            "The conversation has not started: write your first message to the assistant."
            "{conversation}"
        )
    template = _template().replace("{situation}", situation)
    # The scenario is the suite author's: instructions. The conversation holds the agent's
    # words: material, fenced.
    return render_prompt(
        template,
        data={"conversation": user_view(conversation)},
        config={
            "goal": scenario.goal,
            "persona": scenario.persona or "An ordinary user.",
            "knows": knows,
        },
    )


class ModelUser:
    """The simulated user played by a configured chat model (its :class:`ModelRole`).

    Args:
        role: the ``spring.ai.ragas.simulation`` model.
    """

    def __init__(self, role: ModelRole) -> None:
        self._role = role

    def __repr__(self) -> str:
        return f"ModelUser(model={self._role.model_id!r})"

    @property
    def role(self) -> ModelRole:
        """The simulator's model."""
        return self._role

    async def turn(
        self, conversation: Sequence[Message], scenario: Scenario, state: PlayState
    ) -> UserAnswer:
        """One structured call; a fault after the executor's retries is the answer's."""
        prompt = simulated_user_prompt(conversation, scenario)
        if not conversation:
            first = await self._role.ask(_STEP, prompt, FirstMessage, seed_offset=state.seed_offset)
            state.count(first)
            if first.value is None:
                return UserAnswer(None, str(first.fault))
            return UserAnswer(
                UserTurn(message=first.value.message, done=False, outcome=None, why="")
            )
        answer = await self._role.ask(_STEP, prompt, UserTurn, seed_offset=state.seed_offset)
        state.count(answer)
        if answer.value is None:
            return UserAnswer(None, str(answer.fault))
        if answer.value.done and asked_without_acting(conversation):
            recheck = prompt + _template("simulated_user_recheck.txt")
            again = await self._role.ask(_STEP, recheck, UserTurn, seed_offset=state.seed_offset)
            state.count(again)
            if again.value is not None:  # a fault in the re-ask leaves the first answer
                return UserAnswer(again.value)
        return UserAnswer(answer.value)


class ScriptedUser:
    """A Python callable playing the user (see :data:`UserScript`). Its exception is a
    simulator fault, with its traceback; its calls are not counted as simulator calls."""

    def __init__(self, script: UserScript) -> None:
        self._script = script

    def __repr__(self) -> str:
        return f"ScriptedUser({getattr(self._script, '__qualname__', self._script)!r})"

    async def turn(
        self, conversation: Sequence[Message], scenario: Scenario, state: PlayState
    ) -> UserAnswer:
        """The script's answer, read as a turn."""
        try:
            if inspect.iscoroutinefunction(self._script):
                output = await self._script(list(conversation), scenario)
            else:
                output = await asyncio.to_thread(self._script, list(conversation), scenario)
            if inspect.isawaitable(output):
                output = await output
            return UserAnswer(_read_turn(output))
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the script's bug is the simulator's fault, not the agent's
            trace = "".join(traceback.format_exception(error)).rstrip()
            return UserAnswer(
                None, f"simulator_failed (user_script): {type(error).__name__}: {error}\n{trace}"
            )


def _read_turn(output: Any) -> UserTurn:
    if isinstance(output, UserTurn):
        return output
    if output is None:
        return UserTurn(message="", done=True, outcome="goal_met", why="the script ended")
    if isinstance(output, str):
        return UserTurn(message=output, done=False, outcome=None, why="")
    raise TypeError(
        f"the user script returned {type(output).__name__}; expected a string (the next "
        "message), a UserTurn, or None (done)"
    )
