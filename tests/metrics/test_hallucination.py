"""Hallucination: lower is better; claims labelled SUPPORTED/CONTRADICTED/HALLUCINATED."""

from __future__ import annotations

import pytest
from rag_scripts import decomposes, verdicts

from ragas_boot import Sample
from ragas_boot.runs import evaluate_dataset
from ragas_boot.testing import asks_for

SAMPLE = Sample(
    user_input="What does the tower look like?",
    response="It is made of iron. It is blue. It is 900 m tall.",
    retrieved_contexts=["The tower is made of wrought iron and is 330 m tall."],
)


@pytest.mark.parametrize(
    ("labels", "expected"),
    [
        (["SUPPORTED", "HALLUCINATED", "CONTRADICTED"], 2 / 3),
        (["SUPPORTED", "SUPPORTED", "SUPPORTED"], 0.0),
        (["hallucinated", "contradicted", "HALLUCINATED"], 1.0),
    ],
)
def test_share_of_unsupported_claims(make_container, openai_server, labels, expected):
    decomposes(openai_server, "statements", ["c1", "c2", "c3"])
    openai_server.when(asks_for("verdicts"), verdicts(labels))
    result = make_container(["judge-a"]).hallucination().evaluate(SAMPLE)
    assert result.score == pytest.approx(expected)
    assert result.lower_is_better
    assert [s.name for s in result.steps] == ["ExtractClaims", "DetectHallucinations"]


def test_a_run_passes_a_lower_is_better_metric_at_or_below_its_threshold(
    make_container, openai_server
):
    decomposes(openai_server, "statements", ["c1", "c2", "c3", "c4"])
    openai_server.when(
        asks_for("verdicts"), verdicts(["SUPPORTED", "SUPPORTED", "SUPPORTED", "HALLUCINATED"])
    )
    metric = make_container(["judge-a"]).hallucination()
    run = evaluate_dataset([SAMPLE], [metric], configs={"hallucination": {"threshold": 0.3}})
    (evaluation,) = run.samples[0].evaluations
    assert evaluation.score == 0.25 and evaluation.passed is True
    (summary,) = run.metric_summaries
    assert summary.lower_is_better and summary.passed == 1
    run = evaluate_dataset([SAMPLE], [metric], configs={"hallucination": {"threshold": 0.2}})
    assert run.samples[0].evaluations[0].passed is False
