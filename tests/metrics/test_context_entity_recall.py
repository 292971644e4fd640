"""ContextEntityRecall: the Java unit cases; both extractions sent at once."""

from __future__ import annotations

import pytest

from ragas_boot import Sample
from ragas_boot.testing import Reply, asks_for

SAMPLE = Sample(
    reference="The Eiffel Tower in Paris, France, was completed in 1889.",
    retrieved_contexts=["The tower in Paris opened in 1889.", "France is in Europe."],
)


def entities(reference, contexts, model=None):
    def reply(request):
        return {"entities": reference if SAMPLE.reference in request.prompt else contexts}

    return reply


@pytest.mark.parametrize(
    ("reference", "contexts", "expected"),
    [
        (["Paris", "France", "1889"], ["Paris", "France", "1889"], 1.0),
        (["Paris", "France"], ["PARIS", " france "], 1.0),
        (["Paris", "France", "1889"], ["Paris"], 1 / 3),
        (["Paris", "Paris", ""], ["Paris"], 1.0),  # duplicates and blanks dropped
    ],
)
def test_java_unit_cases(make_container, openai_server, reference, contexts, expected):
    openai_server.when(asks_for("entities"), entities(reference, contexts))
    result = make_container(["judge-a"]).context_entity_recall().evaluate(SAMPLE)
    assert result.score == pytest.approx(expected)
    assert result.metadata["levels"] == [["ExtractReferenceEntities", "ExtractContextEntities"]]


def test_a_reference_without_entities_is_undefined(make_container, openai_server):
    openai_server.when(asks_for("entities"), entities([], ["Paris"]))
    result = make_container(["judge-a"]).context_entity_recall().evaluate(SAMPLE)
    assert result.score is None
    assert "no judge found an entity in the reference" in result.undefined_reason


def test_a_judge_failing_one_extraction_is_excluded(make_container, openai_server):
    openai_server.when(lambda r: "Europe" in r.prompt, Reply.error(500), model="judge-b")
    openai_server.when(asks_for("entities"), entities(["Paris"], ["Paris"]))
    result = make_container(["judge-a", "judge-b"]).context_entity_recall().evaluate(SAMPLE)
    assert result.model_scores == {"judge-a": 1.0}
    assert result.exclusions[0].step == "ExtractContextEntities"
    assert openai_server.count("judge-a") == 2
