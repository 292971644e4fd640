"""The end-of-session score table and the ``--ragas-report`` JSON file."""

from __future__ import annotations

import json

import pytest

from ragas_boot.testing.server import Reply

TESTS = """
import pytest

from ragas_boot import Sample, ToolCall
from ragas_boot.testing import assert_score

CALLS = [ToolCall("search_flights", {"to": "Paris"})]


def test_goal(agent_goal_accuracy):
    assert_score(agent_goal_accuracy.evaluate(SAMPLE), at_least=0.9)


def test_tools(tool_call_accuracy):
    sample = Sample(tool_calls=CALLS, reference_tool_calls=CALLS)
    assert_score(tool_call_accuracy.single_turn_score(sample), at_least=0.99)


def test_twice(agent_goal_accuracy, tool_call_accuracy):
    agent_goal_accuracy.evaluate(SAMPLE)
    agent_goal_accuracy.evaluate(SAMPLE)
    tool_call_accuracy.evaluate(Sample(tool_calls=[], reference_tool_calls=CALLS))


def test_not_scored():
    pass
"""


@pytest.fixture
def scored(write_tests, project, goal_verdicts, openai_server):
    """The project above; judge-b is excluded from the second goal evaluation of test_twice."""
    goal_verdicts(a=True, b=False)
    write_tests("test_scored", TESTS)
    answered = {"n": 0}

    def judge_b(request):
        answered["n"] += 1
        if answered["n"] == 3:
            return Reply.error(401, "key revoked")
        return {"goal_achieved": False, "reason": "no"}

    openai_server.respond("judge-b", judge_b)
    return project


def test_one_row_per_scored_test_and_metric_with_each_judges_score(scored):
    result = scored.runpytest()

    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*= ragas-boot scores =*",
            "test * metric * score * check * judge-a * judge-b",
            "test_scored.py::test_goal * AgentGoalAccuracy * 0.500 * FAIL >= 0.9 * 1.00 * 0.00",
            "test_scored.py::test_tools * ToolCallAccuracy * 1.000 * ok >= 0.99 * — * —",
            "test_scored.py::test_twice * AgentGoalAccuracy * 0.750 (x2) * 1.00 * 0.00[*]",
            "test_scored.py::test_twice * ToolCallAccuracy * 0.000 * — * —",
            "*: excluded from some of the row's evaluations",
            "4 scored test x metric row(s), 5 evaluation(s), 1 failed check(s)",
        ]
    )
    assert "test_not_scored" not in result.stdout.str().split("ragas-boot scores")[1]


def test_the_report_holds_every_row_and_evaluation(scored):
    result = scored.runpytest("--ragas-report", "out/scores.json")

    result.stdout.fnmatch_lines(["ragas-boot report: */out/scores.json"])
    report = json.loads((scored.path / "out" / "scores.json").read_text(encoding="utf-8"))
    assert report["format"] == "ragas-boot.pytest/2"
    assert report["config"]["files"] == [str(scored.path / "application.yaml")]
    assert report["config"]["profiles"] == ["default"]
    rows = {(row["test"], row["metric"]): row for row in report["rows"]}
    assert list(rows) == [
        ("test_scored.py::test_goal", "AgentGoalAccuracyMetric"),
        ("test_scored.py::test_tools", "ToolCallAccuracyMetric"),
        ("test_scored.py::test_twice", "AgentGoalAccuracyMetric"),
        ("test_scored.py::test_twice", "ToolCallAccuracyMetric"),
    ]
    goal = rows["test_scored.py::test_goal", "AgentGoalAccuracyMetric"]
    assert goal["score"] == 0.5
    assert goal["model_scores"] == {"judge-a": 1.0, "judge-b": 0.0}
    assert goal["passed"] is False
    # Each evaluation is a dataset run's Evaluation (docs/report-json.md) with its test,
    # its metric's class name and the checks made on it.
    (evaluation,) = goal["evaluations"]
    assert evaluation["checks"] == [
        {"at_least": 0.9, "at_most": None, "passed": False, "equals": None, "tolerance": 0.0}
    ]
    assert evaluation["test"] == "test_scored.py::test_goal"
    assert (evaluation["metric"], evaluation["label"]) == (
        "agent_goal_accuracy",
        "AgentGoalAccuracyMetric",
    )
    # passed: against the metric's threshold (0.5), as in a run; the row's: its checks.
    assert (evaluation["status"], evaluation["passed"], goal["passed"]) == ("scored", True, False)
    result = evaluation["result"]
    assert result["metadata"]["reasons"] == {"judge-a": "judge-a says done", "judge-b": "no"}
    assert result["mode"] == "WITH_REFERENCE"
    assert result["explanation"].startswith("Goal achieved: 1 of 2")  # the tie rule: >= 0.5
    assert [step["name"] for step in result["steps"]] == ["CompareOutcome"]
    twice = rows["test_scored.py::test_twice", "AgentGoalAccuracyMetric"]
    assert [e["score"] for e in twice["evaluations"]] == [0.5, 1.0]
    assert twice["excluded"] == ["judge-b"]
    exclusions = twice["evaluations"][1]["result"]["exclusions"]
    assert exclusions == [
        {
            "judge_id": "judge-b",
            "step": "CompareOutcome",
            "kind": "auth",
            "message": exclusions[0]["message"],
        }
    ]
    assert "key revoked" in exclusions[0]["message"]
    assert twice["passed"] is None
    assert "sk-plugin-test-key" not in json.dumps(report)


