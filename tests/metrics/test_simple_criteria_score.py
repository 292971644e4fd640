"""SimpleCriteriaScore against scripted judges over real HTTP (the Java unit cases included)."""

from __future__ import annotations

import math

import pytest

from ragas_boot import AllJudgesFailedError, ConfigError, Sample, SampleValidationError
from ragas_boot.metrics.general.simple_criteria_score import (
    SimpleCriteriaScoreConfig,
    normalize,
)
from ragas_boot.testing import Reply, asks_for

SAMPLE = Sample(
    user_input="What is 15 x 12?",
    response="15 x 12 = 180.",
)
ACCURATE = SimpleCriteriaScoreConfig(definition="Is the arithmetic correct?")


def scores(server, value, model=None, times=None):
    server.when(
        asks_for("score"),
        {"reasoning": f"raw {value}", "score": value},
        model=model,
        times=times,
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [(5.0, 1.0), (0.0, 0.0), (2.5, 0.5), (10.0, 1.0), (-3, 0.0), (4, 0.8)],
)
def test_java_unit_scores_on_the_default_0_to_5_scale(make_container, openai_server, raw, expected):
    scores(openai_server, raw)
    metric = make_container(["judge-a"]).simple_criteria_score()
    result = metric.evaluate(SAMPLE, ACCURATE)
    assert result.score == pytest.approx(expected)
    assert result.metadata["raw_scores"] == {"judge-a": [raw]}


def test_null_score_is_the_judges_failure_not_a_zero(make_container, openai_server):
    openai_server.fail_always(None, Reply.json({"reasoning": "?", "score": None}))
    with pytest.raises(AllJudgesFailedError):
        make_container(["judge-a"]).simple_criteria_score().evaluate(SAMPLE, ACCURATE)


def test_scale_and_reference_in_the_prompt(make_container, openai_server):
    scores(openai_server, 5)
    sample = SAMPLE.model_copy(update={"reference": "180"})
    config = ACCURATE.model_copy(update={"min_score": 1.0, "max_score": 5.0})
    result = make_container(["judge-a"]).simple_criteria_score().evaluate(sample, config)
    assert result.score == 1.0
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert "Scale: from 1 (does not meet the criterion at all) to 5 (fully meets it)" in prompt
    # The instruction is outside the reference's block: only the sample text is data.
    assert (
        'Compare the response with this reference answer:\n<data name="reference">\n180\n</data>'
        in prompt
    )
    assert result.explanation.startswith("Score 1.00 on the 1–5 scale")


def test_no_reference_no_reference_wording(make_container, openai_server):
    scores(openai_server, 3)
    make_container(["judge-a"]).simple_criteria_score().evaluate(SAMPLE, ACCURATE)
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert "reference" not in prompt.lower()


def test_median_of_repeats_per_judge_and_raw_scores_kept(make_container, openai_server):
    for raw in (1, 5, 4):
        scores(openai_server, raw, model="judge-a", times=1)
    scores(openai_server, 2, model="judge-b")
    config = ACCURATE.model_copy(update={"strictness": 3, "min_score": 1.0, "max_score": 5.0})
    result = make_container(["judge-a", "judge-b"]).simple_criteria_score().evaluate(SAMPLE, config)
    assert openai_server.count() == 6
    assert sorted(result.metadata["raw_scores"]["judge-a"]) == [1, 4, 5]
    assert result.model_scores == {"judge-a": 0.75, "judge-b": 0.25}
    assert result.score == pytest.approx(0.5)


def test_normalize_clamps_and_handles_non_finite():
    assert normalize(7, 1, 5) == 1.0
    assert normalize(0, 1, 5) == 0.0
    assert normalize(3, 1, 5) == 0.5
    assert normalize(math.nan, 1, 5) == 0.0
    assert normalize(math.inf, 1, 5) == 0.0


@pytest.mark.parametrize(("low", "high"), [(5, 5), (10, 5)])
def test_scale_must_rise(low, high):
    with pytest.raises(ValueError, match="must be less than max-score"):
        SimpleCriteriaScoreConfig(definition="x", min_score=low, max_score=high)


def test_scale_checked_after_merging_with_yaml_defaults(make_container, openai_server):
    extra = "spring.ai.ragas.metrics.simple-criteria-score: {min-score: 4, max-score: 10}\n"
    metric = make_container(["judge-a"], extra=extra).simple_criteria_score()
    with pytest.raises(ConfigError, match="must be less than max-score"):
        metric.evaluate(SAMPLE, {"definition": "x", "max-score": 3})
    assert openai_server.count() == 0


def test_missing_definition_and_missing_response(make_container, openai_server):
    metric = make_container(["judge-a"]).simple_criteria_score()
    with pytest.raises(ConfigError, match=r"simple-criteria-score\.definition"):
        metric.evaluate(SAMPLE)
    with pytest.raises(SampleValidationError, match="'response'"):
        metric.evaluate(Sample(user_input="q"), ACCURATE)


def test_russian_prompt_and_explanation(make_container, openai_server):
    scores(openai_server, 4)
    config = ACCURATE.model_copy(
        update={"language": "ru", "definition": "Указана точная сумма возврата"}
    )
    sample = Sample(user_input="Где мой возврат?", response="Возврат 5500 руб. оформлен.")
    result = make_container(["judge-a"]).simple_criteria_score().evaluate(sample, config)
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert "Критерий: Указана точная сумма возврата" in prompt
    assert "Запрос пользователя:\nГде мой возврат?" in prompt
    assert result.explanation.startswith("Оценка 0.80 по шкале 0–5")


@pytest.mark.asyncio
async def test_async_twin(make_container, openai_server):
    scores(openai_server, 5)
    metric = make_container(["judge-a"]).simple_criteria_score()
    assert await metric.single_turn_ascore(SAMPLE, ACCURATE) == 1.0
