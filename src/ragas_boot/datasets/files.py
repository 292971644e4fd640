"""Dataset files in ragas-boot's own formats: YAML, JSON or JSONL.

A YAML (or JSON) file holds one or more ``---`` documents; each document is either

* a mapping with ``samples:`` (a list) and, optionally, ``name:`` and ``description:``;
* a list of samples; or
* one sample.

A JSONL file holds one sample per line (blank lines are skipped). A sample is written either in
ragas-boot's schema (the :class:`~ragas_boot.samples.Sample` fields; the Java library's camelCase
names are accepted) or in OpenAI chat format: a ``messages`` list as sent to and received from
the chat-completions API, plus the other sample fields (``reference``, ``reference_topics``,
``reference_tool_calls``, ...)::

    name: support-agent
    samples:
      - id: refund-lost-parcel
        messages:
          - {role: user, content: "My order 12345 never arrived."}
          - role: assistant
            content: null
            tool_calls:
              - {id: c1, type: function,
                 function: {name: get_order, arguments: '{"order_id": "12345"}'}}
          - {role: tool, tool_call_id: c1, content: '{"status": "lost"}'}
          - {role: assistant, content: "It was lost; I have refunded you."}
        reference: The customer is refunded for the lost order
        reference_tool_calls: [{name: get_order, arguments: {order_id: "12345"}}]

ragas's ``EvaluationDataset.to_jsonl`` output loads as it is (and so do its rows in a YAML or
JSON list): a ``user_input`` list of messages is the conversation, and ragas's fields that no
metric reads (``multi_responses``, ...) are kept in ``metadata``
(:func:`~ragas_boot.datasets.sample_from_fields`).

A sample without ``id`` gets one from its position (``sample-001``); ids must be unique.
Reading is bounded (:data:`ragas_boot._loading.DATASET_LIMITS`): file size, nesting depth (100
levels) and YAML aliases (an alias bomb is refused, not expanded). Every loading problem is
a :class:`~ragas_boot.errors.DatasetError` naming the file, the line (the JSONL line, or the
YAML line of the offending key) and the sample field.
:func:`dataset_json_schema` is the JSON Schema of a YAML/JSON document, for editors
(``ragas-boot schema dataset``).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import AliasChoices, BaseModel, ConfigDict, Field, TypeAdapter, create_model
from pydantic.alias_generators import to_camel

from ragas_boot._loading import DATASET_LIMITS, LoadLimitError, load_json, load_yaml_documents
from ragas_boot._validation import did_you_mean
from ragas_boot.datasets.model import (
    Dataset,
    default_sample_id,
    read_source_text,
    sample_from_fields,
)
from ragas_boot.errors import DatasetError, SampleValidationError
from ragas_boot.samples import AIMessage, Sample, ToolCall, ToolMessage
from ragas_boot.samples._base import message_of
from ragas_boot.samples.openai_chat import ChatMessage

__all__ = [
    "DATASET_FORMATS",
    "DatasetFormat",
    "dataset_json_schema",
    "load_file",
    "parse_dataset",
]

DatasetFormat = Literal["yaml", "jsonl"]

#: File suffix → how the file is read (JSON is read as YAML, of which it is a subset).
DATASET_FORMATS: dict[str, DatasetFormat] = {
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "yaml",
    ".jsonl": "jsonl",
    ".ndjson": "jsonl",
}

_FILE_KEYS = ("name", "description", "samples")
_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def load_file(path: str | os.PathLike[str]) -> Dataset:
    """Read a YAML, JSON or JSONL dataset file; the format comes from the suffix.

    Raises:
        DatasetError: the file is missing, unreadable, not valid YAML/JSON, or a sample is
            invalid; the message names the file, the line and the field.
    """
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix not in DATASET_FORMATS:
        known = ", ".join(DATASET_FORMATS)
        raise DatasetError(f"unknown dataset format '{suffix}'; use one of {known}", file=str(file))
    text = read_source_text(file)
    return parse_dataset(text, format=DATASET_FORMATS[suffix], source=str(file))


def parse_dataset(
    text: str, *, format: DatasetFormat = "yaml", source: str = "<string>"
) -> Dataset:
    """Read a dataset from text (see the module docstring for the layouts).

    Args:
        text: the file's content.
        format: ``yaml`` (also for JSON) or ``jsonl``.
        source: the name used in error messages and kept as :attr:`Dataset.path`.

    Raises:
        DatasetError: as :func:`load_dataset`.
    """
    if format == "jsonl":
        name, description, entries = None, None, list(_jsonl_entries(text, source))
    else:
        name, description, entries = _yaml_entries(text, source)
    samples: list[Sample] = []
    first_seen: dict[str, _Entry] = {}
    for index, entry in enumerate(entries):
        sample = entry.sample(source, default_sample_id(index, len(entries)))
        sample_id = sample.id or ""
        if sample_id in first_seen:
            earlier = first_seen[sample_id]
            raise entry.error(
                source,
                f"id '{sample_id}' is used twice (first at {earlier.describe()}); ids must be "
                "unique",
                field="id",
            )
        first_seen[sample_id] = entry
        samples.append(sample)
    return Dataset(name=name, description=description, path=source, samples=samples)


class _Entry:
    """One raw sample with where it came from (a YAML node, or a JSONL line)."""

    __slots__ = ("data", "line", "location", "node")

    def __init__(
        self, data: Any, *, line: int, location: str | None, node: yaml.Node | None = None
    ) -> None:
        self.data = data
        self.line = line
        self.location = location
        self.node = node

    def describe(self) -> str:
        return f"line {self.line}" + (f", {self.location}" if self.location else "")

    def error(self, source: str, message: str, *, field: str = "") -> DatasetError:
        line = _field_line(self.node, field) if self.node is not None else None
        return DatasetError(
            message, file=source, line=line or self.line, location=self.location, field=field
        )

    def sample(self, source: str, default_id: str) -> Sample:
        try:
            sample = sample_from_fields(self.data)
        except SampleValidationError as error:
            raise self.error(source, message_of(error), field=error.field) from None
        if sample.id is None:
            sample = sample.model_copy(update={"id": default_id})
        return sample


def _jsonl_entries(text: str, source: str) -> Iterator[_Entry]:
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = load_json(line, limits=DATASET_LIMITS)
        except LoadLimitError as error:
            raise DatasetError(f"refused: {error}", file=source, line=number) from None
        except ValueError as error:
            raise DatasetError(f"not valid JSON: {error}", file=source, line=number) from None
        yield _Entry(data, line=number, location=None)


def _yaml_entries(text: str, source: str) -> tuple[str | None, str | None, list[_Entry]]:
    try:
        # The nodes give line numbers, the data is what the samples are built from.
        loaded = load_yaml_documents(text, limits=DATASET_LIMITS)
    except LoadLimitError as error:
        raise DatasetError(f"refused: {error}", file=source, line=error.line) from None
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        problem = getattr(error, "problem", None) or str(error)
        line = mark.line + 1 if mark is not None else None
        raise DatasetError(f"not valid YAML: {problem}", file=source, line=line) from None
    present = [(data, node) for node, data in loaded if data is not None]
    several = len(present) > 1
    name: str | None = None
    description: str | None = None
    entries: list[_Entry] = []
    for number, (data, node) in enumerate(present, start=1):
        prefix = f"document {number}, " if several else ""
        line = node.start_mark.line + 1
        if isinstance(data, list):
            entries.extend(_items(data, node, prefix))
        elif isinstance(data, Mapping) and "samples" in data:
            unknown = [key for key in data if key not in _FILE_KEYS]
            if unknown:
                raise DatasetError(
                    f"unknown key '{unknown[0]}' beside 'samples'; "
                    f"{did_you_mean(str(unknown[0]), _FILE_KEYS)}",
                    file=source,
                    line=_field_line(node, str(unknown[0])) or line,
                    location=prefix.rstrip(", ") or None,
                )
            for key in ("name", "description"):
                value = data.get(key)
                if value is not None and not isinstance(value, str):
                    raise DatasetError(
                        f"'{key}' must be a string, got {type(value).__name__}",
                        file=source,
                        line=_field_line(node, key) or line,
                    )
            name = name or data.get("name")
            description = description or data.get("description")
            samples, samples_node = data["samples"], _child(node, "samples")
            if not isinstance(samples, list):
                raise DatasetError(
                    f"'samples' must be a list, got {type(samples).__name__}",
                    file=source,
                    line=_field_line(node, "samples") or line,
                )
            entries.extend(_items(samples, samples_node, prefix))
        elif isinstance(data, Mapping):
            entries.append(_Entry(data, line=line, location=f"document {number}", node=node))
        else:
            raise DatasetError(
                "expected a list of samples, a mapping with 'samples', or one sample; got "
                f"{type(data).__name__}",
                file=source,
                line=line,
            )
    return name, description, entries


def _items(data: list[Any], node: yaml.Node | None, prefix: str) -> Iterator[_Entry]:
    items = node.value if isinstance(node, yaml.SequenceNode) else []
    for index, value in enumerate(data):
        item = items[index] if index < len(items) else None
        line = item.start_mark.line + 1 if item is not None else 0
        yield _Entry(value, line=line, location=f"{prefix}samples[{index}]", node=item)


def _child(node: yaml.Node | None, key: str | int) -> yaml.Node | None:
    if isinstance(node, yaml.MappingNode) and isinstance(key, str):
        for spelling in dict.fromkeys((key, to_camel(key))):
            for key_node, value_node in node.value:
                if getattr(key_node, "value", None) == spelling:
                    return value_node  # type: ignore[no-any-return]
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        return node.value[key]  # type: ignore[no-any-return]
    return None


def _field_line(node: yaml.Node | None, field: str) -> int | None:
    """The line of the deepest node on ``field``'s path (``a.b[2].c``) that exists."""
    if node is None:
        return None
    found = node
    for name, index in _PATH_PART.findall(field.split(" (")[0]):
        child = _child(found, int(index) if index else name)
        if child is None:
            break
        found = child
    return found.start_mark.line + 1


