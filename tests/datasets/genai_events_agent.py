"""Writes an OTLP JSON file the way a production agent does under the OpenTelemetry GenAI
instrumentation of the openai client (``opentelemetry-instrumentation-openai-v2``): run as a
script, because the instrumentation reads its content mode from the environment once.

    python genai_events_agent.py SPANS.jsonl [LOGS.jsonl]

The agent asks the model, runs the tool the model calls inside an ``execute_tool`` span and
asks again; the model is ragas-boot's test server. Spans and log records (the events) are
written by the SDK's OTLP JSON file exporters, one request per line: to one file, or the log
records to a second file when one is given.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from openai import OpenAI
from opentelemetry.exporter.otlp.json.file._log_exporter import FileLogExporter
from opentelemetry.exporter.otlp.json.file.trace_exporter import FileSpanExporter
from opentelemetry.instrumentation.openai_v2 import OpenAIInstrumentor
from opentelemetry.sdk._logs import LoggerProvider
from opentelemetry.sdk._logs.export import SimpleLogRecordProcessor
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.semconv._incubating.attributes import gen_ai_attributes as gen_ai

from ragas_boot.testing import FakeOpenAIServer, Reply

MODEL = "agent-model"
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "get_weather",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}}},
        },
    }
]


def main(out: Path, logs: Path) -> None:
    resource = Resource.create({"service.name": "weather-agent"})
    tracer_provider = TracerProvider(resource=resource)
    tracer_provider.add_span_processor(SimpleSpanProcessor(FileSpanExporter(path=out)))
    logger_provider = LoggerProvider(resource=resource)
    logger_provider.add_log_record_processor(SimpleLogRecordProcessor(FileLogExporter(path=logs)))
    instrumentor = OpenAIInstrumentor()
    instrumentor.instrument(tracer_provider=tracer_provider, logger_provider=logger_provider)
    tracer = tracer_provider.get_tracer("weather-agent")
    try:
        with FakeOpenAIServer() as server:
            server.script(
                MODEL,
                Reply.tool_calls([{"id": "call_1", "name": "get_weather",
                                   "arguments": {"city": "Oslo"}}]),
                Reply.text("It is 3 °C in Oslo."),
            )  # fmt: skip
            client = OpenAI(base_url=server.base_url + "/v1", api_key="sk-offline")
            messages: list[dict[str, object]] = [
                {"role": "system", "content": "You answer about the weather."},
                {"role": "user", "content": "Weather in Oslo?"},
            ]
            with tracer.start_as_current_span("weather-agent"):
                while True:
                    reply = client.chat.completions.create(
                        model=MODEL,
                        messages=messages,  # type: ignore[arg-type]
                        tools=TOOLS,  # type: ignore[arg-type]
                    )
                    message = reply.choices[0].message
                    messages.append(message.model_dump(exclude_none=True))
                    if not message.tool_calls:
                        break
                    for call in message.tool_calls:
                        with tracer.start_as_current_span(
                            f"execute_tool {call.function.name}"
                        ) as span:
                            span.set_attribute(gen_ai.GEN_AI_OPERATION_NAME, "execute_tool")
                            span.set_attribute(gen_ai.GEN_AI_TOOL_NAME, call.function.name)
                            span.set_attribute(gen_ai.GEN_AI_TOOL_CALL_ID, call.id)
                            result = json.dumps({"temperature_c": 3})
                        messages.append(
                            {"role": "tool", "tool_call_id": call.id, "content": result}
                        )
            client.close()
    finally:
        instrumentor.uninstrument()
        tracer_provider.shutdown()
        logger_provider.shutdown()


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[-1]))
