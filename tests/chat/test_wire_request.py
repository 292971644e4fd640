"""The one reading of a chat-completion request: every shape clients send, every fault named."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ragas_boot.chat.wire.openai import (
    ChatCompletionRequest,
    FunctionTool,
    JsonObjectFormat,
    JsonSchemaFormat,
    TextFormat,
    WireError,
    completion_body,
    error_body,
    parse_chat_request,
    parse_json_body,
    unsupported,
)
from ragas_boot.samples.openai_chat import (
    FunctionCall,
    FunctionToolCall,
    ImagePart,
    TextPart,
)

USER = [{"role": "user", "content": "Judge this."}]
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
NESTED_TOOL = {"type": "function", "function": {"name": "verdict", "parameters": SCHEMA}}
FLAT_TOOL = {"type": "function", "name": "verdict", "parameters": SCHEMA}


def parse(**body: Any) -> ChatCompletionRequest:
    return parse_chat_request({"model": "judge", "messages": USER, **body})


def test_a_minimal_request_has_no_format_no_tools_and_no_sampling_options():
    request = parse()

    assert request.model == "judge"
    assert request.prompt == "Judge this."
    assert request.response_format is None
    assert request.functions == ()
    assert (request.tool_mode, request.named_tool) == ("auto", None)
    assert (request.temperature, request.top_p, request.max_tokens, request.seed) == (
        None,
        None,
        None,
        None,
    )
    assert (request.answer_schema, request.json_only, request.forced_tool) == (None, False, None)
    assert request.stream is False
    assert unsupported(request) is None


@pytest.mark.parametrize(
    ("response_format", "kind", "schema"),
    [
        ({"type": "text"}, TextFormat, None),
        ({"type": "json_object"}, JsonObjectFormat, None),
        ({"type": "json_object", "schema": SCHEMA}, JsonObjectFormat, SCHEMA),
        (
            {"type": "json_schema", "json_schema": {"name": "V", "schema": SCHEMA, "strict": True}},
            JsonSchemaFormat,
            SCHEMA,
        ),
        ({"type": "json_schema", "json_schema": {"name": "V"}}, JsonSchemaFormat, None),
    ],
    ids=["text", "json-object", "json-object-schema", "json-schema", "json-schema-no-schema"],
)
def test_every_response_format_shape_is_read(response_format, kind, schema):
    request = parse(response_format=response_format)

    assert isinstance(request.response_format, kind)
    assert request.answer_schema == schema
    assert request.json_only is (kind is not TextFormat)


@pytest.mark.parametrize("tool", [NESTED_TOOL, FLAT_TOOL], ids=["nested", "flat"])
@pytest.mark.parametrize(
    "tool_choice",
    [
        "required",
        "any",
        {"type": "function", "function": {"name": "verdict"}},
        {"type": "function", "name": "verdict"},
    ],
    ids=["required", "any", "named", "named-flat"],
)
def test_every_tool_and_tool_choice_shape_forces_the_same_function(tool, tool_choice):
    request = parse(tools=[tool], tool_choice=tool_choice, response_format={"type": "text"})

    assert request.functions == (FunctionTool(name="verdict", parameters=SCHEMA),)
    assert request.forced_tool == FunctionTool(name="verdict", parameters=SCHEMA)
    assert request.answer_schema == SCHEMA  # the forced call wins over response_format
    assert request.json_only


@pytest.mark.parametrize("tool_choice", [None, "auto", "none"])
def test_tools_not_forced_leave_the_answer_free(tool_choice):
    other = {"type": "function", "function": {"name": "other", "description": "é"}}
    request = parse(tools=[NESTED_TOOL, other], tool_choice=tool_choice)

    assert request.forced_tool is None
    assert request.answer_schema is None
    assert request.functions[1] == FunctionTool(name="other", description="é")


def test_required_among_several_tools_forces_none_of_them():
    other = {"type": "function", "function": {"name": "other"}}

    request = parse(tools=[NESTED_TOOL, other], tool_choice="required")

    assert (request.tool_mode, request.named_tool) == ("required", None)
    assert request.forced_tool is None


def test_messages_keep_roles_parts_and_tool_calls():
    request = parse(
        messages=[
            {"role": "developer", "content": "Be strict."},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "a"},
                    {"type": "image_url", "image_url": {"url": "x"}},
                    {"type": "text", "text": "b"},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}},
                    {"type": "function", "function": {"name": "g", "arguments": {"x": 1}}},
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "found 東京"},
        ]
    )

    developer, user, assistant, tool = request.messages
    assert (developer.role, developer.text) == ("developer", "Be strict.")
    assert isinstance(user.content, list)
    assert isinstance(user.content[0], TextPart)
    assert isinstance(user.content[1], ImagePart)
    assert user.text == "a\nb"
    assert request.prompt == "a\nb"
    assert assistant.content is None
    assert assistant.tool_calls == [
        FunctionToolCall(id="c1", function=FunctionCall(name="f", arguments="{}")),
        FunctionToolCall(function=FunctionCall(name="g", arguments={"x": 1})),
    ]
    assert (tool.tool_call_id, tool.text) == ("c1", "found 東京")


def test_bytes_are_read_straight_from_json_and_the_body_is_kept():
    body = {"model": "judge", "messages": USER, "temperature": 0.5, "extra": {"kept": "é"}}
    raw = json.dumps(body, ensure_ascii=False).encode()

    request = parse_chat_request(raw)

    assert request.model_dump() == parse_chat_request(body).model_dump()
    assert request.body == body
    assert request.temperature == 0.5


def test_max_completion_tokens_wins_and_sampling_options_are_read():
    request = parse(
        max_tokens=50, max_completion_tokens=20, temperature=0, top_p=0.5, seed=7, stop="END"
    )

    assert (request.max_tokens, request.temperature, request.top_p) == (20, 0.0, 0.5)
    assert (request.seed, request.stop) == (7, ("END",))


def test_a_stream_is_read_and_refused_by_every_answerer():
    request = parse(stream=True)

    refusal = unsupported(request)

    assert request.stream is True
    assert refusal is not None
    assert (refusal.status, refusal.param, refusal.code) == (400, "stream", "stream_not_supported")


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"model": ""}, "model"),
        ({"messages": []}, "messages"),
        ({"messages": "hi"}, "messages"),
        ({"messages": ["hi"]}, "messages[0]"),
        ({"messages": [{"role": "wizard", "content": "x"}]}, "messages[0].role"),
        ({"messages": [{"role": "user", "content": 3}]}, "messages[0].content"),
        (
            {"messages": [{"role": "user", "content": [{"text": "x"}]}]},
            "messages[0].content[0].type",
        ),
        (
            {"messages": [{"role": "user", "content": [{"type": "text"}]}]},
            "messages[0].content[0].text",
        ),
        (
            {"messages": [{"role": "assistant", "tool_calls": [{"function": {}}]}]},
            "messages[0].tool_calls[0].function.name",
        ),
        ({"messages": [{"role": "user"}]}, "messages[0].content"),
        ({"messages": [{"content": "x"}]}, "messages[0].role"),
        ({"n": 2}, "n"),
        ({"temperature": 2.5}, "temperature"),
        ({"temperature": "hot"}, "temperature"),
        ({"top_p": 0}, "top_p"),
        ({"max_tokens": 0}, "max_tokens"),
        ({"seed": True}, "seed"),
        ({"stop": ["a", ""]}, "stop[1]"),
        ({"stop": ["a", "b", "c", "d", "e"]}, "stop"),
        ({"stream": "yes"}, "stream"),
        ({"response_format": "json"}, "response_format"),
        ({"response_format": {"type": "yaml"}}, "response_format.type"),
        ({"response_format": {"type": "json_schema"}}, "response_format.json_schema"),
        (
            {"response_format": {"type": "json_schema", "json_schema": {"schema": []}}},
            "response_format.json_schema.schema",
        ),
        ({"tools": {}}, "tools"),
        ({"tools": [{"type": "retrieval"}]}, "tools[0].type"),
        ({"tools": ["f"]}, "tools[0]"),
        ({"tools": [{"type": "function", "function": {}}]}, "tools[0].function.name"),
        ({"tools": [{"name": "f", "parameters": "x"}]}, "tools[0].parameters"),
        ({"tool_choice": "required"}, "tool_choice"),
        ({"tool_choice": 3, "tools": [NESTED_TOOL]}, "tool_choice"),
        ({"tool_choice": {"type": "function", "function": {"name": "x"}}}, "tool_choice"),
    ],
)
def test_malformed_requests_name_the_field(body, param):
    with pytest.raises(WireError) as error:
        parse(**body)

    assert error.value.status == 400
    assert error.value.param == param
    assert error.value.message.startswith(f"{param}: ")


@pytest.mark.parametrize("read", [parse_json_body, parse_chat_request])
@pytest.mark.parametrize("raw", [b"{not json", b"\xff\xfe\xfa", b""])
def test_a_body_that_is_not_json_is_a_400_that_says_so(read, raw):
    with pytest.raises(WireError) as error:
        read(raw)

    assert error.value.status == 400
    assert "not valid JSON" in error.value.message
    assert error.value.param is None


def test_a_body_that_is_not_an_object_is_a_400():
    with pytest.raises(WireError, match="must be a JSON object"):
        parse_chat_request(["model"])  # type: ignore[arg-type]
    with pytest.raises(WireError, match="must be a JSON object"):
        parse_chat_request(b'["model"]')


def test_a_completion_with_tool_calls_finishes_with_them_unless_cut():
    calls = [FunctionToolCall(id="call_1", function=FunctionCall(name="f", arguments="{}"))]

    stopped = completion_body(
        completion_id="c",
        created=1,
        model="m",
        content=None,
        tool_calls=calls,
        prompt_tokens=3,
        completion_tokens=2,
    )
    cut = completion_body(
        completion_id="c",
        created=1,
        model="m",
        content=None,
        tool_calls=calls,
        finish_reason="length",
        prompt_tokens=3,
        completion_tokens=2,
    )

    assert stopped["choices"][0]["finish_reason"] == "tool_calls"
    assert stopped["choices"][0]["message"]["tool_calls"] == [
        {"id": "call_1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    ]
    assert stopped["usage"] == {"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}
    assert cut["choices"][0]["finish_reason"] == "length"


@pytest.mark.parametrize(
    ("status", "kind", "code"),
    [
        (400, "invalid_request_error", None),
        (401, "invalid_request_error", "invalid_api_key"),
        (429, "requests", "rate_limit_exceeded"),
        (503, "server_error", "server_error"),
    ],
)
def test_error_bodies_carry_openai_types_and_codes(status, kind, code):
    body = error_body(status, "no", param="model")

    assert body == {"error": {"message": "no", "type": kind, "param": "model", "code": code}}