# --------------------------------------------------------------------------- JSON Schema


def _chat_sample_model() -> type[BaseModel]:
    fields: dict[str, Any] = {
        "messages": (
            list[ChatMessage],
            Field(description="The conversation in OpenAI chat format (docs/data.md)."),
        )
    }
    for name, field in Sample.model_fields.items():
        if name != "user_input_messages":
            fields[name] = (field.annotation, field)
    return create_model(
        "OpenAIChatSample",
        __config__=ConfigDict(extra="forbid", title="OpenAIChatSample"),
        __doc__="A sample whose conversation is an OpenAI chat `messages` list.",
        **fields,
    )


def _alias_properties(schema: dict[str, Any], models: Sequence[type[BaseModel]]) -> None:
    """Let editors accept the Java camelCase spellings that the loader accepts."""
    definitions = schema.get("$defs", {})
    for model in models:
        properties = definitions.get(model.__name__, {}).get("properties", {})
        for field in model.model_fields.values():
            alias = field.validation_alias
            if not isinstance(alias, AliasChoices):
                continue
            choices = [choice for choice in alias.choices if isinstance(choice, str)]
            main = choices[0]
            for other in choices[1:]:
                if main in properties and other not in properties:
                    properties[other] = {
                        **properties[main],
                        "description": f"Same as `{main}` (alternative spelling).",
                    }


