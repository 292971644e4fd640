"""Per-provider admission: a rate limit, a concurrency cap and a circuit breaker."""

from __future__ import annotations

import asyncio
import contextlib
import math
import sqlite3
import time
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

from ragas_boot.chat.specs import ProviderLimits
from ragas_boot.config.settings import RateLimitStrategy
from ragas_boot.errors import (
    BudgetExceededError,
    JudgeConnectionError,
    JudgeHTTPError,
    JudgeTimeoutError,
    JudgeUnavailableError,
    RateLimitExceededError,
)

__all__ = [
    "LONGEST_HOLD_S",
    "CircuitBreaker",
    "ProviderGate",
    "ProviderGates",
    "SharedWindowLimiter",
    "SlidingWindowLimiter",
    "Ticket",
]


#: How long a place is held at most when the attempt has no timeout:
#: a place whose attempt still runs must count, but a process that died holding places in a
#: shared file must not block the others for ever.
LONGEST_HOLD_S = 600.0


@dataclass(slots=True)
class Ticket:
    """One request's place in a rate-limit window.

    Attributes:
        expires: when the place frees (clock of the limiter that gave it).
        key: the shared limiter's row id (0 for a process-local ticket).
    """

    expires: float
    key: int = 0


class _Window:
    """The window both limiters keep: ``floor(rps)`` places a second for ``rps`` ≥ 1, else one
    place per ``1 / rps`` seconds; a place whose attempt runs held ``hold_s`` at most."""

    def __init__(self, rps: float, hold_s: float | None) -> None:
        if not rps > 0:
            raise ValueError(f"rps must be > 0, got {rps}")
        self.capacity = max(1, math.floor(rps))
        self.window_s = 1.0 if rps >= 1 else 1.0 / rps
        self.hold_s = hold_s or LONGEST_HOLD_S
        self._lock = asyncio.Lock()


class SlidingWindowLimiter(_Window):
    """At most ``capacity`` requests reach the wire in any window of ``window_s`` seconds.

    For ``rps`` ≥ 1 the window is one second and the capacity ``floor(rps)``; for ``rps`` < 1,
    one request per ``1 / rps`` seconds. A place is taken just before the request is sent
    (:meth:`acquire`) and is held until one window after the answer came (:meth:`finish`:
    the request reached the wire by then); while the attempt runs the place counts (for at
    most ``hold_s``, the attempt's timeout). So a first burst that waits for connections to
    open, or for a busy CPU, cannot share a server-side second with the next burst, whatever
    the load. The price: a place is held for the call's latency plus one window. A request
    that was never sent gives its place back (:meth:`cancel`). Waiters are admitted in
    arrival order. Use it from one event loop.

    Args:
        rps: requests per second (> 0).
        hold_s: the longest an attempt lasts (its timeout); :data:`LONGEST_HOLD_S` if none.
    """

    def __init__(self, rps: float, *, hold_s: float | None = None) -> None:
        super().__init__(rps, hold_s)
        self._tickets: list[Ticket] = []
        self._changed = asyncio.Event()

    def _take(self, now: float) -> Ticket | None:
        self._tickets = [ticket for ticket in self._tickets if ticket.expires > now]
        if len(self._tickets) >= self.capacity:
            return None
        ticket = Ticket(expires=now + self.hold_s + self.window_s)
        self._tickets.append(ticket)
        return ticket

    def try_acquire(self) -> Ticket | None:
        """Take a place now if the window has room (no waiting); ``None`` if it has not."""
        if self._lock.locked():  # others are queued first
            return None
        return self._take(time.monotonic())

    async def acquire(self) -> Ticket:
        """Wait until the window has room, then take a place."""
        async with self._lock:
            while True:
                now = time.monotonic()
                ticket = self._take(now)
                if ticket is not None:
                    return ticket
                # Wake when the earliest place frees, or earlier when one is given back or
                # its attempt ends sooner than assumed.
                self._changed.clear()
                delay = min(held.expires for held in self._tickets) - now
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(delay):
                        await self._changed.wait()

    def finish(self, ticket: Ticket) -> None:
        """The attempt is over: its request reached the wire by now at the latest."""
        ticket.expires = min(ticket.expires, time.monotonic() + self.window_s)
        self._changed.set()

    def cancel(self, ticket: Ticket) -> None:
        """The request was never sent: give its place back."""
        ticket.expires = -math.inf
        self._changed.set()


