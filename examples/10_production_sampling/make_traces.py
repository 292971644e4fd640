"""Make traces.jsonl: a support agent's conversations as a tracing stack exports them.

Run from the repository root::

    .venv/bin/python examples/10_production_sampling/make_traces.py [OUT]

A small support agent (the openai client and three tools) answers four customers. Its model is
ragas-boot's local test server playing the agent with scripted turns, so this runs offline;
everything else is what a production deployment has: the openai client is instrumented with
OpenInference (``openinference-instrumentation-openai``), the agent's own tool and knowledge-base
steps are spans with OpenInference attributes, the OpenTelemetry SDK batches the spans, and
each batch is encoded by the OTLP encoder of the OTel exporters and written as one line of OTLP
JSON, as the collector's file exporter does (ids in hex, as OTLP/JSON has them). One
conversation is one trace; its root span carries the session id.
"""

from __future__ import annotations

import base64
import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from google.protobuf import json_format
from openai import OpenAI
from openinference.instrumentation.openai import OpenAIInstrumentor
from openinference.semconv.trace import (
    DocumentAttributes,
    OpenInferenceSpanKindValues,
    SpanAttributes,
    ToolCallAttributes,
)
from opentelemetry.exporter.otlp.proto.common.trace_encoder import encode_spans
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Status, StatusCode

from ragas_boot.testing import FakeOpenAIServer, Reply

HERE = Path(__file__).parent
MODEL = "support-agent-v3"
KIND = SpanAttributes.OPENINFERENCE_SPAN_KIND

TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": {key: {"type": "string"} for key in keys},
                "required": list(keys),
            },
        },
    }
    for name, description, keys in (
        ("get_order", "Look an order up by its number.", ("order_id",)),
        ("refund_order", "Refund an order in full.", ("order_id",)),
        ("check_stock", "Whether a product is in stock.", ("product",)),
    )
]

KNOWLEDGE_BASE = {
    "password": [
        "To reset a password, open Settings > Security and choose 'Reset password'; a link is "
        "emailed and stays valid for 30 minutes.",
        "Accounts locked after five failed sign-ins unlock by themselves after one hour.",
    ],
}


def get_order(order_id: str) -> dict[str, Any]:
    """The order's status (a stand-in for the shop's API)."""
    return {"order_id": order_id, "status": "lost in transit", "total": "64.90 EUR"}


def refund_order(order_id: str) -> dict[str, Any]:
    """Refund the order (a stand-in)."""
    return {"order_id": order_id, "refunded": "64.90 EUR", "arrives_in_days": 5}


def check_stock(product: str) -> dict[str, Any]:
    """The stock service is down today: every call fails."""
    raise ConnectionError("stock service unavailable (HTTP 503)")


FUNCTIONS: dict[str, Callable[..., dict[str, Any]]] = {
    "get_order": get_order,
    "refund_order": refund_order,
    "check_stock": check_stock,
}


def _call(name: str, call_id: str, **arguments: str) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


#: Each conversation: its session id, the customer's message, whether the agent looks the
#: knowledge base up first, and the agent model's scripted turns.
CONVERSATIONS: list[tuple[str, str, str | None, Sequence[Reply]]] = [
    (
        "refund-lost-parcel",
        "My order 12345 never arrived. I want my money back.",
        None,
        [
            Reply.tool_calls([_call("get_order", "call_1", order_id="12345")]),
            Reply.tool_calls([_call("refund_order", "call_2", order_id="12345")]),
            Reply.text(
                "I'm sorry your parcel was lost. I have refunded 64.90 EUR to your card; it "
                "arrives within 5 days. Is there anything else I can help with?"
            ),
        ],
    ),
    (
        "password-reset",
        "How do I reset my password?",
        "password",
        [
            Reply.text(
                "Open Settings > Security and choose 'Reset password'. We email you a link "
                "that is valid for 30 minutes. Anything else I can do for you?"
            )
        ],
    ),
    (
        "stock-check-down",
        "Is the blue kettle back in stock?",
        None,
        [
            Reply.tool_calls([_call("check_stock", "call_3", product="blue kettle")]),
            Reply.text(
                "I'm sorry, I can't check the stock right now. Please try again in an hour, "
                "or I can email you when the blue kettle is back."
            ),
        ],
    ),
    (
        "refund-brushed-off",
        "Order 777 arrived broken. Refund it please.",
        None,
        [
            Reply.tool_calls([_call("get_order", "call_4", order_id="777")]),
            Reply.text("Broken items are not our problem. Contact the courier."),
        ],
    ),
]


