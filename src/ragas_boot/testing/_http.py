"""The one base of every local test server: an ``aiohttp.web`` app on its own loop in a thread.

:class:`BackgroundServer` serves one request handler on ``127.0.0.1`` (a free port) from an
asyncio loop in a daemon thread, so sync and async tests alike can call it, connections stay
alive and hundreds of requests can be in flight at once. HTTP itself is aiohttp's, the loop's
thread :class:`~ragas_boot._loop_thread.LoopThread`'s; what is ours is the app's lifecycle
(start, stop that closes held requests at once, a thread named after the port) and two faults
that need the raw connection: :func:`drop` (abort the transport without an answer) and
:func:`trickle` (send the body in pieces over some seconds).

aiohttp is imported when a server starts, not when ``ragas_boot.testing`` is imported: the
pytest plugin imports this package in every session of every user.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any, Final, TypeAlias

from ragas_boot._loop_thread import LoopThread

if TYPE_CHECKING:
    from aiohttp import web

__all__ = [
    "HOST",
    "MAX_BODY",
    "BackgroundServer",
    "Handler",
    "Received",
    "drop",
    "header_seconds",
    "json_response",
    "reason",
    "received",
    "trickle",
]

HOST: Final = "127.0.0.1"
MAX_BODY: Final = 64 * 1024 * 1024
"""The largest request body read, in bytes (aiohttp's default is 1 MiB: too small for a
prompt with many long contexts)."""
_HEADER_LIMIT: Final = 64 * 1024
_BACKLOG: Final = 1024  # hundreds of clients connect at once in the fan-out tests
_CANCEL_TIMEOUT: Final = 5.0

Handler: TypeAlias = "Callable[[web.Request], Awaitable[web.StreamResponse]]"
"""Answers one request, any method and path."""


@dataclass(frozen=True, slots=True)
class Received:
    """What every server records of a request before it reads the body.

    Attributes:
        path: the path without query string or trailing slash.
        query: the query string as sent, without ``?`` (empty without one).
        headers: the headers, names in lower case (repeated ones joined by ``", "``).
        received_at: ``time.monotonic()`` when the handler got the request.
        wall_time: ``time.time()`` at the same moment.
    """

    path: str
    query: str
    headers: Mapping[str, str]
    received_at: float
    wall_time: float


def received(request: web.Request) -> Received:
    """The request's path, query, headers and arrival times (call it first in a handler)."""
    received_at, wall_time = time.monotonic(), time.time()
    headers: dict[str, str] = {}
    for name, value in request.headers.items():
        key = name.lower()
        headers[key] = f"{headers[key]}, {value}" if key in headers else value
    path = request.path
    if len(path) > 1:
        path = path.rstrip("/") or "/"
    return Received(path, request.query_string, headers, received_at, wall_time)


def json_response(
    status: int, value: Any, headers: Sequence[tuple[str, str]] | Mapping[str, str] = ()
) -> web.Response:
    """A response whose body is ``value`` as compact JSON (``Content-Type: application/json``)."""
    body = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()
    return raw_response(status, body, headers)


def raw_response(
    status: int, body: bytes, headers: Sequence[tuple[str, str]] | Mapping[str, str] = ()
) -> web.Response:
    """A response with ``body`` as is, labelled JSON (a cut-off body stays "JSON" on purpose)."""
    from aiohttp import web

    pairs = headers.items() if isinstance(headers, Mapping) else headers
    return web.Response(
        status=status, body=body, content_type="application/json", headers=dict(pairs)
    )


async def drop(request: web.Request) -> web.StreamResponse:
    """Close the connection without an answer: the client sees a connection error.

    Returns a response that aiohttp cannot send any more (it gives up quietly on the closed
    transport), so the handler can return it like any other.
    """
    from aiohttp import web

    transport = request.transport
    if transport is not None:
        transport.abort()  # an RST rather than a FIN: no half-written answer is read
    return web.Response(status=HTTPStatus.NO_CONTENT)


