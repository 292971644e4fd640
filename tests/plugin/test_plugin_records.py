"""The plugin's records are the Evaluations a dataset run keeps: the report shows them in the
run report's shape, failed ones with their error, and under pytest-xdist they cross whole."""

from __future__ import annotations

import json

import pytest

from ragas_boot.runs.pytest_session import PytestReport
from ragas_boot.runs.records import Evaluation
from ragas_boot.testing.server import Reply

TESTS = """
import pytest

from ragas_boot import AllJudgesFailedError
from ragas_boot.testing import assert_score


def test_goal(agent_goal_accuracy):
    assert_score(agent_goal_accuracy.evaluate(SAMPLE), at_least=0.5)


def test_down(agent_goal_accuracy):
    with pytest.raises(AllJudgesFailedError):
        agent_goal_accuracy.evaluate(SAMPLE, {"models": ["judge-b"]})
"""


def _report(project: pytest.Pytester, name: str = "scores.json") -> dict:
    return json.loads((project.path / name).read_text(encoding="utf-8"))


def test_each_evaluation_is_a_run_evaluation_with_its_test_and_checks(
    write_tests, project, openai_server
):
    with (project.path / "application.yaml").open("a", encoding="utf-8") as file:
        file.write("\nspring.ai.ragas.metrics.agent-goal-accuracy.repeat: 2\n")
    openai_server.respond("judge-a", {"goal_achieved": True, "reason": "booked"})
    # judge-b refuses every call and bills 7 prompt tokens each time.
    openai_server.fail_always("judge-b", Reply.error(401, "no key", usage={"prompt_tokens": 7}))
    write_tests("test_records", TESTS)

    result = project.runpytest("--ragas-report", "scores.json")

    result.assert_outcomes(passed=2)
    report = _report(project)
    PytestReport.model_validate(report)  # the document is the report model's JSON
    goal, down = (row["evaluations"][0] for row in report["rows"])
    for evaluation in (goal, down):
        Evaluation.model_validate(evaluation)
        assert evaluation["metric"] == "agent_goal_accuracy"
        assert evaluation["label"] == "AgentGoalAccuracyMetric"
    assert goal["test"] == "test_records.py::test_goal"
    assert (goal["status"], goal["score"], goal["error"]) == ("scored", 1.0, None)
    assert goal["result"]["repeats"]["runs"] == 2
    assert [check["passed"] for check in goal["checks"]] == [True]
    assert down["test"] == "test_records.py::test_down"
    assert (down["status"], down["result"], down["checks"]) == ("failed", None, [])
    error = down["error"]
    assert (error["kind"], error["type"], error["step"]) == (
        "all_judges_failed",
        "AllJudgesFailedError",
        "CompareOutcome",
    )
    # Both repeats' refused calls, as the table's spend counts them.
    calls = [call for step in error["steps"] for call in step["calls"]]
    assert [(call["judge_id"], call["ok"]) for call in calls] == [("judge-b", False)] * 2
    assert [failure["judge_id"] for failure in error["failures"]] == ["judge-b"] * 2
    # judge-b's refusals: 2 repeats x 7 tokens in each test.
    result.stdout.fnmatch_lines(["  by judge: judge-a * billed; judge-b 28 billed"])


def test_a_secret_of_the_config_quoted_by_a_judge_is_masked_in_the_report(
    write_tests, project, openai_server
):
    # A second provider's key, which judge-a's own key scrubbing does not know.
    secret = "sk-second-provider-secret"
    with (project.path / "application.yaml").open("a", encoding="utf-8") as file:
        file.write(
            "\n"
            "spring.ai.ragas.providers.openai-compatible[1]:\n"
            "  name: second\n"
            f"  base-url: {openai_server.base_url}\n"
            f"  api-key: {secret}\n"
            "  chat-models: [{ id: judge-c }]\n"
        )
    for judge in ("judge-a", "judge-b"):  # the first provider's judges quote the second's key
        openai_server.respond(judge, {"goal_achieved": True, "reason": f"the key is {secret}"})
    openai_server.respond("judge-c", {"goal_achieved": True, "reason": "done"})
    write_tests(
        "test_secret",
        "def test_goal(agent_goal_accuracy):\n    agent_goal_accuracy.evaluate(SAMPLE)\n",
    )

    result = project.runpytest("--ragas-report", "scores.json")

    result.assert_outcomes(passed=1)
    text = (project.path / "scores.json").read_text(encoding="utf-8")
    assert secret not in text
    reasons = json.loads(text)["rows"][0]["evaluations"][0]["result"]["metadata"]["reasons"]
    assert reasons == {
        "judge-a": "the key is ****",
        "judge-b": "the key is ****",
        "judge-c": "done",
    }


def test_under_xdist_the_workers_judge_calls_reach_the_spend_and_cache_lines(
    write_tests, project, goal_verdicts, tmp_path
):
    pytest.importorskip("xdist", reason="needs pytest-xdist (the dev extra)")
    config = project.path / "application.yaml"
    folder = tmp_path / "xdist-cache"
    config.write_text(
        config.read_text(encoding="utf-8")
        + f"\nspring.ai.ragas.cache: {{loopback: true, dir: '{folder}'}}\n",
        encoding="utf-8",
    )
    goal_verdicts(a=True, b=True)
    for module in ("test_one", "test_two"):
        write_tests(
            module,
            "def test_goal(agent_goal_accuracy):\n    agent_goal_accuracy.evaluate(SAMPLE)\n",
        )

    result = project.runpytest("-n", "2", "--ragas-report", "scores.json")

    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "judge spend: * tokens billed (* answered)",
            "  by judge: judge-a * billed; judge-b * billed",
            "ragas-boot cache: * hits, * misses, * tokens saved",
        ]
    )
    report = _report(project)
    calls = [
        call
        for row in report["rows"]
        for evaluation in row["evaluations"]
        for step in evaluation["result"]["steps"]
        for call in step["calls"]
    ]
    assert len(calls) == 4  # two tests x two judges, each call with its prompt and answer
    assert all(call["prompt"] and call["raw_text"] for call in calls)
