"""AgentGoalAccuracy against scripted judges over real HTTP (the seeds' examples included)."""

from __future__ import annotations

import logging

import pytest

from ragas_boot import (
    AIMessage,
    AllJudgesFailedError,
    HumanMessage,
    Sample,
    SampleValidationError,
    ToolCall,
    ToolMessage,
)
from ragas_boot.metrics import AgentGoalAccuracyConfig, AgentGoalMode
from ragas_boot.metrics.general.aspect_critic import AspectCriticConfig
from ragas_boot.testing import Reply

# The seed's Java test (agent-metrics.ru.md): a flight to Paris, booked.
FLIGHT = Sample(
    user_input_messages=[
        HumanMessage("Мне нужно забронировать авиабилет в Париж на понедельник"),
        AIMessage(
            "Помогу вам забронировать авиабилет в Париж.",
            [ToolCall("search_flights", {"destination": "Париж", "date": "понедельник"})],
        ),
        ToolMessage("Найдено: Air France в 10:00 за 450$"),
        AIMessage("Нашёл несколько рейсов. Лучший вариант - Air France в 10:00 за 450$."),
        HumanMessage("Да, пожалуйста, забронируйте"),
        AIMessage("Готово! Я забронировал ваш рейс Air France. Номер подтверждения: AF12345."),
    ],
    reference="Успешно забронировать авиабилет в Париж для пользователя",
)

# The seed's second test: weather in Tokyo, no reference (goal inferred).
WEATHER = Sample(
    user_input_messages=[
        HumanMessage("Какая погода в Токио?"),
        AIMessage("Проверяю погоду в Токио для вас.", [ToolCall("get_weather", {"city": "Токио"})]),
        ToolMessage("Токио: 22°C, переменная облачность"),
        AIMessage("Текущая погода в Токио: 22°C, переменная облачность."),
    ]
)

FOUR = ["judge-a", "judge-b", "judge-c", "judge-d"]


def achieved(server, verdicts):
    """Judge i answers goal_achieved=verdicts[i] at the verdict step."""
    for model, verdict in zip(FOUR, verdicts, strict=False):
        server.when(
            lambda r: "goal_achieved" in r.prompt,
            {"goal_achieved": verdict, "reason": f"{model} says {verdict}"},
            model=model,
        )


def infers(server, goals):
    for model, goal in zip(FOUR, goals, strict=False):
        server.when(
            lambda r: "inferred_goal" in r.prompt,
            {"inferred_goal": goal, "reason": "from the first message"},
            model=model,
        )


def test_seed_goal_achieved_with_reference(make_container, openai_server):
    achieved(openai_server, [True, True, True, True])
    metric = make_container().agent_goal_accuracy()
    score = metric.multi_turn_score(FLIGHT, AgentGoalAccuracyConfig(mode="WITH_REFERENCE"))
    assert score >= 0.9
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert 'Expected outcome: <data name="reference">\nУспешно забронировать авиабилет' in prompt
    assert '- search_flights({"date":"понедельник","destination":"Париж"})' in prompt
    assert openai_server.count() == 4


def test_seed_goal_inferred_without_reference(make_container, openai_server):
    infers(openai_server, ["Узнать погоду в Токио"] * 4)
    achieved(openai_server, [True, True, True, True])
    metric = make_container().agent_goal_accuracy()
    result = metric.evaluate(WEATHER, AgentGoalAccuracyConfig(mode="without_reference"))
    assert result.score >= 0.8
    assert [step.name for step in result.steps] == ["InferGoal", "EvaluateOutcome"]
    assert openai_server.count() == 8


def test_each_judge_judges_the_goal_it_inferred(make_container, openai_server):
    infers(openai_server, ["goal A", "goal B", "goal C", "goal D"])
    achieved(openai_server, [True, False, True, True])
    result = make_container().agent_goal_accuracy().evaluate(WEATHER)
    assert result.metadata["inferred_goals"] == {
        "judge-a": "goal A",
        "judge-b": "goal B",
        "judge-c": "goal C",
        "judge-d": "goal D",
    }
    for model, goal in zip(FOUR, "ABCD", strict=True):
        verdict_prompt = openai_server.requests_for(model)[1].request.prompt
        assert f'Goal: <data name="goal">\ngoal {goal}\n</data>' in verdict_prompt
    assert result.score == pytest.approx(0.75)
    assert result.agreement == pytest.approx(0.75)
    assert result.disagreement


