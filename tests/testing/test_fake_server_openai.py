"""The fake server speaks OpenAI's chat-completions API as the real openai client reads it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import openai
import pytest

from ragas_boot.testing import DEFAULT_MODEL, FakeOpenAIServer, Reply

USER = [{"role": "user", "content": "Hello there"}]
WEATHER_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "get_weather",
        "description": "Weather of a city",
        "parameters": {
            "type": "object",
            "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 1}},
            "required": ["city", "days"],
        },
    },
}


def ask(client: openai.OpenAI, model: str = "judge", **kwargs: Any) -> Any:
    return client.chat.completions.create(
        model=model, messages=kwargs.pop("messages", USER), **kwargs
    )


def test_default_answer_is_ok_in_openai_shape(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    completion = ask(client, model="judge-a")

    assert completion.object == "chat.completion"
    assert completion.id.startswith("chatcmpl-")
    assert completion.model == "judge-a"
    assert isinstance(completion.created, int)
    choice = completion.choices[0]
    assert choice.index == 0
    assert choice.finish_reason == "stop"
    assert choice.message.role == "assistant"
    assert choice.message.content == "ok"
    assert choice.message.tool_calls is None
    # "Hello there" is 11 characters, "ok" 2: ceil(chars / 4) tokens each.
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (3, 1)
    assert completion.usage.total_tokens == 4


def test_raw_body_has_exactly_the_openai_keys(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    raw = client.chat.completions.with_raw_response.create(model="judge", messages=USER)

    body = json.loads(raw.http_response.text)
    assert set(body) == {"id", "object", "created", "model", "choices", "usage"}
    assert set(body["choices"][0]) == {"index", "message", "logprobs", "finish_reason"}
    assert set(body["usage"]) == {"prompt_tokens", "completion_tokens", "total_tokens"}
    assert raw.http_response.headers["content-type"] == "application/json"
    assert raw.http_response.headers["x-request-id"] == "req_fake00000000"


def test_reply_json_is_sent_as_content(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("judge", Reply.json({"verdict": 1, "reason": "fine"}))

    message = ask(client).choices[0].message

    assert json.loads(message.content) == {"verdict": 1, "reason": "fine"}
    assert message.tool_calls is None


def test_reply_text_and_empty_are_sent_as_is(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    fenced = '```json\n{"verdict": 1}\n```'
    openai_server.script("judge", Reply.text(fenced), Reply.empty())

    assert ask(client).choices[0].message.content == fenced
    empty = ask(client)
    assert empty.choices[0].message.content == ""
    assert empty.usage is not None
    assert empty.usage.completion_tokens == 0


def test_reply_tool_calls_is_an_assistant_turn_that_calls_tools(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script(
        "agent",
        Reply.tool_calls(
            [
                {"name": "get_weather", "arguments": {"city": "Paris", "days": 2}},
                {"name": "get_time", "arguments": '{"tz": "UTC"}', "id": "call_fixed"},
            ],
            content="Let me check.",
        ),
    )

    choice = ask(client, model="agent", tools=[WEATHER_TOOL]).choices[0]

    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "Let me check."
    calls = choice.message.tool_calls
    assert calls is not None
    assert [call.function.name for call in calls] == ["get_weather", "get_time"]
    assert json.loads(calls[0].function.arguments) == {"city": "Paris", "days": 2}
    assert calls[1].function.arguments == '{"tz": "UTC"}'
    assert calls[0].id.startswith("call_")
    assert calls[0].id != calls[1].id
    assert calls[1].id == "call_fixed"
    assert {call.type for call in calls} == {"function"}


@pytest.mark.parametrize(
    "tool_choice",
    [{"type": "function", "function": {"name": "get_weather"}}, "required"],
    ids=["named", "required-single-tool"],
)
def test_reply_json_becomes_a_call_of_the_forced_tool(
    openai_server: FakeOpenAIServer, client: openai.OpenAI, tool_choice: Any
) -> None:
    openai_server.script("judge", {"city": "Oslo", "days": 3})

    choice = ask(client, tools=[WEATHER_TOOL], tool_choice=tool_choice).choices[0]

    assert choice.message.content is None
    assert choice.finish_reason == "tool_calls"
    assert choice.message.tool_calls is not None
    (call,) = choice.message.tool_calls
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "Oslo", "days": 3}
    assert openai_server.requests[0].request.forced_tool == "get_weather"


def test_default_answer_of_a_forced_tool_fills_its_parameters(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    choice = ask(client, tools=[WEATHER_TOOL], tool_choice="required").choices[0]

    assert choice.message.tool_calls is not None
    assert json.loads(choice.message.tool_calls[0].function.arguments) == {"city": "", "days": 1}


def test_tool_not_forced_gets_text(openai_server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    openai_server.script("judge", {"a": 1})

    choice = ask(client, tools=[WEATHER_TOOL], tool_choice="auto").choices[0]

    assert choice.message.tool_calls is None
    assert choice.message.content == '{"a": 1}'


def test_429_carries_retry_after_to_the_client(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("judge", Reply.error(429, retry_after=2))

    with pytest.raises(openai.RateLimitError) as caught:
        ask(client)

    assert caught.value.status_code == 429
    assert caught.value.response.headers["retry-after"] == "2"
    error = caught.value.response.json()["error"]
    assert set(error) >= {"message", "type", "code"}
    assert error["code"] == "rate_limit_exceeded"
    assert openai_server.requests[0].status == 429


def test_500_with_message(openai_server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    openai_server.script("judge", Reply.error(500, "judge exploded"))

    with pytest.raises(openai.InternalServerError, match="judge exploded") as caught:
        ask(client)

    assert "retry-after" not in caught.value.response.headers
    assert caught.value.response.json()["error"]["type"] == "server_error"


def test_garbage_body_does_not_parse(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("judge", Reply.garbage())

    with pytest.raises(json.JSONDecodeError):
        ask(client)

    assert openai_server.requests[0].status == 200


def test_drop_is_a_connection_error_and_the_server_goes_on(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("judge", Reply.drop())

    with pytest.raises(openai.APIConnectionError):
        ask(client)

    assert ask(client).choices[0].message.content == "ok"
    dropped, answered = openai_server.requests
    assert dropped.status is None
    assert dropped.answered_at is not None
    assert answered.status == 200


@pytest.mark.asyncio
async def test_hang_times_out_while_other_requests_are_served(
    openai_server: FakeOpenAIServer, async_client: openai.AsyncOpenAI
) -> None:
    openai_server.script("slow", Reply.hang(30))

    async def slow() -> None:
        with pytest.raises(openai.APITimeoutError):
            await async_client.chat.completions.create(model="slow", messages=USER, timeout=0.5)

    async def fast() -> str | None:
        await asyncio.sleep(0.05)  # lets the slow request arrive first
        completion = await async_client.chat.completions.create(model="fast", messages=USER)
        return completion.choices[0].message.content

    _, answer = await asyncio.gather(slow(), fast())

    assert answer == "ok"
    (held,) = openai_server.requests_for("slow")
    (served,) = openai_server.requests_for("fast")
    assert held.request.index < served.request.index
    assert served.status == 200
    assert held.status is None  # still held: stop() closes it
    assert openai_server.in_flight == 1


def test_stream_true_is_refused_with_a_clear_error(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    openai_server.script("judge", {"kept": True})

    with pytest.raises(openai.BadRequestError, match="Streaming is not supported"):
        ask(client, stream=True)

    assert openai_server.requests[0].status == 400
    assert json.loads(ask(client).choices[0].message.content) == {"kept": True}


def test_usage_override(openai_server: FakeOpenAIServer, client: openai.OpenAI) -> None:
    openai_server.script("judge", Reply.text("hi", usage={"prompt_tokens": 100}))

    usage = ask(client).usage

    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (100, 1, 101)


def test_models_lists_scripted_models_or_a_default(
    openai_server: FakeOpenAIServer, client: openai.OpenAI
) -> None:
    assert [model.id for model in client.models.list()] == [DEFAULT_MODEL]

    openai_server.script("judge-a", "x")
    openai_server.set_latency("judge-b", 0.01)

    assert [model.id for model in client.models.list()] == ["judge-a", "judge-b"]


def test_unknown_path_and_wrong_method_answer_openai_errors(
    openai_server: FakeOpenAIServer,
) -> None:
    with httpx.Client(base_url=openai_server.base_url) as http:
        missing = http.post("/v1/audio/speech", json={})
        wrong_method = http.get("/v1/chat/completions")
        no_v1 = http.post("/chat/completions", json={"model": "m", "messages": USER})

    assert missing.status_code == 404
    assert set(missing.json()["error"]) >= {"message", "type", "code"}
    assert "/v1/audio/speech" in missing.json()["error"]["message"]
    assert wrong_method.status_code == 405
    assert no_v1.status_code == 404
    assert openai_server.count() == 0


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"{not json", "could not parse the JSON body"),
        (b'{"messages": []}', "model: required but missing"),
        (b'{"model": "m"}', "messages"),
        (b'{"model": "m", "messages": ["hi"]}', "messages[0]: expected an OpenAI chat message"),
    ],
    ids=["not-json", "no-model", "no-messages", "bad-message"],
)
def test_malformed_requests_are_400(
    openai_server: FakeOpenAIServer, body: bytes, message: str
) -> None:
    with httpx.Client(base_url=openai_server.base_url) as http:
        response = http.post(
            "/v1/chat/completions", content=body, headers={"content-type": "application/json"}
        )

    assert response.status_code == 400
    assert message in response.json()["error"]["message"]
    assert openai_server.count() == 0


@pytest.mark.asyncio
async def test_async_client_reads_scripted_answers(
    openai_server: FakeOpenAIServer, async_client: openai.AsyncOpenAI
) -> None:
    openai_server.script("judge", {"verdict": 0}, Reply.error(503))

    first = await async_client.chat.completions.create(model="judge", messages=USER)
    with pytest.raises(openai.InternalServerError):
        await async_client.chat.completions.create(model="judge", messages=USER)

    assert json.loads(first.choices[0].message.content or "") == {"verdict": 0}
    assert [record.status for record in openai_server.requests] == [200, 503]
