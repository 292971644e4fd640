"""Simulated tools: the simulation model answers a ``simulated: true`` tool's calls, told the
result schema and the conversation's earlier results; its failure is the simulator's."""

from __future__ import annotations

import json

import pytest

from ragas_boot.chat import judge_specs
from ragas_boot.errors import SuiteError
from ragas_boot.suites import ModelTurns, OpenAIToolAgent, run_suite, validate_suite
from ragas_boot.testing import Reply

AGENT, SIMULATOR = "agent-model", "sim-model"

RESULT_SCHEMA = {
    "type": "object",
    "properties": {"booking_id": {"type": "string"}, "date": {"type": "string"}},
    "required": ["booking_id", "date"],
}

SUITE = {
    "name": "Bookings",
    "tools": [
        {
            "name": "book_table",
            "description": "Book a table",
            "parameters": {"type": "object", "properties": {"date": {"type": "string"}}},
            "simulated": True,
            "result-schema": RESULT_SCHEMA,
        },
        {
            "name": "find_booking",
            "parameters": {"type": "object", "properties": {"booking_id": {"type": "string"}}},
            "simulated": True,
        },
    ],
    "cases": [
        {
            "id": "book_then_check",
            "user-message": "Book Friday and check it.",
            "expected-tool-calls": [
                {"tool-name": "book_table", "required-params": {"date": "2025-05-02"}},
                {"tool-name": "find_booking", "required-params": {"booking_id": "B-7"}},
            ],
        }
    ],
}


def _agent_turns():
    turns = iter(
        [
            Reply.tool_calls([{"name": "book_table", "arguments": {"date": "2025-05-02"}}]),
            Reply.tool_calls([{"name": "find_booking", "arguments": {"booking_id": "B-7"}}]),
            "Booked B-7 for Friday.",
        ]
    )
    return lambda request: next(turns)


@pytest.fixture
def container(make_container):
    return make_container(
        [SIMULATOR, AGENT], extra="spring.ai.ragas.simulation: {model: sim-model}\n"
    )


def _agent(container, suite):
    spec = next(s for s in judge_specs(container.settings()) if s.id == AGENT)
    return OpenAIToolAgent.for_suite(suite, spec=spec, turns=ModelTurns.of(spec))


def test_the_simulator_answers_each_call_consistently(openai_server, container):
    suite = validate_suite(SUITE)
    openai_server.respond(AGENT, _agent_turns())
    openai_server.script(
        SIMULATOR,
        {"result": {"booking_id": "B-7", "date": "2025-05-02"}},
        {"result": {"booking_id": "B-7", "status": "confirmed"}},
    )
    run = run_suite(suite, _agent(container, suite), container=container)
    (case,) = run.samples
    assert case.passed, case
    tools = [m for m in case.sample.user_input_messages if m.type == "tool"]
    assert [json.loads(m.content) for m in tools] == [
        {"booking_id": "B-7", "date": "2025-05-02"},
        {"booking_id": "B-7", "status": "confirmed"},
    ]
    first, second = (r.request for r in openai_server.requests_for(SIMULATOR))
    assert "The tool: book_table" in first.prompt and '"booking_id"' in first.prompt
    assert "(none)" in first.prompt  # no earlier call
    assert 'book_table({"date":"2025-05-02"}' not in first.prompt
    assert 'book_table({"date": "2025-05-02"}) -> {"booking_id": "B-7"' in second.prompt
    # the result schema travels as the answer's schema
    assert "B-7" not in json.dumps(first.json_schema)
    assert first.json_schema["properties"]["result"]["required"] == ["booking_id", "date"]


def test_a_failing_simulated_tool_is_a_simulator_failure(openai_server, container):
    suite = validate_suite(SUITE)
    openai_server.respond(AGENT, _agent_turns())
    openai_server.script(SIMULATOR, Reply.empty(), Reply.text("nope"))
    run = run_suite(suite, _agent(container, suite), container=container)
    (case,) = run.samples
    simulation = case.sample.agent_run.simulation
    assert simulation.end == "simulator_failed"
    assert "invalid_output" in simulation.reason
    assert case.sample.agent_run.error is None
    assert not case.counted and run.simulator_failures == 1


def test_simulated_tools_need_the_simulation_model_and_no_other_answer():
    with pytest.raises(SuiteError, match="simulated tool has no function and no canned result"):
        validate_suite({**SUITE, "tools": [{**SUITE["tools"][0], "result": {"booking_id": "x"}}]})
    suite = validate_suite(SUITE)
    with pytest.raises(SuiteError, match="simulated tools need the simulation model"):
        run_suite(suite, lambda messages: "ok")
