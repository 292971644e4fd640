"""Where a dataset run's samples come from: ``--from``, ``--map``, ``--sample``, ``--seed``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragas_boot.cli._console import message
from ragas_boot.cli._errors import UsageError
from ragas_boot.errors import RagasBootError

if TYPE_CHECKING:
    from ragas_boot.cli._options import RunOptions
    from ragas_boot.datasets import Dataset

__all__ = ["load_source"]


def load_source(options: RunOptions) -> Dataset:
    """The dataset as ``--from``, ``--map``, ``--sample`` and ``--seed`` ask; an OTLP import
    says on stderr how many traces it read and what it skipped.

    Raises:
        UsageError: a bad ``--map``, ``--map`` for a source that is not a table, ``--seed``
            without ``--sample``.
        RagasBootError: the dataset is unreadable (file, line or row named).
    """
    from ragas_boot.datasets import load_dataset, load_otlp, parse_column_map

    if options.sample_seed is not None and options.sample is None:
        raise UsageError("--seed picks the samples of --sample N: give --sample too")
    try:
        column_map = parse_column_map(options.column_map) or None
    except ValueError as error:
        raise UsageError(f"--map: {error}") from None
    chosen = options.source_format
    if chosen == "otlp":
        if column_map:
            raise UsageError("--map applies to tables (csv, parquet, hf), not to OTLP traces")
        imported = load_otlp(options.dataset, sample=options.sample, seed=options.sample_seed)
        message(f"{options.dataset}: {imported.summary()}")
        return imported.dataset
    if column_map and chosen in ("yaml", "jsonl"):
        raise UsageError(f"--map applies to tables (csv, parquet, hf), not to {chosen}")
    try:
        return load_dataset(
            options.dataset,
            format=chosen,
            column_map=column_map,
            sample=options.sample,
            seed=options.sample_seed,
        )
    except RagasBootError:
        raise
    except ValueError as error:  # a column map for a file that is not a table
        raise UsageError(f"--map: {error}") from None
