"""Per-provider admission: a rate limit, a concurrency cap and a circuit breaker."""

from __future__ import annotations

import asyncio
import math
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ragas_boot.chat.judge import ProviderLimits
from ragas_boot.config.settings import RateLimitStrategy
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeHTTPError,
    JudgeTimeoutError,
    JudgeUnavailableError,
    RateLimitExceededError,
)

__all__ = ["CircuitBreaker", "ProviderGate", "ProviderGates", "SlidingWindowLimiter"]


class SlidingWindowLimiter:
    """At most ``capacity`` admissions in any window of ``window_s`` seconds.

    For ``rps`` ≥ 1 the window is one second and the capacity ``floor(rps)``; for ``rps`` < 1,
    one admission per ``1 / rps`` seconds. Unlike a token bucket that starts full, it never lets
    more than the configured rate through in any one-second window, the first included.
    Waiters are admitted in arrival order. Use it from one event loop.

    Args:
        rps: requests per second (> 0).
    """

    def __init__(self, rps: float) -> None:
        if not rps > 0:
            raise ValueError(f"rps must be > 0, got {rps}")
        self.capacity = max(1, math.floor(rps))
        self.window_s = 1.0 if rps >= 1 else 1.0 / rps
        self._admitted: deque[float] = deque()
        self._lock = asyncio.Lock()

    def _expire(self, now: float) -> None:
        while self._admitted and self._admitted[0] <= now - self.window_s:
            self._admitted.popleft()

    def try_acquire(self) -> bool:
        """Admit now if the window has room (no waiting); whether it did."""
        if self._lock.locked():  # others are queued first
            return False
        now = time.monotonic()
        self._expire(now)
        if len(self._admitted) < self.capacity:
            self._admitted.append(now)
            return True
        return False

    async def acquire(self) -> None:
        """Wait until the window has room, then take it."""
        async with self._lock:
            while True:
                now = time.monotonic()
                self._expire(now)
                if len(self._admitted) < self.capacity:
                    self._admitted.append(now)
                    return
                await asyncio.sleep(self._admitted[0] + self.window_s - now)


def _counts_as_down(error: BaseException) -> bool:
    """A failure that says the provider is down (not a bad request, not a busy one)."""
    if isinstance(error, JudgeTimeoutError | JudgeConnectionError):
        return True
    return isinstance(error, JudgeHTTPError) and error.status_code >= 500


class CircuitBreaker:
    """Fails a judge's calls fast once it is clearly down; lets one probe through later.

    ``threshold`` consecutive attempts that time out, cannot connect or get a 5xx open the
    circuit: calls then fail at once with :class:`JudgeUnavailableError`, sending nothing.
    After ``open_for_s`` one attempt (the probe) is let through; its success closes the
    circuit, its failure opens it again. A threshold of 0 turns the breaker off.

    Args:
        provider: provider name (for messages).
        judge_id: the judge whose attempts it counts (for messages).
        threshold: consecutive failures that open the circuit; 0 = never.
        open_for_s: seconds before a probe is let through.
    """

    def __init__(self, *, provider: str, judge_id: str, threshold: int, open_for_s: float) -> None:
        self._provider = provider
        self._judge_id = judge_id
        self._threshold = threshold
        self._open_for_s = open_for_s
        self._failures = 0
        self._opened_at: float | None = None
        self._last_error = ""
        self._probing = False
        self._probe_done: asyncio.Event | None = None
        self.times_opened = 0

    @property
    def state(self) -> str:
        """``closed``, ``open`` or ``half_open`` (a probe may go, or is on its way)."""
        if self._opened_at is None:
            return "closed"
        if self._probing or time.monotonic() - self._opened_at >= self._open_for_s:
            return "half_open"
        return "open"

    def _refuse(self, judge_id: str) -> JudgeUnavailableError:
        return JudgeUnavailableError(
            f"{self._judge_id} at provider {self._provider} is failing ({self._failures} "
            f"attempts in a row, last: {self._last_error}); not sent, next try after "
            f"{self._open_for_s:g}s",
            judge_id=judge_id,
            provider=self._provider,
        )

    def check(self, judge_id: str) -> None:
        """Raise at once when the circuit is open and no probe is due (nothing is taken).

        Raises:
            JudgeUnavailableError: the circuit is open.
        """
        if self.state == "open":
            raise self._refuse(judge_id)

    async def admit(self, judge_id: str) -> bool:
        """Allow an attempt, or raise; returns whether the attempt is the probe.

        While a probe is out, other attempts wait for its outcome: they go on if it closed
        the circuit and fail fast if it opened it again.

        Raises:
            JudgeUnavailableError: the circuit is open.
        """
        while True:
            if self._opened_at is None:
                return False
            if self._probing and self._probe_done is not None:
                await self._probe_done.wait()
                continue
            if self.state == "half_open":
                self._probing = True
                self._probe_done = asyncio.Event()
                return True
            raise self._refuse(judge_id)

    def _end_probe(self) -> None:
        self._probing = False
        if self._probe_done is not None:
            self._probe_done.set()
            self._probe_done = None

    def release_probe(self) -> None:
        """The probe ended without an outcome (cancelled): let the next attempt probe."""
        self._end_probe()

    def record(self, error: BaseException | None, *, probe: bool) -> None:
        """Count the outcome of an attempt allowed by :meth:`admit`."""
        if error is None or not _counts_as_down(error):
            # Any answer, even a 4xx or an invalid one, shows the provider is up.
            self._failures = 0
            self._opened_at = None
        else:
            self._failures += 1
            self._last_error = f"{type(error).__name__}: {error}"[:200]
            if self._threshold and (probe or self._failures >= self._threshold):
                if self._opened_at is None:
                    self.times_opened += 1
                self._opened_at = time.monotonic()
        if probe:
            self._end_probe()


