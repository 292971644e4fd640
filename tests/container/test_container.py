"""The container: from YAML to ready beans, overrides, lifetime, sync/async mixing."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from pathlib import Path

import pytest
import pytest_asyncio
from dependency_injector import providers

from ragas_boot import (
    AIMessage,
    ConfigError,
    HumanMessage,
    Sample,
    create_container,
    load_settings,
)
from ragas_boot.chat import OpenAICompatibleJudge
from ragas_boot.metrics import (
    AgentGoalAccuracyMetric,
    ToolCallAccuracyMetric,
    TopicAdherenceMetric,
)

DATA = Path(__file__).parent.parent / "data"
SECRET = "sk-test-DO-NOT-LEAK-4f2a9c"

SAMPLE = Sample(
    user_input_messages=[HumanMessage("Book a flight to Paris"), AIMessage("Booked: AF123.")],
    reference="The flight is booked",
)


def _verdict(openai_server, achieved=True):
    openai_server.respond(None, {"goal_achieved": achieved, "reason": "seen in the chat"})


def test_the_seed_yaml_gives_four_judges_and_three_beans():
    settings = load_settings(DATA / "seed-application.yaml", environ={"OPENROUTER_API_KEY": SECRET})
    with create_container(settings) as container:
        judges = container.judges()
        assert [judge.id for judge in judges] == [
            "anthropic/claude-3.5-sonnet",
            "google/gemini-2.5-flash",
            "openai/gpt-4o-mini",
            "deepseek/deepseek-v3.2",
        ]
        assert {judge.provider for judge in judges} == {"openrouter"}
        assert judges[0].endpoint == "https://openrouter.ai/api/v1/chat/completions"
        assert isinstance(container.tool_call_accuracy(), ToolCallAccuracyMetric)
        assert isinstance(container.agent_goal_accuracy(), AgentGoalAccuracyMetric)
        assert isinstance(container.topic_adherence(), TopicAdherenceMetric)
        assert container.agent_goal_accuracy() is container.agent_goal_accuracy()
        assert SECRET not in repr(container.settings())


def test_the_java_multi_provider_yaml_gives_twelve_judges_in_three_providers():
    settings = load_settings(
        DATA / "java-configs" / "multi-model-application-test.yml",
        environ={"OPENROUTER_API_KEY": SECRET, "CLOUD_RU_API_KEY": SECRET},
    )
    with create_container(settings) as container:
        judges = container.judges()
        assert len(judges) == 12
        assert [j.provider for j in judges].count("openrouter-efficient") == 5
        assert judges[-1].endpoint == ("https://foundation-models.api.cloud.ru/v1/chat/completions")


def test_the_same_judge_id_in_two_providers_fails_at_start_up(make_settings):
    settings = make_settings({"one": ["gpt"], "two": ["gpt"]})
    with pytest.raises(ConfigError, match="judge id 'gpt' is declared twice") as error:
        create_container(settings)
    assert error.value.key == "spring.ai.ragas.providers.openai-compatible[1].chat-models[0]"
    assert "alias" in str(error.value)


def test_an_alias_tells_duplicates_apart(openai_server, tmp_path):
    path = tmp_path / "application.yaml"
    path.write_text(
        f"""
spring.ai.ragas.providers.openai-compatible:
  - name: one
    base-url: {openai_server.base_url}
    api-key: k
    chat-models: [{{id: gpt}}]
  - name: two
    base-url: {openai_server.base_url}
    api-key: k
    chat-models: [{{id: gpt, alias: gpt-two}}]
"""
    )
    with create_container(load_settings(path, environ={})) as container:
        assert [j.id for j in container.judges()] == ["gpt", "gpt-two"]
        _verdict(openai_server)
        result = container.agent_goal_accuracy().evaluate(SAMPLE, {"models": ["gpt-two"]})
        assert list(result.model_scores) == ["gpt-two"]


def test_yaml_metric_defaults_reach_the_beans(make_container):
    container = make_container(
        extra="""
        spring.ai.ragas.metrics:
          language: ru
          aggregation: median
          tool-call-accuracy: {mode: flexible, argument-match-threshold: 0.5}
        """
    )
    bean = container.tool_call_accuracy()
    assert bean.defaults.mode.name == "FLEXIBLE"
    assert bean.defaults.argument_match_threshold == 0.5
    result = bean.evaluate(
        Sample(
            tool_calls=[{"name": "w", "arguments": {"city": "Tokyo", "units": "c"}}],
            reference_tool_calls=[{"name": "w", "arguments": {"city": "Tokyo", "units": "f"}}],
        )
    )
    assert result.score == 1.0
    assert result.language == "ru"


def test_a_bad_metric_default_in_yaml_names_the_key(make_container):
    with pytest.raises(ConfigError) as error:
        make_container(
            extra="""
            spring.ai.ragas.metrics.tool-call-accuracy:
              mode: fuzzy
            """
        ).tool_call_accuracy()
    assert error.value.key == "spring.ai.ragas.metrics.tool-call-accuracy.mode"


def test_providers_can_be_overridden_in_tests(make_container, openai_server):
    container = make_container(["judge-a", "judge-b"])
    spec = container.judges()[0].spec
    replacement = [OpenAICompatibleJudge(spec=dataclasses.replace(spec, id="stand-in"))]
    with container.judges.override(providers.Object(replacement)):
        container.executor.reset()
        container.agent_goal_accuracy.reset()
        _verdict(openai_server)
        result = container.agent_goal_accuracy().evaluate(SAMPLE)
        assert list(result.model_scores) == ["stand-in"]
    # The test made the stand-in, so the test closes it (on the loop that owns its client).
    container.portal().call(replacement[0].aclose())
    container.executor.reset()
    container.agent_goal_accuracy.reset()
    assert list(container.agent_goal_accuracy().evaluate(SAMPLE).model_scores) == [
        "judge-a",
        "judge-b",
    ]


def test_two_containers_do_not_share_anything(make_container):
    first, second = make_container(["judge-a"]), make_container(["judge-b"])
    assert first.executor() is not second.executor()
    assert first.portal() is not second.portal()


def test_closing_twice_is_harmless_and_a_closed_container_refuses_work(make_container):
    container = make_container(["judge-a"])
    container.close()
    container.close()
    assert container.closed
    with pytest.raises(RuntimeError, match="closed"):
        container.agent_goal_accuracy().evaluate(SAMPLE)


@pytest.mark.asyncio
async def test_async_with_closes_the_container(make_settings, openai_server):
    _verdict(openai_server)
    async with create_container(make_settings(["judge-a"])) as container:
        assert await container.agent_goal_accuracy().multi_turn_ascore(SAMPLE) == 1.0
    assert container.closed


# ---------------------------------------------------------------- mixing sync and async


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(tmp_path_factory):
    from ragas_boot.testing import FakeOpenAIServer

    with FakeOpenAIServer() as server:
        server.respond(None, {"goal_achieved": True, "reason": "ok"})
        path = tmp_path_factory.mktemp("shared") / "application.yaml"
        path.write_text(
            f"""
