"""One judge over real HTTP: structured-output modes, parsing, error mapping, secrets."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
import pytest_asyncio
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits
from ragas_boot.chat.openai.endpoints import api_base_url
from ragas_boot.config.settings import StructuredOutputMode, Transport
from ragas_boot.errors import (
    JudgeConnectionError,
    JudgeHTTPError,
    JudgeOutputError,
    JudgeTimeoutError,
)
from ragas_boot.testing import FakeOpenAIServer, Reply

SECRET = "sk-judge-secret-7781"


class Verdict(BaseModel):
    goal_achieved: bool
    reason: str


def make_judge(
    server_url: str,
    mode: StructuredOutputMode = StructuredOutputMode.PROMPT,
    *,
    model: str = "judge-a",
    timeout: float = 5.0,
    transport: str = "direct",
) -> OpenAICompatibleJudge:
    return OpenAICompatibleJudge(
        spec=OpenAICompatibleSpec(
            id=model,
            model=model,
            provider="local",
            base_url=server_url,
            api_key=SecretStr(SECRET),
            structured_output=mode,
            limits=ProviderLimits(provider="local", call_timeout=timedelta(seconds=timeout)),
            transport=Transport(transport),
        )
    )


@pytest_asyncio.fixture
async def judge_factory(openai_server: FakeOpenAIServer, judge_transport: str):
    made: list[OpenAICompatibleJudge] = []

    def make(*args, **kwargs):
        made.append(make_judge(openai_server.base_url, *args, transport=judge_transport, **kwargs))
        return made[-1]

    yield make
    for judge in made:
        await judge.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", list(OpenAICompatibleJudge.output_modes))
async def test_every_structured_output_mode_returns_a_validated_model(
    openai_server, judge_factory, mode
):
    openai_server.script("judge-a", {"goal_achieved": True, "reason": "booked"})
    judge = judge_factory(mode)
    answer = await judge.ainvoke_structured("Was the flight booked?", Verdict)
    assert answer.value == Verdict(goal_achieved=True, reason="booked")
    assert json.loads(answer.raw_text) == {"goal_achieved": True, "reason": "booked"}
    assert answer.usage.total_tokens > 0
    assert answer.latency_s > 0
    request = openai_server.requests_for("judge-a")[0].request
    assert request.prompt.startswith("Was the flight booked?")
    if mode is StructuredOutputMode.PROMPT:
        assert "JSON Schema" in request.prompt and "goal_achieved" in request.prompt
        assert request.response_format is None and not request.tools
    elif mode is StructuredOutputMode.JSON_OBJECT:
        # The schema in the prompt, and beside the type for servers that constrain with it.
        assert "JSON Schema" in request.prompt and "goal_achieved" in request.prompt
        assert request.response_format["type"] == "json_object"
        assert request.response_format["schema"]["required"] == ["goal_achieved", "reason"]
        assert not request.tools
    elif mode is StructuredOutputMode.JSON_SCHEMA:
        assert request.response_format["type"] == "json_schema"
        assert request.response_format["json_schema"]["schema"]["required"] == [
            "goal_achieved",
            "reason",
        ]
    else:
        assert request.tools[0]["function"]["name"] == "Verdict"
        assert request.tool_choice["function"]["name"] == "Verdict"


@pytest.mark.asyncio
async def test_posts_to_spring_style_base_url_plus_v1(openai_server, judge_factory):
    judge = judge_factory()
    assert judge.endpoint == openai_server.base_url + "/v1/chat/completions"
    await judge.ainvoke_structured("x", Verdict)
    assert openai_server.count("judge-a") == 1


@pytest.mark.parametrize(
    ("base", "path", "expected"),
    [
        ("https://openrouter.ai/api", "/v1/chat/completions", "https://openrouter.ai/api/v1"),
        ("https://openrouter.ai/api/", "/v1/chat/completions", "https://openrouter.ai/api/v1"),
        ("https://api.example.com/v1", "/v1/chat/completions", "https://api.example.com/v1"),
        ("https://api.groq.com/openai", "/v1/chat/completions", "https://api.groq.com/openai/v1"),
        ("https://x.io", "/api/paas/v4/chat/completions", "https://x.io/api/paas/v4"),
    ],
)
def test_api_base_url_follows_spring_ai(base, path, expected):
    assert api_base_url(base, path) == expected


def test_a_completions_path_the_client_cannot_reach_is_rejected():
    with pytest.raises(ValueError, match="must end with /chat/completions"):
        api_base_url("https://x.io", "/v1/generate")


@pytest.mark.asyncio
async def test_code_fences_and_chatter_around_json_are_tolerated(openai_server, judge_factory):
    openai_server.script(
        "judge-a",
        Reply.text('```json\n{"goal_achieved": false, "reason": "no"}\n```'),
        Reply.text('Sure! Here it is: {"goal_achieved": true, "reason": "yes"} Hope it helps.'),
    )
    judge = judge_factory()
    assert (await judge.ainvoke_structured("q", Verdict)).value.goal_achieved is False
    assert (await judge.ainvoke_structured("q", Verdict)).value.goal_achieved is True


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (Reply.empty(), "empty response"),
        (Reply.text("I think the goal was achieved."), "not JSON"),
        (Reply.text('{"goal_achieved": "maybe"}'), "does not fit Verdict"),
    ],
)
async def test_bad_answers_raise_judge_output_error_with_the_raw_text(
    openai_server, judge_factory, reply, message
):
    openai_server.script("judge-a", reply)
    with pytest.raises(JudgeOutputError, match=message) as error:
        await judge_factory().ainvoke_structured("q", Verdict)
    assert error.value.judge_id == "judge-a"
    assert error.value.raw_text == (reply.content if reply.content is not None else None)


@pytest.mark.asyncio
async def test_a_non_json_http_body_is_the_judges_failure(openai_server, judge_factory):
    openai_server.script("judge-a", Reply.garbage())
    with pytest.raises(JudgeOutputError, match="malformed response"):
        await judge_factory().ainvoke_structured("q", Verdict)


@pytest.mark.asyncio
async def test_http_errors_carry_status_and_retry_after(openai_server, judge_factory):
    openai_server.script(
        "judge-a", Reply.error(429, retry_after=3), Reply.error(503), Reply.error(401)
    )
    judge = judge_factory()
    with pytest.raises(JudgeHTTPError) as limited:
        await judge.ainvoke_structured("q", Verdict)
    assert (limited.value.status_code, limited.value.retry_after) == (429, 3.0)
    assert limited.value.kind_detail == "rate_limited"
    with pytest.raises(JudgeHTTPError) as down:
        await judge.ainvoke_structured("q", Verdict)
    assert down.value.kind_detail == "server_error"
    with pytest.raises(JudgeHTTPError) as auth:
        await judge.ainvoke_structured("q", Verdict)
    assert auth.value.kind_detail == "auth"


@pytest.mark.asyncio
async def test_a_hanging_server_times_out(openai_server, judge_factory):
    openai_server.script("judge-a", Reply.hang(5))
    with pytest.raises(JudgeTimeoutError):
        await judge_factory(timeout=0.2).ainvoke_structured("q", Verdict)


@pytest.mark.asyncio
async def test_a_dropped_connection_is_a_connection_error(openai_server, judge_factory):
    openai_server.script("judge-a", Reply.drop())
    with pytest.raises(JudgeConnectionError):
        await judge_factory().ainvoke_structured("q", Verdict)


@pytest.mark.asyncio
async def test_nobody_listening_is_a_connection_error(judge_transport):
    server = FakeOpenAIServer().start()
    url = server.base_url
    server.stop()
    judge = make_judge(url, transport=judge_transport)
    try:
        with pytest.raises(JudgeConnectionError):
            await judge.ainvoke_structured("q", Verdict)
    finally:
        await judge.aclose()


@pytest.mark.asyncio
async def test_the_api_key_is_sent_but_never_shown(openai_server, judge_factory):
    openai_server.script("judge-a", Reply.error(401, message=f"bad key {SECRET}"))
    judge = judge_factory()
    with pytest.raises(JudgeHTTPError) as error:
        await judge.ainvoke_structured("q", Verdict)
    sent = openai_server.requests_for("judge-a")[0].request.headers
    assert sent["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in str(error.value)
    assert SECRET not in repr(judge)
    assert SECRET not in repr(judge.spec)


@pytest.mark.asyncio
async def test_options_reach_the_wire(openai_server, judge_transport):
    judge = OpenAICompatibleJudge(
        spec=OpenAICompatibleSpec(
            id="j",
            model="judge-a",
            provider="p",
            base_url=openai_server.base_url,
            api_key=SecretStr("k"),
            temperature=0.3,
            max_tokens=77,
            top_p=0.9,
            headers={"X-Title": "ragas-boot"},
            transport=Transport(judge_transport),
        )
    )
    try:
        await judge.ainvoke_structured("q", Verdict)
    finally:
        await judge.aclose()
    request = openai_server.requests_for("judge-a")[0].request
    assert request.body["temperature"] == 0.3
    assert request.body.get("max_completion_tokens", request.body.get("max_tokens")) == 77
    assert request.body["top_p"] == 0.9
    assert request.headers["x-title"] == "ragas-boot"


@pytest.mark.asyncio
async def test_json_object_mode_can_leave_the_schema_out_of_the_response_format(
    openai_server, judge_transport
):
    # For servers that reject keys beside "type" (json-object-schema: false).
    spec = OpenAICompatibleSpec(
        id="judge-a",
        model="judge-a",
        provider="p",
        base_url=openai_server.base_url,
        api_key=SecretStr(SECRET),
        structured_output=StructuredOutputMode.JSON_OBJECT,
        json_object_schema=False,
        transport=Transport(judge_transport),
    )
    judge = OpenAICompatibleJudge(spec=spec)
    openai_server.script("judge-a", {"goal_achieved": False, "reason": "нет рейса"})
    try:
        answer = await judge.ainvoke_structured("Was the flight booked?", Verdict)
    finally:
        await judge.aclose()

    assert answer.value == Verdict(goal_achieved=False, reason="нет рейса")
    request = openai_server.requests_for("judge-a")[0].request
    assert request.response_format == {"type": "json_object"}
    assert '"goal_achieved"' in request.prompt  # the schema travels in the prompt only


@pytest.mark.asyncio
async def test_json_object_mode_rereads_prose_around_the_object_and_fails_on_garbage(
    openai_server, judge_factory
):
    judge = judge_factory(StructuredOutputMode.JSON_OBJECT)
    openai_server.script(
        "judge-a",
        Reply.text('Sure: {"goal_achieved": true, "reason": "ok"} hope that helps'),
        Reply.text("no json at all"),
    )

    first = await judge.ainvoke_structured("q", Verdict)
    with pytest.raises(JudgeOutputError) as caught:
        await judge.ainvoke_structured("q", Verdict)

    assert first.value.goal_achieved is True
    assert caught.value.raw_text == "no json at all"


def test_an_openai_compatible_judge_refuses_the_native_mode(openai_server):
    with pytest.raises(ValueError, match="needs a LangChain chat class"):
        make_judge(openai_server.base_url, StructuredOutputMode.NATIVE)
