"""Tables as datasets: CSV, Parquet, pandas DataFrames and Hugging Face datasets.

One row is one sample; columns are the :class:`~ragas_boot.samples.Sample` fields, with
ragas's names accepted as they are (``user_input``, ``response``, ``retrieved_contexts``,
``reference``, ``reference_contexts``, ``rubrics`` or ``rubric``, ``reference_tool_calls``,
``reference_topics``; the Java camelCase spellings too) and ``id`` (or ``sample_id``) for the
sample id. A row is read like any ragas row (:func:`~ragas_boot.datasets.sample_from_fields`):
a ``user_input`` holding a list of messages is the conversation, ragas's (``{"type":
"human", ...}``) or OpenAI's (``{"role": "user", ...}``, also as a ``messages`` column), and
ragas's fields that no metric reads (``multi_responses``, ``persona_name``, ...) are kept in
``metadata``.

* **CSV** (read with the standard :mod:`csv` module, UTF-8 with or without a BOM): list,
  mapping and message columns hold JSON text (``["passage one", "passage two"]``), or the
  Python spelling that ragas's and pandas' ``to_csv`` write (``['passage one']``); a
  ``user_input`` cell is read as JSON only when it starts with ``[{`` (a message list). An
  empty cell is an absent field.
* **Parquet** (pyarrow, ``[tables]`` extra; read within a bound on its decoded size,
  :mod:`ragas_boot.datasets._parquet`), **DataFrames** (pandas) and **Hugging Face
  datasets** (``[hf]`` extra): list, struct and map columns are native; a string in such a
  column is still read as JSON.

Nulls: in a native value, a mapping entry whose value is null is absent, at any depth and in
every column, because Arrow gives every struct of a column every key any row has (and a
DataFrame read from Arrow holds those nulls too); JSON text keeps the nulls it spells, as a
YAML or JSONL file does.

``column_map`` renames columns before they are read (``{"question": "user_input"}``, the CLI's
``--map question=user_input``); a target ``metadata.KEY`` puts the column into the sample's
``metadata``. Any other column is an error naming it: nothing is silently dropped. Every
problem is a :class:`~ragas_boot.errors.DatasetError` naming the file, the row (and the CSV
line) and the column; :data:`TABLE_LIMITS` bounds the columns, a CSV cell and a Parquet file's
decoded size.
"""

from __future__ import annotations

import ast
import csv
import io
import math
import os
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragas_boot._extras import import_extra
from ragas_boot._loading import DATASET_LIMITS, LoadLimitError, load_json
from ragas_boot._validation import did_you_mean
from ragas_boot.datasets._parquet import read_parquet
from ragas_boot.datasets.model import (
    RAGAS_METADATA_FIELDS,
    Dataset,
    default_sample_id,
    read_source_text,
    sample_from_fields,
)
from ragas_boot.errors import DatasetError, SampleValidationError
from ragas_boot.samples import Sample
from ragas_boot.samples._base import message_of

if TYPE_CHECKING:
    import pandas

__all__ = [
    "TABLE_LIMITS",
    "ColumnMap",
    "TableLimits",
    "dataset_from_hf",
    "dataset_from_pandas",
    "dataset_from_records",
    "load_csv",
    "load_hf_directory",
    "load_parquet",
    "parse_column_map",
]

#: Source column → the sample field it fills (``metadata.KEY`` for a metadata entry).
ColumnMap = Mapping[str, str]


@dataclass(frozen=True, slots=True)
class TableLimits:
    """Bounds on one table, so that reading it costs bounded time and memory.

    Attributes:
        max_columns: columns a table may have (every one must be a sample field or be
            mapped, so real tables have tens).
        max_cell_chars: characters one CSV cell may hold (a long retrieved passage, or all
            of a sample's passages as JSON); Python's :mod:`csv` stops at 131,072 unless told.
        max_decoded_bytes: bytes a Parquet file's values may take decoded, checked before
            they are (:mod:`ragas_boot.datasets._parquet`); the size a YAML, JSONL or CSV
            dataset file may have.
    """

    max_columns: int = 10_000
    max_cell_chars: int = 16 * 1024 * 1024
    max_decoded_bytes: int = DATASET_LIMITS.max_bytes


