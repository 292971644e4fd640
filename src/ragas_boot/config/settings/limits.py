"""How much a provider is asked at once: rate limits, hedged copies, the circuit breaker, and
:class:`ProviderLimitSettings`, the keys every provider section shares."""

from __future__ import annotations

from datetime import timedelta

from pydantic import Field

from ragas_boot.config.settings._base import Duration, _Section
from ragas_boot.config.settings.modes import RateLimitStrategy

__all__ = [
    "CircuitBreakerSettings",
    "GlobalRateLimitSettings",
    "HedgingSettings",
    "ProviderLimitSettings",
    "RateLimitSettings",
]


class RateLimitSettings(_Section):
    """A provider's rate limit; unset fields fall back to ``providers.rate-limit.default-*``."""

    rps: float | None = Field(default=None, ge=0.0, description="Requests per second; 0 = none.")
    strategy: RateLimitStrategy | None = Field(default=None, description="WAIT or REJECT.")
    timeout: Duration | None = Field(
        default=None, description="Longest WAIT for a token; 0 = forever."
    )
    shared: bool | None = Field(
        default=None,
        description="Share this limit with every process on the machine (pytest -n, parallel "
        "jobs) through a SQLite file; unset = default-shared.",
    )
    shared_file: str | None = Field(
        default=None,
        description="The SQLite file of a shared limit; unset = the global shared-file.",
    )


class GlobalRateLimitSettings(_Section):
    """``spring.ai.ragas.providers.rate-limit``: defaults for every provider."""

    default_rps: float | None = Field(default=None, ge=0.0, description="Default RPS; unset = off.")
    default_strategy: RateLimitStrategy = Field(
        default=RateLimitStrategy.WAIT, description="Default strategy."
    )
    default_timeout: Duration = Field(
        default=timedelta(0), description="Default WAIT timeout; 0 = forever."
    )
    default_shared: bool = Field(
        default=False, description="Share every provider's limit across processes."
    )
    shared_file: str | None = Field(
        default=None,
        description="SQLite file of shared limits; unset = ragas-boot-rate-limits.sqlite3 in "
        "the system temp folder (one per machine).",
    )


class HedgingSettings(_Section):
    """Hedged requests: a second copy of a call still unanswered after ``delay`` (off by
    default: the copy costs tokens). Unset fields fall back to ``providers.hedging``."""

    enabled: bool | None = Field(default=None, description="Send hedged copies; unset = off.")
    delay: Duration | None = Field(
        default=None,
        description="How long an attempt waits for its answer before the copy is sent; unset "
        "= the provider's observed p95 latency (no copy until 20 answers are seen).",
    )


class CircuitBreakerSettings(_Section):
    """``spring.ai.ragas.providers.circuit-breaker``: fail fast while a judge is down.

    Each judge has its own circuit: a provider that is down opens them all, one failing model
    does not shut out the provider's other models.
    """

    failure_threshold: int = Field(
        default=5,
        ge=0,
        description="Attempts in a row of one judge that time out, cannot connect or get a "
        "5xx before its calls fail fast; 0 = never.",
    )
    open_for: Duration = Field(
        default=timedelta(seconds=30),
        description="How long calls fail fast before one probe call is let through.",
    )


# Pydantic orders fields base first, the last base before the others: a provider section
# derives from this class and then from a section of the keys it lists before its limits
# (``class P(ProviderLimitSettings, _PKeys)``), so its keys keep their order in the JSON
# Schema, the key reference and ``config show``.
class ProviderLimitSettings(_Section):
    """The limits a provider section sets for its own calls (``openai-compatible[]``,
    ``langchain[]``, ``external-starters.<name>``, ``local``); each one unset falls back to
    ``spring.ai.ragas.providers`` (``rate-limit.default-*``, ``max-concurrency``, ``timeout``).
    """

    rate_limit: RateLimitSettings | None = Field(default=None, description="Rate limit.")
    max_concurrency: int | None = Field(
        default=None,
        ge=1,
        description="Calls in flight at once; default providers.max-concurrency.",
    )
    timeout: Duration | None = Field(
        default=None, description="Per-call timeout; default providers.timeout."
    )
    limits_per_machine: bool | None = Field(
        default=None,
        description="Run as a shard (--shard I/N), keep this provider's rate-limit and "
        "max-concurrency whole on each machine (its limit is per machine or per key) instead "
        "of 1/N of them; unset = providers.limits-per-machine (the local provider always "
        "keeps its own).",
    )
