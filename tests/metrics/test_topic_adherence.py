"""TopicAdherence against scripted judges over real HTTP (the seeds' examples included)."""

from __future__ import annotations

import pytest

from ragas_boot import (
    AIMessage,
    AllJudgesFailedError,
    HumanMessage,
    Sample,
    SampleValidationError,
    UndefinedScoreError,
)
from ragas_boot.metrics import TopicAdherenceConfig
from ragas_boot.metrics.agent.topic_adherence import classification_model
from ragas_boot.testing import Reply

ML = Sample(
    user_input_messages=[
        HumanMessage("Хочу узнать о машинном обучении"),
        AIMessage("Машинное обучение - это раздел ИИ, позволяющий системам учиться на данных."),
        HumanMessage("Какие основные типы?"),
        AIMessage("Основные типы: обучение с учителем, без учителя и с подкреплением."),
    ],
    reference_topics=[
        "машинное обучение",
        "искусственный интеллект",
        "обучение с учителем",
        "обучение без учителя",
    ],
)

PYTHON_FOOTBALL = Sample(
    user_input_messages=[
        HumanMessage("Расскажите о программировании на Python"),
        AIMessage("Python - это язык программирования. Кстати, вы знаете о последнем матче?"),
        HumanMessage("Что там с футболом?"),
        AIMessage("Финал Чемпионата мира был потрясающим! Счёт 3-2."),
    ],
    reference_topics=["программирование на Python", "программирование", "разработка ПО"],
)


def script(server, topics, verdicts, models=(None,)):
    """Every judge extracts ``topics`` and classifies them with ``verdicts``."""
    for model in models:
        server.when(
            lambda r: "Topics found" not in r.prompt and "topics" in r.prompt,
            {"topics": topics},
            model=model,
        )
        server.when(
            lambda r: "Topics found" in r.prompt or "Темы, найденные" in r.prompt,
            {"classifications": verdicts},
            model=model,
        )


def verdict(topic, on_topic, matched=None, reason="because"):
    return {
        "topic": topic,
        "on_topic": on_topic,
        "matched_reference_topic": matched,
        "reason": reason,
    }


def test_seed_on_topic_conversation_scores_high(make_container, openai_server):
    script(
        openai_server,
        ["машинное обучение", "типы обучения", "обучение с учителем", "обучение без учителя"],
        [
            verdict("машинное обучение", True, "машинное обучение"),
            verdict("типы обучения", True, "машинное обучение"),
            verdict("обучение с учителем", True, "обучение с учителем"),
            verdict("обучение без учителя", True, "обучение без учителя"),
        ],
    )
    metric = make_container().topic_adherence()
    score = metric.multi_turn_score(ML, TopicAdherenceConfig(mode="F1"))
    # precision 4/4, recall 3/4 -> F1 0.857
    assert score >= 0.7
    assert score == pytest.approx(2 * 1 * 0.75 / 1.75)


def test_seed_off_topic_precision_is_low(make_container, openai_server):
    script(
        openai_server,
        ["Python programming", "football match", "World Cup final"],
        [
            verdict("Python programming", True, "программирование на Python"),
            verdict("football match", False),
            verdict("World Cup final", False),
        ],
    )
    result = (
        make_container()
        .topic_adherence()
        .evaluate(PYTHON_FOOTBALL, TopicAdherenceConfig(mode="precision"))
    )
    assert result.score <= 0.6
    assert result.score == pytest.approx(1 / 3)
    detail = result.metadata["judges"]["judge-a"]
    assert detail["covered"] == ["программирование на Python"]
    assert detail["recall"] == pytest.approx(1 / 3)


def test_classification_is_one_call_per_judge_with_a_length_pinned_schema(
    make_container, openai_server
):
    script(openai_server, ["a", "b"], [verdict("a", True, "x"), verdict("b", False)])
    make_container(["judge-a"]).topic_adherence().evaluate(
        Sample(user_input_messages=[HumanMessage("q")], reference_topics=["x"])
    )
    requests = openai_server.requests_for("judge-a")
    assert len(requests) == 2
    schema = requests[1].request.json_schema
    items = schema["properties"]["classifications"]
    assert (items["minItems"], items["maxItems"]) == (2, 2)
    model = classification_model(("a", "b"), ("x",))
    assert model is classification_model(("a", "b"), ("x",))
    pinned = model.model_json_schema()["properties"]["classifications"]["prefixItems"]
    assert [item["properties"]["topic"]["const"] for item in pinned] == ["a", "b"]
    assert pinned[0]["properties"]["matched_reference_topic"]["enum"] == ["x", None]
    # The enums guide the judge; a judge that still writes another string is read leniently.
    assert model.model_validate(
        {"classifications": [verdict("A ", True, "X"), verdict("b", False)]}
    )