def test_the_report_path_may_come_from_the_ini_file(plain, write_ini):
    write_ini("ragas_report = reports/ragas.json\n")
    plain.makepyfile("def test_plain(): pass")

    result = plain.runpytest()

    result.assert_outcomes(passed=1)
    report = json.loads((plain.path / "reports" / "ragas.json").read_text(encoding="utf-8"))
    assert report == {
        "format": "ragas-boot.pytest/2",
        "config": {"files": [], "profiles": []},
        "rows": [],
    }
    assert "ragas-boot scores" not in result.stdout.str()


#: A test whose judges all fail (the server answers every call with an error).
DOWN = """
import pytest
from ragas_boot import AllJudgesFailedError

def test_down(agent_goal_accuracy):
    with pytest.raises(AllJudgesFailedError):
        agent_goal_accuracy.evaluate(SAMPLE)
"""


def test_an_evaluation_every_judge_failed_shows_as_an_error_row(
    write_tests, project, openai_server
):
    openai_server.fail_always(None, Reply.error(401, "no key"))
    write_tests("test_down", DOWN)

    result = project.runpytest()

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        ["test_down.py::test_down * AgentGoalAccuracy * error * excl * excl"]
    )


def test_the_summary_shows_billed_tokens_and_cost_per_metric_and_judge(
    write_tests, project, openai_server
):
    text = (project.path / "application.yaml").read_text(encoding="utf-8")
    priced = "{ id: judge-a, price: {input-per-million: 1.0, output-per-million: 2.0} }"
    (project.path / "application.yaml").write_text(
        text.replace("{ id: judge-a }", priced), encoding="utf-8"
    )
    verdict = {"goal_achieved": True, "reason": "done"}
    # judge-a's first answer is invalid and re-asked: 150 + 110 tokens billed, 110 answered
    openai_server.script(
        "judge-a",
        Reply.text("not JSON", usage={"prompt_tokens": 100, "completion_tokens": 50}),
        Reply.json(verdict, usage={"prompt_tokens": 100, "completion_tokens": 10}),
    )
    openai_server.respond(
        "judge-b", Reply.json(verdict, usage={"prompt_tokens": 100, "completion_tokens": 10})
    )
    write_tests(
        "test_cost",
        "def test_goal(agent_goal_accuracy):\n    agent_goal_accuracy.evaluate(SAMPLE)\n",
    )
    result = project.runpytest()

    result.assert_outcomes(passed=1)
    cost = (200 * 1 + 60 * 2) / 1e6
    result.stdout.fnmatch_lines(
        [
            f"judge spend: 370 tokens billed (220 answered) · ${cost:.4f} + 110 unpriced tokens",
            f"  by metric: AgentGoalAccuracy 370 billed ${cost:.4f}",
            f"  by judge: judge-a 260 billed ${cost:.4f}; judge-b 110 billed",
        ]
    )


def test_repeats_show_their_pass_rate_interval_and_stability_as_one_evaluation(
    write_tests, project, openai_server
):
    with (project.path / "application.yaml").open("a", encoding="utf-8") as file:
        file.write("\nspring.ai.ragas.metrics.agent-goal-accuracy.repeat: 3\n")
    # Repeat scores 1.0, 0.5 and 0.0 against the threshold 0.5: two pass, one does not.
    achieved = {"goal_achieved": True, "reason": "done"}
    missed = {"goal_achieved": False, "reason": "no"}
    openai_server.script("judge-a", achieved, achieved, missed)
    openai_server.script("judge-b", achieved, missed, missed)
    write_tests(
        "test_repeats",
        """
        from ragas_boot.testing import assert_score

        def test_repeated(agent_goal_accuracy):
            assert_score(agent_goal_accuracy.evaluate(SAMPLE), at_least=0.5)
        """,
    )

    result = project.runpytest("--ragas-report", "scores.json")

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "test * metric * score * check * repeats * judge-a * judge-b",
            "test_repeats.py::test_repeated * AgentGoalAccuracy * 0.500 * ok >= 0.5 * "
            "2/3 66.7% [[]20.8%, 93.9%] unstable * 0.67 * 0.33",
            "repeats: repeats passed/scored, pass rate, 95% Wilson interval; unstable: *",
            # the three repeats are one evaluation (not three, nor four with assert_score's)
            "1 scored test x metric row(s), 1 evaluation(s), 0 failed check(s)",
        ]
    )
    assert "quorum" not in result.stdout.str().split("ragas-boot scores")[1]
    report = json.loads((project.path / "scores.json").read_text(encoding="utf-8"))
    [row] = report["rows"]
    [evaluation] = row["evaluations"]
    repeats = evaluation["result"]["repeats"]
    assert repeats["scores"] == [1.0, 0.5, 0.0]
    assert (repeats["passed"], repeats["unstable"]) == (2, True)
    assert [(c["at_least"], c["passed"]) for c in evaluation["checks"]] == [(0.5, True)]


