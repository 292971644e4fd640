"""The direct transport's HTTP/1.1 client against a real socket server: framing and reuse."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable

import pytest
import pytest_asyncio

from ragas_boot.chat.wire.client import (
    BodyTooLargeError,
    HttpClient,
    HttpConnectionError,
)

Answer = Callable[[int], bytes]


class RawServer:
    """Answers each request with the bytes ``answer(n)`` gives (n counts requests); counts
    connections; closes a connection after answering when the answer says ``Connection:
    close`` or when ``close_after_each`` is set."""

    def __init__(self, answer: Answer, *, close_after_each: bool = False) -> None:
        self.answer = answer
        self.close_after_each = close_after_each
        self.connections = 0
        self.requests = 0
        self.bodies: list[bytes] = []
        self.server: asyncio.Server | None = None

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = 0
                for line in head.decode("latin-1").split("\r\n"):
                    if line.lower().startswith("content-length:"):
                        length = int(line.split(":", 1)[1])
                self.bodies.append(await reader.readexactly(length))
                self.requests += 1
                reply = self.answer(self.requests)
                writer.write(reply)
                await writer.drain()
                if self.close_after_each or b"Connection: close" in reply:
                    break
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()

    @property
    def url(self) -> str:
        assert self.server is not None
        port = self.server.sockets[0].getsockname()[1]
        return f"http://127.0.0.1:{port}/v1"


@pytest_asyncio.fixture
async def serve() -> AsyncIterator[Callable[..., RawServer]]:
    servers: list[RawServer] = []

    async def start(answer: Answer, **options: bool) -> RawServer:
        raw = RawServer(answer, **options)
        raw.server = await asyncio.start_server(raw.handle, "127.0.0.1", 0)
        servers.append(raw)
        return raw

    yield start  # type: ignore[misc]
    for raw in servers:
        assert raw.server is not None
        raw.server.close()


def json_reply(body: bytes, *extra: str) -> bytes:
    head = ["HTTP/1.1 200 OK", "Content-Type: application/json", f"Content-Length: {len(body)}"]
    return ("\r\n".join([*head, *extra]) + "\r\n\r\n").encode() + body


def client(server: RawServer) -> HttpClient:
    return HttpClient(server.url, headers={"Authorization": "Bearer k"}, max_idle=4)


async def post(http: HttpClient, body: bytes = b"{}", max_body: int = 1000):
    return await http.post("/chat/completions", body, max_body=max_body, keep_head=10)


@pytest.mark.asyncio
async def test_calls_in_a_row_share_one_kept_alive_connection(serve):
    server = await serve(lambda n: json_reply(b'{"n": %d}' % n))
    http = client(server)
    try:
        answers = [await post(http, b'{"q": %d}' % i) for i in range(3)]
    finally:
        await http.aclose()
    assert [a.body for a in answers] == [b'{"n": 1}', b'{"n": 2}', b'{"n": 3}']
    assert server.bodies == [b'{"q": 0}', b'{"q": 1}', b'{"q": 2}']
    assert server.connections == 1


@pytest.mark.asyncio
async def test_a_connection_the_server_closed_is_not_reused(serve):
    server = await serve(lambda n: json_reply(b"{}"), close_after_each=True)
    http = client(server)
    try:
        for _ in range(3):
            assert (await post(http)).status == 200
            await asyncio.sleep(0.05)  # the server's close reaches the client's loop
    finally:
        await http.aclose()
    assert (server.connections, server.requests) == (3, 3)


@pytest.mark.asyncio
async def test_connection_close_and_bodies_read_to_the_end_are_not_kept(serve):
    server = await serve(
        lambda n: b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + b'{"until": "eof"}'
    )
    http = client(server)
    try:
        first = await post(http)
        second = await post(http)
    finally:
        await http.aclose()
    assert first.body == second.body == b'{"until": "eof"}'
    assert server.connections == 2


@pytest.mark.asyncio
async def test_a_chunked_body_is_joined(serve):
    chunked = (
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        b'4\r\n{"a"\r\n3\r\n: 1\r\n1\r\n}\r\n0\r\n\r\n'
    )
    server = await serve(lambda n: chunked)
    http = client(server)
    try:
        answers = [await post(http), await post(http)]
    finally:
        await http.aclose()
    assert [a.body for a in answers] == [b'{"a": 1}', b'{"a": 1}']
    assert server.connections == 1


@pytest.mark.parametrize("framing", ["length", "chunked", "eof"])
@pytest.mark.asyncio
async def test_a_body_over_the_bound_stops_reading_and_keeps_its_head(serve, framing):
    big = b'{"reason": "' + b"x" * 5000 + b'"}'
    replies = {
        "length": json_reply(big),
        "chunked": b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        + b"".join(
            b"%x\r\n%s\r\n" % (len(big[i : i + 500]), big[i : i + 500])
            for i in range(0, len(big), 500)
        )
        + b"0\r\n\r\n",
        "eof": b"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n" + big,
    }
    server = await serve(lambda n: replies[framing])
    http = client(server)
    try:
        with pytest.raises(BodyTooLargeError) as error:
            await post(http, max_body=1000)
        assert (await post(http, max_body=10_000)).body == big  # a fresh connection
    finally:
        await http.aclose()
    assert error.value.head == big[:10]
    assert server.connections == 2


@pytest.mark.parametrize(
    "reply",
    [
        b"garbage\r\n\r\n",
        b"HTTP/1.1 abc OK\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nContent-Length: 99\r\n\r\n{}",
    ],
    ids=["no-status-line", "bad-status", "body-cut-short"],
)
@pytest.mark.asyncio
async def test_a_broken_response_is_a_connection_error(serve, reply):
    server = await serve(lambda n: reply, close_after_each=True)
    http = client(server)
    try:
        with pytest.raises(HttpConnectionError):
            await post(http)
    finally:
        await http.aclose()


def test_only_absolute_http_urls_are_taken():
    with pytest.raises(ValueError, match="absolute http"):
        HttpClient("localhost:8080", headers={}, max_idle=1)
