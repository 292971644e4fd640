"""Scripts, responders, rules, latency, faults and the request records of the fake server."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import threading
import time
from typing import Any

import openai
import pytest

from ragas_boot.testing import ChatRequest, FakeOpenAIServer, Reply, hashed_vector


def content(client: openai.OpenAI, model: str = "judge", prompt: str = "hi") -> str | None:
    completion = client.chat.completions.create(
        model=model, messages=[{"role": "user", "content": prompt}]
    )
    return completion.choices[0].message.content


def status_of(client: openai.OpenAI, model: str = "judge") -> int:
    """The HTTP status the client sees, or 0 when it could not read an answer."""
    try:
        client.chat.completions.create(model=model, messages=[{"role": "user", "content": "x"}])
    except openai.APIStatusError as error:
        return error.status_code
    except (openai.APIConnectionError, json.JSONDecodeError):
        return 0
    return 200


def test_scripts_are_consumed_in_order_per_model_then_fall_back(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("judge-a", "a1", "a2")
    openai_server.script("judge-b", "b1")
    openai_server.script(None, "any1")
    openai_server.respond("judge-a", "a-responder")

    answers = [
        content(client, "judge-b"),
        content(client, "judge-a"),
        content(client, "judge-b"),  # its queue is empty: the any-model queue
        content(client, "judge-a"),
        content(client, "judge-a"),  # then the responder
        content(client, "judge-b"),  # no responder: the default
    ]

    assert answers == ["b1", "a1", "any1", "a2", "a-responder", "ok"]


def test_script_accepts_functions_of_the_request(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("judge", lambda request: {"echo": request.prompt})

    assert json.loads(content(client, prompt="ping") or "") == {"echo": "ping"}


def test_responder_answers_from_the_request(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    def responder(request: ChatRequest) -> Reply | dict[str, Any] | str:
        if "refund" in request.prompt:
            return {"verdict": 0}
        if "error" in request.prompt:
            return Reply.error(400, "bad prompt")
        return "plain"

    openai_server.respond(None, responder)

    assert json.loads(content(client, prompt="a refund please") or "") == {"verdict": 0}
    assert content(client, "other-model", prompt="hello") == "plain"
    with pytest.raises(openai.BadRequestError, match="bad prompt"):
        content(client, prompt="error")

    openai_server.respond(None, None)
    assert content(client) == "ok"


def test_rules_first_match_wins_before_scripts(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("judge", "scripted")
    infer = openai_server.when(lambda r: "InferGoal" in r.prompt, {"goal": "fly"}, times=2)
    openai_server.when(lambda r: "Infer" in r.prompt, "second rule")
    only_b = openai_server.when(lambda r: True, "b rule", model="judge-b")

    assert json.loads(content(client, prompt="InferGoal: ...") or "") == {"goal": "fly"}
    assert content(client, prompt="compare") == "scripted"
    assert json.loads(content(client, prompt="InferGoal again") or "") == {"goal": "fly"}
    assert content(client, prompt="InferGoal thrice") == "second rule"  # the first is used up
    assert content(client, "judge-b", prompt="anything") == "b rule"
    assert (infer.hits, infer.remaining, only_b.hits, only_b.remaining) == (2, 0, 1, None)

    only_b.remove()
    assert content(client, "judge-b") == "ok"


def test_failing_callbacks_answer_500_and_are_recorded(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    def broken(request: ChatRequest) -> str:
        raise KeyError("verdict")

    rule = openai_server.when(lambda r: r.body["missing"], "never")
    with pytest.raises(openai.InternalServerError, match="predicate raised KeyError"):
        content(client)
    assert openai_server.requests[0].error == "KeyError: 'missing'"
    rule.remove()
    openai_server.reset()
    openai_server.respond("judge-b", broken)
    with pytest.raises(openai.InternalServerError, match="responder raised KeyError"):
        content(client, "judge-b")
    openai_server.respond("judge-c", lambda request: 42)  # type: ignore[arg-type,return-value]
    with pytest.raises(openai.InternalServerError, match="expected a Reply, dict or str"):
        content(client, "judge-c")

    errors = [record.error for record in openai_server.requests]
    assert errors == ["KeyError: 'verdict'", "TypeError: expected a Reply, dict or str, got int"]


@pytest.mark.asyncio
async def test_latency_overlaps_concurrent_requests(
    openai_server: FakeOpenAIServer, async_client: openai.AsyncOpenAI
) -> None:
    openai_server.set_latency("judge-a", 0.2)
    openai_server.set_latency(None, 0.2)

    async def call(model: str) -> None:
        await async_client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "x"}]
        )

    await asyncio.gather(*(call("judge-a") for _ in range(4)), call("judge-b"))

    assert openai_server.peak_in_flight >= 4
    assert openai_server.peak_in_flight_for("judge-a") >= 4
    assert openai_server.peak_in_flight_for("judge-b") == 1
    assert openai_server.peak_in_flight_for("unknown") == 0
    assert openai_server.in_flight == 0


def test_faults_are_deterministic_for_a_seed(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    def run(seed: int) -> list[str | None]:
        openai_server.reset()
        openai_server.inject_faults(
            "judge", rate_429=0.2, rate_500=0.2, rate_garbage=0.1, rate_drop=0.1, seed=seed
        )
        for _ in range(30):
            status_of(client)
        return [record.fault for record in openai_server.requests]

    first, again, other = run(7), run(7), run(8)

    assert first == again
    assert first != other
    assert {"429", "500", "garbage", "drop", None} == set(first)


def test_fault_records_match_what_the_client_saw(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.inject_faults(rate_429=0.3, retry_after=3, rate_500=0.3, rate_drop=0.2, seed=1)

    seen = [status_of(client, f"judge-{i % 3}") for i in range(20)]

    expected = {None: 200, "429": 429, "500": 500, "drop": 0}
    assert seen == [expected[record.fault] for record in openai_server.requests]
    assert [record.status for record in openai_server.requests] == [s or None for s in seen]


def test_faulted_requests_do_not_consume_the_script(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("judge", "first", "second", "third")
    openai_server.inject_faults("judge", rate_500=0.5, seed=3)

    answers: list[str | None] = []
    while len(answers) < 3:
        with contextlib.suppress(openai.InternalServerError):
            answers.append(content(client))

    assert answers == ["first", "second", "third"]
    faults = [record.fault for record in openai_server.requests]
    assert "500" in faults
    assert faults.count(None) == 3


def test_model_faults_win_over_global_ones(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.inject_faults(rate_500=1.0)
    openai_server.inject_faults("healthy", rate_500=0.0)  # all zero: removes its own settings
    openai_server.inject_faults("limited", rate_429=1.0, retry_after=0.5)

    assert status_of(client, "any") == 500
    assert status_of(client, "healthy") == 500
    with pytest.raises(openai.RateLimitError) as caught:
        content(client, "limited")
    assert caught.value.response.headers["retry-after"] == "0.5"


@pytest.mark.asyncio
async def test_hang_fault_holds_the_request(
    openai_server: FakeOpenAIServer, async_client: openai.AsyncOpenAI
) -> None:
    openai_server.inject_faults("judge", rate_hang=1.0, hang_seconds=0.2)

    completion = await async_client.chat.completions.create(
        model="judge", messages=[{"role": "user", "content": "x"}]
    )

    (record,) = openai_server.requests
    assert completion.choices[0].message.content == "ok"
    assert record.fault == "hang"
    assert record.answered_at is not None
    assert record.answered_at - record.request.received_at >= 0.2


def test_trickle_sends_the_head_at_once_and_the_body_in_pieces(
    openai_server: FakeOpenAIServer,
) -> None:
    openai_server.script("judge", Reply.trickle(0.4, pieces=4))
    body = json.dumps({"model": "judge", "messages": [{"role": "user", "content": "x"}]})
    head = (
        "POST /v1/chat/completions HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )

    with socket.create_connection(("127.0.0.1", openai_server.port), timeout=10) as sock:
        sock.sendall((head + body).encode())
        received = b""
        while b"\r\n\r\n" not in received:
            received += sock.recv(65536)
        head_seen = time.monotonic()
        response_head, _, payload = received.partition(b"\r\n\r\n")
        length_header = re.search(rb"(?i)content-length: (\d+)", response_head)
        assert length_header is not None
        length = int(length_header[1])
        while len(payload) < length:
            payload += sock.recv(65536)
        body_seen = time.monotonic()

    (record,) = openai_server.requests
    assert response_head.startswith(b"HTTP/1.1 200")
    assert json.loads(payload)["choices"][0]["message"]["content"] == "ok"  # the default
    # Four pieces 0.1 s apart: the last three came after the head (lower bounds only).
    assert body_seen - head_seen >= 0.3 * 0.9
    assert (record.status, record.fault) == (200, None)
    assert record.answered_at is not None
    assert record.answered_at - record.request.received_at >= 0.4 * 0.9


@pytest.mark.asyncio
async def test_trickle_fault_is_drawn_recorded_and_read_whole(
    openai_server: FakeOpenAIServer, async_client: openai.AsyncOpenAI
) -> None:
    openai_server.inject_faults("judge", rate_trickle=1.0, trickle_seconds=0.2)

    completion = await async_client.chat.completions.create(
        model="judge", messages=[{"role": "user", "content": "x"}]
    )

    (record,) = openai_server.requests
    assert completion.choices[0].message.content == "ok"
    assert (record.status, record.fault) == (200, "trickle")
    assert record.answered_at is not None
    assert record.answered_at - record.request.received_at >= 0.2 * 0.9


def test_trickled_embeddings_arrive_whole(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script_embeddings("emb", Reply.trickle(0.2, pieces=3))

    answer = client.embeddings.create(model="emb", input=["a b", "c"], encoding_format="float")

    (record,) = openai_server.embedding_requests
    assert [item.embedding for item in answer.data] == [
        hashed_vector("a b"),
        hashed_vector("c"),
    ]
    assert record.status == 200
    assert record.answered_at is not None
    assert record.answered_at - record.received_at >= 0.2 * 0.9


def test_stop_closes_a_trickle_mid_body() -> None:
    server = FakeOpenAIServer().start()
    server.script("judge", Reply.trickle(60, pieces=2))
    outcome: list[BaseException] = []

    def call() -> None:
        with openai.OpenAI(base_url=server.url, api_key="t", max_retries=0) as client:
            try:
                content(client)
            except BaseException as error:
                outcome.append(error)

    caller = threading.Thread(target=call)
    caller.start()
    while server.in_flight == 0:
        time.sleep(0.01)
    server.stop()
    caller.join(30)

    assert not caller.is_alive()
    assert [type(error) for error in outcome] == [openai.APIConnectionError]
    (record,) = server.requests
    assert record.status is None and record.answered_at is not None
    assert server.in_flight == 0


def test_fail_always_takes_a_model_down(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("down", "never sent")
    openai_server.fail_always("down")
    openai_server.fail_always("unavailable", Reply.error(503, "maintenance"))

    assert [status_of(client, "down") for _ in range(3)] == [500, 500, 500]
    with pytest.raises(openai.InternalServerError, match="maintenance"):
        content(client, "unavailable")
    assert content(client, "up") == "ok"
    assert {record.fault for record in openai_server.requests_for("down")} == {"fail_always"}


def test_reset_forgets_everything(openai_server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    openai_server.script("judge", "scripted")
    openai_server.respond(None, "responder")
    openai_server.when(lambda r: True, "rule")
    openai_server.inject_faults(rate_500=1.0)
    openai_server.fail_always("judge")
    status_of(client)
    openai_server.set_latency(None, 60)  # longer than the client's timeout

    openai_server.reset()

    assert openai_server.requests == []
    assert openai_server.count() == 0
    assert openai_server.peak_in_flight == 0
    assert content(client) == "ok"
    assert openai_server.requests[0].request.index == 0
    assert [model.id for model in client.models.list()] == ["judge"]


def test_records_describe_each_request(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    before_wall, before = time.time(), time.monotonic()
    content(client, "judge-a", prompt="first")
    client.chat.completions.create(
        model="judge-b",
        messages=[
            {"role": "system", "content": "sys"},
            {
                "role": "user",
                "content": [{"type": "text", "text": "part one"}, {"type": "text", "text": "two"}],
            },
            {"role": "assistant", "content": "reply"},
        ],
        temperature=0.5,
        extra_headers={"X-Test": "yes"},
    )

    first, second = openai_server.requests
    assert [first.request.index, second.request.index] == [0, 1]
    assert second.request.prompt == "part one\ntwo"
    assert second.request.body["temperature"] == 0.5
    assert second.request.headers["x-test"] == "yes"
    assert second.request.headers["authorization"] == "Bearer test"
    assert before <= first.request.received_at <= (first.answered_at or 0)
    assert before_wall <= first.request.wall_time <= time.time()
    assert (first.status, first.fault, first.error) == (200, None, None)
    assert openai_server.count() == 2
    assert openai_server.count("judge-a") == 1
    assert [r.request.prompt for r in openai_server.requests_for("judge-a")] == ["first"]
    assert openai_server.requests_for("nobody") == []


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda s: s.inject_faults(rate_429=0.7, rate_500=0.5), "add up to 1.2"),
        (lambda s: s.inject_faults(rate_drop=-0.1), "within"),
        (lambda s: s.inject_faults(rate_trickle=0.1, trickle_seconds=-1), "seconds"),
        (lambda s: s.set_latency(None, -1), "latency"),
        (lambda s: s.when(lambda r: True, "x", times=0), "times"),
    ],
    ids=["rates-over-1", "negative-rate", "negative-trickle", "negative-latency", "zero-times"],
)
def test_bad_settings_are_refused(openai_server: FakeOpenAIServer, call: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call(openai_server)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Reply.error(200), "400-599"),
        (lambda: Reply.hang(-1), "seconds"),
        (lambda: Reply.trickle(1, pieces=0), "pieces"),
        (lambda: Reply.text("x", delay=float("nan")), "delay"),
        (lambda: Reply.tool_calls([{"arguments": {}}]), "name"),
    ],
    ids=["error-200", "negative-hang", "no-pieces", "nan-delay", "nameless-call"],
)
def test_bad_replies_are_refused(make: Any, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_reply_json_refuses_what_json_cannot_hold() -> None:
    with pytest.raises(TypeError):
        Reply.json({"when": object()})
