"""The ToolCallAccuracy bean: seeds' examples through the container, breakdown, errors."""

from __future__ import annotations

import asyncio

import pytest

from ragas_boot import AIMessage, HumanMessage, Sample, SampleValidationError, ToolCall
from ragas_boot.metrics import ToolCallAccuracyConfig, ToolCallAccuracyMetric

PERFECT = Sample(
    tool_calls=[
        ToolCall("search_flights", {"destination": "Париж", "date": "2024-01-15"}),
        ToolCall("book_flight", {"flight_id": "AF123", "passenger": "Иван Иванов"}),
    ],
    reference_tool_calls=[
        ToolCall("search_flights", {"destination": "Париж", "date": "2024-01-15"}),
        ToolCall("book_flight", {"flight_id": "AF123", "passenger": "Иван Иванов"}),
    ],
)

TOKYO = Sample(
    tool_calls=[ToolCall("get_weather", {"city": "Токио", "units": "celsius"})],
    reference_tool_calls=[ToolCall("get_weather", {"city": "Токио", "units": "fahrenheit"})],
)

TPMJS = Sample(
    reference_tool_calls=[
        ToolCall("searchWeb", {"query": "AI news"}),
        ToolCall("summarize", {"text": "long article..."}),
    ],
    tool_calls=[
        ToolCall("searchWeb", {"query": "AI news"}),
        ToolCall("summarize", {"text": "different text"}),
        ToolCall("translateText", {"text": "hello", "to": "es"}),
    ],
)


@pytest.fixture
def metric(make_container):
    return make_container(["judge-a"]).tool_call_accuracy()


def test_seed_perfect_strict(metric):
    assert metric.single_turn_score(PERFECT, ToolCallAccuracyConfig(mode="STRICT")) >= 0.99


def test_seed_flexible_with_threshold_half(metric):
    config = ToolCallAccuracyConfig(mode="FLEXIBLE", argument_match_threshold=0.5)
    assert metric.single_turn_score(TOKYO, config) >= 0.5
    assert metric.single_turn_score(TOKYO, config) == 1.0
    assert metric.single_turn_score(TOKYO) == 0.0  # STRICT by default


def test_tpmjs_example_follows_its_formula_not_its_readme(metric):
    result = metric.evaluate(TPMJS)
    assert result.score == pytest.approx(0.4)  # P = 1/3, R = 1/2 (README prints 0.667)
    meta = result.metadata
    assert (meta["precision"], meta["recall"]) == (pytest.approx(1 / 3), 0.5)
    assert len(meta["correct"]) == 1
    assert [item["actual"]["name"] for item in meta["incorrect"]] == ["summarize"]
    assert meta["missed"] == []
    assert [item["call"]["name"] for item in meta["extra"]] == ["translateText"]
    assert meta["summary"] == "Accuracy 40.0% | Correct 1/2 | Incorrect 1 | Missed 0 | Extra 1"
    assert result.model_scores == {}
    assert result.aggregation == "NONE"
    assert result.judge_ids == []


def test_calls_are_taken_from_the_messages_when_tool_calls_is_absent(metric):
    sample = Sample(
        user_input_messages=[
            HumanMessage("weather?"),
            AIMessage("", [ToolCall("get_weather", {"city": "Tokyo"})]),
        ],
        reference_tool_calls=[ToolCall("get_weather", {"city": "Tokyo"})],
    )
    assert metric.evaluate(sample).score == 1.0
    no_calls = Sample(
        user_input_messages=[HumanMessage("weather?"), AIMessage("Sunny.")],
        reference_tool_calls=[ToolCall("get_weather", {"city": "Tokyo"})],
    )
    assert metric.evaluate(no_calls).score == 0.0


def test_missing_fields_are_named(metric):
    with pytest.raises(SampleValidationError) as error:
        metric.evaluate(Sample(tool_calls=[ToolCall("a")]))
    assert error.value.field == "reference_tool_calls"
    assert error.value.mode == "STRICT"
    with pytest.raises(SampleValidationError) as error:
        metric.evaluate(Sample(reference_tool_calls=[ToolCall("a")]))
    assert error.value.field == "tool_calls"


def test_no_judge_is_called_and_no_loop_is_needed(metric, openai_server):
    assert metric.evaluate(PERFECT).score == 1.0
    assert asyncio.run(metric.multi_turn_ascore(PERFECT)) == 1.0
    assert openai_server.count() == 0


def test_built_by_hand_without_a_container():
    metric = ToolCallAccuracyMetric(defaults=ToolCallAccuracyConfig(mode="flexible"))
    assert metric.evaluate(TOKYO, {"argument_match_threshold": 0.5}).score == 1.0
    assert metric.evaluate(TOKYO).score == 0.0  # FLEXIBLE at the default 0.8


def test_the_russian_explanation_is_russian(metric):
    explanation = metric.evaluate(TPMJS, {"language": "ru"}).explanation
    assert explanation.startswith("Точность 40.0% | Верно 1/2 | Неверно 1 | Пропущено 0 | Лишние 1")
    assert "Accuracy" not in explanation


def test_match_exposes_the_matching_behind_the_score(metric):
    matching = metric.match(TPMJS)
    assert matching.f1 == pytest.approx(metric.evaluate(TPMJS).score)
    assert [item.call.name for item in matching.extra] == ["translateText"]
    flexible = metric.match(
        TOKYO, ToolCallAccuracyConfig(mode="flexible", argument_match_threshold=0.5)
    )
    assert flexible.true_positives == 1
    with pytest.raises(SampleValidationError, match="reference_tool_calls"):
        metric.match(Sample(tool_calls=[]))


@pytest.mark.parametrize("config", [None, ToolCallAccuracyConfig(mode="flexible")])
@pytest.mark.parametrize("sample", [PERFECT, TOKYO, TPMJS], ids=["perfect", "tokyo", "tpmjs"])
def test_the_score_alone_is_the_scored_results_score(sample, config):
    # multi_turn_score of a bean nobody listens to stops at the score; it must be the same.
    metric = ToolCallAccuracyMetric()
    assert metric.multi_turn_score(sample, config) == metric.evaluate(sample, config).score


def test_the_score_alone_still_names_a_missing_field():
    with pytest.raises(SampleValidationError, match="reference_tool_calls"):
        ToolCallAccuracyMetric().multi_turn_score(Sample(tool_calls=[]))


def test_one_config_object_reused_gives_equal_results_each_with_its_own_config_dump():
    metric = ToolCallAccuracyMetric()
    config = ToolCallAccuracyConfig(mode="flexible", models=["a"])
    first, second = metric.evaluate(TOKYO, config), metric.evaluate(TOKYO, config)
    timings = {"duration_s": True, "steps": {"__all__": {"duration_s"}}}
    assert first.model_dump(exclude=timings) == second.model_dump(exclude=timings)
    assert first.config["mode"] == "FLEXIBLE" and first.config["models"] == ["a"]
    first.config["models"].append("changed")
    assert metric.evaluate(TOKYO, config).config["models"] == ["a"]


def test_a_mapping_config_changed_between_calls_is_read_again():
    metric = ToolCallAccuracyMetric()
    config = {"mode": "strict"}
    strict = metric.evaluate(TOKYO, config)
    config["mode"] = "flexible"
    flexible = metric.evaluate(TOKYO, config)
    assert (strict.config["mode"], flexible.config["mode"]) == ("STRICT", "FLEXIBLE")
