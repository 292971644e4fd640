"""The loopback shell: a route table served over real HTTP, errors as OpenAI bodies, stop."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
from collections.abc import Iterator

import httpx
import pytest

from ragas_boot.chat.wire.framing import HttpRequest, Response, WireError
from ragas_boot.chat.wire.openai import chat_route
from ragas_boot.chat.wire.shell import LoopbackServer


async def echo(request: HttpRequest) -> Response:
    return Response.json(200, {"path": request.path, "body": request.body.decode()})


async def refuse(request: HttpRequest) -> Response:
    raise WireError(409, "taken", param="name", code="conflict")


async def explode(request: HttpRequest) -> Response:
    raise ZeroDivisionError("division by zero")


async def drop(request: HttpRequest) -> None:
    return None


@pytest.fixture
def shell() -> Iterator[LoopbackServer]:
    server = LoopbackServer(
        {
            "/v1/embeddings": {"POST": echo},
            "/v1/refuse": {"POST": refuse, "PUT": refuse},
            "/v1/explode": {"GET": explode},
            "/v1/drop": {"GET": drop},
        },
        name="test-shell",
    )
    server.start()
    yield server
    server.stop()


@pytest.fixture
def http(shell: LoopbackServer) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=f"http://127.0.0.1:{shell.port}") as client:
        yield client


def test_a_route_added_to_the_table_is_served(http: httpx.Client) -> None:
    answer = http.post("/v1/embeddings/?x=1", content=b'{"input": "\xc3\xa9"}')

    assert answer.status_code == 200
    assert answer.json() == {"path": "/v1/embeddings", "body": '{"input": "é"}'}


def test_unknown_paths_and_methods_are_openai_errors(http: httpx.Client) -> None:
    missing = http.get("/v1/nothing")
    wrong = http.get("/v1/refuse")

    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "unknown_url"
    assert "GET /v1/nothing" in missing.json()["error"]["message"]
    assert wrong.status_code == 405
    assert wrong.headers["allow"] == "POST, PUT"


def test_a_wire_error_is_sent_with_its_param_and_code(http: httpx.Client) -> None:
    answer = http.post("/v1/refuse", json={})

    assert answer.status_code == 409
    assert answer.json()["error"] == {
        "message": "taken",
        "type": "invalid_request_error",
        "param": "name",
        "code": "conflict",
    }


def test_a_route_that_raises_is_a_500_and_the_connection_closes(http: httpx.Client) -> None:
    answer = http.get("/v1/explode")

    assert answer.status_code == 500
    assert answer.json()["error"]["message"] == "ZeroDivisionError: division by zero"
    assert answer.headers["connection"] == "close"
    assert http.post("/v1/embeddings", content=b"{}").status_code == 200  # it serves on


def test_a_route_answering_none_drops_the_connection(http: httpx.Client) -> None:
    with pytest.raises(httpx.RemoteProtocolError):
        http.get("/v1/drop")


def test_a_chat_route_parses_before_it_answers(shell: LoopbackServer) -> None:
    seen: list[str] = []

    async def answer(request, http_request):  # type: ignore[no-untyped-def]
        seen.append(request.model)
        return Response.json(200, {"prompt": request.prompt})

    server = LoopbackServer({"/v1/chat/completions": {"POST": chat_route(answer)}}, name="chat")
    server.start()
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{server.port}/v1") as client:
            good = client.post(
                "/chat/completions",
                json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
            )
            bad = client.post("/chat/completions", json={"model": "m", "messages": [{}]})
    finally:
        server.stop()

    assert good.json() == {"prompt": "hi"}
    assert bad.status_code == 400
    assert bad.json()["error"]["param"] == "messages[0].role"
    assert seen == ["m"]


def test_start_twice_is_refused_and_stop_joins_every_thread() -> None:
    server = LoopbackServer({"/v1/embeddings": {"POST": echo}}, name="test-shell-threads")
    server.start()
    with pytest.raises(RuntimeError, match="test-shell-threads is already running"):
        server.start()
    port = server.port

    server.stop()
    server.stop()

    assert port is not None
    assert server.port is None
    assert not server.running
    assert not [t for t in threading.enumerate() if t.name.startswith("test-shell-threads")]


@pytest.mark.parametrize("drain", [0.0, 30.0], ids=["closes-at-once", "drains"])
def test_stop_drains_requests_being_answered_only_when_asked(drain: float) -> None:
    release = threading.Event()
    entered = threading.Event()

    async def slow(request: HttpRequest) -> Response:
        entered.set()
        await asyncio.to_thread(release.wait, 30)
        return Response.json(200, {"done": True})

    server = LoopbackServer({"/slow": {"GET": slow}}, name="test-drain", drain_seconds=drain)
    server.start()
    outcome: list[object] = []

    def ask() -> None:
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{server.port}") as client:
                outcome.append(client.get("/slow").json())
        except httpx.HTTPError as error:
            outcome.append(type(error))

    client_thread = threading.Thread(target=ask)
    client_thread.start()
    assert entered.wait(10)
    stopper = threading.Thread(target=server.stop)
    stopper.start()
    if drain:
        stopper.join(0.2)
        assert stopper.is_alive()  # stop waits for the request being answered...
        assert client_thread.is_alive()  # ...which is still held, not closed
    else:
        client_thread.join(10)  # closed without waiting for the route
    release.set()
    stopper.join()
    client_thread.join()

    assert outcome == ([{"done": True}] if drain else [httpx.RemoteProtocolError])


def test_client_gone_turns_true_when_the_client_hangs_up() -> None:
    checked = threading.Event()
    answers: list[bool] = []

    async def watch(request: HttpRequest) -> Response:
        answers.append(request.client_gone())
        while not request.client_gone():  # noqa: ASYNC110 - a flag to poll, not an event
            await asyncio.sleep(0.01)
        answers.append(request.client_gone())
        checked.set()
        return Response.json(200, {})

    server = LoopbackServer({"/watch": {"POST": watch}}, name="test-gone")
    server.start()
    try:
        with socket.create_connection(("127.0.0.1", server.port or 0), timeout=5) as sock:
            body = json.dumps({}).encode()
            sock.sendall(
                b"POST /watch HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\n\r\n%s"
                % (len(body), body)
            )
            while not answers:
                time.sleep(0.01)
        assert checked.wait(10)
    finally:
        server.stop()

    assert answers == [False, True]
