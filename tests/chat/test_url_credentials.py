"""Credentials in a base-url (``http://user:pass@host``, as a gateway with Basic auth takes
them) go to the server as ``Authorization: Basic ...`` on both transports and for embedding
models, in place of the api-key's Bearer token; the password (and the header's base64 token)
never shows in endpoints, reprs, errors or logs."""

from __future__ import annotations

import base64
import logging
from collections.abc import AsyncIterator
from datetime import timedelta

import orjson
import pytest
import pytest_asyncio
from aiohttp import web
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits
from ragas_boot.chat.embeddings.openai_compatible import OpenAICompatibleEmbeddingModel
from ragas_boot.chat.specs import EmbeddingSpec
from ragas_boot.config.settings import Transport
from ragas_boot.errors import JudgeHTTPError
from ragas_boot.testing import FakeOpenAIServer

PASSWORD = "gw-pass-31415926"
API_KEY = "sk-url-cred-test-2718"


class Verdict(BaseModel):
    verdict: int


def basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


def with_userinfo(url: str, userinfo: str) -> str:
    scheme, rest = url.split("://", 1)
    return f"{scheme}://{userinfo}@{rest}"


@pytest_asyncio.fixture
async def make_judge(judge_transport: str) -> AsyncIterator:
    made: list[OpenAICompatibleJudge] = []

    def make(base_url: str, *, api_key: str = API_KEY, headers=None) -> OpenAICompatibleJudge:
        made.append(
            OpenAICompatibleJudge(
                spec=OpenAICompatibleSpec(
                    id="judge-a",
                    model="judge-a",
                    provider="gateway",
                    base_url=base_url,
                    api_key=SecretStr(api_key),
                    limits=ProviderLimits(provider="gateway", call_timeout=timedelta(seconds=5)),
                    transport=Transport(judge_transport),
                    headers=headers or {},
                )
            )
        )
        return made[-1]

    yield make
    for judge in made:
        await judge.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize("api_key", [API_KEY, ""], ids=["with-api-key", "empty-api-key"])
async def test_url_credentials_are_sent_as_basic_auth(
    openai_server: FakeOpenAIServer, make_judge, api_key
):
    openai_server.script("judge-a", {"verdict": 1})
    judge = make_judge(with_userinfo(openai_server.base_url, f"alice:{PASSWORD}"), api_key=api_key)

    answer = await judge.ainvoke_structured("Rate it.", Verdict)

    assert answer.value == Verdict(verdict=1)
    [recorded] = openai_server.requests_for("judge-a")
    # The URL's credentials win over the api-key's Bearer token, as httpx and requests do.
    assert recorded.request.headers["authorization"] == basic("alice", PASSWORD)
    assert recorded.request.path == "/v1/chat/completions"
    for shown in (judge.endpoint, repr(judge)):
        assert PASSWORD not in shown
        assert "alice:****@127.0.0.1" in shown


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("userinfo", "user", "password"),
    [
        ("al%40ice:p%C3%A4ss%3Aw%2Ford", "al@ice", "päss:w/ord"),  # percent-encoded, unicode
        ("tok-123456789", "tok-123456789", ""),  # a lone token as the user name
        ("alice:", "alice", ""),
    ],
    ids=["encoded", "lone-user", "empty-password"],
)
async def test_url_credentials_are_decoded_before_they_are_sent(
    openai_server: FakeOpenAIServer, make_judge, userinfo, user, password
):
    openai_server.script("judge-a", {"verdict": 2})
    judge = make_judge(with_userinfo(openai_server.base_url, userinfo))
    await judge.ainvoke_structured("Rate it.", Verdict)
    [recorded] = openai_server.requests_for("judge-a")
    assert recorded.request.headers["authorization"] == basic(user, password)


@pytest.mark.asyncio
async def test_an_authorization_header_of_the_provider_wins(
    openai_server: FakeOpenAIServer, make_judge
):
    openai_server.script("judge-a", {"verdict": 3})
    judge = make_judge(
        with_userinfo(openai_server.base_url, f"alice:{PASSWORD}"),
        headers={"Authorization": SecretStr("Token gateway-token-1234")},
    )
    await judge.ainvoke_structured("Rate it.", Verdict)
    [recorded] = openai_server.requests_for("judge-a")
    assert recorded.request.headers["authorization"] == "Token gateway-token-1234"


@pytest_asyncio.fixture
async def echoing_gateway() -> AsyncIterator[str]:
    """A gateway that refuses every call with a body quoting its Authorization header and the
    password: what a careless proxy's error page does."""

    async def refuse(request: web.Request) -> web.StreamResponse:
        body = {
            "error": {
                "message": f"denied for {request.headers.get('Authorization')} "
                f"(password {PASSWORD})"
            }
        }
        return web.Response(status=401, body=orjson.dumps(body), content_type="application/json")

    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", refuse)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}"
    await runner.cleanup()


@pytest.mark.asyncio
async def test_the_password_and_its_basic_token_never_show_in_errors_or_logs(
    echoing_gateway, make_judge, caplog
):
    caplog.set_level(logging.DEBUG)
    judge = make_judge(with_userinfo(echoing_gateway, f"alice:{PASSWORD}"))
    with pytest.raises(JudgeHTTPError) as caught:
        await judge.ainvoke_structured("Rate it.", Verdict)
    assert caught.value.status_code == 401  # the request was sent, with the credentials
    token = basic("alice", PASSWORD).removeprefix("Basic ")
    for shown in (str(caught.value), repr(caught.value), repr(judge), caplog.text):
        assert PASSWORD not in shown
        assert token not in shown
    assert "denied for Basic ****" in str(caught.value)


@pytest_asyncio.fixture
async def embeddings_gateway() -> AsyncIterator[tuple[str, list[str | None]]]:
    """An OpenAI-compatible embeddings endpoint that records each Authorization header."""
    seen: list[str | None] = []

    async def embed(request: web.Request) -> web.StreamResponse:
        seen.append(request.headers.get("Authorization"))
        body = await request.json()
        data = [
            {"object": "embedding", "index": index, "embedding": [0.5, 0.25]}
            for index, _ in enumerate(body["input"])
        ]
        usage = {"prompt_tokens": 2, "total_tokens": 2}
        answer = {"object": "list", "data": data, "model": body["model"], "usage": usage}
        return web.Response(body=orjson.dumps(answer), content_type="application/json")

    app = web.Application()
    app.router.add_post("/v1/embeddings", embed)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    yield f"http://127.0.0.1:{runner.addresses[0][1]}", seen
    await runner.cleanup()


@pytest.mark.asyncio
async def test_embedding_models_send_url_credentials_as_basic_auth_too(embeddings_gateway):
    url, seen = embeddings_gateway
    model = OpenAICompatibleEmbeddingModel(
        spec=EmbeddingSpec(
            id="embed",
            model="embed",
            provider="gateway",
            base_url=with_userinfo(url, f"alice:{PASSWORD}"),
            api_key=SecretStr(API_KEY),
        )
    )
    try:
        answer = await model.aembed(["one", "two"])
    finally:
        await model.aclose()
    assert len(answer.vectors) == 2
    assert seen == [basic("alice", PASSWORD)]
    assert PASSWORD not in repr(model) and PASSWORD not in model.endpoint
