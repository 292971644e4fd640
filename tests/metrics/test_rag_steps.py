"""The shared steps' pure parts: verdict alignment, pinned schemas, AP, noise algebra, ratings."""

from __future__ import annotations

import pytest

from ragas_boot import Sample
from ragas_boot.metrics.base import Metric
from ragas_boot.metrics.nvidia.response_groundedness import verbatim_in_contexts
from ragas_boot.metrics.registry import metric_class
from ragas_boot.metrics.response.factual_correctness import CLAIM_VERDICTS
from ragas_boot.metrics.retrieval.context_precision import average_precision
from ragas_boot.metrics.retrieval.faithfulness import FAITHFUL_VERDICTS
from ragas_boot.metrics.retrieval.noise_sensitivity import (
    TRUTH_VERDICTS,
    NoiseSensitivityMode,
    noise_sensitivity,
)
from ragas_boot.metrics.steps import (
    Rating,
    align_verdicts,
    clean_items,
    rating_model,
    verdict_model,
)
from ragas_boot.metrics.steps.verdicts import VerdictItem
from ragas_boot.testing.rag_judge import prompt_sections, sentences


def item(statement, verdict, reason="r"):
    return VerdictItem(statement=statement, reason=reason, verdict=verdict)


def test_verdicts_align_by_statement_in_any_order_and_case():
    aligned = align_verdicts(
        ["Paris is in France.", "The tower is 330 m tall."],
        [item("the tower is  330 m tall.", 0), item("PARIS IS IN FRANCE.", 1)],
        FAITHFUL_VERDICTS,
    )
    assert [(v.statement, v.verdict, v.positive) for v in aligned] == [
        ("Paris is in France.", 1, True),
        ("The tower is 330 m tall.", 0, False),
    ]


@pytest.mark.parametrize(
    ("items", "words"),
    [
        ([item("a", 1)], ["missing ['b']"]),
        ([item("a", 1), item("c", 1)], ["missing ['b']", "unexpected ['c']"]),
        ([item("a", 1), item("b", 2)], ["2", "not one of 1, 0"]),
        ([item("a", 1), item("b", True)], ["True", "not one of"]),  # a bool is not the int 1
    ],
)
def test_a_misaligned_or_off_scale_answer_says_why(items, words):
    message = align_verdicts(["a", "b"], items, FAITHFUL_VERDICTS)
    assert isinstance(message, str)
    for word in words:
        assert word in message


@pytest.mark.parametrize(
    ("scale", "value", "label"),
    [
        (CLAIM_VERDICTS, " supported", "SUPPORTED"),
        (CLAIM_VERDICTS, "Neutral", "NEUTRAL"),
        (CLAIM_VERDICTS, "yes", None),
        (FAITHFUL_VERDICTS, "1", 1),
        (FAITHFUL_VERDICTS, 0, 0),
        (FAITHFUL_VERDICTS, False, None),
        (TRUTH_VERDICTS, "TRUE", True),
        (TRUTH_VERDICTS, False, False),
        (TRUTH_VERDICTS, 1, None),
    ],
)
def test_scales_read_labels_leniently_but_exactly(scale, value, label):
    assert scale.read(value) == label


def test_the_verdict_schema_pins_one_item_per_statement():
    model = verdict_model(("Ёлка — дерево.", "b"), CLAIM_VERDICTS)
    assert model is verdict_model(("Ёлка — дерево.", "b"), CLAIM_VERDICTS)
    schema = model.model_json_schema()["properties"]["verdicts"]
    assert (schema["minItems"], schema["maxItems"]) == (2, 2)
    assert [i["properties"]["statement"]["const"] for i in schema["prefixItems"]] == [
        "Ёлка — дерево.",
        "b",
    ]
    assert schema["prefixItems"][0]["properties"]["verdict"]["enum"] == [
        "SUPPORTED",
        "CONTRADICTED",
        "NEUTRAL",
    ]
    assert list(schema["prefixItems"][0]["properties"]) == ["statement", "reason", "verdict"]
    with pytest.raises(ValueError, match="at least 2"):
        model.model_validate({"verdicts": [{"statement": "b", "reason": "", "verdict": "x"}]})


