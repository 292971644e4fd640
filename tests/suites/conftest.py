"""Fixtures of the suite tests: the weather suite, and its agent model on the test server."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from suite_helpers import AGENT_MODEL, WEATHER_SUITE, scripted_turns, weather_call

from ragas_boot import RagasSettings
from ragas_boot.chat import JudgeSpec, judge_specs
from ragas_boot.suites import AgentTestSuite, load_suite
from ragas_boot.testing import FakeOpenAIServer, Reply


@pytest.fixture(autouse=True)
def _no_outside_configuration(monkeypatch: pytest.MonkeyPatch) -> None:
    """The caller's RAGAS_CONFIG or active profiles must not change which agent runs, nor
    the terminal's width the report."""
    monkeypatch.delenv("RAGAS_CONFIG", raising=False)
    monkeypatch.delenv("SPRING_PROFILES_ACTIVE", raising=False)
    # the console tables are laid out for a wide terminal, whatever runs the tests
    monkeypatch.setenv("COLUMNS", "200")


@pytest.fixture
def weather_suite() -> AgentTestSuite:
    """The seed's weather suite plus a latency and an over-calling case."""
    return load_suite(WEATHER_SUITE)


@pytest.fixture
def agent_settings(make_settings: Callable[..., RagasSettings]) -> RagasSettings:
    """Settings declaring the agent model on the test server (fast retries)."""
    return make_settings([AGENT_MODEL])


@pytest.fixture
def agent_spec(agent_settings: RagasSettings) -> JudgeSpec:
    """The agent model's spec: a judge entry of application.yaml serving as the agent."""
    return judge_specs(agent_settings)[0]


@pytest.fixture
def weather_model(openai_server: FakeOpenAIServer) -> FakeOpenAIServer:
    """The test server playing a good weather agent model for every case of the suite."""
    openai_server.respond(
        AGENT_MODEL,
        scripted_turns(
            {
                "Hanoi right now": [
                    weather_call("Hanoi", units="celsius"),
                    "The weather in Hanoi right now is 31°C and cloudy.",
                ],
                "5-day forecast": [
                    Reply.tool_calls(
                        [
                            {
                                "name": "get_forecast",
                                "arguments": {"city": "Ho Chi Minh City", "days": 5},
                            }
                        ]
                    ),
                    "Sunny, rain, then sunny again.",
                ],
                "weather and climate": [
                    "Weather is the day-to-day state; climate is the average over decades."
                ],
                "Da Nang": [weather_call("Da Nang"), "Light rain in Da Nang."],
                "Tokyo": [weather_call("Tokyo"), "18°C in Tokyo."],
            }
        ),
    )
    return openai_server
