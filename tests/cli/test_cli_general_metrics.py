"""``ragas-boot evaluate`` with the general and NLP metrics, and named criteria as --metric."""

from __future__ import annotations

import json
import textwrap

import pytest

from ragas_boot.testing import ChatRequest

DATASET = """\
name: support-answers
samples:
  - id: refund
    user_input: Where is my refund for order 12345?
    response: Your refund of 5500 rub. for order 12345 is processed; expect it in 3-5 days.
    reference: A refund of 5500 rub. for order 12345 arrives in 3-5 business days.
    rubric:
      score1_description: No refund information
      score3_description: Refund confirmed without amount or timeline
      score5_description: Refund confirmed with amount and timeline
  - id: refund-ru
    user_input: Где мой возврат за заказ 12345?
    response: Возврат 5500 руб. по заказу 12345 оформлен, деньги придут за 3-5 дней.
    reference: Возврат 5500 руб. по заказу 12345 поступит в течение 3-5 рабочих дней.
    rubric:
      score1_description: Нет информации о возврате
      score5_description: Возврат подтверждён с суммой и сроком
"""

CRITERIA = """
spring.ai.ragas.metrics:
  logging.enabled: false
  aspect-critic:
    strictness: 3
    criteria:
      no-profanity: {definition: The response contains no profanity.}
      timeline-in-days: {definition: The response gives a timeline in days, strictness: 1}
  simple-criteria-score:
    definition: How specific is the refund amount?
    min-score: 1
    max-score: 5
"""


def answer(request: ChatRequest) -> dict[str, object]:
    if request.asks_for("verdict"):
        return {"reasoning": "fine", "verdict": "days" in request.prompt or "no profanity" in
                request.prompt}  # fmt: skip
    if request.asks_for("level") or request.asks_for("score"):
        schema = (request.json_schema or {})["properties"]["score"]
        return {"reasoning": "r", "score": max(schema.get("enum", [4]))}
    return {"ok": True}


@pytest.fixture
def general_config(tmp_path, openai_server, root_conftest, secret, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", secret)
    path = tmp_path / "application.yaml"
    path.write_text(
        root_conftest.judges_yaml(
            openai_server.base_url, {"local": ["judge-a", "judge-b"]}, textwrap.dedent(CRITERIA)
        ),
        encoding="utf-8",
    )
    openai_server.respond(None, answer)
    return path


@pytest.fixture
def general_dataset(tmp_path):
    path = tmp_path / "dataset.yaml"
    path.write_text(DATASET, encoding="utf-8")
    return path


def test_evaluate_runs_every_new_metric_on_a_dataset(
    run_cli, general_config, general_dataset, openai_server, tmp_path
):
    report = tmp_path / "run.json"
    names = [
        "aspect_critic:no-profanity",
        "aspect_critic:timeline_in_days",
        "simple_criteria_score",
        "rubrics_score",
        "bleu_score",
        "rouge_score",
        "chrf_score",
        "string_similarity",
    ]
    args = [arg for name in names for arg in ("--metric", name)]
    result = run_cli(
        "evaluate", general_dataset, *args, "--config", general_config, "--out", report
    )
    assert result.code == 0, result.err
    assert "2 samples × 8 metrics: 16 scored, 0 undefined, 0 failed" in result.out
    document = json.loads(report.read_text(encoding="utf-8"))
    scores = {
        (sample["sample_id"], evaluation["metric"]): evaluation["score"]
        for sample in document["samples"]
        for evaluation in sample["evaluations"]
    }
    assert scores[("refund", "aspect_critic:no-profanity")] == 1.0
    assert scores[("refund", "rubrics_score")] == 1.0
    assert scores[("refund", "simple_criteria_score")] == pytest.approx(0.75)  # raw 4 on 1-5
    assert 0 < scores[("refund-ru", "rouge_score")] < 1
    # no-profanity: 2 judges x strictness 3; timeline: 2 x 1; simple: 2; rubrics: 2 — per sample
    assert openai_server.count() == 2 * (6 + 2 + 2 + 2)


def test_an_undeclared_criterion_lists_the_declared_ones(
    run_cli, general_config, general_dataset, openai_server
):
    result = run_cli(
        "evaluate", general_dataset, "--metric", "aspect_critic:polite", "--config", general_config
    )
    assert result.code != 0
    assert "criterion 'polite' of AspectCriticMetric is not declared" in result.err
    assert "declared: no-profanity, timeline-in-days" in result.err
    assert "Traceback" not in result.err
    assert openai_server.count() == 0


def test_compare_without_metric_runs_the_declared_criteria(
    run_cli, general_config, general_dataset
):
    result = run_cli("compare", general_dataset, "--config", general_config)
    assert "aspect_critic:no-profanity" in result.out
    assert "aspect_critic:timeline-in-days" in result.out
    assert "│ aspect_critic " not in result.out


def test_config_check_builds_each_named_criterion(run_cli, tmp_path, root_conftest, secret,
                                                  openai_server, monkeypatch):  # fmt: skip
    monkeypatch.setenv("JUDGE_KEY", secret)
    extra = """
spring.ai.ragas.metrics.simple-criteria-score:
  min-score: 4
  criteria:
    low: {definition: x, max-score: 3}
"""
    path = tmp_path / "application.yaml"
    path.write_text(
        root_conftest.judges_yaml(openai_server.base_url, {"local": ["judge-a"]}, extra),
        encoding="utf-8",
    )
    result = run_cli("config", "check", "--config", path)
    assert result.code != 0
    assert "simple-criteria-score.criteria.low" in result.err
    assert "must be less than max-score" in result.err
