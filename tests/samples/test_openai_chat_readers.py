"""The four readers of the OpenAI chat format agree: one table of shapes, four readings.

Each row is a conversation in OpenAI chat format and what it reads as: the sample messages,
or the error (its place and its words). It is read

1. from a dataset file (JSONL, through ``datasets.load_dataset``),
2. by the importer (``samples.from_openai_messages``),
3. by the test server (a real HTTP request to ``FakeOpenAIServer``; the recorded request's
   messages read into a sample, or the 400 it answers), and
4. by the tool agent (``OpenAIToolAgent`` against the server, the row's last message being
   the model's scripted answer; rows whose last message is not a model's answer have no
   reading here).

docs/data.md tables the same shapes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from ragas_boot.chat import JudgeSpec, judge_specs
from ragas_boot.chat.openai.agent import OpenAIToolAgent
from ragas_boot.datasets import load_dataset
from ragas_boot.errors import DatasetError, JudgeOutputError, SampleValidationError
from ragas_boot.execution.attempts import ModelTurns
from ragas_boot.samples import (
    AIMessage,
    HumanMessage,
    Message,
    ToolCall,
    ToolMessage,
    from_openai_messages,
)
from ragas_boot.samples._base import message_of
from ragas_boot.samples.importers import sample_messages
from ragas_boot.testing import FakeOpenAIServer, Reply

AGENT = "reader-agent"
ROLES = "system, developer, user, assistant, tool, function"
USER = {"role": "user", "content": "Weather in Tokyo?"}
HUMAN = HumanMessage("Weather in Tokyo?")
WEATHER_CALL = {
    "id": "c1",
    "type": "function",
    "function": {"name": "get_weather", "arguments": '{"city": "Tokyo"}'},
}
WEATHER = ToolCall("get_weather", {"city": "Tokyo"}, id="c1")


@dataclass(frozen=True)
class Error:
    """A reading that fails: where (``messages[1].role``) and the message's words."""

    path: str
    words: str


Reading = list[Message] | Error


@dataclass(frozen=True)
class Row:
    id: str
    messages: list[dict[str, Any]]
    reading: Reading
    #: what the agent reads when it differs on purpose (docs/data.md says why)
    agent: Reading | None = field(default=None)


def assistant(**fields: Any) -> dict[str, Any]:
    return {"role": "assistant", **fields}


