"""AspectCritic against scripted judges over real HTTP (the Java unit cases included)."""

from __future__ import annotations

import pytest

from ragas_boot import (
    AIMessage,
    AllJudgesFailedError,
    ConfigError,
    HumanMessage,
    Sample,
    SampleValidationError,
)
from ragas_boot.metrics.general.aspect_critic import AspectCriticConfig, majority
from ragas_boot.testing import Reply, asks_for

FOUR = ["judge-a", "judge-b", "judge-c", "judge-d"]

VIRUSES = Sample(
    user_input="How do I protect my computer from viruses?",
    response="Install a reputable antivirus, keep the system updated, avoid unknown attachments.",
)

SAFE = AspectCriticConfig(definition="Does the response give safe and legitimate security advice?")


def says(server, verdict, model=None, times=None):
    return server.when(
        asks_for("verdict"),
        {"reasoning": f"{model or 'all'} says {verdict}", "verdict": verdict},
        model=model,
        times=times,
    )


@pytest.mark.parametrize(("verdict", "expected"), [(True, 1.0), (False, 0.0)])
def test_java_unit_verdicts(make_container, openai_server, verdict, expected):
    says(openai_server, verdict)
    metric = make_container(["judge-a"]).aspect_critic()
    assert metric.single_turn_score(VIRUSES, SAFE) == expected


def test_null_verdict_is_the_judges_failure_not_a_zero(make_container, openai_server):
    openai_server.fail_always(None, Reply.json({"reasoning": "unsure", "verdict": None}))
    metric = make_container(["judge-a"]).aspect_critic()
    with pytest.raises(AllJudgesFailedError, match="All models failed at step Evaluate"):
        metric.single_turn_score(VIRUSES, SAFE)


def test_two_judges_both_true_and_the_prompt(make_container, openai_server):
    says(openai_server, True)
    result = make_container(["judge-a", "judge-b"]).aspect_critic().evaluate(VIRUSES, SAFE)
    assert result.score == 1.0
    assert result.model_scores == {"judge-a": 1.0, "judge-b": 1.0}
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert "Criterion: Does the response give safe and legitimate security advice?" in prompt
    assert "User input:\nHow do I protect my computer from viruses?" in prompt
    assert "Response:\nInstall a reputable antivirus" in prompt
    assert result.metadata["definition"] == SAFE.definition
    assert result.metadata["reasons"]["judge-a"] == "all says True"


def test_judges_disagreeing_average(make_container, openai_server):
    for model, verdict in zip(FOUR, [True, True, False, True], strict=True):
        says(openai_server, verdict, model=model)
    result = make_container().aspect_critic().evaluate(VIRUSES, SAFE)
    assert result.score == pytest.approx(0.75)
    assert result.metadata["verdicts"] == {
        "judge-a": True,
        "judge-b": True,
        "judge-c": False,
        "judge-d": True,
    }
    assert result.explanation.startswith("Criterion met: 3 of 4 judges said yes")


def test_strictness_three_times_four_judges_is_twelve_concurrent_requests(
    make_container, openai_server
):
    # judge-a: yes, no, yes -> yes; judge-b: no, no, yes -> no; c, d: always yes.
    for model, verdicts in (("judge-a", [True, False, True]), ("judge-b", [False, False, True])):
        for verdict in verdicts:
            says(openai_server, verdict, model=model, times=1)
    says(openai_server, True)
    openai_server.set_latency(None, 0.5)
    settings_extra = "spring.ai.ragas.providers.default-options.temperature: 0.7\n"
    metric = make_container(extra=settings_extra).aspect_critic()
    result = metric.evaluate(VIRUSES, SAFE.model_copy(update={"strictness": 3}))
    assert openai_server.count() == 12
    assert {model: openai_server.count(model) for model in FOUR} == dict.fromkeys(FOUR, 3)
    # sent at once (every request arrived before the first answer left), at the
    # temperature the user configured
    records = openai_server.requests
    assert max(r.request.received_at for r in records) < min(r.answered_at for r in records)
    assert {r.request.body.get("temperature") for r in openai_server.requests} == {0.7}
    assert result.model_scores == {
        "judge-a": 1.0,
        "judge-b": 0.0,
        "judge-c": 1.0,
        "judge-d": 1.0,
    }
    repeats = result.metadata["repeats"]
    assert [entry["verdict"] for entry in repeats["judge-b"]].count(False) == 2
    assert all(len(repeats[model]) == 3 for model in FOUR)
    assert len(result.steps) == 1
    assert len(result.steps[0].calls) == 12
    assert "each judge asked 3 times" in result.explanation


def test_a_judge_is_excluded_only_when_every_repeat_failed(make_container, openai_server):
    openai_server.fail_always("judge-b", Reply.error(400, message="no such model"))
    openai_server.when(asks_for("verdict"), Reply.error(400), model="judge-c", times=2)
    says(openai_server, True)  # judge-c's third repeat answers
    result = (
        make_container(["judge-a", "judge-b", "judge-c"])
        .aspect_critic()
        .evaluate(VIRUSES, SAFE.model_copy(update={"strictness": 3}))
    )
    assert list(result.model_scores) == ["judge-a", "judge-c"]
    assert [(e.judge_id, e.step) for e in result.exclusions] == [("judge-b", "Evaluate")]
    assert "all 3 repeats failed" in result.exclusions[0].message
    assert [set(entry) for entry in result.metadata["repeats"]["judge-c"]].count(
        {"error", "message"}
    ) == 2


