"""With allure-pytest reporting, each evaluation attaches an HTML page to its Allure step.

allure-pytest is not a dependency: this test skips when it is not installed. To run it:
``pip install --target /tmp/allure allure-pytest`` and ``PYTHONPATH=/tmp/allure pytest ...``.
"""

from __future__ import annotations

import json

import pytest

pytest.importorskip("allure_pytest")


def _results(folder):
    results = [json.loads(path.read_text()) for path in folder.glob("*-result.json")]
    return {result["name"]: result for result in results}


def test_each_evaluation_attaches_a_page_to_the_step_that_ran_it(
    write_tests, project, goal_verdicts
):
    goal_verdicts(b=False)
    write_tests(
        "test_allure",
        """
        import allure
        import pytest
        from ragas_boot import Sample, ToolCall

        CALLS = [ToolCall("search_flights", {"to": "Paris"})]

        def test_steps(agent_goal_accuracy, tool_call_accuracy):
            with allure.step("judge the booking"):
                agent_goal_accuracy.evaluate(SAMPLE)
            with allure.step("check the calls"):
                tool_call_accuracy.evaluate(Sample(tool_calls=CALLS, reference_tool_calls=CALLS))
            agent_goal_accuracy.evaluate(SAMPLE)

        @pytest.mark.asyncio
        async def test_async(agent_goal_accuracy):
            with allure.step("awaited"):
                await agent_goal_accuracy.aevaluate(SAMPLE)

        def test_not_scored():
            pass
        """,
    )

    result = project.runpytest("--alluredir", "allure-results")

    result.assert_outcomes(passed=3)
    folder = project.path / "allure-results"
    tests = _results(folder)
    steps = {step["name"]: step for step in tests["test_steps"]["steps"]}
    (booking,) = steps["judge the booking"]["attachments"]
    assert booking["name"] == "AgentGoalAccuracyMetric = 0.500"
    assert booking["type"] == "text/html"
    page = (folder / booking["source"]).read_text(encoding="utf-8")
    for text in ("judge-a", "judge-b says not done", "CompareOutcome", "<svg", "Prompt"):
        assert text in page
    (calls,) = steps["check the calls"]["attachments"]
    assert calls["name"] == "ToolCallAccuracyMetric = 1.000"
    (outside,) = tests["test_steps"]["attachments"]
    assert outside["name"] == "AgentGoalAccuracyMetric = 0.500"
    (awaited,) = tests["test_async"]["steps"][0]["attachments"]
    assert awaited["name"] == "AgentGoalAccuracyMetric = 0.500"
    assert (
        "attachments" not in tests["test_not_scored"] or not tests["test_not_scored"]["attachments"]
    )


def test_the_yaml_can_switch_the_pages_off(write_tests, project, goal_verdicts):
    goal_verdicts()
    (project.path / "application.yaml").write_text(
        (project.path / "application.yaml").read_text()
        + "\nspring.ai.ragas.allure.enabled: false\n"
    )
    write_tests(
        "test_off",
        """
        def test_off(agent_goal_accuracy):
            agent_goal_accuracy.evaluate(SAMPLE)
        """,
    )

    project.runpytest("--alluredir", "allure-results").assert_outcomes(passed=1)

    assert not _results(project.path / "allure-results")["test_off"].get("attachments")


def test_repeats_get_a_page_each_and_one_of_their_pass_rate_and_quorum(
    write_tests, project, openai_server
):
    from ragas_boot.testing import Reply

    with (project.path / "application.yaml").open("a", encoding="utf-8") as file:
        file.write(
            "\nspring.ai.ragas.metrics.agent-goal-accuracy.repeat: 3\n"
            "spring.ai.ragas.metrics.agent-goal-accuracy.min-judges: 2\n"
        )
    achieved = {"goal_achieved": True, "reason": "done"}
    missed = {"goal_achieved": False, "reason": "no"}
    # Repeat scores 1.0 and 0.0 (unstable around 0.5); in the third judge-b's key is revoked,
    # one judge of the two required answers: no quorum, no score.
    openai_server.script("judge-a", achieved, missed, achieved)
    openai_server.script("judge-b", achieved, missed, Reply.error(401), Reply.error(401))
    write_tests(
        "test_repeats",
        """
        import allure

        def test_repeated(agent_goal_accuracy):
            with allure.step("judge three times"):
                agent_goal_accuracy.evaluate(SAMPLE)
        """,
    )

    result = project.runpytest("--alluredir", "allure-results")

    result.assert_outcomes(passed=1)
    folder = project.path / "allure-results"
    (step,) = _results(folder)["test_repeated"]["steps"]
    names = [attachment["name"] for attachment in step["attachments"]]
    assert names == [
        "AgentGoalAccuracyMetric = 1.000 (repeat 1/3)",
        "AgentGoalAccuracyMetric = 0.000 (repeat 2/3)",
        "AgentGoalAccuracyMetric = — (repeat 3/3)",
        "AgentGoalAccuracyMetric = 0.500 (3 repeats)",
    ]
    pages = [(folder / item["source"]).read_text(encoding="utf-8") for item in step["attachments"]]
    assert "repeat 1 of 3" in pages[0]
    assert "Quorum: 2 of 2 judges answered, min-judges 2" in pages[0]
    assert "Quorum: 1 of 2 judges answered, min-judges 2" in pages[2]
    assert "MISSED: no score" in pages[2]
    summary = pages[3]
    for text in ("1/2", "50.0%", "unstable", "95% CI", "MISSED: no score", "no score"):
        assert text in summary, text
    assert summary.count("<td>pass</td>") == 1 and summary.count("<td>fail</td>") == 1