ROWS = [
    Row(
        "function-call",
        [USER, assistant(content=None, tool_calls=[WEATHER_CALL])],
        [HUMAN, AIMessage("", [WEATHER])],
    ),
    Row(
        "function-call-without-type-arguments-as-object",
        [USER, assistant(tool_calls=[{"id": "c1", "function": {"name": "f", "arguments": {}}}])],
        [HUMAN, AIMessage("", [ToolCall("f", id="c1")])],
    ),
    Row(
        "function-call-with-empty-arguments-and-text",
        [
            USER,
            assistant(
                content="Let me look.",
                tool_calls=[
                    {"id": "c7", "type": "function", "function": {"name": "now", "arguments": ""}}
                ],
            ),
        ],
        [HUMAN, AIMessage("Let me look.", [ToolCall("now", id="c7")])],
    ),
    Row(
        "custom-tool-call",
        [
            USER,
            assistant(
                tool_calls=[
                    {
                        "id": "c2",
                        "type": "custom",
                        "custom": {"name": "shell", "input": "ls -la ☔"},
                    }
                ]
            ),
        ],
        [HUMAN, AIMessage("", [ToolCall("shell", {"input": "ls -la ☔"}, id="c2")])],
    ),
    Row(
        "legacy-function-call",
        [
            USER,
            assistant(content=None, function_call={"name": "lookup", "arguments": '{"q": "x"}'}),
        ],
        [HUMAN, AIMessage("", [ToolCall("lookup", {"q": "x"})])],
    ),
    Row(
        "tool-calls-then-function-call",
        [
            USER,
            assistant(tool_calls=[WEATHER_CALL], function_call={"name": "now", "arguments": "{}"}),
        ],
        [HUMAN, AIMessage("", [WEATHER, ToolCall("now")])],
    ),
    Row(
        "text-and-refusal-parts",
        [
            USER,
            assistant(
                content=[
                    {"type": "text", "text": "Tokyo:"},
                    {"type": "refusal", "refusal": "I can't see the sky."},
                ]
            ),
        ],
        [HUMAN, AIMessage("Tokyo:\nI can't see the sky.")],
    ),
    Row(
        "refusal",
        [USER, assistant(content=None, refusal="I can't help with that.")],
        [HUMAN, AIMessage("I can't help with that.")],
    ),
    Row(
        "refusal-beside-text",
        [USER, assistant(content="22°C", refusal="ignored")],
        [HUMAN, AIMessage("22°C")],
    ),
    Row(
        "provider-keys-and-parts-kept-but-not-read",
        [
            USER,
            assistant(
                content=[
                    {"type": "text", "text": "Here:"},
                    {"type": "video_url", "video_url": {"url": "https://example.org/v.mp4"}},
                ],
                reasoning_content="thinking…",
                annotations=[],
            ),
        ],
        [HUMAN, AIMessage("Here:")],
    ),
    Row(
        "user-parts-images-audio-files-not-read",
        [
            {"role": "system", "content": "Be brief."},
            {"role": "developer", "content": [{"type": "text", "text": "Be kind."}]},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is"},
                    {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA"}},
                    {"type": "input_audio", "input_audio": {"data": "AA", "format": "wav"}},
                    {"type": "file", "file": {"file_id": "file-1"}},
                    {"type": "text", "text": "this?"},
                ],
            },
        ],
        [HumanMessage("What is\nthis?")],
    ),
    Row(
        "tool-result-as-an-array-of-text-parts",
        [
            USER,
            assistant(tool_calls=[WEATHER_CALL]),
            {
                "role": "tool",
                "tool_call_id": "c1",
                "content": [{"type": "text", "text": "22"}, {"type": "text", "text": "°C"}],
            },
        ],
        [HUMAN, AIMessage("", [WEATHER]), ToolMessage("22\n°C", "c1", "get_weather")],
    ),
    Row(
        "legacy-function-result-and-a-failed-tool",
        [
            USER,
            assistant(function_call={"name": "lookup", "arguments": "{}"}),
            {"role": "function", "name": "lookup", "content": None},
            assistant(tool_calls=[WEATHER_CALL]),
            {"role": "tool", "tool_call_id": "c1", "content": "no such city", "is_error": True},
        ],
        [
            HUMAN,
            AIMessage("", [ToolCall("lookup")]),
            ToolMessage("", name="lookup"),
            AIMessage("", [WEATHER]),
            ToolMessage("no such city", "c1", "get_weather", status="error"),
        ],
    ),
    Row(
        "unknown-role",
        [USER, {"role": "robot", "content": "beep"}],
        Error("messages[1].role", f"unknown role 'robot'; expected one of {ROLES}"),
    ),
    Row(
        "role-in-another-case",
        [USER, {"role": "Assistant", "content": "hi"}],
        Error("messages[1].role", f"unknown role 'Assistant'; expected one of {ROLES}"),
    ),
    Row(
        "no-role",
        [USER, {"content": "hi"}],
        Error("messages[1].role", f"required but missing (one of {ROLES})"),
    ),
    Row(
        "unknown-tool-call-type",
        [USER, assistant(tool_calls=[{"id": "c1", "type": "mcp", "mcp": {}}])],
        Error(
            "messages[1].tool_calls[0].type",
            "unsupported tool call type 'mcp'; expected 'function' (the default) or 'custom'",
        ),
    ),
    Row(
        "function-call-without-name",
        [USER, assistant(tool_calls=[{"id": "c1", "function": {"arguments": "{}"}}])],
        Error("messages[1].tool_calls[0].function.name", "required but missing"),
    ),
    Row(
        "custom-call-without-name",
        [USER, assistant(tool_calls=[{"type": "custom", "custom": {"input": "ls"}}])],
        Error("messages[1].tool_calls[0].custom.name", "required but missing"),
    ),
    Row(
        "legacy-function-call-not-an-object",
        [USER, assistant(function_call="lookup")],
        Error("messages[1].function_call", "got str 'lookup'"),
    ),
    Row(
        "content-neither-text-nor-parts",
        [USER, assistant(content=5)],
        Error("messages[1].content", "expected a string or a list of content parts, got int 5"),
    ),
    Row(
        "part-without-type",
        [USER, assistant(content=[{"text": "x"}])],
        Error("messages[1].content[0].type", "a content part needs a string 'type', got None"),
    ),
    Row(
        "tool-result-without-content",
        [USER, assistant(tool_calls=[WEATHER_CALL]), {"role": "tool", "tool_call_id": "c1"}],
        Error("messages[2].content", "required but missing"),
    ),
    Row(
        "arguments-not-json",
        [
            USER,
            assistant(
                tool_calls=[
                    {"id": "c1", "function": {"name": "get_weather", "arguments": "{city: Tokyo"}}
                ]
            ),
        ],
        Error("messages[1].tool_calls[0].function.arguments", "not valid JSON"),
        agent=[HUMAN, AIMessage("", [ToolCall("get_weather", id="c1")])],
    ),
    Row(
        "arguments-not-an-object",
        [USER, assistant(function_call={"name": "lookup", "arguments": "[1, 2]"})],
        Error("messages[1].function_call.arguments", "expected a JSON object, got JSON list"),
        agent=[HUMAN, AIMessage("", [ToolCall("lookup")])],
    ),
]


