"""Per-provider admission: a rate limit (aiolimiter) and a concurrency cap (a semaphore)."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiolimiter import AsyncLimiter

from ragas_boot.chat.judge import ProviderLimits
from ragas_boot.config.settings import RateLimitStrategy
from ragas_boot.errors import RateLimitExceededError

__all__ = ["ProviderGate", "ProviderGates"]


class ProviderGate:
    """Admits one HTTP attempt at a time per slot for one provider's judges.

    aiolimiter is a leaky bucket: capacity ``max(1, rps)`` refilled at ``rps`` per second, so
    a burst of up to one second's worth goes at once and the rest trickles. The semaphore caps
    calls in flight. Both must be used from one event loop (the container's portal).

    Args:
        limits: the provider's resolved limits.
    """

    def __init__(self, *, limits: ProviderLimits) -> None:
        self._limits = limits
        self._limiter: AsyncLimiter | None = None
        if limits.rps:
            capacity = max(1.0, limits.rps)
            self._limiter = AsyncLimiter(capacity, capacity / limits.rps)
        self._semaphore = asyncio.Semaphore(limits.max_concurrency)

    @property
    def limits(self) -> ProviderLimits:
        """The limits this gate enforces."""
        return self._limits

    async def _acquire_token(self, judge_id: str) -> None:
        limiter = self._limiter
        if limiter is None:
            return
        provider = self._limits.provider
        if self._limits.strategy is RateLimitStrategy.REJECT:
            if not limiter.has_capacity():
                raise RateLimitExceededError(
                    f"Rate limit exceeded for provider: {provider}",
                    judge_id=judge_id,
                    provider=provider,
                )
            await limiter.acquire()
            return
        wait = self._limits.wait_timeout.total_seconds()
        if wait <= 0:
            await limiter.acquire()
            return
        try:
            async with asyncio.timeout(wait):
                await limiter.acquire()
        except TimeoutError:
            raise RateLimitExceededError(
                f"Rate limit wait timeout exceeded for provider: {provider} (waited {wait:g}s)",
                judge_id=judge_id,
                provider=provider,
            ) from None

    @asynccontextmanager
    async def slot(self, judge_id: str) -> AsyncIterator[float]:
        """Hold a rate-limit token and a concurrency slot for one attempt.

        Yields:
            Seconds spent waiting for admission (not part of the judge's latency).

        Raises:
            RateLimitExceededError: REJECT found no token, or WAIT ran past its timeout.
        """
        started = time.perf_counter()
        await self._acquire_token(judge_id)
        async with self._semaphore:
            yield time.perf_counter() - started


class ProviderGates:
    """One :class:`ProviderGate` per provider name, shared by its judges and embedding models.

    The container makes one, so that a provider's rate limit and concurrency cap count chat
    and embedding calls together (one bucket per provider, as in the Java library).
    """

    def __init__(self) -> None:
        self._gates: dict[str, ProviderGate] = {}

    def __repr__(self) -> str:
        return f"ProviderGates(providers={sorted(self._gates)!r})"

    def gate(self, limits: ProviderLimits) -> ProviderGate:
        """The gate of ``limits.provider`` (made from ``limits`` on first use)."""
        gate = self._gates.get(limits.provider)
        if gate is None:
            gate = ProviderGate(limits=limits)
            self._gates[limits.provider] = gate
        return gate
