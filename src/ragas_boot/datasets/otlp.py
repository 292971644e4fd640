"""Production traces as a dataset: OTLP JSON files, one trace = one sample.

Tracing stacks export OpenTelemetry spans as OTLP JSON: the collector's file exporter and the
SDK's OTLP JSON file exporters write one ``ExportTraceServiceRequest`` per line, Phoenix,
Langfuse and LangSmith export the same document. Log records (``ExportLogsServiceRequest``
lines, in the same file or a second one appended to it) are joined to their spans by trace
and span id: GenAI instrumentations put message content in such events.

The file is parsed by the OTLP protobuf classes (``opentelemetry-proto``, through
protobuf's JSON mapping), and the spans are read with the attribute names the conventions'
own packages publish (``opentelemetry-semantic-conventions``, ``openinference-semantic-
conventions``; the ``[traces]`` extra), never names copied by hand:

* **OpenTelemetry GenAI**: chat spans (``gen_ai.operation.name``) with
  ``gen_ai.input.messages`` / ``gen_ai.output.messages`` as span attributes, on a span event,
  or on a log record of the span (the ``gen_ai.client.inference.operation.details`` event of
  the instrumentations' event modes); ``execute_tool`` spans (``gen_ai.tool.name``,
  ``gen_ai.tool.call.id``, ``.arguments``, ``.result``); retrieval spans
  (``gen_ai.retrieval.documents``).
* **OpenInference**: ``LLM`` spans (``llm.input_messages`` / ``llm.output_messages`` with their
  tool calls), ``TOOL`` spans (``tool.name``, ``input.value``, ``output.value``) and
  ``RETRIEVER`` spans (``retrieval.documents``).

The conversation of a trace is the longest input of its chat spans plus that span's output (a
chat span carries the whole history before it); the user's and the agent's messages and the
tool calls with their arguments come from it. A tool span whose status is ERROR marks its
call failed (the tool message's ``status``); retrieved documents become
``retrieved_contexts``; the first user message and the last answer are also ``user_input``
and ``response``, for single-turn metrics. A sample's id is its session id (OpenInference
``session.id``, GenAI ``gen_ai.conversation.id``) when no other trace of the file has it,
else its trace id; ``metadata`` keeps ``trace_id``, ``session_id`` and the ``service``.
Agent, chain and workflow spans only group the others. Spans of any other kind (HTTP,
database, embeddings, ...) are skipped and counted (:attr:`TraceImport.skipped`), never
fatal. A trace without a chat span is skipped and counted too: it has no conversation. A
log record whose span is not in the file is read as a chat of its own when it carries GenAI
messages (the content event may be recorded apart from traces), else skipped and counted.
"""

from __future__ import annotations

import base64
import json
import logging
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ragas_boot._extras import import_extra
from ragas_boot._loading import DATASET_LIMITS, LoadLimitError, load_json
from ragas_boot.datasets.model import (
    Dataset,
    read_source_text,
    sample_from_fields,
    sample_indices,
)
from ragas_boot.errors import DatasetError, SampleValidationError
from ragas_boot.samples import Sample
from ragas_boot.samples._base import message_of

__all__ = ["TraceImport", "load_otlp", "parse_otlp"]

_log = logging.getLogger(__name__)

_FEATURE = "reading OTLP traces"


def _import(module: str, package: str) -> Any:
    return import_extra(module, feature=_FEATURE, extra="traces", package=package)


@dataclass(frozen=True, slots=True)
class TraceImport:
    """What :func:`load_otlp` read: the samples, and what it left out.

    Attributes:
        dataset: one sample per trace (its id is the trace id), in the order of the file.
        traces: traces in the file (before sampling).
        skipped: spans (by kind: ``http``, ``openinference:EMBEDDING``, ...) and traces
            (``trace without a chat span``) that were left out, with how many.
    """

    dataset: Dataset
    traces: int
    skipped: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        """``3 samples from 3 traces; skipped: 2 spans of kind http`` (one line for a CLI)."""
        line = f"{len(self.dataset)} samples from {self.traces} traces"
        if self.skipped:
            parts = ", ".join(f"{count} {kind}" for kind, count in sorted(self.skipped.items()))
            line += f"; skipped: {parts}"
        return line