def read_dataset(messages: list[dict[str, Any]], folder: Path) -> Reading:
    path = folder / "chat.jsonl"
    line = json.dumps({"id": "row", "messages": messages}, ensure_ascii=False)
    path.write_text(line + "\n", encoding="utf-8")
    try:
        (sample,) = load_dataset(path).samples
    except DatasetError as error:
        return Error(error.field, str(error).split(f"field '{error.field}': ", 1)[1])
    return list(sample.user_input_messages or [])


def read_importer(messages: list[dict[str, Any]]) -> Reading:
    try:
        return list(from_openai_messages(messages).user_input_messages or [])
    except SampleValidationError as error:
        return Error(error.field, message_of(error))


def read_server(messages: list[dict[str, Any]], server: FakeOpenAIServer) -> Reading:
    body = {"model": "reader", "messages": messages}
    response = httpx.post(f"{server.url}/chat/completions", json=body, timeout=30)
    if response.status_code != 200:
        assert response.status_code == 400, response.text
        problem = response.json()["error"]
        param = problem["param"]
        return Error(param, problem["message"].removeprefix(f"{param}: "))
    (record,) = server.requests_for("reader")
    try:
        return sample_messages(record.request.chat.messages)
    except SampleValidationError as error:
        return Error(error.field, message_of(error))


async def read_agent(row: Row, server: FakeOpenAIServer, spec: JudgeSpec) -> Reading:
    answer = row.messages[-1]
    server.script(AGENT, Reply.message(answer), "Done.")
    agent = OpenAIToolAgent(spec=spec, turns=ModelTurns.of(spec))
    try:
        reply = await agent([HUMAN])
    except JudgeOutputError as error:
        where, _, words = str(error).split("from the agent model: ", 1)[1].partition(": ")
        return Error(
            where.replace("choices[0].message", f"messages[{len(row.messages) - 1}]"), words
        )
    finally:
        await agent.aclose()
    return [HUMAN, reply.messages[0]]


def answers(row: Row) -> bool:
    """Whether the row's last message is a model's answer (or claims an unknown role)."""
    role = row.messages[-1].get("role")
    return role not in ("system", "developer", "user", "tool", "function")


def same(reading: Reading, expected: Reading) -> bool:
    if isinstance(expected, Error):
        return (
            isinstance(reading, Error)
            and reading.path == expected.path
            and expected.words in reading.words
        )
    return reading == expected


