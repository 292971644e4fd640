"""One null rule for native table values: the same rows score the same from every format.

Arrow gives every struct of a column every key any row has, filling the others with null;
the rows below have tool-call arguments whose nested keys differ from row to row, so Parquet
and Hugging Face datasets hand back nulls the rows never had, at every depth.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from ragas_boot.datasets import load_dataset
from ragas_boot.metrics import ToolCallAccuracyMetric
from ragas_boot.samples import ToolCall

pd = pytest.importorskip("pandas", reason="the [tables] extra")
pa = pytest.importorskip("pyarrow", reason="the [tables] extra")
pq = pytest.importorskip("pyarrow.parquet", reason="the [tables] extra")
datasets = pytest.importorskip("datasets", reason="the [hf] extra")


def _row(question: str, made: dict[str, Any], expected: dict[str, Any], **extra: Any):
    return {
        "user_input": [
            {"type": "human", "content": question},
            {"type": "ai", "content": "", "tool_calls": [{"name": "search", "args": made}]},
            {"type": "tool", "content": "[]"},
            {"type": "ai", "content": "Nothing found."},
        ],
        "reference_tool_calls": [{"name": "search", "args": expected}],
        **extra,
    }


#: Arguments nested three levels deep, with keys that differ from row to row.
ROWS = [
    _row(
        "Papers in English?",
        {"query": "papers", "filters": {"lang": "en"}},
        {"query": "papers", "filters": {"lang": "en"}},
        metadata={"team": "search", "review": {"by": "ann"}},
    ),
    _row(
        "Tagged ML?",
        {"query": "ml", "filters": {"tags": ["ml"], "range": {"from": 2020}}},
        {"query": "ml", "filters": {"tags": ["ml"], "range": {"from": 2020}}},
        metadata={"team": "search", "review": {"at": "2024-05-01"}},
    ),
    _row(
        "Anything?",
        {"query": "anything"},
        {"query": "anything"},
        metadata={"team": "ops"},
    ),
    _row(
        "Recent French?",
        {"query": "fr", "filters": {"lang": "fr", "range": {"to": 2024}}},
        {"query": "french", "filters": {"lang": "fr", "range": {"to": 2024}}},
        metadata={"team": "ops"},
    ),
]
EXPECTED_SCORES = [1.0, 1.0, 1.0, 0.0]


def _csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow({key: json.dumps(value) for key, value in row.items()})
    return path


def _scores(source: Any) -> list[float]:
    metric = ToolCallAccuracyMetric()
    return [metric.multi_turn_score(sample) for sample in load_dataset(source).samples]


def test_rows_score_the_same_from_csv_parquet_hf_and_a_dataframe(tmp_path: Path):
    frame = pd.DataFrame(ROWS)
    pq.write_table(pa.Table.from_pylist(ROWS), tmp_path / "rows.parquet")
    datasets.Dataset.from_list(ROWS).save_to_disk(str(tmp_path / "saved"))
    sources = {
        "csv": _csv(tmp_path / "rows.csv", ROWS),
        "parquet": tmp_path / "rows.parquet",
        "hf directory": tmp_path / "saved",
        "hf dataset": datasets.Dataset.from_list(ROWS),
        "dataframe": frame,
        "dataframe read from parquet": pd.read_parquet(tmp_path / "rows.parquet"),
    }
    for name, source in sources.items():
        assert _scores(source) == EXPECTED_SCORES, name
    reference = load_dataset(sources["csv"]).samples
    for name, source in sources.items():
        assert load_dataset(source).samples == reference, name
    # Every column: the metadata structs lose the keys Arrow added, at every depth.
    assert [sample.metadata for sample in reference] == [row["metadata"] for row in ROWS]
    assert reference[1].reference_tool_calls == [
        ToolCall("search", {"query": "ml", "filters": {"tags": ["ml"], "range": {"from": 2020}}})
    ]


def _chat(city: str, reference_arguments: dict[str, Any]) -> dict[str, Any]:
    arguments = json.dumps({"city": city})  # OpenAI's arguments: JSON text, kept as written
    return {
        "messages": [
            {"role": "user", "content": f"Weather in {city}?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "weather", "arguments": arguments},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "3 °C"},
        ],
        "reference_tool_calls": [{"name": "weather", "args": reference_arguments}],
    }


def test_openai_messages_in_parquet_lose_only_the_nulls_arrow_added(tmp_path: Path):
    rows = [
        _chat("Oslo", {"city": "Oslo"}),
        _chat("Rome", {"city": "Rome", "units": {"temperature": "C"}}),
        _chat("Lima", {"city": "Lima", "units": {"wind": "km/h"}}),
    ]
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "chat.parquet")
    from_frame = load_dataset(pd.DataFrame(rows)).samples
    assert load_dataset(tmp_path / "chat.parquet").samples == from_frame
    assert from_frame[1].reference_tool_calls == [
        ToolCall("weather", {"city": "Rome", "units": {"temperature": "C"}})
    ]
    assert _scores(tmp_path / "chat.parquet") == [1.0, 0.0, 0.0]


def test_a_null_written_as_json_text_is_kept_as_in_a_jsonl_file(tmp_path: Path):
    """JSON text is what the user wrote: its nulls are values, as in YAML and JSONL files."""
    row = {
        "user_input_messages": [
            {"type": "human", "content": "Untagged?"},
            {"type": "ai", "content": "", "tool_calls": [{"name": "search", "args": {"q": "x"}}]},
        ],
        "reference_tool_calls": [{"name": "search", "args": {"q": "x", "tags": None}}],
    }
    jsonl = tmp_path / "rows.jsonl"
    jsonl.write_text(json.dumps(row) + "\n", encoding="utf-8")
    from_csv = load_dataset(_csv(tmp_path / "rows.csv", [row])).samples
    assert from_csv == load_dataset(jsonl).samples
    assert from_csv[0].reference_tool_calls == [ToolCall("search", {"q": "x", "tags": None})]
    assert _scores(tmp_path / "rows.csv") == _scores(jsonl) == [0.0]
    # A Parquet column of JSON text keeps it too; a native struct cannot tell it from absent.
    as_text = [{key: json.dumps(value) for key, value in row.items()}]
    pq.write_table(pa.Table.from_pylist(as_text), tmp_path / "text.parquet")
    assert load_dataset(tmp_path / "text.parquet").samples == from_csv
