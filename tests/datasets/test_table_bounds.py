"""Tables cost bounded time and memory: long cells, wide headers, duplicate columns and
Parquet files that decode to far more than they weigh."""

from __future__ import annotations

import csv
import json
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from ragas_boot.datasets import TABLE_LIMITS, TableLimits, load_csv, load_dataset, load_parquet
from ragas_boot.errors import DatasetError

pd = pytest.importorskip("pandas", reason="the [tables] extra")
pa = pytest.importorskip("pyarrow", reason="the [tables] extra")
pq = pytest.importorskip("pyarrow.parquet", reason="the [tables] extra")

SCRIPT = Path(sys.executable).with_name("ragas-boot")


def test_a_dataframe_with_two_columns_of_one_name_is_refused_like_a_csv(tmp_path: Path):
    frame = pd.DataFrame([["q", "first", "second"]], columns=["user_input", "response", "response"])
    with pytest.raises(DatasetError) as caught:
        load_dataset(frame)
    assert caught.value.field == "response"
    assert str(caught.value) == (
        "<DataFrame>: field 'response': column 'response' appears 2 times in the header; a "
        "column name may appear once"
    )
    (tmp_path / "twice.csv").write_text("user_input,response,response\nq,a,b\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"twice\.csv:1: field 'response': column 'response' "):
        load_dataset(tmp_path / "twice.csv")
    # Arrow tables may repeat a name too; the rows would keep only one of them.
    table = pa.table([["q"], ["a"], ["b"]], names=["user_input", "response", "response"])
    pq.write_table(table, tmp_path / "twice.parquet")
    with pytest.raises(DatasetError, match="column 'response' appears 2 times"):
        load_dataset(tmp_path / "twice.parquet")


def test_a_csv_cell_longer_than_the_csv_modules_default_is_read(tmp_path: Path):
    passage = "Долгий абзац. " * 20_000  # 280,000 characters, over csv's 131,072
    path = tmp_path / "long.csv"
    with path.open("w", encoding="utf-8", newline="") as file:
        writer = csv.writer(file)
        writer.writerow(["user_input", "retrieved_contexts"])
        writer.writerow(["short", json.dumps(["a"])])
        writer.writerow(["long", json.dumps([passage, "second"], ensure_ascii=False)])
    dataset = load_dataset(path)
    assert dataset.samples[1].retrieved_contexts == [passage, "second"]
    assert csv.field_size_limit() == 131_072  # the interpreter-wide setting is put back


def test_a_csv_cell_over_the_bound_names_the_file_its_line_and_the_bound(tmp_path: Path):
    path = tmp_path / "long.csv"
    path.write_text(
        'user_input,response\nq1,"two\nlines"\nq2,' + "x" * 2_000 + "\nq3,c\n", encoding="utf-8"
    )
    with pytest.raises(DatasetError) as caught:
        load_csv(path, limits=TableLimits(max_cell_chars=1_000))
    assert (caught.value.line, caught.value.location) == (4, "row 2")
    assert str(caught.value) == (
        f"{path}:4 (row 2): a cell has more than 1,000 characters, the most a CSV cell may "
        "have (TableLimits.max_cell_chars)"
    )
    assert csv.field_size_limit() == 131_072
    assert TABLE_LIMITS.max_cell_chars == 16 * 1024 * 1024


def test_a_csv_with_a_million_columns_is_refused_at_its_header(tmp_path: Path):
    path = tmp_path / "wide.csv"
    header = ",".join(f"c{index}" for index in range(1_000_000))  # 6.9 MB
    path.write_text(header + "\n" + "," * 999_999 + "\n", encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    assert str(caught.value) == (
        f"{path}:1: the header has 1,000,000 columns, more than the 10,000 a table may have "
        "(TableLimits.max_columns)"
    )


def test_a_wide_header_at_the_bound_reports_a_duplicate_at_its_end(tmp_path: Path):
    names = ["user_input", *(f"c{index}" for index in range(9_998)), "c0"]
    path = tmp_path / "wide.csv"
    path.write_text(",".join(names) + "\n", encoding="utf-8")
    with pytest.raises(DatasetError, match=r"wide\.csv:1: field 'c0': column 'c0' appears 2 times"):
        load_dataset(path)


def _dictionary_bomb(path: Path, rows: int, length: int = 32 * 1024) -> Path:
    """``rows`` copies of one string: one dictionary entry and run-length-encoded indices,
    without the Arrow schema that would tell pyarrow to keep the dictionary (as a file
    written by another tool)."""
    column = pa.DictionaryArray.from_arrays(pa.array([0] * rows, pa.int32()), ["x" * length])
    pq.write_table(pa.table({"user_input": column}), path, compression="zstd", store_schema=False)
    return path


def test_a_parquet_dictionary_bomb_is_refused_before_decoding_under_a_memory_limit(
    tmp_path: Path,
):
    bomb = _dictionary_bomb(tmp_path / "bomb.parquet", rows=100_000)  # 3.2 GB decoded
    assert bomb.stat().st_size < 2_000
    limit = 1024**3

    def limit_memory() -> None:  # in the child: 1 GiB of address space
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    completed = subprocess.run(
        [str(SCRIPT), "evaluate", str(bomb), "--metric", "tool_call_accuracy"],
        preexec_fn=limit_memory,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert completed.returncode == 2, completed.stderr
    assert completed.stderr.startswith(
        f"ragas-boot: error: {bomb}: refused before decoding: its first 16,384 rows decode to "
        "537,001,984 bytes, more than the 536,870,912 a Parquet file may decode to "
        "(TableLimits.max_decoded_bytes); split the file"
    )
    assert "Traceback" not in completed.stderr


def test_a_parquet_file_within_the_bound_reads_and_one_over_it_is_named(tmp_path: Path):
    path = _dictionary_bomb(tmp_path / "repeated.parquet", rows=3_000, length=1_000)
    assert len(load_parquet(path)) == 3_000
    with pytest.raises(DatasetError) as caught:
        load_parquet(path, limits=TableLimits(max_decoded_bytes=1_500_000))
    assert str(caught.value) == (
        f"{path}: refused before decoding: its first 2,048 rows decode to 2,064,384 bytes, "
        "more than the 1,500,000 a Parquet file may decode to "
        "(TableLimits.max_decoded_bytes); split the file"
    )


def test_a_footer_over_the_bound_is_refused_before_a_page_is_read(tmp_path: Path):
    # 200,000 run-length-encoded values: a few hundred bytes, at least 1.6 MB as objects.
    path = tmp_path / "runs.parquet"
    pq.write_table(pa.table({"id": pa.array([7] * 200_000, pa.int8())}), path)
    with pytest.raises(DatasetError) as caught:
        load_parquet(path, limits=TableLimits(max_decoded_bytes=1_000_000))
    assert str(caught.value) == (
        f"{path}: refused before reading: its footer gives 200,000 rows whose pages and "
        "values take at least 1,600,000 bytes decoded, more than the 1,000,000 a Parquet "
        "file may decode to (TableLimits.max_decoded_bytes); split the file"
    )


@pytest.mark.parametrize(
    ("encoding", "refusal"),
    [
        # Prefix-shared: small pages, so the count of the decoded batches refuses it.
        ("DELTA_BYTE_ARRAY", "refused before decoding: its first 2,048 rows decode to"),
        # The bytes as they are: its footer already shows them.
        ("DELTA_LENGTH_BYTE_ARRAY", "refused before reading: its footer gives 3,000 rows"),
    ],
)
def test_delta_encoded_strings_are_read_and_bounded(tmp_path: Path, encoding: str, refusal: str):
    """The DELTA encodings (Spark's fallbacks for text) cannot be read as a dictionary."""
    path = tmp_path / "delta.parquet"
    texts = [f"{'shared prefix ' * 50}{index}" for index in range(3_000)]
    pq.write_table(
        pa.table({"user_input": texts}),
        path,
        use_dictionary=False,
        column_encoding={"user_input": encoding},
    )
    assert [sample.user_input for sample in load_parquet(path).samples] == texts
    with pytest.raises(DatasetError, match=refusal):
        load_parquet(path, limits=TableLimits(max_decoded_bytes=1_000_000))


def test_a_map_column_is_a_mapping(tmp_path: Path):
    path = tmp_path / "map.parquet"
    metadata = pa.array(
        [[("team", "search"), ("owner", None)], []], pa.map_(pa.string(), pa.string())
    )
    pq.write_table(pa.table({"user_input": ["a", "b"], "metadata": metadata}), path)
    first, second = load_parquet(path).samples
    assert (first.metadata, second.metadata) == ({"team": "search"}, {})
