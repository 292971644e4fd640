"""The built-in runner: the local test server plays the agent model with scripted tool calls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import pytest_asyncio
from suite_helpers import AGENT_MODEL, kinds, score_of, scripted_turns, tool_calls_log, weather_call

from ragas_boot.chat import JudgeSpec
from ragas_boot.config.settings import RetrySettings
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.runs.analysis import sample_findings
from ragas_boot.suites import (
    AgentTestSuite,
    ModelTurns,
    OpenAIToolAgent,
    StopReason,
    arun_case,
    arun_suite,
    run_suite,
)
from ragas_boot.testing import FakeOpenAIServer, Reply


@pytest_asyncio.fixture
async def agent(
    weather_suite: AgentTestSuite, agent_spec: JudgeSpec
) -> AsyncIterator[OpenAIToolAgent]:
    """The suite's agent model, closed after the test."""
    model = OpenAIToolAgent.for_suite(
        weather_suite, spec=agent_spec, turns=ModelTurns.of(agent_spec)
    )
    yield model
    await model.aclose()


@pytest.mark.asyncio
async def test_passing_case_runs_tools_and_sends_their_results(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    result = await arun_case(weather_suite.case("T001_current_weather"), agent)

    assert result.passed, sample_findings(result)
    assert (score_of(result, "tool_call_accuracy"), score_of(result, "case_expectations")) == (
        1.0,
        1.0,
    )
    sample = result.sample
    assert sample.response == "The weather in Hanoi right now is 31°C and cloudy."
    assert [call.name for call in sample.actual_tool_calls()] == ["get_weather"]
    assert sample.agent_run.turns == 2
    assert sample.agent_run.stop_reason is StopReason.ANSWERED
    assert sample.agent_run.agent == f"model {AGENT_MODEL} (local)"
    first, second = (record.request for record in weather_model.requests_for(AGENT_MODEL))
    assert first.messages[0] == {"role": "system", "content": "You are a weather assistant."}
    assert [tool["function"]["name"] for tool in first.tools or []] == [
        "get_weather",
        "get_forecast",
    ]
    tool_message = second.messages[-1]
    assert tool_message["role"] == "tool"
    assert json.loads(tool_message["content"])["temperature"] == 31
    assert tool_message["tool_call_id"] == second.messages[-2]["tool_calls"][0]["id"]
    assert tool_calls_log()[-1] == {"city": "Hanoi", "units": "celsius"}
    assert [message.type for message in sample.user_input_messages] == [
        "human",
        "ai",
        "tool",
        "ai",
    ]


@pytest.mark.asyncio
async def test_wrong_parameters_fail_the_call_and_are_named(
    openai_server: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    openai_server.respond(
        AGENT_MODEL,
        scripted_turns(
            {
                "5-day forecast": [
                    Reply.tool_calls(
                        [{"name": "get_forecast", "arguments": {"city": "Saigon", "days": 10}}]
                    ),
                    "Hot all week.",
                ]
            }
        ),
    )

    result = await arun_case(weather_suite.case("T002_5day_forecast"), agent)

    assert not result.passed
    assert score_of(result, "tool_call_accuracy") == 0.0  # 0.1.x gave 0.694: no partial credit
    (finding,) = sample_findings(result)
    assert (finding.kind.value, finding.tool) == ("parameter_errors", "get_forecast")
    # days is checked by its rule (type integer, in [1, 7]) and by the value 5: the first
    # check that fails says why
    assert finding.params == {
        "city": "expected 'Ho Chi Minh City', got 'Saigon'",
        "days": "expected 5, got 10",
    }
    assert finding.expected["arguments"] == {"city": "Ho Chi Minh City", "days": 5}
    # the canned result of the tool was sent back to the model
    answered = openai_server.requests_for(AGENT_MODEL)[-1].request.messages[-1]
    assert json.loads(answered["content"]) == {"forecast": ["sunny", "rain", "sunny"]}


@pytest.mark.asyncio
async def test_must_not_call_case_fails_listing_the_calls(
    openai_server: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    openai_server.respond(
        AGENT_MODEL,
        scripted_turns(
            {
                "weather and climate": [
                    weather_call("Hanoi"),
                    "Weather changes daily; climate is the long-term average.",
                ]
            }
        ),
    )

    result = await arun_case(weather_suite.case("T003_no_tool_needed"), agent)

    assert not result.passed
    assert score_of(result, "tool_call_accuracy") == 0.0
    assert score_of(result, "case_expectations") == 1.0
    (finding,) = sample_findings(result)
    assert finding.kind.value == "over_calling"
    assert finding.actual == [{"name": "get_weather", "arguments": {"city": "Hanoi"}}]
    assert 'get_weather({"city": "Hanoi"})' in finding.message


@pytest.mark.asyncio
async def test_latency_over_budget_fails_the_case(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    weather_model.set_latency(AGENT_MODEL, 0.8)

    result = await arun_case(weather_suite.case("T004_latency_budget"), agent)

    assert not result.passed
    assert score_of(result, "tool_call_accuracy") == 1.0  # right tool: only the budget failed
    assert kinds(result) == ["latency"]
    assert result.sample.agent_run.latency_ms >= 1600  # two model turns of 800 ms
    assert sample_findings(result)[0].expected == 1500


@pytest.mark.asyncio
async def test_over_calling_stops_at_the_budget(
    openai_server: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    calls = tool_calls_log()
    calls.clear()
    # a model that never stops calling the tool
    openai_server.respond(AGENT_MODEL, weather_call("Tokyo"))

    result = await arun_case(weather_suite.case("T005_over_calling"), agent)

    assert not result.passed
    assert result.sample.agent_run.stop_reason is StopReason.TOOL_BUDGET
    assert len(result.sample.actual_tool_calls()) == 3  # the turn over the budget of 2 ...
    assert len(calls) == 2  # ... is recorded but not executed
    assert openai_server.count(AGENT_MODEL) == 3
    assert kinds(result) == ["over_calling"] * 3
    assert (sample_findings(result)[-1].expected, sample_findings(result)[-1].actual) == (2, 3)
    matching = result.evaluation("tool_call_accuracy").result.metadata
    assert (matching["precision"], matching["recall"]) == (pytest.approx(1 / 3), 1.0)


@pytest.mark.asyncio
async def test_whole_suite_against_a_good_model(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    result = await arun_suite(weather_suite, agent)

    assert [run.sample_id for run in result.samples] == [case.id for case in weather_suite.cases]
    assert result.passed_samples == 5
    assert result.gate(min_sample_pass_rate=0.9).passed


def test_sync_run_suite_closes_the_agent_clients(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent_spec: JudgeSpec
) -> None:
    agent = OpenAIToolAgent.for_suite(
        weather_suite, spec=agent_spec, turns=ModelTurns.of(agent_spec)
    )

    first = run_suite(weather_suite, agent, cases=["T001_current_weather"])
    second = run_suite(weather_suite, agent, cases=["T002_5day_forecast"])  # usable again

    assert first.passed_samples == second.passed_samples == 1


@pytest.mark.asyncio
async def test_cases_run_concurrently_within_the_bound(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    weather_model.set_latency(AGENT_MODEL, 0.05)

    await arun_suite(weather_suite, agent, concurrency=2)

    assert weather_model.peak_in_flight_for(AGENT_MODEL) == 2


def test_rate_limit_and_concurrency_of_the_provider_apply(
    make_settings: Any, weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite
) -> None:
    from ragas_boot.chat import judge_specs

    settings = make_settings([AGENT_MODEL], extra="spring.ai.ragas.providers.max-concurrency: 1\n")
    spec = judge_specs(settings)[0]
    weather_model.set_latency(AGENT_MODEL, 0.02)
    agent = OpenAIToolAgent.for_suite(weather_suite, spec=spec, turns=ModelTurns.of(spec))

    run_suite(weather_suite, agent, concurrency=5)

    assert weather_model.peak_in_flight_for(AGENT_MODEL) == 1


@pytest.mark.asyncio
async def test_transient_errors_are_retried_like_a_judge(
    weather_model: FakeOpenAIServer,
    weather_suite: AgentTestSuite,
    agent_spec: JudgeSpec,
    agent_settings: Any,
) -> None:
    weather_model.when(lambda request: True, Reply.error(429, retry_after=0), times=1)
    weather_model.when(lambda request: True, Reply.error(503), times=1)
    agent = OpenAIToolAgent.for_suite(
        weather_suite, spec=agent_spec, turns=ModelTurns.of(agent_spec, agent_settings.retry)
    )
    try:
        result = await arun_case(weather_suite.case("T001_current_weather"), agent)
    finally:
        await agent.aclose()

    assert result.passed
    statuses = [record.status for record in weather_model.requests_for(AGENT_MODEL)]
    assert statuses == [429, 503, 200, 200]


@pytest.mark.asyncio
async def test_a_failing_model_is_an_agent_error_not_a_crash(
    openai_server: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    openai_server.fail_always(AGENT_MODEL, Reply.error(401, "Incorrect API key provided"))

    result = await arun_suite(weather_suite, agent, cases=["T001_current_weather"])

    (case,) = result.samples
    assert not case.passed
    error = case.sample.agent_run.error
    assert error is not None
    assert error.startswith("JudgeHTTPError: HTTP 401")
    assert kinds(case) == ["agent_errors"]
    assert openai_server.count(AGENT_MODEL) == 1  # a 401 is not retried


@pytest.mark.asyncio
async def test_unparseable_tool_arguments_are_answered_with_an_error(
    openai_server: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    openai_server.respond(
        AGENT_MODEL,
        scripted_turns(
            {
                "Hanoi right now": [
                    Reply.tool_calls([{"name": "get_weather", "arguments": "{city: Hanoi"}]),
                    "Sorry, something went wrong.",
                ]
            }
        ),
    )

    result = await arun_case(weather_suite.case("T001_current_weather"), agent)

    assert result.sample.actual_tool_calls()[0].arguments == {}
    assert sample_findings(result)[0].params == {"city": "expected the argument, which is missing"}
    sent = openai_server.requests_for(AGENT_MODEL)[-1].request.messages
    assert sent[-2]["tool_calls"][0]["function"]["arguments"] == "{city: Hanoi"
    assert "not valid JSON" in json.loads(sent[-1]["content"])["error"]


@pytest.mark.asyncio
async def test_case_tool_results_override_and_unknown_tools_get_a_mock(
    openai_server: FakeOpenAIServer, agent_spec: JudgeSpec
) -> None:
    suite = AgentTestSuite.model_validate(
        {
            "name": "mocks",
            "tools": [{"name": "lookup"}, {"name": "other"}],
            "cases": [
                {
                    "id": "canned",
                    "user_message": "look it up",
                    "tool_results": {"lookup": "42"},
                    "expected_tool_calls": [{"tool_name": "lookup"}],
                }
            ],
        }
    )
    openai_server.respond(
        AGENT_MODEL,
        scripted_turns(
            {
                "look it up": [
                    Reply.tool_calls(
                        [
                            {"name": "lookup", "arguments": {}},
                            {"name": "other", "arguments": {"q": 1}},
                        ]
                    ),
                    "done",
                ]
            }
        ),
    )
    agent = OpenAIToolAgent.for_suite(suite, spec=agent_spec, turns=ModelTurns.of(agent_spec))
    try:
        result = await arun_case(suite.cases[0], agent)
    finally:
        await agent.aclose()

    sent = openai_server.requests_for(AGENT_MODEL)[-1].request.messages
    assert sent[-2]["content"] == "42"
    assert json.loads(sent[-1]["content"]) == {
        "status": "success",
        "result": "Mock result for other",
        "input_received": {"q": 1},
    }
    assert kinds(result) == ["wrong_tool"]


def test_the_agent_runs_on_a_given_portal(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent_spec: JudgeSpec
) -> None:
    portal = LoopPortal(name="test-portal")
    agent = OpenAIToolAgent.for_suite(
        weather_suite, spec=agent_spec, turns=ModelTurns.of(agent_spec)
    )
    try:
        result = run_suite(weather_suite, agent, cases=["T003_no_tool_needed"], portal=portal)
    finally:
        portal.close()

    assert result.samples[0].passed


class _CountingTurns:
    """A turn policy of our own: one attempt per turn, counted, no limits."""

    def __init__(self) -> None:
        self.turns: list[str] = []

    async def attempt(
        self, turn: Callable[[], Awaitable[Any]], *, model_id: str, timeout_s: float | None
    ) -> tuple[Any, float]:
        self.turns.append(model_id)
        return await turn(), 0.0


@pytest.mark.asyncio
async def test_a_turn_policy_of_ones_own_attempts_every_turn(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent_spec: JudgeSpec
) -> None:
    turns = _CountingTurns()
    agent = OpenAIToolAgent.for_suite(weather_suite, spec=agent_spec, turns=turns)
    try:
        result = await arun_case(weather_suite.case("T001_current_weather"), agent)
    finally:
        await agent.aclose()

    assert result.passed
    assert result.sample.agent_run.turns == 2  # the tool call, then the answer
    assert turns.turns == [AGENT_MODEL, AGENT_MODEL]
    assert weather_model.count(AGENT_MODEL) == 2


def test_a_retry_of_another_kind_is_refused(agent_spec: JudgeSpec) -> None:
    with pytest.raises(TypeError, match="retry must be RetrySettings or a RetryPolicy, got int"):
        ModelTurns.of(agent_spec, 3)  # type: ignore[arg-type]


def test_turns_that_cannot_attempt_a_turn_are_refused_naming_what_to_pass(
    agent_spec: JudgeSpec,
) -> None:
    with pytest.raises(TypeError, match=r"turns must be a TurnPolicy .* ModelTurns\.of\(spec\)"):
        OpenAIToolAgent(spec=agent_spec, turns=RetrySettings())  # type: ignore[arg-type]
