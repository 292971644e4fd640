"""What the local model makes of an OpenAI request, and the bounds it puts on a schema.

Pure functions: these run without the ``[local]`` extra.
"""

from __future__ import annotations

import pytest

from ragas_boot.chat.local.decoders import bound_schema
from ragas_boot.chat.local.plan import ChatPlan, Generation, completion_for, plan_chat
from ragas_boot.chat.wire.openai import WireError, parse_chat_request

MODELS = ("smollm2-135m",)
USER = [{"role": "user", "content": "Judge this."}]
SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


def _plan(**body: object) -> ChatPlan:
    request = parse_chat_request({"model": "smollm2-135m", "messages": USER, **body})
    return plan_chat(request, models=MODELS)


def test_max_completion_tokens_wins_over_the_older_max_tokens():
    assert _plan(max_tokens=50).max_tokens == 50
    assert _plan(max_tokens=50, max_completion_tokens=20).max_tokens == 20
    assert _plan().max_tokens is None


def test_sampling_options_are_read():
    plan = _plan(temperature=0, top_p=0.5, seed=7, stop="END", frequency_penalty=0.2)

    assert (plan.temperature, plan.top_p, plan.seed, plan.stop) == (0.0, 0.5, 7, ("END",))
    assert plan.frequency_penalty == 0.2


@pytest.mark.parametrize(
    ("response_format", "schema"),
    [
        (None, None),
        ({"type": "text"}, None),
        ({"type": "json_object"}, {"type": "object"}),
        ({"type": "json_object", "schema": SCHEMA}, SCHEMA),
        ({"type": "json_schema", "json_schema": {"name": "V", "schema": SCHEMA}}, SCHEMA),
    ],
)
def test_response_formats_become_the_schema_to_constrain_to(response_format, schema):
    plan = _plan(response_format=response_format)

    assert plan.schema == schema
    assert plan.json_only is (schema is not None)
    assert plan.tool_name is None


def test_a_forced_tool_constrains_to_its_parameters():
    tools = [
        {"type": "function", "function": {"name": "verdict", "parameters": SCHEMA}},
        {"type": "function", "function": {"name": "other"}},
    ]

    named = _plan(tools=tools, tool_choice={"type": "function", "function": {"name": "verdict"}})
    required = _plan(tools=tools[:1], tool_choice="required")
    auto = _plan(tools=tools, tool_choice="auto")

    assert (named.tool_name, named.schema) == ("verdict", SCHEMA)
    assert (required.tool_name, required.schema) == ("verdict", SCHEMA)
    assert (auto.tool_name, auto.schema) == (None, None)


def test_messages_are_flattened_to_text_for_the_chat_template():
    plan = _plan(
        messages=[
            {"role": "developer", "content": "Be strict."},
            {
                "role": "user",
                "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [{"function": {"name": "search", "arguments": '{"q": 1}'}}],
            },
            {"role": "tool", "content": "found"},
        ]
    )

    assert plan.messages == [
        {"role": "system", "content": "Be strict."},
        {"role": "user", "content": "a\nb"},
        {"role": "assistant", "content": '[tool call search: {"q": 1}]'},
        {"role": "tool", "content": "found"},
    ]


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"messages": [{"role": "wizard", "content": "x"}]}, "messages[0].role"),
        (
            {
                "messages": [
                    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": "x"}}]}
                ]
            },
            "messages[0].content[0]",
        ),
        ({"max_tokens": 0}, "max_tokens"),
        ({"top_p": 0}, "top_p"),
        ({"n": 2}, "n"),
        ({"stop": ["a", "b", "c", "d", "e"]}, "stop"),
        ({"tools": [{"type": "retrieval"}]}, "tools[0].type"),
        (
            {"tools": [], "tool_choice": {"type": "function", "function": {"name": "x"}}},
            "tool_choice",
        ),
        ({"response_format": {"type": "json_schema"}}, "response_format.json_schema"),
    ],
)
def test_malformed_requests_name_the_field(body, param):
    with pytest.raises(WireError) as error:
        _plan(**body)

    assert error.value.status == 400
    assert error.value.param == param


def test_a_tool_answer_is_sent_as_a_tool_call():
    plan = _plan(
        tools=[{"type": "function", "function": {"name": "verdict", "parameters": SCHEMA}}],
        tool_choice="required",
    )
    generation = Generation(
        text='{"ok": true}',
        finish_reason="stop",
        prompt_tokens=9,
        completion_tokens=4,
        started=1.0,
        finished=1.5,
    )

    body = completion_for(plan, generation)

    choice = body["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    assert choice["message"]["tool_calls"][0]["function"] == {
        "name": "verdict",
        "arguments": '{"ok": true}',
    }
    assert body["usage"] == {"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13}


def test_bounds_reach_every_free_string_and_open_array_but_nothing_else():
    schema = {
        "$defs": {"Item": {"type": "object", "properties": {"name": {"type": "string"}}}},
        "type": "object",
        "properties": {
            "reason": {"type": "string"},
            "short": {"type": "string", "maxLength": 10},
            "kind": {"type": "string", "enum": ["a", "b"]},
            "maybe": {"anyOf": [{"type": "string"}, {"type": "null"}]},
            "items": {"type": "array", "items": {"$ref": "#/$defs/Item"}},
            "pinned": {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2},
        },
    }

    bounded = bound_schema(schema, max_string_length=300, max_array_items=8)

    properties = bounded["properties"]
    assert properties["reason"]["maxLength"] == 300
    assert properties["short"]["maxLength"] == 10
    assert "maxLength" not in properties["kind"]
    assert properties["maybe"]["anyOf"][0]["maxLength"] == 300
    assert properties["items"]["maxItems"] == 8
    assert properties["pinned"]["maxItems"] == 2
    assert properties["pinned"]["items"]["maxLength"] == 300
    assert bounded["$defs"]["Item"]["properties"]["name"]["maxLength"] == 300
    assert list(properties) == list(schema["properties"])  # key order kept (it is the grammar's)
    assert bound_schema(schema, max_string_length=0, max_array_items=0) == schema
