"""Default answers fill the JSON schema a request asks for, wherever the request puts it."""

from __future__ import annotations

import datetime as dt
import json
import uuid
from enum import Enum, IntEnum
from typing import Any, Literal

import openai
import pytest
from pydantic import BaseModel, Field

from ragas_boot.testing import FakeOpenAIServer, minimal_instance
from ragas_boot.testing._schema import find_schema_in_text


class Color(Enum):
    RED = "red"
    GREEN = "green"


class Level(IntEnum):
    LOW = 3
    HIGH = 7


class Address(BaseModel):
    street: str = Field(min_length=3)
    zip_code: str | None


class Tree(BaseModel):
    name: str
    children: list[Tree] = Field(default_factory=list)


class Person(BaseModel):
    """Nested models, lists, enums, optionals, constraints and formats."""

    name: str
    age: int = Field(ge=18)
    ratio: float = Field(gt=0.5, lt=1.0)
    color: Color
    level: Level
    kind: Literal["a", "b"]
    active: bool
    nickname: str | None = None
    address: Address
    previous: list[Address] = Field(min_length=2)
    pinned: list[int] = Field(min_length=3, max_length=3)
    scores: dict[str, int]
    tree: Tree
    maybe_address: Address | None
    pair: tuple[int, str]
    born: dt.date
    seen: dt.datetime
    ident: uuid.UUID
    nothing: None
    payload: Any


def test_generated_instance_validates_against_a_rich_pydantic_schema() -> None:
    instance = minimal_instance(Person.model_json_schema())

    person = Person.model_validate(instance)

    assert person.age == 18
    assert person.color is Color.RED
    assert person.level is Level.LOW
    assert len(person.previous) == 2
    assert person.pinned == [0, 0, 0]
    assert person.nickname is None
    assert "nickname" not in instance  # only required properties are filled
    assert 0.5 < person.ratio < 1.0


def test_generated_instance_validates_against_openai_strict_schema() -> None:
    from openai.lib._pydantic import to_strict_json_schema

    instance = minimal_instance(to_strict_json_schema(Person))

    Person.model_validate(instance)


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "boolean"}, True),
        ({"type": "null"}, None),
        ({"type": "integer", "minimum": 2.5}, 3),
        ({"type": "integer", "exclusiveMinimum": 4}, 5),
        ({"type": "integer", "maximum": -3}, -3),
        ({"type": "number", "minimum": 1.5}, 1.5),
        ({"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 1}, 0.75),
        ({"type": "number", "maximum": -2}, -2),
        ({"type": "integer", "exclusiveMaximum": 0}, -1),
        ({"type": "integer", "minimum": 1, "exclusiveMinimum": True}, 2),
        ({"type": "string", "minLength": 3}, "xxx"),
        ({"type": "string", "enum": ["x", "y"]}, "x"),
        ({"type": "string", "format": "email"}, "user@example.com"),
        ({"const": {"fixed": 1}}, {"fixed": 1}),
        ({"type": ["string", "null"]}, ""),
        ({"anyOf": [{"type": "integer"}, {"type": "string"}]}, 0),
        ({"oneOf": [{"type": "boolean"}, {"type": "string"}]}, True),
        ({"type": "array", "items": {"type": "integer"}}, []),
        (
            {"type": "array", "minItems": 2, "maxItems": 2, "items": {"enum": ["p", "q"]}},
            ["p", "p"],
        ),
        ({"type": "array", "prefixItems": [{"type": "integer"}, {"type": "string"}]}, [0, ""]),
        (
            {
                "type": "object",
                "required": ["known", "extra"],
                "properties": {"known": {"type": "boolean"}},
                "additionalProperties": {"type": "integer", "minimum": 9},
            },
            {"known": True, "extra": 9},
        ),
        (
            {
                "definitions": {
                    "Item": {
                        "type": "object",
                        "required": ["n"],
                        "properties": {"n": {"type": "integer"}},
                    }
                },
                "type": "object",
                "required": ["item"],
                "properties": {"item": {"$ref": "#/definitions/Item"}},
            },
            {"item": {"n": 0}},
        ),
        (
            {
                "allOf": [
                    {"type": "object", "required": ["a"], "properties": {"a": {"type": "string"}}},
                    {"required": ["b"], "properties": {"b": {"type": "integer"}}},
                ]
            },
            {"a": "", "b": 0},
        ),
        ({"properties": {"a": {"type": "integer"}}, "required": ["a"]}, {"a": 0}),
        (True, None),
        ({}, None),
    ],
)
def test_minimal_instance_by_keyword(schema: Any, expected: Any) -> None:
    assert minimal_instance(schema) == expected


