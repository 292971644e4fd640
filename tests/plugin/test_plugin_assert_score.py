"""``assert_score``: passes quietly, fails saying what each judge thought."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragas_boot import MetricResult
from ragas_boot._pytest.recording import ScoreCheck, ScoreRecorder, recording
from ragas_boot.execution.results import Exclusion
from ragas_boot.testing import assert_score
from ragas_boot.testing.server import Reply

RESULT = MetricResult(
    metric="AgentGoalAccuracyMetric",
    score=0.5,
    model_scores={"judge-a": 1.0, "judge-b": 0.0},
    exclusions=[
        Exclusion(
            judge_id="judge-c", step="CompareOutcome", kind="timeout", message="no answer in 30s"
        )
    ],
    metadata={"reasons": {"judge-a": "The flight is booked.", "judge-b": "No confirmation."}},
    explanation="Goal achieved: 1 of 2 judges said the goal was achieved.",
    judge_ids=["judge-a", "judge-b", "judge-c"],
    mode="WITH_REFERENCE",
    agreement=0.5,
)


@pytest.fixture
def recorder() -> Iterator[ScoreRecorder]:
    """A recorder of its own, so these checks stay out of this session's score table."""
    with recording(ScoreRecorder(current_test=lambda: "test_x")) as own:
        yield own


def test_a_score_within_bounds_passes(recorder):
    assert_score(RESULT, at_least=0.5)
    assert_score(RESULT, at_most=0.5)
    assert_score(0.75, at_least=0.7, at_most=0.8)
    assert [(c.at_least, c.at_most, c.passed) for c in recorder.records[0].checks] == [
        (0.5, None, True),
        (None, 0.5, True),
    ]


def test_the_failure_names_the_score_every_judge_its_reason_and_the_exclusions(recorder):
    with pytest.raises(AssertionError) as failure:
        assert_score(RESULT, at_least=0.8)

    assert str(failure.value).splitlines() == [
        "AgentGoalAccuracyMetric: score 0.500 is below at_least=0.8",
        "  mode WITH_REFERENCE, aggregation AVERAGE, agreement 0.50",
        "  judges (2 of 3 scored):",
        "    judge-a  1.000  The flight is booked.",
        "    judge-b  0.000  No confirmation.",
        "  excluded (1):",
        "    judge-c at CompareOutcome: timeout - no answer in 30s",
        "  explanation: Goal achieved: 1 of 2 judges said the goal was achieved.",
    ]
    assert recorder.records[0].checks[0].passed is False


def test_at_most_and_a_message(recorder):
    with pytest.raises(AssertionError, match=r"^booking: AgentGoalAccuracyMetric: score 0\.500 "):
        assert_score(RESULT, at_most=0.4, msg="booking")


def test_an_undefined_score_fails_with_its_reason(recorder):
    undefined = MetricResult(
        metric="TopicAdherenceMetric", score=None, undefined_reason="no topics found"
    )

    with pytest.raises(AssertionError, match=r"TopicAdherenceMetric: the score is undefined"):
        assert_score(undefined, at_least=0.1)


def test_a_bare_score_fails_with_the_details_of_the_evaluation_that_gave_it(recorder):
    recorder.check(RESULT, ScoreCheck(at_least=0.1, at_most=None, passed=True))

    with pytest.raises(AssertionError) as failure:
        assert_score(0.5, at_least=0.9)

    assert "judge-b  0.000  No confirmation." in str(failure.value)


def test_a_bare_score_nobody_reported_fails_plainly(recorder):
    with pytest.raises(AssertionError, match=r"^score: score 0\.300 is below at_least=0\.5$"):
        assert_score(0.3, at_least=0.5)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({}, TypeError, "needs at_least=, at_most=, both, or equals="),
        ({"at_least": 0.9, "at_most": 0.1}, ValueError, "at_least=0.9 is greater than"),
        ({"at_least": "0.5"}, TypeError, "at_least must be a number"),
        ({"at_most": float("nan")}, TypeError, "at_most must be a number"),
    ],
)
def test_bad_bounds_are_usage_errors(recorder, kwargs, error, match):
    with pytest.raises(error, match=match):
        assert_score(RESULT, **kwargs)


def test_in_a_real_run_the_message_shows_the_judges_answers(
    write_tests, project, goal_verdicts, openai_server
):
    goal_verdicts(a=True, b=False)
    write_tests(
        "test_gate",
        """
        from ragas_boot.testing import assert_score

        def test_result(agent_goal_accuracy):
            assert_score(agent_goal_accuracy.evaluate(SAMPLE), at_least=0.9)

        def test_bare_score(agent_goal_accuracy):
            assert_score(agent_goal_accuracy.multi_turn_score(SAMPLE), at_least=0.9)
        """,
    )
    project.makefile(
        ".yaml",
        application=(project.path / "application.yaml")
        .read_text()
        .replace("- { id: judge-b }", "- { id: judge-b }\n        - { id: judge-c }"),
    )
    openai_server.fail_always("judge-c", Reply.error(401, "bad key"))

    result = project.runpytest()

    result.assert_outcomes(failed=2)
    for test in ("test_result", "test_bare_score"):
        result.stdout.fnmatch_lines(
            [
                f"*_ {test} _*",
                "E * AgentGoalAccuracyMetric: score 0.500 is below at_least=0.9",
                "E *   mode WITH_REFERENCE, aggregation AVERAGE, agreement 0.50",
                "E *   judges (2 of 3 scored):",
                "E *     judge-a  1.000  judge-a says done",
                "E *     judge-b  0.000  judge-b says not done",
                "E *   excluded (1):",
                "E *     judge-c at CompareOutcome: auth - *bad key*",
                # A 1-of-2 split reads "achieved" (Java: score >= 0.5); the check still fails.
                "E *   explanation: Goal achieved: 1 of 2 judges*",
            ]
        )


def test_equals_is_javas_is_equal_to_within_a_tolerance(recorder):
    assert_score(RESULT, equals=0.5)
    assert_score(0.1 + 0.2, equals=0.3)  # float rounding passes the default tolerance
    assert_score(RESULT, equals=0.55, tolerance=0.05)
    with pytest.raises(AssertionError) as failure:
        assert_score(RESULT, equals=1.0)

    assert str(failure.value).splitlines()[0] == (
        "AgentGoalAccuracyMetric: score 0.500, expected == 1"
    )
    checks = recorder.records[0].checks
    assert [(c.label(), c.passed) for c in checks] == [
        ("== 0.5", True),
        ("== 0.55 ± 0.05", True),
        ("== 1", False),
    ]


def test_equals_does_not_mix_with_bounds_and_a_tolerance_is_not_negative(recorder):
    with pytest.raises(TypeError, match="equals= or at_least="):
        assert_score(RESULT, equals=0.5, at_least=0.4)
    with pytest.raises(ValueError, match=r"tolerance=-0\.1 is negative"):
        assert_score(RESULT, equals=0.5, tolerance=-0.1)
