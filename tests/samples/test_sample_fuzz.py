"""Fuzzing what users feed in: JSON documents, constructor arguments and mutated traces.

Whatever the input, the outcome is a sample or a ``SampleValidationError`` whose ``field``
names the place (and shows in the message); never another exception type. The junk tests in
test_sample_model.py and test_sample_importers.py check the exception type on random
structures; these check the field the error names, on JSON text, on each constructor, and on
valid traces with one part broken.
"""

from __future__ import annotations

import copy
import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

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

FIELDS = list(Sample.model_fields)
CAMEL = ["userInput", "retrievedContexts", "userInputMessages", "referenceTopics", "toolCalls"]
MESSAGE_KEYS = ["type", "content", "tool_calls", "tool_call_id", "name", "id", "arguments"]
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=6)
    | st.sampled_from(["human", "ai", "tool", "user", "assistant", "", "{", "[]"])
)
json_like = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(st.sampled_from(MESSAGE_KEYS) | st.text(max_size=3), children, max_size=4)
    ),
    max_leaves=15,
)
python_junk = (
    json_like
    | st.binary(max_size=3)
    | st.sets(st.integers(), max_size=2)
    | st.tuples(json_like, json_like)
)

_INDEX = re.compile(r"\[(\d+)\]")


def named_field(error: SampleValidationError) -> str:
    """The error's field, checked to be named and shown in the message."""
    assert error.field, error
    assert error.field in str(error), (error.field, str(error))
    return error.field


def message_index(path: str) -> int:
    """The message a ``messages[3].content``-like path points at."""
    found = _INDEX.search(path)
    assert found, path
    return int(found.group(1))


def top_field(path: str) -> str:
    return re.split(r"[.\[]", path, maxsplit=1)[0]


# --- JSON text --------------------------------------------------------------------------


json_documents = st.one_of(
    st.dictionaries(st.sampled_from([*FIELDS, *CAMEL, "rubric", "other"]), json_like).map(
        json.dumps
    ),
    json_like.map(json.dumps),
    st.text(max_size=30),
    st.binary(max_size=30),
)


@FUZZ
@given(document=json_documents, cut=st.integers(min_value=0, max_value=200))
def test_json_text_gives_a_sample_or_names_the_field(document: str | bytes, cut: int) -> None:
    for text in (document, document[:cut]):  # whole, and cut off mid-document
        try:
            sample = Sample.model_validate_json(text)
        except SampleValidationError as error:
            field = named_field(error)
            # The document as a whole, one of its fields, or the unknown key it has (which
            # may itself hold a "." or "[": {".": 0} names the key ".").
            assert (
                field == "<Sample>"
                or field in keys(text)
                or top_field(field) in [*FIELDS, *CAMEL, *keys(text)]
            )
        else:
            assert isinstance(sample, Sample)


def keys(text: str | bytes) -> list[str]:
    try:
        document = json.loads(text)
    except ValueError:
        return []
    return list(document) if isinstance(document, dict) else []


@FUZZ
@given(data=st.dictionaries(st.sampled_from([*FIELDS, *CAMEL]), json_like, max_size=4))
def test_a_loaded_sample_dumps_and_loads_back_unchanged(data: dict[str, Any]) -> None:
    try:
        sample = Sample.model_validate(data)
    except SampleValidationError as error:
        named_field(error)
        return
    assert Sample.model_validate_json(sample.model_dump_json()) == sample
    assert Sample.model_validate(sample.model_dump()) == sample


# --- constructors ---------------------------------------------------------------------------


def error_of(action: Any) -> SampleValidationError | None:
    """The ``SampleValidationError`` ``action()`` raises, or None; any other error escapes."""
    try:
        action()
    except SampleValidationError as error:
        return error
    return None


def built_or_error(build: Any, *parameters: str) -> None:
    """``build()`` gives a model, or an error naming one of ``parameters`` (or inside it)."""
    error = error_of(build)
    if error is not None:
        assert top_field(named_field(error)) in parameters, (error.field, parameters)


