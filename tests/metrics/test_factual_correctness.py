"""FactualCorrectness against scripted judges over real HTTP (the Java unit cases included)."""

from __future__ import annotations

import pytest
from rag_scripts import decomposes, pinned, verdicts

from ragas_boot import AllJudgesFailedError, Sample, SampleValidationError, UndefinedScoreError
from ragas_boot.testing import Reply, asks_for
from ragas_boot.testing.rag_judge import SentenceJudge

SAMPLE = Sample(
    response="Paris is the capital of France. The Eiffel Tower is in Paris.",
    reference="Paris is the capital of France. The Eiffel Tower was built in 1889.",
)


def script(server, claims, labels, model=None):
    decomposes(server, "claims", claims, model=model)
    server.when(asks_for("verdicts"), verdicts(labels), model=model)


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["SUPPORTED", "SUPPORTED"], 1.0),
        (["CONTRADICTED", "NEUTRAL"], 0.0),
        (["SUPPORTED", "CONTRADICTED"], 0.5),  # P = R = 0.5
        (["supported ", "Supported"], 1.0),  # labels read case-insensitively
    ],
)
def test_java_unit_cases(make_container, openai_server, labels, expected):
    script(openai_server, ["claim one", "claim two"], labels)
    metric = make_container(["judge-a"]).factual_correctness()
    assert metric.single_turn_score(SAMPLE) == pytest.approx(expected)


def test_precision_mode_makes_only_the_calls_it_needs(make_container, openai_server):
    script(openai_server, ["claim one"], ["SUPPORTED"])
    metric = make_container(["judge-a"]).factual_correctness()
    result = metric.evaluate(SAMPLE, {"mode": "precision"})
    assert result.score == 1.0
    assert [step.name for step in result.steps] == [
        "DecomposeResponseClaims",
        "VerifyResponseClaims",
    ]
    assert openai_server.count("judge-a") == 2
    # The response's claims are checked against the reference.
    (verify,) = [r for r in openai_server.requests_for("judge-a") if r.request.asks_for("verdicts")]
    assert SAMPLE.reference in verify.request.prompt


def test_four_judges_decompose_both_texts_at_once_then_verify_both_ways(
    make_container, openai_server
):
    openai_server.respond(None, SentenceJudge())
    result = make_container().factual_correctness().evaluate(SAMPLE)
    # P = 1/2 (the Eiffel Tower location is not in the reference), R = 1/2 -> F1 0.5.
    assert result.model_scores == {j: 0.5 for j in ("judge-a", "judge-b", "judge-c", "judge-d")}
    assert result.score == 0.5
    assert openai_server.count() == 16
    assert result.metadata["calls"] == 16
    assert result.metadata["dependent_steps"] == 2
    assert result.metadata["levels"] == [
        ["DecomposeResponseClaims", "DecomposeReferenceClaims"],
        ["VerifyResponseClaims", "VerifyReferenceClaims"],
    ]
    requests = [r.request for r in openai_server.requests]
    decompositions = [r for r in requests if r.asks_for("claims")]
    checks = [r for r in requests if r.asks_for("verdicts")]
    assert len(decompositions) == len(checks) == 8
    # Dependent steps: every verification starts after the last decomposition was received.
    assert max(r.received_at for r in decompositions) < min(r.received_at for r in checks)
    detail = result.metadata["judges"]["judge-c"]
    assert detail["precision"] == 0.5 and detail["recall"] == 0.5
    assert [v["positive"] for v in detail["precision_verdicts"]] == [True, False]


def test_each_judge_verifies_its_own_claims(make_container, openai_server):
    decomposes(openai_server, "claims", ["a says x"], model="judge-a")
    decomposes(openai_server, "claims", ["b says y", "b says z"], model="judge-b")
    openai_server.when(asks_for("verdicts"), verdicts(lambda s, r: "SUPPORTED"))
    result = make_container(["judge-a", "judge-b"]).factual_correctness().evaluate(SAMPLE)
    seen = {
        judge: [
            pinned(r.request)
            for r in openai_server.requests_for(judge)
            if r.request.asks_for("verdicts")
        ]
        for judge in ("judge-a", "judge-b")
    }
    assert seen == {
        "judge-a": [["a says x"], ["a says x"]],
        "judge-b": [["b says y", "b says z"], ["b says y", "b says z"]],
    }
    assert result.score == 1.0


