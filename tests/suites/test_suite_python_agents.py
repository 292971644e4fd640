"""Any Python agent: sync or async callables, and every form of reply they may return."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import pytest
from suite_helpers import WEATHER_SUITE, kinds

from ragas_boot.samples import AIMessage, HumanMessage, Message, Sample, ToolCall, ToolMessage
from ragas_boot.suites import (
    AgentReply,
    AgentTestCase,
    AgentTestSuite,
    arun_case,
    arun_suite,
    as_agent_reply,
    load_suite,
    run_case,
    run_suite,
)

CASE = AgentTestCase(
    id="T001",
    user_message="What's the weather in Hanoi?",
    expected_tool_calls=[{"tool_name": "get_weather", "required_params": {"city": "Hanoi"}}],
    expected_output_contains=["Hanoi"],
)
CALL = ToolCall("get_weather", {"city": "Hanoi"}, id="c1")
ANSWER = "31°C in Hanoi."


def sync_agent(messages: list[Message]) -> tuple[str, list[ToolCall]]:
    assert messages == [HumanMessage("What's the weather in Hanoi?")]
    return ANSWER, [CALL]


async def async_agent(messages: list[Message]) -> AgentReply:
    await asyncio.sleep(0)
    return AgentReply(response=ANSWER, tool_calls=[CALL])


class AsyncCallable:
    async def __call__(self, messages: list[Message]) -> str:
        return ANSWER


def test_a_sync_agent() -> None:
    result = run_case(CASE, sync_agent)

    assert result.passed
    assert result.sample.actual_tool_calls() == [CALL]
    # an answer given without a trace is the conversation's AI turns, for every metric
    assert [m.type for m in result.sample.user_input_messages] == ["human", "ai", "ai"]
    assert result.sample.agent_run.agent == "test_suite_python_agents:sync_agent"


@pytest.mark.asyncio
async def test_an_async_agent() -> None:
    result = await arun_case(CASE, async_agent)

    assert result.passed
    assert result.sample.response == ANSWER


@pytest.mark.asyncio
async def test_an_object_with_an_async_call() -> None:
    result = await arun_case(CASE, AsyncCallable())

    assert result.sample.response == ANSWER
    assert kinds(result) == ["tool_not_called"]


@pytest.mark.asyncio
async def test_sync_agents_run_in_threads_so_cases_overlap() -> None:
    # Each agent waits until all four are inside: that only ends when the cases overlap.
    # The barrier's timeout guards against a hang; it bounds nothing about speed.
    threads: set[int] = set()
    barrier = threading.Barrier(4, timeout=60)

    def waiting(messages: list[Message]) -> str:
        threads.add(threading.get_ident())
        barrier.wait()
        return "Hanoi"

    suite = AgentTestSuite(
        name="overlap",
        cases=[AgentTestCase(id=f"c{index}", user_message="hi") for index in range(4)],
    )
    result = await arun_suite(suite, waiting, concurrency=4)

    assert [run.sample.agent_run.error for run in result.samples] == [None] * 4
    assert result.passed_samples == 4
    assert len(threads) == 4
    assert threading.get_ident() not in threads


@pytest.mark.asyncio
async def test_no_more_cases_than_the_concurrency_run_at_once() -> None:
    # Async agents start on this loop: once two are held, letting the loop run many more
    # iterations would start a third if the bound allowed it (no clock involved).
    release = asyncio.Event()
    two_inside = asyncio.Event()
    started: list[str] = []
    inside = 0
    most = 0

    async def held(messages: list[Message], *, case: AgentTestCase) -> str:
        nonlocal inside, most
        inside += 1
        most = max(most, inside)
        started.append(case.id)
        if inside == 2:
            two_inside.set()
        await release.wait()
        inside -= 1
        return "Hanoi"

    suite = AgentTestSuite(
        name="bounded",
        cases=[AgentTestCase(id=f"c{index}", user_message="hi") for index in range(6)],
    )
    run = asyncio.create_task(arun_suite(suite, held, concurrency=2))
    await two_inside.wait()
    for _ in range(100):
        await asyncio.sleep(0)

    assert (inside, started) == (2, ["c0", "c1"])  # in suite order, and no third
    release.set()
    result = await run
    assert most == 2
    assert started == [f"c{index}" for index in range(6)]
    assert [run.sample_id for run in result.samples] == [f"c{index}" for index in range(6)]
    assert result.passed_samples == 6


def test_an_agent_may_ask_for_its_case() -> None:
    seen: list[str] = []

    def agent(messages: list[Message], *, case: AgentTestCase) -> str:
        seen.append(case.id)
        return "Hanoi"

    run_case(CASE, agent)

    assert seen == ["T001"]


OPENAI_TRACE = [
    {"role": "system", "content": "You are helpful."},
    {"role": "user", "content": "What's the weather in Hanoi?"},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {
                "id": "c1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city": "Hanoi"}'},
            }
        ],
    },
    {"role": "tool", "tool_call_id": "c1", "content": '{"temperature": 31}'},
    {"role": "assistant", "content": ANSWER},
]


@pytest.mark.parametrize(
    "output",
    [
        pytest.param(OPENAI_TRACE, id="openai-trace-with-input"),
        pytest.param(OPENAI_TRACE[2:], id="openai-trace-added-only"),
        pytest.param(
            [
                {"type": "human", "content": "What's the weather in Hanoi?"},
                {
                    "type": "ai",
                    "content": "",
                    "tool_calls": [{"name": "get_weather", "args": {"city": "Hanoi"}, "id": "c1"}],
                },
                {"type": "tool", "content": "31", "tool_call_id": "c1"},
                {"type": "ai", "content": ANSWER},
            ],
            id="langchain-dicts",
        ),
        pytest.param(
            [
                AIMessage("", [CALL]),
                ToolMessage("31", tool_call_id="c1", name="get_weather"),
                AIMessage(ANSWER),
            ],
            id="native-messages",
        ),
        pytest.param(
            Sample(
                user_input_messages=[
                    HumanMessage("What's the weather in Hanoi?"),
                    AIMessage("", [CALL]),
                    AIMessage(ANSWER),
                ]
            ),
            id="sample",
        ),
        pytest.param(
            (ANSWER, [{"name": "get_weather", "arguments": {"city": "Hanoi"}}]),
            id="pair-of-mappings",
        ),
        pytest.param(
            (
                ANSWER,
                [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": '{"city": "Hanoi"}'},
                    }
                ],
            ),
            id="pair-of-openai-calls",
        ),
    ],
)
def test_reply_forms(output: Any) -> None:
    reply = as_agent_reply(output, inputs=CASE.conversation())

    assert reply.response == ANSWER
    assert [(call.name, call.arguments) for call in reply.tool_calls] == [
        ("get_weather", {"city": "Hanoi"})
    ]
    assert not any(isinstance(message, HumanMessage) for message in reply.messages)


def test_a_langchain_trace_is_read_without_importing_it_here() -> None:
    from langchain_core.messages import AIMessage as LangChainAI
    from langchain_core.messages import HumanMessage as LangChainHuman

    trace = [
        LangChainHuman("What's the weather in Hanoi?"),
        LangChainAI(
            "", tool_calls=[{"name": "get_weather", "args": {"city": "Hanoi"}, "id": "c1"}]
        ),
        LangChainAI(ANSWER),
    ]

    result = run_case(CASE, lambda messages: trace)

    assert result.passed


@pytest.mark.parametrize(
    ("output", "message"),
    [
        (42, "the agent returned int"),
        ((ANSWER, "get_weather"), "tool calls must be a list"),
        ([{"role": "wizard", "content": "x"}], "unknown role"),
    ],
)
def test_an_unreadable_reply_is_an_agent_error(output: Any, message: str) -> None:
    result = run_case(CASE, lambda messages: output)

    assert not result.passed
    error = result.sample.agent_run.error
    assert error is not None
    assert message in error
    assert kinds(result) == ["agent_errors"]


def test_an_agent_that_raises_fails_only_its_case() -> None:
    def flaky(messages: list[Message]) -> str:
        if "weather and climate" in messages[-1].content:
            raise ConnectionError("upstream down")
        return "I don't know."

    suite = load_suite(WEATHER_SUITE)

    result = run_suite(suite, flaky)

    failed = next(run for run in result.samples if run.sample_id == "T003_no_tool_needed")
    assert failed.sample.agent_run.error == "ConnectionError: upstream down"
    assert failed.sample.agent_run.stop_reason.value == "error"
    assert not failed.passed
    assert len(result.samples) == 5
    assert result.stopped is None


def test_the_suite_default_agent_is_resolved_beside_the_file() -> None:
    suite = load_suite(WEATHER_SUITE)

    result = run_suite(suite)

    assert {run.sample.agent_run.agent for run in result.samples} == {"passing_agent:run"}
    assert result.passed_samples == len(result.samples) == 5
    assert result.gate(min_sample_pass_rate=1.0).passed
    assert result.dataset.name == "Weather Agent Tests"
    assert result.dataset.path == str(WEATHER_SUITE)
