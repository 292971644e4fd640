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
from ragas_boot.samples._base import message_of

__all__ = [
    "RAGAS_METADATA_FIELDS",
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


#: ragas's sample fields that no ragas-boot metric reads: ``SingleTurnSample``'s
#: ``multi_responses``, ``retrieved_context_ids``, ``reference_context_ids``, ``persona_name``,
#: ``query_style``, ``query_length``, and the testset generator's ``synthesizer_name``. A sample
#: keeps each in its ``metadata`` under the same name.
RAGAS_METADATA_FIELDS = (
    "multi_responses",
    "retrieved_context_ids",
    "reference_context_ids",
    "persona_name",
    "query_style",
    "query_length",
    "synthesizer_name",
)
#: The metadata key of the ``metadata`` of ragas's messages, a list aligned with the messages.
MESSAGE_METADATA = "message_metadata"
_CONVERSATION_KEYS = ("user_input_messages", "userInputMessages", "messages")


def sample_from_fields(data: Any) -> Sample:
    """A sample from a mapping of its fields: ragas-boot's, OpenAI chat format's (a
    ``messages`` list) or ragas's ``EvaluationDataset`` rows (as its ``to_jsonl``,
    ``to_csv``, ``to_pandas`` and ``to_hf_dataset`` write them).

    ragas's rows are read as ragas defines them: a ``user_input`` holding a list of messages
    is the conversation (``MultiTurnSample``; ragas's ``{"type": "human", ...}`` messages or
    OpenAI's ``{"role": "user", ...}``), a message's ``metadata`` goes to the sample's
    ``metadata["message_metadata"]`` (one entry per message), and the fields of
    :data:`RAGAS_METADATA_FIELDS` to ``metadata`` under their names.

    Raises:
        SampleValidationError: ``data`` is not a mapping with string keys, or a field is
            invalid (the error names it as the data spells it: ``user_input[2].content``).
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
    fields = dict(data)
    renamed: tuple[str, str] | None = None
    extra: dict[str, Any] = {}
    if isinstance(fields.get("user_input"), list):
        given = [key for key in _CONVERSATION_KEYS if key in fields]
        if given:
            raise SampleValidationError(
                f"a conversation is given twice: as user_input (a list of messages) and as "
                f"{given[0]}; keep one",
                field="user_input",
            )
        renamed = _conversation(fields, "user_input", extra)
    elif _is_openai(fields.get("user_input_messages")):
        renamed = _conversation(fields, "user_input_messages", extra)
    extra.update((name, fields.pop(name)) for name in RAGAS_METADATA_FIELDS if name in fields)
    if extra:
        given_metadata = fields.get("metadata")
        if given_metadata is None:
            given_metadata = {}
        if not isinstance(given_metadata, Mapping):
            raise SampleValidationError(
                f"expected a mapping, got {type(given_metadata).__name__}", field="metadata"
            )
        clash = next((key for key in extra if key in given_metadata), None)
        if clash is not None:
            raise SampleValidationError(
                f"'{clash}' is given both as a field and in metadata; keep one",
                field=f"metadata.{clash}",
            )
        fields["metadata"] = {**given_metadata, **extra}
    try:
        if "messages" not in fields:
            return Sample.model_validate(fields)
        messages = fields.pop("messages")
        return from_openai_messages(messages, **fields)
    except SampleValidationError as error:
        if renamed is None or not error.field.startswith(renamed[0]):
            raise
        field = renamed[1] + error.field.removeprefix(renamed[0])
        raise SampleValidationError(
            message_of(error), field=field, metric=error.metric, mode=error.mode
        ) from None


def _conversation(fields: dict[str, Any], key: str, extra: dict[str, Any]) -> tuple[str, str]:
    """Move the message list under ``key`` to where it is read from: ``messages`` (OpenAI
    chat format) or ``user_input_messages`` (ragas's messages, whose ``metadata`` go to
    ``extra``). Returns (the field now holding it, ``key``), to name errors as given."""
    conversation = fields.pop(key)
    if _is_openai(conversation):
        fields["messages"] = conversation
        return "messages", key
    fields["user_input_messages"], message_metadata = _ragas_messages(conversation)
    if message_metadata is not None:
        extra[MESSAGE_METADATA] = message_metadata
    return "user_input_messages", key


def _is_openai(messages: Any) -> bool:
    """Whether a message list is in OpenAI chat format (``role`` without ragas's ``type``)."""
    return isinstance(messages, list) and any(
        isinstance(item, Mapping) and "role" in item and "type" not in item for item in messages
    )


def _ragas_messages(messages: list[Any]) -> tuple[list[Any], list[Any] | None]:
    """ragas's messages without their ``metadata`` (which ragas-boot's messages do not have),
    and those metadata, one entry per message (``None`` when no message has any)."""
    kept: list[Any] = []
    metadata: list[Any] = []
    for message in messages:
        if isinstance(message, Mapping) and "metadata" in message:
            metadata.append(message["metadata"])
            message = {key: value for key, value in message.items() if key != "metadata"}
        else:
            metadata.append(None)
        kept.append(message)
    return kept, metadata if any(entry is not None for entry in metadata) else None


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
