"""ToolCall and the three message kinds: construction, defaults, errors."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from ragas_boot.errors import SampleValidationError
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage


def test_tool_call_positional_and_keyword_forms_are_the_same_call() -> None:
    positional = ToolCall("get_weather", {"city": "Tokyo"})
    assert positional == ToolCall(name="get_weather", arguments={"city": "Tokyo"})
    assert positional == ToolCall(name="get_weather", args={"city": "Tokyo"})
    assert positional == ToolCall.model_validate({"name": "get_weather", "args": {"city": "Tokyo"}})


@pytest.mark.parametrize("arguments", [None, {}], ids=["none", "empty"])
def test_tool_call_arguments_default_to_empty(arguments: dict[str, Any] | None) -> None:
    assert ToolCall("list_tools").arguments == {}
    assert ToolCall("list_tools", arguments).arguments == {}


def test_tool_call_holds_any_json_value() -> None:
    arguments = {
        "город": "Токио",
        "nested": {"deep": [1, 2.5, {"x": None}], "flag": True},
        "count": -3,
        "ratio": 0.25,
        "none": None,
        "emoji": "☔",
    }
    call = ToolCall("search", arguments, id="call_1")
    assert call.arguments == arguments
    assert call.id == "call_1"
    assert ToolCall.model_validate_json(call.model_dump_json()) == call


def test_tool_call_copies_its_arguments_and_turns_tuples_into_lists() -> None:
    given = {"tags": ("a", "b"), "inner": {"k": [1]}}
    call = ToolCall("tag", given)
    given["inner"]["k"].append(2)  # type: ignore[index]
    assert call.arguments == {"tags": ["a", "b"], "inner": {"k": [1]}}


def test_tool_call_is_frozen() -> None:
    call = ToolCall("a")
    with pytest.raises(ValueError, match="frozen"):
        call.name = "b"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("build", "field", "expected"),
    [
        (lambda: ToolCall(), "name", "required"),
        (lambda: ToolCall(""), "name", "at least 1 character"),
        (lambda: ToolCall(3), "name", "valid string"),  # type: ignore[arg-type]
        (lambda: ToolCall("x", [1]), "arguments", "JSON object"),  # type: ignore[arg-type]
        (lambda: ToolCall("x", {"a": {1, 2}}), "arguments.a", "JSON value"),
        (lambda: ToolCall("x", {"a": [{"b": b"x"}]}), "arguments.a[0].b", "bytes"),
        (lambda: ToolCall("x", {1: "one"}), "arguments", "keys must be strings"),  # type: ignore[dict-item]
        (lambda: ToolCall("x", {"a": 1}, args={"a": 2}), "arguments", "given twice"),
        (lambda: ToolCall("x", argumnts={}), "argumnts", "did you mean 'arguments'"),
    ],
    ids=[
        "missing-name",
        "empty-name",
        "int-name",
        "list-arguments",
        "set-value",
        "nested-bytes",
        "int-key",
        "two-spellings",
        "typo",
    ],
)
def test_invalid_tool_call_names_the_field(build: Any, field: str, expected: str) -> None:
    with pytest.raises(SampleValidationError, match=expected) as caught:
        build()
    assert caught.value.field == field


def test_arguments_nested_too_deeply_are_refused() -> None:
    value: Any = "leaf"
    for _ in range(100):
        value = {"k": value}
    with pytest.raises(SampleValidationError, match="nested deeper than"):
        ToolCall("deep", value)


def test_messages_build_positionally_like_java() -> None:
    call = ToolCall("get_weather", {"city": "Tokyo"})
    assert HumanMessage("hi").content == "hi"
    ai = AIMessage("checking", [call])
    assert (ai.content, ai.tool_calls) == ("checking", [call])
    assert AIMessage("only text").tool_calls == []
    tool = ToolMessage("22°C", "call_1", "get_weather")
    assert (tool.content, tool.tool_call_id, tool.name) == ("22°C", "call_1", "get_weather")
    assert ToolMessage("out").tool_call_id is None


def test_messages_build_by_keyword_and_from_camel_case() -> None:
    assert HumanMessage(content="hi") == HumanMessage("hi")
    assert AIMessage(content="x", tool_calls=[{"name": "a"}]) == AIMessage("x", [ToolCall("a")])
    assert AIMessage.model_validate({"toolCalls": [{"name": "a"}]}).tool_calls == [ToolCall("a")]
    assert ToolMessage(content="o", toolCallId="c").tool_call_id == "c"


def test_type_tags_and_case_insensitive_input() -> None:
    assert [HumanMessage("a").type, AIMessage().type, ToolMessage("t").type] == [
        "human",
        "ai",
        "tool",
    ]
    assert HumanMessage.model_validate({"type": "HUMAN", "content": "a"}).type == "human"


def test_ai_message_without_content_has_empty_text() -> None:
    assert AIMessage().content == ""
    assert AIMessage(None, None) == AIMessage("", [])


@pytest.mark.parametrize(
    ("build", "field", "expected"),
    [
        (lambda: HumanMessage(), "content", "required but missing"),
        (lambda: HumanMessage(None), "content", "required, got None"),  # type: ignore[arg-type]
        (lambda: HumanMessage(5), "content", "valid string, got int 5"),  # type: ignore[arg-type]
        (lambda: ToolMessage(None), "content", "required, got None"),  # type: ignore[arg-type]
        (lambda: AIMessage("x", [{"args": {}}]), "tool_calls[0].name", "required"),
        (lambda: AIMessage("x", "get_weather"), "tool_calls", "valid list"),  # type: ignore[arg-type]
        (lambda: HumanMessage("x", type="ai"), "type", "'human'"),
    ],
    ids=[
        "human-missing",
        "human-none",
        "human-int",
        "tool-none",
        "nested-call",
        "calls-not-list",
        "wrong-tag",
    ],
)
def test_invalid_message_names_the_field(build: Any, field: str, expected: str) -> None:
    with pytest.raises(SampleValidationError, match=expected) as caught:
        build()
    assert caught.value.field == field


def test_validation_error_is_a_value_error_and_never_pydantics() -> None:
    with pytest.raises(ValueError, match="content") as caught:
        HumanMessage.model_validate({"content": None})
    assert type(caught.value) is SampleValidationError
    assert not isinstance(caught.value, BaseModel)


def test_model_validate_json_errors_are_sample_errors() -> None:
    with pytest.raises(SampleValidationError, match="Invalid JSON") as caught:
        ToolCall.model_validate_json("{not json")
    assert caught.value.field == "<ToolCall>"
