"""OTLP JSON traces as samples: spans made by the OTel SDK, encoded by the OTLP exporter's
encoder, read back with both conventions (GenAI and OpenInference)."""

from __future__ import annotations

import base64
import importlib.util
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from ragas_boot.datasets import load_dataset, load_otlp, parse_otlp
from ragas_boot.errors import DatasetError
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage

pytest.importorskip("opentelemetry.sdk", reason="the OTel SDK (dev extra) makes the spans")
pytest.importorskip("openinference.semconv", reason="the [traces] extra")

from google.protobuf import json_format
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
    InMemorySpanExporter,
)
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai
from opentelemetry.trace import Status, StatusCode

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "10_production_sampling"


def _traced(build: Callable[[Any], None]) -> list[ReadableSpan]:
    """The spans ``build(tracer)`` makes, as the SDK hands them to an exporter."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider(resource=Resource.create({"service.name": "agent-under-test"}))
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    build(provider.get_tracer("test"))
    provider.shutdown()
    return list(exporter.get_finished_spans())


def _otlp_json(spans: Sequence[ReadableSpan], *, hex_ids: bool = True) -> str:
    """One line of OTLP JSON: the exporter's encoding; ids in hex as the collector writes
    them, or base64 as protobuf's own JSON mapping does."""
    document = json_format.MessageToDict(encode_spans(spans))
    if hex_ids:
        for resource in document["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:
                            span[key] = base64.b64decode(span[key]).hex()
    return json.dumps(document)


def _messages(*items: dict[str, Any]) -> str:
    return json.dumps(list(items))


_QUESTION = {"role": "user", "parts": [{"type": "text", "content": "Где заказ 7?"}]}
_CALL = {"type": "tool_call", "id": "t1", "name": "track", "arguments": {"order": {"id": 7}}}
_TRACK_CALL = {"role": "assistant", "parts": [_CALL]}


def _gen_ai_conversation(tracer: Any) -> None:
    with tracer.start_as_current_span("invoke_agent support") as agent:
        agent.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "invoke_agent")
        agent.set_attribute(gen_ai.GEN_AI_CONVERSATION_ID, "conv-1")
        with tracer.start_as_current_span("retrieval kb") as span:
            span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "retrieval")
            span.set_attribute(
                gen_ai.GEN_AI_RETRIEVAL_DOCUMENTS,
                json.dumps([{"id": "d1", "score": 0.9, "content": "Parcels ship in 2 days."}]),
            )
        with tracer.start_as_current_span("chat model") as span:
            span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "chat")
            # Messages as attributes of an event of the span (the event form).
            span.add_event(
                "gen_ai.client.inference.operation.details",
                {
                    gen_ai.GEN_AI_INPUT_MESSAGES: _messages(
                        {"role": "system", "parts": [{"type": "text", "content": "Be nice."}]},
                        _QUESTION,
                    ),
                    gen_ai.GEN_AI_OUTPUT_MESSAGES: _messages(_TRACK_CALL),
                },
            )
        with tracer.start_as_current_span("execute_tool track") as span:
            span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "execute_tool")
            span.set_attribute(gen_ai.GEN_AI_TOOL_NAME, "track")
            span.set_attribute(gen_ai.GEN_AI_TOOL_CALL_ID, "t1")
            span.set_status(Status(StatusCode.ERROR, "timeout"))
        with tracer.start_as_current_span("GET /status") as span:
            span.set_attribute("http.request.method", "GET")
        with tracer.start_as_current_span("embeddings") as span:
            span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "embeddings")
        with tracer.start_as_current_span("chat model") as span:
            span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "chat")
            span.set_attribute(
                gen_ai.GEN_AI_INPUT_MESSAGES,
                _messages(
                    _QUESTION,
                    _TRACK_CALL,  # the first chat span's output, now in the history
                    {
                        "role": "tool",
                        "parts": [
                            {"type": "tool_call_response", "id": "t1", "response": "timeout"}
                        ],
                    },
                ),
            )
            span.set_attribute(
                gen_ai.GEN_AI_OUTPUT_MESSAGES,
                _messages(
                    {
                        "role": "assistant",
                        "parts": [{"type": "text", "content": "Сервис недоступен, извините."}],
                        "finish_reason": "stop",
                    }
                ),
            )


def _http_only(tracer: Any) -> None:
    with tracer.start_as_current_span("GET /health") as span:
        span.set_attribute("http.request.method", "GET")


