"""ResponseRelevancy: scripted judges generate questions, embedding models compare them."""

from __future__ import annotations

import pytest

from ragas_boot import AllJudgesFailedError, Sample, SampleValidationError
from ragas_boot.metrics import ResponseRelevancyConfig
from ragas_boot.testing import Reply, asks_for

SAMPLE = Sample(user_input="What is the capital of France?", response="Paris is the capital.")


def questions(*items):
    return {"questions": [{"question": q, "noncommittal": flag} for q, flag in items]}


def test_each_judge_questions_are_compared_with_the_user_input(
    make_embedding_container, openai_server
):
    openai_server.set_vectors(
        "emb-a",
        {
            SAMPLE.user_input: [1.0, 0.0],
            "Which city is the capital of France?": [1.0, 0.0],
            "What is Paris?": [0.0, 1.0],
        },
    )
    openai_server.when(
        asks_for("questions"),
        questions(("Which city is the capital of France?", False)),
        model="judge-a",
    )
    openai_server.when(
        asks_for("questions"),
        questions(("Which city is the capital of France?", False), ("What is Paris?", False)),
        model="judge-b",
    )
    metric = make_embedding_container(embeddings=["emb-a"]).response_relevancy()

    result = metric.evaluate(SAMPLE, ResponseRelevancyConfig(number_of_questions=2))

    assert result.model_scores == {"judge-a": pytest.approx(1.0), "judge-b": pytest.approx(0.5)}
    assert result.score == pytest.approx(0.75)
    # The user input and every judge's questions go in one request, each text once.
    [request] = openai_server.embedding_requests
    assert request.inputs == (
        SAMPLE.user_input,
        "Which city is the capital of France?",
        "What is Paris?",
    )
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert "write 2 different questions" in prompt
    assert SAMPLE.response in prompt
    assert [step.name for step in result.steps] == ["GenerateQuestions", "ComputeEmbeddings"]


def test_a_noncommittal_response_scores_zero_without_embedding_calls(
    make_embedding_container, openai_server
):
    openai_server.when(
        asks_for("questions"),
        questions(("What is the capital of France?", True), ("Which city?", True)),
    )
    metric = make_embedding_container().response_relevancy()

    result = metric.evaluate(Sample(user_input="Capital of France?", response="I don't know."))

    assert result.score == 0.0
    assert result.model_scores == {"judge-a": 0.0, "judge-b": 0.0}
    assert openai_server.embedding_requests == []
    assert result.metadata["noncommittal"] == {"judge-a": [True, True], "judge-b": [True, True]}


def test_some_noncommittal_questions_keep_the_full_cosine_mean(
    make_embedding_container, openai_server
):
    openai_server.when(
        asks_for("questions"),
        questions((SAMPLE.user_input, False), (SAMPLE.user_input, True)),
    )
    metric = make_embedding_container(chat=["judge-a"]).response_relevancy()

    assert metric.single_turn_score(SAMPLE) == pytest.approx(1.0)


def test_judges_score_over_every_embedding_model_that_answered(
    make_embedding_container, openai_server
):
    openai_server.when(asks_for("questions"), questions(("Is Paris big?", False)))
    openai_server.set_vectors("emb-a", {SAMPLE.user_input: [1.0, 0.0], "Is Paris big?": [1.0, 0.0]})
    openai_server.set_vectors("emb-b", {SAMPLE.user_input: [1.0, 0.0], "Is Paris big?": [0.0, 1.0]})
    metric = make_embedding_container(chat=["judge-a"]).response_relevancy()

    result = metric.evaluate(SAMPLE)

    assert result.metadata["similarities"] == {
        "judge-a": {"emb-a": pytest.approx(1.0), "emb-b": pytest.approx(0.0)}
    }
    assert result.score == pytest.approx(0.5)


def test_a_failed_judge_and_a_failed_embedding_model_are_excluded(
    make_embedding_container, openai_server
):
    openai_server.when(asks_for("questions"), questions((SAMPLE.user_input, False)))
    openai_server.fail_always("judge-b", Reply.error(400, "bad request"))
    openai_server.fail_always("emb-b", Reply.error(400, "bad request"))
    metric = make_embedding_container().response_relevancy()

    result = metric.evaluate(SAMPLE)

    assert result.model_scores == {"judge-a": pytest.approx(1.0)}
    assert {(e.judge_id, e.step) for e in result.exclusions} == {
        ("judge-b", "GenerateQuestions"),
        ("emb-b", "ComputeEmbeddings"),
    }


