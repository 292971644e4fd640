"""Datasets: the samples a run evaluates, read from wherever they are kept.

* ``files``: ragas-boot's YAML, JSON and JSONL dataset files (and their JSON Schema);
* ``tables``: CSV, Parquet, pandas DataFrames and Hugging Face datasets, with ragas's column
  names and a column map;
* ``otlp``: OpenTelemetry traces exported as OTLP JSON (GenAI and OpenInference conventions);
* ``loading``: :func:`load_dataset`, one entry for all of them;
* ``model``: :class:`Dataset` itself, default ids and random sampling.

The public face is this module: :class:`Dataset` and :func:`load_dataset` (any source, its
:data:`SourceFormat` by suffix in :data:`SOURCE_FORMATS`); the readers of each kind
(:func:`load_file` / :func:`parse_dataset` with :data:`DatasetFormat` and
:data:`DATASET_FORMATS`, :func:`dataset_json_schema`; :func:`load_csv`, :func:`load_parquet`,
:func:`load_hf_directory`, :func:`dataset_from_pandas`, :func:`dataset_from_hf`,
:func:`dataset_from_records`, with a :class:`ColumnMap` (:func:`parse_column_map`) and
:class:`TableLimits` (:data:`TABLE_LIMITS`); :func:`load_otlp` / :func:`parse_otlp`, a
:class:`TraceImport`); and :func:`sample_dataset`, a seeded random subset.
"""

from ragas_boot.datasets.files import (
    DATASET_FORMATS,
    DatasetFormat,
    dataset_json_schema,
    load_file,
    parse_dataset,
)
from ragas_boot.datasets.loading import SOURCE_FORMATS, SourceFormat, load_dataset
from ragas_boot.datasets.model import Dataset, sample_dataset
from ragas_boot.datasets.otlp import TraceImport, load_otlp, parse_otlp
from ragas_boot.datasets.tables import (
    TABLE_LIMITS,
    ColumnMap,
    TableLimits,
    dataset_from_hf,
    dataset_from_pandas,
    dataset_from_records,
    load_csv,
    load_hf_directory,
    load_parquet,
    parse_column_map,
)

__all__ = [
    "DATASET_FORMATS",
    "SOURCE_FORMATS",
    "TABLE_LIMITS",
    "ColumnMap",
    "Dataset",
    "DatasetFormat",
    "SourceFormat",
    "TableLimits",
    "TraceImport",
    "dataset_from_hf",
    "dataset_from_pandas",
    "dataset_from_records",
    "dataset_json_schema",
    "load_csv",
    "load_dataset",
    "load_file",
    "load_hf_directory",
    "load_otlp",
    "load_parquet",
    "parse_column_map",
    "parse_dataset",
    "parse_otlp",
    "sample_dataset",
]