def test_verdicts_are_matched_by_topic_not_by_position(make_container, openai_server):
    script(
        openai_server,
        ["weather", "support"],
        [verdict("Support", False), verdict("WEATHER ", True, "weather forecasts")],
    )
    result = (
        make_container(["judge-a"])
        .topic_adherence()
        .evaluate(
            Sample(user_input_messages=[HumanMessage("q")], reference_topics=["weather forecasts"])
        )
    )
    detail = result.metadata["judges"]["judge-a"]
    assert [(v["topic"], v["on_topic"]) for v in detail["verdicts"]] == [
        ("weather", True),
        ("support", False),
    ]
    # Java's case: weather on-topic + support off-topic vs one ref, F1 = 0.667.
    assert result.score == pytest.approx(2 / 3)


def test_a_verdict_list_naming_other_topics_is_that_judges_failure(make_container, openai_server):
    script(
        openai_server,
        ["a", "b"],
        [verdict("a", True, "x"), verdict("b", True, "x")],
        models=["judge-a", "judge-b", "judge-c"],
    )
    script(
        openai_server,
        ["a", "b"],
        [verdict("a", True, "x"), verdict("zzz", True, "x")],
        models=["judge-d"],
    )
    result = (
        make_container()
        .topic_adherence()
        .evaluate(Sample(user_input_messages=[HumanMessage("q")], reference_topics=["x"]))
    )
    assert list(result.model_scores) == ["judge-a", "judge-b", "judge-c"]
    (exclusion,) = result.exclusions
    assert exclusion.judge_id == "judge-d"
    assert exclusion.kind == "invalid_output"
    assert "missing ['b']" in exclusion.message and "zzz" in exclusion.message


def test_a_list_of_the_wrong_length_is_that_judges_failure(make_container, openai_server):
    script(openai_server, ["a", "b"], [verdict("a", True, "x")], models=["judge-a"])
    script(
        openai_server,
        ["a", "b"],
        [verdict("a", True, "x"), verdict("b", True, "x")],
        models=["judge-b"],
    )
    result = (
        make_container(["judge-a", "judge-b"])
        .topic_adherence()
        .evaluate(Sample(user_input_messages=[HumanMessage("q")], reference_topics=["x"]))
    )
    assert list(result.model_scores) == ["judge-b"]
    assert result.exclusions[0].judge_id == "judge-a"
    assert "too_short" in result.exclusions[0].message or "at least 2" in (
        result.exclusions[0].message
    )


def test_recall_counts_distinct_reference_topics_and_never_exceeds_one(
    make_container, openai_server
):
    script(
        openai_server,
        ["flights", "trains", "hotels abroad", "visas"],
        [
            verdict("flights", True, "travel"),
            verdict("trains", True, "travel"),
            verdict("hotels abroad", True, "hotels"),
            verdict("visas", True, "immigration law"),  # not a reference topic: covers nothing
        ],
    )
    result = (
        make_container(["judge-a"])
        .topic_adherence()
        .evaluate(
            Sample(
                user_input_messages=[HumanMessage("q")],
                reference_topics=["travel", "hotels", "food"],
            ),
            TopicAdherenceConfig(mode="recall"),
        )
    )
    assert result.score == pytest.approx(2 / 3)
    assert result.metadata["judges"]["judge-a"]["covered"] == ["travel", "hotels"]


def test_no_topics_makes_precision_undefined_and_f1_zero(make_container, openai_server):
    openai_server.when(lambda r: True, {"topics": []})
    metric = make_container(["judge-a"]).topic_adherence()
    sample = Sample(user_input_messages=[HumanMessage("hi")], reference_topics=["x"])
    undefined = metric.evaluate(sample, TopicAdherenceConfig(mode="precision"))
    assert undefined.score is None
    assert "no judge found any topic" in undefined.undefined_reason
    with pytest.raises(UndefinedScoreError, match="precision is undefined"):
        metric.multi_turn_score(sample, TopicAdherenceConfig(mode="precision"))
    assert metric.evaluate(sample).score == 0.0
    assert openai_server.count() == 3  # extraction only: nothing to classify


def test_extraction_failing_everywhere_raises(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(400))
    with pytest.raises(AllJudgesFailedError, match="ExtractTopics"):
        make_container(["judge-a", "judge-b"]).topic_adherence().evaluate(ML)


@pytest.mark.parametrize(
    ("sample", "field"),
    [
        (Sample(reference_topics=["x"]), "user_input_messages"),
        (Sample(user_input_messages=[HumanMessage("q")]), "reference_topics"),
        (
            Sample(user_input_messages=[HumanMessage("q")], reference_topics=[" "]),
            "reference_topics",
        ),
    ],
)
def test_missing_fields_are_named(make_container, openai_server, sample, field):
    with pytest.raises(SampleValidationError) as error:
        make_container(["judge-a"]).topic_adherence().evaluate(sample)
    assert error.value.field == field
    assert error.value.metric == "TopicAdherenceMetric"
    assert openai_server.count() == 0


def test_reference_topics_are_listed_each_with_its_dash(make_container, openai_server):
    script(openai_server, ["a"], [verdict("a", True, "first")])
    make_container(["judge-a"]).topic_adherence().evaluate(
        Sample(user_input_messages=[HumanMessage("q")], reference_topics=["first", "second"])
    )
    prompt = openai_server.requests_for("judge-a")[1].request.prompt
    assert "- first\n- second" in prompt