@dataclass(slots=True)
class _Span:
    trace_id: str
    span_id: str
    name: str
    start: int
    end: int
    error: bool
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]]
    resource: dict[str, Any]


@dataclass(slots=True)
class _Event:
    """An OTLP log record: GenAI instrumentations put message content in such events."""

    trace_id: str
    span_id: str
    name: str
    time: int
    attributes: dict[str, Any]
    resource: dict[str, Any]


@dataclass(slots=True)
class _Trace:
    chats: list[list[dict[str, Any]]] = field(default_factory=list)
    tool_status: dict[str, bool] = field(default_factory=dict)  # call id → failed
    failed_tools: list[str] = field(default_factory=list)  # names of failed calls without id
    contexts: list[str] = field(default_factory=list)
    resource: dict[str, Any] = field(default_factory=dict)
    session: str | None = None


def load_otlp(
    path: str | os.PathLike[str], *, sample: int | None = None, seed: int | None = None
) -> TraceImport:
    """Read an OTLP JSON file of traces (the collector's file exporter: one request per line,
    or one JSON document).

    Args:
        path: the file.
        sample: keep this many traces, chosen at random (``--sample 200``); all when None.
        seed: the random seed of ``sample`` (``--seed 1``): the same seed, the same traces.

    Raises:
        DatasetError: the file is missing, or a line is not OTLP JSON (file and line named),
            or a span's message attribute is malformed (trace and attribute named).
        MissingExtraError: the ``[traces]`` extra is not installed.
    """
    file = Path(path)
    text = read_source_text(file, what="trace")
    return parse_otlp(text, source=str(file), sample=sample, seed=seed)


def parse_otlp(
    text: str, *, source: str = "<otlp>", sample: int | None = None, seed: int | None = None
) -> TraceImport:
    """Read OTLP JSON text (see :func:`load_otlp`)."""
    if sample is not None and sample < 1:
        raise ValueError(f"a sample size must be at least 1, got {sample}")
    skipped: Counter[str] = Counter()
    conventions = _Conventions()
    by_trace: dict[str, list[_Span]] = {}
    for span in _joined(_records(text, source), conventions, skipped):
        by_trace.setdefault(span.trace_id, []).append(span)
    trace_ids = list(by_trace)
    total = len(trace_ids)
    if sample is not None:
        trace_ids = [trace_ids[index] for index in sample_indices(total, sample, seed=seed)]
    samples: list[Sample] = []
    for trace_id in trace_ids:
        trace = _Trace()
        for span in sorted(by_trace[trace_id], key=lambda span: (span.start, span.end)):
            kind = conventions.read(span, trace, source)
            if kind is not None:
                skipped[f"spans of kind {kind}"] += 1
        if not trace.chats:
            skipped["traces without a chat span"] += 1
            continue
        samples.append(_sample(trace_id, trace, source))
    samples = _session_ids(samples)
    if skipped:
        _log.info("%s: skipped %s", source, dict(skipped))
    dataset = Dataset(name=Path(source).stem, path=source, samples=samples)
    return TraceImport(dataset=dataset, traces=total, skipped=dict(skipped))


def _joined(
    records: Iterable[_Span | _Event], conventions: _Conventions, skipped: Counter[str]
) -> list[_Span]:
    """The spans, each with the log records (events) of its span id among its events.

    An event whose span is not in the file (the conventions let the content event be
    recorded apart from traces) is read as a span of its own when it carries GenAI
    messages; other log records without their span are skipped and counted.
    """
    spans: list[_Span] = []
    events: list[_Event] = []
    for record in records:
        if isinstance(record, _Span):
            spans.append(record)
        else:
            events.append(record)
    by_id = {(span.trace_id, span.span_id): span for span in spans}
    for event in events:
        span = by_id.get((event.trace_id, event.span_id)) if event.span_id else None
        if span is not None:
            span.events.append((event.name, event.attributes))
        elif event.trace_id and conventions.has_messages(event.attributes):
            spans.append(
                _Span(
                    trace_id=event.trace_id,
                    span_id=event.span_id,
                    name=event.name,
                    start=event.time,
                    end=event.time,
                    error=False,
                    attributes=event.attributes,
                    events=[],
                    resource=event.resource,
                )
            )
        else:
            skipped["log records without their span"] += 1
    return spans