def test_blank_questions_are_the_judges_failure(make_embedding_container, openai_server):
    openai_server.when(asks_for("questions"), questions(("  ", False)), model="judge-a")
    openai_server.when(
        asks_for("questions"), questions((SAMPLE.user_input, False)), model="judge-b"
    )
    metric = make_embedding_container().response_relevancy()

    result = metric.evaluate(SAMPLE)

    assert set(result.model_scores) == {"judge-b"}
    [exclusion] = result.exclusions
    assert (exclusion.judge_id, exclusion.kind) == ("judge-a", "invalid_output")


def test_no_questions_at_all_is_invalid_output(make_embedding_container, openai_server):
    openai_server.when(asks_for("questions"), {"questions": []})
    metric = make_embedding_container().response_relevancy()

    with pytest.raises(AllJudgesFailedError) as caught:
        metric.evaluate(SAMPLE)

    assert caught.value.step == "GenerateQuestions"
    assert {f.kind for f in caught.value.failures} == {"invalid_output"}


def test_every_embedding_model_failing_raises(make_embedding_container, openai_server):
    openai_server.when(asks_for("questions"), questions((SAMPLE.user_input, False)))
    openai_server.fail_always("emb-a", Reply.error(404, "no such model"))
    openai_server.fail_always("emb-b", Reply.error(404, "no such model"))
    metric = make_embedding_container().response_relevancy()

    with pytest.raises(AllJudgesFailedError) as caught:
        metric.evaluate(SAMPLE)

    assert caught.value.step == "ComputeEmbeddings"


def test_embeddings_failing_leave_committal_judges_unscored_not_zero(
    make_embedding_container, openai_server
):
    openai_server.when(asks_for("questions"), questions(("Q?", True)), model="judge-a")
    openai_server.when(asks_for("questions"), questions(("Q?", False)), model="judge-b")
    openai_server.fail_always("emb-a", Reply.error(404, "no such model"))
    metric = make_embedding_container(embeddings=["emb-a"]).response_relevancy()

    result = metric.evaluate(SAMPLE)

    assert result.model_scores == {"judge-a": 0.0}
    assert ("judge-b", "embeddings_failed") in {(e.judge_id, e.kind) for e in result.exclusions}


@pytest.mark.parametrize(
    ("sample", "field"),
    [
        (Sample(response="r"), "user_input"),
        (Sample(user_input="q", response=""), "response"),
        (Sample(), "user_input, response"),
    ],
)
def test_missing_fields_are_named(make_embedding_container, openai_server, sample, field):
    metric = make_embedding_container().response_relevancy()

    with pytest.raises(SampleValidationError) as caught:
        metric.evaluate(sample)

    assert caught.value.field == field
    assert openai_server.count() == 0


def test_russian_prompt(make_embedding_container, openai_server):
    openai_server.when(asks_for("questions"), questions(("Какая столица Франции?", False)))
    metric = make_embedding_container(chat=["judge-a"]).response_relevancy()

    result = metric.evaluate(
        Sample(user_input="Какая столица Франции?", response="Париж."), {"language": "ru"}
    )

    assert result.score == pytest.approx(1.0)
    assert "Прочитайте ответ" in openai_server.requests[0].request.prompt
    assert result.explanation.startswith("Релевантность ответа")


def test_the_schema_caps_the_questions_and_extra_ones_are_dropped(
    make_embedding_container, openai_server
):
    openai_server.when(
        asks_for("questions"), questions(*[(f"Question {n}?", False) for n in range(5)])
    )
    metric = make_embedding_container(chat=["judge-a"]).response_relevancy()

    result = metric.evaluate(SAMPLE, {"number_of_questions": 2})

    schema = openai_server.requests[0].request.json_schema
    assert schema["properties"]["questions"]["maxItems"] == 2
    assert result.metadata["generated_questions"]["judge-a"] == ["Question 0?", "Question 1?"]
