"""diff_runs: which changes are regressions (pass rate, mean beyond the tolerance, lower is
better, nothing scored) and which samples crossed the threshold."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ragas_boot.runs.history import StoredMetric, StoredRun, StoredScore
from ragas_boot.runs.regressions import diff_runs

NOW = datetime(2026, 11, 25, tzinfo=UTC)


def run(run_id: str, metrics: dict[str, tuple[float | None, float | None]], **kwargs) -> StoredRun:
    """A run whose metrics have the given (mean, pass rate); ``lower`` names lower-is-better
    metrics, ``scores`` gives (sample, metric, score, passed) rows, ``costs`` metric costs."""
    lower = kwargs.get("lower", ())
    costs = kwargs.get("costs", {})
    return StoredRun(
        id=run_id, kind="evaluate", recorded_at=NOW, started_at=NOW, duration_s=1.0,
        dataset="d", dataset_path=None, samples=2, config_files=[], profiles=[], judges=[],
        evaluations=2, scored=2, failed=0, total_tokens=0, cost_usd=None, stopped=None,
        metrics=[
            StoredMetric(
                metric=name, threshold=0.5, lower_is_better=name in lower, evaluations=2,
                scored=0 if mean is None else 2, failed=2 if mean is None else 0, passed=0,
                mean=mean, pass_rate=rate, total_tokens=0, cost_usd=costs.get(name),
            )
            for name, (mean, rate) in metrics.items()
        ],
        scores=[
            StoredScore(
                sample_id=sample, metric=metric, status="scored" if score is not None else
                "failed", score=score, passed=passed, cost_usd=None,
            )
            for sample, metric, score, passed in kwargs.get("scores", ())
        ],
    )  # fmt: skip


def test_a_falling_mean_within_the_tolerance_is_not_a_regression():
    base, new = run("a", {"m": (0.80, 1.0)}), run("b", {"m": (0.78, 1.0)})
    assert diff_runs(base, new, tolerance=0.05).regressed is False
    strict = diff_runs(base, new)
    assert strict.regressed is True
    assert strict.regressions[0].reasons == [
        "mean fell by 0.020 (from 0.800 to 0.780; tolerance 0)"
    ]
    assert strict.metrics[0].mean_change == pytest.approx(-0.02)


def test_a_falling_pass_rate_always_regresses():
    diff = diff_runs(run("a", {"m": (0.6, 1.0)}), run("b", {"m": (0.7, 0.5)}), tolerance=0.5)
    assert diff.regressed
    assert diff.regressions[0].reasons == ["pass rate fell from 100.0% to 50.0%"]


def test_lower_is_better_regresses_when_the_mean_rises():
    lower = ("hallucination",)
    up = diff_runs(
        run("a", {"hallucination": (0.1, 1.0)}, lower=lower),
        run("b", {"hallucination": (0.3, 1.0)}, lower=lower),
    )
    assert up.regressions[0].reasons == ["mean rose by 0.200 (from 0.100 to 0.300; tolerance 0)"]
    down = diff_runs(
        run("a", {"hallucination": (0.3, 1.0)}, lower=lower),
        run("b", {"hallucination": (0.1, 1.0)}, lower=lower),
    )
    assert not down.regressed


def test_nothing_scored_in_the_new_run_regresses_and_one_sided_metrics_are_only_shown():
    diff = diff_runs(
        run("a", {"m": (0.9, 1.0), "gone": (0.5, 0.5)}),
        run("b", {"m": (None, None), "added": (0.1, 0.0)}),
    )
    by_name = {change.metric: change for change in diff.metrics}
    assert list(by_name) == ["m", "added", "gone"]
    assert by_name["m"].regressed and by_name["m"].reasons == ["nothing was scored in the new run"]
    assert (by_name["added"].presence, by_name["added"].regressed) == ("new_only", False)
    assert (by_name["gone"].presence, by_name["gone"].regressed) == ("base_only", False)


def test_samples_across_the_threshold_both_ways_and_the_cost_change():
    base = run(
        "a", {"m": (0.5, 0.5)}, costs={"m": 0.010},
        scores=[("s1", "m", 0.9, True), ("s2", "m", 0.1, False), ("s3", "m", 0.8, True)],
    )  # fmt: skip
    new = run(
        "b", {"m": (0.5, 0.5)}, costs={"m": 0.025},
        scores=[("s1", "m", 0.2, False), ("s2", "m", 0.7, True), ("s3", "m", 0.9, True)],
    )  # fmt: skip
    diff = diff_runs(base, new)
    assert [(m.sample_id, m.direction, m.base_score, m.new_score) for m in diff.moves] == [
        ("s1", "fell", 0.9, 0.2),
        ("s2", "rose", 0.1, 0.7),
    ]
    assert diff.metrics[0].cost_change_usd == pytest.approx(0.015)
    unknown = diff_runs(run("a", {"m": (0.5, 0.5)}), new)
    assert unknown.metrics[0].cost_change_usd is None  # no cost in the base run


def test_a_negative_tolerance_is_refused():
    with pytest.raises(ValueError, match="tolerance must not be negative"):
        diff_runs(run("a", {}), run("b", {}), tolerance=-0.1)
