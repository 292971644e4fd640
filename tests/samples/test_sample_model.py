"""Sample: optional fields, camelCase input, error paths, actual_tool_calls, schema."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ragas_boot.errors import SampleValidationError
from ragas_boot.samples import AIMessage, HumanMessage, Sample, ToolCall, ToolMessage

FIELDS = [
    "user_input",
    "response",
    "reference",
    "retrieved_contexts",
    "reference_contexts",
    "rubrics",
    "user_input_messages",
    "reference_topics",
    "tool_calls",
    "reference_tool_calls",
    "expectations",
    "scenario",
    "agent_run",
    "labels",
    "metadata",
    "id",
]


def test_every_field_is_optional_and_absent_is_not_empty() -> None:
    sample = Sample()
    assert sample.user_input_messages is None
    assert sample.reference_tool_calls is None
    assert sample.metadata == {}
    assert Sample(reference_tool_calls=[]).reference_tool_calls == []


def test_the_fields_the_port_promises() -> None:
    assert list(Sample.model_fields) == FIELDS


def test_java_era_json_loads_with_camel_case_names() -> None:
    java = {
        "userInput": "Book a flight to Paris",
        "retrievedContexts": ["ctx"],
        "userInputMessages": [
            {"type": "human", "content": "Мне нужен рейс в Париж"},
            {
                "type": "ai",
                "content": "Ищу",
                "toolCalls": [{"name": "search_flights", "arguments": {"destination": "Париж"}}],
            },
            {"type": "tool", "content": "AF123"},
        ],
        "referenceTopics": ["flights"],
        "toolCalls": [{"name": "search_flights", "arguments": {"destination": "Париж"}}],
        "referenceToolCalls": [{"name": "search_flights", "arguments": None}],
        "rubric": {"score1_description": "wrong", "score5_description": "exact"},
        "metadata": {"source": "java"},
    }
    sample = Sample.model_validate(java)
    assert sample.user_input == "Book a flight to Paris"
    assert sample.retrieved_contexts == ["ctx"]
    assert isinstance(sample.user_input_messages, list)
    assert [type(m) for m in sample.user_input_messages] == [HumanMessage, AIMessage, ToolMessage]
    assert sample.reference_topics == ["flights"]
    assert sample.tool_calls == [ToolCall("search_flights", {"destination": "Париж"})]
    assert sample.reference_tool_calls == [ToolCall("search_flights")]
    dumped = json.loads(sample.model_dump_json())
    assert sample.rubrics == {"score1_description": "wrong", "score5_description": "exact"}
    assert set(dumped) == set(FIELDS)  # serialised by field name; Java's rubric as rubrics
    assert Sample.model_validate(dumped) == sample


def test_constructor_accepts_camel_case_keywords_too() -> None:
    sample = Sample(referenceToolCalls=[ToolCall("a")], userInput="hi")
    assert sample.reference_tool_calls == [ToolCall("a")]
    assert sample.user_input == "hi"


def test_numeric_ids_are_kept_as_strings() -> None:
    assert Sample(id="s-1").id == "s-1"
    assert Sample.model_validate({"id": 7}).id == "7"


@pytest.mark.parametrize(
    ("data", "field", "expected"),
    [
        (
            {
                "user_input_messages": [
                    {"type": "human", "content": "a"},
                    {"type": "ai"},
                    {"type": "human"},
                ]
            },
            "user_input_messages[2].content",
            "required but missing",
        ),
        (
            {"userInputMessages": [{"type": "human", "content": None}]},
            "userInputMessages[0].content",  # named as the input spelled it
            "required, got None",
        ),
        (
            {"user_input_messages": [{"type": "robot", "content": "x"}]},
            "user_input_messages[0]",
            "'human', 'ai' or 'tool'",
        ),
        ({"user_input_messages": [{"content": "x"}]}, "user_input_messages[0]", "'type'"),
        ({"reference_tool_calls": [{"arguments": {}}]}, "reference_tool_calls[0].name", "required"),
        (
            {"reference_tool_calls": [{"name": "x", "arguments": {"a": {"b": {3}}}}]},
            "reference_tool_calls[0].arguments.a.b",
            "JSON value",
        ),
        (
            {"user_input_messages": [{"type": "ai", "tool_calls": [{"name": "f", "args": 3}]}]},
            "user_input_messages[0].tool_calls[0].args",
            "JSON object",
        ),
        ({"reference_topics": "flights"}, "reference_topics", "valid list"),
        ({"retrieved_contexts": [1]}, "retrieved_contexts[0]", "valid string"),
        ({"referenceToolCals": []}, "referenceToolCals", "did you mean 'referenceToolCalls'"),
        ({"tool_calls": [], "toolCalls": []}, "tool_calls", "given twice"),
        (
            {"userInputMessages": [{"type": "ai", "tool_cals": []}]},
            "userInputMessages[0].tool_cals",
            "did you mean 'tool_calls'",
        ),
        ({"metadata": [1]}, "metadata", "valid dictionary"),
    ],
    ids=[
        "message-missing-content",
        "message-null-content",
        "unknown-type",
        "no-type",
        "call-without-name",
        "nested-non-json",
        "args-not-object",
        "topics-not-list",
        "context-not-string",
        "typo",
        "two-spellings",
        "nested-typo",
        "metadata-not-dict",
    ],
)
def test_invalid_sample_names_the_field_path(
    data: dict[str, Any], field: str, expected: str
) -> None:
    with pytest.raises(SampleValidationError, match=expected) as caught:
        Sample.model_validate(data)
    assert caught.value.field == field
    with pytest.raises(SampleValidationError) as again:
        Sample(**data)
    assert again.value.field == field


def test_several_problems_are_all_reported() -> None:
    with pytest.raises(SampleValidationError, match=r"and 1 more: user_input_messages\[0\]\.x"):
        Sample.model_validate({"user_input_messages": [{"type": "ai", "content": 3, "x": 1}]})


@pytest.mark.parametrize("data", [[1], "sample", None, 3])
def test_non_mapping_input_is_a_sample_error(data: Any) -> None:
    with pytest.raises(SampleValidationError, match="valid dictionary") as caught:
        Sample.model_validate(data)
    assert caught.value.field == "<Sample>"


def test_actual_tool_calls_prefers_tool_calls() -> None:
    listed = [ToolCall("listed")]
    messages = [HumanMessage("hi"), AIMessage("", [ToolCall("from_message")])]
    assert Sample(tool_calls=listed, user_input_messages=messages).actual_tool_calls() == listed


def test_actual_tool_calls_falls_back_to_ai_messages_in_order() -> None:
    first, second, third = ToolCall("a", {"x": 1}), ToolCall("b"), ToolCall("a", {"x": 2})
    messages = [
        HumanMessage("hi"),
        AIMessage("", [first, second]),
        ToolMessage("ok"),
        AIMessage("more", [third]),
        AIMessage("done"),
    ]
    expected = [first, second, third]
    assert Sample(user_input_messages=messages).actual_tool_calls() == expected
    assert Sample(tool_calls=[], user_input_messages=messages).actual_tool_calls() == expected


def test_actual_tool_calls_is_empty_without_any_source() -> None:
    assert Sample().actual_tool_calls() == []
    assert Sample(user_input_messages=[HumanMessage("hi")]).actual_tool_calls() == []


def test_json_schema_describes_every_field() -> None:
    schema = Sample.model_json_schema()
    assert set(schema["properties"]) == set(FIELDS)
    for name, prop in schema["properties"].items():
        assert prop.get("description"), name
    for definition in schema["$defs"].values():
        for name, prop in definition.get("properties", {}).items():  # enums have none
            assert prop.get("description"), name


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(),
    lambda children: (
        st.lists(children, max_size=3) | st.dictionaries(st.text(max_size=5), children, max_size=3)
    ),
    max_leaves=10,
)
junk = st.recursive(
    json_values | st.binary(max_size=3) | st.sets(st.integers(), max_size=2),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["type", "content", "name", "arguments", "args", "tool_calls", "id"])
            | st.text(max_size=4),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.dictionaries(
        st.sampled_from([*FIELDS, "userInputMessages", "referenceToolCalls", "rubric", "other"]),
        junk,
    )
)
def test_any_input_gives_a_sample_or_a_sample_error(data: dict[str, Any]) -> None:
    problem = None
    try:
        Sample.model_validate(data)
    except SampleValidationError as error:
        problem = error
    assert problem is None or problem.field


@pytest.mark.parametrize(
    ("labels", "field", "message"),
    [
        ({"agent_goal_accuracy": {}}, "labels.agent_goal_accuracy", "needs a verdict, a score"),
        ({"m": [{"score": 2}]}, "labels.m[0].score", "less than or equal to 1"),
        ({"m": {"verdict": "maybe"}}, "labels.m.verdict", "expected pass or fail"),
        ({"m": []}, "labels.m", "at least one label"),
        (
            {"m": [{"annotator": "a", "verdict": "pass"}, {"annotator": "a", "verdict": "fail"}]},
            "labels.m",
            "annotator names must differ",
        ),
        ({"m": {"verdict": "pass", "verdit": 1}}, "labels.m.verdit", "did you mean 'verdict'"),
    ],
)
def test_bad_labels_name_their_path(labels, field, message) -> None:
    with pytest.raises(SampleValidationError) as caught:
        Sample(labels=labels)
    assert caught.value.field == field
    assert message in str(caught.value)


def test_labels_keep_one_or_several_annotators() -> None:
    sample = Sample(
        labels={
            "agent_goal_accuracy": {"verdict": "FAILED", "note": "no refund made"},
            "topic_adherence": [{"annotator": "ana", "off_topic": []}, {"verdict": True}],
        }
    )
    assert sample.labels_for("agent_goal_accuracy")[0].verdict == "fail"
    assert [label.annotator for label in sample.labels_for("topic_adherence")] == ["ana", None]
    assert Sample.model_validate_json(sample.model_dump_json()) == sample
