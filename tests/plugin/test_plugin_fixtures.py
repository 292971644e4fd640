"""The plugin's fixtures: settings, the session container, beans, ``ragas_metric``, the server."""

from __future__ import annotations

import json
import threading

import pytest


def _portal_threads() -> list[str]:
    return [thread.name for thread in threading.enumerate() if thread.name.startswith("ragas")]


def test_the_bean_fixtures_give_the_container_singletons(write_tests, project, goal_verdicts):
    goal_verdicts()
    write_tests(
        "test_beans",
        """
        from ragas_boot import RagasContainer, RagasSettings
        from ragas_boot.metrics import (
            AgentGoalAccuracyMetric, ToolCallAccuracyMetric, TopicAdherenceMetric,
        )

        CONTAINERS = []

        def test_beans(ragas_settings, ragas_container, tool_call_accuracy,
                       agent_goal_accuracy, topic_adherence):
            assert isinstance(ragas_settings, RagasSettings)
            assert isinstance(ragas_container, RagasContainer)
            assert [judge.id for judge in ragas_container.judges()] == ["judge-a", "judge-b"]
            assert isinstance(tool_call_accuracy, ToolCallAccuracyMetric)
            assert isinstance(agent_goal_accuracy, AgentGoalAccuracyMetric)
            assert isinstance(topic_adherence, TopicAdherenceMetric)
            assert agent_goal_accuracy is ragas_container.agent_goal_accuracy()
            CONTAINERS.append(ragas_container)

        def test_the_container_lives_for_the_session(ragas_container, agent_goal_accuracy):
            assert CONTAINERS == [ragas_container]
            assert agent_goal_accuracy.evaluate(SAMPLE).score == 1.0
        """,
    )
    project.makeconftest(
        """
        import json

        def pytest_sessionfinish(session):
            import test_beans
            closed = [container.closed for container in test_beans.CONTAINERS]
            with open("closed.json", "w") as file:
                json.dump(closed, file)
        """
    )

    result = project.runpytest()

    result.assert_outcomes(passed=2)
    assert json.loads((project.path / "closed.json").read_text()) == [True]
    assert _portal_threads() == []


def test_async_tests_on_different_loops_share_the_session_container(
    write_tests, project, goal_verdicts, openai_server
):
    goal_verdicts(b=False)
    write_tests(
        "test_loops",
        """
        import asyncio

        import pytest

        SEEN = []

        @pytest.mark.asyncio(loop_scope="function")
        async def test_on_a_function_loop(ragas_container, agent_goal_accuracy):
            result = await agent_goal_accuracy.aevaluate(SAMPLE)
            assert result.model_scores == {"judge-a": 1.0, "judge-b": 0.0}
            SEEN.append((asyncio.get_running_loop(), ragas_container))

        @pytest.mark.asyncio(loop_scope="module")
        async def test_on_the_module_loop(ragas_container, agent_goal_accuracy):
            score = await agent_goal_accuracy.multi_turn_ascore(SAMPLE)
            assert score == 0.5
            SEEN.append((asyncio.get_running_loop(), ragas_container))

        def test_sync_in_between(agent_goal_accuracy):
            assert agent_goal_accuracy.multi_turn_score(SAMPLE) == 0.5

        @pytest.mark.asyncio(loop_scope="function")
        async def test_again_on_a_new_loop(ragas_container, agent_goal_accuracy):
            assert (await agent_goal_accuracy.aevaluate(SAMPLE)).score == 0.5
            SEEN.append((asyncio.get_running_loop(), ragas_container))

        def test_loops_differ_and_the_container_is_shared():
            loops = {id(loop) for loop, _ in SEEN}
            containers = {id(container) for _, container in SEEN}
            assert len(SEEN) == 3 and len(loops) == 3 and len(containers) == 1
        """,
    )

    result = project.runpytest()

    result.assert_outcomes(passed=5)
    assert openai_server.count() == 8  # 4 evaluations x 2 judges, over HTTP
    assert _portal_threads() == []