# --------------------------------------------------------------------------- OTLP JSON


def _records(text: str, source: str) -> Iterator[_Span | _Event]:
    """The spans and log records of every request in ``text``, in file order."""
    json_format = _import("google.protobuf.json_format", "protobuf")
    trace_pb2 = _import("opentelemetry.proto.trace.v1.trace_pb2", "opentelemetry-proto")
    logs_pb2 = _import("opentelemetry.proto.logs.v1.logs_pb2", "opentelemetry-proto")
    stripped = text.strip()
    if not stripped:
        return
    # (line, text, the JSON value when load_json already checked it against the limits)
    documents: Iterable[tuple[int, str, Any]]
    try:
        documents = [(1, stripped, load_json(stripped, limits=DATASET_LIMITS))]
    except LoadLimitError as error:
        raise DatasetError(f"refused: {error}", file=source, line=error.line) from None
    except ValueError:
        # Not one document: the file exporters' JSON lines.
        documents = [
            (number, line, None) for number, line in enumerate(text.splitlines(), 1) if line.strip()
        ]
    for number, document, value in documents:
        try:
            if value is None:  # protobuf's parser has no depth or size limit of ours
                value = load_json(document, limits=DATASET_LIMITS)
            # A request of the log exporters (ExportLogsServiceRequest), else of spans.
            logs = isinstance(value, Mapping) and (
                "resourceLogs" in value or "resource_logs" in value
            )
            data = logs_pb2.LogsData() if logs else trace_pb2.TracesData()
            json_format.Parse(document, data, ignore_unknown_fields=True)
        except LoadLimitError as error:
            raise DatasetError(f"refused: {error}", file=source, line=number) from None
        except (ValueError, json_format.ParseError) as error:
            raise DatasetError(
                "not OTLP JSON (an ExportTraceServiceRequest or ExportLogsServiceRequest per "
                f"line): {error}",
                file=source,
                line=number,
            ) from None
        if logs:
            yield from _log_records(data)
            continue
        for resource_spans in data.resource_spans:
            resource = _attributes(resource_spans.resource.attributes)
            for scope_spans in resource_spans.scope_spans:
                for span in scope_spans.spans:
                    yield _Span(
                        trace_id=_hex_id(span.trace_id),
                        span_id=_hex_id(span.span_id),
                        name=span.name,
                        start=span.start_time_unix_nano,
                        end=span.end_time_unix_nano,
                        error=span.status.code == trace_pb2.Status.STATUS_CODE_ERROR,
                        attributes=_attributes(span.attributes),
                        events=[
                            (event.name, _attributes(event.attributes)) for event in span.events
                        ],
                        resource=resource,
                    )


def _log_records(data: Any) -> Iterator[_Event]:
    event_name = _import(
        "opentelemetry.semconv._incubating.attributes.event_attributes",
        "opentelemetry-semantic-conventions",
    ).EVENT_NAME
    for resource_logs in data.resource_logs:
        resource = _attributes(resource_logs.resource.attributes)
        for scope_logs in resource_logs.scope_logs:
            for record in scope_logs.log_records:
                attributes = _attributes(record.attributes)
                yield _Event(
                    trace_id=_hex_id(record.trace_id),
                    span_id=_hex_id(record.span_id),
                    # The name is the record's event_name, or an attribute in older SDKs.
                    name=record.event_name or str(attributes.get(event_name) or ""),
                    time=record.time_unix_nano or record.observed_time_unix_nano,
                    attributes=attributes,
                    resource=resource,
                )


def _hex_id(raw: bytes) -> str:
    """A trace or span id as hex text.

    OTLP/JSON writes ids as hex, where protobuf's JSON mapping expects base64: hex text parsed
    as base64 gives 24 (trace) or 12 (span) bytes, whose base64 is the hex text again; ids
    written as base64 (protobuf's own JSON) give 16 or 8 bytes.
    """
    if len(raw) in (16, 8):
        return raw.hex()
    return base64.b64encode(raw).decode("ascii").lower()


def _attributes(pairs: Iterable[Any]) -> dict[str, Any]:
    return {pair.key: _value(pair.value) for pair in pairs}


def _value(value: Any) -> Any:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return {pair.key: _value(pair.value) for pair in value.kvlist_value.values}
    return getattr(value, kind)


