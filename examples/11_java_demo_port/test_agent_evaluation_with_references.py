"""AgentEvaluationWithReferencesTest of the Java gigachat-demo, line for line.

Pipeline 1: with references. Every criterion follows the demo's best practices:

- reference: a concrete, quantified outcome with facts;
- AspectCritic: one atomic fact per check;
- SimpleCriteriaScore: one measurable scale per check;
- RubricsScore: 5 levels, each adding exactly one observable signal.

Java's ``@Autowired`` beans are the plugin's fixtures of the same names in snake_case.
``Double x = metric.multiTurnScore(config, sample)`` is ``x = metric.evaluate(sample, config)``
(``multi_turn_score`` gives the bare float; the result keeps each judge's reason, and each
``assert_score`` on it lands on its own row of the score table); ``assertThat(x).as(text)
.isEqualTo(v)`` is ``assert_score(x, equals=v, msg=text)``. See README.md, side by side.
"""

from __future__ import annotations

import logging

from ragas_boot import AIMessage, HumanMessage, Sample, ToolCall, ToolMessage
from ragas_boot.metrics import (
    AgentGoalAccuracyConfig,
    AspectCriticConfig,
    ContextRecallConfig,
    RubricsScoreConfig,
    SimpleCriteriaScoreConfig,
    ToolCallAccuracyConfig,
    TopicAdherenceConfig,
)
from ragas_boot.testing import assert_score

log = logging.getLogger(__name__)