class SharedWindowLimiter(_Window):
    """:class:`SlidingWindowLimiter`'s window kept in a SQLite file, shared by every process
    on the machine that names the same file and provider (pytest-xdist workers, parallel CI
    jobs).

    Each place is a row holding when it frees (wall clock, ``time.time()``, which all
    processes share); taking one is a ``BEGIN IMMEDIATE`` transaction, which SQLite
    serialises across processes with its file lock. Waiters poll (every
    :data:`SHARED_POLL_S` at most), since other processes cannot wake them. A process that
    dies holding places leaves rows that free by themselves (their expiry is always set).

    Args:
        rps: requests per second (> 0).
        path: the SQLite file (made with its folder when missing).
        provider: the provider whose requests the rows count.
        hold_s: the longest an attempt lasts (its timeout); :data:`LONGEST_HOLD_S` if none.
    """

    def __init__(
        self, rps: float, *, path: Path, provider: str, hold_s: float | None = None
    ) -> None:
        super().__init__(rps, hold_s)
        self.path = path
        self._provider = provider
        self._connection: sqlite3.Connection | None = None

    def __repr__(self) -> str:
        return f"SharedWindowLimiter(path={str(self.path)!r}, provider={self._provider!r})"

    def _db(self) -> sqlite3.Connection:
        if self._connection is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # Autocommit mode: every write below is one explicit short transaction.
            connection = sqlite3.connect(
                self.path, timeout=30.0, isolation_level=None, check_same_thread=False
            )
            connection.execute(
                "CREATE TABLE IF NOT EXISTS places "
                "(id INTEGER PRIMARY KEY, provider TEXT NOT NULL, expires REAL NOT NULL)"
            )
            self._connection = connection
        return self._connection

    def _take(self) -> tuple[Ticket | None, float]:
        db = self._db()
        db.execute("BEGIN IMMEDIATE")
        try:
            now = time.time()
            db.execute(
                "DELETE FROM places WHERE provider = ? AND expires <= ?", (self._provider, now)
            )
            held, earliest = db.execute(
                "SELECT count(*), min(expires) FROM places WHERE provider = ?", (self._provider,)
            ).fetchone()
            if held >= self.capacity:
                return None, float(earliest) - now
            expires = now + self.hold_s + self.window_s
            cursor = db.execute(
                "INSERT INTO places (provider, expires) VALUES (?, ?)", (self._provider, expires)
            )
            return Ticket(expires=expires, key=int(cursor.lastrowid or 0)), 0.0
        finally:
            db.execute("COMMIT")

    def try_acquire(self) -> Ticket | None:
        """Take a place now if the window has room (no waiting); ``None`` if it has not."""
        if self._lock.locked():
            return None
        return self._take()[0]

    async def acquire(self) -> Ticket:
        """Wait until the window has room, then take a place."""
        async with self._lock:
            while True:
                ticket, wait = self._take()
                if ticket is not None:
                    return ticket
                await asyncio.sleep(min(max(wait, 0.0), SHARED_POLL_S))

    def _set(self, ticket: Ticket, expires: float) -> None:
        ticket.expires = expires
        self._db().execute("UPDATE places SET expires = ? WHERE id = ?", (expires, ticket.key))

    def finish(self, ticket: Ticket) -> None:
        """The attempt is over: its request reached the wire by now at the latest."""
        self._set(ticket, min(ticket.expires, time.time() + self.window_s))

    def cancel(self, ticket: Ticket) -> None:
        """The request was never sent: give its place back."""
        self._db().execute("DELETE FROM places WHERE id = ?", (ticket.key,))

    def close(self) -> None:
        """Close the SQLite connection (the rows stay: other processes count them)."""
        if self._connection is not None:
            self._connection.close()
            self._connection = None


#: Answered attempts a gate remembers for the p95 hedging delay, and how many it needs first.
HEDGE_WINDOW = 200
HEDGE_MIN_SAMPLES = 20

#: Longest sleep of a waiter of a :class:`SharedWindowLimiter` between two looks.
SHARED_POLL_S = 0.02