def test_recursive_required_reference_ends() -> None:
    schema = {
        "$defs": {
            "Node": {
                "type": "object",
                "required": ["next"],
                "properties": {"next": {"$ref": "#/$defs/Node"}},
            }
        },
        "$ref": "#/$defs/Node",
    }

    instance = minimal_instance(schema)

    depth = 0
    while isinstance(instance, dict):
        instance, depth = instance["next"], depth + 1
    assert 0 < depth < 40


SCHEMA = {"type": "object", "required": ["verdict"], "properties": {"verdict": {"type": "integer"}}}
SCHEMA_TEXT = json.dumps(SCHEMA, indent=2)


@pytest.mark.parametrize(
    "text",
    [
        "Answer in JSON.\nHere is the JSON Schema instance your output must adhere to:\n"
        f"```\n{SCHEMA_TEXT}\n```",
        f"Follow this json schema: {SCHEMA_TEXT} and nothing else",
        f"Use this format:\n```json\n{SCHEMA_TEXT}\n```\n",
        f'Example answer: ```json\n{{"verdict": 1}}\n```\nJSON Schema:\n{SCHEMA_TEXT}',
    ],
    ids=["ragas-format-instructions", "lower-case-words", "json-fence", "example-then-schema"],
)
def test_schema_found_in_text(text: str) -> None:
    assert find_schema_in_text([text]) == SCHEMA


@pytest.mark.parametrize(
    "text",
    [
        "No schema here.",
        'Answer like ```json\n{"verdict": 1}\n```',
        "JSON Schema: {broken",
        "The JSON Schema is below.",
    ],
)
def test_no_schema_in_text(text: str) -> None:
    assert find_schema_in_text([text]) is None


def ask(client: openai.OpenAI, **kwargs: Any) -> Any:
    messages = kwargs.pop("messages", [{"role": "user", "content": "Judge."}])
    return client.chat.completions.create(model="judge", messages=messages, **kwargs)


def test_schema_from_response_format_json_schema(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    response_format = {"type": "json_schema", "json_schema": {"name": "v", "schema": SCHEMA}}

    completion = ask(client, response_format=response_format)

    assert json.loads(completion.choices[0].message.content) == {"verdict": 0}
    assert openai_server.requests[0].request.json_schema == SCHEMA


def test_schema_from_json_object_with_schema(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    completion = ask(
        client, extra_body={"response_format": {"type": "json_object", "schema": SCHEMA}}
    )

    assert json.loads(completion.choices[0].message.content) == {"verdict": 0}


def test_forced_tool_wins_over_response_format(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    parameters = {"type": "object", "required": ["ok"], "properties": {"ok": {"type": "boolean"}}}
    tool = {"type": "function", "function": {"name": "answer", "parameters": parameters}}

    ask(
        client,
        tools=[tool],
        tool_choice={"type": "function", "function": {"name": "answer"}},
        response_format={"type": "json_schema", "json_schema": {"name": "v", "schema": SCHEMA}},
    )

    assert openai_server.requests[0].request.json_schema == parameters


def test_schema_from_system_message_and_content_parts(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    messages = [
        {"role": "system", "content": f"Reply with JSON. JSON Schema: {SCHEMA_TEXT}"},
        {"role": "user", "content": [{"type": "text", "text": "Judge this."}]},
    ]

    completion = ask(client, messages=messages)

    assert json.loads(completion.choices[0].message.content) == {"verdict": 0}
    assert openai_server.requests[0].request.prompt == "Judge this."


def test_json_object_without_schema_and_without_one_in_the_prompt_gets_text(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    completion = ask(client, response_format={"type": "json_object"})

    assert completion.choices[0].message.content == "ok"
    assert openai_server.requests[0].request.json_schema is None
