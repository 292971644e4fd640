"""Scenario cases: a simulated user (the test server scripted as the simulation model, or a
Python callable) plays each scenario against the agent over many turns; outcomes kept apart;
replays from the cache send nothing."""

from __future__ import annotations

import pytest
from scenario_helpers import (
    SUITE,
    USER_MODEL,
    booking_agent,
    conversation_of,
    scripted_user,
    transcript,
)

from ragas_boot.runs.simulation.summary import simulation_summary
from ragas_boot.samples import AIMessage, HumanMessage
from ragas_boot.suites import AgentTestSuite, run_suite, validate_suite
from ragas_boot.testing import Reply

CACHED = """
spring.ai.ragas.cache: {loopback: true}
spring.ai.ragas.simulation: {seed: 11}
"""


@pytest.fixture
def suite() -> AgentTestSuite:
    return validate_suite(SUITE)


@pytest.fixture
def container(make_container):
    return make_container([USER_MODEL], extra=CACHED)


def test_the_agent_that_asks_before_booking_passes_with_the_model_user(
    openai_server, container, suite
):
    openai_server.respond(USER_MODEL, scripted_user)
    run = run_suite(suite, booking_agent(), container=container)
    (case,) = run.samples
    sample = case.sample
    simulation = sample.agent_run.simulation
    assert case.passed, case
    assert (simulation.end, simulation.user_turns) == ("goal_met", 3)
    # the user confirmed the proposal rather than ending the conversation
    assert [m.content for m in sample.user_input_messages if isinstance(m, HumanMessage)] == [
        "A table for two on Friday, please.",
        "Yes, please.",
    ]
    assert sample.final_response() == "Done: your table for two is booked for 2025-05-02."
    assert sample.reference == "A table for two is booked on 2025-05-02"
    assert (simulation.simulator_calls, simulation.simulator_requests) == (3, 3)
    assert simulation.seed == 11
    requests = openai_server.requests_for(USER_MODEL)
    assert {record.request.body["seed"] for record in requests} == {11}
    # what the simulator is told
    assert "confirm it: say yes" in requests[1].request.prompt
    assert "never a\n   reason to stop" in requests[1].request.prompt
    assert "- name: Ada" in requests[0].request.prompt
    # the user sees the agent's words, not its tool calls
    assert "book_table" not in conversation_of(requests[-1].request)


def test_it_fails_when_its_tool_books_the_wrong_date(openai_server, container, suite):
    openai_server.respond(USER_MODEL, scripted_user)
    run = run_suite(suite, booking_agent(date="2025-05-03"), container=container)
    (case,) = run.samples
    assert not case.passed
    assert case.sample.agent_run.simulation.end == "goal_met"  # the user was satisfied ...
    assert case.evaluation("tool_call_accuracy").score == 0.0  # ... the booking is wrong
    assert not run.gate(min_sample_pass_rate=1.0).passed


def test_a_replay_gives_the_same_transcripts_with_no_request(openai_server, container, suite):
    openai_server.respond(USER_MODEL, scripted_user)
    twice = suite.model_copy(update={"repeat": 2})
    first = run_suite(twice, booking_agent(), container=container)
    sent = openai_server.count(USER_MODEL)
    assert sent == 6
    again = run_suite(twice, booking_agent(), container=container)
    assert openai_server.count(USER_MODEL) == sent  # 0 requests on the replay
    assert [transcript(s.sample) for s in again.samples] == [
        transcript(s.sample) for s in first.samples
    ]
    assert [s.sample.agent_run.simulation.cache_hits for s in again.samples] == [3, 3]
    assert [s.sample.agent_run.simulation.simulator_requests for s in again.samples] == [0, 0]
    # the two plays had their own seeds
    assert [s.sample_id for s in first.samples] == ["friday_table#1", "friday_table#2"]
    assert [s.sample.agent_run.simulation.seed for s in first.samples] == [11, 12]


def test_max_turns_without_the_user_done_is_not_concluded(openai_server, container, suite):
    openai_server.respond(
        USER_MODEL,
        lambda request: (
            {"message": "Hmm, not sure.", "done": False, "outcome": None, "why": ""}
            if conversation_of(request)
            else {"message": "Hello"}
        ),
    )
    run = run_suite(suite, lambda messages: "How can I help?", container=container, max_turns=2)
    (case,) = run.samples
    simulation = case.sample.agent_run.simulation
    assert (simulation.end, simulation.user_turns) == ("not_concluded", 3)
    assert len([m for m in case.sample.user_input_messages if isinstance(m, HumanMessage)]) == 2
    assert not case.passed and case.counted
    checks = case.evaluation("case_expectations").result.metadata["failed_checks"]
    assert checks[0]["check"] == "conversation"
    assert checks[0]["actual"] == "not_concluded"


