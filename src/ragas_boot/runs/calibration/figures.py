"""The figures of agreement: one rater's verdicts against the people's, with intervals.

One job: accuracy, precision, recall, Cohen's κ, the mean absolute error and the confusion
matrix of a rater (a judge or a panel), each with a seeded percentile-bootstrap interval,
and Krippendorff's α of the annotators. The figures are scikit-learn's and krippendorff's
(the ``[calibration]`` extra, imported once per calibration: :class:`Stats`); the bootstrap
computes every resample's figures from its confusion counts in one vectorised numpy pass
instead of a scikit-learn call per resample (``tests/runs/test_calibration_statistics.py``
checks them against scikit-learn). Cohen's κ is :mod:`ragas_boot.runs.statistics`' (every
run computes it, so it cannot live in the optional extra).
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ragas_boot.errors import MissingExtraError
from ragas_boot.runs.calibration.report import AgreementFigures, Estimate
from ragas_boot.runs.statistics import cohen_kappa

__all__ = ["Bootstrap", "Stats", "require"]

_EXTRA = "calibration"


def require(module: str, package: str) -> ModuleType:
    """``module`` of the ``[calibration]`` extra.

    Raises:
        MissingExtraError: with the pip command that installs the extra.
    """
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError("ragas-boot calibrate", _EXTRA, package) from None


@dataclass(frozen=True, slots=True)
class Bootstrap:
    """How intervals are drawn: the seed, the resamples and the coverage."""

    seed: int
    resamples: int
    confidence: float


class Stats:
    """The extra's libraries, imported once per calibration."""

    def __init__(self, settings: Bootstrap) -> None:
        self.np = require("numpy", "numpy")
        self.metrics = require("sklearn.metrics", "scikit-learn")
        self.krippendorff = require("krippendorff", "krippendorff")
        self.settings = settings

    def point(self, truth: Sequence[bool], rated: Sequence[bool]) -> dict[str, float | None]:
        """Accuracy, precision and recall from scikit-learn, κ (None where undefined)."""
        m, np = self.metrics, self.np
        t, r = np.array(truth, dtype=bool), np.array(rated, dtype=bool)
        kappa = None
        if len(set(truth)) > 1 or len(set(rated)) > 1:  # else chance agreement is 1
            kappa = cohen_kappa(truth, rated)
        precision = float(m.precision_score(t, r, zero_division=np.nan))
        recall = float(m.recall_score(t, r, zero_division=np.nan))
        return {
            "accuracy": float(m.accuracy_score(t, r)),
            "precision": None if np.isnan(precision) else precision,
            "recall": None if np.isnan(recall) else recall,
            "kappa": kappa,
        }

    def resampled(self, truth: Sequence[bool], rated: Sequence[bool]) -> dict[str, Any]:
        """Each figure on every bootstrap resample (NaN where undefined), from its counts."""
        np = self.np
        count = len(truth)
        generator = np.random.default_rng(self.settings.seed)
        picks = generator.integers(0, count, size=(self.settings.resamples, count))
        cells = (2 * np.array(truth, dtype=int) + np.array(rated, dtype=int))[picks]
        tn, fp, fn, tp = ((cells == cell).sum(axis=1).astype(float) for cell in range(4))
        with np.errstate(divide="ignore", invalid="ignore"):
            accuracy = (tp + tn) / count
            expected = ((tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)) / count**2
            return {
                "accuracy": accuracy,
                "precision": tp / (tp + fp),
                "recall": tp / (tp + fn),
                "kappa": np.where(
                    np.isclose(expected, 1.0), np.nan, (accuracy - expected) / (1 - expected)
                ),
            }

    def interval(self, values: Any) -> tuple[float | None, float | None]:
        np = self.np
        finite = values[np.isfinite(values)]
        if finite.size == 0:
            return None, None
        tail = (1 - self.settings.confidence) / 2 * 100
        low, high = np.percentile(finite, [tail, 100 - tail])
        return float(low), float(high)

    def mae(self, errors: Sequence[tuple[float, float]]) -> Estimate:
        np, m = self.np, self.metrics
        truth = np.array([t for t, _ in errors])
        rated = np.array([r for _, r in errors])
        value = float(m.mean_absolute_error(truth, rated))
        generator = np.random.default_rng(self.settings.seed)
        picks = generator.integers(0, len(errors), size=(self.settings.resamples, len(errors)))
        low, high = self.interval(np.abs(truth - rated)[picks].mean(axis=1))
        return Estimate(value=value, low=low, high=high)

    def figures(
        self,
        truth: Sequence[bool],
        rated: Sequence[bool],
        scores: Sequence[tuple[float, float]] = (),
    ) -> AgreementFigures:
        """Every figure of one rater against the people, with intervals."""
        if not truth:
            empty = Estimate(value=None)
            return AgreementFigures(
                items=0,
                accuracy=empty,
                precision=empty,
                recall=empty,
                kappa=empty,
                confusion=[[0, 0], [0, 0]],
            )
        point = self.point(truth, rated)
        samples = self.resampled(truth, rated)
        estimates = {}
        for name, value in point.items():
            low, high = self.interval(samples[name]) if value is not None else (None, None)
            estimates[name] = Estimate(value=value, low=low, high=high)
        confusion = self.metrics.confusion_matrix(
            self.np.array(truth, dtype=bool), self.np.array(rated, dtype=bool), labels=[False, True]
        )
        return AgreementFigures(
            items=len(truth),
            confusion=[[int(cell) for cell in row] for row in confusion],
            mae=self.mae(scores) if scores else None,
            mae_items=len(scores),
            **estimates,
        )

    def kappa_only(self, truth: Sequence[bool], rated: Sequence[bool]) -> float | None:
        """κ alone, for ranking the many panels of the search."""
        if not truth or (len(set(truth)) == 1 and len(set(rated)) == 1):
            return None
        return cohen_kappa(truth, rated)

    def alpha(self, matrix: list[list[float | None]], level: str) -> float | None:
        """Krippendorff's α of an annotators × samples matrix (None = not labelled)."""
        np = self.np
        data = np.array([[np.nan if v is None else v for v in row] for row in matrix], float)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                value = float(
                    self.krippendorff.alpha(reliability_data=data, level_of_measurement=level)
                )
        except (ValueError, ZeroDivisionError):  # one value throughout: α is undefined
            return None
        return None if np.isnan(value) else value
