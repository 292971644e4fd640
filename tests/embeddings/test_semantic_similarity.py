"""SemanticSimilarity against embedding models on the test server (real HTTP)."""

from __future__ import annotations

import asyncio
import logging

import pytest

from ragas_boot import AllJudgesFailedError, Sample, SampleValidationError
from ragas_boot.errors import ConfigError
from ragas_boot.metrics import SemanticSimilarityConfig
from ragas_boot.testing import Reply, asks_for

PAIR = Sample(response="Paris is the capital of France.", reference="France's capital is Paris.")


def vectors(server, model, mapping):
    server.set_vectors(model, {text: vector for text, vector in mapping.items()})


def test_identical_vectors_score_one_and_each_model_embeds_both_texts_in_one_request(
    make_embedding_container, openai_server
):
    metric = make_embedding_container().semantic_similarity()

    result = metric.evaluate(Sample(response="Same words here.", reference="Same words here."))

    assert result.score == pytest.approx(1.0)
    assert set(result.model_scores) == {"emb-a", "emb-b"}
    # Equal texts of one batch are sent once.
    assert [r.inputs for r in openai_server.embedding_requests_for("emb-a")] == [
        ("Same words here.",)
    ]
    assert len(openai_server.embedding_requests) == 2
    assert openai_server.count() == 0  # no judge is asked
    assert result.judge_ids == []
    assert result.steps[0].kind == "EMBEDDING"


@pytest.mark.parametrize(
    ("response_vector", "reference_vector", "expected"),
    [
        ([1.0, 0.0, 0.0], [0.0, 1.0, 0.0], 0.0),
        ([1.0, 0.0, 0.0], [0.866, 0.5, 0.0], 0.8660),
        ([1.0, 0.0], [-1.0, 0.0], -1.0),
    ],
)
def test_the_score_is_the_cosine_of_the_two_vectors(
    make_embedding_container, openai_server, response_vector, reference_vector, expected
):
    vectors(
        openai_server, "emb-a", {PAIR.response: response_vector, PAIR.reference: reference_vector}
    )
    metric = make_embedding_container(embeddings=["emb-a"]).semantic_similarity()

    assert metric.single_turn_score(PAIR) == pytest.approx(expected, abs=1e-3)


@pytest.mark.parametrize(("threshold", "expected"), [(0.8, 0.0), (0.5, 1.0), (None, 0.7001)])
def test_similarity_threshold_makes_each_model_binary(
    make_embedding_container, openai_server, threshold, expected
):
    vectors(openai_server, "emb-a", {PAIR.response: [1.0, 0.0], PAIR.reference: [0.7, 0.714]})
    metric = make_embedding_container(embeddings=["emb-a"]).semantic_similarity()

    result = metric.evaluate(PAIR, {"similarity_threshold": threshold})

    assert result.score == pytest.approx(expected, abs=1e-3)
    assert result.metadata["cosine_similarities"]["emb-a"] == pytest.approx(0.7001, abs=1e-3)


def test_the_threshold_is_applied_per_model_before_averaging(
    make_embedding_container, openai_server
):
    vectors(openai_server, "emb-a", {PAIR.response: [1.0, 0.0], PAIR.reference: [1.0, 0.1]})
    vectors(openai_server, "emb-b", {PAIR.response: [1.0, 0.0], PAIR.reference: [0.0, 1.0]})
    metric = make_embedding_container().semantic_similarity()

    result = metric.evaluate(PAIR, SemanticSimilarityConfig(similarity_threshold=0.9))

    assert result.model_scores == {"emb-a": 1.0, "emb-b": 0.0}
    assert result.score == 0.5


def test_a_failed_embedding_model_is_excluded_not_scored_zero(
    make_embedding_container, openai_server
):
    openai_server.fail_always("emb-b", Reply.error(503))
    metric = make_embedding_container().semantic_similarity()

    result = metric.evaluate(PAIR)

    assert set(result.model_scores) == {"emb-a"}
    assert result.score == result.model_scores["emb-a"]
    [exclusion] = result.exclusions
    assert (exclusion.judge_id, exclusion.step, exclusion.kind) == (
        "emb-b",
        "ComputeEmbeddings",
        "server_error",
    )
    assert len(openai_server.embedding_requests_for("emb-b")) == 3  # retried per spring.ai.retry


