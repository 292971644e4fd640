"""A small HTTP/1.1 keep-alive client on asyncio streams: the judges' ``direct`` transport.

It does what a judge call needs and nothing else: ``POST`` a JSON body to one origin over
kept-alive connections (plain or TLS), read a ``Content-Length``, chunked or read-to-close
response, and stop reading a body past a bound. No redirects, cookies, proxies or
compression (``Accept-Encoding`` is not sent, so servers answer in identity encoding).

Why not httpx or aiohttp: a 200-call fan-out on two cores is bound by the client's CPU per
call, and a general client spends most of it on what a judge never uses (benchmarks/README.md
has the figures). The caller bounds each call with ``asyncio.timeout``; a connection that a
call did not finish cleanly is closed, never returned to the pool.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Final
from urllib.parse import urlsplit

from ragas_boot.chat.wire.framing import ChunkedBodyError, read_chunked
from ragas_boot.config.urls import mask_url

if TYPE_CHECKING:
    import ssl

__all__ = ["BodyTooLargeError", "HttpClient", "HttpConnectionError", "HttpResponse"]

_HEAD_LIMIT: Final = 64 * 1024
"""Longest response head (status line and headers), in bytes."""


class HttpConnectionError(Exception):
    """The server could not be reached, dropped the connection or broke HTTP framing."""


class BodyTooLargeError(Exception):
    """The response body is longer than the caller allows; reading stopped.

    Attributes:
        head: the body's first bytes (as many as the caller asked to keep).
    """

    def __init__(self, head: bytes) -> None:
        super().__init__("response body too large")
        self.head = head


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """A whole response: status, headers (names in lower case) and body."""

    status: int
    headers: Mapping[str, str]
    body: bytes


@lru_cache(maxsize=1)
def _tls_context() -> ssl.SSLContext:
    # Building a default context loads the CA store (milliseconds): once per process, and
    # ssl itself is imported only when a judge first calls an https URL.
    import ssl

    return ssl.create_default_context()


class _Connection:
    __slots__ = ("reader", "writer")

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader = reader
        self.writer = writer

    def usable(self) -> bool:
        # A server that closed an idle connection has fed EOF by the time the loop runs us.
        return not (self.reader.at_eof() or self.writer.is_closing())

    def close(self) -> None:
        self.writer.close()


class HttpClient:
    """Kept-alive connections to one origin, for one event loop.

    Args:
        base_url: ``http(s)://host[:port][/prefix][?query]``; request paths are appended to its
            path, and its query (Azure's ``api-version``, a gateway's ``key``) goes on every
            request.
        headers: headers sent with every request (``Authorization``, extra ones).
        max_idle: idle connections kept for reuse.
    """

    def __init__(self, base_url: str, *, headers: Mapping[str, str], max_idle: int) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"an absolute http(s) URL is needed, got '{mask_url(base_url)}'")
        self._tls = parts.scheme == "https"
        self._host = parts.hostname
        self._port = parts.port or (443 if self._tls else 80)
        self._prefix = parts.path.rstrip("/")
        self._query = f"?{parts.query}" if parts.query else ""
        default_port = self._port == (443 if self._tls else 80)
        host = f"[{self._host}]" if ":" in self._host else self._host
        authority = host if default_port else f"{host}:{self._port}"
        lines = [f"Host: {authority}", "Connection: keep-alive", "Accept: application/json"]
        lines += [f"{name}: {value}" for name, value in headers.items()]
        self._headers = ("\r\n".join(lines) + "\r\n").encode("latin-1")
        self._idle: list[_Connection] = []
        self._max_idle = max_idle
        self._closed = False

    async def _connect(self) -> _Connection:
        try:
            if self._tls:
                reader, writer = await asyncio.open_connection(
                    self._host,
                    self._port,
                    ssl=_tls_context(),
                    server_hostname=self._host,
                    limit=_HEAD_LIMIT,
                )
            else:
                reader, writer = await asyncio.open_connection(
                    self._host, self._port, limit=_HEAD_LIMIT
                )
        except OSError as error:
            raise HttpConnectionError(str(error) or type(error).__name__) from error
        return _Connection(reader, writer)

    def _take(self) -> _Connection | None:
        while self._idle:
            connection = self._idle.pop()
            if connection.usable():
                return connection
            connection.close()
        return None

    async def post(self, path: str, body: bytes, *, max_body: int, keep_head: int) -> HttpResponse:
        """Post ``body`` (JSON) to ``prefix + path + query`` and read the whole response.

        Args:
            path: the request path after the base URL's own path.
            body: the JSON body.
            max_body: the longest response body read.
            keep_head: bytes of an over-long body kept in :class:`BodyTooLargeError`.

        Raises:
            HttpConnectionError: no connection, a dropped one, or a malformed response.
            BodyTooLargeError: the body is longer than ``max_body``.
        """
        connection = self._take() or await self._connect()
        reusable = False
        try:
            request = b"".join(
                (
                    f"POST {self._prefix}{path}{self._query} HTTP/1.1\r\n".encode("latin-1"),
                    self._headers,
                    b"Content-Type: application/json\r\nContent-Length: ",
                    str(len(body)).encode("ascii"),
                    b"\r\n\r\n",
                    body,
                )
            )
            connection.writer.write(request)
            response, reusable = await _read_response(
                connection.reader, max_body=max_body, keep_head=keep_head
            )
            return response
        except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError) as error:
            detail = (
                "the server closed the connection without an answer"
                if isinstance(error, asyncio.IncompleteReadError)
                else str(error) or type(error).__name__
            )
            raise HttpConnectionError(detail) from error
        finally:
            if reusable and not self._closed and len(self._idle) < self._max_idle:
                self._idle.append(connection)
            else:
                connection.close()

    async def aclose(self) -> None:
        """Close every idle connection (connections in use close when their call ends)."""
        self._closed = True
        idle, self._idle = self._idle, []
        for connection in idle:
            connection.close()
        for connection in idle:
            with contextlib.suppress(OSError):  # a connection the server reset meanwhile
                await connection.writer.wait_closed()


async def _read_response(
    reader: asyncio.StreamReader, *, max_body: int, keep_head: int
) -> tuple[HttpResponse, bool]:
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status_line = lines[0].split(" ", 2)
    if len(status_line) < 2 or not status_line[0].startswith("HTTP/1."):
        raise HttpConnectionError(f"malformed status line {lines[0][:80]!r}")
    try:
        status = int(status_line[1])
    except ValueError:
        raise HttpConnectionError(f"malformed status line {lines[0][:80]!r}") from None
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    keep_alive = "close" not in headers.get("connection", "").lower() and (
        status_line[0] != "HTTP/1.0"
    )
    if "chunked" in headers.get("transfer-encoding", "").lower():
        body = await _read_chunked(reader, max_body=max_body, keep_head=keep_head)
    elif "content-length" in headers:
        try:
            length = int(headers["content-length"])
        except ValueError:
            raise HttpConnectionError("malformed Content-Length") from None
        if length > max_body:
            raise BodyTooLargeError(await reader.readexactly(min(keep_head, length)))
        body = await reader.readexactly(length) if length else b""
    elif status in (204, 304) or 100 <= status < 200:
        body = b""
    else:
        body = await reader.read(max_body + 1)
        while len(body) <= max_body:
            more = await reader.read(max_body + 1 - len(body))
            if not more:
                break
            body += more
        if len(body) > max_body:
            raise BodyTooLargeError(body[:keep_head])
        keep_alive = False
    return HttpResponse(status, headers, body), keep_alive


async def _read_chunked(reader: asyncio.StreamReader, *, max_body: int, keep_head: int) -> bytes:
    try:
        return await read_chunked(reader, max_body=max_body, keep_head=keep_head)
    except ChunkedBodyError as error:
        if error.head is not None:
            raise BodyTooLargeError(error.head) from None
        raise HttpConnectionError(str(error)) from None
