"""Under pytest-xdist (``-n 2``) every worker's score rows reach the controller's summary and
``--ragas-report``, with the config files and profiles the workers used."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("xdist", reason="needs pytest-xdist (the dev extra)")

#: Six tests over two modules, so both workers score some; each row's score tells it apart.
MODULE = """
import pytest

from ragas_boot import Sample, ToolCall
from ragas_boot.testing import assert_score

CALLS = [ToolCall("a"), ToolCall("b"), ToolCall("c"), ToolCall("d")]


@pytest.mark.parametrize("matched", [1, 2, 3])
def test_tools(tool_call_accuracy, matched):
    sample = Sample(tool_calls=CALLS[:matched], reference_tool_calls=CALLS)
    assert_score(tool_call_accuracy.single_turn_score(sample), at_least=0.0)


def test_goal(agent_goal_accuracy):
    assert_score(agent_goal_accuracy.evaluate(SAMPLE), at_least=0.9)
"""


def test_every_row_of_every_worker_reaches_the_summary_and_the_report(
    write_tests, project, goal_verdicts
):
    goal_verdicts(a=True, b=False)
    write_tests("test_one", MODULE)
    write_tests("test_two", MODULE)

    result = project.runpytest("-n", "2", "--ragas-report", "scores.json")

    result.assert_outcomes(passed=6, failed=2)
    rows = [
        f"test_{module}.py::test_tools[[]{matched}[]] * ToolCallAccuracy * {score} * ok >= 0*"
        for module in ("one", "two")
        for matched, score in ((1, "0.400"), (2, "0.667"), (3, "0.857"))
    ] + [
        f"test_{module}.py::test_goal * AgentGoalAccuracy * 0.500 * FAIL >= 0.9*"
        for module in ("one", "two")
    ]
    summary = result.stdout.str().split("ragas-boot scores")[1]
    for pattern in rows:
        result.stdout.fnmatch_lines([pattern])
    assert "8 scored test x metric row(s), 8 evaluation(s), 2 failed check(s)" in summary

    report = json.loads((project.path / "scores.json").read_text(encoding="utf-8"))
    scores = {(row["test"], row["metric"]): row["score"] for row in report["rows"]}
    assert len(scores) == 8
    for module in ("one", "two"):
        for matched in (1, 2, 3):
            key = (f"test_{module}.py::test_tools[{matched}]", "ToolCallAccuracyMetric")
            assert scores[key] == pytest.approx(2 * matched / (4 + matched))  # F1, recall m/4
        assert scores[f"test_{module}.py::test_goal", "AgentGoalAccuracyMetric"] == 0.5
    assert report["config"]["files"] == [str(project.path / "application.yaml")]
    assert report["config"]["profiles"] == ["default"]


def test_repeats_and_quorum_cross_from_the_workers(write_tests, project, goal_verdicts):
    with (project.path / "application.yaml").open("a", encoding="utf-8") as file:
        file.write(
            "\nspring.ai.ragas.metrics.agent-goal-accuracy.repeat: 2\n"
            "spring.ai.ragas.metrics.agent-goal-accuracy.min-judges: 2\n"
        )
    goal_verdicts(a=True, b=False)
    write_tests("test_one", MODULE)
    write_tests("test_two", MODULE)

    result = project.runpytest("-n", "2", "--ragas-report", "scores.json")

    result.assert_outcomes(passed=6, failed=2)
    for module in ("one", "two"):
        result.stdout.fnmatch_lines(
            [
                f"test_{module}.py::test_goal * AgentGoalAccuracy * 0.500 * FAIL >= 0.9 * "
                "2/2 100.0% [[]34.2%, 100.0%] * 2/2 ok (min 2) *"
            ]
        )
    report = json.loads((project.path / "scores.json").read_text(encoding="utf-8"))
    goals = [row for row in report["rows"] if row["metric"] == "AgentGoalAccuracyMetric"]
    assert len(goals) == 2
    for row in goals:
        [evaluation] = row["evaluations"]
        assert evaluation["result"]["repeats"]["scores"] == [0.5, 0.5]
        assert evaluation["result"]["quorum"] == {
            "required": 2,
            "answered": 2,
            "asked": 2,
            "met": True,
            "on_failure": "FAIL",
        }
