"""One play of a scenario: the simulated user and the agent take turns until the user is done.

The user opens (the scenario's fixed ``first_message``, else its first turn); then, turn by
turn, the agent gets the whole conversation so far and answers (its messages, tool calls and
results added to the transcript), and the user takes its next turn: a message, or that it is
done (goal met, gave up, the agent ended). Outcomes are kept apart:

* the user done: ``goal_met``, ``gave_up``, ``agent_ended`` (scored like any conversation);
* ``max_turns`` messages sent and the user still not done: ``not_concluded``, a failure of
  its own kind;
* the simulator (the user, or a simulated tool) gave no valid answer after the executor's
  retries and re-asks: ``simulator_failed``, left out of pass rates, never the agent's;
* the agent raised: ``agent_error``, the case fails with the agent's traceback.

A user *turn* is each message the user sends and the closing turn in which it says it is
done (or, at ``max_turns``, would have gone on): one simulator call each, but for a fixed
first message, which costs none.
"""

from __future__ import annotations

import asyncio
import traceback
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ragas_boot.chat.openai.agent import AgentReply
from ragas_boot.runs.simulation.state import PlayState
from ragas_boot.runs.simulation.user import SimulatedUser, UserTurn
from ragas_boot.samples import (
    AIMessage,
    ConversationEnd,
    HumanMessage,
    Message,
    Scenario,
    Simulation,
)

__all__ = ["AgentTurn", "PlayedConversation", "play_scenario"]

AgentTurn = Callable[[list[Message]], Awaitable[tuple[AgentReply, float]]]
"""The agent's turn: the conversation so far in, its reply and the turn's latency (ms) out;
raises what the agent raises."""


@dataclass(frozen=True, slots=True)
class PlayedConversation:
    """What one play produced.

    Attributes:
        messages: the transcript: the user's messages, the agent's, its tool calls and
            results, in order.
        simulation: how it ended and what the simulator spent.
        response: the agent's last answer (``None`` when it never answered).
        latency_ms: the agent's time over every turn (the simulator's left out).
        turns: the agent's model turns over the conversation, when it reports them.
        input_tokens: the agent's prompt tokens, when it reports them.
        output_tokens: the agent's completion tokens, when it reports them.
        error: ``"ErrorType: message"`` when the agent raised.
        traceback: the agent's traceback when it raised.
    """

    messages: list[Message]
    simulation: Simulation
    response: str | None
    latency_ms: float
    turns: int | None
    input_tokens: int | None
    output_tokens: int | None
    error: str | None = None
    traceback: str | None = None


def _added(reply: AgentReply) -> list[Message]:
    """The reply as messages: its trace, or its calls and answer when it gave no trace."""
    if reply.messages:
        return list(reply.messages)
    added: list[Message] = []
    if reply.tool_calls:
        added.append(AIMessage("", list(reply.tool_calls)))
    added.append(AIMessage(reply.response))
    return added


def _plus(total: int | None, value: int | None) -> int | None:
    return value if total is None else total + (value or 0)


async def play_scenario(
    scenario: Scenario,
    *,
    agent_turn: AgentTurn,
    user: SimulatedUser,
    state: PlayState,
    max_turns: int | None = None,
    scenario_id: str | None = None,
    play: int = 1,
    plays: int = 1,
) -> PlayedConversation:
    """Play ``scenario`` once (see the module docs); the current play's state is ``state``
    (the caller makes it current, so that simulated tools count into it).

    Args:
        scenario: the scenario.
        agent_turn: runs the agent on the conversation so far.
        user: plays the user.
        state: the play's tally (its seed offset chooses the seed).
        max_turns: overrides the scenario's ``max_turns``.
        scenario_id: the case's id, recorded in the simulation.
        play: which play this is (1-based), and ``plays`` how many there are.
    """
    limit = max_turns if max_turns is not None else scenario.max_turns
    messages: list[Message] = []
    user_turns = 0
    latency = 0.0
    turns: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    response: str | None = None
    error: str | None = None
    trace: str | None = None
    end: ConversationEnd
    reason: str | None = None

    if scenario.first_message is not None:
        turn: UserTurn | None = UserTurn(
            message=scenario.first_message, done=False, outcome=None, why=""
        )
        fault = None
    else:
        answer = await user.turn([], scenario, state)
        turn, fault = answer.turn, answer.fault
    while True:
        user_turns += 1
        if turn is None:
            end, reason = ConversationEnd.SIMULATOR_FAILED, fault or "no answer"
            break
        if turn.done:
            end = ConversationEnd(turn.outcome or "goal_met")
            reason = turn.why or None
            if not messages:  # done before saying anything: no conversation to score
                end, reason = (
                    ConversationEnd.SIMULATOR_FAILED,
                    (
                        f"simulator_failed (done_at_start): the user was done ({end.value}) "
                        "before the conversation began"
                    ),
                )
            break
        if user_turns > limit:
            end = ConversationEnd.NOT_CONCLUDED
            reason = f"the user was not done after {limit} turn(s)"
            break
        messages.append(HumanMessage(turn.message))
        try:
            reply, elapsed_ms = await agent_turn(list(messages))
        except asyncio.CancelledError:
            raise
        except Exception as failure:  # the agent's failure ends the play: the case fails
            end = ConversationEnd.AGENT_ERROR
            error = f"{type(failure).__name__}: {failure}"
            trace = "".join(traceback.format_exception(failure)).rstrip()
            break
        latency += elapsed_ms
        messages.extend(_added(reply))
        response = reply.response
        turns = _plus(turns, reply.turns)
        if reply.usage is not None:
            input_tokens = _plus(input_tokens, reply.usage.input_tokens)
            output_tokens = _plus(output_tokens, reply.usage.output_tokens)
        if state.fault is not None:  # a simulated tool failed during the agent's turn
            end, reason = ConversationEnd.SIMULATOR_FAILED, state.fault
            break
        answer = await user.turn(messages, scenario, state)
        turn, fault = answer.turn, answer.fault
    if end is ConversationEnd.SIMULATOR_FAILED and state.fault is None:
        state.failed(reason or "simulator_failed")
    simulation = state.record(
        end, reason, user_turns=user_turns, scenario=scenario_id, play=play, plays=plays
    )
    return PlayedConversation(
        messages=messages,
        simulation=simulation,
        response=response,
        latency_ms=latency,
        turns=turns,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
        error=error,
        traceback=trace,
    )
