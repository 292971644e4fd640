"""ContextPrecision: the Java unit cases, strategies, one call per context at once."""

from __future__ import annotations

import pytest

from ragas_boot import AllJudgesFailedError, Sample, SampleValidationError
from ragas_boot.testing import Reply, asks_for

SAMPLE = Sample(
    user_input="What is photosynthesis?",
    reference="Plants turn light into chemical energy.",
    response="It is how plants make food from light.",
    retrieved_contexts=["ctx-one", "ctx-two", "ctx-three"],
)


def useful(*relevant_contexts):
    def reply(request):
        hit = any(context in request.prompt for context in relevant_contexts)
        return {"reason": "r", "verdict": hit}

    return reply


@pytest.mark.parametrize(
    ("relevant", "expected"),
    [
        (("ctx-one", "ctx-two", "ctx-three"), 1.0),
        ((), 0.0),
        (("ctx-one", "ctx-three"), (1 + 2 / 3) / 2),
        (("ctx-three",), 1 / 3),
    ],
)
def test_average_precision_of_the_ranking(make_container, openai_server, relevant, expected):
    openai_server.when(asks_for("verdict"), useful(*relevant))
    metric = make_container(["judge-a"]).context_precision()
    assert metric.single_turn_score(SAMPLE) == pytest.approx(expected)


def test_every_context_and_judge_is_one_call_sent_at_once(make_container, openai_server):
    openai_server.when(asks_for("verdict"), useful("ctx-one"))
    result = make_container().context_precision().evaluate(SAMPLE)
    assert openai_server.count() == 12  # 3 contexts x 4 judges
    assert result.metadata["dependent_steps"] == 1
    assert [s.name for s in result.steps] == [
        "EvaluateContext_1",
        "EvaluateContext_2",
        "EvaluateContext_3",
    ]
    assert result.mode == "REFERENCE_BASED"  # AUTO with a reference
    assert all(SAMPLE.reference in r.request.prompt for r in openai_server.requests)


def test_without_a_reference_auto_uses_the_response(make_container, openai_server):
    openai_server.when(asks_for("verdict"), useful("ctx-one"))
    sample = SAMPLE.model_copy(update={"reference": None})
    result = make_container(["judge-a"]).context_precision().evaluate(sample)
    assert result.mode == "RESPONSE_BASED"
    assert result.score == 1.0
    assert all(SAMPLE.response in r.request.prompt for r in openai_server.requests)


def test_reference_based_without_a_reference_names_field_and_mode(make_container, openai_server):
    sample = SAMPLE.model_copy(update={"reference": ""})
    metric = make_container(["judge-a"]).context_precision()
    with pytest.raises(SampleValidationError) as caught:
        metric.evaluate(sample, {"evaluation_strategy": "reference_based"})
    assert (caught.value.field, caught.value.mode) == ("reference", "REFERENCE_BASED")
    with pytest.raises(SampleValidationError) as caught:
        metric.evaluate(sample.model_copy(update={"response": None}))
    assert caught.value.field == "reference|response"


def test_a_judge_failing_one_context_is_excluded_not_scored_as_irrelevant(
    make_container, openai_server
):
    # Java scored the failed context as "not relevant" and kept the model's score.
    openai_server.when(lambda r: "ctx-two" in r.prompt, Reply.error(500), model="judge-b")
    openai_server.when(asks_for("verdict"), useful("ctx-one", "ctx-two", "ctx-three"))
    result = make_container(["judge-a", "judge-b"]).context_precision().evaluate(SAMPLE)
    assert result.model_scores == {"judge-a": 1.0}
    assert result.exclusions[0].step == "EvaluateContext_2"


def test_every_judge_failing_is_an_error_not_zero(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(500))
    with pytest.raises(AllJudgesFailedError):
        make_container(["judge-a"]).context_precision().evaluate(SAMPLE)
