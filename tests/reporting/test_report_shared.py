"""Every renderer lives in reporting/: one stylesheet for every page, one spelling of no score."""

from __future__ import annotations

import re

import pytest

from ragas_boot.config.settings import AllureSettings, QuorumFailure
from ragas_boot.execution.aggregation import wilson_interval
from ragas_boot.execution.listeners import EvaluationFinished
from ragas_boot.execution.results import Exclusion
from ragas_boot.metrics.results import MetricResult, Quorum, RepeatSummary, combine_repeats
from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting import render_html as render_run_html
from ragas_boot.reporting._style import STYLESHEET
from ragas_boot.reporting.allure_page import (
    page_name,
    render_page,
    render_repeats_page,
    repeats_page_name,
)
from ragas_boot.reporting.pytest_table import summary_lines
from ragas_boot.runs import RunResult
from ragas_boot.runs.evaluations import finished_evaluation
from ragas_boot.runs.pytest_session import PytestEvaluation, ScoreCheck, ScoreRow
from ragas_boot.runs.records import Evaluation, EvaluationError


def _event(**fields: object) -> EvaluationFinished:
    values: dict[str, object] = {
        "metric": "AgentGoalAccuracyMetric",
        "sample": None,
        "config": None,
        "judge_ids": ["judge-a", "judge-b", "judge-c"],
        "score": None,
        "model_scores": {},
        "steps": [],
        "exclusions": [],
        "duration_s": 0.25,
    }
    values.update(fields)
    return EvaluationFinished(**values)  # type: ignore[arg-type]


def _styles(page: str) -> list[str]:
    return re.findall(r"<style>(.*?)</style>", page, flags=re.DOTALL)


def test_every_page_carries_the_one_stylesheet(run: RunResult) -> None:
    pages = {
        "run": render_run_html(run),  # a suite run's page too: it is a RunResult
        "allure": render_page(_event(score=0.5, model_scores={"judge-a": 0.5})),
    }

    for name, page in pages.items():
        assert _styles(page) == [STYLESHEET], name
        assert "<main>" in page, name
    # the classes the suite and Allure pages use are in it
    for selector in (".gate.pass", ".gate.fail", ".tile", ".badge.good", ".badge.none"):
        assert selector in STYLESHEET


def _tested(
    test: str | None,
    metric: str,
    score: float | None,
    *,
    model_scores: dict[str, float] | None = None,
    excluded: tuple[str, ...] = (),
    checks: tuple[ScoreCheck, ...] = (),
    repeats: RepeatSummary | None = None,
    quorum: Quorum | None = None,
    failed: str | None = None,
) -> PytestEvaluation:
    """One recorded evaluation: a result (or, with ``failed``, the error) and its checks."""
    exclusions = [Exclusion(judge_id=j, step="Step", kind="timeout", message="") for j in excluded]
    if failed is not None:
        error = EvaluationError(kind="error", type="RuntimeError", message=failed)
        evaluation = Evaluation(metric="bean", status="failed", error=error)
    else:
        result = MetricResult(
            metric=metric,
            score=score,
            model_scores=model_scores or {},
            exclusions=exclusions,
            repeats=repeats,
            quorum=quorum,
        )
        evaluation = finished_evaluation("bean", result, threshold=0.5, duration_s=0.0)
    recorded = PytestEvaluation.of(evaluation, test=test, label=metric)
    for check in checks:
        recorded = recorded.with_check(check)
    return recorded


def _row(*evaluations: PytestEvaluation) -> ScoreRow:
    return ScoreRow.of(evaluations)


def _repeats(passed: int, scored: int, *, unstable: bool) -> RepeatSummary:
    low, high = wilson_interval(passed, scored)
    return RepeatSummary(
        runs=scored,
        scores=[],
        scored=scored,
        passed=passed,
        failed=0,
        pass_rate=passed / scored,
        ci_low=low,
        ci_high=high,
        confidence=0.95,
        unstable=unstable,
    )


def _quorum(required: int, answered: int, asked: int) -> Quorum:
    return Quorum(
        required=required,
        answered=answered,
        asked=asked,
        met=answered >= required,
        on_failure=QuorumFailure.FAIL,
    )


def test_the_pytest_table_pools_the_repeats_and_counts_missed_quorums_of_a_row() -> None:
    goal = "AgentGoalAccuracyMetric"
    rows = [
        _row(
            _tested(
                "t.py::one",
                goal,
                0.5,
                repeats=_repeats(2, 3, unstable=True),
                quorum=_quorum(2, 2, 2),
            )
        ),
        _row(
            _tested(
                "t.py::two",
                goal,
                0.5,
                repeats=_repeats(3, 3, unstable=False),
                quorum=_quorum(2, 2, 3),
            ),
            _tested(
                "t.py::two",
                goal,
                0.5,
                repeats=_repeats(1, 3, unstable=True),
                quorum=_quorum(2, 1, 3),
            ),
        ),
        _row(_tested("t.py::plain", "ToolCallAccuracyMetric", 1.0)),
    ]

    lines = summary_lines(rows)

    assert lines[0].split() == ["test", "metric", "score", "check", "repeats", "quorum"]
    assert "2/3 66.7% [20.8%, 93.9%] unstable" in lines[1]  # the 95% Wilson interval of 2/3
    assert "2/2 ok (min 2)" in lines[1]
    # pooled: 4 of 6 repeats passed, Wilson interval of 4/6, one evaluation unstable
    low, high = wilson_interval(4, 6)
    assert f"4/6 66.7% {fmt.interval(low, high)} 1 unstable" in lines[2]
    assert "MISSED 1 of 2 (min 2)" in lines[2]
    assert lines[3].split() == [
        "t.py::plain",
        "ToolCallAccuracy",
        "1.000",
        fmt.MISSING,
        fmt.MISSING,
    ]


