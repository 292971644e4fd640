"""Bounded reading of Parquet files: the rows, without decoding more than a bound.

A Parquet file stores its values encoded and compressed, and the encodings are built to make
repeated values cheap: a column whose one 32 KiB string repeats 100,000 times is a
dictionary of one entry plus run-length-encoded indices, a 1 KB file that is 3.2 GB once
every value is a string of its own (which is what a row of Python objects holds). Reading
a file must cost memory in proportion to what the rows will hold, whatever the file's size,
so the decoded size is bounded before anything is decoded:

* from the footer, before a page is read: each column chunk's page bytes once decompressed
  (a compression bomb) and its number of values (a run-length bomb: each value becomes at
  least a pointer, 8 bytes);
* then the pages are read in batches of rows with every text and binary column kept
  dictionary-encoded (as the file stores them; pyarrow's ``read_dictionary``), and what the
  values will take once decoded is counted from the dictionary entries' lengths. The file is
  refused at the first batch that takes the count over the bound, before any value is
  decoded; only then are the rows made.

Text written with the ``DELTA_*`` encodings (which pyarrow cannot read into a dictionary) is
decoded batch by batch of rows and counted the same way.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ragas_boot._extras import import_extra
from ragas_boot.errors import DatasetError

__all__ = ["read_parquet"]

#: Rows per batch read: small enough that one batch of decoded rows is cheap.
_BATCH_ROWS = 1024
#: A value takes at least a pointer once it is a Python object in a row.
_VALUE_BYTES = 8
#: Parquet logical (and legacy converted) types of BYTE_ARRAY leaves that hold text or bytes
#: (a decimal may be a BYTE_ARRAY too, and is read as it is).
_TEXT_TYPES = frozenset({"STRING", "UTF8", "NONE", "JSON", "ENUM", "BSON"})
#: Encodings pyarrow can read into a dictionary; the DELTA_* encodings of text it cannot.
_DICTIONARY_READABLE = frozenset(
    {"PLAIN", "PLAIN_DICTIONARY", "RLE_DICTIONARY", "RLE", "BIT_PACKED"}
)


def read_parquet(
    file: Path, *, max_columns: int, max_decoded_bytes: int
) -> tuple[list[str], list[dict[str, Any]]]:
    """The column names and the rows (plain Python values) of a Parquet file.

    Raises:
        DatasetError: the file is missing or not Parquet, has more than ``max_columns``
            columns, or decodes to more than ``max_decoded_bytes`` bytes (the message names
            the file and the bound).
        MissingExtraError: pyarrow is not installed.
    """
    parquet = _pyarrow("pyarrow.parquet")
    arrow, compute = _pyarrow("pyarrow"), _pyarrow("pyarrow.compute")
    source = str(file)
    if not file.is_file():
        raise DatasetError("dataset file not found", file=source)
    try:
        with parquet.ParquetFile(file) as footer:  # reads the footer only
            metadata = footer.metadata
            columns = list(footer.schema_arrow.names)
    except Exception as error:  # pyarrow raises ArrowInvalid, OSError, ... for a bad file
        raise DatasetError(f"cannot read the Parquet file: {error}", file=source) from None
    if len(columns) > max_columns:
        raise DatasetError(
            f"the table has {len(columns):,} columns, more than the {max_columns:,} a table "
            "may have (TableLimits.max_columns)",
            file=source,
        )
    _check_footer(metadata, source, max_decoded_bytes)
    try:
        with parquet.ParquetFile(file, read_dictionary=_dictionary_leaves(metadata)) as reader:
            batches: list[Any] = []
            counted_rows = decoded = 0
            for batch in reader.iter_batches(batch_size=_BATCH_ROWS):
                counted_rows += batch.num_rows
                decoded += sum(_decoded_bytes(column, arrow, compute) for column in batch.columns)
                if decoded > max_decoded_bytes:
                    raise DatasetError(
                        f"refused before decoding: its first {counted_rows:,} rows decode to "
                        f"{decoded:,} bytes, more than the {max_decoded_bytes:,} a Parquet "
                        "file may decode to (TableLimits.max_decoded_bytes); split the file",
                        file=source,
                    )
                batches.append(batch)
        rows: list[dict[str, Any]] = []
        for index, batch in enumerate(batches):
            # Maps as dicts (a map column is a mapping, as in a DataFrame); a key given twice
            # in one map is an error rather than a silently dropped entry.
            rows.extend(batch.to_pylist(maps_as_pydicts="strict"))
            batches[index] = None  # each Arrow batch is freed as its rows are made
    except DatasetError:
        raise
    except Exception as error:
        raise DatasetError(f"cannot read the Parquet file: {error}", file=source) from None
    return columns, rows


def _pyarrow(module: str) -> Any:
    return import_extra(module, feature="reading Parquet", extra="tables", package="pyarrow")


def _check_footer(metadata: Any, source: str, bound: int) -> None:
    """Refuse a file whose footer alone shows it decodes to more than ``bound`` bytes."""
    least = 0
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            chunk = row_group.column(index)
            least += max(chunk.total_uncompressed_size, chunk.num_values * _VALUE_BYTES)
    if least > bound:
        raise DatasetError(
            f"refused before reading: its footer gives {metadata.num_rows:,} rows whose pages "
            f"and values take at least {least:,} bytes decoded, more than the {bound:,} a "
            "Parquet file may decode to (TableLimits.max_decoded_bytes); split the file",
            file=source,
        )


def _dictionary_leaves(metadata: Any) -> list[str]:
    """The paths of the text and binary leaf columns that can be read dictionary-encoded."""
    readable = set(range(metadata.num_columns))
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for index in range(row_group.num_columns):
            if not set(row_group.column(index).encodings) <= _DICTIONARY_READABLE:
                readable.discard(index)
    leaves = []
    for index in sorted(readable):
        column = metadata.schema.column(index)
        if (
            column.physical_type == "BYTE_ARRAY"
            and column.logical_type.type in _TEXT_TYPES
            and column.converted_type in _TEXT_TYPES
        ):
            leaves.append(column.path)
    return leaves


def _decoded_bytes(array: Any, arrow: Any, compute: Any) -> int:
    """The bytes ``array``'s values take decoded: a dictionary-encoded value counts its
    entry's length, as it will once it is a string of its own."""
    kind = array.type
    types = arrow.types
    if types.is_dictionary(kind):
        values = kind.value_type
        if not (
            types.is_string(values)
            or types.is_large_string(values)
            or types.is_binary(values)
            or types.is_large_binary(values)
        ):
            return int(array.nbytes)
        lengths = compute.binary_length(array.dictionary)
        total = compute.sum(compute.take(lengths, array.indices)).as_py()
        return int(total or 0) + _VALUE_BYTES * len(array)
    if types.is_struct(kind):
        return sum(_decoded_bytes(child, arrow, compute) for child in array.flatten())
    if types.is_map(kind):
        keys = _decoded_bytes(array.keys, arrow, compute)
        return keys + _decoded_bytes(array.items, arrow, compute) + _VALUE_BYTES * len(array)
    if types.is_list(kind) or types.is_large_list(kind):
        return _decoded_bytes(array.flatten(), arrow, compute) + _VALUE_BYTES * len(array)
    if types.is_fixed_size_list(kind):
        return _decoded_bytes(array.flatten(), arrow, compute)
    return int(array.nbytes)
