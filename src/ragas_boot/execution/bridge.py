"""The one bridge between callers' threads/loops and the loop that owns all judge I/O.

Every HTTP client, rate limiter and semaphore of a container lives on one event loop run by a
background thread (the *portal*). Sync twins (``multi_turn_score``) block on it; async twins
(``multi_turn_ascore``) called from any other loop (a pytest-asyncio test, a notebook, the
user's app) await a future completed by it. So a client bound to one loop is never used from
another (dependency-injector issue #576), a sync call made inside a running loop neither
deadlocks nor fails, and there is no ``nest_asyncio``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

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
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._closed = False

    def __repr__(self) -> str:
        state = "closed" if self._closed else ("running" if self._loop else "idle")
        return f"LoopPortal(name={self._name!r}, state={state})"

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        """The portal's loop (started if needed)."""
        with self._lock:
            if self._closed:
                raise RuntimeError("this container is closed; create a new one")
            if self._loop is None:
                ready = threading.Event()
                loop = asyncio.new_event_loop()

                def run() -> None:
                    asyncio.set_event_loop(loop)
                    loop.call_soon(ready.set)
                    loop.run_forever()

                self._thread = threading.Thread(target=run, name=self._name, daemon=True)
                self._thread.start()
                ready.wait()
                self._loop = loop
            return self._loop

    def _loop_for(self, coro: Coroutine[Any, Any, Any]) -> asyncio.AbstractEventLoop:
        try:
            return self.loop
        except RuntimeError:
            coro.close()  # never scheduled: close it so it is not reported as never awaited
            raise

    def in_portal(self) -> bool:
        """Whether the calling code runs on the portal's loop."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            return False
        return running is self._loop

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
        future = asyncio.run_coroutine_threadsafe(coro, self._loop_for(coro))
        try:
            return future.result()
        except KeyboardInterrupt:
            future.cancel()
            raise

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on the portal from any loop (directly when already on it)."""
        if self.in_portal():
            return await coro
        future: concurrent.futures.Future[T] = asyncio.run_coroutine_threadsafe(
            coro, self._loop_for(coro)
        )
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise

    def close(self, timeout: float = 10.0) -> None:
        """Stop the loop and join the thread; pending work is cancelled."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._closed = True
            self._loop = None
            self._thread = None
        if loop is None or thread is None:
            return
        if threading.current_thread() is thread:
            raise RuntimeError("LoopPortal.close() called from the portal's own thread")

        async def shutdown() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await loop.shutdown_asyncgens()

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(timeout)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        loop.close()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closed