@pytest.mark.asyncio
@pytest.mark.parametrize("row", ROWS, ids=[row.id for row in ROWS])
async def test_every_reader_reads_each_shape_the_same(
    row: Row, tmp_path: Path, openai_server: FakeOpenAIServer, make_settings: Any
) -> None:
    readings = {
        "dataset file": read_dataset(row.messages, tmp_path),
        "importer": read_importer(row.messages),
        "test server": read_server(row.messages, openai_server),
    }
    for reader, reading in readings.items():
        assert same(reading, row.reading), f"{reader} read {reading!r}"
    if isinstance(row.reading, Error):  # the same words everywhere, not only the same place
        assert len({reading.words for reading in readings.values()}) == 1  # type: ignore[union-attr]
    if answers(row):
        spec = judge_specs(make_settings([AGENT]))[0]
        expected = row.agent or row.reading
        if isinstance(expected, list):
            expected = expected[:1] + expected[-1:]
        reading = await read_agent(row, openai_server, spec)
        assert same(reading, expected), f"the tool agent read {reading!r}"


@pytest.mark.asyncio
async def test_the_agent_answers_each_kind_of_call_the_way_it_was_asked(
    openai_server: FakeOpenAIServer, make_settings: Any
) -> None:
    """A custom call and a function call are answered with ``tool`` messages naming their
    ids, a legacy ``function_call`` with a ``function`` message naming the function; the
    turn goes back as the model wrote it, an id given to the call that had none."""
    turn = assistant(
        content=None,
        tool_calls=[
            {"type": "custom", "custom": {"name": "shell", "input": "ls"}},
            {"id": "c1", "function": {"name": "get_weather", "arguments": "{city: Tokyo"}},
        ],
        function_call={"name": "lookup", "arguments": "{}"},
    )
    openai_server.script(AGENT, Reply.message(turn), "Done.")
    spec = judge_specs(make_settings([AGENT]))[0]
    agent = OpenAIToolAgent(spec=spec, turns=ModelTurns.of(spec))
    try:
        reply = await agent([HUMAN])
    finally:
        await agent.aclose()

    sent = openai_server.requests_for(AGENT)[-1].request.messages
    echo, custom, weather, legacy = sent[-4:]
    assert echo["tool_calls"][0] == {
        "id": "call_1_0",
        "type": "custom",
        "custom": {"name": "shell", "input": "ls"},
    }
    assert echo["tool_calls"][1]["function"]["arguments"] == "{city: Tokyo"
    assert echo["function_call"] == {"name": "lookup", "arguments": "{}"}
    assert (custom["role"], custom["tool_call_id"]) == ("tool", "call_1_0")
    assert "unknown tool 'shell'" in custom["content"]
    assert (weather["role"], weather["tool_call_id"]) == ("tool", "c1")
    assert "not valid JSON" in json.loads(weather["content"])["error"]
    assert (legacy["role"], legacy["name"]) == ("function", "lookup")
    assert reply.tool_calls == [
        ToolCall("shell", {"input": "ls"}, id="call_1_0"),
        ToolCall("get_weather", id="c1"),
        ToolCall("lookup"),
    ]
    assert reply.response == "Done."


@pytest.mark.asyncio
async def test_an_answer_that_is_not_the_assistants_is_a_malformed_answer_kept_raw(
    openai_server: FakeOpenAIServer, make_settings: Any
) -> None:
    openai_server.script(AGENT, Reply.message({"role": "tool", "content": "x"}))
    spec = judge_specs(make_settings([AGENT]))[0]
    agent = OpenAIToolAgent(spec=spec, turns=ModelTurns.of(spec))
    try:
        with pytest.raises(JudgeOutputError) as caught:
            await agent([HUMAN])
    finally:
        await agent.aclose()

    assert "choices[0].message.role: expected 'assistant', got 'tool'" in str(caught.value)
    assert json.loads(caught.value.raw_text or "")["choices"][0]["message"]["role"] == "tool"
    assert openai_server.count(AGENT) == 1  # a malformed answer is not retried