#: Errors raised before a request is sent: the attempt gives its rate-limit place back.
_NOT_SENT: tuple[type[BaseException], ...] = (BudgetExceededError,)


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

    The semaphore caps attempts in flight; the rate limit (:class:`SlidingWindowLimiter`, or
    :class:`SharedWindowLimiter` when the provider's limit is shared across processes)
    admits at most ``rps`` requests in any one-second window of the moments they reach the
    wire, so its place is taken last, once a concurrency slot is held, right before the
    request goes; a :class:`CircuitBreaker` per judge fails its attempts fast while it is
    down (a provider that is down opens every one of its judges' circuits; one failing
    model does not shut out the provider's others). All must be used from one event loop
    (the container's portal).

    Args:
        limits: the provider's resolved limits.
    """

    def __init__(self, *, limits: ProviderLimits) -> None:
        self._limits = limits
        self._limiter: SlidingWindowLimiter | SharedWindowLimiter | None = None
        # An attempt ends by its timeout at the latest (plus a little for cancelling it).
        hold_s = limits.call_timeout.total_seconds() + 1.0 if limits.call_timeout else None
        if limits.rps and limits.shared_file is not None:
            self._limiter = SharedWindowLimiter(
                limits.rps, path=limits.shared_file, provider=limits.provider, hold_s=hold_s
            )
        elif limits.rps:
            self._limiter = SlidingWindowLimiter(limits.rps, hold_s=hold_s)
        self._semaphore = asyncio.Semaphore(limits.max_concurrency)
        self._breakers: dict[str, CircuitBreaker] = {}
        # Latencies of the last answered attempts, for a hedging delay of "the p95".
        self._latencies: deque[float] = deque(maxlen=HEDGE_WINDOW)

    def record_latency(self, seconds: float) -> None:
        """An attempt was answered after ``seconds`` (kept only when hedging uses the p95)."""
        if self._limits.hedge and self._limits.hedge_after is None:
            self._latencies.append(seconds)

    def hedge_delay(self) -> float | None:
        """Seconds after which a still-unanswered attempt gets a copy; ``None``: no copy
        (hedging off, or the p95 is not known yet: fewer than :data:`HEDGE_MIN_SAMPLES`)."""
        limits = self._limits
        if not limits.hedge:
            return None
        if limits.hedge_after is not None:
            return limits.hedge_after.total_seconds()
        if len(self._latencies) < HEDGE_MIN_SAMPLES:
            return None
        ordered = sorted(self._latencies)
        return ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)]

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

    async def _acquire_ticket(self, judge_id: str) -> Ticket | None:
        limiter = self._limiter
        if limiter is None:
            return None
        provider = self._limits.provider
        if self._limits.strategy is RateLimitStrategy.REJECT:
            ticket = limiter.try_acquire()
            if ticket is None:
                raise RateLimitExceededError(
                    f"Rate limit exceeded for provider: {provider}",
                    judge_id=judge_id,
                    provider=provider,
                )
            return ticket
        wait = self._limits.wait_timeout.total_seconds()
        if wait <= 0:
            return await limiter.acquire()
        try:
            async with asyncio.timeout(wait):
                return await limiter.acquire()
        except TimeoutError:
            raise RateLimitExceededError(
                f"Rate limit wait timeout exceeded for provider: {provider} (waited {wait:g}s)",
                judge_id=judge_id,
                provider=provider,
            ) from None

    @asynccontextmanager
    async def slot(self, judge_id: str) -> AsyncIterator[float]:
        """Hold a concurrency slot and a rate-limit place for one attempt.

        The place counts until one window after the attempt ends; an attempt that ends with a
        "not sent" error (the spend cap) gives it back.

        Yields:
            Seconds spent waiting for admission (not part of the judge's latency).

        Raises:
            RateLimitExceededError: REJECT found no place, or WAIT ran past its timeout.
            JudgeUnavailableError: the judge's circuit is open.
        """
        started = time.perf_counter()
        breaker = self.breaker(judge_id)
        breaker.check(judge_id)  # fail fast, before waiting for anything
        async with self._semaphore:
            # Checked again: the circuit may have opened while this attempt was queued.
            probe = await breaker.admit(judge_id)
            try:
                ticket = await self._acquire_ticket(judge_id)
            except BaseException:
                if probe:
                    breaker.release_probe()
                raise
            limiter = self._limiter
            sent = True
            try:
                yield time.perf_counter() - started
            except _NOT_SENT:
                sent = False
                if probe:
                    breaker.release_probe()
                raise
            except Exception as error:
                breaker.record(error, probe=probe)
                raise
            except BaseException:  # cancelled: no outcome
                if probe:
                    breaker.release_probe()
                raise
            finally:
                if limiter is not None and ticket is not None:
                    if sent:
                        limiter.finish(ticket)
                    else:
                        limiter.cancel(ticket)
            breaker.record(None, probe=probe)

    def close(self) -> None:
        """Close the shared limiter's file, if any."""
        if isinstance(self._limiter, SharedWindowLimiter):
            self._limiter.close()


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

    def close(self) -> None:
        """Close the gates' shared-limit files (the gates stay usable: they reopen them)."""
        for gate in self._gates.values():
            gate.close()
