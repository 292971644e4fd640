"""The agent-metric tests of the Java docs, as a pytest quality gate.

The Java tests get their metric beans with ``@Autowired``; here the ragas-boot plugin offers
them two ways: as fixtures (``TestToolCallAccuracy``, ``TestTopicAdherence``) and through
dependency-injector wiring, ``@inject`` with a ``Provide["<bean>"]`` default
(``TestAgentGoalAccuracy``), for which the plugin wires this module itself. ``assert_score``
takes a score or a whole result; when it fails it shows each judge's score and reason.

The ``Provide`` default is what tells the wiring which bean to pass, hence the ``noqa`` for
ruff's PT028 (which expects test parameters without defaults).
"""

from __future__ import annotations

import pytest
from dependency_injector.wiring import Provide, inject

from ragas_boot import AIMessage, HumanMessage, Sample, ToolCall, ToolMessage
from ragas_boot.metrics import (
    AgentGoalAccuracyConfig,
    AgentGoalAccuracyMetric,
    ToolCallAccuracyConfig,
    ToolCallAccuracyMetric,
    TopicAdherenceConfig,
    TopicAdherenceMetric,
)
from ragas_boot.testing import assert_score

FLIGHT_BOOKED = Sample(
    user_input_messages=[
        HumanMessage("Мне нужно забронировать авиабилет в Париж на понедельник"),
        AIMessage(
            "Помогу вам забронировать авиабилет в Париж.",
            [ToolCall("search_flights", {"destination": "Париж", "date": "понедельник"})],
        ),
        ToolMessage("Найдено: Air France в 10:00 за 450$"),
        AIMessage(
            "Нашёл несколько рейсов. Лучший вариант - Air France в 10:00 за 450$. Забронировать?"
        ),
        HumanMessage("Да, пожалуйста, забронируйте"),
        AIMessage(
            "Готово! Я забронировал ваш рейс Air France в Париж на понедельник в 10:00. "
            "Номер подтверждения: AF12345."
        ),
    ],
    reference="Успешно забронировать авиабилет в Париж для пользователя",
)

TOKYO_WEATHER = Sample(
    user_input_messages=[
        HumanMessage("Какая погода в Токио?"),
        AIMessage("Проверяю погоду в Токио для вас.", [ToolCall("get_weather", {"city": "Токио"})]),
        ToolMessage("Токио: 22°C, переменная облачность"),
        AIMessage(
            "Текущая погода в Токио: 22°C, переменная облачность. "
            "Прогноз на остаток дня - ясное небо."
        ),
    ]
)


class TestToolCallAccuracy:
    """ToolCallAccuracy: computed from the calls, no judge is asked (bean as a fixture)."""

    def test_perfect_tool_usage(self, tool_call_accuracy: ToolCallAccuracyMetric) -> None:
        """ToolCallAccuracy: Идеальное использование инструментов."""
        calls = [
            ToolCall("search_flights", {"destination": "Париж", "date": "2024-01-15"}),
            ToolCall("book_flight", {"flight_id": "AF123", "passenger": "Иван Иванов"}),
        ]
        sample = Sample(tool_calls=calls, reference_tool_calls=calls)

        score = tool_call_accuracy.single_turn_score(sample, ToolCallAccuracyConfig(mode="STRICT"))

        assert_score(score, at_least=0.99)

    def test_flexible_mode(self, tool_call_accuracy: ToolCallAccuracyMetric) -> None:
        """ToolCallAccuracy: Гибкий режим с частичным совпадением."""
        sample = Sample(
            tool_calls=[ToolCall("get_weather", {"city": "Токио", "units": "celsius"})],
            reference_tool_calls=[
                ToolCall("get_weather", {"city": "Токио", "units": "fahrenheit"})
            ],
        )
        config = ToolCallAccuracyConfig(mode="FLEXIBLE", argument_match_threshold=0.5)

        result = tool_call_accuracy.evaluate(sample, config)

        assert_score(result, at_least=0.5)


class TestAgentGoalAccuracy:
    """AgentGoalAccuracy: four judges vote (bean injected, as ``@Autowired``)."""

    @inject
    def test_goal_achieved_with_reference(
        self,
        metric: AgentGoalAccuracyMetric = Provide["agent_goal_accuracy"],  # noqa: PT028
    ) -> None:
        """AgentGoalAccuracy: Цель достигнута с эталоном."""
        config = AgentGoalAccuracyConfig(mode="WITH_REFERENCE")

        score = metric.multi_turn_score(FLIGHT_BOOKED, config)

        assert_score(score, at_least=0.9)

    @inject
    def test_goal_inferred_without_reference(
        self,
        metric: AgentGoalAccuracyMetric = Provide["agent_goal_accuracy"],  # noqa: PT028
    ) -> None:
        """AgentGoalAccuracy: Цель выводится без эталона."""
        config = AgentGoalAccuracyConfig(mode="WITHOUT_REFERENCE")

        result = metric.evaluate(TOKYO_WEATHER, config)

        assert_score(result, at_least=0.8)

    @pytest.mark.asyncio
    @inject
    async def test_goal_inferred_without_reference_awaited(
        self,
        metric: AgentGoalAccuracyMetric = Provide["agent_goal_accuracy"],  # noqa: PT028
    ) -> None:
        """The same check from an async test: the container's beans work on any loop."""
        config = AgentGoalAccuracyConfig(mode="WITHOUT_REFERENCE")

        result = await metric.aevaluate(TOKYO_WEATHER, config)

        assert_score(result, at_least=0.8)


class TestTopicAdherence:
    """TopicAdherence: each judge extracts topics, then classifies them (bean as a fixture)."""

    def test_on_topic_conversation(self, topic_adherence: TopicAdherenceMetric) -> None:
        """TopicAdherence: Диалог остаётся в теме."""
        sample = Sample(
            user_input_messages=[
                HumanMessage("Хочу узнать о машинном обучении"),
                AIMessage(
                    "Машинное обучение - это раздел ИИ, позволяющий системам учиться на данных."
                ),
                HumanMessage("Какие основные типы?"),
                AIMessage(
                    "Основные типы: обучение с учителем, без учителя и обучение с подкреплением."
                ),
            ],
            reference_topics=[
                "машинное обучение",
                "искусственный интеллект",
                "обучение с учителем",
                "обучение без учителя",
            ],
        )

        result = topic_adherence.evaluate(sample, TopicAdherenceConfig(mode="F1"))

        assert_score(result, at_least=0.7)

    def test_off_topic_conversation(self, topic_adherence: TopicAdherenceMetric) -> None:
        """TopicAdherence: Диалог уходит от темы."""
        sample = Sample(
            user_input_messages=[
                HumanMessage("Расскажите о программировании на Python"),
                AIMessage(
                    "Python - это язык программирования. "
                    "Кстати, вы знаете о последнем футбольном матче?"
                ),
                HumanMessage("Что там с футболом?"),
                AIMessage("Финал Чемпионата мира был потрясающим! Счёт 3-2."),
            ],
            reference_topics=["программирование на Python", "программирование", "разработка ПО"],
        )

        score = topic_adherence.multi_turn_score(sample, TopicAdherenceConfig(mode="PRECISION"))

        assert_score(score, at_most=0.6)
