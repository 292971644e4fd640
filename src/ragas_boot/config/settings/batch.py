"""``batch``: how judges on ``transport: batch`` send their calls through a provider's batch
API (``/v1/files`` and ``/v1/batches``), under ``spring.ai.ragas.providers`` (for every
provider) and under an ``openai-compatible`` entry (its own, key by key)."""

from __future__ import annotations

from datetime import timedelta

from pydantic import Field

from ragas_boot.config.settings._base import Duration, _Section

__all__ = ["BatchSettings", "ProviderBatchSettings"]

#: Requests one batch file holds at most (OpenAI's limit, which most batch APIs copy).
MAX_BATCH_REQUESTS = 50_000
#: Bytes one batch file holds at most (OpenAI's 200 MB).
MAX_BATCH_FILE_BYTES = 200 * 1024 * 1024


class ProviderBatchSettings(_Section):
    """A provider's own ``batch`` keys; each unset one is ``providers.batch``'s."""

    min_size: int | None = Field(
        default=None,
        ge=0,
        description="Calls of one round below which they are sent synchronously instead "
        "(0: always batch); unset = providers.batch.min-size.",
    )
    poll_interval: Duration | None = Field(
        default=None,
        description="First wait between two status polls of a batch; unset = "
        "providers.batch.poll-interval.",
    )
    max_poll_interval: Duration | None = Field(
        default=None,
        description="Longest wait between two polls (the wait doubles up to it); unset = "
        "providers.batch.max-poll-interval.",
    )
    timeout: Duration | None = Field(
        default=None,
        description="How long a batch may take before it is cancelled and its calls fail as "
        "timed out; unset = providers.batch.timeout.",
    )
    completion_window: str | None = Field(
        default=None,
        min_length=1,
        description="The completion_window sent with each batch; unset = "
        "providers.batch.completion-window.",
    )
    max_requests: int | None = Field(
        default=None,
        ge=1,
        le=MAX_BATCH_REQUESTS,
        description="Requests per batch file at most; unset = providers.batch.max-requests.",
    )
    max_file_bytes: int | None = Field(
        default=None,
        ge=1024,
        le=MAX_BATCH_FILE_BYTES,
        description="Bytes per batch file at most; unset = providers.batch.max-file-bytes.",
    )
    quiet_period: Duration | None = Field(
        default=None,
        description="Outside a dataset run, how long no new call must come before the calls "
        "collected are sent as a batch; unset = providers.batch.quiet-period.",
    )
    discount: float | None = Field(
        default=None,
        gt=0.0,
        le=1.0,
        allow_inf_nan=False,
        description="Share of the price a batch call is billed at (0.5: half price) when its "
        "model has no batch-price and the price catalog gives none; unset: 0.5 for providers "
        "that publish half-price batches (OpenAI, Azure OpenAI, Groq, Together AI), else 1.",
    )
    retry_synchronously: bool | None = Field(
        default=None,
        description="Send a call again synchronously (not in the next batch) after it failed "
        "in a batch; unset = providers.batch.retry-synchronously.",
    )


class BatchSettings(ProviderBatchSettings):
    """``spring.ai.ragas.providers.batch``: the batch keys every provider starts from."""

    min_size: int = Field(
        default=0,
        ge=0,
        description="Calls of one round below which they are sent synchronously instead "
        "(0: always batch).",
    )
    poll_interval: Duration = Field(
        default=timedelta(seconds=30), description="First wait between two status polls."
    )
    max_poll_interval: Duration = Field(
        default=timedelta(minutes=10),
        description="Longest wait between two polls (the wait doubles up to it).",
    )
    timeout: Duration = Field(
        default=timedelta(hours=25),
        description="How long a batch may take before it is cancelled and its calls fail as "
        "timed out (the provider expires it after its 24h window first).",
    )
    completion_window: str = Field(
        default="24h", min_length=1, description="The completion_window sent with each batch."
    )
    max_requests: int = Field(
        default=MAX_BATCH_REQUESTS,
        ge=1,
        le=MAX_BATCH_REQUESTS,
        description="Requests per batch file at most (a round with more is split).",
    )
    max_file_bytes: int = Field(
        default=MAX_BATCH_FILE_BYTES,
        ge=1024,
        le=MAX_BATCH_FILE_BYTES,
        description="Bytes per batch file at most (a round with more is split).",
    )
    quiet_period: Duration = Field(
        default=timedelta(seconds=1),
        description="Outside a dataset run, how long no new call must come before the calls "
        "collected are sent as a batch (a dataset run sends a round once every evaluation "
        "in flight waits on a batch).",
    )
    retry_synchronously: bool = Field(
        default=False,
        description="Send a call again synchronously (not in the next batch) after it failed "
        "in a batch.",
    )