def test_a_judge_with_the_wrong_number_of_verdicts_is_excluded(make_container, openai_server):
    for judge in ("judge-a", "judge-b", "judge-c"):
        script(openai_server, ["one", "two"], ["SUPPORTED", "SUPPORTED"], model=judge)
    decomposes(openai_server, "claims", ["one", "two"], model="judge-d")
    openai_server.when(
        asks_for("verdicts"),
        {"verdicts": [{"statement": "one", "reason": "r", "verdict": "SUPPORTED"}]},
        model="judge-d",
    )
    result = make_container().factual_correctness().evaluate(SAMPLE)
    assert list(result.model_scores) == ["judge-a", "judge-b", "judge-c"]
    assert result.score == 1.0
    assert {e.judge_id for e in result.exclusions} == {"judge-d"}
    assert all(e.kind == "invalid_output" for e in result.exclusions)


def test_verdicts_for_unknown_claims_exclude_the_judge(make_container, openai_server):
    script(openai_server, ["one", "two"], ["SUPPORTED", "SUPPORTED"], model="judge-a")
    decomposes(openai_server, "claims", ["one", "two"], model="judge-b")
    openai_server.when(
        asks_for("verdicts"),
        {
            "verdicts": [
                {"statement": "ONE", "reason": "r", "verdict": "SUPPORTED"},
                {"statement": "three", "reason": "r", "verdict": "SUPPORTED"},
            ]
        },
        model="judge-b",
    )
    result = make_container(["judge-a", "judge-b"]).factual_correctness().evaluate(SAMPLE)
    assert list(result.model_scores) == ["judge-a"]
    exclusion = result.exclusions[0]
    assert exclusion.judge_id == "judge-b"
    assert "missing ['two']" in exclusion.message and "three" in exclusion.message


def test_a_label_outside_the_scale_excludes_the_judge(make_container, openai_server):
    script(openai_server, ["one"], ["SUPPORTED"], model="judge-a")
    script(openai_server, ["one"], ["MAYBE"], model="judge-b")
    result = make_container(["judge-a", "judge-b"]).factual_correctness().evaluate(SAMPLE)
    assert list(result.model_scores) == ["judge-a"]
    assert "'MAYBE'" in result.exclusions[0].message


def test_no_claims_is_an_undefined_score_not_zero(make_container, openai_server):
    decomposes(openai_server, "claims", [])
    metric = make_container(["judge-a", "judge-b"]).factual_correctness()
    result = metric.evaluate(SAMPLE, {"mode": "precision"})
    assert result.score is None
    assert "no judge found a claim in the response" in result.undefined_reason
    assert openai_server.count() == 2  # nothing to verify, no verification call
    with pytest.raises(UndefinedScoreError):
        metric.single_turn_score(SAMPLE, {"mode": "precision"})


@pytest.mark.parametrize("field", ["response", "reference"])
@pytest.mark.parametrize("value", [None, "", "   "])
def test_missing_fields_name_the_field_and_mode(make_container, openai_server, field, value):
    sample = SAMPLE.model_copy(update={field: value})
    with pytest.raises(SampleValidationError) as caught:
        make_container().factual_correctness().evaluate(sample)
    assert caught.value.field == field
    assert caught.value.mode == "F1"
    assert openai_server.count() == 0


def test_every_judge_failing_the_decomposition_is_an_error(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(500))
    with pytest.raises(AllJudgesFailedError) as caught:
        make_container(["judge-a"]).factual_correctness().evaluate(SAMPLE)
    assert "Decompose" in str(caught.value)


def test_russian_prompts_and_explanation(make_container, openai_server):
    openai_server.respond(None, SentenceJudge())
    sample = Sample(response="Москва — столица России.", reference="Москва — столица России.")
    result = make_container(["judge-a"]).factual_correctness().evaluate(sample, {"language": "ru"})
    assert result.score == 1.0
    prompts = [r.request.prompt for r in openai_server.requests]
    assert any("Разложите текст" in p for p in prompts)
    assert any("Проверьте каждое утверждение" in p for p in prompts)
    assert "среднее по судьям" in result.explanation


@pytest.mark.asyncio
async def test_async_twin(make_container, openai_server):
    script(openai_server, ["claim one", "claim two"], ["SUPPORTED", "CONTRADICTED"])
    metric = make_container(["judge-a", "judge-b"]).factual_correctness()
    assert await metric.single_turn_ascore(SAMPLE) == pytest.approx(0.5)
