"""HTTP/1.1 framing of the fake server: read a request off a stream, write a response.

Just what an OpenAI client sends: a request line, headers, and a ``Content-Length`` or chunked
body. Responses are always JSON with a ``Content-Length``.
"""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus
from typing import Any, Final, TypeAlias

__all__ = [
    "HEADER_LIMIT",
    "MAX_BODY",
    "BadRequestError",
    "Headers",
    "dumps",
    "error_body",
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


class BadRequestError(Exception):
    """A request the server answers with an error status, then closes the connection."""

    def __init__(self, status: int, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.code = code


def parse_head(head: bytes) -> tuple[str, str, bool, dict[str, str]]:
    """Method, path (no query, no trailing slash), keep-alive and headers (lower-case names).

    Raises:
        BadRequestError: a malformed request line or header.
    """
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
        raise BadRequestError(400, f"Malformed request line: {lines[0][:100]!r}")
    method, target, version = parts
    headers: dict[str, str] = {}
    for line in lines[1:]:
        if not line:
            continue
        name, colon, value = line.partition(":")
        if not colon:
            raise BadRequestError(400, f"Malformed header line: {line[:100]!r}")
        name = name.strip().lower()
        value = value.strip()
        headers[name] = f"{headers[name]}, {value}" if name in headers else value
    connection = headers.get("connection", "").lower()
    # HTTP/1.1 keeps connections alive unless told not to; HTTP/1.0 only when asked.
    keep_alive = "keep-alive" in connection if version == "HTTP/1.0" else "close" not in connection
    path = target.partition("?")[0]
    if len(path) > 1:
        path = path.rstrip("/")
    return method, path, keep_alive, headers


async def read_body(reader: asyncio.StreamReader, method: str, headers: dict[str, str]) -> bytes:
    """The request body, by ``Content-Length`` or chunked transfer coding.

    Raises:
        BadRequestError: 411 for a POST without a length, 413 for a body too large, 400 or 501
            for a malformed or unsupported framing.
        asyncio.IncompleteReadError: the client closed the connection mid-body.
    """
    encoding = headers.get("transfer-encoding")
    if encoding is not None:
        if encoding.lower().rsplit(",", 1)[-1].strip() != "chunked":
            raise BadRequestError(501, f"Transfer-Encoding {encoding!r} is not supported.")
        return await _read_chunked(reader)
    length_text = headers.get("content-length")
    if length_text is None:
        if method in ("POST", "PUT", "PATCH"):
            raise BadRequestError(411, "A Content-Length header is required.")
        return b""
    try:
        length = int(length_text)
    except ValueError:
        raise BadRequestError(400, f"Bad Content-Length {length_text!r}.") from None
    if length < 0:
        raise BadRequestError(400, f"Bad Content-Length {length_text!r}.")
    if length > MAX_BODY:
        raise BadRequestError(413, f"The body is over {MAX_BODY} bytes.")
    return await reader.readexactly(length) if length else b""


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while True:
        line = await reader.readuntil(b"\r\n")
        try:
            size = int(line.split(b";", 1)[0].strip(), 16)
        except ValueError:
            raise BadRequestError(400, "Malformed chunk size.") from None
        if size == 0:
            while await reader.readuntil(b"\r\n") != b"\r\n":
                pass  # trailers are ignored
            return b"".join(chunks)
        total += size
        if total > MAX_BODY:
            raise BadRequestError(413, f"The body is over {MAX_BODY} bytes.")
        chunks.append(await reader.readexactly(size))
        if await reader.readexactly(2) != b"\r\n":
            raise BadRequestError(400, "Malformed chunk.")


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
    """Compact JSON bytes."""
    return json.dumps(value, separators=(",", ":")).encode()


def error_body(status: int, message: str, *, code: str | None = None) -> bytes:
    """An OpenAI error body: ``{"error": {"message", "type", "param", "code"}}``."""
    if status == 429:
        kind, code = "requests", code or "rate_limit_exceeded"
    elif status >= 500:
        kind, code = "server_error", code or "server_error"
    elif status == 401:
        kind, code = "invalid_request_error", code or "invalid_api_key"
    else:
        kind = "invalid_request_error"
    return dumps({"error": {"message": message, "type": kind, "param": None, "code": code}})


def reason(status: int) -> str:
    """The reason phrase of an HTTP status."""
    return _REASONS.get(status, "Error")


def header_seconds(value: float) -> str:
    """Seconds as a header value: ``2`` rather than ``2.0``."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"