spring.ai.ragas.providers.openai-compatible:
  - name: local
    base-url: {server.base_url}
    api-key: k
    chat-models: [{{id: judge-a}}, {{id: judge-b}}]
"""
        )
        container = create_container(load_settings(path, environ={}))
        yield container
        await container.aclose()


@pytest.mark.asyncio
async def test_async_then_sync_in_one_running_loop(shared):
    metric = shared.agent_goal_accuracy()
    assert await metric.multi_turn_ascore(SAMPLE) == 1.0
    # A sync call inside a running loop neither deadlocks nor fails.
    assert metric.multi_turn_score(SAMPLE) == 1.0


@pytest.mark.asyncio
async def test_a_second_test_on_a_new_loop_reuses_the_same_container(shared):
    # The trap of dependency-injector #576: a client bound to the first test's loop.
    assert await shared.agent_goal_accuracy().multi_turn_ascore(SAMPLE) == 1.0


def test_plain_sync_test_uses_the_same_container(shared):
    assert shared.agent_goal_accuracy().multi_turn_score(SAMPLE) == 1.0


def test_notebook_style_repeated_asyncio_run(shared):
    async def score():
        return await shared.agent_goal_accuracy().multi_turn_ascore(SAMPLE)

    assert [asyncio.run(score()) for _ in range(3)] == [1.0, 1.0, 1.0]


def test_concurrent_evaluations_do_not_see_each_others_results(make_container, openai_server):
    container = make_container(["judge-a"])
    openai_server.respond(
        None,
        lambda request: {
            "goal_achieved": "Paris" in request.prompt,
            "reason": "Paris" if "Paris" in request.prompt else "Rome",
        },
    )
    metric = container.agent_goal_accuracy()
    samples = [
        Sample(
            user_input_messages=[HumanMessage(f"Fly to {city}"), AIMessage("Done")],
            reference=f"Flight to {city} booked",
        )
        for city in ["Paris", "Rome"] * 5
    ]

    async def run_all():
        return await asyncio.gather(*(metric.aevaluate(sample) for sample in samples))

    results = asyncio.run(run_all())
    assert [r.score for r in results] == [1.0, 0.0] * 5
    assert [r.metadata["reasons"]["judge-a"] for r in results] == ["Paris", "Rome"] * 5


def test_judges_are_logged_at_start_up_without_the_key(make_settings, caplog):
    caplog.set_level(logging.INFO, logger="ragas_boot")
    with create_container(make_settings(["judge-a", "judge-b"])):
        pass
    assert "ragas-boot judges: 2 in 1 provider(s): judge-a, judge-b" in caplog.text
    assert SECRET not in caplog.text


def test_switching_metrics_off_makes_the_beans_unavailable_with_the_key(make_container):
    container = make_container(["judge-a"], extra="spring.ai.ragas.metrics.enabled: false\n")
    with pytest.raises(ConfigError) as error:
        container.agent_goal_accuracy()
    assert error.value.key == "spring.ai.ragas.metrics.enabled"


def test_no_judges_configured_is_a_clear_error_not_a_failed_run(tmp_path, openai_server):
    path = tmp_path / "application.yaml"
    path.write_text("spring.ai.ragas.metrics.language: en\n")
    with create_container(load_settings(path, environ={})) as container:
        assert container.judges() == []
        with pytest.raises(ConfigError, match="no judges are configured") as error:
            container.agent_goal_accuracy().evaluate(SAMPLE)
        assert error.value.key == "spring.ai.ragas.providers"
        # ToolCallAccuracy needs no judge.
        tool_sample = Sample(tool_calls=[], reference_tool_calls=[])
        assert container.tool_call_accuracy().evaluate(tool_sample).score == 1.0


def test_a_typo_in_a_metric_section_names_the_key_once_with_a_hint(make_container):
    with pytest.raises(ConfigError) as error:
        make_container(
            extra="""
            spring.ai.ragas.metrics.topic-adherence:
              mdoe: recall
            """
        ).topic_adherence()
    message = str(error.value)
    assert message.count("spring.ai.ragas.metrics.topic-adherence.mdoe") == 1
    assert "did you mean 'mode'?" in message
