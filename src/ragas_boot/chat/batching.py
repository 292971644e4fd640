"""What a batch transport knows of the run around it: which evaluations are in flight and
which of them wait on a batch (its rounds), and where the batches it submits are recorded.

A judge on ``transport: batch`` collects its calls and sends them as one batch file. When to
send is the question: a batch answers within hours, so one sent too early splits a round of
calls (every call ready at one moment of a run) into two batches and doubles the wait. A
dataset run therefore opens a :func:`batch_run` scope and runs each evaluation as one of its
:meth:`BatchRun.member`\\ s; a collector sends its calls once every member in flight waits on
some batch (no evaluation can add a call to the round any more). Calls made outside a scope
(a single evaluation in a test) are sent once no new call has come for the judge's
``quiet-period``.

The scope also carries the run's :class:`BatchLedger`: each batch is recorded as it is
submitted (its id and its requests' ``custom_id``\\ s), so that a run resumed after a kill
polls the batches already submitted instead of sending their calls again.

Members may join and leave on another thread than the one the collectors run on (an async
run on the caller's loop, its calls on the judges' portal): the counts are kept under a
lock, and listeners are plain callables that hand the news to their own loop.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

__all__ = [
    "BatchLedger",
    "BatchRun",
    "SubmittedBatch",
    "batch_run",
    "current_member",
    "current_run",
]


@dataclass(frozen=True, slots=True)
class SubmittedBatch:
    """A batch as it was submitted: what a resumed run needs to poll it instead of sending
    its calls again.

    Attributes:
        batch_id: the provider's id of the batch.
        judge_id: the judge whose calls it holds.
        provider: the judge's provider.
        model: the model its requests name.
        input_file_id: the uploaded file of its requests.
        custom_ids: the ``custom_id`` of each request, in file order.
    """

    batch_id: str
    judge_id: str
    provider: str
    model: str
    input_file_id: str
    custom_ids: tuple[str, ...]


class BatchLedger(Protocol):
    """Where a run records the batches it submits (a run's journal)."""

    def submitted_in(self, judge_id: str, custom_id: str) -> str | None:
        """The batch an earlier attempt of the run sent ``judge_id``'s request
        ``custom_id`` in."""
        ...

    async def record(self, batch: SubmittedBatch) -> None:
        """Record a batch just submitted; return once it is kept (or cannot be)."""
        ...


class BatchRun:
    """A run's evaluations in flight, which of them wait on a batch, and its ledger.

    Args:
        ledger: where submitted batches are recorded (``None``: nowhere).
    """

    def __init__(self, ledger: BatchLedger | None = None) -> None:
        self.ledger = ledger
        self._lock = threading.Lock()
        self._members: set[object] = set()
        self._waiting: dict[object, int] = {}
        self._listeners: dict[int, Callable[[], None]] = {}

    def __repr__(self) -> str:
        with self._lock:
            return f"BatchRun(members={len(self._members)}, waiting={len(self._waiting)})"

    @contextlib.contextmanager
    def member(self) -> Iterator[None]:
        """Run the body (one evaluation) as a member of the run: the run's collectors wait
        for it to call a batch judge, or to leave, before sending a round."""
        token = object()
        with self._lock:
            self._members.add(token)
        reset = _MEMBER.set(token)
        try:
            yield
        finally:
            _MEMBER.reset(reset)
            with self._lock:
                self._members.discard(token)
                self._waiting.pop(token, None)
            self._tell()

    def waits(self, member: object) -> None:
        """``member`` sent one more call to a batch judge and waits on it."""
        with self._lock:
            if member not in self._members:
                return
            self._waiting[member] = self._waiting.get(member, 0) + 1
        self._tell()

    def woken(self, member: object) -> None:
        """One of ``member``'s batch calls came back (answered, failed or cancelled)."""
        with self._lock:
            left = self._waiting.get(member, 0) - 1
            if left > 0:
                self._waiting[member] = left
            else:
                self._waiting.pop(member, None)

    def all_waiting(self) -> bool:
        """Whether every member in flight waits on some batch (and there is one)."""
        with self._lock:
            return bool(self._members) and len(self._waiting) == len(self._members)

    def listen(self, key: int, listener: Callable[[], None]) -> None:
        """Call ``listener`` (from any thread) whenever a member starts waiting or leaves."""
        with self._lock:
            self._listeners[key] = listener

    def unlisten(self, key: int) -> None:
        """Stop calling the listener registered under ``key``."""
        with self._lock:
            self._listeners.pop(key, None)

    def _tell(self) -> None:
        with self._lock:
            listeners = list(self._listeners.values())
        for listener in listeners:
            listener()


_RUN: ContextVar[BatchRun | None] = ContextVar("ragas_boot_batch_run", default=None)
_MEMBER: ContextVar[object | None] = ContextVar("ragas_boot_batch_member", default=None)


def current_run() -> BatchRun | None:
    """The batch scope of the code running now, if any."""
    return _RUN.get()


def current_member() -> object | None:
    """The evaluation (a member of :func:`current_run`) the code running now belongs to."""
    return _MEMBER.get()


@contextlib.contextmanager
def batch_run(ledger: BatchLedger | None = None) -> Iterator[BatchRun]:
    """Open a run's batch scope (see the module docstring) for the body."""
    run = BatchRun(ledger)
    reset = _RUN.set(run)
    try:
        yield run
    finally:
        _RUN.reset(reset)