def test_a_quorum_missed_in_a_repeat_is_shown(write_tests, project, openai_server):
    with (project.path / "application.yaml").open("a", encoding="utf-8") as file:
        file.write(
            "\nspring.ai.ragas.metrics.agent-goal-accuracy.repeat: 2\n"
            "spring.ai.ragas.metrics.agent-goal-accuracy.min-judges: 2\n"
        )
    openai_server.respond("judge-a", {"goal_achieved": True, "reason": "done"})
    # judge-b: achieved on the first repeat, then its key is revoked (excluded): the second
    # repeat has one judge of the two required, so no quorum and no score.
    openai_server.script(
        "judge-b", {"goal_achieved": True, "reason": "done"}, Reply.error(401, "key revoked")
    )
    write_tests(
        "test_unstable",
        """
        def test_unstable(agent_goal_accuracy):
            agent_goal_accuracy.evaluate(SAMPLE)
        """,
    )

    result = project.runpytest()

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "test * metric * score * check * repeats * quorum * judge-a * judge-b",
            "test_unstable.py::test_unstable * AgentGoalAccuracy * 1.000 * * "
            "1/1 100.0% [[]20.7%, 100.0%] * 1/2 MISSED (min 2) * 1.00 * 1.00[*]",
            "quorum: judges answered/asked against min-judges; MISSED: no score",
        ]
    )


def test_repeats_that_all_failed_are_one_error_evaluation(write_tests, project, openai_server):
    # The repeats are one evaluation whether they scored or not: the metric's last event
    # stands for them together (the first error, every repeat's steps).
    with (project.path / "application.yaml").open("a", encoding="utf-8") as file:
        file.write("\nspring.ai.ragas.metrics.agent-goal-accuracy.repeat: 2\n")
    # Each refusal bills 7 prompt tokens: the one row counts the calls of both repeats.
    openai_server.fail_always(None, Reply.error(401, "no key", usage={"prompt_tokens": 7}))
    write_tests("test_down", DOWN)

    result = project.runpytest()

    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "test_down.py::test_down * AgentGoalAccuracy * error * excl * excl",
            "1 scored test x metric row(s), 1 evaluation(s), 0 failed check(s)",
            "judge spend: 28 tokens billed (0 answered)",  # 2 judges x 2 repeats x 7
        ]
    )


CRITERIA_TESTS = """
from ragas_boot import Sample
from ragas_boot.metrics import AspectCriticConfig
from ragas_boot.testing import assert_score

SAMPLE = Sample(user_input="Where is order 12345?", response="Refund of 5500 RUB issued.")
CHECKS = [
    "The response has no profanity",
    "The response has no threats",
    "The response states the refund amount with its currency",
    "The response confirms the refund explicitly",
    "The response states the timeline in days",
]


def test_five_checks(aspect_critic):
    for definition in CHECKS:
        result = aspect_critic.evaluate(SAMPLE, AspectCriticConfig(definition=definition))
        assert_score(result, equals=1.0)
"""


def test_each_inline_criterion_has_its_own_row_and_the_failing_one_is_named(
    write_tests, project, openai_server
):
    def verdict(request):
        # The response gives no timeline: that check alone fails.
        return {"reasoning": "checked", "verdict": "timeline in days" not in request.prompt}

    openai_server.respond(None, verdict)
    write_tests("test_criteria", CRITERIA_TESTS)

    result = project.runpytest()

    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*AspectCritic:The response has no profanity * 1.000 * ok == 1 *",
            "*AspectCritic:The response has no threats * 1.000 * ok == 1 *",
            "*AspectCritic:The response states the refund amount with* 1.000 * ok == 1 *",
            "*AspectCritic:The response confirms the refund explicitly * 1.000 * ok == 1 *",
            "*AspectCritic:The response states the timeline in days * 0.000 * FAIL == 1 *",
            "5 scored test x metric row(s), 5 evaluation(s), 1 failed check(s)",
        ]
    )
    assert "(x5)" not in result.stdout.str()
