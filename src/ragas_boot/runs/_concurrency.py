"""The one way runs bound their work and the one way a sync twin enters an event loop.

Dataset runs (sample × metric evaluations) and tool suites (cases) both go through
:func:`bounded_map` (a fixed pool of workers pulling the next item in order, so at most
``concurrency`` items are in flight and results come back in item order) and their sync twins
through :func:`run_blocking` (the judges' I/O loop when there is one, else a short-lived loop).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar

from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.runs.results import StopReason

__all__ = ["RunControl", "bounded_map", "bounded_run", "run_blocking"]

T = TypeVar("T")
R = TypeVar("R")


class RunControl:
    """Ends a run early from anywhere: a signal handler, another thread, a callback.

    Pass it to :func:`~ragas_boot.runs.evaluate_dataset` / ``aevaluate_dataset``: :meth:`stop`
    makes the run send nothing more, cancel the judge calls in flight and return what
    finished, every unfinished evaluation failed with the given reason. Stopping before the
    run starts ends it at once; stopping twice keeps the first reason.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._reason: StopReason | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._event: asyncio.Event | None = None

    @property
    def reason(self) -> StopReason | None:
        """Why :meth:`stop` was called, or None."""
        return self._reason

    def stop(self, reason: StopReason = "interrupted") -> None:
        """End the run (thread-safe, signal-safe, idempotent)."""
        with self._lock:
            if self._reason is None:
                self._reason = reason
            loop, event = self._loop, self._event
        if loop is not None and event is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
                loop.call_soon_threadsafe(event.set)

    async def _wait(self) -> None:
        with self._lock:
            self._loop = asyncio.get_running_loop()
            self._event = asyncio.Event()
            if self._reason is not None:
                self._event.set()
        await self._event.wait()


async def bounded_run(
    items: Sequence[T],
    work: Callable[[T], Awaitable[R]],
    *,
    concurrency: int,
    on_done: Callable[[int, R], None] | None = None,
    deadline_s: float | None = None,
    control: RunControl | None = None,
) -> tuple[dict[int, R], StopReason | None]:
    """``work`` on every item, at most ``concurrency`` at once, started in item order, until
    all are done, ``deadline_s`` passes or ``control`` stops the run (work in flight is then
    cancelled).

    Args:
        items: what to work on.
        work: the coroutine function run on each item.
        concurrency: items in flight at once (at least 1).
        on_done: called with each item's index and result as it finishes (on the loop).
        deadline_s: seconds the whole run may take.
        control: ends the run early (:meth:`RunControl.stop`).

    Returns:
        The results of the items that finished, by index, and why the run stopped early
        (``None`` when every item finished).

    Raises:
        ValueError: ``concurrency`` is below 1.
    """
    if concurrency < 1:
        raise ValueError(f"concurrency must be at least 1, got {concurrency}")
    results: dict[int, R] = {}
    pending = iter(enumerate(items))

    async def worker() -> None:
        for index, item in pending:
            result = await work(item)
            results[index] = result
            if on_done is not None:
                on_done(index, result)

    everything = asyncio.gather(*(worker() for _ in range(min(concurrency, len(items)) or 1)))
    stop = asyncio.ensure_future(control._wait()) if control is not None else None
    waiting: set[asyncio.Future[Any]] = {everything} if stop is None else {everything, stop}
    try:
        await asyncio.wait(waiting, timeout=deadline_s, return_when=asyncio.FIRST_COMPLETED)
    finally:
        if stop is not None:
            stop.cancel()
    if everything.done():
        everything.result()  # an unexpected error of the work itself propagates
        return results, None
    everything.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await everything
    if control is not None and control.reason is not None:
        return results, control.reason
    return results, "deadline"


async def bounded_map(
    items: Sequence[T],
    work: Callable[[T], Awaitable[R]],
    *,
    concurrency: int,
    on_done: Callable[[int, R], None] | None = None,
) -> list[R]:
    """:func:`bounded_run` to the end: every item's result, in item order."""
    results, _ = await bounded_run(items, work, concurrency=concurrency, on_done=on_done)
    return [results[index] for index in range(len(items))]


def run_blocking(
    work: Coroutine[Any, Any, T], *, portal: LoopPortal | None = None, name: str = "ragas-boot-run"
) -> T:
    """Run ``work`` to its end from sync code: on ``portal``'s loop, else on a loop of its own
    that is closed afterwards. Do not call it from inside ``portal``'s loop."""
    if portal is not None:
        return portal.call(work)
    own = LoopPortal(name=name)
    try:
        return own.call(work)
    finally:
        own.close()