# --------------------------------------------------------------------------- conventions


class _Conventions:
    """The attribute names of both conventions, from their packages."""

    def __init__(self) -> None:
        genai = _import(
            "opentelemetry.semconv._incubating.attributes.gen_ai_attributes",
            "opentelemetry-semantic-conventions",
        )
        oi = _import("openinference.semconv.trace", "openinference-semantic-conventions")
        self.gen_ai = genai
        self.oi = oi
        self.span_kind = oi.SpanAttributes.OPENINFERENCE_SPAN_KIND
        kinds = oi.OpenInferenceSpanKindValues
        self.oi_chat = {kinds.LLM.value}
        self.oi_tool = {kinds.TOOL.value}
        self.oi_retriever = {kinds.RETRIEVER.value}
        self.oi_groups = {kinds.CHAIN.value, kinds.AGENT.value}
        # The operation names of gen_ai.operation.name (GenAiOperationNameValues is marked
        # deprecated in the package, so its values are read without instantiating it).
        operations = {
            member.name: member.value
            for member in genai.__dict__["GenAiOperationNameValues"].__members__.values()
        }
        self.gen_chat = {
            operations[name]
            for name in ("CHAT", "GENERATE_CONTENT", "TEXT_COMPLETION")
            if name in operations
        }
        self.gen_tool = {operations.get("EXECUTE_TOOL", "execute_tool")}
        self.gen_retrieval = {operations.get("RETRIEVAL", "retrieval")}
        self.gen_groups = {
            operations[name]
            for name in ("INVOKE_AGENT", "CREATE_AGENT", "INVOKE_WORKFLOW")
            if name in operations
        }

    def has_messages(self, attributes: Mapping[str, Any]) -> bool:
        """Whether ``attributes`` carry GenAI input or output messages."""
        return (
            self.gen_ai.GEN_AI_INPUT_MESSAGES in attributes
            or self.gen_ai.GEN_AI_OUTPUT_MESSAGES in attributes
        )

    def read(self, span: _Span, trace: _Trace, source: str) -> str | None:
        """Read ``span`` into ``trace``; the kind of a skipped span, else None."""
        attributes = span.attributes
        trace.resource = trace.resource or span.resource
        session = attributes.get(self.oi.SpanAttributes.SESSION_ID) or attributes.get(
            self.gen_ai.GEN_AI_CONVERSATION_ID
        )
        if session is not None and trace.session is None:
            trace.session = str(session)
        oi_kind = attributes.get(self.span_kind)
        operation = attributes.get(self.gen_ai.GEN_AI_OPERATION_NAME)
        if oi_kind is not None:
            kind = str(oi_kind).upper()
            if kind in self.oi_chat:
                return _chat(trace, self._oi_chat(span))
            elif kind in self.oi_tool:
                self._tool(
                    trace,
                    span,
                    call_id=attributes.get(self.oi.ToolCallAttributes.TOOL_CALL_ID)
                    or attributes.get(self.oi.SpanAttributes.TOOL_ID),
                    name=attributes.get(self.oi.SpanAttributes.TOOL_NAME),
                )
            elif kind in self.oi_retriever:
                trace.contexts.extend(self._oi_documents(span))
            elif kind not in self.oi_groups:
                return f"openinference:{kind}"
            return None
        if operation is not None:
            if operation in self.gen_chat:
                return _chat(trace, self._gen_chat(span, source))
            elif operation in self.gen_tool:
                self._tool(
                    trace,
                    span,
                    call_id=attributes.get(self.gen_ai.GEN_AI_TOOL_CALL_ID),
                    name=attributes.get(self.gen_ai.GEN_AI_TOOL_NAME),
                )
            elif operation in self.gen_retrieval:
                trace.contexts.extend(self._gen_documents(span, source))
            elif operation not in self.gen_groups:
                return f"gen_ai:{operation}"
            return None
        return _plain_kind(span)

    # ----------------------------------------------------------------- OpenInference

    def _oi_chat(self, span: _Span) -> list[dict[str, Any]]:
        attributes = span.attributes
        inputs = _indexed(attributes, self.oi.SpanAttributes.LLM_INPUT_MESSAGES)
        outputs = _indexed(attributes, self.oi.SpanAttributes.LLM_OUTPUT_MESSAGES)
        return [self._oi_message(message) for message in [*inputs, *outputs]]

    def _oi_message(self, message: Mapping[str, Any]) -> dict[str, Any]:
        names = self.oi.MessageAttributes
        content = message.get(names.MESSAGE_CONTENT)
        if content is None:
            parts = _indexed(message, names.MESSAGE_CONTENTS)
            texts = [
                part.get(self.oi.MessageContentAttributes.MESSAGE_CONTENT_TEXT) for part in parts
            ]
            content = "\n".join(text for text in texts if isinstance(text, str)) or None
        converted: dict[str, Any] = {
            "role": message.get(names.MESSAGE_ROLE),
            "content": content,
        }
        call_names = self.oi.ToolCallAttributes
        calls = [
            {
                "id": call.get(call_names.TOOL_CALL_ID),
                "type": "function",
                "function": {
                    "name": call.get(call_names.TOOL_CALL_FUNCTION_NAME),
                    "arguments": call.get(call_names.TOOL_CALL_FUNCTION_ARGUMENTS_JSON) or "{}",
                },
            }
            for call in _indexed(message, names.MESSAGE_TOOL_CALLS)
        ]
        if calls:
            converted["tool_calls"] = calls
        call_id = message.get(names.MESSAGE_TOOL_CALL_ID)
        if call_id is not None:
            converted["tool_call_id"] = call_id
        name = message.get(names.MESSAGE_NAME)
        if name is not None and converted["role"] == "tool":
            converted["name"] = name
        return converted

    def _oi_documents(self, span: _Span) -> list[str]:
        documents = _indexed(span.attributes, self.oi.SpanAttributes.RETRIEVAL_DOCUMENTS)
        content = self.oi.DocumentAttributes.DOCUMENT_CONTENT
        return [str(document[content]) for document in documents if document.get(content)]

    # ----------------------------------------------------------------- GenAI

    def _gen_chat(self, span: _Span, source: str) -> list[dict[str, Any]]:
        found: dict[str, Any] = {}
        keys = (self.gen_ai.GEN_AI_INPUT_MESSAGES, self.gen_ai.GEN_AI_OUTPUT_MESSAGES)
        # The messages are span attributes, or attributes of an event of the span.
        for attributes in [span.attributes, *(event for _, event in span.events)]:
            for key in keys:
                if key in attributes and key not in found:
                    found[key] = _json_attribute(attributes[key], key, span, source)
        messages: list[dict[str, Any]] = []
        for key in keys:
            for index, message in enumerate(found.get(key) or []):
                messages.extend(_gen_message(message, f"{key}[{index}]", span, source))
        return messages

    def _gen_documents(self, span: _Span, source: str) -> list[str]:
        key = self.gen_ai.GEN_AI_RETRIEVAL_DOCUMENTS
        documents = _json_attribute(span.attributes.get(key), key, span, source) or []
        texts = []
        for document in documents:
            if isinstance(document, Mapping):
                text = document.get("content") or document.get("text")
                if text:
                    texts.append(str(text))
            elif isinstance(document, str):
                texts.append(document)
        return texts

    # ----------------------------------------------------------------- both

    def _tool(self, trace: _Trace, span: _Span, *, call_id: Any, name: Any) -> None:
        if call_id is not None:
            trace.tool_status[str(call_id)] = span.error
        elif span.error:
            trace.failed_tools.append(str(name or span.name))


