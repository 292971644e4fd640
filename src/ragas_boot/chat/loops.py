"""Clients kept per event loop: an HTTP client bound to one loop is never used from another
(dependency-injector issue #576), so every judge, embedding model and the tool agent keep
theirs in a :class:`PerLoop`."""

from __future__ import annotations

import asyncio
import weakref
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

__all__ = ["PerLoop"]

MadeT = TypeVar("MadeT")


class PerLoop(Generic[MadeT]):
    """One object per event loop, made on first use in that loop and dropped with the loop.

    Args:
        make: builds the running loop's object.
    """

    __slots__ = ("_last", "_made", "_make")

    def __init__(self, make: Callable[[], MadeT]) -> None:
        self._make = make
        self._made: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, MadeT] = (
            weakref.WeakKeyDictionary()
        )
        self._last: tuple[Callable[[], object], MadeT | None] = (_no_loop, None)

    def get(self) -> MadeT:
        """The running loop's object (made now if this loop has none)."""
        loop = asyncio.get_running_loop()
        # Nearly every call comes from the loop of the call before: no weak reference made.
        last_loop, last = self._last
        if last_loop() is loop and last is not None:
            return last
        made = self._made.get(loop)
        if made is None:
            made = self._make()
            self._made[loop] = made
        self._last = (weakref.ref(loop), made)
        return made

    async def aclose(self, close: Callable[[MadeT], Awaitable[object]] | None = None) -> None:
        """Forget every loop's object; with ``close``, close each on its own loop: now on the
        current loop, through that loop if it still runs. An object whose loop is closed
        cannot be closed any more; its sockets went with that loop."""
        made = list(self._made.items())
        self._made.clear()
        self._last = (_no_loop, None)
        if close is None:
            return
        current = asyncio.get_running_loop()
        for loop, value in made:
            if loop is current:
                await close(value)
            elif loop.is_running() and not loop.is_closed():
                future = asyncio.run_coroutine_threadsafe(_closing(close, value), loop)
                await asyncio.wrap_future(future)


async def _closing(close: Callable[[MadeT], Awaitable[object]], value: MadeT) -> None:
    await close(value)


def _no_loop() -> None:
    return None