def test_gen_ai_spans_give_the_conversation_tool_status_and_contexts(tmp_path: Path):
    path = tmp_path / "traces.jsonl"
    lines = [_otlp_json(_traced(_gen_ai_conversation)), _otlp_json(_traced(_http_only))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    imported = load_otlp(path)
    assert imported.traces == 2
    assert imported.skipped == {
        "spans of kind http": 2,
        "spans of kind gen_ai:embeddings": 1,
        "traces without a chat span": 1,
    }
    assert imported.summary() == (
        "1 samples from 2 traces; skipped: 1 spans of kind gen_ai:embeddings, 2 spans of "
        "kind http, 1 traces without a chat span"
    )
    (sample,) = imported.dataset.samples
    assert sample.id == "conv-1"
    assert sample.user_input_messages == [
        HumanMessage("Где заказ 7?"),
        AIMessage("", [ToolCall("track", {"order": {"id": 7}}, id="t1")]),
        ToolMessage("timeout", tool_call_id="t1", name="track", status="error"),
        AIMessage("Сервис недоступен, извините."),
    ]
    assert sample.user_input == "Где заказ 7?"
    assert sample.response == "Сервис недоступен, извините."
    assert sample.retrieved_contexts == ["Parcels ship in 2 days."]
    assert sample.metadata["service"] == "agent-under-test"
    assert len(sample.metadata["trace_id"]) == 32


def test_protobuf_json_ids_read_like_the_collector_hex_ids(tmp_path: Path):
    spans = _traced(_gen_ai_conversation)
    hex_ids = parse_otlp(_otlp_json(spans))
    base64_ids = parse_otlp(_otlp_json(spans, hex_ids=False))
    assert hex_ids.dataset.samples == base64_ids.dataset.samples
    assert hex_ids.dataset.samples[0].metadata["trace_id"] == format(
        spans[0].context.trace_id, "032x"
    )


def test_openinference_spans_of_a_real_instrumented_agent(tmp_path: Path):
    spec = importlib.util.spec_from_file_location("make_traces", EXAMPLE / "make_traces.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(tmp_path / "traces.jsonl")
    imported = load_otlp(tmp_path / "traces.jsonl")
    assert imported.skipped == {}
    samples = {sample.id: sample for sample in imported.dataset.samples}
    assert list(samples) == [
        "refund-lost-parcel",
        "password-reset",
        "stock-check-down",
        "refund-brushed-off",
    ]
    refund = samples["refund-lost-parcel"]
    assert [call.name for call in refund.actual_tool_calls()] == ["get_order", "refund_order"]
    assert refund.actual_tool_calls()[0].arguments == {"order_id": "12345"}
    assert refund.response is not None and "64.90 EUR" in refund.response
    stock = samples["stock-check-down"]
    (result,) = stock.actual_tool_call_results()
    assert result is not None and result.failed and "503" in result.content
    assert samples["password-reset"].retrieved_contexts is not None
    assert len(samples["password-reset"].retrieved_contexts) == 2
    assert all(
        not (isinstance(m, ToolMessage) and m.failed) for m in refund.user_input_messages or []
    )


def test_sampling_traces_is_seeded(tmp_path: Path):
    def many(tracer: Any) -> None:
        for number in range(12):
            with tracer.start_as_current_span("chat") as span:
                span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "chat")
                span.set_attribute(
                    gen_ai.GEN_AI_INPUT_MESSAGES,
                    _messages(
                        {"role": "user", "parts": [{"type": "text", "content": f"q{number}"}]}
                    ),
                )

    path = tmp_path / "many.json"
    path.write_text(_otlp_json(_traced(many)), encoding="utf-8")
    first = load_otlp(path, sample=4, seed=1)
    assert (first.traces, len(first.dataset)) == (12, 4)
    assert first.dataset.ids == load_otlp(path, sample=4, seed=1).dataset.ids
    assert load_otlp(path, sample=4, seed=2).dataset.ids != first.dataset.ids
    questions = [sample.user_input for sample in first.dataset.samples]
    assert questions == sorted(questions, key=lambda q: int(str(q)[1:]))  # file order kept
    assert len(load_dataset(path, format="otlp", sample=3, seed=1)) == 3


def test_bad_files_are_errors_naming_the_line_or_the_trace(tmp_path: Path):
    path = tmp_path / "traces.jsonl"
    path.write_text("", encoding="utf-8")
    empty = load_otlp(path)
    assert (empty.traces, len(empty.dataset)) == (0, 0)
    good = _otlp_json(_traced(_http_only))
    path.write_text(good + '\n{"resourceSpans": [{"scopeSpans": 3}]}\n', encoding="utf-8")
    with pytest.raises(DatasetError, match=r"traces\.jsonl:2: not OTLP JSON"):
        load_otlp(path)

    def broken(tracer: Any) -> None:
        with tracer.start_as_current_span("chat") as span:
            span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "chat")
            span.set_attribute(gen_ai.GEN_AI_INPUT_MESSAGES, "[{not json")

    path.write_text(_otlp_json(_traced(broken)), encoding="utf-8")
    with pytest.raises(
        DatasetError, match=r"\(trace [0-9a-f]{32}\): field 'gen_ai.input.messages'"
    ):
        load_otlp(path)
    with pytest.raises(DatasetError, match="trace file not found"):
        load_otlp(tmp_path / "missing.json")


def test_chat_spans_without_captured_messages_are_counted_not_read():
    def no_content(tracer: Any) -> None:
        # An instrumentation with content capture off records the call, not the messages.
        with tracer.start_as_current_span("chat") as span:
            span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "chat")
            span.set_attribute(gen_ai.GEN_AI_REQUEST_MODEL, "gpt-4o-mini")

    imported = parse_otlp(_otlp_json(_traced(no_content)))
    assert len(imported.dataset) == 0
    assert imported.skipped == {
        "spans of kind chat without messages (content capture off?)": 1,
        "traces without a chat span": 1,
    }
