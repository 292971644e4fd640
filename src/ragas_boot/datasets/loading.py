"""load_dataset(): one entry for every place samples come from."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from ragas_boot.datasets.files import DATASET_FORMATS, load_file
from ragas_boot.datasets.model import Dataset, sample_dataset
from ragas_boot.datasets.otlp import load_otlp
from ragas_boot.datasets.tables import (
    ColumnMap,
    dataset_from_hf,
    dataset_from_pandas,
    load_csv,
    load_hf_directory,
    load_parquet,
)
from ragas_boot.errors import DatasetError

__all__ = ["SOURCE_FORMATS", "SourceFormat", "load_dataset"]

#: How a source is read; ``None`` in :func:`load_dataset`: from the suffix or the object.
SourceFormat = Literal["yaml", "jsonl", "csv", "parquet", "hf", "otlp"]

#: File suffix → format, for the suffixes :func:`load_dataset` recognises.
SOURCE_FORMATS: dict[str, SourceFormat] = {
    **DATASET_FORMATS,
    ".csv": "csv",
    ".parquet": "parquet",
    ".pq": "parquet",
}


def load_dataset(
    source: str | os.PathLike[str] | Any,
    *,
    format: SourceFormat | None = None,
    column_map: ColumnMap | None = None,
    sample: int | None = None,
    seed: int | None = None,
) -> Dataset:
    """Read samples from a file, a directory, a DataFrame or a Hugging Face dataset.

    Args:
        source: a ``.yaml``/``.yml``/``.json``/``.jsonl`` dataset file, a ``.csv`` or
            ``.parquet`` table, a directory saved by ``datasets.Dataset.save_to_disk``, an
            OTLP JSON trace file (with ``format="otlp"``), a ``pandas.DataFrame`` or a
            ``datasets.Dataset``.
        format: how to read ``source``; default: from its suffix, or the object's type.
        column_map: tables only: source column → sample field
            (``{"question": "user_input"}``; ``metadata.KEY`` keeps a column as metadata).
        sample: keep this many samples, chosen at random, in their order (all when None).
        seed: the random seed of ``sample``.

    Raises:
        DatasetError: the source is unreadable or a sample invalid (file, line or row, and
            field or column named).
        MissingExtraError: the format's extra (``[tables]``, ``[hf]``, ``[traces]``) is not
            installed; the message gives the pip command.
        ValueError: ``column_map`` given for a source that is not a table, or ``sample < 1``.
    """
    dataset = _read(source, format, column_map, sample, seed)
    if sample is not None and format != "otlp":
        dataset = sample_dataset(dataset, sample, seed=seed)
    return dataset


def _read(
    source: Any,
    format: SourceFormat | None,
    column_map: ColumnMap | None,
    sample: int | None,
    seed: int | None,
) -> Dataset:
    if sample is not None and sample < 1:
        raise ValueError(f"a sample size must be at least 1, got {sample}")
    if not isinstance(source, str | os.PathLike):
        kind = type(source)
        if kind.__module__.startswith("pandas") and kind.__name__ == "DataFrame":
            return dataset_from_pandas(source, column_map=column_map)
        if kind.__module__.startswith("datasets"):
            return dataset_from_hf(source, column_map=column_map)
        raise TypeError(
            "load_dataset reads a path, a pandas.DataFrame or a datasets.Dataset, got "
            f"{kind.__name__}"
        )
    path = Path(source)
    chosen = format or _format_of(path)
    if column_map and chosen not in ("csv", "parquet", "hf"):
        raise ValueError(f"column_map applies to tables (csv, parquet, hf), not to {chosen}")
    if chosen == "csv":
        return load_csv(path, column_map=column_map)
    if chosen == "parquet":
        return load_parquet(path, column_map=column_map)
    if chosen == "hf":
        return load_hf_directory(path, column_map=column_map)
    if chosen == "otlp":
        return load_otlp(path, sample=sample, seed=seed).dataset
    return load_file(path)


def _format_of(path: Path) -> SourceFormat:
    if path.is_dir():
        return "hf"
    suffix = path.suffix.lower()
    if suffix not in SOURCE_FORMATS:
        known = ", ".join(SOURCE_FORMATS)
        raise DatasetError(
            f"unknown dataset format '{suffix}'; use one of {known}, a directory saved by "
            "datasets.Dataset.save_to_disk, or format='otlp' for OTLP JSON traces",
            file=str(path),
        )
    return SOURCE_FORMATS[suffix]