def test_a_simulator_that_keeps_failing_is_counted_apart_never_the_agents(
    openai_server, container, suite
):
    openai_server.script(USER_MODEL, {"message": "Hi"}, Reply.empty(), Reply.text("{oops"))
    run = run_suite(suite, booking_agent(), container=container)
    (case,) = run.samples
    simulation = case.sample.agent_run.simulation
    assert simulation.end == "simulator_failed"
    assert "invalid_output" in simulation.reason
    assert case.sample.agent_run.error is None
    assert not case.counted
    assert {e.status for e in case.evaluations} == {"undefined"}
    assert "the simulator failed, not the agent" in case.evaluations[0].result.undefined_reason
    assert (
        run.simulator_failures,
        len(run.samples) - run.simulator_failures,
        run.sample_pass_rate,
    ) == (1, 0, None)
    gate = run.gate(min_sample_pass_rate=0.5)
    assert (gate.samples, gate.simulator_failures) == (0, 1)


def test_an_agent_exception_fails_the_case_with_its_traceback(openai_server, container, suite):
    openai_server.respond(USER_MODEL, scripted_user)

    def broken(messages):
        if len(messages) > 1:
            raise LookupError("no table left")
        return "Shall I book it?"

    run = run_suite(suite, broken, container=container)
    (case,) = run.samples
    agent_run = case.sample.agent_run
    assert agent_run.simulation.end == "agent_error"
    assert agent_run.error == "LookupError: no table left"
    assert "Traceback" in agent_run.traceback and "in broken" in agent_run.traceback
    assert case.counted and not case.passed
    assert case.evaluation("case_expectations").score == 0.0


def test_a_python_callable_can_play_the_user(suite):
    seen = []

    def user(conversation, scenario):
        seen.append((len(conversation), scenario.goal))
        if not conversation:
            return "Table for two on Friday?"
        if "Shall I book it?" in conversation[-1].content:
            return "yes"
        return None  # done

    run = run_suite(suite, booking_agent(), user=user)
    (case,) = run.samples
    assert case.passed
    assert case.sample.agent_run.simulation.end == "goal_met"
    assert case.sample.agent_run.simulation.simulator_calls == 0
    assert seen[0] == (0, "Book a table for two on Friday 2 May 2025")


def test_a_fixed_first_message_costs_no_call(openai_server, container):
    data = {**SUITE, "cases": [dict(SUITE["cases"][0])]}
    data["cases"][0]["scenario"] = {**data["cases"][0]["scenario"], "first-message": "Hi there"}
    openai_server.respond(USER_MODEL, scripted_user)
    run = run_suite(validate_suite(data), booking_agent(), container=container)
    sample = run.samples[0].sample
    assert sample.user_input_messages[0] == HumanMessage("Hi there")
    assert sample.agent_run.simulation.simulator_calls == 2
    assert isinstance(sample.user_input_messages[1], AIMessage)


def test_scenarios_without_a_user_are_refused(suite):
    from ragas_boot.errors import SuiteError

    with pytest.raises(SuiteError, match="scenario cases need a simulated user"):
        run_suite(suite, booking_agent())


def test_pass_rate_wilson_interval_and_pass_hat_k(openai_server, container, suite):
    answers = iter(["2025-05-02", "2025-05-02", "2025-05-03"])
    openai_server.respond(USER_MODEL, scripted_user)
    date = {"value": "2025-05-02"}

    def agent(messages):
        if messages[-1].content == "Yes, please.":
            date["value"] = next(answers)
        return booking_agent(date["value"])(messages)

    run = run_suite(suite, agent, container=container, repeat=3, concurrency=1)
    summary = simulation_summary(run)
    (scenario,) = summary.scenarios
    assert (scenario.plays, scenario.counted, scenario.passed) == (3, 3, 2)
    assert scenario.pass_all is False
    assert (summary.k, summary.pass_hat_k) == (3, 0.0)
    assert summary.pass_rate == pytest.approx(2 / 3)
    assert 0.0 < summary.wilson_low < 2 / 3 < summary.wilson_high < 1.0
    assert summary.requests_per_turn == 1.0


def _user(conversation, scenario):
    if not conversation:
        return "Table for two on Friday?"
    if "Shall I book it?" in conversation[-1].content:
        return "yes"
    return None