def test_every_embedding_model_failing_raises_with_each_error(
    make_embedding_container, openai_server, embed_secret
):
    openai_server.fail_always(None, Reply.error(401, "bad key"))
    metric = make_embedding_container().semantic_similarity()

    with pytest.raises(AllJudgesFailedError) as caught:
        metric.evaluate(PAIR)

    assert caught.value.step == "ComputeEmbeddings"
    assert [f.judge_id for f in caught.value.failures] == ["emb-a", "emb-b"]
    assert len(openai_server.embedding_requests) == 2  # 401 is not retried
    assert embed_secret not in str(caught.value)


def test_a_429_is_retried_after_retry_after(make_embedding_container, openai_server):
    openai_server.script_embeddings("emb-a", Reply.error(429, retry_after=0.01))
    metric = make_embedding_container(embeddings=["emb-a"]).semantic_similarity()

    result = metric.evaluate(PAIR)

    assert [r.status for r in openai_server.embedding_requests] == [429, 200]
    assert result.steps[0].calls[0].attempts == 2


@pytest.mark.parametrize(
    ("reply", "kind"),
    [
        (Reply.garbage(), "invalid_output"),
        ([[1.0, 0.0]], "invalid_output"),  # one vector for two texts
        ([[1.0, 0.0], [1.0]], "invalid_output"),  # vectors of different sizes
        (Reply.drop(), "connection"),
    ],
)
def test_bad_answers_are_the_models_failure(make_embedding_container, openai_server, reply, kind):
    openai_server.script_embeddings("emb-a", *([reply] * 3))
    metric = make_embedding_container().semantic_similarity()

    result = metric.evaluate(PAIR)

    [exclusion] = result.exclusions
    assert exclusion.judge_id == "emb-a"
    assert exclusion.kind == kind
    assert set(result.model_scores) == {"emb-b"}


def test_a_hung_request_times_out_and_is_retried(make_embedding_container, openai_server):
    openai_server.script_embeddings("emb-a", Reply.hang(5))
    metric = make_embedding_container(
        embeddings=["emb-a"], provider_extra="timeout: 200ms"
    ).semantic_similarity()

    result = metric.evaluate(PAIR)

    assert result.score is not None
    assert result.steps[0].calls[0].attempts == 2


@pytest.mark.parametrize(
    ("sample", "field"),
    [
        (Sample(reference="r"), "response"),
        (Sample(response="r", reference="   "), "reference"),
        (Sample(), "response, reference"),
    ],
)
def test_missing_fields_are_named(make_embedding_container, openai_server, sample, field):
    metric = make_embedding_container().semantic_similarity()

    with pytest.raises(SampleValidationError) as caught:
        metric.evaluate(sample)

    assert caught.value.field == field
    assert caught.value.metric == "SemanticSimilarityMetric"
    assert openai_server.embedding_requests == []


def test_no_embedding_model_is_a_config_error_naming_embedding_models(make_embedding_container):
    metric = make_embedding_container(embeddings=[]).semantic_similarity()

    with pytest.raises(ConfigError) as caught:
        metric.evaluate(PAIR)

    assert "embedding-models" in caught.value.key
    assert "SemanticSimilarityMetric" in str(caught.value)


def test_long_texts_are_chunked_and_sent_in_one_request(make_embedding_container, openai_server):
    metric = make_embedding_container(embeddings=["emb-a"]).semantic_similarity()
    response = " ".join(f"Sentence number {index:03d}." for index in range(100))
    sample = Sample(response=response, reference="Short ref.")

    result = metric.evaluate(sample, {"max_tokens_per_chunk": 50})

    [request] = openai_server.embedding_requests
    assert len(request.inputs) == 16  # 15 chunks of 7 sentences (the last of 2) + the reference
    assert all(len(text) <= 150 for text in request.inputs)
    assert " ".join(request.inputs[:-1]) == response
    assert result.metadata["chunking_applied"] is True
    assert result.metadata["response_chunk_count"] == 15
    assert result.metadata["reference_chunk_count"] == 1