class OtlpJsonLinesExporter(SpanExporter):
    """Each batch as one line of OTLP JSON (an ExportTraceServiceRequest)."""

    def __init__(self, path: Path) -> None:
        self._file = path.open("w", encoding="utf-8")

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        document = json_format.MessageToDict(encode_spans(spans))
        for resource_spans in document.get("resourceSpans", []):
            for scope_spans in resource_spans.get("scopeSpans", []):
                for span in scope_spans.get("spans", []):
                    for key in ("traceId", "spanId", "parentSpanId"):
                        if key in span:  # protobuf's JSON writes bytes as base64
                            span[key] = base64.b64decode(span[key]).hex()
        self._file.write(json.dumps(document, ensure_ascii=False, sort_keys=True) + "\n")
        return SpanExportResult.SUCCESS

    def shutdown(self) -> None:
        self._file.close()


def run_agent(client: OpenAI, tracer: Any, session: str, question: str, topic: str | None) -> None:
    """One conversation: model turns until it answers without calling a tool."""
    with tracer.start_as_current_span("support-agent") as root:
        root.set_attribute(KIND, OpenInferenceSpanKindValues.AGENT.value)
        root.set_attribute(SpanAttributes.SESSION_ID, session)
        root.set_attribute(SpanAttributes.INPUT_VALUE, question)
        messages: list[dict[str, Any]] = [
            {"role": "system", "content": "You are the shop's support agent."},
        ]
        if topic is not None:
            with tracer.start_as_current_span("knowledge-base") as span:
                span.set_attribute(KIND, OpenInferenceSpanKindValues.RETRIEVER.value)
                span.set_attribute(SpanAttributes.INPUT_VALUE, question)
                for index, text in enumerate(KNOWLEDGE_BASE[topic]):
                    prefix = f"{SpanAttributes.RETRIEVAL_DOCUMENTS}.{index}."
                    span.set_attribute(prefix + DocumentAttributes.DOCUMENT_CONTENT, text)
                    span.set_attribute(prefix + DocumentAttributes.DOCUMENT_ID, f"kb-{index}")
            notes = "\n".join(KNOWLEDGE_BASE[topic])
            messages.append({"role": "system", "content": f"Knowledge base:\n{notes}"})
        messages.append({"role": "user", "content": question})
        while True:
            reply = client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)  # type: ignore[arg-type]
            message = reply.choices[0].message
            messages.append(message.model_dump(exclude_none=True))
            if not message.tool_calls:
                root.set_attribute(SpanAttributes.OUTPUT_VALUE, message.content or "")
                return
            for call in message.tool_calls:
                messages.append(
                    run_tool(tracer, call.id, call.function.name, call.function.arguments)
                )


def run_tool(tracer: Any, call_id: str, name: str, arguments: str) -> dict[str, Any]:
    """Run a tool inside an OpenInference TOOL span; a raising tool is an errored span."""
    with tracer.start_as_current_span(name) as span:
        span.set_attribute(KIND, OpenInferenceSpanKindValues.TOOL.value)
        span.set_attribute(SpanAttributes.TOOL_NAME, name)
        span.set_attribute(ToolCallAttributes.TOOL_CALL_ID, call_id)
        span.set_attribute(SpanAttributes.INPUT_VALUE, arguments)
        try:
            output = json.dumps(FUNCTIONS[name](**json.loads(arguments)))
        except Exception as error:  # the agent tells the model, as agents do
            span.set_status(Status(StatusCode.ERROR, str(error)))
            span.record_exception(error)
            output = json.dumps({"error": str(error)})
        span.set_attribute(SpanAttributes.OUTPUT_VALUE, output)
        return {"role": "tool", "tool_call_id": call_id, "content": output}


def main(out: Path) -> None:
    """Run the four conversations and write their traces to ``out``."""
    provider = TracerProvider(resource=Resource.create({"service.name": "shop-support"}))
    provider.add_span_processor(BatchSpanProcessor(OtlpJsonLinesExporter(out)))
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=provider)
    tracer = provider.get_tracer("shop-support")
    try:
        with FakeOpenAIServer() as server:
            client = OpenAI(base_url=server.base_url + "/v1", api_key="sk-offline-example")
            for session, question, topic, turns in CONVERSATIONS:
                server.script(MODEL, *turns)
                run_agent(client, tracer, session, question, topic)
                provider.force_flush()  # one line per conversation
            client.close()
    finally:
        instrumentor.uninstrument()
        provider.shutdown()
    print(f"wrote {len(CONVERSATIONS)} conversations to {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE / "traces.jsonl")