def test_one_pytest_test_per_scenario_needs_every_play_to_pass(suite):
    from ragas_boot.suites import pytest_cases

    (param,) = pytest_cases(suite.model_copy(update={"repeat": 2}))
    (case,) = param.values
    assert param.id == "friday_table"
    assert case.check(booking_agent(), user=_user).sample_id == "friday_table#1"
    dates = iter(["2025-05-02", "2025-05-03"])

    def flaky(messages):
        date = next(dates) if messages[-1].content == "yes" else "2025-05-02"
        return booking_agent(date)(messages)

    with pytest.raises(AssertionError, match=r"1 of 2 play\(s\) failed \(pass\^2 needs all\)"):
        case.check(flaky, user=_user)


def test_a_scenario_test_whose_simulator_always_fails_is_skipped(suite):
    from ragas_boot.suites import pytest_cases

    def broken(conversation, scenario):
        raise TimeoutError("the user model hung")

    (param,) = pytest_cases(suite)
    with pytest.raises(pytest.skip.Exception, match="the simulator failed every play"):
        param.values[0].check(booking_agent(), user=broken)


def test_simulate_plays_bare_scenarios_from_python():
    from ragas_boot.samples import Scenario
    from ragas_boot.suites import simulate, simulation_summary

    run = simulate(Scenario(goal="Book a table"), booking_agent(), user=_user, repeat=2)
    summary = simulation_summary(run)
    assert [s.sample_id for s in run.samples] == ["scenario-1#1", "scenario-1#2"]
    assert (summary.passed, summary.counted, summary.pass_hat_k) == (2, 2, 1.0)
    with pytest.raises(ValueError, match="at least one scenario"):
        simulate([], booking_agent(), user=_user)


def test_the_built_in_model_agent_plays_many_turns_and_a_replay_asks_no_model(
    openai_server, make_container, suite
):
    from ragas_boot.chat import judge_specs
    from ragas_boot.suites import ModelTurns, OpenAIToolAgent

    container = make_container([USER_MODEL, "agent-model"], extra=CACHED)

    def agent_model(request):
        said = [m.get("content") or "" for m in request.messages if m["role"] == "assistant"]
        last = request.messages[-1]
        if last["role"] == "tool":
            return "Your table is booked for 2025-05-02."
        if any("Shall I book it?" in text for text in said) and "Yes" in (last["content"]):
            return Reply.tool_calls(
                [{"name": "book_table", "arguments": {"date": "2025-05-02", "party": 2}}]
            )
        return "A table for two on Friday 2 May? Shall I book it?"

    openai_server.respond(USER_MODEL, scripted_user)
    openai_server.respond("agent-model", agent_model)
    spec = next(s for s in judge_specs(container.settings()) if s.id == "agent-model")

    def agent():
        return OpenAIToolAgent.for_suite(
            suite, spec=spec, turns=ModelTurns.of(spec), cache=container.executor().cache
        )

    first = run_suite(suite, agent(), container=container)
    (case,) = first.samples
    assert case.passed, case
    assert case.sample.agent_run.turns == 3  # the proposal, the call, the answer
    sent = (openai_server.count(USER_MODEL), openai_server.count("agent-model"))
    assert sent == (3, 3)
    again = run_suite(suite, agent(), container=container)
    assert (openai_server.count(USER_MODEL), openai_server.count("agent-model")) == sent
    assert transcript(again.samples[0].sample) == transcript(case.sample)
    assert again.samples[0].sample.agent_run.input_tokens == 0  # nothing billed on a replay


def test_a_user_script_returning_something_else_is_a_simulator_failure(suite):
    run = run_suite(suite, booking_agent(), user=lambda conversation, scenario: 42)
    simulation = run.samples[0].sample.agent_run.simulation
    assert simulation.end == "simulator_failed"
    assert "TypeError: the user script returned int" in simulation.reason
    assert run.simulator_failures == 1


def test_a_simulated_tool_answers_only_inside_a_play():
    import asyncio

    from ragas_boot.runs.simulation.tools import SimulatedTool, SimulatedToolError

    tool = SimulatedTool(name="lookup")
    with pytest.raises(SimulatedToolError, match="answers only inside a suite run"):
        asyncio.run(tool(order_id="42"))


def test_an_agent_that_returns_something_else_mid_conversation_is_the_agents_error(suite):
    def agent(messages):
        return "Shall I book it?" if len(messages) == 1 else {"oops": True}

    def user(conversation, scenario):
        return "Hi" if not conversation else "yes"

    run = run_suite(suite, agent, user=user)
    agent_run = run.samples[0].sample.agent_run
    assert agent_run.simulation.end == "agent_error"
    assert agent_run.error.startswith("TypeError: the agent returned dict")
    assert run.samples[0].counted and not run.samples[0].passed
