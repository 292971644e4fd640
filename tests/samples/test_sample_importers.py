"""Importers: OpenAI chat-completions lists and LangChain messages become samples."""

from __future__ import annotations

import json
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core import messages as lc
from langchain_core.load import dumpd
from openai.types.chat import ChatCompletionMessage

from ragas_boot.errors import SampleValidationError
from ragas_boot.samples import (
    AIMessage,
    HumanMessage,
    Sample,
    ToolCall,
    ToolMessage,
    from_langchain_messages,
    from_openai_messages,
)

WEATHER_ARGS = {"city": "Токио", "options": {"units": ["celsius", None], "days": 3, "hourly": True}}

EXPECTED_CONVERSATION = [
    HumanMessage("Какая погода в Токио? ☔"),
    AIMessage(
        "", [ToolCall("get_weather", WEATHER_ARGS, id="call_1"), ToolCall("now", id="call_2")]
    ),
    ToolMessage("22°C", tool_call_id="call_1", name="get_weather"),
    AIMessage("В Токио 22°C."),
]


def openai_trace() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You are a weather bot."},
        {"role": "user", "content": "Какая погода в Токио? ☔"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {
                        "name": "get_weather",
                        "arguments": json.dumps(WEATHER_ARGS, ensure_ascii=False),
                    },
                },
                {"id": "call_2", "type": "function", "function": {"name": "now", "arguments": ""}},
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "22°C"},
        {"role": "assistant", "content": "В Токио 22°C."},
    ]


def test_openai_trace_becomes_the_conversation() -> None:
    sample = from_openai_messages(openai_trace())
    assert sample.user_input_messages == EXPECTED_CONVERSATION
    assert sample.actual_tool_calls()[0].arguments == WEATHER_ARGS


def test_importer_passes_other_sample_fields_through() -> None:
    reference = [ToolCall("get_weather", {"city": "Токио"})]
    sample = from_openai_messages(openai_trace(), reference_tool_calls=reference, id="s1")
    assert sample.reference_tool_calls == reference
    assert sample.id == "s1"


def test_importer_refuses_a_second_conversation() -> None:
    with pytest.raises(SampleValidationError, match="given twice") as caught:
        from_openai_messages(openai_trace(), userInputMessages=[])
    assert caught.value.field == "userInputMessages"


def test_importer_validates_other_sample_fields() -> None:
    with pytest.raises(SampleValidationError) as caught:
        from_openai_messages([], reference_tool_calls=[{"args": {}}])
    assert caught.value.field == "reference_tool_calls[0].name"


def test_openai_content_parts_keep_the_text() -> None:
    trace = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "What is on"},
                {"type": "image_url", "image_url": {"url": "https://example.org/a.png"}},
                {"type": "text", "text": "this picture?"},
            ],
        },
        {"role": "assistant", "content": [{"type": "refusal", "refusal": "I can't say."}]},
        {"role": "assistant", "content": None, "refusal": "No."},
    ]
    conversation = from_openai_messages(trace).user_input_messages
    assert conversation == [
        HumanMessage("What is on\nthis picture?"),
        AIMessage("I can't say."),
        AIMessage("No."),
    ]


def test_openai_legacy_and_custom_calls() -> None:
    trace = [
        {"role": "assistant", "function_call": {"name": "lookup", "arguments": '{"q": "x"}'}},
        {"role": "function", "name": "lookup", "content": "found"},
        {
            "role": "assistant",
            "tool_calls": [
                {"id": "c9", "type": "custom", "custom": {"name": "shell", "input": "ls -la"}}
            ],
        },
        {"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": "null"}}]},
        {"role": "assistant", "tool_calls": [{"function": {"name": "g", "arguments": {"a": 1}}}]},
    ]
    conversation = from_openai_messages(trace).user_input_messages
    assert conversation == [
        AIMessage("", [ToolCall("lookup", {"q": "x"})]),
        ToolMessage("found", name="lookup"),
        AIMessage("", [ToolCall("shell", {"input": "ls -la"}, id="c9")]),
        AIMessage("", [ToolCall("f")]),
        AIMessage("", [ToolCall("g", {"a": 1})]),
    ]


