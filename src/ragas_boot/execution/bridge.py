"""The one bridge between callers' threads/loops and the loop that owns all judge I/O.

Every HTTP client, rate limiter and semaphore of a container lives on one event loop run by a
background thread (the *portal*). Sync twins (``multi_turn_score``) block on it; async twins
(``multi_turn_ascore``) called from any other loop (a pytest-asyncio test, a notebook, the
user's app) await a future completed by it. So a client bound to one loop is never used from
another (dependency-injector issue #576), a sync call made inside a running loop neither
deadlocks nor fails, and there is no ``nest_asyncio``. The thread and its loop are
:class:`~ragas_boot._loop_thread.LoopThread`'s; what is the portal's own is starting it on
first use, refusing a sync call from its own loop, and staying closed once closed.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from ragas_boot._loop_thread import LoopThread

__all__ = ["LoopPortal", "run_without_loop"]

T = TypeVar("T")


def run_without_loop(coro: Coroutine[Any, Any, T]) -> T:
    """Drive a coroutine that never suspends (a metric with no I/O) to its result on the
    caller's thread: the sync twin of a judge-less metric needs no loop at all.

    Raises:
        RuntimeError: the coroutine awaited I/O after all.
    """
    try:
        coro.send(None)
    except StopIteration as stop:
        return stop.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("a metric that needs nothing awaited I/O; declare what it needs")


class LoopPortal:
    """An event loop in a daemon thread, started on first use and stopped by :meth:`close`.

    Args:
        name: thread name (shows in debuggers and ``py-spy``).
    """

    def __init__(self, *, name: str = "ragas-boot-portal") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._thread = LoopThread(name=name)
        self._closed = False

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("running" if self._thread.running else "idle")
        return f"LoopPortal(name={self._name!r}, state={state})"

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The portal's loop (started if needed)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("this container is closed; create a new one")
            return self._thread.loop or self._thread.start()

    def _started(self, coro: Coroutine[Any, Any, Any]) -> LoopThread:
        try:
            self.loop  # noqa: B018 - starts the loop on first use
        except RuntimeError:
            coro.close()  # never scheduled: close it so it is not reported as never awaited
            raise
        return self._thread

    def in_portal(self) -> bool:
        """Whether the calling code runs on the portal's loop."""
        return self._thread.on_loop()

    def call(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the portal and block until it is done (the sync bridge).

        Works from plain scripts and from inside a running loop (that loop's thread waits;
        the work happens on the portal's).

        Raises:
            RuntimeError: when called from the portal's own loop, which would deadlock; use the
                async twin there.
        """
        if self.in_portal():
            coro.close()
            raise RuntimeError(
                "a sync ragas-boot method was called from inside ragas-boot's own event loop; "
                "await the async twin (e.g. multi_turn_ascore) instead"
            )
        return self._started(coro).call(coro)

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on the portal from any loop (directly when already on it)."""
        if self.in_portal():
            return await coro
        return await self._started(coro).run(coro)

    def close(self, timeout: float = 10.0) -> None:
        """Stop the loop and join the thread; pending work is cancelled."""
        with self._lock:
            self._closed = True
        self._thread.stop(timeout=timeout)

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed
