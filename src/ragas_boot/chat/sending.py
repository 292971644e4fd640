"""The moment a request reaches the wire, told by a transport to whoever admitted it.

A provider's rate limit counts requests when they reach the wire, not when their slot was
taken: the first requests of a run wait for connections to open, so slots taken at one
instant land later than the next second's, which reuse open connections. The executor sets
a listener around each attempt (:func:`listening`); a transport calls :func:`request_sent`
once the request has been written (aiohttp: ``TraceConfig.on_request_headers_sent``). A
transport that never calls it is still limited: its requests are counted from the slot
until their answer comes (see ``execution.limits``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

__all__ = ["listening", "request_sent"]

_listener: ContextVar[Callable[[float], None] | None] = ContextVar(
    "ragas_boot_request_sent", default=None
)


@contextmanager
def listening(callback: Callable[[float], None]) -> Iterator[None]:
    """Call ``callback(time.monotonic())`` when a request of this task reaches the wire."""
    token = _listener.set(callback)
    try:
        yield
    finally:
        _listener.reset(token)


def request_sent() -> None:
    """Tell the listener of the running task (if any) that its request was just written."""
    callback = _listener.get()
    if callback is not None:
        callback(time.monotonic())
