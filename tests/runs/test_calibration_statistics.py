"""Calibration's figures are the libraries' figures: scikit-learn, krippendorff, numpy.

The bootstrap computes κ, accuracy, precision and recall of every resample from its
confusion counts (one vectorised pass instead of a scikit-learn call per resample); these
tests recompute resamples with scikit-learn and require the same numbers.
"""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import (
    accuracy_score,
    cohen_kappa_score,
    confusion_matrix,
    mean_absolute_error,
    precision_score,
    recall_score,
)

from ragas_boot.runs.calibration import AgreementFigures, Estimate, PanelCalibration
from ragas_boot.runs.calibration.figures import Bootstrap, Stats
from ragas_boot.runs.calibration.panels import pareto
from ragas_boot.samples import HumanLabel, Sample


def _stats(seed: int = 3, resamples: int = 500) -> Stats:
    return Stats(Bootstrap(seed=seed, resamples=resamples, confidence=0.9))


def _raters(seed: int, count: int = 40) -> tuple[list[bool], list[bool]]:
    generator = np.random.default_rng(seed)
    truth = generator.random(count) < 0.6
    rated = np.where(generator.random(count) < 0.75, truth, ~truth)
    return [bool(v) for v in truth], [bool(v) for v in rated]


@pytest.mark.parametrize("seed", [1, 2, 3, 4, 5])
def test_point_figures_are_scikit_learns(seed: int) -> None:
    truth, rated = _raters(seed)
    figures = _stats().figures(truth, rated)
    assert figures.items == len(truth)
    assert figures.kappa.value == pytest.approx(cohen_kappa_score(truth, rated))
    assert figures.accuracy.value == pytest.approx(accuracy_score(truth, rated))
    assert figures.precision.value == pytest.approx(precision_score(truth, rated))
    assert figures.recall.value == pytest.approx(recall_score(truth, rated))
    assert figures.confusion == confusion_matrix(truth, rated, labels=[False, True]).tolist()
    for estimate in (figures.kappa, figures.accuracy, figures.precision, figures.recall):
        assert estimate.low is not None and estimate.high is not None
        assert estimate.low <= estimate.value <= estimate.high


def test_every_resample_matches_scikit_learn_on_the_same_draw() -> None:
    truth, rated = _raters(11, count=25)
    stats = _stats(seed=42, resamples=50)
    resampled = stats.resampled(truth, rated)
    picks = np.random.default_rng(42).integers(0, len(truth), size=(50, len(truth)))
    t, r = np.array(truth), np.array(rated)
    for index, pick in enumerate(picks):
        kappa = resampled["kappa"][index]
        if len(set(t[pick])) == 1 and len(set(r[pick])) == 1:
            assert math.isnan(kappa)
            continue
        assert kappa == pytest.approx(cohen_kappa_score(t[pick], r[pick]))
        assert resampled["accuracy"][index] == pytest.approx(accuracy_score(t[pick], r[pick]))
        if r[pick].any():
            assert resampled["precision"][index] == pytest.approx(precision_score(t[pick], r[pick]))
        if t[pick].any():
            assert resampled["recall"][index] == pytest.approx(recall_score(t[pick], r[pick]))


def test_the_interval_is_the_percentile_of_the_resamples_and_depends_on_the_seed() -> None:
    truth, rated = _raters(7)
    first = _stats(seed=1).figures(truth, rated)
    assert _stats(seed=1).figures(truth, rated) == first
    assert _stats(seed=2).figures(truth, rated).kappa != first.kappa
    values = _stats(seed=1).resampled(truth, rated)["kappa"]
    low, high = np.percentile(values[np.isfinite(values)], [5, 95])
    assert (first.kappa.low, first.kappa.high) == (pytest.approx(low), pytest.approx(high))


def test_mean_absolute_error_is_scikit_learns() -> None:
    pairs = [(1.0, 0.75), (0.0, 0.5), (0.5, 0.5), (1.0, 1.0)]
    figures = _stats().figures([True, False, True, True], [True, True, True, True], pairs)
    expected = mean_absolute_error([p[0] for p in pairs], [p[1] for p in pairs])
    assert figures.mae is not None and figures.mae.value == pytest.approx(expected)
    assert figures.mae_items == 4


def test_kappa_is_undefined_not_zero_when_both_raters_say_one_thing() -> None:
    figures = _stats().figures([True] * 5, [True] * 5)
    assert figures.kappa == Estimate(value=None)
    assert figures.accuracy.value == 1.0


def test_krippendorff_alpha_is_the_packages() -> None:
    matrix: list[list[float | None]] = [
        [1, 0, 1, 1, None, 0],
        [1, 0, 0, 1, 1, 0],
        [None, 0, 1, 1, 1, None],
    ]
    expected = krippendorff.alpha(
        reliability_data=np.array([[np.nan if v is None else v for v in row] for row in matrix]),
        level_of_measurement="nominal",
    )
    assert _stats().alpha(matrix, "nominal") == pytest.approx(expected)
    assert _stats().alpha([[1, 1], [1, 1]], "nominal") is None  # one value: undefined


def _panel(judges: list[str], cost: float, kappa: float | None) -> PanelCalibration:
    figures = AgreementFigures(
        items=10,
        accuracy=Estimate(value=None),
        precision=Estimate(value=None),
        recall=Estimate(value=None),
        kappa=Estimate(value=kappa),
        confusion=[[0, 0], [0, 0]],
    )
    return PanelCalibration(
        judges=judges, aggregation="AVERAGE", figures=figures, cost=cost, no_verdict=0
    )


def test_the_front_keeps_only_panels_no_cheaper_one_beats() -> None:
    panels = [
        _panel(["a"], 100, 0.4),
        _panel(["b"], 50, 0.5),  # cheaper and better than a: a is off the front
        _panel(["c"], 200, 0.9),
        _panel(["a", "b"], 150, 0.7),
        _panel(["a", "c"], 300, 0.9),  # as good as c but dearer
        _panel(["d"], 10, None),  # undefined κ: never on the front
    ]
    front = pareto(panels)
    assert [p.judges for p in front] == [["b"], ["a", "b"], ["c"]]


def test_a_label_reads_its_verdict_from_the_verdict_the_score_or_the_subjects() -> None:
    assert HumanLabel(verdict="pass", score=0.1).verdict_at(0.5) is True
    assert HumanLabel(score=0.7).verdict_at(0.5) is True
    assert HumanLabel(score=0.7).verdict_at(0.5, lower_is_better=True) is False
    assert HumanLabel(off_topic=[]).verdict_at(0.5) is True
    assert HumanLabel(off_topic=["crypto"]).verdict_at(0.5) is False
    sample = Sample(labels={"agent_goal_accuracy": {"verdict": True}})
    assert [label.verdict for label in sample.labels_for("agent_goal_accuracy")] == ["pass"]
    assert sample.labels_for("topic_adherence") == []
