"""The one way runs bound their work and the one way a sync twin enters an event loop.

Dataset runs (sample × metric evaluations) and tool suites (cases) both go through
:func:`bounded_map` (a fixed pool of workers pulling the next item in order, so at most
``concurrency`` items are in flight and results come back in item order) and their sync twins
through :func:`run_blocking` (the judges' I/O loop when there is one, else a short-lived loop).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from typing import Any, TypeVar

from ragas_boot.execution.bridge import LoopPortal

__all__ = ["bounded_map", "run_blocking"]

T = TypeVar("T")
R = TypeVar("R")


async def bounded_map(
    items: Sequence[T],
    work: Callable[[T], Awaitable[R]],
    *,
    concurrency: int,
    on_done: Callable[[int, R], None] | None = None,
) -> list[R]:
    """``work`` on every item, at most ``concurrency`` at once, started in item order.

    Args:
        items: what to work on.
        work: the coroutine function run on each item.
        concurrency: items in flight at once (at least 1).
        on_done: called with each item's index and result as it finishes (on the loop).

    Returns:
        The results, in item order.

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

    await asyncio.gather(*(worker() for _ in range(min(concurrency, len(items)))))
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
