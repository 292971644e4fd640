"""ragas's EvaluationDataset exports load: to_jsonl like to_csv, to_pandas and to_hf_dataset.

The files are written the way ragas writes them: ``to_jsonl`` one ``json.dumps(row,
ensure_ascii=False)`` per line, ``to_csv`` a ``csv.DictWriter`` given the rows as they are
(lists and dicts spelled by ``str``), ``to_pandas`` / ``to_hf_dataset`` the same rows as a
DataFrame / ``datasets.Dataset.from_list``; a row is the sample's ``model_dump`` without
its None fields. ragas itself is not installed here (it pins openai below 2).
"""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from ragas_boot.datasets import load_dataset
from ragas_boot.errors import DatasetError
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage

#: SingleTurnSample rows with every field ragas has (ragas-boot has no place for six of
#: them: they go to metadata).
SINGLE_TURN: list[dict[str, Any]] = [
    {
        "user_input": "Where is the Louvre?",
        "retrieved_contexts": ["The Louvre is in Paris.", "It opened in 1793."],
        "reference_contexts": ["The Louvre is a museum in Paris."],
        "retrieved_context_ids": ["doc-7", 12],
        "reference_context_ids": ["doc-7"],
        "response": "In Paris.",
        "multi_responses": ["In Paris.", "Paris, France."],
        "reference": "Paris",
        "rubrics": {"score1_description": "wrong city", "score5_description": "Paris"},
        "persona_name": "Tourist",
        "query_style": "casual",
        "query_length": "short",
    },
    {
        "user_input": "Кто написал «Идиот»?",
        "response": "Достоевский.",
        "reference": "Ф. М. Достоевский",
    },
]

#: MultiTurnSample rows: user_input is the conversation, in ragas's message dicts.
MULTI_TURN: list[dict[str, Any]] = [
    {
        "user_input": [
            {"content": "Book a table for two at 8.", "type": "human"},
            {
                "content": "",
                "metadata": {"run_id": "r-1", "model": "gpt-4o"},
                "type": "ai",
                "tool_calls": [{"name": "book", "args": {"people": 2, "time": "20:00"}}],
            },
            {"content": '{"booked": true}', "type": "tool"},
            {"content": "Booked for two at 8 pm.", "type": "ai"},
        ],
        "reference": "A table for two is booked at 20:00",
        "reference_tool_calls": [{"name": "book", "args": {"people": 2, "time": "20:00"}}],
        "rubrics": {"score1_description": "no booking", "score5_description": "booked"},
        "reference_topics": ["restaurants"],
    },
    {
        "user_input": [
            {"content": "Hi!", "type": "human"},
            {"content": "Hello, how can I help?", "type": "ai"},
        ],
        "reference_topics": ["restaurants"],
    },
]


def _to_jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8") as file:
        for row in rows:
            file.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


def _to_csv(path: Path, rows: list[dict[str, Any]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=list(rows[0]))
        writer.writeheader()
        for row in rows:
            writer.writerow(row)
    return path


def test_single_turn_to_jsonl_loads_like_the_other_exports(tmp_path: Path):
    dataset = load_dataset(_to_jsonl(tmp_path / "ragas.jsonl", SINGLE_TURN))
    first, second = dataset.samples
    assert first.user_input == "Where is the Louvre?"
    assert first.retrieved_contexts == ["The Louvre is in Paris.", "It opened in 1793."]
    assert first.rubrics == {"score1_description": "wrong city", "score5_description": "Paris"}
    assert first.metadata == {
        "retrieved_context_ids": ["doc-7", 12],
        "reference_context_ids": ["doc-7"],
        "multi_responses": ["In Paris.", "Paris, France."],
        "persona_name": "Tourist",
        "query_style": "casual",
        "query_length": "short",
    }
    assert (second.response, second.metadata) == ("Достоевский.", {})
    pd = pytest.importorskip("pandas", reason="the [tables] extra")
    assert load_dataset(pd.DataFrame(SINGLE_TURN)).samples == dataset.samples


def test_multi_turn_to_jsonl_loads_like_the_other_exports(tmp_path: Path):
    dataset = load_dataset(_to_jsonl(tmp_path / "ragas.jsonl", MULTI_TURN))
    first, second = dataset.samples
    assert first.user_input is None
    assert first.user_input_messages == [
        HumanMessage("Book a table for two at 8."),
        AIMessage("", [ToolCall("book", {"people": 2, "time": "20:00"})]),
        ToolMessage('{"booked": true}'),
        AIMessage("Booked for two at 8 pm."),
    ]
    assert first.reference_tool_calls == [ToolCall("book", {"people": 2, "time": "20:00"})]
    assert first.reference_topics == ["restaurants"]
    # ragas's message metadata, one entry per message.
    assert first.metadata == {
        "message_metadata": [None, {"run_id": "r-1", "model": "gpt-4o"}, None, None]
    }
    assert second.metadata == {}
    assert load_dataset(_to_csv(tmp_path / "ragas.csv", MULTI_TURN[:1])).samples == [first]
    pd = pytest.importorskip("pandas", reason="the [tables] extra")
    assert load_dataset(pd.DataFrame(MULTI_TURN)).samples == dataset.samples
    datasets = pytest.importorskip("datasets", reason="the [hf] extra")
    datasets.Dataset.from_list(MULTI_TURN).save_to_disk(str(tmp_path / "saved"))
    # Arrow gives every message the keys of all (metadata: null on the others): read as absent.
    assert load_dataset(tmp_path / "saved").samples == dataset.samples


def test_a_bad_message_in_a_ragas_row_is_named_as_the_file_spells_it(tmp_path: Path):
    rows = [MULTI_TURN[1], {"user_input": [{"type": "human"}, {"content": "?", "type": "ai"}]}]
    with pytest.raises(DatasetError) as caught:
        load_dataset(_to_jsonl(tmp_path / "bad.jsonl", rows))
    assert (caught.value.line, caught.value.field) == (2, "user_input[0].content")
    assert str(caught.value).startswith(
        f"{tmp_path / 'bad.jsonl'}:2: field 'user_input[0].content'"
    )
    both = {"user_input": [{"type": "human", "content": "hi"}], "user_input_messages": []}
    with pytest.raises(DatasetError, match="a conversation is given twice"):
        load_dataset(_to_jsonl(tmp_path / "both.jsonl", [both]))
    clash = {**SINGLE_TURN[1], "persona_name": "A", "metadata": {"persona_name": "B"}}
    with pytest.raises(DatasetError, match="'persona_name' is given both as a field and in"):
        load_dataset(_to_jsonl(tmp_path / "clash.jsonl", [clash]))
