"""The built-in runner: the local test server plays the agent model with scripted tool calls."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
import pytest_asyncio
from suite_helpers import AGENT_MODEL, scripted_turns, tool_calls_log, weather_call

from ragas_boot.chat import JudgeSpec
from ragas_boot.execution import LoopPortal
from ragas_boot.suites import (
    AgentTestSuite,
    IssueKind,
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
    model = OpenAIToolAgent.for_suite(weather_suite, spec=agent_spec)
    yield model
    await model.aclose()


def _kinds(result: Any) -> list[IssueKind]:
    return [issue.kind for issue in result.issues]


@pytest.mark.asyncio
async def test_passing_case_runs_tools_and_sends_their_results(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    result = await arun_case(weather_suite.case("T001_current_weather"), agent)

    assert result.passed, result.issues
    assert result.score == 1.0
    assert (result.tool_precision, result.tool_recall, result.param_accuracy) == (1.0, 1.0, 1.0)
    assert result.response == "The weather in Hanoi right now is 31°C and cloudy."
    assert [call.name for call in result.tool_calls] == ["get_weather"]
    assert result.turns == 2
    assert result.stop_reason is StopReason.ANSWERED
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
    assert [message.type for message in result.messages] == ["human", "ai", "tool", "ai"]


@pytest.mark.asyncio
async def test_wrong_parameters_get_partial_credit_and_fail_the_case(
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
    assert _kinds(result) == [IssueKind.WRONG_VALUE, IssueKind.WRONG_VALUE, IssueKind.INVALID_PARAM]
    city, days, invalid = result.issues
    assert (city.tool, city.param, city.expected, city.actual) == (
        "get_forecast",
        "city",
        "Ho Chi Minh City",
        "Saigon",
    )
    assert (days.param, days.expected, days.actual) == ("days", 5, 10)
    assert (invalid.param, invalid.actual) == ("days", 10)
    assert invalid.expected == "type integer, in [1, 7]"
    # city: wrong value 0.5; days: wrong value, then a failed validator, 0
    assert result.param_accuracy == pytest.approx(0.25)
    assert result.score == pytest.approx((0.3 + 0.3 + 0.3 * 0.25) / 0.9)
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
    assert result.score == 0.0
    assert result.output_score == 1.0
    (issue,) = result.issues
    assert issue.kind is IssueKind.FORBIDDEN_CALL
    assert issue.actual == [{"name": "get_weather", "arguments": {"city": "Hanoi"}}]
    assert 'get_weather({"city": "Hanoi"})' in issue.message


@pytest.mark.asyncio
async def test_latency_over_budget_fails_the_case(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    weather_model.set_latency(AGENT_MODEL, 0.8)

    result = await arun_case(weather_suite.case("T004_latency_budget"), agent)

    assert not result.passed
    assert result.score == 1.0  # right tool, right answer: only the budget failed
    assert _kinds(result) == [IssueKind.LATENCY]
    assert result.latency_ms >= 1600  # two model turns of 800 ms
    assert result.issues[0].expected == 1500


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
    assert result.stop_reason is StopReason.TOOL_BUDGET
    assert len(result.tool_calls) == 3  # the turn that crossed the budget of 2 is recorded
    assert len(calls) == 2  # ... but not executed
    assert openai_server.count(AGENT_MODEL) == 3
    assert _kinds(result) == [IssueKind.EXTRA_CALL, IssueKind.EXTRA_CALL, IssueKind.OVER_BUDGET]
    assert result.issues[-1].expected == 2
    assert result.issues[-1].actual == 3
    assert result.tool_precision == pytest.approx(1 / 3)
    assert result.tool_recall == 1.0


@pytest.mark.asyncio
async def test_whole_suite_against_a_good_model(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent: OpenAIToolAgent
) -> None:
    result = await arun_suite(weather_suite, agent)

    assert [case.case_id for case in result.cases] == [case.id for case in weather_suite.cases]
    assert result.passed == 5
    assert result.agent == f"model {AGENT_MODEL} (local)"
    assert result.gate(0.9).passed


def test_sync_run_suite_closes_the_agent_clients(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent_spec: JudgeSpec
) -> None:
    agent = OpenAIToolAgent.for_suite(weather_suite, spec=agent_spec)

    first = run_suite(weather_suite, agent, cases=["T001_current_weather"])
    second = run_suite(weather_suite, agent, cases=["T002_5day_forecast"])  # usable again

    assert first.passed == second.passed == 1


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
    agent = OpenAIToolAgent.for_suite(weather_suite, spec=spec)

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
    agent = OpenAIToolAgent.for_suite(weather_suite, spec=agent_spec, retry=agent_settings.retry)
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

    (case,) = result.cases
    assert not case.passed
    assert case.error is not None
    assert case.error.startswith("JudgeHTTPError: HTTP 401")
    assert [issue.kind for issue in case.issues] == [IssueKind.AGENT_ERROR]
    assert case.tool_precision is None
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

    assert result.tool_calls[0].arguments == {}
    assert [issue.kind for issue in result.issues][:1] == [IssueKind.MISSING_PARAM]
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
    agent = OpenAIToolAgent.for_suite(suite, spec=agent_spec)
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
    assert [issue.kind for issue in result.issues] == [IssueKind.UNEXPECTED_TOOL]


def test_the_agent_runs_on_a_given_portal(
    weather_model: FakeOpenAIServer, weather_suite: AgentTestSuite, agent_spec: JudgeSpec
) -> None:
    portal = LoopPortal(name="test-portal")
    agent = OpenAIToolAgent.for_suite(weather_suite, spec=agent_spec)
    try:
        result = run_suite(weather_suite, agent, cases=["T003_no_tool_needed"], portal=portal)
    finally:
        portal.close()

    assert result.cases[0].passed


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
    agent = OpenAIToolAgent.for_suite(weather_suite, spec=agent_spec, retry=turns)
    try:
        result = await arun_case(weather_suite.case("T001_current_weather"), agent)
    finally:
        await agent.aclose()

    assert result.passed
    assert result.turns == 2  # the tool call, then the answer
    assert turns.turns == [AGENT_MODEL, AGENT_MODEL]
    assert weather_model.count(AGENT_MODEL) == 2


def test_a_retry_of_another_kind_is_refused(agent_spec: JudgeSpec) -> None:
    with pytest.raises(TypeError, match="retry must be RetrySettings, a RetryPolicy or a Turn"):
        OpenAIToolAgent(spec=agent_spec, retry=3)
