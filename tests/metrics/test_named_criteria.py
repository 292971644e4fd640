"""Named criteria in YAML: each its own bean, validated at load, an error listing the declared."""

from __future__ import annotations

import pytest

from ragas_boot import ConfigError, Sample
from ragas_boot.metrics.general.aspect_critic import AspectCriticMetric
from ragas_boot.testing import asks_for

CRITERIA = """
spring.ai.ragas.metrics:
  aspect-critic:
    strictness: 3
    criteria:
      no-profanity:
        definition: The response contains no profanity.
      exact-amount: {definition: "The exact refund amount with its currency", strictness: 1}
  simple-criteria-score:
    criteria:
      amount-specificity: {definition: "How specific is the amount?", min-score: 1, max-score: 5}
  rubrics-score:
    language: ru
    criteria:
      tone:
        rubrics: {score1_description: rude, score3_description: neutral, score5_description: warm}
"""

SAMPLE = Sample(user_input="Refund?", response="Your refund of 5500 rub. is on its way.")


def test_each_criterion_is_its_own_bean(make_container, openai_server):
    container = make_container(["judge-a", "judge-b"], extra=CRITERIA)
    bean = container.metric("aspect_critic", "no-profanity")
    assert isinstance(bean, AspectCriticMetric)
    assert bean.criterion == "no-profanity"
    assert bean is container.metric("aspect_critic:no_profanity")
    assert bean is container.metric(AspectCriticMetric, "NO-PROFANITY")
    assert bean is container.aspect_critic__no_profanity()
    assert bean is not container.metric("aspect_critic", "exact-amount")
    assert bean.defaults.strictness == 3  # from the section's defaults
    assert container.metric("aspect_critic", "exact-amount").defaults.strictness == 1
    assert container.metric("simple_criteria_score:amount-specificity").defaults.max_score == 5
    assert container.metric("rubrics_score", "tone").defaults.language == "ru"  # inherited
    assert container.aspect_critic().criterion is None


def test_a_criterion_bean_scores_with_its_definition(make_container, openai_server):
    openai_server.when(asks_for("verdict"), {"reasoning": "ok", "verdict": True})
    container = make_container(["judge-a", "judge-b"], extra=CRITERIA)
    result = container.metric("aspect_critic", "no-profanity").evaluate(SAMPLE)
    assert result.score == 1.0
    assert result.metadata["criterion"] == "no-profanity"
    assert result.metadata["definition"] == "The response contains no profanity."
    assert openai_server.count() == 6  # 2 judges x strictness 3
    prompt = openai_server.requests[0].request.prompt
    assert "Criterion: The response contains no profanity." in prompt


def test_an_undeclared_criterion_lists_the_declared_ones(make_container):
    container = make_container(["judge-a"], extra=CRITERIA)
    with pytest.raises(ConfigError) as error:
        container.metric("aspect_critic", "no-profanty")
    message = str(error.value)
    assert "criterion 'no-profanty' of AspectCriticMetric is not declared" in message
    assert "declared: no-profanity, exact-amount" in message
    assert "Did you mean 'no-profanity'?" in message
    assert "spring.ai.ragas.metrics.aspect-critic.criteria" in message
    with pytest.raises(ConfigError, match=r"declared: none"):
        make_container(["judge-a"]).metric("aspect_critic:no-profanity")


def test_a_metric_without_criteria_says_so(make_container):
    with pytest.raises(ConfigError, match="ToolCallAccuracyMetric has no named criteria"):
        make_container(["judge-a"]).metric("tool_call_accuracy:strict")


@pytest.mark.parametrize(
    ("section", "key"),
    [
        ("aspect-critic: {criteria: {x: {definiton: typo}}}", "aspect-critic.criteria.x"),
        ("aspect-critic: {criteria: {x: {definition: ''}}}", "aspect-critic.criteria.x"),
        ("aspect-critic: {criteria: {x: {strictness: 7}}}", "aspect-critic.criteria.x"),
        ("rubrics-score: {criteria: {t: {rubrics: {score1: a}}}}", "rubrics-score.criteria.t"),
        ("aspect-critic: {criteria: {'bad name': {definition: x}}}", "aspect-critic.criteria"),
        ("tool-call-accuracy: {criteria: {x: {}}}", "tool-call-accuracy.criteria"),
    ],
)
def test_bad_criteria_fail_at_load_naming_the_key(make_settings, section, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        make_settings(["judge-a"], extra=f"spring.ai.ragas.metrics.{section}\n")


def test_a_criterion_is_checked_merged_with_the_section(make_container):
    extra = """
spring.ai.ragas.metrics.simple-criteria-score:
  min-score: 4
  max-score: 10
  criteria:
    low: {definition: x, max_score: 3}
"""
    container = make_container(["judge-a"], extra=extra)
    with pytest.raises(ConfigError) as error:
        container.metric("simple_criteria_score", "low")
    assert "simple-criteria-score.criteria.low" in str(error.value)
    assert "must be less than max-score" in str(error.value)