def _chat(trace: _Trace, messages: list[dict[str, Any]]) -> str | None:
    """Keep a chat span's conversation; one without messages (its instrumentation did not
    capture content) is skipped and counted."""
    if not messages:
        return "chat without messages (content capture off?)"
    trace.chats.append(messages)
    return None


def _plain_kind(span: _Span) -> str:
    """A name for a span of neither convention: its main attribute namespace."""
    for key in sorted(span.attributes):
        namespace = key.split(".")[0]
        if namespace in ("http", "url", "db", "rpc", "messaging", "server"):
            return namespace
    return "other"


def _indexed(attributes: Mapping[str, Any], prefix: str) -> list[dict[str, Any]]:
    """OpenInference's flattened lists: ``prefix.0.rest`` → ``[{rest: value}, ...]``."""
    items: dict[int, dict[str, Any]] = {}
    start = prefix + "."
    for key, value in attributes.items():
        if not key.startswith(start):
            continue
        index, _, rest = key[len(start) :].partition(".")
        if index.isdigit() and rest:
            items.setdefault(int(index), {})[rest] = value
    return [items[index] for index in sorted(items)]


def _json_attribute(value: Any, key: str, span: _Span, source: str) -> Any:
    if value is None or not isinstance(value, str):
        return value
    try:
        return load_json(value, limits=DATASET_LIMITS)
    except ValueError as error:
        raise DatasetError(
            f"span '{span.name}' ({span.span_id}): not valid JSON: {error}",
            file=source,
            location=f"trace {span.trace_id}",
            field=key,
        ) from None


