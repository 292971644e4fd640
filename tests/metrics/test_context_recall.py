"""ContextRecall: the Java unit cases on a decompose-then-attribute chain."""

from __future__ import annotations

import pytest
from rag_scripts import decomposes, verdicts

from ragas_boot import AllJudgesFailedError, Sample
from ragas_boot.testing import Reply, asks_for

SAMPLE = Sample(
    user_input="Who was Einstein?",
    reference="Einstein was a physicist. He was born in 1879.",
    retrieved_contexts=["Albert Einstein was a German-born theoretical physicist."],
)


@pytest.mark.parametrize(("labels", "expected"), [([1, 1], 1.0), ([0, 0], 0.0), ([1, 0], 0.5)])
def test_java_unit_cases(make_container, openai_server, labels, expected):
    decomposes(openai_server, "statements", ["s1", "s2"])
    openai_server.when(asks_for("verdicts"), verdicts(labels))
    result = make_container(["judge-a"]).context_recall().evaluate(SAMPLE)
    assert result.score == expected
    assert [s.name for s in result.steps] == ["DecomposeReference", "ClassifyStatements"]
    # The reference is what is decomposed; the contexts are what statements are found in.
    first, second = (r.request.prompt for r in openai_server.requests)
    assert SAMPLE.reference in first
    assert SAMPLE.retrieved_contexts[0] in second


def test_no_reference_statements_is_undefined_not_zero(make_container, openai_server):
    decomposes(openai_server, "statements", [])
    result = make_container(["judge-a"]).context_recall().evaluate(SAMPLE)
    assert result.score is None
    assert "reference" in result.undefined_reason


def test_every_judge_failing_is_an_error(make_container, openai_server):
    decomposes(openai_server, "statements", ["s1"])
    openai_server.when(asks_for("verdicts"), Reply.error(500))
    with pytest.raises(AllJudgesFailedError) as caught:
        make_container(["judge-a", "judge-b"]).context_recall().evaluate(SAMPLE)
    assert "ClassifyStatements" in str(caught.value)
