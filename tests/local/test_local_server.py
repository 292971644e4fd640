"""The local model server's HTTP surface, against the real bundled SmolLM2-135M.

Answers are asserted for shape and schema validity only, never for what a 135M model thinks.
"""

from __future__ import annotations

import itertools
import threading

import httpx
import pytest
from pydantic import BaseModel

from ragas_boot.chat import LocalModelServer
from ragas_boot.testing import FakeOpenAIServer

pytestmark = pytest.mark.local_llm

MODEL = "smollm2-135m"
PROMPT = (
    "Conversation:\nUser: What is the capital of France?\nAssistant: Paris.\n"
    "Goal: the user learns the capital of France. Was the goal achieved?"
)


class Verdict(BaseModel):
    """A judge's verdict."""

    goal_achieved: bool
    reason: str


SCHEMA = Verdict.model_json_schema()


def _body(**extra: object) -> dict[str, object]:
    return {
        "model": MODEL,
        "temperature": 0,
        "max_completion_tokens": 128,
        "messages": [
            {"role": "system", "content": "You are an evaluator. Answer in JSON."},
            {"role": "user", "content": PROMPT},
        ],
        **extra,
    }


@pytest.fixture
def http(local_server: LocalModelServer):
    with httpx.Client(base_url=local_server.url, timeout=120) as client:
        yield client


def test_models_lists_the_judge_ids_it_answers_to(http):
    answer = http.get("/models")

    assert answer.status_code == 200
    assert [model["id"] for model in answer.json()["data"]] == [MODEL, "judge-b"]


def test_json_schema_answers_fit_the_schema_and_carry_usage(http):
    answer = http.post(
        "/chat/completions",
        json=_body(
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "Verdict", "schema": SCHEMA, "strict": True},
            }
        ),
    )

    assert answer.status_code == 200
    data = answer.json()
    choice = data["choices"][0]
    assert choice["finish_reason"] == "stop"
    Verdict.model_validate_json(choice["message"]["content"])
    usage = data["usage"]
    assert usage["prompt_tokens"] > 0
    assert usage["completion_tokens"] > 0
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]
    assert data["model"] == MODEL


def test_json_object_with_a_schema_fits_the_schema(http):
    answer = http.post(
        "/chat/completions",
        json=_body(response_format={"type": "json_object", "schema": SCHEMA}),
    )

    Verdict.model_validate_json(answer.json()["choices"][0]["message"]["content"])


def test_a_forced_tool_choice_answers_with_a_call_of_that_tool(http):
    tools = [
        {"type": "function", "function": {"name": "Verdict", "parameters": SCHEMA}},
        {"type": "function", "function": {"name": "other", "parameters": {"type": "object"}}},
    ]

    answer = http.post(
        "/chat/completions",
        json=_body(tools=tools, tool_choice={"type": "function", "function": {"name": "Verdict"}}),
    )

    choice = answer.json()["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    assert choice["message"]["content"] is None
    (call,) = choice["message"]["tool_calls"]
    assert call["type"] == "function"
    assert call["function"]["name"] == "Verdict"
    Verdict.model_validate_json(call["function"]["arguments"])


def test_max_completion_tokens_caps_the_answer(http):
    answer = http.post("/chat/completions", json=_body(max_completion_tokens=3, max_tokens=500))

    data = answer.json()
    assert data["usage"]["completion_tokens"] == 3
    assert data["choices"][0]["finish_reason"] == "length"


@pytest.mark.parametrize(
    ("change", "status", "param"),
    [
        ({"messages": []}, 400, "messages"),
        ({"temperature": 3}, 400, "temperature"),
        ({"stream": True}, 400, "stream"),
        ({"response_format": {"type": "yaml"}}, 400, "response_format.type"),
        ({"response_format": {"type": "json_object", "schema": {"type": "nonsense"}}}, 400, None),
        ({"tool_choice": "required", "tools": []}, 400, "tool_choice"),
        ({"model": "gpt-4o"}, 404, "model"),
    ],
)
def test_bad_requests_get_an_openai_error(http, change, status, param):
    answer = http.post("/chat/completions", json={**_body(), **change})

    assert answer.status_code == status
    error = answer.json()["error"]
    assert error["type"] == "invalid_request_error"
    assert error["message"]
    if param is not None:
        assert error["param"] == param
    if status == 404:
        assert error["code"] == "model_not_found"


def test_a_body_that_is_not_json_is_a_400(http):
    answer = http.post(
        "/chat/completions", content=b"{not json", headers={"Content-Type": "application/json"}
    )

    assert answer.status_code == 400
    assert "not valid JSON" in answer.json()["error"]["message"]


def test_concurrent_requests_are_served_one_generation_at_a_time(local_server, http):
    before = len(local_server.records)
    start = threading.Barrier(3)
    statuses: list[int] = []

    def ask(model: str) -> None:
        with httpx.Client(base_url=local_server.url, timeout=120) as client:
            start.wait()
            body = _body(model=model, max_completion_tokens=12)
            statuses.append(client.post("/chat/completions", json=body).status_code)

    threads = [threading.Thread(target=ask, args=(m,)) for m in (MODEL, "judge-b", MODEL)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert statuses == [200, 200, 200]
    assert local_server.peak_in_flight >= 2  # they did arrive together...
    assert local_server.peak_generating == 1  # ...and were generated one after another
    runs = sorted(local_server.records[before:], key=lambda record: record.started)
    assert len(runs) == 3
    for earlier, later in itertools.pairwise(runs):
        assert later.started >= earlier.finished


SAME_ON_BOTH = [
    {"messages": [{"role": "wizard", "content": "x"}]},
    {"messages": ["hi"]},
    {"temperature": 2.5},
    {"n": 3},
    {"stream": True},
    {"response_format": {"type": "json_schema"}},
    {"tools": [{"type": "retrieval"}]},
    {"tool_choice": {"type": "function", "function": {"name": "absent"}}},
    {"tool_choice": "required"},
]


@pytest.mark.parametrize("change", SAME_ON_BOTH, ids=lambda change: next(iter(change)))
def test_the_test_server_and_the_local_server_refuse_the_same_requests(http, change):
    with FakeOpenAIServer() as fake, httpx.Client(base_url=fake.url) as fake_http:
        fake_answer = fake_http.post("/chat/completions", json={**_body(), **change})
    local_answer = http.post("/chat/completions", json={**_body(), **change})

    assert local_answer.status_code == fake_answer.status_code == 400
    assert local_answer.json()["error"] == fake_answer.json()["error"]


def test_the_flat_tool_shapes_are_read_by_the_local_server_too(http):
    answer = http.post(
        "/chat/completions",
        json=_body(
            tools=[{"type": "function", "name": "Verdict", "parameters": SCHEMA}],
            tool_choice="any",
        ),
    )

    (call,) = answer.json()["choices"][0]["message"]["tool_calls"]
    assert call["function"]["name"] == "Verdict"
    Verdict.model_validate_json(call["function"]["arguments"])
