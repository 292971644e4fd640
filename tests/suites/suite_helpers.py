"""Helpers of the suite tests: paths, and a test-server responder playing a tool-calling model."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ragas_boot.runs.analysis import sample_findings
from ragas_boot.runs.records import SampleRun
from ragas_boot.runs.suites.suite import resolve_reference
from ragas_boot.samples import Message, ToolCall
from ragas_boot.suites import (
    AgentReply,
    AgentTestCase,
    AgentTestSuite,
    case_sample,
    evaluate_cases,
)
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


def scored(
    case: AgentTestCase,
    *calls: ToolCall,
    response: str = "",
    messages: list[Message] | None = None,
    latency_ms: float = 10.0,
    error: str | None = None,
    scoring: dict[str, Any] | None = None,
) -> SampleRun:
    """A case scored from what an agent did (no agent runs): its sample with the evaluations
    of tool_call_accuracy and case_expectations."""
    reply = AgentReply(response=response, tool_calls=list(calls), messages=messages or [])
    sample = case_sample(
        case, None if error else reply, latency_ms=latency_ms, error=error, agent="test"
    )
    suite = AgentTestSuite.model_validate({"name": "s", "cases": [case], "scoring": scoring or {}})
    return evaluate_cases(suite, [sample]).samples[0]


def score_of(run: SampleRun, metric: str) -> float | None:
    """The score of ``metric`` in a scored case."""
    return run.evaluation(metric).score


def kinds(run: SampleRun) -> list[str]:
    """The kinds of the failure analysis' findings of a case."""
    return [finding.kind.value for finding in sample_findings(run)]
