"""AnswerCorrectness: FactualCorrectness (sentence judge) and SemanticSimilarity, weighted."""

from __future__ import annotations

import pytest

from ragas_boot import AllJudgesFailedError, Sample, SampleValidationError, UndefinedScoreError
from ragas_boot.errors import ConfigError
from ragas_boot.metrics.embeddings.answer_correctness import AnswerCorrectnessConfig
from ragas_boot.testing import Reply
from ragas_boot.testing.rag_judge import SentenceJudge

SAMPLE = Sample(
    response="Paris is the capital of France. The Eiffel Tower is in Paris.",
    reference="Paris is the capital of France. The Eiffel Tower was built in 1889.",
)


def orthogonal(server, model="emb-a"):
    server.set_vectors(model, {SAMPLE.response: [1.0, 0.0], SAMPLE.reference: [0.0, 1.0]})


def test_the_score_is_the_weighted_sum_of_both_parts(make_embedding_container, openai_server):
    openai_server.respond(None, SentenceJudge())  # P = R = 1/2 -> F1 0.5
    openai_server.set_vectors(
        "emb-a", {SAMPLE.response: [1.0, 0.0], SAMPLE.reference: [0.6, 0.8]}
    )  # cosine 0.6
    metric = make_embedding_container(embeddings=["emb-a"]).answer_correctness()

    result = metric.evaluate(SAMPLE)

    assert result.metadata["factual_score"] == pytest.approx(0.5)
    assert result.metadata["semantic_score"] == pytest.approx(0.6)
    assert result.score == pytest.approx(0.75 * 0.5 + 0.25 * 0.6)
    assert result.aggregation == "NONE"
    assert [step.name for step in result.steps][-1] == "ComputeEmbeddings"
    assert {step.name for step in result.steps} >= {
        "DecomposeResponseClaims",
        "VerifyReferenceClaims",
    }


@pytest.mark.parametrize(
    ("weights", "expected"),
    [((1.5, 1.0), 0.6 * 0.5 + 0.4 * 0.0), ((0.5, 0.5), 0.25), ((1.0, 0.0), 0.5)],
)
def test_weights_are_normalised(make_embedding_container, openai_server, weights, expected):
    openai_server.respond(None, SentenceJudge())
    orthogonal(openai_server)
    metric = make_embedding_container(embeddings=["emb-a"]).answer_correctness()

    config = AnswerCorrectnessConfig(factual_weight=weights[0], semantic_weight=weights[1])
    assert metric.single_turn_score(SAMPLE, config) == pytest.approx(expected)


def test_a_zero_weight_part_is_not_computed(make_embedding_container, openai_server):
    metric = make_embedding_container(embeddings=["emb-a"]).answer_correctness()

    result = metric.evaluate(SAMPLE, {"factual_weight": 0, "semantic_weight": 1})

    assert openai_server.count() == 0  # no judge asked
    assert len(openai_server.embedding_requests) == 1
    assert result.score == result.metadata["semantic_score"]


def test_both_weights_zero_is_a_config_error():
    with pytest.raises(ValueError, match="must not both be 0"):
        AnswerCorrectnessConfig(factual_weight=0, semantic_weight=0)


def test_failed_embeddings_make_the_score_undefined_not_the_factual_part_alone(
    make_embedding_container, openai_server
):
    openai_server.respond(None, SentenceJudge())
    openai_server.fail_always("emb-a", Reply.error(400, "no"))
    metric = make_embedding_container(embeddings=["emb-a"]).answer_correctness()

    result = metric.evaluate(SAMPLE)

    assert result.score is None
    assert "SemanticSimilarity failed" in result.undefined_reason
    assert result.metadata["factual_score"] == pytest.approx(0.5)
    assert ("emb-a", "ComputeEmbeddings") in {(e.judge_id, e.step) for e in result.exclusions}
    with pytest.raises(UndefinedScoreError):
        metric.single_turn_score(SAMPLE)


def test_failed_judges_make_the_score_undefined(make_embedding_container, openai_server):
    openai_server.fail_always("judge-a", Reply.error(400, "no"))
    openai_server.fail_always("judge-b", Reply.error(400, "no"))
    metric = make_embedding_container(embeddings=["emb-a"]).answer_correctness()

    result = metric.evaluate(SAMPLE)

    assert result.score is None
    assert "FactualCorrectness failed" in result.undefined_reason
    assert result.metadata["semantic_score"] is not None


def test_both_parts_failing_raises(make_embedding_container, openai_server):
    openai_server.fail_always(None, Reply.error(400, "no"))
    metric = make_embedding_container(embeddings=["emb-a"]).answer_correctness()

    with pytest.raises(AllJudgesFailedError):
        metric.evaluate(SAMPLE)


def test_missing_fields_are_named(make_embedding_container):
    metric = make_embedding_container().answer_correctness()

    with pytest.raises(SampleValidationError) as caught:
        metric.evaluate(Sample(response="only a response"))

    assert caught.value.field == "reference"


def test_no_embedding_model_is_a_config_error(make_embedding_container):
    metric = make_embedding_container(embeddings=[]).answer_correctness()

    with pytest.raises(ConfigError, match="embedding"):
        metric.evaluate(SAMPLE)
