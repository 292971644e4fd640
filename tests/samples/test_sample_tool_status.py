"""The error status of tool results: kept by both importers, and linked to the calls."""

from __future__ import annotations

from typing import Any

import pytest
from langchain_core import messages as lc
from langchain_core.load import dumpd

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


def openai_trace(**tool_fields: Any) -> list[dict[str, Any]]:
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    return [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "c1", "content": "boom", **tool_fields},
    ]


@pytest.mark.parametrize(
    ("fields", "status"),
    [
        ({}, "success"),
        ({"status": "error"}, "error"),
        ({"status": "ERROR"}, "error"),
        ({"status": "success"}, "success"),
        ({"is_error": True}, "error"),
        ({"is_error": False}, "success"),
        ({"status": "error", "is_error": True}, "error"),
    ],
)
def test_openai_tool_messages_keep_an_error_status(fields: dict[str, Any], status: str) -> None:
    sample = from_openai_messages(openai_trace(**fields))
    message = sample.user_input_messages[-1]  # type: ignore[index]
    assert isinstance(message, ToolMessage)
    assert (message.status, message.name) == (status, "f")
    assert sample.actual_tool_call_results() == [message]


@pytest.mark.parametrize(
    ("fields", "field", "expected"),
    [
        (
            {"status": "crashed"},
            "messages[2].status",
            "should be 'success' or 'error', got str 'crashed'",
        ),
        ({"status": 1}, "messages[2].status", "should be 'success' or 'error', got int 1"),
        ({"is_error": "yes"}, "messages[2].is_error", "valid boolean, got str 'yes'"),
        (
            {"status": "success", "is_error": True},
            "messages[2].is_error",
            "says True but status says 'success'",
        ),
    ],
)
def test_bad_statuses_name_the_field(fields: dict[str, Any], field: str, expected: str) -> None:
    with pytest.raises(SampleValidationError) as caught:
        from_openai_messages(openai_trace(**fields))
    assert caught.value.field == field
    assert expected in str(caught.value)


def langchain_trace() -> list[lc.BaseMessage]:
    return [
        lc.HumanMessage("Weather in Atlantis?"),
        lc.AIMessage("", tool_calls=[{"name": "get_weather", "args": {"c": "A"}, "id": "c1"}]),
        lc.ToolMessage("no such city", tool_call_id="c1", status="error"),
        lc.AIMessage("", tool_calls=[{"name": "get_weather", "args": {"c": "B"}, "id": "c2"}]),
        lc.ToolMessage("sunny", tool_call_id="c2"),
    ]


@pytest.mark.parametrize(
    "serialise",
    [lambda message: message, dumpd, lc.message_to_dict, lambda message: message.model_dump()],
    ids=["objects", "dumpd", "message_to_dict", "model_dump"],
)
def test_langchain_tool_messages_keep_their_status(serialise: Any) -> None:
    trace = [serialise(message) for message in langchain_trace()]
    sample = from_langchain_messages(trace)
    statuses = [m.status for m in sample.user_input_messages or [] if isinstance(m, ToolMessage)]
    assert statuses == ["error", "success"]
    results = sample.actual_tool_call_results()
    assert [result.failed if result else None for result in results] == [True, False]


def test_results_pair_positionally_without_ids_and_stop_at_the_next_turn() -> None:
    sample = Sample(
        user_input_messages=[
            HumanMessage("go"),
            AIMessage("", [ToolCall("a"), ToolCall("b"), ToolCall("c", id="k")]),
            ToolMessage("for a", status="error"),
            ToolMessage("for c", tool_call_id="k"),
            ToolMessage("for b"),
            AIMessage("", [ToolCall("d")]),
            HumanMessage("next"),
            ToolMessage("stray, after a human turn"),
        ]
    )
    results = sample.actual_tool_call_results()
    assert [result.content if result else None for result in results] == [
        "for a",
        "for b",
        "for c",
        None,
    ]


def test_no_conversation_means_no_results() -> None:
    assert Sample(tool_calls=[ToolCall("a")]).actual_tool_call_results() == [None]
    assert Sample().actual_tool_call_results() == []