def test_the_pytest_table_marks_missing_scores_and_unasked_judges() -> None:
    passed = ScoreCheck(at_least=0.9, at_most=None, passed=True)
    rows = [
        _row(
            _tested(
                "t.py::a",
                "AgentGoalAccuracyMetric",
                0.5,
                model_scores={"x/judge-a": 1.0, "x/judge-b": 0.0},
            )
        ),
        _row(_tested("t.py::b", "ToolCallAccuracyMetric", 1.0, checks=(passed,))),
        _row(_tested("t.py::c", "TopicAdherenceMetric", None, excluded=("x/judge-a",))),
        _row(_tested(None, "TopicAdherenceMetric", None, failed="AllJudgesFailedError: down")),
    ]

    lines = summary_lines(rows)

    assert lines[0].split() == ["test", "metric", "score", "check", "judge-a", "judge-b"]
    assert lines[1].split() == ["t.py::a", "AgentGoalAccuracy", "0.500", "1.00", "0.00"]
    assert (
        lines[2].split()
        == ["t.py::b", "ToolCallAccuracy", "1.000", "ok", ">=", "0.9"] + [fmt.MISSING] * 2
    )
    assert lines[3].split() == ["t.py::c", "TopicAdherence", fmt.MISSING, "excl", fmt.MISSING]
    assert lines[4].split()[:5] == ["(outside", "a", "test)", "TopicAdherence", "error"]
    assert lines[-1] == "4 scored test x metric row(s), 4 evaluation(s), 0 failed check(s)"
    assert not any(" - " in line or "n/a" in line for line in lines)


def test_the_pytest_table_of_no_rows_is_a_header_and_the_count() -> None:
    assert summary_lines([]) == [
        "test  metric  score  check",
        "0 scored test x metric row(s), 0 evaluation(s), 0 failed check(s)",
    ]


def test_the_allure_page_shows_judges_exclusions_and_errors_escaped() -> None:
    event = _event(
        metric="Agent<Goal>Metric",
        score=None,
        model_scores={"judge-a": 1.0},
        exclusions=[
            Exclusion(judge_id="judge-b", step="verdict", kind="http", message="<b>401</b>")
        ],
        error="AllJudgesFailedError: <script>",
        metadata={"reasons": {"judge-a": "done & dusted"}},
    )

    page = render_page(event, AllureSettings())

    assert page_name(event) == f"Agent<Goal>Metric = {fmt.MISSING}"
    assert f"<span class='badge none'>{fmt.MISSING}</span>" in page
    assert "<tr><td>judge-a</td><td>1.000</td><td>done &amp; dusted</td></tr>" in page
    assert "<td>judge-b</td><td>excluded</td><td>verdict: http - &lt;b&gt;401&lt;/b&gt;" in page
    assert f"<tr><td>judge-c</td><td>{fmt.MISSING}</td><td></td></tr>" in page
    assert "&lt;script&gt;" in page
    assert "<script>" not in page
    assert "Agent&lt;Goal&gt;Metric" in page


@pytest.mark.parametrize(
    ("score", "css"), [(0.9, "good"), (0.8, "good"), (0.5, "fair"), (0.1, "poor")]
)
def test_the_allure_badge_follows_the_score(score: float, css: str) -> None:
    page = render_page(_event(score=score, model_scores={"judge-a": score}))

    assert f"<span class='badge {css}'>{score:.3f}</span>" in page


def test_a_computed_metric_page_says_so() -> None:
    page = render_page(_event(judge_ids=[], score=1.0))

    assert "Computed without judges." in page


def test_the_allure_repeats_page_shows_pass_rate_stability_and_each_repeat() -> None:
    missed = Quorum(required=2, answered=1, asked=2, met=False, on_failure="FAIL")
    combined = combine_repeats(
        [
            MetricResult(metric="AgentGoalAccuracyMetric", score=1.0),
            MetricResult(metric="AgentGoalAccuracyMetric", score=0.0),
            MetricResult(metric="AgentGoalAccuracyMetric", score=None, quorum=missed),
        ],
        0.5,
    )

    page = render_repeats_page(combined, 0.5)

    assert repeats_page_name(combined) == "AgentGoalAccuracyMetric = 0.500 (3 repeats)"
    assert "<td>1/2</td><td>50.0%</td>" in page
    assert "unstable" in page and "not reproducible" in page
    assert "Quorum: 1 of 2 judges answered, min-judges 2" in page
    assert re.findall(r"<td>(pass|fail|no score)</td>", page) == ["pass", "fail", "no score"]


def test_an_allure_page_of_an_inline_criterion_is_named_after_it() -> None:
    inline = _event(
        metric="AspectCriticMetric",
        score=0.0,
        metadata={"definition": "The response states the timeline in days"},
    )
    named = _event(
        metric="AspectCriticMetric:timeline", score=1.0, metadata={"definition": "In days"}
    )

    assert page_name(inline) == (
        "AspectCriticMetric:The response states the timeline in days = 0.000"
    )
    assert page_name(named) == "AspectCriticMetric:timeline = 1.000"