def test_ragas_metric_finds_a_bean_by_any_of_its_names(write_tests, project):
    write_tests(
        "test_metric_factory",
        """
        import pytest

        def test_names(ragas_metric, topic_adherence, ragas_container):
            for name in ("topic_adherence", "topic-adherence", "TopicAdherenceMetric",
                         "TopicAdherence", "topicadherencemetric"):
                assert ragas_metric(name) is topic_adherence, name
            assert ragas_metric("judges") == ragas_container.judges()

        def test_unknown_name(ragas_metric):
            with pytest.raises(LookupError, match="no bean named 'no_such_metric'") as error:
                ragas_metric("no_such_metric")
            assert "tool_call_accuracy" in str(error.value)
        """,
    )

    project.runpytest().assert_outcomes(passed=2)


def test_a_missing_config_fails_the_tests_that_need_it_and_says_what_to_do(plain):
    plain.makepyfile(
        """
        def test_with_settings(ragas_settings):
            pass

        def test_without():
            pass
        """
    )

    result = plain.runpytest()

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ragas-boot could not load its settings: no configuration file found*",
            "*--ragas-config PATH*ragas_config = PATH*",
        ]
    )


def test_ragas_openai_server_serves_the_whole_session(plain):
    plain.makepyfile(
        """
        import openai

        URLS = []

        def test_first(ragas_openai_server):
            ragas_openai_server.script("judge", {"verdict": 1})
            with openai.OpenAI(base_url=ragas_openai_server.url, api_key="k",
                               max_retries=0) as client:
                answer = client.chat.completions.create(
                    model="judge", messages=[{"role": "user", "content": "Judge."}]
                )
            assert answer.choices[0].message.content == '{"verdict": 1}'
            URLS.append(ragas_openai_server.base_url)

        def test_second(ragas_openai_server):
            assert ragas_openai_server.running
            assert URLS == [ragas_openai_server.base_url]
            assert ragas_openai_server.count("judge") == 1
        """
    )

    plain.runpytest().assert_outcomes(passed=2)


@pytest.mark.parametrize("fixture", ["tool_call_accuracy", "ragas_metric", "ragas_inject"])
def test_fixtures_are_listed_with_their_docs(plain, fixture):
    result = plain.runpytest("--fixtures")

    assert fixture in result.stdout.str()


def test_switched_off_metrics_fail_only_the_tests_that_ask_for_them(write_tests, project):
    (project.path / "application.yaml").write_text(
        (project.path / "application.yaml").read_text()
        + "\nspring.ai.ragas.metrics.enabled: false\n"
    )
    write_tests(
        "test_off",
        """
        def test_judges(ragas_container):
            assert len(ragas_container.judges()) == 2

        def test_bean(agent_goal_accuracy):
            pass
        """,
    )

    result = project.runpytest()

    result.assert_outcomes(passed=1, errors=1)
    result.stdout.fnmatch_lines(["*metric beans are switched off*"])


def test_case_expectations_is_a_bean_fixture_like_any_metric(write_tests, project):
    write_tests(
        "test_cases",
        """
        from ragas_boot import AIMessage, HumanMessage, Sample
        from ragas_boot.metrics import CaseExpectationsMetric

        def test_keywords_and_budgets(case_expectations, ragas_container):
            assert isinstance(case_expectations, CaseExpectationsMetric)
            assert case_expectations is ragas_container.case_expectations()
            sample = Sample(
                user_input_messages=[HumanMessage("Weather?"), AIMessage("Sunny in Hue.")],
                expectations={"response_contains": ["Hue", "rain"], "max_tool_calls": 0},
            )
            result = case_expectations.evaluate(sample)
            assert result.score == 2 / 3
            assert result.metadata["failed_checks"][0]["expected"] == ["rain"]
        """,
    )

    project.runpytest().assert_outcomes(passed=1)
