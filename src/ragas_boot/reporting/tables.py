"""A run as a table file: CSV (standard :mod:`csv`) or Parquet (pyarrow, ``[tables]``).

The columns are those of ``RunResult.to_pandas()`` (``runs/rows.py``): one row per sample ×
metric, or one per sample with ``wide=True``. :func:`write_table` picks the format from the
suffix (the CLI's ``--out results.csv`` / ``--out results.parquet``).

CSV is read by people in spreadsheets, so its text is made inert (see :func:`render_csv`);
Parquet is typed data for programs and keeps every value exactly.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

from ragas_boot._extras import import_extra
from ragas_boot._text import spreadsheet_cell
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.rows import table_rows

__all__ = ["TABLE_SUFFIXES", "render_csv", "write_parquet", "write_table"]

#: The suffixes :func:`write_table` writes.
TABLE_SUFFIXES = (".csv", ".parquet")


def render_csv(run: RunResult, *, wide: bool = False) -> str:
    """The run as CSV text (a header, then the rows; an absent value is an empty cell).

    Text cells are :func:`~ragas_boot._text.spreadsheet_cell`: a spreadsheet shows them and
    runs none (a leading ``=``, ``+``, ``-`` or ``@`` gets a ``'``; control characters are
    escapes). Parquet and ``to_pandas()`` keep the exact text.
    """
    columns, rows = table_rows(run, wide=wide)
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([spreadsheet_cell(column) for column in columns])
    writer.writerows(
        [spreadsheet_cell(value) if isinstance(value, str) else value for value in cells]
        for cells in ([row.get(column) for column in columns] for row in rows)
    )
    return buffer.getvalue()


def write_parquet(run: RunResult, path: str | os.PathLike[str], *, wide: bool = False) -> None:
    """Write the run as a Parquet file (pyarrow; the ``[tables]`` extra).

    Raises:
        MissingExtraError: pyarrow is not installed.
    """
    pa = import_extra("pyarrow", feature="writing Parquet", extra="tables", package="pyarrow")
    parquet = import_extra(
        "pyarrow.parquet", feature="writing Parquet", extra="tables", package="pyarrow"
    )
    columns, lazy = table_rows(run, wide=wide)
    rows = list(lazy)
    # Columns in order, and typed even when every value is null (a judge that never answered).
    table = pa.table({column: [row.get(column) for row in rows] for column in columns})
    parquet.write_table(table, Path(path))


def write_table(run: RunResult, path: str | os.PathLike[str], *, wide: bool = False) -> None:
    """Write ``.csv`` or ``.parquet`` by the suffix of ``path``.

    Raises:
        ValueError: another suffix.
        MissingExtraError: Parquet without pyarrow.
    """
    file = Path(path)
    suffix = file.suffix.lower()
    if suffix == ".csv":
        file.write_text(render_csv(run, wide=wide), encoding="utf-8", newline="")
    elif suffix == ".parquet":
        write_parquet(run, file, wide=wide)
    else:
        raise ValueError(f"a results table is .csv or .parquet, got '{suffix}'")
