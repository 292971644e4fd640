"""The fakes of the GigaChat, Anthropic and Ollama APIs (tests/support/fakes): lifecycle,
scripts and records, on the same server base as FakeOpenAIServer."""

from __future__ import annotations

import http.client
import json
import threading

import pytest

from ragas_boot.testing import Reply
from support.fakes import FakeAnthropicServer, FakeGigaChatServer, FakeOllamaServer, gigachat_key


def post(port: int, path: str, body: object, headers: dict[str, str] | None = None):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        payload = body if isinstance(body, str) else json.dumps(body)
        connection.request(
            "POST", path, payload, {"Content-Type": "application/json", **(headers or {})}
        )
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), json.loads(response.read() or b"null")
    finally:
        connection.close()


@pytest.mark.parametrize("fake", [FakeGigaChatServer, FakeAnthropicServer, FakeOllamaServer])
def test_a_fake_serves_on_a_free_port_and_leaves_no_thread(fake):
    server = fake().start()
    port = server.port
    assert server.origin == f"http://127.0.0.1:{port}"

    server.stop()
    server.stop()  # twice is fine

    assert not any(t.name == f"{fake.thread_name}-{port}" for t in threading.enumerate())
    with pytest.raises(RuntimeError, match="not started"):
        _ = server.port


def test_scripts_are_used_once_in_order_then_the_responder_then_the_default():
    with FakeOllamaServer() as server:
        server.script("m", {"n": 1}, Reply.error(503))
        body = {"model": "m", "stream": False, "messages": [{"role": "user", "content": "hi"}]}

        first = post(server.port, "/api/chat", body)
        second = post(server.port, "/api/chat", body)
        server.respond(None, lambda call: {"echo": call.texts[0]})
        third = post(server.port, "/api/chat", body)
        server.reset()
        fourth = post(server.port, "/api/chat", body)

    assert json.loads(first[2]["message"]["content"]) == {"n": 1}
    assert second[0] == 503 and "overloaded" in second[2]["error"]
    assert json.loads(third[2]["message"]["content"]) == {"echo": "hi"}
    assert fourth[2]["message"]["content"] == "ok"  # no schema asked: a short text
    assert server.count("m") == 1  # reset() forgot the three before


def test_the_anthropic_fake_checks_the_key_and_the_required_fields():
    with FakeAnthropicServer(api_key="sk-ant-test") as server:
        no_key = post(server.port, "/v1/messages", {"model": "m", "messages": []})
        no_max = post(
            server.port,
            "/v1/messages",
            {"model": "m", "messages": []},
            {"x-api-key": "sk-ant-test"},
        )
        server.script("m", Reply.error(429, retry_after=3))
        limited = post(
            server.port,
            "/v1/messages",
            {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "x"}]},
            {"authorization": "Bearer sk-ant-test"},
        )

    assert no_key[0] == 401 and no_key[2]["error"]["type"] == "authentication_error"
    assert no_max[0] == 400 and "max_tokens" in no_max[2]["error"]["message"]
    assert limited[0] == 429 and limited[1]["Retry-After"] == "3"
    assert limited[2]["error"]["type"] == "rate_limit_error"


def test_the_gigachat_fake_exchanges_the_key_for_a_token_and_checks_it():
    key = gigachat_key("id", "secret")
    with FakeGigaChatServer(credentials=key) as server:
        form = {"Content-Type": "application/x-www-form-urlencoded", "RqUID": "1"}
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request(
            "POST",
            "/api/v2/oauth",
            "scope=GIGACHAT_API_PERS",
            {**form, "Authorization": f"Basic {key}"},
        )
        token = json.loads(connection.getresponse().read())
        connection.request(
            "POST",
            "/api/v2/oauth",
            "scope=GIGACHAT_API_PERS",
            {**form, "Authorization": "Basic bm9wZQ=="},
        )
        refused = connection.getresponse()
        refused.read()
        connection.request(
            "POST", "/api/v2/oauth", "scope=NOPE", {**form, "Authorization": f"Basic {key}"}
        )
        bad_scope = connection.getresponse()
        bad_scope.read()
        connection.close()
        chat = {"model": "GigaChat", "messages": [{"role": "user", "content": "привет"}]}
        bearer = {"Authorization": f"Bearer {token['access_token']}"}
        answered = post(server.port, "/api/v1/chat/completions", chat, bearer)
        server.expire_tokens()
        expired = post(server.port, "/api/v1/chat/completions", chat, bearer)

    assert token["expires_at"] > 0
    assert refused.status == 401 and bad_scope.status == 400
    assert answered[0] == 200 and answered[2]["choices"][0]["message"]["content"] == "ok"
    assert answered[2]["usage"]["total_tokens"] > 0
    assert expired[0] == 401
    assert server.token_requests == 3


def test_stop_closes_a_held_request_at_once_and_joins_the_worker_threads():
    server = FakeOllamaServer().start()
    server.script("m", Reply.hang(60))
    port = server.port
    outcome: list[BaseException] = []

    def call() -> None:
        body = {"model": "m", "stream": False, "messages": [{"role": "user", "content": "x"}]}
        try:
            post(port, "/api/chat", body)
        except BaseException as error:
            outcome.append(error)

    caller = threading.Thread(target=call)
    caller.start()
    while server.peak_in_flight == 0:
        threading.Event().wait(0.01)
    server.stop()
    caller.join(30)

    assert not caller.is_alive()
    assert len(outcome) == 1 and isinstance(outcome[0], ConnectionError)  # closed unanswered
    prefix = FakeOllamaServer.thread_name
    assert not [t.name for t in threading.enumerate() if t.name.startswith(prefix)]
