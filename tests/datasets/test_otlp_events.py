"""GenAI events: message content in OTLP log records, joined to their spans.

The files are made by the real OpenTelemetry GenAI instrumentation of the openai client
(``genai_events_agent.py``, one process per content mode: the instrumentation reads the
mode from the environment once), exported by the SDK's OTLP JSON file exporters.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ragas_boot.datasets import load_otlp, parse_otlp
from ragas_boot.errors import DatasetError
from ragas_boot.metrics import ToolCallAccuracyMetric
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage

pytest.importorskip("opentelemetry.instrumentation.openai_v2", reason="the dev extra")
pytest.importorskip("opentelemetry.exporter.otlp.json.file", reason="the dev extra")

AGENT = Path(__file__).with_name("genai_events_agent.py")
CONVERSATION = [
    HumanMessage("Weather in Oslo?"),
    AIMessage("", [ToolCall("get_weather", {"city": "Oslo"}, id="call_1")]),
    ToolMessage('{"temperature_c": 3}', tool_call_id="call_1", name="get_weather"),
    AIMessage("It is 3 °C in Oslo."),
]


def _run_agent(mode: str, *paths: Path) -> None:
    env = {
        **os.environ,
        "OTEL_SEMCONV_STABILITY_OPT_IN": "gen_ai_latest_experimental",
        "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": mode,
    }
    completed = subprocess.run(
        [sys.executable, str(AGENT), *map(str, paths)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr


def test_messages_in_events_only_are_read_from_the_log_records(tmp_path: Path):
    path = tmp_path / "traces.jsonl"
    _run_agent("event_only", path)
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert any("resourceLogs" in line for line in lines)
    assert all("input.messages" not in json.dumps(line.get("resourceSpans")) for line in lines)
    imported = load_otlp(path)
    (sample,) = imported.dataset.samples
    assert sample.user_input_messages == CONVERSATION
    assert (sample.user_input, sample.response) == ("Weather in Oslo?", "It is 3 °C in Oslo.")
    assert sample.metadata["service"] == "weather-agent"
    assert imported.summary() == "1 samples from 1 traces; skipped: 1 spans of kind other"
    scored = sample.model_copy(
        update={"reference_tool_calls": [ToolCall("get_weather", {"city": "Oslo"})]}
    )
    assert ToolCallAccuracyMetric().multi_turn_score(scored) == 1.0


def test_span_and_event_modes_and_separate_log_files_give_the_same_sample(tmp_path: Path):
    _run_agent("span_and_event", tmp_path / "both.jsonl")
    (both,) = load_otlp(tmp_path / "both.jsonl").dataset.samples
    assert both.user_input_messages == CONVERSATION
    # Spans and log records in two files: read together (concatenated), or the log records
    # alone (the content event may be recorded apart from traces).
    _run_agent("event_only", tmp_path / "spans.jsonl", tmp_path / "logs.jsonl")
    spans = (tmp_path / "spans.jsonl").read_text(encoding="utf-8")
    logs = (tmp_path / "logs.jsonl").read_text(encoding="utf-8")
    (joined,) = parse_otlp(spans + logs).dataset.samples
    assert joined.user_input_messages == CONVERSATION
    logs_only = parse_otlp(logs)
    assert [sample.user_input_messages for sample in logs_only.dataset.samples] == [CONVERSATION]
    assert parse_otlp(spans).dataset.samples == []  # without the events: no content


def test_a_log_record_of_no_genai_span_is_counted_and_a_bad_line_named():
    trace_id, span_id = "5b8efff798038103d269b633813fc60c", "eee19b7ec3c1b174"
    record = {
        "timeUnixNano": "1",
        "traceId": trace_id,
        "spanId": span_id,
        "eventName": "app.audit",
        "body": {"stringValue": "user logged in"},
    }
    request = {"resourceLogs": [{"scopeLogs": [{"logRecords": [record]}]}]}
    imported = parse_otlp(json.dumps(request) + "\n")
    assert (len(imported.dataset), imported.skipped) == (0, {"log records without their span": 1})
    broken = {"resourceLogs": [{"scopeLogs": [{"logRecords": [{"timeUnixNano": "soon"}]}]}]}
    with pytest.raises(DatasetError) as caught:
        parse_otlp(json.dumps(request) + "\n" + json.dumps(broken) + "\n", source="logs.jsonl")
    assert caught.value.line == 2
    assert str(caught.value).startswith(
        "logs.jsonl:2: not OTLP JSON (an ExportTraceServiceRequest or ExportLogsServiceRequest"
    )