class ProviderGate:
    """Admits one HTTP attempt at a time per slot for one provider's judges.

    The rate limit (:class:`SlidingWindowLimiter`) admits at most ``rps`` attempts in any
    one-second window; the semaphore caps attempts in flight; a :class:`CircuitBreaker` per
    judge fails its attempts fast while it is down (a provider that is down opens every one
    of its judges' circuits; one failing model does not shut out the provider's others).
    All must be used from one event loop (the container's portal).

    Args:
        limits: the provider's resolved limits.
    """

    def __init__(self, *, limits: ProviderLimits) -> None:
        self._limits = limits
        self._limiter = SlidingWindowLimiter(limits.rps) if limits.rps else None
        self._semaphore = asyncio.Semaphore(limits.max_concurrency)
        self._breakers: dict[str, CircuitBreaker] = {}

    def breaker(self, judge_id: str) -> CircuitBreaker:
        """The circuit breaker of one judge (made on first use)."""
        breaker = self._breakers.get(judge_id)
        if breaker is None:
            limits = self._limits
            breaker = CircuitBreaker(
                provider=limits.provider,
                judge_id=judge_id,
                threshold=limits.failure_threshold,
                open_for_s=limits.open_for.total_seconds(),
            )
            self._breakers[judge_id] = breaker
        return breaker

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
            if not limiter.try_acquire():
                raise RateLimitExceededError(
                    f"Rate limit exceeded for provider: {provider}",
                    judge_id=judge_id,
                    provider=provider,
                )
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
            JudgeUnavailableError: the judge's circuit is open.
        """
        started = time.perf_counter()
        breaker = self.breaker(judge_id)
        breaker.check(judge_id)  # fail fast, before waiting for anything
        await self._acquire_token(judge_id)
        async with self._semaphore:
            # Checked again: the circuit may have opened while this attempt was queued.
            probe = await breaker.admit(judge_id)
            try:
                yield time.perf_counter() - started
            except Exception as error:
                breaker.record(error, probe=probe)
                raise
            except BaseException:  # cancelled: no outcome
                if probe:
                    breaker.release_probe()
                raise
            breaker.record(None, probe=probe)


class ProviderGates:
    """One :class:`ProviderGate` per provider name, shared by its judges and embedding models.

    The container makes one, so that a provider's rate limit, concurrency cap and circuit
    breakers count chat and embedding calls together (one bucket per provider, as in the Java
    library).
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
