"""A model user that says it is done right after the agent asked something without acting is
asked once more, reminded that a question is no reason to stop; a user done after the agent
acted costs no extra call."""

from __future__ import annotations

from typing import Any

import pytest
from scenario_helpers import SUITE, USER_MODEL, booking_agent, conversation_of

from ragas_boot.runs.simulation.user import asked_without_acting
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage
from ragas_boot.suites import run_suite, validate_suite
from ragas_boot.testing import ChatRequest

RECHECK = "Before you stop: the assistant's last message asks you something"


@pytest.fixture
def container(make_container):
    return make_container([USER_MODEL], extra="spring.ai.ragas.simulation: {seed: 5}\n")


def impatient_user(request: ChatRequest) -> dict[str, Any]:
    """Ends at the agent's proposal unless reminded; then confirms; done once booked."""
    conversation = conversation_of(request)
    if not conversation:
        return {"message": "A table for two on Friday, please."}
    last = conversation.splitlines()[-1].lower()
    if "booked" in last:
        return {"message": "", "done": True, "outcome": "goal_met", "why": "booked"}
    if RECHECK in request.prompt:
        return {"message": "Yes, please.", "done": False, "outcome": None, "why": ""}
    return {"message": "", "done": True, "outcome": "agent_ended", "why": "it asked me"}


def test_a_user_ending_at_a_proposal_is_asked_again_and_confirms(openai_server, container):
    openai_server.respond(USER_MODEL, impatient_user)
    run = run_suite(validate_suite(SUITE), booking_agent(), container=container)
    (case,) = run.samples
    simulation = case.sample.agent_run.simulation
    assert case.passed, case
    assert simulation.end == "goal_met"
    prompts = [record.request.prompt for record in openai_server.requests_for(USER_MODEL)]
    # first message, the premature end, the re-ask, the end once booked
    assert [RECHECK in prompt for prompt in prompts] == [False, False, True, False]
    assert simulation.simulator_calls == simulation.simulator_requests == 4
    assert simulation.user_turns == 3


def test_a_user_that_insists_after_the_reminder_ends_the_play(openai_server, container):
    def stubborn(request: ChatRequest) -> dict[str, Any]:
        if not conversation_of(request):
            return {"message": "A table for two on Friday, please."}
        return {"message": "", "done": True, "outcome": "gave_up", "why": "no"}

    openai_server.respond(USER_MODEL, stubborn)
    run = run_suite(validate_suite(SUITE), booking_agent(), container=container)
    simulation = run.samples[0].sample.agent_run.simulation
    assert simulation.end == "gave_up"
    assert openai_server.count(USER_MODEL) == 3  # asked once more, not again and again
    assert not run.samples[0].passed  # the booking was never made


def test_a_user_done_after_the_agent_acted_costs_no_extra_call(openai_server, container):
    def agent(messages):
        call = ToolCall("book_table", {"date": "2025-05-02", "party": 2}, id="c1")
        return [
            AIMessage("", [call]),
            ToolMessage('{"booked": true}', tool_call_id="c1"),
            AIMessage("Booked for 2025-05-02. Anything else?"),
        ]

    openai_server.respond(USER_MODEL, impatient_user)
    run = run_suite(validate_suite(SUITE), agent, container=container)
    assert run.samples[0].sample.agent_run.simulation.end == "goal_met"
    prompts = [record.request.prompt for record in openai_server.requests_for(USER_MODEL)]
    assert len(prompts) == 2 and not any(RECHECK in prompt for prompt in prompts)


@pytest.mark.parametrize(
    ("turn", "asked"),
    [
        ([AIMessage("Shall I book it?")], True),
        ([AIMessage("¿Lo reservo？")], True),
        ([AIMessage("هل أحجز؟")], True),
        ([AIMessage("Shall I book it?  \n")], True),
        ([AIMessage("Here it is."), AIMessage("")], False),
        ([AIMessage("", [ToolCall("find", {})]), ToolMessage("{}"), AIMessage("More?")], False),
        ([], False),
    ],
)
def test_what_counts_as_asking_without_acting(turn, asked):
    conversation = [HumanMessage("Hi"), AIMessage("Earlier?"), HumanMessage("Book it"), *turn]
    assert asked_without_acting(conversation) is asked
