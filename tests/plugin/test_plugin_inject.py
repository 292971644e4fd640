"""Spring-style injection: ``@inject`` + ``Provide["<bean>"]`` in tests, wired by the plugin."""

from __future__ import annotations


def test_functions_and_methods_get_their_beans_without_calling_wire(
    write_tests, project, goal_verdicts
):
    goal_verdicts(b=False)
    write_tests(
        "test_injected",
        """
        import pytest
        from dependency_injector.wiring import Provide, inject

        from ragas_boot.metrics import AgentGoalAccuracyMetric, ToolCallAccuracyMetric

        INJECTED = []

        @inject
        def test_function(metric: AgentGoalAccuracyMetric = Provide["agent_goal_accuracy"]):
            assert metric.multi_turn_score(SAMPLE) == 0.5
            INJECTED.append(metric)

        @inject
        def test_with_a_fixture_too(
            tool_call_accuracy, metric: ToolCallAccuracyMetric = Provide["tool_call_accuracy"]
        ):
            assert metric is tool_call_accuracy

        class TestAutowired:
            @inject
            def test_method(self, metric=Provide["agent_goal_accuracy"],
                            judges=Provide["judges"]):
                assert isinstance(metric, AgentGoalAccuracyMetric)
                assert [judge.id for judge in judges] == ["judge-a", "judge-b"]
                assert metric.evaluate(SAMPLE).model_scores == {"judge-a": 1.0, "judge-b": 0.0}

            @pytest.mark.asyncio
            @inject
            async def test_async_method(self, metric=Provide["agent_goal_accuracy"]):
                assert await metric.multi_turn_ascore(SAMPLE) == 0.5

        def test_the_same_bean_as_the_fixture(agent_goal_accuracy):
            assert INJECTED == [agent_goal_accuracy]
        """,
    )

    result = project.runpytest("-v")

    result.assert_outcomes(passed=5)


def test_a_bean_id_with_a_typo_fails_the_test_and_suggests_the_name(write_tests, project):
    write_tests(
        "test_typo",
        """
        from dependency_injector.wiring import Provide, inject

        @inject
        def test_typo(metric=Provide["agent_goal_acuracy"]):
            raise AssertionError("not reached")
        """,
    )

    result = project.runpytest()

    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(
        [
            "*ragas-boot cannot inject into test_typo: no bean named 'agent_goal_acuracy' "
            "(did you mean 'agent_goal_accuracy'?). The container's beans: *",
        ]
    )


def test_other_beans_only_are_injected_when_the_module_asks(write_tests, project):
    write_tests(
        "test_asks",
        """
        import pytest
        from dependency_injector.wiring import Provide, inject

        pytestmark = pytest.mark.usefixtures("ragas_inject")

        @inject
        def test_settings(settings=Provide["settings"], executor=Provide["executor"]):
            assert executor.judge_ids == ["judge-a", "judge-b"]
            assert settings.providers.openai_compatible[0].name == "local"
        """,
    )

    project.runpytest().assert_outcomes(passed=1)


def test_tests_wiring_their_own_container_are_left_alone(plain):
    plain.makepyfile(
        """
        import sys

        from dependency_injector import containers, providers
        from dependency_injector.wiring import Provide, inject

        class App(containers.DeclarativeContainer):
            greeting = providers.Object("hello")
            settings = providers.Object({"mine": True})

        @inject
        def test_own(greeting=Provide["greeting"], settings=Provide["settings"]):
            assert (greeting, settings) == ("hello", {"mine": True})

        App().wire(modules=[sys.modules[__name__]])

        def test_no_ragas_container(request):
            assert "ragas_inject" not in request.node.session.items[0].fixturenames
        """
    )

    result = plain.runpytest()

    result.assert_outcomes(passed=2)
    assert "ragas-boot:" not in result.stdout.str()
    assert "ragas-boot scores" not in result.stdout.str()