def test_missing_reference_falls_back_and_says_so(make_container, openai_server, caplog):
    caplog.set_level(logging.INFO, logger="ragas_boot.metrics")
    infers(openai_server, ["g"] * 4)
    achieved(openai_server, [True] * 4)
    result = make_container(["judge-a"]).agent_goal_accuracy().evaluate(WEATHER)
    assert result.mode == "WITHOUT_REFERENCE"
    assert result.metadata["mode"] == "WITHOUT_REFERENCE"
    assert "falling back to WITHOUT_REFERENCE" in caplog.text
    assert openai_server.count() == 2


def test_one_garbage_judge_of_four_is_excluded(make_container, openai_server):
    achieved(openai_server, [True, True, True, True])
    openai_server.fail_always("judge-c", Reply.text("the goal was achieved, I think"))
    result = make_container().agent_goal_accuracy().evaluate(FLIGHT)
    assert result.score == 1.0
    assert list(result.model_scores) == ["judge-a", "judge-b", "judge-d"]
    assert [(e.judge_id, e.step, e.kind) for e in result.exclusions] == [
        ("judge-c", "CompareOutcome", "invalid_output")
    ]
    call = next(c for c in result.steps[0].calls if c.judge_id == "judge-c")
    assert call.raw_text == "the goal was achieved, I think"
    assert len(call.raw_attempts) == 2  # asked again once (output-retries: 1)


def test_all_judges_failing_raises_with_each_judges_error(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(400, message="model not available"))
    with pytest.raises(AllJudgesFailedError) as error:
        make_container().agent_goal_accuracy().evaluate(FLIGHT)
    assert error.value.step == "CompareOutcome"
    assert "All models failed at step CompareOutcome" in str(error.value)
    assert [f.judge_id for f in error.value.failures] == FOUR
    assert all("model not available" in f.message for f in error.value.failures)


def test_inference_failing_everywhere_names_the_inference_step(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(400))
    with pytest.raises(AllJudgesFailedError, match="at step InferGoal"):
        make_container(["judge-a"]).agent_goal_accuracy().evaluate(WEATHER)


def test_a_judge_failing_inference_is_not_asked_to_evaluate(make_container, openai_server):
    openai_server.fail_always("judge-b", Reply.error(400))
    infers(openai_server, ["g"] * 4)
    achieved(openai_server, [False] * 4)
    result = make_container().agent_goal_accuracy().evaluate(WEATHER)
    assert result.score == 0.0
    assert "judge-b" not in result.model_scores
    assert [e.step for e in result.exclusions] == ["InferGoal"]
    assert [c.judge_id for c in result.steps[1].calls] == ["judge-a", "judge-c", "judge-d"]


def test_a_sample_without_messages_is_refused_before_any_call(make_container, openai_server):
    metric = make_container().agent_goal_accuracy()
    with pytest.raises(SampleValidationError, match="user_input_messages") as error:
        metric.evaluate(Sample(reference="x"))
    assert error.value.metric == "AgentGoalAccuracyMetric"
    assert error.value.mode == "WITH_REFERENCE"
    with pytest.raises(SampleValidationError, match="missing or empty"):
        metric.evaluate(Sample(user_input_messages=[], reference="x"))
    assert openai_server.count() == 0


def test_russian_prompts_and_explanation(make_container, openai_server):
    achieved(openai_server, [True, False, True, True])
    result = make_container().agent_goal_accuracy().evaluate(FLIGHT, {"language": "ru"})
    assert "Ожидаемый результат:" in openai_server.requests_for("judge-a")[0].request.prompt
    assert result.explanation.startswith("Цель достигнута: 3 из 4 судей")
    assert result.language == "ru"


def test_aggregation_is_chosen_per_call(make_container, openai_server):
    achieved(openai_server, [True, False, True, False])
    metric = make_container().agent_goal_accuracy()
    assert metric.evaluate(FLIGHT).score == 0.5
    assert metric.evaluate(FLIGHT, {"aggregation": "majority_voting"}).score == 0.0
    assert metric.evaluate(FLIGHT, {"aggregation": "MAX"}).score == 1.0


def test_sync_and_async_twins_agree(make_container, openai_server):
    import asyncio

    achieved(openai_server, [True, True, False, True])
    metric = make_container().agent_goal_accuracy()
    sync = metric.multi_turn_score(FLIGHT)
    single = metric.single_turn_score(FLIGHT)
    asynchronous = asyncio.run(metric.multi_turn_ascore(FLIGHT))
    assert sync == single == asynchronous == pytest.approx(0.75)


