"""A case as a sample: ``expectations`` and ``agent_run``, typed, in the schema, from every
dataset door."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ragas_boot.datasets import dataset_json_schema, load_dataset
from ragas_boot.errors import DatasetError, SampleValidationError
from ragas_boot.samples import (
    AgentRun,
    AIMessage,
    CaseExpectations,
    HumanMessage,
    Sample,
    StopReason,
)

CASE: dict[str, Any] = {
    "id": "T001",
    "user_input_messages": [
        {"type": "human", "content": "Weather in Hanoi?"},
        {"type": "ai", "content": "31 °C in Hanoi."},
    ],
    "expectations": {"response_contains": ["Hanoi"], "max_tool_calls": 5, "max_latency_ms": 1000},
    "agent_run": {
        "agent": "weather_agent:run",
        "latency_ms": 12.5,
        "turns": 2,
        "stop_reason": "answered",
        "input_tokens": 120,
        "output_tokens": 14,
    },
}


def test_a_case_loads_typed() -> None:
    sample = Sample.model_validate(CASE)

    assert sample.expectations == CaseExpectations(
        response_contains=["Hanoi"], max_tool_calls=5, max_latency_ms=1000.0
    )
    assert sample.expectations.checks == ["response_contains", "max_tool_calls", "max_latency_ms"]
    assert isinstance(sample.agent_run, AgentRun)
    assert sample.agent_run.stop_reason is StopReason.ANSWERED
    assert (sample.agent_run.latency_ms, sample.agent_run.error) == (12.5, None)
    again = Sample.model_validate_json(sample.model_dump_json())
    assert again == sample


def test_absent_is_kept_apart_from_empty() -> None:
    assert Sample().expectations is None and Sample().agent_run is None
    assert CaseExpectations().checks == []
    assert CaseExpectations.model_validate({"response_contains": None}).response_contains == []


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"expectations": {"max_tool_calls": -1}}, "expectations.max_tool_calls", ">= 0"),
        ({"expectations": {"max_latency_ms": 0}}, "expectations.max_latency_ms", "> 0"),
        (
            {"expectations": {"response_contains": ["ok", " "]}},
            "expectations.response_contains",
            "blank",
        ),
        (
            {"expectations": {"max_toolcalls": 3}},
            "expectations.max_toolcalls",
            "did you mean 'max_tool_calls'?",
        ),
        ({"expectations": ["Hanoi"]}, "expectations", "valid dictionary"),
        ({"agent_run": {"latency_ms": -1}}, "agent_run.latency_ms", ">= 0"),
        ({"agent_run": {"stop_reason": "bored"}}, "agent_run.stop_reason", "'answered'"),
        ({"agent_run": {"latency": 3}}, "agent_run.latency", "did you mean 'latency_ms'?"),
    ],
)
def test_bad_fields_are_named(data: dict[str, Any], field: str, message: str) -> None:
    with pytest.raises(SampleValidationError) as caught:
        Sample.model_validate(data)
    assert caught.value.field == field
    assert message in str(caught.value).replace("greater than or equal to ", ">= ").replace(
        "greater than ", "> "
    )


def test_the_final_response_is_the_response_else_the_last_ai_message() -> None:
    messages = [HumanMessage("hi"), AIMessage("first"), HumanMessage("again"), AIMessage("last")]
    assert Sample(user_input_messages=messages).final_response() == "last"
    assert Sample(user_input_messages=messages, response="given").final_response() == "given"
    assert Sample(user_input_messages=[HumanMessage("hi")]).final_response() is None
    assert Sample(response="").final_response() == ""


def test_the_dataset_schema_describes_them() -> None:
    schema = dataset_json_schema()
    text = json.dumps(schema)
    assert "response_contains" in text and "max_latency_ms" in text
    assert "stop_reason" in text and "latency_ms" in text


def test_every_dataset_door_reads_them(tmp_path: Path) -> None:
    pandas = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    yaml_file = tmp_path / "cases.yaml"
    yaml_file.write_text(json.dumps({"samples": [CASE]}), encoding="utf-8")
    jsonl_file = tmp_path / "cases.jsonl"
    jsonl_file.write_text(json.dumps(CASE) + "\n", encoding="utf-8")
    row = {
        key: json.dumps(value) if not isinstance(value, str) else value
        for key, value in CASE.items()
    }
    csv_file = tmp_path / "cases.csv"
    frame = pandas.DataFrame([row])
    frame.to_csv(csv_file, index=False)
    parquet_file = tmp_path / "cases.parquet"
    pandas.DataFrame([CASE]).to_parquet(parquet_file)

    expected = Sample.model_validate(CASE)
    for source in (yaml_file, jsonl_file, csv_file, parquet_file, pandas.DataFrame([CASE])):
        (sample,) = load_dataset(source).samples
        assert sample.expectations == expected.expectations, source
        assert sample.agent_run == expected.agent_run, source


def test_a_bad_cell_names_the_row_and_column(tmp_path: Path) -> None:
    csv_file = tmp_path / "cases.csv"
    csv_file.write_text(
        'id,user_input,expectations\nT1,hi,"{""max_tool_calls"": ""many""}"\n', encoding="utf-8"
    )
    with pytest.raises(DatasetError) as caught:
        load_dataset(csv_file)
    assert caught.value.field == "expectations.max_tool_calls"
    assert "row 1" in str(caught.value)