async def trickle(
    request: web.Request,
    response: web.Response,
    *,
    seconds: float,
    pieces: int,
    last: Callable[[], None] | None = None,
) -> web.StreamResponse:
    """Send ``response``'s head at once, then its body in ``pieces`` parts over ``seconds``.

    A client with a total timeout shorter than ``seconds`` gives up mid-body although every
    piece arrives well within a read timeout. A client that goes away mid-body ends it.
    ``last`` is called just before the last part goes out (to record the answer before the
    client can have read it).
    """
    from aiohttp import web

    body = response.body
    assert isinstance(body, bytes)
    stream = web.StreamResponse(status=response.status, headers=response.headers)
    stream.content_length = len(body)
    size = max(1, -(-len(body) // max(1, pieces)))
    parts = [body[start : start + size] for start in range(0, len(body), size)] or [b""]
    pause = seconds / len(parts)
    try:
        await stream.prepare(request)
        for index, part in enumerate(parts):
            await asyncio.sleep(pause)
            if last is not None and index == len(parts) - 1:
                last()
            await stream.write(part)
        await stream.write_eof()
    except ConnectionError:
        pass  # the client gave up mid-body: nothing more to send
    return stream


def reason(status: int) -> str:
    """The reason phrase of an HTTP status ("Error" for one it does not know)."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def header_seconds(value: float) -> str:
    """Seconds as a header value: ``2`` rather than ``2.0``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


class BackgroundServer:
    """Serves ``handler`` on ``127.0.0.1`` from an aiohttp app in a daemon thread.

    The thread and its loop are :class:`~ragas_boot._loop_thread.LoopThread`'s; what is the
    server's is the app: bound to a free port, its thread named after the port, and requests
    still held (hangs, delays) closed unanswered at once when it stops.

    Args:
        handler: answers every request (any method, any path).
        name: names the thread (``NAME-PORT`` while it runs) and its worker threads.
        workers: the size of the loop's default executor (``asyncio.to_thread`` in a
            handler), for servers whose answers block; ``None`` keeps asyncio's default.
        stop_timeout: how long :meth:`stop` waits for the thread to end.
    """

    def __init__(
        self,
        handler: Handler,
        *,
        name: str,
        workers: int | None = None,
        stop_timeout: float = 10.0,
    ) -> None:
        self._handler = handler
        self._name = name
        self._workers = workers
        self._stop_timeout = stop_timeout
        self._thread: LoopThread | None = None
        self._runner: web.AppRunner | None = None
        self._site: web.TCPSite | None = None
        self._port: int | None = None
        self._held: set[asyncio.Task[Any]] = set()

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        """Bind a free port of ``127.0.0.1`` and serve from a daemon thread.

        Raises:
            RuntimeError: the server is already running.
            OSError: the port could not be bound.
        """
        if self._thread is not None:
            raise RuntimeError(f"{self._name} is already running")
        thread = LoopThread(name=self._name, workers=self._workers)
        thread.start()
        try:
            self._port = thread.call(self._open())
        except BaseException:
            thread.stop(timeout=self._stop_timeout)
            raise
        self._thread = thread
        thread.rename(f"{self._name}-{self._port}")

    def stop(self) -> None:
        """Stop: close the listening socket, close requests still being answered (hangs,
        delays) unanswered, close every connection and join the threads.

        Calling it again, or on a server never started, does nothing.

        Raises:
            RuntimeError: the server thread did not end in time.
        """
        thread = self._thread
        if thread is None:
            return
        try:
            thread.call(self._close(), timeout=self._stop_timeout)
        finally:
            thread.stop(timeout=self._stop_timeout)
            self._thread = None
            self._port = None

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._thread is not None

    @property
    def port(self) -> int | None:
        """The TCP port it listens on, or ``None`` when it is not running."""
        return self._port

    # -- on the server's loop ------------------------------------------------------------

    async def _open(self) -> int:
        from aiohttp import web

        app = web.Application(client_max_size=MAX_BODY)
        app.router.add_route("*", "/{path:.*}", self._serve)
        runner = web.AppRunner(
            app,
            access_log=None,
            handle_signals=False,
            # Held requests are cancelled by _close first; what is left is idle.
            shutdown_timeout=0.1,
            max_line_size=_HEADER_LIMIT,
            max_field_size=_HEADER_LIMIT,
        )
        await runner.setup()
        try:
            site = web.TCPSite(runner, HOST, 0, backlog=_BACKLOG)
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner, self._site = runner, site
        return int(site.port)

    async def _close(self) -> None:
        runner, site = self._runner, self._site
        self._runner = self._site = None
        if site is not None:
            await site.stop()  # no new connections while the held requests close
        await self._close_held()
        if runner is not None:
            await runner.cleanup()

    async def _serve(self, request: web.Request) -> web.StreamResponse:
        task = asyncio.current_task()
        assert task is not None
        self._held.add(task)
        try:
            return await self._handler(request)
        finally:
            self._held.discard(task)

    async def _close_held(self) -> None:
        # Requests that arrive while closing register late, hence the loop.
        while self._held:
            held = set(self._held)
            for task in held:
                task.cancel()
            await asyncio.wait(held, timeout=_CANCEL_TIMEOUT)
            self._held -= held