def test_openai_sdk_objects_are_read() -> None:
    answer = ChatCompletionMessage.model_validate(openai_trace()[2])
    sample = from_openai_messages([{"role": "user", "content": "hi"}, answer])
    assert sample.actual_tool_calls() == [
        ToolCall("get_weather", WEATHER_ARGS, id="call_1"),
        ToolCall("now", id="call_2"),
    ]


@pytest.mark.parametrize(
    ("trace", "field", "expected"),
    [
        ("not a list", "messages", "list of messages"),
        ({"role": "user"}, "messages", "list of messages"),
        ([None], "messages[0]", "OpenAI chat message"),
        ([{"content": "x"}], "messages[0].role", "required but missing"),
        ([{"role": "robot", "content": "x"}], "messages[0].role", "unknown role 'robot'"),
        ([{"role": "user"}], "messages[0].content", "required but missing"),
        (
            [{"role": "user", "content": None}],
            "messages[0].content",
            "list of content parts, got nothing",
        ),
        ([{"role": "user", "content": 5}], "messages[0].content", "string or a list"),
        ([{"role": "user", "content": [{"text": "x"}]}], "messages[0].content[0].type", "'type'"),
        (
            [{"role": "user", "content": [{"type": "text", "text": None}]}],
            "messages[0].content[0].text",
            "valid string, got NoneType None",
        ),
        ([{"role": "tool", "tool_call_id": "c1"}], "messages[0].content", "required"),
        ([{"role": "tool", "content": "x", "tool_call_id": 5}], "messages[0].tool_call_id", "int"),
        (
            [
                {"role": "user", "content": "hi"},
                {"role": "user", "content": "hi"},
                {"role": "user", "content": "hi"},
                {
                    "role": "assistant",
                    "tool_calls": [{"function": {"name": "f", "arguments": "{bad"}}],
                },
            ],
            "messages[3].tool_calls[0].function.arguments",
            "not valid JSON",
        ),
        (
            [
                {
                    "role": "assistant",
                    "tool_calls": [{"function": {"name": "f", "arguments": "[1]"}}],
                }
            ],
            "messages[0].tool_calls[0].function.arguments",
            "expected a JSON object, got JSON list",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"function": {"arguments": "{}"}}]}],
            "messages[0].tool_calls[0].function.name",
            "required but missing",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"function": {"name": ""}}]}],
            "messages[0].tool_calls[0].function.name",
            "at least 1 character",
        ),
        (
            [{"role": "assistant", "tool_calls": [{"type": "web", "function": {"name": "f"}}]}],
            "messages[0].tool_calls[0].type",
            "unsupported tool call type",
        ),
        ([{"role": "assistant", "tool_calls": {"name": "f"}}], "messages[0].tool_calls", "list"),
        ([{"role": "assistant", "tool_calls": ["f"]}], "messages[0].tool_calls[0]", "tool call"),
        (
            [{"role": "assistant", "tool_calls": [{"function": {"name": "f", "arguments": 3}}]}],
            "messages[0].tool_calls[0].function.arguments",
            "JSON string or an object, got int 3",
        ),
    ],
    ids=[
        "string",
        "mapping",
        "none-message",
        "no-role",
        "unknown-role",
        "user-without-content",
        "user-null-content",
        "int-content",
        "part-without-type",
        "part-without-text",
        "tool-without-content",
        "int-call-id",
        "bad-json",
        "json-not-object",
        "call-without-name",
        "empty-name",
        "unknown-call-type",
        "calls-not-list",
        "call-not-mapping",
        "int-arguments",
    ],
)
def test_malformed_openai_trace_names_the_place(trace: Any, field: str, expected: str) -> None:
    with pytest.raises(SampleValidationError, match=expected) as caught:
        from_openai_messages(trace)
    assert caught.value.field == field


