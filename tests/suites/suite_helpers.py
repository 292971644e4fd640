"""Helpers of the suite tests: paths, and a test-server responder playing a tool-calling model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragas_boot.runs.suites.suite import resolve_reference
from ragas_boot.testing import ChatRequest, Reply, ReplyLike

DATA = Path(__file__).parent / "data"
WEATHER_SUITE = DATA / "weather_suite.yaml"
AGENT_MODEL = "weather-agent"


def scripted_turns(
    turns_by_prompt: Mapping[str, Sequence[ReplyLike]],
) -> Callable[[ChatRequest], ReplyLike]:
    """A responder playing a tool-calling model: per conversation (found by a phrase of the
    user's message), the n-th assistant turn after that message is ``turns[n]`` (the last one
    repeats). Safe under concurrency: it reads the request, not a shared queue."""

    def respond(request: ChatRequest) -> ReplyLike:
        for phrase, turns in turns_by_prompt.items():
            if phrase in request.prompt:
                last_user = max(
                    index
                    for index, message in enumerate(request.messages)
                    if message.get("role") == "user"
                )
                done = sum(
                    1
                    for message in request.messages[last_user:]
                    if message.get("role") == "assistant"
                )
                return turns[min(done, len(turns) - 1)]
        return Reply.text("I don't know.")

    return respond


def weather_call(city: str, **extra: object) -> Reply:
    """An assistant turn calling get_weather for ``city``."""
    return Reply.tool_calls([{"name": "get_weather", "arguments": {"city": city, **extra}}])


def tool_calls_log() -> list[dict[str, Any]]:
    """The calls recorded by data/weather_tools.py (loaded beside the suite file)."""
    calls: list[dict[str, Any]] = resolve_reference("weather_tools:CALLS", base_dirs=[DATA])
    return calls