#: The bounds every table reader applies.
TABLE_LIMITS = TableLimits()

_ID_NAMES = ("id", "sample_id")
_MESSAGES = "messages"
# Fields whose value is a list or a mapping: text in these columns is JSON.
_STRUCTURED = frozenset(
    {
        "retrieved_contexts",
        "reference_contexts",
        "reference_topics",
        "rubrics",
        "user_input_messages",
        "tool_calls",
        "reference_tool_calls",
        "expectations",
        "scenario",
        "agent_run",
        "labels",
        "metadata",
        _MESSAGES,
        "multi_responses",
        "retrieved_context_ids",
        "reference_context_ids",
    }
)
_METADATA_PREFIX = "metadata."


def _field_names() -> dict[str, str]:
    """Every accepted spelling of a column → the sample field (or ``messages`` / ``id``)."""
    names: dict[str, str] = {}
    for name, field in Sample.model_fields.items():
        names[name] = name
        alias = field.validation_alias
        for choice in getattr(alias, "choices", ()):
            if isinstance(choice, str):
                names[choice] = name
    names.update({spelling: "id" for spelling in _ID_NAMES})
    names[_MESSAGES] = _MESSAGES
    names.update({name: name for name in RAGAS_METADATA_FIELDS})
    return names


_FIELDS = _field_names()


def parse_column_map(pairs: Iterable[str]) -> dict[str, str]:
    """``["question=user_input", ...]`` (the CLI's ``--map``) as a column map.

    Raises:
        ValueError: a pair is not ``COLUMN=FIELD`` or names a column twice.
    """
    mapping: dict[str, str] = {}
    for pair in pairs:
        column, equals, target = pair.partition("=")
        if not equals or not column.strip() or not target.strip():
            raise ValueError(f"expected COLUMN=FIELD (question=user_input), got {pair!r}")
        column = column.strip()
        if column in mapping:
            raise ValueError(f"column '{column}' is mapped twice")
        mapping[column] = target.strip()
    return mapping


class _Columns:
    """Where each source column goes, checked once against the header."""

    def __init__(
        self,
        columns: Iterable[str],
        column_map: ColumnMap | None,
        source: str,
        *,
        limits: TableLimits = TABLE_LIMITS,
    ) -> None:
        self.columns = list(columns)
        check_header(self.columns, source, limits=limits)
        given = dict(column_map or {})
        present = set(self.columns)
        missing = [column for column in given if column not in present]
        if missing:
            raise DatasetError(
                f"column_map names column '{missing[0]}', which the data does not have; "
                f"columns: {', '.join(self.columns) or 'none'}",
                file=source,
                field=missing[0],
            )
        self.targets: dict[str, str] = {}
        for column in self.columns:
            target = given.get(column, column)
            if target.startswith(_METADATA_PREFIX) and len(target) > len(_METADATA_PREFIX):
                self.targets[column] = target
                continue
            field = _FIELDS.get(target)
            if field is None:
                hint = did_you_mean(target, _FIELDS) or ""
                mapped = f" (mapped from '{column}')" if column in given else ""
                raise DatasetError(
                    f"column '{target}'{mapped} is not a sample field; {hint} Rename it with "
                    f"column_map / --map {column}=FIELD, or keep it with "
                    f"--map {column}=metadata.{column}",
                    file=source,
                    field=column,
                )
            self.targets[column] = field
        seen: dict[str, str] = {}
        for column, target in self.targets.items():
            if target in seen:
                raise DatasetError(
                    f"columns '{seen[target]}' and '{column}' both fill '{target}'",
                    file=source,
                    field=column,
                )
            seen[target] = column
        self.column_of = {target: column for column, target in self.targets.items()}


def check_header(
    columns: list[str], source: str, *, limits: TableLimits, line: int | None = None
) -> None:
    """Refuse a header over ``limits.max_columns`` or naming a column twice (a reader that
    maps columns by name would keep only one of them)."""
    if len(columns) > limits.max_columns:
        raise DatasetError(
            f"the header has {len(columns):,} columns, more than the {limits.max_columns:,} "
            "a table may have (TableLimits.max_columns)",
            file=source,
            line=line,
        )
    counts = Counter(columns)
    twice = next((column for column in columns if counts[column] > 1), None)
    if twice is not None:
        raise DatasetError(
            f"column '{twice}' appears {counts[twice]} times in the header; a column name "
            "may appear once",
            file=source,
            line=line,
            field=twice,
        )


