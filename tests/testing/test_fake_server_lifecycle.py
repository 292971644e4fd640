"""Start, stop and connections of the fake server (HTTP itself is aiohttp's); the exports."""

from __future__ import annotations

import asyncio
import gc
import inspect
import json
import re
import socket
import textwrap
import threading
import warnings

import openai
import pytest

import ragas_boot.testing
import ragas_boot.testing.server
from ragas_boot.testing import FakeOpenAIServer, Reply

CHAT_BODY = json.dumps({"model": "judge", "messages": [{"role": "user", "content": "hi"}]})


def chat_request(headers: str = "", *, version: str = "HTTP/1.1", body: str = CHAT_BODY) -> bytes:
    head = (
        f"POST /v1/chat/completions {version}\r\nHost: test\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n{headers}\r\n"
    )
    return (head + body).encode()


def read_response(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise EOFError("the server closed the connection")
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status_line, *lines = head.decode("latin-1").split("\r\n")
    headers = {}
    for line in lines:
        name, _, value = line.partition(":")
        headers[name.lower()] = value.strip()
    while len(body) < int(headers["content-length"]):
        body += sock.recv(65536)
    return int(status_line.split()[1]), headers, body


def connect(server: FakeOpenAIServer) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    return sock


def is_closed(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True


def test_fixture_gives_a_fresh_running_server(openai_server: FakeOpenAIServer) -> None:
    assert openai_server.running
    assert openai_server.count() == 0
    assert re.fullmatch(r"http://127\.0\.0\.1:\d+", openai_server.base_url)
    assert openai_server.url == openai_server.base_url + "/v1"
    assert openai_server.port > 0
    assert str(openai_server.port) in repr(openai_server)


def test_addresses_need_a_running_server() -> None:
    server = FakeOpenAIServer()

    with pytest.raises(RuntimeError, match="not running"):
        _ = server.base_url
    assert not server.running
    assert "stopped" in repr(server)
    server.stop()  # stopping a server never started does nothing


def test_start_twice_is_refused_and_a_stopped_server_restarts() -> None:
    with FakeOpenAIServer() as server:
        with pytest.raises(RuntimeError, match="already running"):
            server.start()
        first_port = server.port
    assert not server.running

    server.start()
    try:
        with openai.OpenAI(base_url=server.url, api_key="t", max_retries=0) as client:
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        assert server.running
        assert server.port > 0
        assert first_port > 0
    finally:
        server.stop()
    server.stop()


def test_context_manager_stops_on_errors() -> None:
    server = FakeOpenAIServer()

    with pytest.raises(ZeroDivisionError), server:
        _ = 1 / 0

    assert not server.running


def test_keep_alive_serves_many_requests_on_one_connection(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script("judge", "one", "two", Reply.error(429, retry_after=1))

    with connect(openai_server) as sock:
        statuses = []
        for _ in range(3):
            sock.sendall(chat_request())
            status, headers, _ = read_response(sock)
            statuses.append(status)
            assert "close" not in headers.get("connection", "").lower()
        sock.sendall(b"GET /v1/models HTTP/1.1\r\nHost: test\r\n\r\n")
        models_status, _, models = read_response(sock)

    assert statuses == [200, 200, 429]
    assert models_status == 200
    assert json.loads(models)["data"][0]["id"] == "judge"


@pytest.mark.parametrize(
    ("headers", "version"),
    [("Connection: close\r\n", "HTTP/1.1"), ("", "HTTP/1.0")],
    ids=["connection-close", "http-1.0"],
)
def test_connection_is_closed_when_the_client_asks(
    openai_server: FakeOpenAIServer, headers: str, version: str
) -> None:
    with connect(openai_server) as sock:
        sock.sendall(chat_request(headers, version=version))
        status, response_headers, _ = read_response(sock)

        assert status == 200
        assert response_headers.get("connection", "close").lower() == "close"
        assert is_closed(sock)


def test_chunked_upload_is_read(openai_server: FakeOpenAIServer) -> None:
    body = CHAT_BODY.encode()
    chunks = b"".join(
        f"{len(part):x}\r\n".encode() + part + b"\r\n" for part in (body[:10], body[10:])
    )
    head = (
        b"POST /v1/chat/completions HTTP/1.1\r\nHost: test\r\n"
        b"Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n"
    )

    with connect(openai_server) as sock:
        sock.sendall(head + chunks + b"0\r\n\r\n")
        status, _, payload = read_response(sock)

    assert status == 200
    assert json.loads(payload)["choices"][0]["message"]["content"] == "ok"
    assert openai_server.requests[0].request.prompt == "hi"


def test_post_without_a_body_is_400_and_not_recorded(openai_server: FakeOpenAIServer) -> None:
    with connect(openai_server) as sock:
        sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: test\r\n\r\n")
        status, _, payload = read_response(sock)

    assert status == 400
    assert "could not parse the JSON body" in json.loads(payload)["error"]["message"]
    assert openai_server.count() == 0


def test_stop_closes_every_connection_and_joins_the_thread() -> None:
    server = FakeOpenAIServer().start()
    server.script("judge", Reply.hang(60))
    port = server.port
    threads_before = {thread.name for thread in threading.enumerate()}
    assert f"FakeOpenAIServer-{port}" in threads_before

    with connect(server) as held, connect(server) as idle:
        held.sendall(chat_request())
        idle.sendall(chat_request())
        assert read_response(idle)[0] == 200
        while server.in_flight == 0:
            threading.Event().wait(0.01)

        server.stop()

        assert is_closed(held)
        assert is_closed(idle)
    assert f"FakeOpenAIServer-{port}" not in {thread.name for thread in threading.enumerate()}
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    hung = server.requests[0]
    assert (hung.status, hung.request.model) == (None, "judge")
    assert hung.answered_at is not None
    assert server.in_flight == 0
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        gc.collect()
    assert [w for w in caught if issubclass(w.category, ResourceWarning)] == []


def test_clients_see_a_stopped_server_as_a_connection_error() -> None:
    with (
        FakeOpenAIServer() as server,
        openai.OpenAI(base_url=server.url, api_key="t", max_retries=0) as client,
    ):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        server.stop()

        with pytest.raises(openai.APIConnectionError):
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])


@pytest.mark.asyncio
async def test_hundreds_of_requests_in_flight(
    openai_server: FakeOpenAIServer, async_client: openai.AsyncOpenAI
) -> None:
    # Long enough for the client to send them all first, even on a busy machine.
    openai_server.set_latency(None, 2.0)

    async def call(number: int) -> str | None:
        completion = await async_client.chat.completions.create(
            model=f"judge-{number % 4}", messages=[{"role": "user", "content": str(number)}]
        )
        return completion.choices[0].message.content

    answers = await asyncio.gather(*(call(number) for number in range(250)))

    assert answers == ["ok"] * 250
    assert openai_server.count() == 250
    assert openai_server.peak_in_flight >= 200
    assert openai_server.in_flight == 0


def _ruff_order(name: str) -> tuple[int, str]:
    # ruff's RUF022 order: CONSTANTS, then Classes, then functions.
    kind = 0 if name.isupper() else 1 if name[:1].isupper() else 2
    return kind, name


def test_exports_are_sorted_and_complete() -> None:
    exported = ragas_boot.testing.__all__
    public = {
        name
        for name, value in vars(ragas_boot.testing).items()
        if not name.startswith("_") and not inspect.ismodule(value)
    }

    assert exported == sorted(exported, key=_ruff_order)
    assert set(exported) == public
    for name in exported:
        assert getattr(ragas_boot.testing, name) is not None


def test_module_docstring_example_runs() -> None:
    doc = ragas_boot.testing.server.__doc__ or ""
    block = doc.split(".. code-block:: python\n", 1)[1].split("\nWhich answer", 1)[0]

    exec(compile(textwrap.dedent(block), "ragas_boot.testing.server docstring", "exec"), {})


def test_default_text_is_configurable() -> None:
    with (
        FakeOpenAIServer(default_text="fine") as server,
        openai.OpenAI(base_url=server.url, api_key="t", max_retries=0) as client,
    ):
        completion = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}]
        )

    assert completion.choices[0].message.content == "fine"


def test_oversized_headers_are_refused_unrecorded(openai_server: FakeOpenAIServer) -> None:
    with connect(openai_server) as sock:
        sock.sendall(chat_request(f"X-Big: {'a' * 70_000}\r\n"))
        status, _, _ = read_response(sock)

    assert status == 400
    assert openai_server.count() == 0