def dataset_json_schema() -> dict[str, Any]:
    """The JSON Schema of a YAML/JSON dataset document (draft 2020-12), made by pydantic.

    Point an editor at it (``# yaml-language-server: $schema=dataset.schema.json``) to get
    completion and checking of dataset files; a JSONL line is one ``Sample`` or
    ``OpenAIChatSample``.
    """
    chat_sample = _chat_sample_model()
    # Built at run time from the models, so the types are only known as Any to mypy.
    entry: Any = Sample | chat_sample
    document_model = create_model(
        "DatasetDocument",
        __config__=ConfigDict(extra="forbid", title="DatasetDocument"),
        __doc__="A dataset document: a name, a description and the samples.",
        name=(str | None, Field(default=None, description="Dataset name (shown in reports).")),
        description=(str | None, Field(default=None, description="What the dataset covers.")),
        samples=(list[entry], Field(description="The samples, in order.")),
    )
    root: Any = document_model | list[entry] | entry
    adapter: TypeAdapter[Any] = TypeAdapter(root)
    schema = adapter.json_schema()
    _alias_properties(schema, [Sample, chat_sample, AIMessage, ToolMessage, ToolCall])
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "ragas-boot dataset",
        "description": (
            "A ragas-boot dataset document: a mapping with `samples`, a list of samples, or "
            "one sample. A sample is in ragas-boot's schema (Sample) or in OpenAI chat format "
            "(OpenAIChatSample)."
        ),
        **schema,
    }