def dataset_from_records(
    records: Iterable[Mapping[str, Any]],
    *,
    column_map: ColumnMap | None = None,
    columns: Iterable[str] | None = None,
    source: str = "<records>",
    name: str | None = None,
    text_cells: bool = False,
    lines: Iterable[int] | None = None,
) -> Dataset:
    """A dataset from rows given as mappings of column → value (the readers' common core).

    Args:
        records: the rows, in order.
        column_map: source column → sample field (see the module docstring).
        columns: the table's columns; default: the first row's keys.
        source: the name used in errors and kept as :attr:`Dataset.path`.
        name: the dataset's name.
        text_cells: every cell is text, as in CSV: an empty cell is absent.
        lines: the file line of each row, for errors (CSV).

    Raises:
        DatasetError: an unknown column, a malformed cell or an invalid sample; the message
            names the row and the column.
    """
    rows = list(records)
    header = list(columns) if columns is not None else list(rows[0]) if rows else []
    layout = _Columns(header, column_map, source)
    line_numbers = list(lines) if lines is not None else [None] * len(rows)
    samples: list[Sample] = []
    first_row: dict[str, int] = {}
    for index, row in enumerate(rows):
        line = line_numbers[index]
        sample = _row_sample(row, index, layout, source, line, text_cells=text_cells)
        if sample.id is None:
            sample = sample.model_copy(update={"id": default_sample_id(index, len(rows))})
        sample_id = sample.id or ""
        if sample_id in first_row:
            raise DatasetError(
                f"id '{sample_id}' is used twice (first in row {first_row[sample_id]}); ids "
                "must be unique",
                file=source,
                line=line,
                location=f"row {index + 1}",
                field=layout.column_of.get("id", "id"),
            )
        first_row[sample_id] = index + 1
        samples.append(sample)
    return Dataset(name=name, path=source, samples=samples)


def _row_sample(
    row: Mapping[str, Any],
    index: int,
    layout: _Columns,
    source: str,
    line: int | None,
    *,
    text_cells: bool,
) -> Sample:
    def error(message: str, column: str) -> DatasetError:
        return DatasetError(
            message, file=source, line=line, location=f"row {index + 1}", field=column
        )

    fields: dict[str, Any] = {}
    metadata: dict[str, Any] = {}
    for column, raw in row.items():
        if column not in layout.targets:
            # csv.DictReader files the cells beyond the header under None.
            if column is None:
                raise error("the row has more cells than the header has columns", "")
            raise error(f"column {column!r} is not in the header", str(column))
        value = _plain(raw)
        if value is None or (text_cells and value == ""):
            continue
        target = layout.targets[column]
        if target.startswith(_METADATA_PREFIX):
            metadata[target.removeprefix(_METADATA_PREFIX)] = value
            continue
        if isinstance(value, str) and _is_json_cell(target, value):
            value = _json_cell(value, error, column)
        fields[target] = value
    if metadata:
        given = fields.get("metadata")
        if given is not None and not isinstance(given, Mapping):
            raise error("metadata must be a JSON object", layout.column_of.get("metadata", ""))
        fields["metadata"] = {**(given or {}), **metadata}
    if isinstance(fields.get("id"), float) and fields["id"].is_integer():
        fields["id"] = int(fields["id"])  # pandas reads an integer column with gaps as float
    try:
        return sample_from_fields(fields)
    except SampleValidationError as problem:
        raise error(message_of(problem), _column_path(problem.field, layout)) from None


def _is_json_cell(target: str, value: str) -> bool:
    if target in _STRUCTURED:
        return True
    # A question may start with "[" ("[urgent] ..."); a message list starts with "[{".
    text = value.lstrip()
    return target == "user_input" and text.startswith("[") and text[1:].lstrip().startswith("{")


def _json_cell(value: str, error: Any, column: str) -> Any:
    try:
        return load_json(value, limits=DATASET_LIMITS)
    except LoadLimitError as problem:
        raise error(f"refused: {problem}", column) from None
    except ValueError as problem:
        literal = _python_literal(value)
        if literal is not None:
            return literal
        raise error(
            f"not valid JSON ({problem}); list, mapping and message columns hold JSON text, "
            f'e.g. ["first passage", "second passage"]',
            column,
        ) from None