@pytest.mark.parametrize(
    ("strategy", "lengths"), [("TRUNCATE", [150, 10]), ("fail_fast", [3000, 10])]
)
def test_truncate_and_fail_fast(make_embedding_container, openai_server, strategy, lengths):
    metric = make_embedding_container(embeddings=["emb-a"]).semantic_similarity()
    sample = Sample(response="Long sentence. " * 200, reference="Short ref.")

    result = metric.evaluate(sample, {"long_text_strategy": strategy, "max_tokens_per_chunk": 50})

    [request] = openai_server.embedding_requests
    assert [len(text) for text in request.inputs] == lengths
    assert result.metadata["chunking_applied"] is False


def test_identical_texts_are_embedded_once_per_container(make_embedding_container, openai_server):
    container = make_embedding_container(embeddings=["emb-a"])
    metric = container.semantic_similarity()
    metric.evaluate(PAIR)

    again = metric.evaluate(PAIR)
    other = metric.evaluate(Sample(response=PAIR.response, reference="Something else."))

    assert [r.inputs for r in openai_server.embedding_requests] == [
        (PAIR.response, PAIR.reference),
        ("Something else.",),
    ]
    assert again.steps[0].calls[0].value == {"texts": 2, "sent": 0, "cached": 2, "dimensions": 64}
    assert again.steps[0].calls[0].attempts == 0
    assert other.steps[0].calls[0].value["cached"] == 1


def test_unicode_texts_and_dimensions_reach_the_provider(make_embedding_container, openai_server):
    metric = make_embedding_container(
        embeddings=["emb-a"],
        extra="spring.ai.ragas.providers.embedding-default-options.dimensions: 24\n",
    ).semantic_similarity()
    sample = Sample(response="Столица Франции — Париж 🇫🇷", reference="Париж — столица Франции")

    result = metric.evaluate(sample)

    [request] = openai_server.embedding_requests
    assert request.inputs == (sample.response, sample.reference)
    assert request.request.dimensions == 24
    assert result.steps[0].calls[0].value["dimensions"] == 24
    assert 0.5 < result.score <= 1.0  # the same four words


@pytest.mark.asyncio
async def test_async_evaluation_and_explanation_in_russian(make_embedding_container):
    metric = make_embedding_container().semantic_similarity()

    result = await metric.aevaluate(PAIR, {"language": "ru"})

    assert result.explanation.startswith("Семантическая близость")
    assert "emb-a" in result.explanation


def test_the_secret_is_never_logged(make_embedding_container, openai_server, caplog, embed_secret):
    caplog.set_level(logging.DEBUG)
    openai_server.fail_always("emb-a", Reply.error(500, f"echo {embed_secret}"))
    metric = make_embedding_container().semantic_similarity()

    result = metric.evaluate(PAIR)

    assert embed_secret not in caplog.text
    assert embed_secret not in result.model_dump_json()
    assert embed_secret not in repr(metric.embeddings.models)


def test_check_ready_raises_the_start_up_error_before_any_call(make_embedding_container):
    container = make_embedding_container(embeddings=[])
    with pytest.raises(ConfigError, match="embedding-models"):
        container.semantic_similarity().check_ready()
    container.tool_call_accuracy().check_ready()  # needs nothing: no error


@pytest.mark.asyncio
async def test_judges_and_embedding_models_of_a_provider_share_its_concurrency_cap(
    make_embedding_container, openai_server
):
    from ragas_boot import AIMessage, HumanMessage

    openai_server.set_latency(None, 0.05)
    openai_server.when(asks_for("goal_achieved"), {"goal_achieved": True, "reason": "done"})
    container = make_embedding_container(
        chat=["judge-a"], embeddings=["emb-a"], provider_extra="max-concurrency: 1"
    )
    conversation = Sample(
        user_input_messages=[HumanMessage("Hi"), AIMessage("Hello!")], reference="A greeting"
    )

    await asyncio.gather(
        container.semantic_similarity().aevaluate(PAIR),
        container.agent_goal_accuracy().aevaluate(conversation),
    )

    [chat] = openai_server.requests
    [embedding] = openai_server.embedding_requests
    first, second = sorted(
        [
            (chat.request.received_at, chat.answered_at),
            (embedding.received_at, embedding.answered_at),
        ]
    )
    assert first[1] <= second[0]  # one call at a time for the provider, whatever its kind


