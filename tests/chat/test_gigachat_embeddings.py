"""GigaChat embeddings: ``spring.ai.gigachat.embedding`` through langchain-gigachat's
``GigaChatEmbeddings``, on the judges' credentials, against the local fake GigaChat API."""

from __future__ import annotations

import math
from datetime import timedelta
from pathlib import Path

import pytest

from ragas_boot import Sample, create_container, load_settings
from ragas_boot.chat import judge_specs
from ragas_boot.chat.factory.embeddings import embedding_specs
from ragas_boot.errors import AllJudgesFailedError, ConfigError
from ragas_boot.testing import Reply, hashed_vector
from support.fakes import FakeGigaChatServer, gigachat_key

pytest.importorskip("langchain_gigachat")

KEY = gigachat_key("client-9", "FAKE-secret-9031")
QUESTION = "Как вернуть товар?"
SAMPLE = Sample(
    user_input=QUESTION,
    response="Вернуть товар можно в течение 14 дней с чеком.",
    reference="Товар можно вернуть в течение 14 дней.",
)


@pytest.fixture
def gigachat():
    with FakeGigaChatServer(credentials=KEY) as server:
        yield server


def config(tmp_path: Path, server: FakeGigaChatServer, embedding: str = "EmbeddingsGigaR") -> Path:
    path = tmp_path / "application.yaml"
    path.write_text(
        f"""
spring.ai.retry:
  max-attempts: 3
  backoff: {{ initial-interval: 10ms, multiplier: 1, max-interval: 10ms }}
spring.ai.gigachat:
  base-url: {server.base_url}
  auth:
    bearer: {{ url: {server.auth_url}, api-key: "{KEY}" }}
    scope: GIGACHAT_API_CORP
  chat.options.model: GigaChat-2-Max
  embedding.options.model: {embedding}
""",
        encoding="utf-8",
    )
    return path


def test_the_embedding_key_is_read_not_reported_and_shares_the_judges_connection(
    tmp_path, gigachat
):
    settings = load_settings(config(tmp_path, gigachat), environ={})

    [spec] = embedding_specs(settings)

    assert settings.source.unsupported_keys == []
    assert (spec.id, spec.model, spec.provider) == ("EmbeddingsGigaR",) * 2 + ("gigachat",)
    arguments = dict(spec.langchain.arguments)
    assert arguments["scope"] == "GIGACHAT_API_CORP"
    assert arguments["credentials"].get_secret_value() == KEY
    assert KEY not in repr(spec)


def test_the_embedding_model_takes_the_judges_starter_limits(tmp_path, gigachat):
    # external-starters.<name> is matched case-insensitively, as in Java.
    path = config(tmp_path, gigachat)
    path.write_text(
        path.read_text(encoding="utf-8")
        + "spring.ai.ragas.providers.external-starters.GigaChat:\n"
        + "  { max-concurrency: 3, timeout: 2s, rate-limit: { rps: 5 } }\n",
        encoding="utf-8",
    )
    settings = load_settings(path, environ={})

    [spec] = embedding_specs(settings)
    [judge] = judge_specs(settings)

    assert spec.limits == judge.limits
    assert (spec.limits.max_concurrency, spec.limits.rps) == (3, 5)
    assert spec.limits.call_timeout == timedelta(seconds=2)


def test_semantic_similarity_gets_vectors_from_the_embeddings_endpoint_with_a_token(
    tmp_path, gigachat
):
    with create_container(load_settings(config(tmp_path, gigachat), environ={})) as container:
        [model] = container.embedding_models()
        result = container.semantic_similarity().evaluate(SAMPLE)

    assert (model.id, model.provider) == ("EmbeddingsGigaR", "gigachat")
    expected = _cosine(hashed_vector(SAMPLE.response), hashed_vector(SAMPLE.reference))
    assert result.score == pytest.approx(expected)
    [request] = gigachat.embedding_requests
    assert request.body["model"] == "EmbeddingsGigaR"
    assert request.body["input"] == [SAMPLE.response, SAMPLE.reference]
    assert request.headers["authorization"].startswith("Bearer fake-gigachat-")
    assert gigachat.token_requests == 1


def test_response_relevancy_runs_on_the_gigachat_judge_and_embedding_model(tmp_path, gigachat):
    gigachat.respond(
        "GigaChat-2-Max",
        {"questions": [{"question": QUESTION, "noncommittal": False}]},
    )

    with create_container(load_settings(config(tmp_path, gigachat), environ={})) as container:
        result = container.response_relevancy().evaluate(SAMPLE)

    assert result.score == pytest.approx(1.0)
    assert gigachat.count("GigaChat-2-Max") == 1
    assert len(gigachat.embedding_requests) >= 1


def test_a_revoked_token_is_renewed_by_the_client_for_embeddings(tmp_path, gigachat):
    with create_container(load_settings(config(tmp_path, gigachat), environ={})) as container:
        metric = container.semantic_similarity()
        metric.evaluate(SAMPLE)
        gigachat.expire_tokens()
        # Other texts: the vectors of the first ones may be served from the cache.
        result = metric.evaluate(SAMPLE.model_copy(update={"response": "Через 14 дней."}))

    assert result.exclusions == []
    assert gigachat.token_requests == 2
    assert [r.status for r in gigachat.embedding_requests] == [200, 401, 200]


def test_a_refused_token_exchange_is_the_embedding_models_failure(tmp_path, gigachat):
    gigachat.fail_token_exchange(*[Reply.error(401)] * 3)

    settings = load_settings(config(tmp_path, gigachat), environ={})
    with create_container(settings) as container, pytest.raises(AllJudgesFailedError) as caught:
        container.semantic_similarity().evaluate(SAMPLE)

    assert "401" in str(caught.value)
    assert KEY not in str(caught.value)


def test_an_embedding_model_without_credentials_names_the_key(tmp_path):
    path = tmp_path / "application.yaml"
    path.write_text("spring.ai.gigachat.embedding.options.model: Embeddings\n", encoding="utf-8")

    with pytest.raises(ConfigError) as caught:
        embedding_specs(load_settings(path, environ={}))

    assert caught.value.key == "spring.ai.gigachat.auth.bearer.api-key"


def _cosine(a: list[float], b: list[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b, strict=True))
    return dot / (math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b)))
