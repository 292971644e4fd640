"""RubricsScore against scripted judges over real HTTP (the Java unit cases included)."""

from __future__ import annotations

import pytest

from ragas_boot import AllJudgesFailedError, Sample, SampleValidationError
from ragas_boot.metrics.general.rubrics_score import (
    RubricsScoreConfig,
    level_model,
    parse_rubrics,
)
from ragas_boot.testing import Reply, asks_for

FIVE = {f"score{n}_description": f"level {n} text" for n in range(1, 6)}
CONFIG = RubricsScoreConfig(rubrics=FIVE)
SAMPLE = Sample(
    user_input="Explain photosynthesis.",
    response="Plants turn light, water and CO2 into glucose and oxygen in chloroplasts.",
)


def picks(server, level, model=None):
    server.when(asks_for("score"), {"reasoning": f"level {level}", "score": level}, model=model)


@pytest.mark.parametrize(("level", "score"), [(4, 0.75), (5, 1.0), (1, 0.0), (3, 0.5)])
def test_java_unit_levels_as_0_to_1_with_the_raw_level_kept(
    make_container, openai_server, level, score
):
    picks(openai_server, level)
    result = make_container(["judge-a"]).rubrics_score().evaluate(SAMPLE, CONFIG)
    assert result.score == score
    assert result.metadata["level"] == level
    assert result.metadata["levels"] == {"judge-a": level}


def test_java_ge_4_assertion_rewritten(make_container, openai_server):
    # Java: assertThat(rubricsScoreMetric.singleTurnScore(cfg, sample)).isGreaterThanOrEqualTo(4.0)
    picks(openai_server, 4)
    result = make_container(["judge-a"]).rubrics_score().evaluate(SAMPLE, CONFIG)
    assert result.metadata["level"] >= 4
    assert result.score >= 0.75


def test_two_judges_levels_3_and_5(make_container, openai_server):
    picks(openai_server, 3, model="judge-a")
    picks(openai_server, 5, model="judge-b")
    result = make_container(["judge-a", "judge-b"]).rubrics_score().evaluate(SAMPLE, CONFIG)
    assert result.model_scores == {"judge-a": 0.5, "judge-b": 1.0}
    assert result.metadata["level"] == 4.0
    assert result.explanation.startswith("Level 4 of 1–5 (score 0.75 on 0–1)")


def test_a_level_outside_the_rubric_is_invalid_output(make_container, openai_server):
    openai_server.fail_always("judge-a", Reply.json({"reasoning": "x", "score": 7}))
    picks(openai_server, 2, model="judge-b")
    result = make_container(["judge-a", "judge-b"]).rubrics_score().evaluate(SAMPLE, CONFIG)
    assert result.model_scores == {"judge-b": 0.25}
    assert [(e.judge_id, e.kind) for e in result.exclusions] == [("judge-a", "invalid_output")]
    assert level_model((1, 3, 5)).model_json_schema()["properties"]["score"]["enum"] == [1, 3, 5]


def test_rubric_rendered_in_numeric_order_with_reference(make_container, openai_server):
    picks(openai_server, 10)
    rubric = {"score10_description": "ten", "score2_description": "two", "score1": "one"}
    sample = SAMPLE.model_copy(update={"reference": "The textbook answer."})
    result = make_container(["judge-a"]).rubrics_score().evaluate(sample, {"rubrics": rubric})
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert "Score 1: one\nScore 2: two\nScore 10: ten" in prompt
    assert (
        'Reference answer (use it as context):\n<data name="reference">\nThe textbook answer.\n'
        "</data>" in prompt
    )
    assert result.score == 1.0
    assert (result.metadata["min_level"], result.metadata["max_level"]) == (1, 10)


def test_rubric_from_the_sample_when_the_config_has_none(make_container, openai_server):
    picks(openai_server, 1)
    sample = SAMPLE.model_copy(update={"rubrics": {"score1_description": "bad", "score3": "good"}})
    result = make_container(["judge-a"]).rubrics_score().evaluate(sample)
    assert result.metadata["rubrics_source"] == "sample"
    assert result.score == 0.0


def test_no_rubric_anywhere_names_the_field(make_container, openai_server):
    with pytest.raises(SampleValidationError, match="'rubrics'"):
        make_container(["judge-a"]).rubrics_score().evaluate(SAMPLE)
    assert openai_server.count() == 0


@pytest.mark.parametrize(
    ("rubric", "message"),
    [
        ({"score1_description": "only one"}, "at least two levels"),
        ({"invalid_key": "x", "score2": "y"}, "must hold one level number"),
        ({"score1": "a", "level_1": "b"}, "given twice"),
        ({"score1": "a", "score2": " "}, "no description"),
    ],
)
def test_bad_rubrics(rubric, message):
    with pytest.raises(ValueError, match=message):
        parse_rubrics(rubric)
    with pytest.raises(ValueError, match=message):
        RubricsScoreConfig(rubrics=rubric)


def test_bad_sample_rubric_is_a_sample_error(make_container, openai_server):
    sample = SAMPLE.model_copy(update={"rubrics": {"score1": "x"}})
    with pytest.raises(SampleValidationError, match="at least two levels"):
        make_container(["judge-a"]).rubrics_score().evaluate(sample)


def test_integer_yaml_keys_and_unicode(make_container, openai_server):
    picks(openai_server, 2)
    config = RubricsScoreConfig(rubrics={1: "Грубо", 2: "Вежливо"}, language="ru")
    sample = Sample(response="Здравствуйте! Возврат 5500 ₽ оформлен 🙂")
    result = make_container(["judge-a"]).rubrics_score().evaluate(sample, config)
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert "Score 1: Грубо\nScore 2: Вежливо" in prompt
    assert "Ответ:\nЗдравствуйте! Возврат 5500 ₽ оформлен 🙂" in prompt
    assert result.explanation.startswith("Уровень 2 из 1–2")


def test_all_judges_failing(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(503))
    with pytest.raises(AllJudgesFailedError, match="Evaluate"):
        make_container(["judge-a"]).rubrics_score().evaluate(SAMPLE, CONFIG)


@pytest.mark.asyncio
async def test_async_twin(make_container, openai_server):
    picks(openai_server, 5)
    assert await make_container(["judge-a"]).rubrics_score().single_turn_ascore(SAMPLE, CONFIG) == 1