def test_all_judges_failing_raises(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(500))
    with pytest.raises(AllJudgesFailedError) as error:
        make_container(["judge-a", "judge-b"]).aspect_critic().evaluate(VIRUSES, SAFE)
    assert [failure.judge_id for failure in error.value.failures] == ["judge-a", "judge-b"]


def test_tie_is_not_met():
    assert majority([True, False]) is False
    assert majority([True, True, False]) is True
    assert majority([True, False, True, False]) is False


def test_conversation_is_rendered_for_multi_turn(make_container, openai_server):
    says(openai_server, True)
    sample = Sample(
        user_input_messages=[
            HumanMessage("Где мой заказ 12345?"),
            AIMessage("Заказ потерян, оформляю возврат 5500 руб."),
        ]
    )
    config = AspectCriticConfig(definition="Ответ без ненормативной лексики", language="ru")
    score = make_container(["judge-a"]).aspect_critic().multi_turn_score(sample, config)
    assert score == 1.0
    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert "Критерий: Ответ без ненормативной лексики" in prompt
    assert "Диалог:\n[USER]: Где мой заказ 12345?\n[ASSISTANT]: Заказ потерян" in prompt


@pytest.mark.asyncio
async def test_async_twin(make_container, openai_server):
    says(openai_server, False)
    metric = make_container(["judge-a"]).aspect_critic()
    assert await metric.single_turn_ascore(VIRUSES, SAFE) == 0.0
    result = await metric.aevaluate(VIRUSES, {"definition": "x", "language": "ru"})
    assert result.explanation.startswith("Критерий не выполнен: 0 из 1 судей")


def test_missing_definition_is_a_config_error_naming_the_key(make_container, openai_server):
    with pytest.raises(ConfigError, match=r"spring\.ai\.ragas\.metrics\.aspect-critic\.definition"):
        make_container(["judge-a"]).aspect_critic().evaluate(VIRUSES)
    assert openai_server.count() == 0


@pytest.mark.parametrize("definition", ["", "   "])
def test_empty_definition_is_rejected(definition):
    with pytest.raises(ValueError, match="definition is empty"):
        AspectCriticConfig(definition=definition)


@pytest.mark.parametrize("strictness", [0, 6, -1])
def test_strictness_out_of_range(strictness):
    with pytest.raises(ValueError, match="strictness"):
        AspectCriticConfig(definition="x", strictness=strictness)


def test_missing_response_names_the_field(make_container, openai_server):
    metric = make_container(["judge-a"]).aspect_critic()
    with pytest.raises(SampleValidationError, match="'response': is missing"):
        metric.evaluate(Sample(user_input="hi"), SAFE)
    with pytest.raises(SampleValidationError, match="'response': is empty"):
        metric.evaluate(Sample(user_input="hi", response=" "), SAFE)
    assert openai_server.count() == 0


def test_bad_yaml_section_is_an_error_at_load(make_settings):
    with pytest.raises(ConfigError, match=r"aspect-critic\.strictness"):
        make_settings(["judge-a"], extra="spring.ai.ragas.metrics.aspect-critic.strictness: 9\n")


#: A sample as Java tests build it: user_input and response beside the whole conversation.
BOTH = Sample(
    user_input="Где мой заказ 12345?",
    response="Возврат 5500 руб. оформлен.",
    user_input_messages=[
        HumanMessage("Где мой заказ 12345?"),
        AIMessage("Проверяю статус заказа."),
        AIMessage("Возврат 5500 руб. оформлен."),
    ],
)


@pytest.mark.parametrize(
    ("interaction", "shown", "hidden"),
    [
        # As Java: user_input + response, the conversation left out.
        ("auto", "Запрос пользователя:\nГде мой заказ 12345?", "Проверяю статус заказа"),
        ("single_turn", "Ответ:\nВозврат 5500 руб. оформлен.", "Диалог:"),
        ("CONVERSATION", "[ASSISTANT]: Проверяю статус заказа.", "Запрос пользователя:"),
    ],
)
def test_a_sample_with_input_and_response_is_judged_on_them_unless_configured(
    make_container, openai_server, interaction, shown, hidden
):
    says(openai_server, True)
    config = AspectCriticConfig(definition="Сумма названа", language="ru", interaction=interaction)

    make_container(["judge-a"]).aspect_critic().evaluate(BOTH, config)

    prompt = openai_server.requests_for("judge-a")[0].request.prompt
    assert shown in prompt
    assert hidden not in prompt


def test_single_turn_view_of_a_conversation_without_response_names_the_field(make_container):
    sample = Sample(user_input_messages=BOTH.user_input_messages)
    config = AspectCriticConfig(definition="x", interaction="single_turn")

    with pytest.raises(SampleValidationError, match="response") as caught:
        make_container(["judge-a"]).aspect_critic().evaluate(sample, config)
    # The sample has a conversation: the error says why it is not judged, not that it is absent.
    assert "interaction SINGLE_TURN judges user_input + response" in str(caught.value)
    assert "there is no user_input_messages" not in str(caught.value)
