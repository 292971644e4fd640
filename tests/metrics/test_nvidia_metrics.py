"""AnswerAccuracy, ContextRelevance, ResponseGroundedness: the Java unit cases (0/1/2 ratings)."""

from __future__ import annotations

import pytest

from ragas_boot import AllJudgesFailedError, Sample, SampleValidationError
from ragas_boot.testing import asks_for

SAMPLE = Sample(
    user_input="What is the capital of France?",
    response="Paris is the capital of France.",
    reference="The capital of France is Paris.",
    retrieved_contexts=["France's capital city is Paris.", "Lyon is a city.", "Cheese."],
)
NO_HEURISTIC = {"use_heuristic_shortcuts": False}


def rating(value, reason="r"):
    return {"reason": reason, "rating": value}


@pytest.mark.parametrize(("raw", "expected"), [(2, 1.0), (1, 0.5), (0, 0.0), (5, 1.0), (-1, 0.0)])
@pytest.mark.parametrize("bean", ["answer_accuracy", "response_groundedness", "context_relevance"])
def test_ratings_normalise_and_clamp(make_container, openai_server, bean, raw, expected):
    openai_server.when(asks_for("rating"), rating(raw))
    metric = getattr(make_container(["judge-a"]), bean)()
    config = NO_HEURISTIC if bean == "response_groundedness" else None
    result = metric.evaluate(SAMPLE, config)
    assert result.score == expected
    clamped = raw not in (0, 1, 2)
    ratings = (
        result.metadata["initial"]["judge-a"]
        if bean == "answer_accuracy"
        else result.metadata["judges"]["judge-a"]
    )
    first = ratings[0] if isinstance(ratings, list) else ratings
    assert first["clamped"] is clamped


@pytest.mark.parametrize("bean", ["answer_accuracy", "response_groundedness", "context_relevance"])
def test_a_missing_rating_is_a_failure_not_a_skip(make_container, openai_server, bean):
    openai_server.when(asks_for("rating"), {"reason": "r", "rating": None})
    metric = getattr(make_container(["judge-a", "judge-b"]), bean)()
    config = NO_HEURISTIC if bean == "response_groundedness" else None
    with pytest.raises(AllJudgesFailedError):
        metric.evaluate(SAMPLE, config)


def test_answer_accuracy_two_judges(make_container, openai_server):
    openai_server.when(asks_for("rating"), rating(2), model="judge-a")
    openai_server.when(asks_for("rating"), rating(1), model="judge-b")
    result = make_container(["judge-a", "judge-b"]).answer_accuracy().evaluate(SAMPLE)
    assert result.model_scores == {"judge-a": 1.0, "judge-b": 0.5}
    assert result.score == 0.75
    assert openai_server.count() == 2
    assert SAMPLE.user_input not in openai_server.requests[0].request.prompt


def test_dual_judge_each_judge_reviews_its_own_rating(make_container, openai_server):
    openai_server.when(
        asks_for("agrees_with_initial"),
        lambda r: {
            "reason": "on review",
            "rating": 2,
            "agrees_with_initial": "first rating: 2" in r.prompt.lower(),
        },
    )
    openai_server.when(asks_for("rating"), rating(1, "judge-a thinks partly"), model="judge-a")
    openai_server.when(asks_for("rating"), rating(2, "judge-b thinks fully"), model="judge-b")
    result = (
        make_container(["judge-a", "judge-b"])
        .answer_accuracy()
        .evaluate(SAMPLE, {"use_dual_judge": True})
    )
    assert result.model_scores == {"judge-a": 1.0, "judge-b": 1.0}  # confirmation wins
    assert result.metadata["dependent_steps"] == 2
    confirm_a = openai_server.requests_for("judge-a")[1].request.prompt
    confirm_b = openai_server.requests_for("judge-b")[1].request.prompt
    assert "Your first rating: 1" in confirm_a and "judge-a thinks partly" in confirm_a
    assert "Your first rating: 2" in confirm_b and "judge-b thinks fully" in confirm_b
    assert result.metadata["confirmed"]["judge-a"]["agrees_with_initial"] is False
    assert result.metadata["confirmed"]["judge-b"]["agrees_with_initial"] is True


def test_dual_judge_off_never_asks_for_confirmation(make_container, openai_server):
    openai_server.when(asks_for("rating"), rating(1))
    result = make_container(["judge-a"]).answer_accuracy().evaluate(SAMPLE)
    assert result.score == 0.5 and openai_server.count() == 1
    assert result.metadata["confirmed"] is None


def test_context_relevance_rates_each_context_at_once(make_container, openai_server):
    raw = {"France's capital": 2, "Lyon": 1, "Cheese": 0}
    openai_server.when(
        asks_for("rating"),
        lambda r: rating(next(v for k, v in raw.items() if k in r.prompt)),
    )
    result = make_container().context_relevance().evaluate(SAMPLE)
    assert result.score == 0.5
    assert result.metadata["context_scores"] == [1.0, 0.5, 0.0]
    assert openai_server.count() == 12
    assert result.metadata["dependent_steps"] == 1


def test_groundedness_heuristic_answers_without_judges(make_container, openai_server):
    metric = make_container(["judge-a"]).response_groundedness()
    for response in ("france's capital city is PARIS.", "capital"):
        result = metric.evaluate(SAMPLE.model_copy(update={"response": response}))
        assert result.score == 1.0
        assert result.metadata["heuristic_match"] is True
        assert result.aggregation == "NONE"
    assert openai_server.count() == 0


def test_groundedness_exact_match_with_heuristics_off_asks_the_judges(
    make_container, openai_server
):
    openai_server.when(asks_for("rating"), rating(2))
    sample = SAMPLE.model_copy(update={"response": "France's capital city is Paris."})
    result = make_container(["judge-a"]).response_groundedness().evaluate(sample, NO_HEURISTIC)
    assert result.score == 1.0 and openai_server.count() == 1
    assert "\n\n".join(SAMPLE.retrieved_contexts) in openai_server.requests[0].request.prompt


@pytest.mark.parametrize("response", ["", "   ", None])
def test_groundedness_without_a_response_is_a_validation_error(
    make_container, openai_server, response
):
    sample = SAMPLE.model_copy(update={"response": response})
    with pytest.raises(SampleValidationError) as caught:
        make_container(["judge-a"]).response_groundedness().evaluate(sample)
    assert caught.value.field == "response"
