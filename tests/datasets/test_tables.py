"""Tables as datasets: CSV, Parquet, DataFrames and saved HF datasets read the same samples."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest

from ragas_boot._extras import import_extra
from ragas_boot.datasets import (
    load_dataset,
    parse_column_map,
    sample_dataset,
)
from ragas_boot.errors import DatasetError, MissingExtraError
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage

pd = pytest.importorskip("pandas", reason="the [tables] extra")
pytest.importorskip("pyarrow", reason="the [tables] extra")

#: ragas's EvaluationDataset names, single-turn (SingleTurnSample) rows.
SINGLE_TURN: list[dict[str, Any]] = [
    {
        "user_input": "When was the Eiffel Tower built?",
        "response": "It was built from 1887 to 1889.",
        "retrieved_contexts": ["The Eiffel Tower was built from 1887 to 1889.", "It is 330 m."],
        "reference": "1887-1889",
        "rubric": {"score1_description": "wrong", "score5_description": "exact years"},
    },
    {
        "user_input": "Кто написал «Войну и мир»? 📚",
        "response": "Лев Толстой.",
        "retrieved_contexts": ["«Война и мир» — роман Льва Толстого."],
        "reference": "Лев Николаевич Толстой",
        "rubric": None,
    },
]

#: ragas's MultiTurnSample: user_input is the conversation (ragas message dicts).
CONVERSATION = [
    {"type": "human", "content": "Weather in Tokyo?"},
    {
        "type": "ai",
        "content": "",
        "tool_calls": [{"name": "get_weather", "args": {"city": "Tokyo", "units": {"t": "C"}}}],
    },
    {"type": "tool", "content": '{"temp": 18}'},
    {"type": "ai", "content": "It is 18 °C in Tokyo."},
]
MULTI_TURN: list[dict[str, Any]] = [
    {
        "user_input": CONVERSATION,
        "reference": "The user learns Tokyo's weather",
        "reference_tool_calls": [
            {"name": "get_weather", "args": {"city": "Tokyo", "units": {"t": "C"}}}
        ],
        "reference_topics": ["weather"],
    }
]


def _csv(path: Path, rows: list[dict[str, Any]], *, bom: bool = False) -> Path:
    """Rows as a CSV file the way a spreadsheet exports them: lists and dicts as JSON text."""
    columns = list(rows[0])
    with path.open("w", encoding="utf-8-sig" if bom else "utf-8", newline="") as file:
        writer = csv.DictWriter(file, fieldnames=columns)
        writer.writeheader()
        for row in rows:
            writer.writerow(
                {
                    key: json.dumps(value, ensure_ascii=False)
                    if isinstance(value, list | dict)
                    else value
                    for key, value in row.items()
                }
            )
    return path


def test_single_turn_rows_read_the_same_from_every_table_format(tmp_path: Path):
    frame = pd.DataFrame(SINGLE_TURN)
    from_frame = load_dataset(frame)
    frame.to_parquet(tmp_path / "data.parquet")
    from_parquet = load_dataset(tmp_path / "data.parquet")
    from_csv = load_dataset(_csv(tmp_path / "data.csv", SINGLE_TURN, bom=True))
    datasets = pytest.importorskip("datasets", reason="the [hf] extra")
    datasets.Dataset.from_pandas(frame).save_to_disk(str(tmp_path / "saved"))
    from_hf = load_dataset(tmp_path / "saved")

    first, second = from_frame.samples
    assert first.user_input == "When was the Eiffel Tower built?"
    assert first.retrieved_contexts == [
        "The Eiffel Tower was built from 1887 to 1889.",
        "It is 330 m.",
    ]
    assert first.rubrics == {"score1_description": "wrong", "score5_description": "exact years"}
    assert second.user_input == "Кто написал «Войну и мир»? 📚"
    assert second.rubrics is None
    assert from_frame.ids == ["sample-001", "sample-002"]
    for other in (from_parquet, from_csv, from_hf):
        assert other.samples == from_frame.samples
    assert (from_csv.name, from_parquet.name, from_hf.name) == ("data", "data", "saved")


def test_a_conversation_in_user_input_is_the_sample_conversation_in_every_format(
    tmp_path: Path,
):
    frame = pd.DataFrame(MULTI_TURN)
    expected = [
        HumanMessage("Weather in Tokyo?"),
        AIMessage("", [ToolCall("get_weather", {"city": "Tokyo", "units": {"t": "C"}})]),
        ToolMessage('{"temp": 18}'),
        AIMessage("It is 18 °C in Tokyo."),
    ]
    from_frame = load_dataset(frame)
    (sample,) = from_frame.samples
    assert sample.user_input is None
    assert sample.user_input_messages == expected
    assert sample.reference_alternatives() == [
        [ToolCall("get_weather", {"city": "Tokyo", "units": {"t": "C"}})]
    ]
    frame.to_parquet(tmp_path / "data.parquet")  # Arrow structs: absent keys come back null
    assert load_dataset(tmp_path / "data.parquet").samples == from_frame.samples
    assert load_dataset(_csv(tmp_path / "data.csv", MULTI_TURN)).samples == from_frame.samples
    datasets = pytest.importorskip("datasets", reason="the [hf] extra")
    hf = datasets.Dataset.from_list(MULTI_TURN)
    assert load_dataset(hf).samples == from_frame.samples


def test_openai_messages_and_python_spelled_cells_are_read(tmp_path: Path):
    path = tmp_path / "data.csv"
    path.write_text(
        "id,messages,retrieved_contexts\n"
        'r1,"[{""role"": ""user"", ""content"": ""hi""}, '
        '{""role"": ""assistant"", ""content"": ""hello""}]","[\'a passage\', \'another\']"\n',
        encoding="utf-8",
    )
    (sample,) = load_dataset(path).samples
    assert sample.id == "r1"
    assert sample.user_input_messages == [HumanMessage("hi"), AIMessage("hello")]
    assert sample.retrieved_contexts == ["a passage", "another"]


def test_a_malformed_json_cell_names_the_file_line_row_and_column(tmp_path: Path):
    path = tmp_path / "data.csv"
    path.write_text(
        "user_input,retrieved_contexts\n"
        'ok,"[""fine""]"\n'
        'broken,"[""a cell over two lines,\n'
        'unterminated]"\n',
        encoding="utf-8",
    )
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    error = caught.value
    assert (error.line, error.location, error.field) == (4, "row 2", "retrieved_contexts")
    assert str(error).startswith(f"{path}:4 (row 2): field 'retrieved_contexts': not valid JSON")


def test_an_invalid_value_names_the_row_and_the_column_path(tmp_path: Path):
    frame = pd.DataFrame(
        {
            "question": ["a", "b"],
            "reference_tool_calls": [[{"name": "x"}], [{"args": {"q": 1}}]],
        }
    )
    with pytest.raises(DatasetError) as caught:
        load_dataset(frame, column_map={"question": "user_input"})
    assert caught.value.location == "row 2"
    assert caught.value.field.startswith("reference_tool_calls[0]")
    assert str(caught.value).startswith("<DataFrame> (row 2): field 'reference_tool_calls[0]")


def test_unknown_columns_are_errors_with_the_fix_and_the_map_renames_them():
    frame = pd.DataFrame({"question": ["q?"], "answer": ["a."], "team": ["search"]})
    with pytest.raises(DatasetError, match=r"column 'question' is not a sample field") as caught:
        load_dataset(frame)
    assert "--map question=FIELD" in str(caught.value)
    assert "--map question=metadata.question" in str(caught.value)
    with pytest.raises(DatasetError, match="did you mean 'response'"):
        load_dataset(frame, column_map={"question": "user_input", "answer": "respons"})
    dataset = load_dataset(
        frame,
        column_map=parse_column_map(
            ["question=user_input", "answer = response", "team=metadata.team"]
        ),
    )
    (sample,) = dataset.samples
    assert (sample.user_input, sample.response, sample.metadata) == ("q?", "a.", {"team": "search"})


def test_column_map_problems_are_named():
    frame = pd.DataFrame({"question": ["q?"], "user_input": ["also"]})
    with pytest.raises(DatasetError, match="column_map names column 'prompt'"):
        load_dataset(frame, column_map={"prompt": "user_input"})
    with pytest.raises(DatasetError, match="columns 'question' and 'user_input' both fill"):
        load_dataset(frame, column_map={"question": "user_input"})
    with pytest.raises(ValueError, match="expected COLUMN=FIELD"):
        parse_column_map(["question"])
    with pytest.raises(ValueError, match="mapped twice"):
        parse_column_map(["a=user_input", "a=response"])


def test_empty_files_give_empty_datasets_and_ids_must_be_unique(tmp_path: Path):
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    assert len(load_dataset(tmp_path / "empty.csv")) == 0
    (tmp_path / "header.csv").write_text("user_input,response\n", encoding="utf-8")
    assert len(load_dataset(tmp_path / "header.csv")) == 0
    assert len(load_dataset(pd.DataFrame({"user_input": []}))) == 0
    (tmp_path / "twice.csv").write_text("id,user_input\n7,a\n7,b\n", encoding="utf-8")
    with pytest.raises(
        DatasetError, match=r"twice\.csv:3 \(row 2\): field 'id': id '7' is used twice"
    ):
        load_dataset(tmp_path / "twice.csv")


def test_a_row_longer_than_the_header_and_a_missing_file_are_errors(tmp_path: Path):
    (tmp_path / "long.csv").write_text("user_input\na,b\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"long\.csv:2 \(row 1\): the row has more cells"):
        load_dataset(tmp_path / "long.csv")
    with pytest.raises(DatasetError, match="dataset file not found"):
        load_dataset(tmp_path / "none.csv")
    (tmp_path / "bad.parquet").write_text("not parquet", encoding="utf-8")
    with pytest.raises(DatasetError, match="cannot read the Parquet file"):
        load_dataset(tmp_path / "bad.parquet")


def test_empty_csv_cells_are_absent_and_numeric_ids_are_strings(tmp_path: Path):
    path = tmp_path / "data.csv"
    path.write_text("id,user_input,response,reference\n12,q,,\n", encoding="utf-8")
    (sample,) = load_dataset(path).samples
    assert (sample.id, sample.response, sample.reference) == ("12", None, None)
    frame = pd.DataFrame({"id": [1.0, None], "user_input": ["a", "b"]})  # a gap makes floats
    assert load_dataset(frame).ids == ["1", "sample-002"]


def test_sampling_is_seeded_and_keeps_the_dataset_order():
    frame = pd.DataFrame({"user_input": [f"question {n}" for n in range(50)]})
    dataset = load_dataset(frame)
    first = load_dataset(frame, sample=10, seed=3)
    assert first.ids == load_dataset(frame, sample=10, seed=3).ids
    assert first.ids == sorted(first.ids)
    assert len(first) == 10 and set(first.ids) <= set(dataset.ids)
    assert load_dataset(frame, sample=10, seed=4).ids != first.ids
    assert sample_dataset(dataset, 100) is dataset
    with pytest.raises(ValueError, match="at least 1"):
        load_dataset(frame, sample=0)


def test_a_missing_extra_names_the_pip_command():
    with pytest.raises(MissingExtraError) as caught:
        import_extra(
            "ragas_boot_no_such_module", feature="reading X", extra="tables", package="xlib"
        )
    assert str(caught.value) == (
        "reading X needs the 'xlib' package: run pip install 'ragas-boot[tables]'"
    )


def test_a_dataset_dict_needs_one_split_and_other_objects_are_refused(tmp_path: Path):
    datasets = pytest.importorskip("datasets", reason="the [hf] extra")
    rows = datasets.Dataset.from_list(SINGLE_TURN[:1])
    assert len(load_dataset(datasets.DatasetDict({"test": rows}))) == 1
    with pytest.raises(DatasetError, match="the splits train, test: pass one split"):
        load_dataset(datasets.DatasetDict({"train": rows, "test": rows}))
    with pytest.raises(TypeError, match="got list"):
        load_dataset([{"user_input": "q"}])
    (tmp_path / "data.yaml").write_text("- {user_input: q}\n", encoding="utf-8")
    with pytest.raises(ValueError, match="column_map applies to tables"):
        load_dataset(tmp_path / "data.yaml", column_map={"q": "user_input"})
    (tmp_path / "not-saved").mkdir()
    with pytest.raises(DatasetError, match="not a dataset saved with save_to_disk"):
        load_dataset(tmp_path / "not-saved")
