"""``Dataset``: the samples a run evaluates, whatever they were read from; and sampling."""

from __future__ import annotations

import random
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot._loading import DATASET_LIMITS
from ragas_boot.errors import DatasetError, SampleValidationError
from ragas_boot.samples import Sample, from_openai_messages

__all__ = [
    "Dataset",
    "default_sample_id",
    "read_source_text",
    "sample_dataset",
    "sample_from_fields",
    "sample_indices",
]


class Dataset(BaseModel):
    """Samples to evaluate, each with a unique id, in file order.

    Build one with :func:`~ragas_boot.datasets.load_dataset` (files, tables, data frames,
    Hugging Face datasets, OTLP traces), or directly from samples (ids are then left as given).
    """

    model_config = ConfigDict(frozen=True)

    name: str | None = Field(default=None, description="Dataset name, from the file's `name`.")
    description: str | None = Field(
        default=None, description="What the dataset covers, from the file's `description`."
    )
    path: str | None = Field(default=None, description="The file it was read from.")
    samples: list[Sample] = Field(default_factory=list, description="The samples, in order.")

    def __len__(self) -> int:
        return len(self.samples)

    @property
    def ids(self) -> list[str]:
        """The samples' ids, in order."""
        return [sample.id or "" for sample in self.samples]


def default_sample_id(index: int, total: int) -> str:
    """The id of a sample that has none: ``sample-001`` for the first of up to 999."""
    width = max(3, len(str(total)))
    return f"sample-{index + 1:0{width}d}"


def sample_from_fields(data: Any) -> Sample:
    """A sample from a mapping of its fields; a ``messages`` list is read as OpenAI chat format.

    Raises:
        SampleValidationError: ``data`` is not a mapping with string keys, or a field is
            invalid (the error names it).
    """
    if not isinstance(data, Mapping):
        raise SampleValidationError(
            f"expected a sample (a mapping of fields), got {type(data).__name__}",
            field="<sample>",
        )
    bad_keys = [key for key in data if not isinstance(key, str)]
    if bad_keys:
        raise SampleValidationError(
            f"field names must be strings, got {bad_keys[0]!r}", field="<sample>"
        )
    if "messages" not in data:
        return Sample.model_validate(data)
    fields = {key: value for key, value in data.items() if key != "messages"}
    return from_openai_messages(data["messages"], **fields)


def sample_dataset(dataset: Dataset, size: int, *, seed: int | None = None) -> Dataset:
    """A random subset of ``size`` samples, kept in dataset order (``--sample N --seed S``).

    The same ``seed`` picks the same samples from the same dataset; a dataset of at most
    ``size`` samples is returned whole.

    Raises:
        ValueError: ``size`` is less than 1.
    """
    chosen = sample_indices(len(dataset), size, seed=seed)
    if len(chosen) == len(dataset):
        return dataset
    return dataset.model_copy(update={"samples": [dataset.samples[index] for index in chosen]})


def sample_indices(total: int, size: int, *, seed: int | None = None) -> list[int]:
    """``size`` positions of ``range(total)`` chosen at random, in order (all of them when
    ``total <= size``): how datasets and OTLP traces are sampled, so that the same seed picks
    the same positions either way.

    Raises:
        ValueError: ``size`` is less than 1.
    """
    if size < 1:
        raise ValueError(f"a sample size must be at least 1, got {size}")
    if total <= size:
        return list(range(total))
    return sorted(random.Random(seed).sample(range(total), size))


def read_source_text(file: Path, *, encoding: str = "utf-8", what: str = "dataset") -> str:
    """The text of a dataset or trace file, within :data:`DATASET_LIMITS`' size.

    Raises:
        DatasetError: the file is missing, larger than the limit, or unreadable.
    """
    try:
        size = file.stat().st_size
        if size > DATASET_LIMITS.max_bytes:
            raise DatasetError(
                f"the file has {size:,} bytes, more than the {DATASET_LIMITS.max_bytes:,} a "
                f"{what} may have; split it",
                file=str(file),
            )
        return file.read_text(encoding=encoding)
    except FileNotFoundError:
        raise DatasetError(f"{what} file not found", file=str(file)) from None
    except (OSError, UnicodeDecodeError) as error:
        raise DatasetError(f"cannot read the {what}: {error}", file=str(file)) from None