@FUZZ
@given(name=python_junk, arguments=python_junk, call_id=python_junk)
def test_tool_call_arguments_name_the_bad_one(name: Any, arguments: Any, call_id: Any) -> None:
    built_or_error(lambda: ToolCall(name, arguments, id=call_id), "name", "arguments", "id")
    built_or_error(lambda: ToolCall(name=name, args=arguments), "name", "args", "arguments")


@FUZZ
@given(content=python_junk, calls=python_junk, extra=python_junk)
def test_message_arguments_name_the_bad_one(content: Any, calls: Any, extra: Any) -> None:
    built_or_error(lambda: HumanMessage(content), "content")
    built_or_error(lambda: AIMessage(content, calls), "content", "tool_calls")
    built_or_error(
        lambda: ToolMessage(content, tool_call_id=extra, name=extra),
        "content",
        "tool_call_id",
        "name",
    )


@FUZZ
@given(values=st.dictionaries(st.sampled_from(FIELDS), python_junk, min_size=1, max_size=3))
def test_sample_keywords_name_the_bad_one(values: dict[str, Any]) -> None:
    built_or_error(lambda: Sample(**values), *values)


# --- valid traces with one part broken ----------------------------------------------------


def openai_trace() -> list[dict[str, Any]]:
    return [
        {"role": "system", "content": "You book flights."},
        {"role": "user", "content": [{"type": "text", "text": "A flight to Lima, please."}]},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "call_1",
                    "type": "function",
                    "function": {"name": "search", "arguments": '{"to": "Lima", "pax": 1}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "call_1", "content": "LA2041, 09:40"},
        {"role": "assistant", "content": "LA2041 leaves at 09:40."},
    ]


def langchain_trace() -> list[dict[str, Any]]:
    return [
        {"type": "human", "content": "A flight to Lima, please."},
        {
            "type": "ai",
            "content": "",
            "tool_calls": [{"name": "search", "args": {"to": "Lima"}, "id": "call_1"}],
        },
        {"type": "tool", "content": "LA2041, 09:40", "tool_call_id": "call_1"},
        {"type": "ai", "content": "LA2041 leaves at 09:40."},
    ]


def places(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every position inside a JSON structure (keys of dicts, indices of lists)."""
    found = [path] if path else []
    if isinstance(node, dict):
        for key, value in node.items():
            found += places(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += places(value, (*path, index))
    return found


def broken(trace: list[dict[str, Any]], where: tuple[Any, ...], junk: Any) -> list[Any]:
    changed = copy.deepcopy(trace)
    node: Any = changed
    for step in where[:-1]:
        node = node[step]
    node[where[-1]] = junk
    return changed


IMPORTERS = [(from_openai_messages, openai_trace), (from_langchain_messages, langchain_trace)]


@pytest.mark.parametrize(("importer", "trace_of"), IMPORTERS, ids=["openai", "langchain"])
@FUZZ
@given(data=st.data(), junk=python_junk)
def test_a_broken_part_of_a_trace_is_named_in_its_message(
    importer: Any, trace_of: Any, data: Any, junk: Any
) -> None:
    trace = trace_of()
    where = data.draw(st.sampled_from(places(trace)))
    error = error_of(lambda: importer(broken(trace, where, junk)))
    if error is not None:
        field = named_field(error)
        assert field.startswith("messages["), field
        # The error is at the broken message, or at a later one that depended on it.
        assert message_index(field) >= where[0]


@FUZZ
@given(field=st.sampled_from(FIELDS), junk=python_junk)
def test_importers_name_a_bad_extra_sample_field(field: str, junk: Any) -> None:
    assume(field != "user_input_messages")
    for importer, trace_of in IMPORTERS:
        error = error_of(lambda: importer(trace_of(), **{field: junk}))  # noqa: B023
        if error is not None:
            assert top_field(named_field(error)) == field
