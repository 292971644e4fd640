"""One pytest test per case: ``pytest_cases`` and ``SuiteCase.check``."""

from __future__ import annotations

from typing import Any

import pytest
from suite_helpers import AGENT_MODEL, WEATHER_SUITE

from ragas_boot.chat import JudgeSpec
from ragas_boot.samples import Message
from ragas_boot.suites import (
    AgentReply,
    ModelTurns,
    OpenAIToolAgent,
    SuiteCase,
    load_suite,
    pytest_cases,
)
from ragas_boot.testing import FakeOpenAIServer


@pytest.mark.parametrize("suite_case", pytest_cases(WEATHER_SUITE))
def test_weather_suite(suite_case: SuiteCase) -> None:
    result = suite_case.check()  # the suite's default agent, passing_agent:run

    assert result.sample_id == suite_case.id
    assert result.passed
    assert [e.metric for e in result.evaluations] == ["tool_call_accuracy", "case_expectations"]


@pytest.mark.asyncio
@pytest.mark.parametrize("suite_case", pytest_cases(load_suite(WEATHER_SUITE)))
async def test_weather_suite_async(suite_case: SuiteCase) -> None:
    agent = load_suite(WEATHER_SUITE).resolve_agent()

    async def async_agent(messages: list[Message]) -> AgentReply:
        text, calls = agent(messages)
        return AgentReply(response=text, tool_calls=calls)

    await suite_case.acheck(async_agent)


def test_params_are_named_after_the_cases() -> None:
    params = pytest_cases(WEATHER_SUITE, marks=pytest.mark.filterwarnings("default"))

    assert [param.id for param in params] == [case.id for case in load_suite(WEATHER_SUITE).cases]
    assert all(param.marks for param in params)


def test_a_failing_case_fails_with_its_issues() -> None:
    suite_case = pytest_cases(WEATHER_SUITE)[0].values[0]
    assert isinstance(suite_case, SuiteCase)

    with pytest.raises(AssertionError) as caught:
        suite_case.check(lambda messages: "Sorry, no idea.")

    message = str(caught.value)
    assert message.startswith("case T001_current_weather failed")
    assert "  tool_call_accuracy: 0.000 fail — Accuracy 0.0%" in message
    assert "tool_not_called: Missing expected tool call: get_weather" in message
    assert "missing_keywords: The answer lacks 'Hanoi', 'weather'" in message
    assert "answer: Sorry, no idea." in message


@pytest.mark.asyncio
@pytest.mark.parametrize("suite_case", pytest_cases(WEATHER_SUITE)[:2])
async def test_a_model_agent_per_case(
    suite_case: SuiteCase, weather_model: FakeOpenAIServer, agent_spec: JudgeSpec
) -> None:
    agent = OpenAIToolAgent.for_suite(
        suite_case.suite, spec=agent_spec, turns=ModelTurns.of(agent_spec)
    )

    await suite_case.acheck(agent)
    result = await suite_case.acheck(agent)  # its client was closed after the first run

    assert result.sample.agent_run.turns == 2
    assert weather_model.count(AGENT_MODEL) == 4


def test_a_case_is_also_scored_by_the_metrics_given(
    make_container: Any, openai_server: FakeOpenAIServer
) -> None:
    openai_server.when(
        lambda r: "inferred_goal" in r.prompt,
        {"inferred_goal": "the weather", "reason": "asked"},
    )
    openai_server.when(
        lambda r: "goal_achieved" in r.prompt,
        {"goal_achieved": False, "reason": "No temperature was given."},
    )
    container = make_container(["judge-a"])
    suite_case = pytest_cases(WEATHER_SUITE)[0].values[0]
    assert isinstance(suite_case, SuiteCase)

    with pytest.raises(AssertionError) as caught:
        suite_case.check(metrics=["agent_goal_accuracy"], container=container)

    message = str(caught.value)
    assert "  agent_goal_accuracy: 0.000 fail — " in message
    assert "other_metrics: agent_goal_accuracy scored 0.00 under its threshold 0.5" in message
    run = suite_case.run(metrics=[container.tool_call_accuracy()], container=container)
    assert run.passed  # the container's bean of a suite metric replaces the default one