def langchain_trace() -> list[lc.BaseMessage]:
    return [
        lc.SystemMessage("You are a weather bot."),
        lc.HumanMessage("Какая погода в Токио? ☔"),
        lc.AIMessage(
            "",
            tool_calls=[
                {"name": "get_weather", "args": WEATHER_ARGS, "id": "call_1"},
                {"name": "now", "args": {}, "id": "call_2"},
            ],
        ),
        lc.ToolMessage("22°C", tool_call_id="call_1"),
        lc.AIMessage([{"type": "text", "text": "В Токио 22°C."}]),
    ]


def test_langchain_messages_become_the_conversation() -> None:
    assert from_langchain_messages(langchain_trace()).user_input_messages == EXPECTED_CONVERSATION


@pytest.mark.parametrize(
    "serialise",
    [dumpd, lc.message_to_dict, lambda message: message.model_dump()],
    ids=["dumpd", "message_to_dict", "model_dump"],
)
def test_langchain_serialised_dicts_are_read(serialise: Any) -> None:
    trace = [serialise(message) for message in langchain_trace()]
    assert from_langchain_messages(trace).user_input_messages == EXPECTED_CONVERSATION


def test_langchain_chunks_chat_and_function_messages() -> None:
    trace = [
        lc.ChatMessage(role="user", content="hi"),
        lc.AIMessageChunk(content="", tool_calls=[{"name": "f", "args": {"a": [1]}, "id": "x"}]),
        lc.FunctionMessage(name="f", content="done"),
        lc.ChatMessage(role="system", content="ignored"),
        {"role": "assistant", "content": "bye"},
    ]
    assert from_langchain_messages(trace).user_input_messages == [
        HumanMessage("hi"),
        AIMessage("", [ToolCall("f", {"a": [1]}, id="x")]),
        ToolMessage("done", name="f"),
        AIMessage("bye"),
    ]


def test_langchain_duck_typed_objects_need_no_langchain() -> None:
    legacy_calls = [{"id": "c1", "function": {"name": "f", "arguments": '{"k": "v"}'}}]
    trace = [
        SimpleNamespace(type="human", content="hi"),
        SimpleNamespace(
            type="ai", content=None, tool_calls=[], additional_kwargs={"tool_calls": legacy_calls}
        ),
        SimpleNamespace(type="tool", content=["ok"], tool_call_id="c1", name=None),
    ]
    assert from_langchain_messages(trace).user_input_messages == [
        HumanMessage("hi"),
        AIMessage("", [ToolCall("f", {"k": "v"}, id="c1")]),
        ToolMessage("ok", tool_call_id="c1", name="f"),
    ]


@pytest.mark.parametrize(
    ("trace", "field", "expected"),
    [
        (lc.HumanMessage("hi"), "messages", "list of messages"),
        ([42], "messages[0]", "LangChain message"),
        ([SimpleNamespace(type="robot", content="x")], "messages[0].type", "unknown message type"),
        ([{"content": "x"}], "messages[0].role", "unknown message type"),
        ([SimpleNamespace(type="human", content=None)], "messages[0].content", "required"),
        (
            [SimpleNamespace(type="ai", content="", tool_calls=[{"args": {}}])],
            "messages[0].tool_calls[0].name",
            "expected a string",
        ),
        (
            [SimpleNamespace(type="ai", content="", tool_calls=[{"name": "f", "args": [1]}])],
            "messages[0].tool_calls[0].args",
            "JSON object",
        ),
        (
            [SimpleNamespace(type="ai", content="", tool_calls=[{"name": "f", "args": "{x"}])],
            "messages[0].tool_calls[0].args",
            "not valid JSON",
        ),
        (
            [{"lc": 1, "type": "constructor", "id": "AIMessage", "kwargs": {}}],
            "messages[0].id",
            "class path",
        ),
        (
            [{"lc": 1, "type": "constructor", "id": ["x", "HumanMessage"], "kwargs": None}],
            "messages[0].kwargs",
            "message fields",
        ),
        ([{"type": "chat", "role": "robot", "content": "x"}], "messages[0].role", "unknown"),
    ],
    ids=[
        "single-message",
        "int",
        "unknown-type",
        "no-type",
        "no-content",
        "call-without-name",
        "args-list",
        "args-bad-json",
        "bad-class-path",
        "no-kwargs",
        "chat-unknown-role",
    ],
)
def test_malformed_langchain_trace_names_the_place(trace: Any, field: str, expected: str) -> None:
    with pytest.raises(SampleValidationError, match=expected) as caught:
        from_langchain_messages(trace)
    assert caught.value.field == field