def test_clean_items_drops_blanks_and_duplicates():
    assert clean_items(["  a  b ", "", "A B", "c", "   "]) == ["a b", "c"]


@pytest.mark.parametrize(
    ("relevant", "expected"),
    [
        ([True, False, True], (1 + 2 / 3) / 2),
        ([False, True], 0.5),
        ([False, False, True], 1 / 3),
        ([True, True, False], 1.0),
        ([False, False], 0.0),
        ([], 0.0),
    ],
)
def test_average_precision_worked_examples(relevant, expected):
    assert average_precision(relevant) == pytest.approx(expected)


def test_noise_sensitivity_worked_example():
    # Reference R1, R2; response A1 (correct), A2 (wrong); C1 supports R1 and A1, C2 only A2.
    correct = [True, False]
    reference_in = [[True, False], [False, False]]
    answer_in = [[True, False], [False, True]]
    relevant = noise_sensitivity(NoiseSensitivityMode.RELEVANT, correct, reference_in, answer_in)
    irrelevant = noise_sensitivity(
        NoiseSensitivityMode.IRRELEVANT, correct, reference_in, answer_in
    )
    assert (relevant, irrelevant) == (0.0, 0.5)
    # The wrong statement supported by the relevant context counts in RELEVANT mode.
    assert noise_sensitivity(
        NoiseSensitivityMode.RELEVANT, correct, reference_in, [[True, False], [True, False]]
    ) == pytest.approx(0.5)


@pytest.mark.parametrize(
    ("raw", "score", "clamped"),
    [(2, 1.0, False), (1, 0.5, False), (0, 0.0, False), (5, 1.0, True), (-1, 0.0, True)],
)
def test_ratings_normalise_and_clamp(raw, score, clamped):
    rating = Rating(raw=raw, maximum=2, reason="r")
    assert (rating.score, rating.clamped) == (score, clamped)


def test_rating_schema_bounds_the_rating_and_puts_the_reason_first():
    schema = rating_model(2).model_json_schema()
    assert list(schema["properties"]) == ["reason", "rating"]
    assert (
        schema["properties"]["rating"]["minimum"],
        schema["properties"]["rating"]["maximum"],
    ) == (0, 2)


@pytest.mark.parametrize(
    ("response", "found"),
    [
        ("capital", True),
        ("Paris is the capital of France.", True),
        ("  PARIS   is the capital ", True),
        ("not", False),  # inside "cannot": the Java substring test said yes
        ("", False),
        ("Berlin", False),
    ],
)
def test_groundedness_heuristic_matches_whole_words(response, found):
    assert (
        verbatim_in_contexts(response, ["Paris is the capital of France. It cannot move."]) is found
    )


@pytest.mark.parametrize(
    ("bean", "sample", "readable"),
    [
        ("faithfulness", Sample(user_input="q", response="r", retrieved_contexts=["c"]), True),
        ("faithfulness", Sample(user_input="q", response="r"), False),
        ("context_precision", Sample(user_input="q", response="r", retrieved_contexts=["c"]), True),
        ("context_precision", Sample(user_input="q", retrieved_contexts=["c"]), False),
        ("context_entity_recall", Sample(reference="  ", retrieved_contexts=["c"]), False),
    ],
)
def test_can_read_follows_the_declared_fields(bean, sample, readable):
    cls: type[Metric] = metric_class(bean)  # type: ignore[type-arg]
    assert cls.can_read(sample) is readable


def test_sentence_judge_reads_the_shipped_prompts():
    assert sentences("One. Two!\nThree? ") == ["One.", "Two!", "Three?"]
    sections = prompt_sections(
        "Intro\n\nQuestion:\nq?\n\nContext:\na\n\nb\n\nStatements (2):\n1. x\nFor EACH one"
    )
    assert sections == {"question": "q?", "context": "a\n\nb"}
