"""HTTP/1.1 framing of the loopback shell: read a request off a stream, write a response.

Just what an OpenAI client sends: a request line, headers, and a ``Content-Length`` or chunked
body. Responses carry a JSON body with a ``Content-Length``.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any, Final, TypeAlias

__all__ = [
    "HEADER_LIMIT",
    "MAX_BODY",
    "Headers",
    "HttpRequest",
    "Response",
    "WireError",
    "dumps",
    "header_seconds",
    "parse_head",
    "read_body",
    "reason",
    "response_bytes",
]

HEADER_LIMIT: Final = 64 * 1024
"""The longest request head (and chunk-size line) read, in bytes."""
MAX_BODY: Final = 64 * 1024 * 1024
"""The largest request body read, in bytes."""

_REASONS: Final = {status.value: status.phrase for status in HTTPStatus}

Headers: TypeAlias = tuple[tuple[str, str], ...]


class WireError(Exception):
    """A request the server refuses; sent as an OpenAI error body with ``status``.

    Attributes:
        status: HTTP status (400 for a malformed request, 404 for an unknown model, ...).
        message: what is wrong, for the caller.
        param: the request field at fault (``messages[0].role``), when there is one.
        code: OpenAI's error code (``model_not_found``, ``context_length_exceeded``), if any.
    """

    def __init__(
        self, status: int, message: str, *, param: str | None = None, code: str | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.param = param
        self.code = code


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """One HTTP request as the shell read it.

    Attributes:
        method: ``GET``, ``POST``, ...
        path: the path without query string or trailing slash.
        query: the query string as sent, without ``?`` (empty without one).
        headers: the headers, names in lower case.
        body: the raw body.
        received_at: ``time.monotonic()`` when the request was read.
        wall_time: ``time.time()`` when the request was read.
        client_gone: tells whether the client has closed the connection (safe to call from
            a worker thread: it only reads the stream's end-of-file flag).
    """

    method: str
    path: str
    headers: Mapping[str, str] = field(repr=False)
    body: bytes = field(repr=False)
    received_at: float
    wall_time: float
    client_gone: Callable[[], bool] = field(repr=False)
    query: str = field(default="", repr=False)


@dataclass(frozen=True, slots=True)
class Response:
    """What a route answers: a status, a body (JSON, or anything for a fault) and headers."""

    status: int
    body: bytes
    headers: Headers = ()

    @classmethod
    def json(cls, status: int, value: Any, headers: Headers = ()) -> Response:
        """A response whose body is ``value`` as compact JSON."""
        return cls(status, dumps(value), headers)


def parse_head(head: bytes) -> tuple[str, str, str, bool, dict[str, str]]:
    """Method, path (no query, no trailing slash), query (without ``?``), keep-alive and
    headers (lower-case names).

    Raises:
        WireError: a malformed request line or header.
    """
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise WireError(400, f"Malformed request line: {lines[0][:100]!r}")
    method, target, version = parts
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise WireError(400, f"Malformed header line: {line[:100]!r}")
        name = name.strip().lower()
        value = value.strip()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    connection = headers.get("connection", "").lower()
    # HTTP/1.1 keeps connections alive unless told not to; HTTP/1.0 only when asked.
    keep_alive = "keep-alive" in connection if version == "HTTP/1.0" else "close" not in connection
    path, _, query = target.partition("?")
    if len(path) > 1:
        path = path.rstrip("/")
    return method, path, query, keep_alive, headers


async def read_body(reader: asyncio.StreamReader, method: str, headers: dict[str, str]) -> bytes:
    """The request body, by ``Content-Length`` or chunked transfer coding.

    Raises:
        WireError: 411 for a POST without a length, 413 for a body too large, 400 or 501
            for a malformed or unsupported framing.
        asyncio.IncompleteReadError: the client closed the connection mid-body.
    """
    encoding = headers.get("transfer-encoding")
    if encoding is not None:
        if encoding.lower().rsplit(",", 1)[-1].strip() != "chunked":
            raise WireError(501, f"Transfer-Encoding {encoding!r} is not supported.")
        return await _read_chunked(reader)
    length_text = headers.get("content-length")
    if length_text is None:
        if method in ("POST", "PUT", "PATCH"):
            raise WireError(411, "A Content-Length header is required.")
        return b""
    try:
        length = int(length_text)
    except ValueError:
        raise WireError(400, f"Bad Content-Length {length_text!r}.") from None
    if length < 0:
        raise WireError(400, f"Bad Content-Length {length_text!r}.")
    if length > MAX_BODY:
        raise WireError(413, f"The body is over {MAX_BODY} bytes.")
    return await reader.readexactly(length) if length else b""


class ChunkedBodyError(ValueError):
    """A chunked body that is malformed, or (``head`` set) longer than allowed."""

    def __init__(self, message: str, head: bytes | None = None) -> None:
        super().__init__(message)
        self.head = head


async def read_chunked(reader: asyncio.StreamReader, *, max_body: int, keep_head: int = 0) -> bytes:
    """A ``Transfer-Encoding: chunked`` body, read up to ``max_body`` bytes (trailers ignored).

    Raises:
        ChunkedBodyError: a malformed chunk; or a body over ``max_body``, with its first
            ``keep_head`` bytes as ``head``. Both the loopback server and the direct
            transport's client read chunked bodies through this.
    """
    chunks: list[bytes] = []
    total = 0
    while True:
        line = await reader.readuntil(b"\r\n")
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise ChunkedBodyError("malformed chunk size") from None
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":
                pass  # trailers are ignored
            return b"".join(chunks)
        if total + size > max_body:
            chunks.append(await reader.readexactly(min(size, max(0, keep_head - total))))
            raise ChunkedBodyError(
                f"the body is over {max_body} bytes", head=b"".join(chunks)[:keep_head]
            )
        chunks.append(await reader.readexactly(size))
        total += size
        if await reader.readexactly(2) != b"\r\n":
            raise ChunkedBodyError("malformed chunk")


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    try:
        return await read_chunked(reader, max_body=MAX_BODY)
    except ChunkedBodyError as error:
        if error.head is not None:
            raise WireError(413, f"The body is over {MAX_BODY} bytes.") from None
        raise WireError(400, f"{str(error).capitalize()}.") from None


def response_bytes(status: int, body: bytes, keep_alive: bool, extra: Headers = ()) -> bytes:
    """A whole HTTP/1.1 response with a JSON body."""
    lines = [
        f"HTTP/1.1 {status} {_REASONS.get(status, 'Unknown')}",
        "Content-Type: application/json",
        f"Content-Length: {len(body)}",
        "Connection: keep-alive" if keep_alive else "Connection: close",
    ]
    lines.extend(f"{name}: {value}" for name, value in extra)
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def dumps(value: Any) -> bytes:
    """Compact JSON bytes (non-ASCII text kept as UTF-8)."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def reason(status: int) -> str:
    """The reason phrase of an HTTP status."""
    return _REASONS.get(status, "Error")


def header_seconds(value: float) -> str:
    """Seconds as a header value: ``2`` rather than ``2.0``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