def _gen_message(message: Any, where: str, span: _Span, source: str) -> Iterator[dict[str, Any]]:
    """A GenAI message (``{role, parts: [...]}``) as OpenAI chat messages."""
    if not isinstance(message, Mapping):
        raise DatasetError(
            f"span '{span.name}': expected a message object, got {type(message).__name__}",
            file=source,
            location=f"trace {span.trace_id}",
            field=where,
        )
    role = message.get("role")
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    for part in message.get("parts") or []:
        if not isinstance(part, Mapping):
            continue
        kind = part.get("type")
        if kind == "text" and isinstance(part.get("content"), str):
            texts.append(part["content"])
        elif kind == "tool_call":
            arguments = part.get("arguments")
            calls.append(
                {
                    "id": part.get("id"),
                    "type": "function",
                    "function": {
                        "name": part.get("name"),
                        "arguments": arguments
                        if isinstance(arguments, str)
                        else json.dumps(arguments or {}),
                    },
                }
            )
        elif kind == "tool_call_response":
            response = part.get("response")
            responses.append(
                {
                    "role": "tool",
                    "tool_call_id": part.get("id"),
                    "content": response if isinstance(response, str) else json.dumps(response),
                }
            )
    if role == "tool":
        yield from responses
        return
    converted: dict[str, Any] = {"role": role, "content": "\n".join(texts) or None}
    if calls:
        converted["tool_calls"] = calls
    yield converted
    yield from responses


def _session_ids(samples: list[Sample]) -> list[Sample]:
    """Samples named by their session id where no other trace has it (readable ids in
    reports); the others keep their trace id."""
    sessions = Counter(sample.metadata.get("session_id") for sample in samples)
    renamed = []
    for sample in samples:
        session = sample.metadata.get("session_id")
        if isinstance(session, str) and session and sessions[session] == 1:
            sample = sample.model_copy(update={"id": session})
        renamed.append(sample)
    return renamed


def _sample(trace_id: str, trace: _Trace, source: str) -> Sample:
    # A chat span carries the whole history before it: the longest one is the conversation.
    messages = max(trace.chats, key=len)
    failed_names = list(trace.failed_tools)
    for message in messages:
        if message.get("role") == "tool":
            call_id = message.get("tool_call_id")
            failed = trace.tool_status.get(str(call_id)) if call_id is not None else None
            if failed is None and message.get("name") in failed_names:
                failed_names.remove(message["name"])
                failed = True
            if failed:
                message["status"] = "error"
    metadata: dict[str, Any] = {"trace_id": trace_id}
    service = trace.resource.get("service.name")
    if service is not None:
        metadata["service"] = service
    if trace.session is not None:
        metadata["session_id"] = trace.session
    user_texts = [m["content"] for m in messages if m.get("role") == "user" and m.get("content")]
    answers = [
        m["content"]
        for m in messages
        if m.get("role") == "assistant" and isinstance(m.get("content"), str) and m["content"]
    ]
    fields: dict[str, Any] = {
        "id": trace_id,
        "messages": messages,
        "metadata": metadata,
    }
    if user_texts and isinstance(user_texts[0], str):
        fields["user_input"] = user_texts[0]
    if answers:
        fields["response"] = answers[-1]
    if trace.contexts:
        fields["retrieved_contexts"] = trace.contexts
    try:
        return sample_from_fields(fields)
    except SampleValidationError as error:
        raise DatasetError(
            message_of(error), file=source, location=f"trace {trace_id}", field=error.field
        ) from None
