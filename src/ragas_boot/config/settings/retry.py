"""``spring.ai.retry``: which failed judge calls are tried again, and the waits between."""

from __future__ import annotations

from datetime import timedelta

from pydantic import Field

from ragas_boot.config.settings._base import Duration, _Section

__all__ = ["BackoffSettings", "RetrySettings"]


class BackoffSettings(_Section):
    """``spring.ai.retry.backoff``: exponential backoff between attempts.

    The defaults (1 s, ×2, at most 30 s) are smaller than Spring AI's (2 s, ×5, 3 min) on
    purpose: with those, a provider answering 500 cost about 19 minutes of sleep per judge
    call. ``max-interval`` also caps ``Retry-After``: a server asking for a longer wait gets
    its judge excluded from the call at once.
    """

    initial_interval: Duration = Field(
        default=timedelta(seconds=1), description="Wait before the first retry."
    )
    multiplier: float = Field(default=2.0, ge=1.0, description="Growth factor of each wait.")
    max_interval: Duration = Field(
        default=timedelta(seconds=30),
        description="Upper bound of a single wait; a longer Retry-After is not waited for.",
    )


class RetrySettings(_Section):
    """``spring.ai.retry``: retry of each judge HTTP call.

    429, 5xx, timeouts and dropped connections are always retried (a deliberate deviation from
    Spring AI, which retries 429 only when listed); other 4xx only with ``on-client-errors``;
    anything in ``exclude-on-http-codes`` never.
    """

    max_attempts: int = Field(
        default=4, ge=1, description="Attempts per call, the first included (Spring AI: 10)."
    )
    on_http_codes: list[int] = Field(
        default_factory=list, description="Extra HTTP status codes to retry."
    )
    exclude_on_http_codes: list[int] = Field(
        default_factory=list, description="HTTP status codes never to retry."
    )
    on_client_errors: bool = Field(default=False, description="Retry every other 4xx as well.")
    honor_retry_after: bool = Field(
        default=True,
        description="Wait as long as a Retry-After header asks, up to backoff.max-interval; "
        "a longer one excludes the judge from the call at once.",
    )
    backoff: BackoffSettings = Field(
        default_factory=BackoffSettings, description="Backoff between attempts."
    )