# --- any junk gives a sample or a SampleValidationError, never another exception ------------

KEYS = [
    "role",
    "type",
    "content",
    "tool_calls",
    "function",
    "name",
    "arguments",
    "args",
    "id",
    "tool_call_id",
    "refusal",
    "function_call",
    "custom",
    "input",
    "text",
    "data",
    "kwargs",
    "lc",
    "additional_kwargs",
]
ROLES = ["system", "developer", "user", "assistant", "tool", "function", "human", "ai", "chat"]
BAD_JSON = ["", " ", "{", "[1,", "null", "{}", "[]", '"x"', "1e999999", "{'a': 1}", "[" * 3000]

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=8)
    | st.binary(max_size=4)
    | st.sampled_from(ROLES + BAD_JSON + ["text", "image_url", "constructor", "HumanMessage"])
)
junk = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.tuples(children, children)
        | st.dictionaries(
            st.sampled_from(KEYS) | st.integers() | st.text(max_size=3), children, max_size=5
        )
        | st.builds(SimpleNamespace, type=children, content=children, tool_calls=children)
    ),
    max_leaves=25,
)
message_like = st.fixed_dictionaries(
    {"role": st.sampled_from(ROLES) | junk},
    optional={key: junk for key in KEYS if key != "role"},
)
traces = st.lists(message_like | junk, max_size=5) | junk


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace=traces)
def test_openai_junk_never_raises_anything_else(trace: Any) -> None:
    outcome: Any
    try:
        outcome = from_openai_messages(trace)
    except SampleValidationError as error:
        outcome = error
    assert isinstance(outcome, Sample | SampleValidationError)


langchain_like = st.builds(
    SimpleNamespace,
    type=st.sampled_from(ROLES) | junk,
    content=junk,
    tool_calls=st.lists(
        st.fixed_dictionaries({}, optional={"name": junk, "args": junk, "id": junk}), max_size=3
    )
    | junk,
    tool_call_id=junk,
    name=junk,
    role=junk,
    additional_kwargs=junk,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trace=st.lists(langchain_like | message_like | junk, max_size=5) | junk)
def test_langchain_junk_never_raises_anything_else(trace: Any) -> None:
    outcome: Any
    try:
        outcome = from_langchain_messages(trace)
    except SampleValidationError as error:
        outcome = error
    assert isinstance(outcome, Sample | SampleValidationError)


DEFECTS = [
    ("role", "robot"),
    ("role", None),
    ("content", 3.5),
    ("tool_calls", "get_weather"),
    ("tool_calls", [{"function": {"name": "f", "arguments": "{oops"}}]),
    ("tool_calls", [{"function": {"name": None}}]),
    ("tool_calls", [{"function": {"name": "f", "arguments": "[1, 2]"}}]),
    ("tool_calls", [{"type": "other"}]),
    ("tool_call_id", ["x"]),
]


@settings(max_examples=200, deadline=None)
@given(
    position=st.integers(min_value=0, max_value=len(openai_trace()) - 1),
    defect=st.sampled_from(DEFECTS),
)
def test_a_defect_anywhere_in_a_valid_trace_is_reported_there(
    position: int, defect: tuple[str, Any]
) -> None:
    trace = openai_trace()
    key, value = defect
    if key == "tool_calls":
        trace[position]["role"] = "assistant"
    if key == "tool_call_id":
        trace[position]["role"] = "tool"
        trace[position]["content"] = "x"
    if key == "content" and trace[position]["role"] == "system":
        trace[position]["role"] = "user"
    trace[position][key] = value
    with pytest.raises(SampleValidationError) as caught:
        from_openai_messages(trace)
    assert caught.value.field.startswith(f"messages[{position}].{key}")
