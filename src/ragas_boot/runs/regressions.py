"""Two recorded runs compared: per metric the mean, pass rate and cost change, per sample the
scores that crossed the threshold, and whether the newer run regressed.

A metric regresses when its pass rate falls, or its mean moves the wrong way (down; up for a
lower-is-better metric) by more than ``tolerance``, or it was scored in the base run and has
no score at all in the new one. Samples are matched by (sample id, metric).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

from ragas_boot.runs.history import StoredMetric, StoredRun

__all__ = ["DEFAULT_TOLERANCE", "MetricChange", "RunDiff", "SampleMove", "diff_runs"]

#: How far a mean may move the wrong way before it counts as a regression.
DEFAULT_TOLERANCE = 0.0

_FROZEN = ConfigDict(frozen=True)


def _change(base: float | None, new: float | None) -> float | None:
    return new - base if base is not None and new is not None else None


class MetricChange(BaseModel):
    """One metric in both runs (or in one of them)."""

    model_config = _FROZEN

    metric: str = Field(description="Bean name of the metric.")
    lower_is_better: bool = Field(description="Whether lower scores are better.")
    base_mean: float | None = Field(description="Mean in the base run; None if absent/unscored.")
    new_mean: float | None = Field(description="Mean in the new run; None if absent/unscored.")
    base_pass_rate: float | None = Field(description="Pass rate in the base run.")
    new_pass_rate: float | None = Field(description="Pass rate in the new run.")
    base_cost_usd: float | None = Field(description="Cost in the base run; None when unknown.")
    new_cost_usd: float | None = Field(description="Cost in the new run; None when unknown.")
    presence: Literal["both", "base_only", "new_only"] = Field(
        description="Whether the metric ran in both runs or in one only."
    )
    reasons: list[str] = Field(description="Why it regressed, one line each.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def mean_change(self) -> float | None:
        """new - base; None unless both exist."""
        return _change(self.base_mean, self.new_mean)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate_change(self) -> float | None:
        """new - base; None unless both exist."""
        return _change(self.base_pass_rate, self.new_pass_rate)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def cost_change_usd(self) -> float | None:
        """new - base; None unless both are known."""
        return _change(self.base_cost_usd, self.new_cost_usd)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def regressed(self) -> bool:
        """Whether this metric regressed (see the module doc): it has reasons."""
        return bool(self.reasons)


class SampleMove(BaseModel):
    """A sample whose score crossed the metric's threshold (or lost its score)."""

    model_config = _FROZEN

    sample_id: str = Field(description="The sample.")
    metric: str = Field(description="Bean name of the metric.")
    base_score: float | None = Field(description="Score in the base run.")
    new_score: float | None = Field(description="Score in the new run.")
    base_passed: bool | None = Field(description="Passed in the base run; None if unscored.")
    new_passed: bool | None = Field(description="Passed in the new run; None if unscored.")
    direction: Literal["fell", "rose"] = Field(
        description="fell: passed before, not now (failing or unscored); rose: the reverse."
    )


class RunDiff(BaseModel):
    """The base and the new run compared."""

    model_config = _FROZEN

    base_id: str = Field(description="The base run's id.")
    new_id: str = Field(description="The new run's id.")
    tolerance: float = Field(description="Allowed fall of a mean before it is a regression.")
    metrics: list[MetricChange] = Field(description="New run's metrics first, then base-only.")
    moves: list[SampleMove] = Field(description="Samples that crossed a threshold.")

    @property
    def regressions(self) -> list[MetricChange]:
        """The metrics that regressed."""
        return [change for change in self.metrics if change.regressed]

    @property
    def regressed(self) -> bool:
        """Whether any metric regressed (``runs diff --fail-on-regression`` exits 1)."""
        return bool(self.regressions)


def _metric_change(
    name: str, base: StoredMetric | None, new: StoredMetric | None, tolerance: float
) -> MetricChange:
    either = new or base
    lower = either.lower_is_better if either is not None else False
    base_mean = base.mean if base else None
    new_mean = new.mean if new else None
    base_rate = base.pass_rate if base else None
    new_rate = new.pass_rate if new else None
    reasons: list[str] = []
    if base is not None and new is not None:
        rate_change = _change(base_rate, new_rate)
        if rate_change is not None and rate_change < -1e-12:
            reasons.append(f"pass rate fell from {base_rate:.1%} to {new_rate:.1%}")
        mean_change = _change(base_mean, new_mean)
        if mean_change is not None:
            worse = mean_change if lower else -mean_change
            if worse > tolerance + 1e-12:
                reasons.append(
                    f"mean {'rose' if lower else 'fell'} by {abs(mean_change):.3f} "
                    f"(from {base_mean:.3f} to {new_mean:.3f}; tolerance {tolerance:g})"
                )
        if base_mean is not None and new_mean is None and new.failed:
            reasons.append("nothing was scored in the new run")
    return MetricChange(
        metric=name,
        lower_is_better=lower,
        base_mean=base_mean,
        new_mean=new_mean,
        base_pass_rate=base_rate,
        new_pass_rate=new_rate,
        base_cost_usd=base.cost_usd if base else None,
        new_cost_usd=new.cost_usd if new else None,
        presence="both" if base and new else "base_only" if base else "new_only",
        reasons=reasons,
    )


def diff_runs(base: StoredRun, new: StoredRun, *, tolerance: float = DEFAULT_TOLERANCE) -> RunDiff:
    """Compare two runs loaded in full (:meth:`RunHistory.load`).

    Raises:
        ValueError: ``tolerance`` is negative.
    """
    if tolerance < 0:
        raise ValueError(f"tolerance must not be negative, got {tolerance!r}")
    base_metrics = {metric.metric: metric for metric in base.metrics}
    new_metrics = {metric.metric: metric for metric in new.metrics}
    names = list(new_metrics) + [name for name in base_metrics if name not in new_metrics]
    changes = [
        _metric_change(name, base_metrics.get(name), new_metrics.get(name), tolerance)
        for name in names
    ]
    base_scores = {(score.sample_id, score.metric): score for score in base.scores}
    moves = []
    for score in new.scores:
        before = base_scores.get((score.sample_id, score.metric))
        if before is None or bool(before.passed) == bool(score.passed):
            continue
        moves.append(
            SampleMove(
                sample_id=score.sample_id,
                metric=score.metric,
                base_score=before.score,
                new_score=score.score,
                base_passed=before.passed,
                new_passed=score.passed,
                direction="fell" if before.passed else "rose",
            )
        )
    return RunDiff(
        base_id=base.id, new_id=new.id, tolerance=tolerance, metrics=changes, moves=moves
    )
