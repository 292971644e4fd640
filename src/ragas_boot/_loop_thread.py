"""An asyncio event loop run by a daemon thread: the one shell of every loop ragas-boot runs
beside its callers' own.

Three owners use it: the container's portal (``execution/bridge.py``: every judge call, from
sync and async callers alike), the local model's endpoint (``chat/local/http.py``) and the
test servers (``testing/_http.py``). What they share is here: start the thread and wait until
its loop runs, hand it a coroutine from another thread (blocking, or awaited from another
loop, a cancellation passed on), and stop cleanly: the tasks left cancelled and awaited,
async generators closed, a worker pool of its own joined, the loop stopped, the thread joined
and the loop closed. What each runs on the loop stays with its owner.

The cost it keeps: one thread per loop for the owner's lifetime; handing over a coroutine is
one thread-safe callback (no loop, thread or pool made per call).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["LoopThread"]

T = TypeVar("T")


class LoopThread:
    """An event loop in a daemon thread, from :meth:`start` to :meth:`stop`.

    Args:
        name: the thread's name (shows in debuggers, ``py-spy`` and thread listings).
        workers: the size of a named worker pool of its own for the loop's default executor
            (``asyncio.to_thread``), joined by :meth:`stop`; ``None`` keeps asyncio's default
            pool, which :meth:`stop` does not wait for.
    """

    def __init__(self, *, name: str, workers: int | None = None) -> None:
        self._name = name
        self._workers = workers
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    def __repr__(self) -> str:
        state = "running" if self._loop is not None else "stopped"
        return f"LoopThread(name={self._name!r}, {state})"

    @property
    def loop(self) -> asyncio.AbstractEventLoop | None:
        """The running loop, or ``None`` before :meth:`start` and after :meth:`stop`."""
        return self._loop

    @property
    def running(self) -> bool:
        """Whether the loop runs."""
        return self._loop is not None

    def rename(self, name: str) -> None:
        """Rename the thread (a server names it after its port once bound)."""
        if self._thread is not None:
            self._thread.name = name

    def start(self) -> asyncio.AbstractEventLoop:
        """Start the thread; return its loop once it runs.

        Raises:
            RuntimeError: it runs already.
        """
        if self._loop is not None:
            raise RuntimeError(f"{self._name} is already running")
        loop = asyncio.new_event_loop()
        if self._workers is not None:
            loop.set_default_executor(
                concurrent.futures.ThreadPoolExecutor(
                    self._workers, thread_name_prefix=f"{self._name}-worker"
                )
            )
        ready = threading.Event()

        def run() -> None:
            asyncio.set_event_loop(loop)
            loop.call_soon(ready.set)
            loop.run_forever()

        thread = threading.Thread(target=run, name=self._name, daemon=True)
        thread.start()
        ready.wait()
        self._loop, self._thread = loop, thread
        return loop

    def on_loop(self) -> bool:
        """Whether the calling code runs on this loop."""
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            return False
        return running is self._loop

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule ``coro`` on the loop from any thread; its future.

        Raises:
            RuntimeError: the loop does not run (``coro`` is closed, never scheduled).
        """
        loop = self._loop
        if loop is None:
            coro.close()  # never scheduled: close it so it is not reported as never awaited
            raise RuntimeError(f"{self._name} is not running")
        return asyncio.run_coroutine_threadsafe(coro, loop)

    def call(self, coro: Coroutine[Any, Any, T], *, timeout: float | None = None) -> T:
        """Run ``coro`` on the loop and block the calling thread until it is done.

        An interrupt (Ctrl-C) while waiting cancels ``coro``.

        Raises:
            RuntimeError: the loop does not run.
            TimeoutError: ``coro`` is not done after ``timeout`` seconds (it goes on).
        """
        future = self.submit(coro)
        try:
            return future.result(timeout)
        except KeyboardInterrupt:
            future.cancel()
            raise

    async def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Await ``coro`` on the loop from another loop; cancelling the caller cancels it.

        Raises:
            RuntimeError: the loop does not run.
        """
        future = self.submit(coro)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            future.cancel()
            raise

    def stop(self, *, timeout: float = 10.0) -> None:
        """Cancel and await the tasks left, close async generators (and join the own worker
        pool), stop the loop, join the thread and close the loop. Stopping a loop that does
        not run does nothing.

        Raises:
            RuntimeError: called from the loop's own thread, or the thread did not end in
                ``timeout`` seconds.
            TimeoutError: the tasks left did not end in ``timeout`` seconds.
        """
        loop, thread = self._loop, self._thread
        if loop is None or thread is None:
            return
        if threading.current_thread() is thread:
            raise RuntimeError(f"{self._name} cannot be stopped from its own thread")
        self._loop = self._thread = None
        joins_workers = self._workers is not None

        async def shutdown() -> None:
            tasks = [task for task in asyncio.all_tasks() if task is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await loop.shutdown_asyncgens()
            if joins_workers:
                await loop.shutdown_default_executor()

        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(timeout)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(timeout)
        if thread.is_alive():
            raise RuntimeError(f"{thread.name} thread did not stop in {timeout} s")
        loop.close()