def _python_literal(value: str) -> list[Any] | dict[Any, Any] | None:
    """A list or dict written as Python (``['a', 'b']``), as ragas's ``to_csv`` and pandas'
    ``to_csv`` write list cells; ``None`` for anything else.

    :func:`ast.literal_eval` builds literals only (no names, calls or attributes); the cell is
    already within the CSV field limit, and nesting too deep for the parser is refused.
    """
    text = value.strip()
    if not text.startswith(("[", "{")):
        return None
    try:
        parsed = ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return None
    return parsed if isinstance(parsed, list | dict) else None


def _column_path(field: str, layout: _Columns) -> str:
    """A sample field path (``user_input_messages[2].content``) in column terms."""
    root, _, rest = field.partition("[") if "[" in field.split(".")[0] else field.partition(".")
    separator = field[len(root) : len(root) + 1]
    column = layout.column_of.get(root)
    if column is None and root in ("user_input_messages", _MESSAGES):
        column = layout.column_of.get("user_input") or layout.column_of.get(_MESSAGES)
    if column is None:
        return field
    return column + (separator + rest if rest else "")


def _plain(value: Any) -> Any:
    """A cell as plain Python data: numpy arrays and scalars unwrapped, NaN/NA as None, and
    a mapping entry whose value is null left out, at any depth.

    The last is the one null rule for native values (Parquet, Hugging Face datasets,
    DataFrames): Arrow gives every struct of a column every key any row has, filling the
    others with null, and a DataFrame read from Arrow (``pandas.read_parquet``,
    ``Dataset.to_pandas``) holds those nulls too; an invented ``tags: None`` beside
    arguments that never had ``tags`` would fail an exact comparison. JSON text in a cell is
    parsed after this, so the nulls it spells are kept.
    """
    if isinstance(value, str | bool | int) or value is None:
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    if isinstance(value, Mapping):
        plain = ((key, _plain(item)) for key, item in value.items())
        return {key: item for key, item in plain if item is not None}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if type(value).__name__ in ("NAType", "NaTType"):
        return None
    tolist = getattr(value, "tolist", None)  # numpy arrays and scalars
    if callable(tolist):
        return _plain(tolist())
    return value


# --------------------------------------------------------------------------- readers


def load_csv(
    path: str | os.PathLike[str],
    *,
    column_map: ColumnMap | None = None,
    limits: TableLimits = TABLE_LIMITS,
) -> Dataset:
    """Read a CSV file (a header row, then one sample per row; see the module docstring).

    Raises:
        DatasetError: the file is missing or malformed, over one of ``limits`` (columns, a
            cell's length), or a row is invalid (row, line and column named).
    """
    file = Path(path)
    source = str(file)
    # utf-8-sig: spreadsheets write a byte-order mark before the header.
    text = read_source_text(file, encoding="utf-8-sig")
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    header: list[str] = []
    rows: list[dict[str, Any]] = []
    lines: list[int] = []
    ended = 0  # the line the header or the last row read ends on
    with _csv_field_limit(limits.max_cell_chars):
        try:
            header = list(reader.fieldnames or [])
            ended = reader.line_num
            check_header(header, source, limits=limits, line=1)
            for row in reader:
                rows.append(row)
                ended = reader.line_num
                lines.append(ended)
        except csv.Error as error:
            if "field limit" in str(error):
                # The reader stops inside the cell; the row starts after the last one read.
                raise DatasetError(
                    f"a cell has more than {limits.max_cell_chars:,} characters, the most a "
                    "CSV cell may have (TableLimits.max_cell_chars)",
                    file=source,
                    line=ended + 1,
                    location=f"row {len(rows) + 1}" if header else "header",
                ) from None
            raise DatasetError(
                f"not valid CSV: {error}",
                file=source,
                line=reader.line_num,
                location=f"row {len(rows) + 1}",
            ) from None
    return dataset_from_records(
        rows,
        column_map=column_map,
        columns=header,
        source=source,
        name=file.stem,
        text_cells=True,
        lines=lines,
    )