def test_an_embedding_model_that_is_down_opens_its_own_circuit(
    make_embedding_container, openai_server
):
    openai_server.fail_always("emb-b", Reply.error(503))
    metric = make_embedding_container(
        extra="""\
        spring.ai.ragas.providers.circuit-breaker:
          failure-threshold: 3
          open-for: 1h
        """
    ).semantic_similarity()

    first = metric.evaluate(PAIR)
    sent = len(openai_server.embedding_requests_for("emb-b"))
    second = metric.evaluate(Sample(response="Berlin is in Germany.", reference="Germany."))

    assert sent == 3  # the breaker opened on the third attempt in a row
    assert len(openai_server.embedding_requests_for("emb-b")) == sent  # nothing more sent
    assert [e.kind for e in first.exclusions] == ["server_error"]
    [exclusion] = second.exclusions
    assert (exclusion.judge_id, exclusion.kind) == ("emb-b", "unavailable")
    assert "emb-b at provider p is failing (" in exclusion.message
    # The provider's other embedding model has its own breaker: still asked and scored.
    assert set(second.model_scores) == {"emb-a"}
    assert len(openai_server.embedding_requests_for("emb-a")) == 2


def test_a_retry_after_longer_than_the_backoff_is_not_waited_for(
    make_embedding_container, openai_server
):
    openai_server.script_embeddings("emb-a", Reply.error(429, retry_after=30))
    metric = make_embedding_container(embeddings=["emb-a", "emb-b"]).semantic_similarity()

    result = metric.evaluate(PAIR)

    assert len(openai_server.embedding_requests_for("emb-a")) == 1
    [exclusion] = result.exclusions
    assert (exclusion.judge_id, exclusion.kind) == ("emb-a", "rate_limited")
    assert "retry after 30s" in exclusion.message
    assert set(result.model_scores) == {"emb-b"}


def test_header_values_and_url_credentials_are_secrets(
    make_embedding_container, openai_server, embed_secret
):
    # The user-info of the base URL is not sent by the client as a header here; it only
    # has to be masked wherever the model is shown.
    url = openai_server.base_url.replace("http://", "http://user:url-pass-5d1e@")
    container = make_embedding_container(
        embeddings=["emb-a"],
        provider_extra="headers: { X-Title: header-value-9b2c }",
    )
    [model] = container.embedding_models()
    from dataclasses import replace

    from ragas_boot.chat.embeddings.openai_compatible import OpenAICompatibleEmbeddingModel

    shown = OpenAICompatibleEmbeddingModel(spec=replace(model.spec, base_url=url))

    assert "header-value-9b2c" not in repr(model.spec)
    assert "header-value-9b2c" not in repr(container.settings())
    assert "url-pass-5d1e" not in repr(shown)
    assert "url-pass-5d1e" not in shown.endpoint
    assert shown.endpoint.endswith("/v1/embeddings")
    result = container.semantic_similarity().evaluate(PAIR)
    assert result.model_scores.keys() == {"emb-a"}


@pytest.mark.asyncio
async def test_judges_and_embedding_models_of_a_provider_share_its_rate_limit_window(
    make_embedding_container, openai_server
):
    from ragas_boot import AIMessage, HumanMessage

    openai_server.when(asks_for("goal_achieved"), {"goal_achieved": True, "reason": "done"})
    container = make_embedding_container(
        chat=["judge-a"], embeddings=["emb-a"], provider_extra="rate-limit: { rps: 1 }"
    )
    conversation = Sample(
        user_input_messages=[HumanMessage("Hi"), AIMessage("Hello!")], reference="A greeting"
    )

    await asyncio.gather(
        container.semantic_similarity().aevaluate(PAIR),
        container.agent_goal_accuracy().aevaluate(conversation),
    )

    [chat] = openai_server.requests
    [embedding] = openai_server.embedding_requests
    first, second = sorted([chat.request.received_at, embedding.received_at])
    # One admission per second for the provider, whatever the kind of call (server clock;
    # a little slack for the time between admission and the request's arrival).
    assert second - first >= 0.9
