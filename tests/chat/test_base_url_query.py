"""A base-url with a query string (Azure OpenAI's ``?api-version=``, a gateway's ``?key=``):
both transports post to ``<path>/chat/completions?<query>``, embeddings too, and a key in the
query never shows in endpoints, reprs, errors or logs."""

from __future__ import annotations

import logging
from datetime import timedelta

import pytest
import pytest_asyncio
from pydantic import BaseModel, SecretStr

from ragas_boot.chat import OpenAICompatibleJudge, OpenAICompatibleSpec, ProviderLimits
from ragas_boot.chat.embeddings.openai_compatible import OpenAICompatibleEmbeddingModel
from ragas_boot.chat.specs import EmbeddingSpec
from ragas_boot.config.settings import Transport
from ragas_boot.errors import JudgeHTTPError
from ragas_boot.testing import FakeOpenAIServer, Reply

GATEWAY_KEY = "gw-key-5772156649"
API_VERSION = "2024-06-01"


class Verdict(BaseModel):
    goal_achieved: bool
    reason: str


@pytest_asyncio.fixture
async def make_judge(openai_server: FakeOpenAIServer, judge_transport: str):
    made: list[OpenAICompatibleJudge] = []

    def make(base_url: str, completions_path: str = "/v1/chat/completions"):
        made.append(
            OpenAICompatibleJudge(
                spec=OpenAICompatibleSpec(
                    id="judge-a",
                    model="judge-a",
                    provider="gateway",
                    base_url=base_url,
                    api_key=SecretStr("sk-query-test-1234"),
                    completions_path=completions_path,
                    limits=ProviderLimits(provider="gateway", call_timeout=timedelta(seconds=5)),
                    transport=Transport(judge_transport),
                )
            )
        )
        return made[-1]

    yield make
    for judge in made:
        await judge.aclose()


@pytest.mark.asyncio
async def test_an_azure_style_base_url_keeps_its_query_on_every_call(openai_server, make_judge):
    # Azure's form: base-url up to the deployment, the query after it, completions-path
    # /chat/completions (the test server serves /v1, where Azure has /openai/deployments/<d>).
    judge = make_judge(
        f"{openai_server.base_url}/v1?api-version={API_VERSION}&key={GATEWAY_KEY}",
        "/chat/completions",
    )
    openai_server.script("judge-a", {"goal_achieved": True, "reason": "ok"})

    answer = await judge.ainvoke_structured("q", Verdict)
    await judge.ainvoke_structured("q again", Verdict)

    assert answer.value.goal_achieved is True
    recorded = openai_server.requests_for("judge-a")
    assert [r.request.path for r in recorded] == ["/v1/chat/completions"] * 2
    assert [dict(r.request.query) for r in recorded] == [
        {"api-version": API_VERSION, "key": GATEWAY_KEY}
    ] * 2
    assert judge.endpoint == (
        f"{openai_server.base_url}/v1/chat/completions?api-version={API_VERSION}&key=****"
    )


@pytest.mark.asyncio
async def test_a_spring_style_base_url_with_a_query_gets_v1_before_the_query(
    openai_server, make_judge
):
    judge = make_judge(f"{openai_server.base_url}/?key={GATEWAY_KEY}")

    await judge.ainvoke_structured("q", Verdict)

    [recorded] = openai_server.requests_for("judge-a")
    assert recorded.request.path == "/v1/chat/completions"
    assert dict(recorded.request.query) == {"key": GATEWAY_KEY}


@pytest.mark.asyncio
async def test_a_key_in_the_query_never_shows_in_reprs_errors_or_logs(
    openai_server, make_judge, caplog
):
    caplog.set_level(logging.DEBUG)
    judge = make_judge(f"{openai_server.base_url}/v1?key={GATEWAY_KEY}")
    # A gateway that echoes the URL it was called on in its error message.
    openai_server.script(
        "judge-a", Reply.error(400, f"bad request to /v1/chat/completions?key={GATEWAY_KEY}")
    )

    with pytest.raises(JudgeHTTPError) as caught:
        await judge.ainvoke_structured("q", Verdict)

    assert caught.value.status_code == 400
    assert "bad request to /v1/chat/completions?key=****" in str(caught.value)
    shown = [str(caught.value), repr(caught.value), repr(judge), judge.endpoint, caplog.text]
    for text in shown:
        assert GATEWAY_KEY not in text
    [recorded] = openai_server.requests_for("judge-a")
    assert recorded.request.query == {"key": GATEWAY_KEY}  # sent, only never shown
    assert GATEWAY_KEY not in repr(recorded)


@pytest.mark.asyncio
async def test_embedding_calls_keep_the_query_too(openai_server):
    model = OpenAICompatibleEmbeddingModel(
        spec=EmbeddingSpec(
            id="embed",
            model="embed",
            provider="gateway",
            base_url=f"{openai_server.base_url}?api-version={API_VERSION}&key={GATEWAY_KEY}",
            api_key=SecretStr("sk-query-test-1234"),
        )
    )
    try:
        answer = await model.aembed(["one", "two"])
    finally:
        await model.aclose()

    assert len(answer.vectors) == 2
    [recorded] = openai_server.embedding_requests_for("embed")
    assert recorded.query == {"api-version": API_VERSION, "key": GATEWAY_KEY}
    assert model.endpoint == (
        f"{openai_server.base_url}/v1/embeddings?api-version={API_VERSION}&key=****"
    )
    assert GATEWAY_KEY not in repr(model)