#: csv.field_size_limit is one setting for the whole interpreter: CSV reads that raise it
#: take turns, so none of them puts it back while another is reading.
_FIELD_LIMIT_LOCK = threading.Lock()


@contextmanager
def _csv_field_limit(limit: int) -> Iterator[None]:
    with _FIELD_LIMIT_LOCK:
        previous = csv.field_size_limit(limit)
        try:
            yield
        finally:
            csv.field_size_limit(previous)


def load_parquet(
    path: str | os.PathLike[str],
    *,
    column_map: ColumnMap | None = None,
    limits: TableLimits = TABLE_LIMITS,
) -> Dataset:
    """Read a Parquet file through pyarrow (the ``[tables]`` extra), refusing a file whose
    values decode to more than ``limits.max_decoded_bytes`` before they are decoded.

    Raises:
        DatasetError: the file is missing or not Parquet, over one of ``limits``, or a row is
            invalid.
        MissingExtraError: pyarrow is not installed.
    """
    file = Path(path)
    columns, rows = read_parquet(
        file, max_columns=limits.max_columns, max_decoded_bytes=limits.max_decoded_bytes
    )
    return dataset_from_records(
        rows, column_map=column_map, columns=columns, source=str(file), name=file.stem
    )


def dataset_from_pandas(
    frame: pandas.DataFrame,
    *,
    column_map: ColumnMap | None = None,
    name: str | None = None,
) -> Dataset:
    """A dataset from a pandas DataFrame, one sample per row (ragas's
    ``EvaluationDataset.from_pandas``); the index is not read.

    Raises:
        DatasetError: a column is unknown or a row invalid (``<DataFrame>``, row, column).
    """
    columns = [str(column) for column in frame.columns]
    # Checked before the rows become dicts, where a second column of one name would
    # silently replace the first.
    check_header(columns, "<DataFrame>", limits=TABLE_LIMITS)
    records = (dict(zip(columns, values, strict=True)) for values in frame.itertuples(False))
    return dataset_from_records(
        records, column_map=column_map, columns=columns, source="<DataFrame>", name=name
    )


def dataset_from_hf(
    dataset: Any, *, column_map: ColumnMap | None = None, source: str = "<datasets.Dataset>"
) -> Dataset:
    """A dataset from a Hugging Face ``datasets.Dataset`` (or a ``DatasetDict`` of one split).

    Raises:
        DatasetError: a ``DatasetDict`` with several splits (choose one), an unknown column
            or an invalid row.
    """
    if _is_dataset_dict(dataset):
        names = list(dataset.keys())
        if len(names) != 1:
            raise DatasetError(
                f"a DatasetDict with the splits {', '.join(names)}: pass one split "
                f"(dataset['{names[0] if names else 'test'}'])",
                file=source,
            )
        dataset = dataset[names[0]]
    columns = list(dataset.column_names)
    return dataset_from_records(
        dataset,  # iterating a datasets.Dataset gives its rows as dicts
        column_map=column_map,
        columns=columns,
        source=source,
        name=getattr(getattr(dataset, "info", None), "dataset_name", None),
    )


def _is_dataset_dict(dataset: Any) -> bool:
    return type(dataset).__name__ in ("DatasetDict", "IterableDatasetDict")


def load_hf_directory(
    path: str | os.PathLike[str], *, column_map: ColumnMap | None = None
) -> Dataset:
    """Read a dataset saved with ``Dataset.save_to_disk`` (``datasets.load_from_disk``; the
    ``[hf]`` extra).

    Raises:
        DatasetError: the directory is not a saved dataset, or a row is invalid.
        MissingExtraError: ``datasets`` is not installed.
    """
    hf = import_extra(
        "datasets", feature="reading a Hugging Face dataset", extra="hf", package="datasets"
    )
    directory = Path(path)
    try:
        loaded = hf.load_from_disk(str(directory))
    except (FileNotFoundError, ValueError, OSError) as error:
        raise DatasetError(
            f"not a dataset saved with save_to_disk: {error}", file=str(directory)
        ) from None
    dataset = dataset_from_hf(loaded, column_map=column_map, source=str(directory))
    return dataset.model_copy(update={"name": dataset.name or directory.name})
