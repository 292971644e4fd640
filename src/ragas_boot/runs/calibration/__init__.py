"""Calibration: how each judge, and each panel of judges, agrees with people's labels.

:func:`calibrate` takes a finished :class:`~ragas_boot.runs.RunResult` whose samples carry
``labels`` (see :mod:`ragas_boot.samples.labels`) and returns a :class:`CalibrationReport`:

* per judge and metric: accuracy, precision and recall of "pass", Cohen's κ against the
  people's verdicts, the mean absolute error of scores (where people gave scores) and the
  confusion matrix, each figure with a seeded bootstrap confidence interval;
* per panel (a subset of the judges with an aggregation of
  :mod:`ragas_boot.execution.aggregation`): the same figures for the aggregated verdict, the
  panel's cost, and the Pareto front of cost against κ (the best panel at each cost level);
* the annotators' own agreement (Krippendorff's α), when several labelled a sample;
* the samples where the panel disagrees with the people, with each judge's reason.

A panel's verdicts are recomputed from the judges' own scores in the run, so one run with
every judge prices every panel without asking anyone again. The figures come from
scikit-learn (``confusion_matrix``, ``precision_score``, ...) and
krippendorff, installed by the ``[calibration]`` extra and imported when first needed.
The bootstrap resamples the labelled samples with a seeded numpy generator, so reruns
give the same intervals.

Cohen's κ is the one of :mod:`ragas_boot.runs.statistics` (the run's judge-to-judge κ): every
run computes it, so it cannot live in an optional extra; the tests check it against
scikit-learn's ``cohen_kappa_score``.

The package's modules, one concern each: ``report`` (the result models), ``labels`` (the
people's consensus and agreement), ``verdicts`` (each judge's say, read from the run),
``panels`` (panels, costs, the Pareto front), ``figures`` (the figures of agreement and their
intervals) and ``calibrator`` (:func:`calibrate` and :func:`check_ready`, putting them
together).
"""

from ragas_boot.runs.calibration.calibrator import (
    DEFAULT_CONFIDENCE,
    DEFAULT_RESAMPLES,
    DEFAULT_SEED,
    calibrate,
    check_ready,
)
from ragas_boot.runs.calibration.panels import MAX_SEARCHED_JUDGES
from ragas_boot.runs.calibration.report import (
    AgreementFigures,
    CalibrationReport,
    CostUnit,
    Disagreement,
    Estimate,
    HumanAgreement,
    ItemAgreement,
    JudgeCalibration,
    JudgeVerdict,
    MetricCalibration,
    PanelCalibration,
    calibration_json_schema,
)

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "MAX_SEARCHED_JUDGES",
    "AgreementFigures",
    "CalibrationReport",
    "CostUnit",
    "Disagreement",
    "Estimate",
    "HumanAgreement",
    "ItemAgreement",
    "JudgeCalibration",
    "JudgeVerdict",
    "MetricCalibration",
    "PanelCalibration",
    "calibrate",
    "calibration_json_schema",
    "check_ready",
]
