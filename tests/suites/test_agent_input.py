"""``agent-input: openai``: the suite's Python agent gets the conversation as OpenAI chat
messages (dicts), in single-turn cases and over a scenario's turns, and may answer in that
form with the conversation it was given in front."""

from __future__ import annotations

import json

import pytest
from scenario_helpers import SUITE, USER_MODEL, scripted_user

from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage
from ragas_boot.samples.to_openai import to_openai_messages
from ragas_boot.suites import run_suite, validate_suite


def openai_booking_agent(seen: list[list[dict]]):
    """The booking agent of the scenario tests, written against the OpenAI chat format."""

    def agent(messages):
        seen.append(messages)
        last = messages[-1]["content"].lower()
        proposed = any(
            m["role"] == "assistant" and "shall i book it" in (m.get("content") or "").lower()
            for m in messages
        )
        if proposed and "yes" in last:
            call = {
                "id": "call_1",
                "type": "function",
                "function": {
                    "name": "book_table",
                    "arguments": '{"date": "2025-05-02", "party": 2}',
                },
            }
            return [
                *messages,  # a reply with the conversation in front, as chat loops write them
                {"role": "assistant", "content": None, "tool_calls": [call]},
                {"role": "tool", "tool_call_id": "call_1", "content": '{"booked": true}'},
                {"role": "assistant", "content": "Done: booked for 2025-05-02."},
            ]
        return "I can book a table for two on Friday 2 May. Shall I book it?"

    return agent


def test_a_scenario_agent_gets_openai_messages_at_every_turn(openai_server, make_container):
    container = make_container([USER_MODEL], extra="spring.ai.ragas.simulation: {seed: 3}\n")
    openai_server.respond(USER_MODEL, scripted_user)
    suite = validate_suite({**SUITE, "agent-input": "openai"})
    seen: list[list[dict]] = []
    run = run_suite(suite, openai_booking_agent(seen), container=container)
    (case,) = run.samples
    assert case.passed, case
    assert [len(messages) for messages in seen] == [1, 3]
    assert seen[0] == [{"role": "user", "content": "A table for two on Friday, please."}]
    assert seen[1][1] == {
        "role": "assistant",
        "content": "I can book a table for two on Friday 2 May. Shall I book it?",
    }
    # the transcript holds each message once: the echoed conversation is not its turn
    transcript = case.sample.user_input_messages
    assert [type(m).__name__ for m in transcript] == [
        "HumanMessage",
        "AIMessage",
        "HumanMessage",
        "AIMessage",
        "ToolMessage",
        "AIMessage",
    ]
    calls = [call for m in transcript if isinstance(m, AIMessage) for call in m.tool_calls]
    assert calls == [ToolCall("book_table", {"date": "2025-05-02", "party": 2}, id="call_1")]


def test_a_single_turn_case_gets_openai_messages_and_native_stays_the_default():
    data = {
        "name": "weather",
        "cases": [
            {
                "id": "paris",
                "user-message": "Météo à Paris ?",
                "expected-tool-calls": [
                    {"tool-name": "get_weather", "required-params": {"city": "Paris"}}
                ],
            }
        ],
    }
    given: list = []

    def agent(messages):
        given.append(messages)
        return (
            "Il fait beau.",
            [{"id": "c1", "function": {"name": "get_weather", "arguments": '{"city": "Paris"}'}}],
        )

    run = run_suite(validate_suite({**data, "agent-input": "openai"}), agent)
    assert run.samples[0].passed
    assert given[-1] == [{"role": "user", "content": "Météo à Paris ?"}]
    run_suite(validate_suite(data), agent)
    assert given[-1] == [HumanMessage("Météo à Paris ?")]


def test_an_unknown_agent_input_names_the_key_and_the_choices():
    with pytest.raises(Exception, match=r"agent.input[\s\S]*'native' or 'openai'"):
        validate_suite({**SUITE, "agent-input": "langchain"})


def test_tool_calls_and_results_are_written_as_the_chat_format_reads_them():
    messages = [
        HumanMessage("Погода в Москве?"),
        AIMessage("", [ToolCall("get_weather", {"city": "Москва", "opts": {"units": ["c"]}})]),
        ToolMessage(json.dumps({"t": -3}), name="get_weather"),
        AIMessage("Минус три."),
    ]
    written = to_openai_messages(messages)
    assert written[1]["tool_calls"][0]["id"] == written[2]["tool_call_id"] == "call_h1_0"
    assert json.loads(written[1]["tool_calls"][0]["function"]["arguments"]) == {
        "city": "Москва",
        "opts": {"units": ["c"]},
    }
    assert "content" not in written[1]  # an empty assistant text is left out, not ""
    assert to_openai_messages([]) == []
