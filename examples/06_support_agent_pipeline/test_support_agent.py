"""The gigachat-demo's two pipelines on one Russian refund conversation.

Pipeline 1, "with references": the expected tool calls, outcome and topics are known.
Pipeline 2, "production sampling": a conversation sampled from production, no references.
The yes/no checks, scales and rubric are named criteria of ``application.yaml``, handed out as
fixtures (``aspect_critic__no_profanity``) or by name (``ragas_metric("aspect_critic:...")``).
"""

from __future__ import annotations

import pytest

from ragas_boot import AIMessage, HumanMessage, Sample, ToolCall, ToolMessage
from ragas_boot.metrics import AgentGoalAccuracyConfig
from ragas_boot.testing import assert_score

CONVERSATION = [
    HumanMessage("Здравствуйте! Мой заказ 12345 так и не пришёл. Что с ним?"),
    AIMessage(
        "Сейчас проверю статус заказа.",
        [ToolCall("get_order_status", {"order_id": "12345"})],
    ),
    ToolMessage('{"order_id": "12345", "status": "lost", "amount": 5500, "currency": "RUB"}'),
    AIMessage(
        "К сожалению, заказ 12345 потерян при доставке. Оформляю возврат.",
        [ToolCall("process_refund", {"order_id": "12345", "amount": 5500})],
    ),
    ToolMessage('{"refund_id": "R-778", "status": "processed", "days": "3-5"}'),
    AIMessage(
        "Возврат 5500 руб. по заказу 12345 оформлен. Деньги поступят на карту в течение "
        "3-5 рабочих дней. Могу ли я ещё чем-то помочь?"
    ),
]

#: Pipeline 1: everything the agent should have done is known.
WITH_REFERENCES = Sample(
    user_input_messages=CONVERSATION,
    reference=(
        "Агент проверил статус заказа 12345, подтвердил потерю, оформил возврат 5500 руб. "
        "и назвал срок 3-5 рабочих дней."
    ),
    reference_tool_calls=[
        ToolCall("get_order_status", {"order_id": "12345"}),
        ToolCall("process_refund", {"order_id": "12345", "amount": 5500}),
    ],
    reference_topics=["статус заказа", "возврат средств", "сроки возврата"],
)

#: Pipeline 2: the same conversation as sampled from production, with no reference data.
PRODUCTION = Sample(user_input_messages=CONVERSATION)

CHECKS = ["no-profanity", "no-threats", "exact-amount", "explicit-confirmation", "timeline-in-days"]


class TestPipelineWithReferences:
    """AgentEvaluationWithReferencesTest."""

    def test_tool_calls(self, tool_call_accuracy):
        assert tool_call_accuracy.multi_turn_score(WITH_REFERENCES) == 1.0  # no judge call

    def test_goal_against_the_reference(self, agent_goal_accuracy):
        config = AgentGoalAccuracyConfig(mode="with_reference")
        assert agent_goal_accuracy.multi_turn_score(WITH_REFERENCES, config) == 1.0

    @pytest.mark.parametrize("check", CHECKS)
    def test_atomic_yes_no_checks(self, ragas_metric, check):
        assert ragas_metric(f"aspect_critic:{check}").multi_turn_score(WITH_REFERENCES) == 1.0

    def test_amount_specificity_on_a_1_to_5_scale(self, simple_criteria_score__amount_specificity):
        result = simple_criteria_score__amount_specificity.evaluate(WITH_REFERENCES)
        assert result.score == 1.0  # raw 5 on 1–5
        assert all(raw == [5] for raw in result.metadata["raw_scores"].values())

    def test_topics(self, topic_adherence):
        assert_score(topic_adherence.evaluate(WITH_REFERENCES), at_least=0.75)

    def test_rubric_with_five_cumulative_levels(self, rubrics_score__refund_completeness):
        result = rubrics_score__refund_completeness.evaluate(WITH_REFERENCES)
        # Java: assertThat(score).isEqualTo(5.0) — the raw level; ours is 0–1.
        assert result.metadata["level"] == 5
        assert result.score == 1.0


class TestProductionSampling:
    """ProductionSamplingTest: no reference data."""

    def test_no_profanity(self, aspect_critic__no_profanity):
        assert aspect_critic__no_profanity.multi_turn_score(PRODUCTION) == 1.0

    @pytest.mark.parametrize("check", [*CHECKS[1:], "offers-further-help"])
    def test_atomic_yes_no_checks(self, ragas_metric, check):
        result = ragas_metric(f"aspect_critic:{check}").evaluate(PRODUCTION)
        assert_score(result, at_least=1.0)

    def test_timeline_detail(self, simple_criteria_score__timeline_detail):
        # Java: >= 0.75, i.e. a raw 4 or better on 1–5.
        assert_score(simple_criteria_score__timeline_detail.evaluate(PRODUCTION), at_least=0.75)

    def test_goal_inferred_by_each_judge(self, agent_goal_accuracy):
        config = AgentGoalAccuracyConfig(mode="without_reference")
        assert agent_goal_accuracy.multi_turn_score(PRODUCTION, config) == 1.0

    def test_rubric(self, rubrics_score__refund_completeness):
        result = rubrics_score__refund_completeness.evaluate(PRODUCTION)
        # Java: assertThat(score).isGreaterThanOrEqualTo(4.0) on the raw level, rewritten:
        assert result.metadata["level"] >= 4
        assert_score(result, at_least=0.75)


@pytest.mark.ragas_live(env="OPENROUTER_API_KEY")
def test_live_judges_agree_the_refund_is_confirmed(ragas_container, ragas_metric):
    """Opt-in (RAGAS_LIVE=1 + OPENROUTER_API_KEY): the real judges, not the local server."""
    assert all("127.0.0.1" not in judge.spec.base_url for judge in ragas_container.judges())
    result = ragas_metric("aspect_critic:explicit-confirmation").evaluate(PRODUCTION)
    assert_score(result, at_least=1.0)
