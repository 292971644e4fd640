"""Faithfulness: the Java unit cases, per-judge statements, misaligned verdicts."""

from __future__ import annotations

import pytest
from rag_scripts import decomposes, pinned, verdicts

from ragas_boot import AllJudgesFailedError, Sample, UndefinedScoreError
from ragas_boot.testing import Reply, asks_for

SAMPLE = Sample(
    user_input="When was the first Super Bowl?",
    response="The first Super Bowl was held on January 15, 1967.",
    retrieved_contexts=[
        "The First AFL-NFL World Championship Game was played on January 15, 1967."
    ],
)


def script(server, statements, labels, model=None):
    decomposes(server, "statements", statements, model=model)
    server.when(asks_for("verdicts"), verdicts(labels), model=model)


@pytest.mark.parametrize(
    ("labels", "expected"), [([1, 1], 1.0), ([0, 0], 0.0), ([1, 0], 0.5), (["1", 0], 0.5)]
)
def test_java_unit_cases(make_container, openai_server, labels, expected):
    script(openai_server, ["s1", "s2"], labels)
    assert make_container(["judge-a"]).faithfulness().single_turn_score(SAMPLE) == expected


def test_no_statements_is_undefined_and_makes_no_verdict_call(make_container, openai_server):
    # Java: the NLI call was still made with an empty list and the score was 0.0.
    decomposes(openai_server, "statements", [])
    metric = make_container(["judge-a"]).faithfulness()
    result = metric.evaluate(SAMPLE)
    assert result.score is None
    assert "no judge found a statement in the response" in result.undefined_reason
    assert openai_server.count() == 1
    with pytest.raises(UndefinedScoreError):
        metric.single_turn_score(SAMPLE)


def test_a_null_verdict_excludes_the_judge(make_container, openai_server):
    # Java counted [1, null] as 0.5; null is not a verdict, so that judge's answer is unusable.
    script(openai_server, ["s1", "s2"], [1, 1], model="judge-a")
    script(openai_server, ["s1", "s2"], [1, None], model="judge-b")
    result = make_container(["judge-a", "judge-b"]).faithfulness().evaluate(SAMPLE)
    assert result.model_scores == {"judge-a": 1.0}
    assert result.exclusions[0].judge_id == "judge-b"


def test_a_judge_failing_to_generate_statements_everywhere_is_an_error(
    make_container, openai_server
):
    openai_server.fail_always(None, Reply.error(500))
    with pytest.raises(AllJudgesFailedError) as caught:
        make_container(["judge-a"]).faithfulness().evaluate(SAMPLE)
    assert "GenerateStatements" in str(caught.value)


def test_config_models_restrict_the_judges(make_container, openai_server):
    script(openai_server, ["s1"], [1])
    metric = make_container(["judge-a", "judge-b"]).faithfulness()
    assert metric.single_turn_score(SAMPLE, {"models": ["judge-a"]}) == 1.0
    assert openai_server.count("judge-b") == 0


def test_each_judge_judges_its_own_statements_and_wrong_answers_exclude(
    make_container, openai_server
):
    script(openai_server, ["a1", "a2"], [1, 0], model="judge-a")
    script(openai_server, ["b1"], [1], model="judge-b")
    decomposes(openai_server, "statements", ["c1", "c2"], model="judge-c")
    openai_server.when(asks_for("verdicts"), verdicts([1]), model="judge-c")  # one too few
    decomposes(openai_server, "statements", ["d1"], model="judge-d")
    openai_server.when(
        asks_for("verdicts"),
        {"verdicts": [{"statement": "not mine", "reason": "r", "verdict": 1}]},
        model="judge-d",
    )
    result = make_container().faithfulness().evaluate(SAMPLE)
    assert result.model_scores == {"judge-a": 0.5, "judge-b": 1.0}
    assert result.score == 0.75
    assert [e.judge_id for e in result.exclusions] == ["judge-c", "judge-d"]
    assert "unexpected ['not mine']" in result.exclusions[1].message
    asked = [
        pinned(r.request)
        for r in openai_server.requests_for("judge-b")
        if r.request.asks_for("verdicts")
    ]
    assert asked == [["b1"]]
    assert result.metadata["judges"]["judge-a"]["verdicts"][1] == {
        "statement": "a2",
        "verdict": 0,
        "positive": False,
        "reason": "because",
    }