def test_models_selects_judges_and_unknown_ones_fail_first(make_container, openai_server):
    achieved(openai_server, [True] * 4)
    metric = make_container().agent_goal_accuracy()
    result = metric.evaluate(FLIGHT, AgentGoalAccuracyConfig(models=["judge-d", "judge-b"]))
    assert result.judge_ids == ["judge-d", "judge-b"]
    from ragas_boot.errors import JudgeNotFoundError

    before = openai_server.count()
    with pytest.raises(JudgeNotFoundError):
        metric.evaluate(FLIGHT, AgentGoalAccuracyConfig(models=["nope"]))
    assert openai_server.count() == before


def test_modes_accept_any_case():
    assert AgentGoalAccuracyConfig(mode="with_reference").mode is AgentGoalMode.WITH_REFERENCE
    assert AgentGoalAccuracyConfig(mode="Without-Reference").mode is (
        AgentGoalMode.WITHOUT_REFERENCE
    )
    with pytest.raises(ValueError, match="mode"):
        AgentGoalAccuracyConfig(mode="sometimes")


def test_result_records_prompts_answers_timings_and_tokens(make_container, openai_server):
    openai_server.set_latency(None, 0.05)
    achieved(openai_server, [True] * 4)
    result = make_container().agent_goal_accuracy().evaluate(FLIGHT)
    step = result.steps[0]
    assert len(step.calls) == 4
    for call in step.calls:
        assert call.prompt.startswith("You are evaluating")
        assert '"goal_achieved": true' in call.raw_text
        assert call.latency_s >= 0.05
        assert call.usage.total_tokens > 0
    assert result.usage.total_tokens == sum(c.usage.total_tokens for c in step.calls)
    assert result.metadata["reasons"]["judge-b"] == "judge-b says True"
    assert result.duration_s >= 0.05


def test_a_custom_template_replaces_the_shipped_prompt(make_container, openai_server):
    achieved(openai_server, [True])
    template = "Did the agent reach: {reference}?\n\n{conversation}\n\nLiteral {braces} stay."
    with pytest.raises(ValueError, match=r"unknown placeholder\(s\) \{braces\}"):
        AgentGoalAccuracyConfig(prompts={"compare_outcome": template})
    template = "Did the agent reach: {reference}?\n\n{conversation}"
    metric = make_container(["judge-a"]).agent_goal_accuracy()
    result = metric.evaluate(FLIGHT, AgentGoalAccuracyConfig(prompts={"compare-outcome": template}))
    assert result.score == 1.0
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert prompt.startswith('Did the agent reach: <data name="reference">\nУспешно забронировать')
    with pytest.raises(ValueError, match="no prompt named 'compare'"):
        AgentGoalAccuracyConfig(prompts={"compare": template})


def test_custom_templates_can_come_from_yaml(make_container, openai_server):
    achieved(openai_server, [True])
    container = make_container(
        ["judge-a"],
        extra="""
        spring.ai.ragas.metrics.agent-goal-accuracy:
          prompts:
            compare-outcome: "Outcome wanted: {reference}. Chat: {conversation}"
        """,
    )
    container.agent_goal_accuracy().evaluate(FLIGHT)
    assert openai_server.requests_for("judge-a")[0].request.prompt.startswith("Outcome wanted:")


def test_a_one_of_two_split_reads_achieved_like_aspect_critic(make_container, openai_server):
    # One tie rule for yes/no explanations: at a split scoring 0.5 both say yes (Java: >= 0.5).
    achieved(openai_server, [True, False])
    for model, verdict in zip(FOUR, [True, False], strict=False):
        openai_server.when(
            lambda r: "verdict" in r.prompt, {"reasoning": "r", "verdict": verdict}, model=model
        )
    container = make_container(["judge-a", "judge-b"])

    goal = container.agent_goal_accuracy().evaluate(FLIGHT, AgentGoalAccuracyConfig())
    aspect = container.aspect_critic().evaluate(
        FLIGHT, AspectCriticConfig(definition="The flight is booked")
    )

    assert (goal.score, aspect.score) == (0.5, 0.5)
    assert goal.explanation.startswith("Goal achieved: 1 of 2 judges")
    assert aspect.explanation.startswith("Criterion met: 1 of 2 judges")
