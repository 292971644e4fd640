"""NoiseSensitivity: the Java unit cases, the worked example, every check sent at once."""

from __future__ import annotations

import pytest
from rag_scripts import pinned

from ragas_boot import Sample
from ragas_boot.testing import Reply, asks_for

SAMPLE = Sample(
    user_input="When and where was the Zenith Tower built?",
    reference="R1. R2.",
    response="A1. A2.",
    retrieved_contexts=["C1 text", "C2 text"],
)

#: The worked example: C1 supports R1 and A1, C2 supports only A2, the reference supports A1.
SUPPORT = {"C1 text": {"R1", "A1"}, "C2 text": {"A2"}, "R1. R2.": {"A1"}}


def statements(request):
    text = SAMPLE.reference if SAMPLE.reference in request.prompt.split("Answer:")[-1] else "A"
    return {"statements": ["R1", "R2"] if text == SAMPLE.reference else ["A1", "A2"]}


def check(request):
    context = next(c for c in SUPPORT if c in request.prompt.split("Statements")[0])
    return {
        "verdicts": [
            {"statement": s, "reason": "r", "verdict": s in SUPPORT[context]}
            for s in pinned(request)
        ]
    }


def script(server):
    server.when(asks_for("statements"), statements)
    server.when(asks_for("verdicts"), check)


@pytest.mark.parametrize(("mode", "expected"), [("relevant", 0.0), ("irrelevant", 0.5)])
def test_worked_example(make_container, openai_server, mode, expected):
    script(openai_server)
    result = make_container(["judge-a"]).noise_sensitivity().evaluate(SAMPLE, {"mode": mode})
    assert result.score == expected
    assert result.lower_is_better is True
    detail = result.metadata["judges"]["judge-a"]
    assert detail["response_correct"] == [True, False]
    assert detail["relevant_contexts"] == [True, False]
    assert "lower is better" in result.explanation


def test_four_judges_two_decompositions_then_one_plus_two_per_context(
    make_container, openai_server
):
    script(openai_server)
    result = make_container().noise_sensitivity().evaluate(SAMPLE)
    assert openai_server.count() == 4 * (2 + 1 + 2 * 2)
    assert result.metadata["levels"] == [
        ["DecomposeReference", "DecomposeResponse"],
        [
            "EvaluateResponseAgainstReference",
            "EvaluateReferenceInContext_1",
            "EvaluateResponseInContext_1",
            "EvaluateReferenceInContext_2",
            "EvaluateResponseInContext_2",
        ],
    ]


def test_java_unit_case_one_statement_all_true_is_zero(make_container, openai_server):
    openai_server.when(asks_for("statements"), {"statements": ["S1"]})
    openai_server.when(
        asks_for("verdicts"), {"verdicts": [{"statement": "S1", "reason": "r", "verdict": True}]}
    )
    metric = make_container(["judge-a", "judge-b"]).noise_sensitivity()
    assert metric.single_turn_score(SAMPLE) == 0.0
    assert metric.single_turn_score(SAMPLE, {"mode": "IRRELEVANT"}) == 0.0


def test_no_statements_is_undefined_not_a_perfect_zero(make_container, openai_server):
    openai_server.when(asks_for("statements"), {"statements": []})
    result = make_container(["judge-a"]).noise_sensitivity().evaluate(SAMPLE)
    assert result.score is None
    assert openai_server.count() == 2
    assert "no judge found statements" in result.undefined_reason


def test_a_failed_context_check_excludes_the_judge(make_container, openai_server):
    # Java treated it as "the context supports nothing", which can flip the score.
    openai_server.when(lambda r: "C2 text" in r.prompt, Reply.error(500), model="judge-b")
    script(openai_server)
    result = make_container(["judge-a", "judge-b"]).noise_sensitivity().evaluate(SAMPLE)
    assert list(result.model_scores) == ["judge-a"]
    assert result.exclusions[0].judge_id == "judge-b"
    assert result.exclusions[0].step.endswith("InContext_2")
