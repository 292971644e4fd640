"""The fake server answers ChatOpenAI as a judge (structured output) and as an agent (tools)."""

from __future__ import annotations

import json
from collections.abc import Callable
from enum import StrEnum
from typing import Any, Literal

import openai
import pytest
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import BaseModel, Field

from ragas_boot.testing import FakeOpenAIServer, Reply

ChatFactory = Callable[..., ChatOpenAI]


class Verdict(StrEnum):
    YES = "yes"
    NO = "no"


class Evidence(BaseModel):
    quote: str
    weight: float = Field(ge=0.5, le=1.0)


class Judgement(BaseModel):
    """A judge's structured answer."""

    verdict: Verdict
    score: int = Field(ge=1, le=5)
    reason: str | None
    evidence: list[Evidence] = Field(min_length=2, max_length=2)
    mode: Literal["strict", "flexible"]


SCRIPTED = {
    "verdict": "no",
    "score": 4,
    "reason": "close enough",
    "evidence": [{"quote": "a", "weight": 0.6}, {"quote": "b", "weight": 0.9}],
    "mode": "flexible",
}


@tool
def get_weather(city: str) -> str:
    """Weather of a city."""
    return f"sunny in {city}"


def test_plain_invoke(openai_server: FakeOpenAIServer, chat_openai: ChatFactory) -> None:
    openai_server.script("judge", "Paris is the capital.")

    answer = chat_openai().invoke("Capital of France?")

    assert answer.content == "Paris is the capital."
    assert answer.usage_metadata is not None
    assert answer.usage_metadata["output_tokens"] == 6
    assert openai_server.requests[0].request.prompt == "Capital of France?"


def test_reply_json_is_content(openai_server: FakeOpenAIServer, chat_openai: ChatFactory) -> None:
    openai_server.script("judge", Reply.json({"verdict": 1}))

    answer = chat_openai().invoke([SystemMessage("Be strict."), HumanMessage("Judge it.")])

    assert isinstance(answer.content, str)
    assert json.loads(answer.content) == {"verdict": 1}
    request = openai_server.requests[0].request
    assert [message["role"] for message in request.messages] == ["system", "user"]


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
def test_structured_output_parses_a_scripted_answer(
    openai_server: FakeOpenAIServer, chat_openai: ChatFactory, method: str
) -> None:
    openai_server.script("judge", SCRIPTED)
    judge = chat_openai().with_structured_output(Judgement, method=method)

    result = judge.invoke("Judge this answer.")

    assert result == Judgement.model_validate(SCRIPTED)


@pytest.mark.parametrize("method", ["function_calling", "json_schema"])
def test_structured_output_parses_the_generated_default(
    openai_server: FakeOpenAIServer, chat_openai: ChatFactory, method: str
) -> None:
    judge = chat_openai().with_structured_output(Judgement, method=method)

    result = judge.invoke("Judge this answer.")

    assert isinstance(result, Judgement)
    assert result.verdict is Verdict.YES
    assert result.score == 1
    assert len(result.evidence) == 2
    request = openai_server.requests[0].request
    assert request.json_schema is not None
    if method == "function_calling":
        assert request.forced_tool == "Judgement"
    else:
        assert request.response_format is not None
        assert request.response_format["type"] == "json_schema"


@pytest.mark.asyncio
async def test_async_structured_output(
    openai_server: FakeOpenAIServer, achat_openai: ChatFactory
) -> None:
    openai_server.script("judge-a", SCRIPTED)
    judge_a = achat_openai("judge-a").with_structured_output(Judgement, method="function_calling")
    judge_b = achat_openai("judge-b").with_structured_output(Judgement, method="json_schema")

    scripted = await judge_a.ainvoke("Judge it.")
    generated = await judge_b.ainvoke("Judge it.")

    assert scripted == Judgement.model_validate(SCRIPTED)
    assert isinstance(generated, Judgement)


def test_schema_in_prompt_gets_a_valid_default(
    openai_server: FakeOpenAIServer, chat_openai: ChatFactory
) -> None:
    schema = json.dumps(Judgement.model_json_schema(), indent=2)
    prompt = (
        "Judge the answer.\n\nYour response should be in JSON format.\n"
        f"Here is the JSON Schema instance your output must adhere to:\n```\n{schema}\n```\n"
    )

    answer = chat_openai().invoke(prompt)

    assert isinstance(answer.content, str)
    Judgement.model_validate_json(answer.content)


def test_agent_tool_calls_reach_langchain(
    openai_server: FakeOpenAIServer, chat_openai: ChatFactory
) -> None:
    openai_server.script(
        "agent",
        Reply.tool_calls([{"name": "get_weather", "arguments": {"city": "Rome"}}]),
        "It is sunny in Rome.",
    )
    agent = chat_openai("agent").bind_tools([get_weather])

    first = agent.invoke("Weather in Rome?")
    assert isinstance(first, AIMessage)
    assert [(call["name"], call["args"]) for call in first.tool_calls] == [
        ("get_weather", {"city": "Rome"})
    ]
    tool_message = get_weather.invoke(first.tool_calls[0])
    second = agent.invoke([HumanMessage("Weather in Rome?"), first, tool_message])

    assert second.content == "It is sunny in Rome."
    last_messages: list[dict[str, Any]] = openai_server.requests[1].request.messages
    assert [message["role"] for message in last_messages] == ["user", "assistant", "tool"]
    assert openai_server.requests[0].request.tools is not None


def test_transport_errors_reach_langchain(
    openai_server: FakeOpenAIServer, chat_openai: ChatFactory
) -> None:
    openai_server.script("judge", Reply.error(429, retry_after=1.5))

    with pytest.raises(openai.RateLimitError) as caught:
        chat_openai().invoke("hi")

    assert caught.value.response.headers["retry-after"] == "1.5"
