"""A loopback HTTP/1.1 server that hands each request to the route of its path and method.

:class:`LoopbackServer` listens on ``127.0.0.1`` (a free port) and serves from an asyncio loop
in a daemon thread, so sync and async callers alike can use it, connections stay alive and
hundreds of requests can be in flight at once. It knows nothing of OpenAI beyond its error
bodies: what it serves is its route table, ``{path: {method: route}}``, where a route is an
``async`` function of the :class:`~ragas_boot.chat.wire.framing.HttpRequest` returning a
:class:`~ragas_boot.chat.wire.framing.Response` (or ``None`` to close the connection without
an answer). An unknown path is a 404 and a known path with another method a 405 with
``Allow``; a route that raises :class:`~ragas_boot.chat.wire.framing.WireError` sends that
error, any other exception a 500 (and the connection is closed).

Blocking work in a route goes through ``asyncio.to_thread``: the loop's default executor is
the server's own, its threads named after the server and joined when it stops.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final, TypeAlias

from ragas_boot.chat.wire.framing import (
    HEADER_LIMIT,
    HttpRequest,
    Response,
    WireError,
    parse_head,
    read_body,
    response_bytes,
)
from ragas_boot.chat.wire.openai import error_response

__all__ = ["HOST", "LoopbackServer", "Route", "Routes"]

log = logging.getLogger(__name__)

HOST: Final = "127.0.0.1"
_BACKLOG: Final = 1024
_CLOSE_TIMEOUT: Final = 2.0

Route: TypeAlias = Callable[[HttpRequest], Awaitable[Response | None]]
"""Answers one request; ``None`` closes the connection without an answer."""
Routes: TypeAlias = Mapping[str, Mapping[str, Route]]
"""``{path: {method: route}}``."""


class LoopbackServer:
    """Serves ``routes`` on ``127.0.0.1`` from a daemon thread (see the module docstring).

    Args:
        routes: ``{path: {method: route}}``.
        name: names the server thread (``NAME-PORT``) and its worker threads, and its errors.
        drain_seconds: on :meth:`stop`, how long requests being answered may take to finish
            before their connections are closed (0: close them at once).
        stop_timeout: how long :meth:`stop` waits for the thread to end.
    """

    def __init__(
        self,
        routes: Routes,
        *,
        name: str,
        drain_seconds: float = 0.0,
        stop_timeout: float = 10.0,
    ) -> None:
        self._routes = {path: dict(methods) for path, methods in routes.items()}
        self._name = name
        self._drain_seconds = drain_seconds
        self._stop_timeout = stop_timeout
        self._thread: threading.Thread | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stopping: asyncio.Event | None = None
        self._closing = False
        self._port: int | None = None
        self._startup_error: BaseException | None = None
        self._connections: dict[asyncio.Task[Any], asyncio.StreamWriter] = {}
        self._busy = 0
        self._idle: asyncio.Event | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def start(self) -> None:
        """Bind a free port of ``127.0.0.1`` and serve from a daemon thread.

        Raises:
            RuntimeError: the server is already running.
            OSError: the port could not be bound.
        """
        if self._thread is not None:
            raise RuntimeError(f"{self._name} is already running")
        ready = threading.Event()
        self._startup_error = None
        self._closing = False
        thread = threading.Thread(target=self._run, args=(ready,), name=self._name, daemon=True)
        self._thread = thread
        thread.start()
        ready.wait()
        if self._startup_error is not None:
            thread.join()
            self._thread = None
            raise self._startup_error
        thread.name = f"{self._name}-{self._port}"

    def stop(self) -> None:
        """Stop: close the listening socket, let requests being answered drain (up to
        ``drain_seconds``), close every connection and join the threads.

        Calling it again, or on a server never started, does nothing.

        Raises:
            RuntimeError: the server thread did not end in time.
        """
        thread = self._thread
        if thread is None:
            return
        loop, stopping = self._loop, self._stopping
        if loop is not None and stopping is not None and thread.is_alive():
            # RuntimeError: the loop closed in between, the thread is ending anyway.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(stopping.set)
        thread.join(self._stop_timeout)
        if thread.is_alive():
            raise RuntimeError(f"{self._name} thread did not stop in {self._stop_timeout} s")
        self._thread = None
        self._loop = None
        self._stopping = None
        self._port = None

    @property
    def running(self) -> bool:
        """Whether the server is serving."""
        return self._thread is not None

    @property
    def port(self) -> int | None:
        """The TCP port it listens on, or ``None`` when it is not running."""
        return self._port

    # -- server thread ----------------------------------------------------------------

    def _run(self, ready: threading.Event) -> None:
        try:
            asyncio.run(self._main(ready))
        except BaseException as error:  # handed to start(), or ends with the thread
            if not ready.is_set():
                self._startup_error = error
        finally:
            ready.set()

    async def _main(self, ready: threading.Event) -> None:
        loop = self._loop = asyncio.get_running_loop()
        # Named workers for asyncio.to_thread; asyncio.run joins them when the loop ends.
        loop.set_default_executor(ThreadPoolExecutor(thread_name_prefix=f"{self._name}-worker"))
        self._stopping = stopping = asyncio.Event()
        self._idle = asyncio.Event()
        self._idle.set()
        try:
            server = await asyncio.start_server(
                self._serve_connection, HOST, 0, backlog=_BACKLOG, limit=HEADER_LIMIT
            )
        except BaseException as error:
            self._startup_error = error
            ready.set()
            return
        self._port = server.sockets[0].getsockname()[1]
        ready.set()
        try:
            await stopping.wait()
        finally:
            server.close()
            if self._drain_seconds > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._idle.wait(), self._drain_seconds)
            self._closing = True
            await self._close_connections()
            await server.wait_closed()
            await asyncio.sleep(0)  # lets aborted transports release their sockets

    async def _close_connections(self) -> None:
        # Connections accepted while closing register late, hence the loop.
        while self._connections:
            connections = dict(self._connections)
            for task in connections:
                task.cancel()
            _, pending = await asyncio.wait(connections, timeout=_CLOSE_TIMEOUT)
            for task in pending:
                connections[task].transport.abort()
            if pending:
                await asyncio.wait(pending, timeout=_CLOSE_TIMEOUT)
                for task in pending:
                    self._connections.pop(task, None)

    async def _serve_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections[task] = writer
        try:
            await self._serve_requests(reader, writer)
        except asyncio.CancelledError:
            # Only stop() cancels; ending normally keeps asyncio from logging the task.
            pass
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass  # the client went away mid-request
        finally:
            self._connections.pop(task, None)
            if self._closing:
                writer.transport.abort()
            else:
                writer.close()
                with contextlib.suppress(OSError, asyncio.CancelledError):
                    await writer.wait_closed()

    async def _serve_requests(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        while True:
            try:
                head = await reader.readuntil(b"\r\n\r\n")
            except asyncio.IncompleteReadError:
                return  # the client closed an idle connection
            except asyncio.LimitOverrunError:
                error = WireError(431, "Request headers too large.")
                writer.write(_error_bytes(error, keep_alive=False))
                return
            received_at, wall_time = time.monotonic(), time.time()
            try:
                method, path, query, keep_alive, headers = parse_head(head)
                if "100-continue" in headers.get("expect", "").lower():
                    writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
                body = await read_body(reader, method, headers)
            except WireError as error:
                writer.write(_error_bytes(error, keep_alive=False))
                return
            request = HttpRequest(
                method=method,
                path=path,
                query=query,
                headers=headers,
                body=body,
                received_at=received_at,
                wall_time=wall_time,
                client_gone=reader.at_eof,
            )
            response, healthy = await self._dispatch(request)
            if response is None:
                return  # the route drops the connection
            keep_alive = keep_alive and healthy
            writer.write(
                response_bytes(response.status, response.body, keep_alive, response.headers)
            )
            await writer.drain()
            if not keep_alive:
                return

    async def _dispatch(self, request: HttpRequest) -> tuple[Response | None, bool]:
        """The route's answer, and False when the connection must close after it."""
        methods = self._routes.get(request.path)
        if methods is None:
            message = f"Invalid URL ({request.method} {request.path})"
            return error_response(WireError(404, message, code="unknown_url")), True
        route = methods.get(request.method)
        if route is None:
            message = f"Method {request.method} is not allowed on {request.path}."
            error = WireError(405, message, code="method_not_allowed")
            return error_response(error, (("Allow", ", ".join(sorted(methods))),)), True
        assert self._idle is not None
        self._busy += 1
        self._idle.clear()
        try:
            return await route(request), True
        except WireError as error:
            return error_response(error), True
        except Exception as error:
            log.exception("%s failed on %s %s", self._name, request.method, request.path)
            return error_response(WireError(500, f"{type(error).__name__}: {error}")), False
        finally:
            self._busy -= 1
            if not self._busy:
                self._idle.set()


def _error_bytes(error: WireError, *, keep_alive: bool) -> bytes:
    body = error_response(error).body
    return response_bytes(error.status, body, keep_alive)