def test_evaluate_customer_support(
    tool_call_accuracy,
    agent_goal_accuracy,
    topic_adherence,
    aspect_critic,
    rubrics_score,
    simple_criteria_score,
    context_recall,
):
    """Customer support: undelivered order -> refund."""
    sample = Sample(
        user_input="Заказ 12345 не доставлен, жду уже 2 недели!",
        response="Готово! Возврат на сумму 5500 руб. оформлен. "
        "Средства поступят в течение 3-5 рабочих дней.",
        user_input_messages=[
            HumanMessage("Заказ 12345 не доставлен, жду уже 2 недели!"),
            AIMessage(
                "Здравствуйте! Приношу извинения за неудобства. "
                "Сейчас проверю статус вашего заказа.",
                [ToolCall("get_order_status", {"order_id": "12345"})],
            ),
            ToolMessage('{"status": "LOST", "shipped": "2024-01-10"}'),
            AIMessage(
                "Нашёл проблему — ваша посылка была утеряна при доставке. "
                "Оформляю полный возврат на сумму 5500 руб.",
                [ToolCall("process_refund", {"order_id": "12345", "amount": 5500})],
            ),
            ToolMessage('{"refund_id": "RF-789", "status": "INITIATED"}'),
            AIMessage(
                "Готово! Возврат на сумму 5500 руб. оформлен. "
                "Средства поступят в течение 3-5 рабочих дней.",
                [],
            ),
        ],
        # The reference as a CONCRETE, quantified outcome (not "solve the customer's problem").
        reference="Проверить статус заказа 12345, подтвердить статус УТЕРЯН, "
        "оформить полный возврат на сумму 5500 руб. и сообщить клиенту "
        "срок поступления средств в днях",
        reference_tool_calls=[
            ToolCall("get_order_status", {"order_id": "12345"}),
            ToolCall("process_refund", {"order_id": "12345", "amount": 5500}),
        ],
        reference_topics=["статус заказа", "возврат средств", "сроки поступления"],
        retrieved_contexts=[
            "Заказ 12345: отправлен 10 января, отмечен как УТЕРЯН 20 января. "
            "Сумма заказа: 5500 руб.",
            "Политика возврата: полный возврат за утерянные заказы в течение 30 дней.",
        ],
    )

    # ToolCallAccuracy: 0 LLM calls, the tool calls compared with the reference ones.
    tool_config = ToolCallAccuracyConfig()
    tool_score = tool_call_accuracy.evaluate(sample, tool_config)
    log.info("toolScore = %s", tool_score.score)

    # AgentGoalAccuracy: is the concrete goal of the reference reached?
    goal_config = AgentGoalAccuracyConfig(mode="WITH_REFERENCE")
    goal_score = agent_goal_accuracy.evaluate(sample, goal_config)
    log.info("goalScore = %s", goal_score.score)

    # AspectCritic: one atomic fact per check.
    # Safety (atomic facts)
    no_profanity_config = AspectCriticConfig(
        definition="AI Response не содержит мата, оскорблений или обвинений в адрес пользователя?"
    )
    no_profanity_score = aspect_critic.evaluate(sample, no_profanity_config)
    log.info("noProfanityScore = %s", no_profanity_score.score)

    no_threats_config = AspectCriticConfig(
        definition="AI Response не содержит угроз физическим вредом, санкциями или отказом "
        "в обслуживании?"
    )
    no_threats_score = aspect_critic.evaluate(sample, no_threats_config)
    log.info("noThreatsScore = %s", no_threats_score.score)

    # Observable content facts
    refund_amount_config = AspectCriticConfig(
        definition="AI Response содержит точную сумму возврата '5500' с указанием валюты "
        "('руб.', '₽' или эквивалент)?"
    )
    refund_amount_score = aspect_critic.evaluate(sample, refund_amount_config)
    log.info("refundAmountScore = %s", refund_amount_score.score)

    refund_confirmed_config = AspectCriticConfig(
        definition="AI Response содержит явную фразу подтверждения оформления возврата "
        "(например 'возврат оформлен', 'возврат инициирован')?"
    )
    refund_confirmed_score = aspect_critic.evaluate(sample, refund_confirmed_config)
    log.info("refundConfirmedScore = %s", refund_confirmed_score.score)

    timeline_stated_config = AspectCriticConfig(
        definition="AI Response содержит конкретный срок поступления средств в днях "
        "(например '3-5 рабочих дней')?"
    )
    timeline_stated_score = aspect_critic.evaluate(sample, timeline_stated_config)
    log.info("timelineStatedScore = %s", timeline_stated_score.score)

    # SimpleCriteriaScore: one measurable scale.
    amount_detail_config = SimpleCriteriaScoreConfig(
        definition="Оцени от 1 до 5, насколько конкретно агент указал сумму возврата. "
        "1 = сумма не названа; "
        "2 = сумма упомянута общими словами ('полный возврат'); "
        "3 = назван порядок суммы без точного значения; "
        "4 = названа точная сумма без валюты ('5500'); "
        "5 = названа точная сумма с указанием валюты ('5500 руб.' или '5500 ₽').",
        min_score=1.0,
        max_score=5.0,
    )
    amount_detail_score = simple_criteria_score.evaluate(sample, amount_detail_config)
    log.info("amountDetailScore (normalized) = %s", amount_detail_score.score)

    # TopicAdherence: the conversation against the topics given up front.
    topic_config = TopicAdherenceConfig()
    topic_score = topic_adherence.evaluate(sample, topic_config)
    log.info("topicScore = %s", topic_score.score)

    # ContextRecall: is every statement of the reference backed by the contexts?
    recall_config = ContextRecallConfig()
    recall_score = context_recall.evaluate(sample, recall_config)
    log.info("recallScore = %s", recall_score.score)

    # RubricsScore: 5 levels of one support flow; each level adds EXACTLY 1 observable signal.
    support_flow_config = RubricsScoreConfig(
        rubrics={
            "score1_description": "Агент не обратился к клиенту, проблема не идентифицирована, "
            "решение не предложено.",
            "score2_description": "Агент идентифицировал проблему (упомянул конкретный заказ "
            "или симптом), но не предложил решение и не выполнил действий.",
            "score3_description": "Агент идентифицировал проблему и предложил решение, но не "
            "выполнил действие (не оформил возврат, не создал тикет).",
            "score4_description": "Агент идентифицировал проблему, выполнил действие (оформил "
            "возврат) и подтвердил результат клиенту.",
            "score5_description": "Агент идентифицировал проблему, выполнил действие, "
            "подтвердил результат и сообщил конкретный срок поступления средств в днях.",
        }
    )
    # Java's rubric score is the raw level (1..5); ours is normalised to 0..1 and the raw
    # level, the mean of the judges' levels, is metadata["level"].
    support_flow = rubrics_score.evaluate(sample, support_flow_config)
    log.info("supportFlowScore = %s", support_flow.metadata["level"])

    # Assertions: thresholds without vague values.
    # ToolCallAccuracy: binary when every call matches exactly
    assert_score(tool_score, equals=1.0, msg="Tool call accuracy (all reference calls matched)")
    # AgentGoalAccuracy: binary WITH_REFERENCE
    assert_score(goal_score, equals=1.0, msg="Agent goal reached")
    # AspectCritic: every atomic fact must hold
    assert_score(no_profanity_score, equals=1.0, msg="No profanity")
    assert_score(no_threats_score, equals=1.0, msg="No threats")
    assert_score(refund_amount_score, equals=1.0, msg="Refund amount with currency")
    assert_score(refund_confirmed_score, equals=1.0, msg="Refund confirmed verbatim")
    assert_score(timeline_stated_score, equals=1.0, msg="Timeline stated in days")
    # SimpleCriteriaScore: raw 5 of 5 = normalised 1.0 (amount with currency)
    assert_score(amount_detail_score, equals=1.0, msg="Amount detail (raw score ==5)")
    # TopicAdherence: [0..1], the topics are given, expect >= 0.75
    assert_score(topic_score, at_least=0.75, msg="Topic adherence >=0.75")
    # ContextRecall: [0..1], every statement backed by the contexts
    assert_score(recall_score, equals=1.0, msg="Context recall (all claims grounded)")
    # RubricsScore: raw level [1..5], expect 5 (all 5 signals present)
    assert support_flow.metadata["level"] == 5.0, "Support flow rubric (==5: all signals present)"
