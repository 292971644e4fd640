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
"""

from __future__ import annotations

import importlib
import itertools
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.config.settings import Aggregation
from ragas_boot.errors import MissingExtraError, NoConsensusError, SampleValidationError
from ragas_boot.execution.aggregation import aggregate
from ragas_boot.metrics.results import MetricResult, meets_threshold
from ragas_boot.runs.results import DatasetInfo, Evaluation, JudgeInfo, MetricInfo, RunResult
from ragas_boot.runs.statistics import cohen_kappa
from ragas_boot.samples import HumanLabel, Sample

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

DEFAULT_SEED = 0
"""Seed of the bootstrap's random generator: the same run and seed give the same intervals."""

DEFAULT_RESAMPLES = 1000
"""Bootstrap resamples behind each confidence interval."""

DEFAULT_CONFIDENCE = 0.95
"""Coverage of the confidence intervals (percentile bootstrap)."""

MAX_SEARCHED_JUDGES = 10
"""Every subset of up to this many judges is searched; with more, panels of 1–3 judges and
the full panel are."""

#: What a panel's cost counts: the providers' prices (when the results carry a cost per call),
#: else tokens.
CostUnit = Literal["cost", "tokens"]

#: How a metric's verdicts are compared: each score against the metric's threshold, or, for
#: TopicAdherence labelled with off-topic subjects, whether any subject was off topic.
Basis = Literal["threshold", "off_topic"]

_FROZEN = ConfigDict(frozen=True)
_EXTRA = "calibration"


def _require(module: str, package: str) -> ModuleType:
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtraError("ragas-boot calibrate", _EXTRA, package) from None


# --------------------------------------------------------------------------- result models


class Estimate(BaseModel):
    """A figure with its bootstrap confidence interval."""

    model_config = _FROZEN

    value: float | None = Field(
        description="The figure on the labelled samples; None if undefined."
    )
    low: float | None = Field(default=None, description="Lower bound of the interval.")
    high: float | None = Field(default=None, description="Upper bound of the interval.")


class AgreementFigures(BaseModel):
    """How one rater's verdicts (a judge's, or a panel's) agree with the people's."""

    model_config = _FROZEN

    items: int = Field(description="Samples with both a human verdict and this rater's verdict.")
    accuracy: Estimate = Field(description="Share of samples where the verdicts agree.")
    precision: Estimate = Field(description="Of the samples it passed, the share people passed.")
    recall: Estimate = Field(description="Of the samples people passed, the share it passed.")
    kappa: Estimate = Field(description="Cohen's κ against the people's verdicts.")
    mae: Estimate | None = Field(
        default=None,
        description="Mean absolute error of its scores against the people's (mean) scores, "
        "on the samples people scored; None when nobody gave a score.",
    )
    mae_items: int = Field(default=0, description="Samples behind mae.")
    confusion: list[list[int]] = Field(
        description="Confusion matrix, rows = people (fail, pass), columns = this rater "
        "(fail, pass)."
    )


class ItemAgreement(BaseModel):
    """Item level (TopicAdherence): the off-topic subjects a judge named against the people's.

    A judge's subject matches a person's when, case and spacing aside, one contains the other.
    """

    model_config = _FROZEN

    samples: int = Field(description="Samples with the people's off_topic and the judge's topics.")
    labelled: int = Field(description="Off-topic subjects the people named.")
    found: int = Field(description="Topics the judge called off topic.")
    matched: int = Field(description="People's subjects the judge also called off topic.")
    precision: float | None = Field(
        description="Share of the judge's off-topic topics that people named too; None when "
        "it found none."
    )
    recall: float | None = Field(description="matched / labelled; None when people named none.")


class JudgeCalibration(BaseModel):
    """One judge on one metric, against the people."""

    model_config = _FROZEN

    judge_id: str = Field(description="The judge.")
    figures: AgreementFigures = Field(description="Its agreement with the people.")
    cost: float = Field(description="What it cost over the run's samples (see cost_unit).")
    items: ItemAgreement | None = Field(
        default=None,
        description="Off-topic subjects against the people's (TopicAdherence labelled with "
        "off_topic); None otherwise.",
    )


class PanelCalibration(BaseModel):
    """A panel (judges + aggregation) on one metric, against the people."""

    model_config = _FROZEN

    judges: list[str] = Field(description="The panel's judges, in run order.")
    aggregation: str = Field(description="How their scores combine (AVERAGE, MEDIAN, ...).")
    figures: AgreementFigures = Field(description="The panel's agreement with the people.")
    cost: float = Field(description="Sum of its judges' costs (see cost_unit).")
    no_verdict: int = Field(
        description="Labelled samples without a panel verdict (no judge scored, or no consensus)."
    )


class HumanAgreement(BaseModel):
    """How much the annotators agree among themselves: the ceiling for the judges."""

    model_config = _FROZEN

    annotators: list[str] = Field(description="Annotators (names, else 'annotator N').")
    items: int = Field(description="Samples labelled by at least two annotators.")
    alpha: float | None = Field(
        description="Krippendorff's α of their verdicts (nominal); None when undefined."
    )
    alpha_scores: float | None = Field(
        default=None,
        description="Krippendorff's α of their scores (interval), when they gave scores.",
    )


class JudgeVerdict(BaseModel):
    """One judge's say on a sample the panel got wrong."""

    model_config = _FROZEN

    judge_id: str = Field(description="The judge.")
    score: float | None = Field(description="Its score; None when it was excluded.")
    passed: bool | None = Field(description="Its verdict (pass = True); None when excluded.")
    reason: str = Field(description="Its reason, or why it was excluded.")


class Disagreement(BaseModel):
    """A sample where the panel's verdict is not the people's."""

    model_config = _FROZEN

    sample_id: str = Field(description="The sample.")
    human_passed: bool = Field(description="The people's verdict (pass = True).")
    human_notes: list[str] = Field(description="Annotators' notes and off-topic subjects.")
    panel_score: float | None = Field(description="The panel's aggregated score.")
    panel_passed: bool = Field(description="The panel's verdict.")
    judges: list[JudgeVerdict] = Field(description="Each judge's score, verdict and reason.")


class MetricCalibration(BaseModel):
    """Every judge and panel on one metric, against the people's labels."""

    model_config = _FROZEN

    metric: str = Field(description="Bean name of the metric.")
    threshold: float = Field(description="Pass mark that turns scores into verdicts.")
    lower_is_better: bool = Field(default=False, description="Whether the threshold is a maximum.")
    basis: Basis = Field(
        description="threshold: scores against the threshold; off_topic: TopicAdherence "
        "labelled with off-topic subjects, a pass being no subject off topic."
    )
    labelled: int = Field(description="Samples with a human verdict on this metric.")
    ties: int = Field(description="Samples left out: the annotators split evenly.")
    human_pass_rate: float | None = Field(description="Share of labelled samples people passed.")
    human: HumanAgreement | None = Field(
        description="The annotators' agreement; None when every sample has one annotator."
    )
    judges: list[JudgeCalibration] = Field(description="One per judge, best κ first.")
    panels: list[PanelCalibration] = Field(
        description="The run's full panel under each aggregation, best κ first."
    )
    front: list[PanelCalibration] = Field(
        description="The Pareto front of cost against κ over every searched panel, cheapest "
        "first: each is the best panel at its cost."
    )
    best: PanelCalibration | None = Field(
        description="The panel with the highest κ (the cheapest among equals)."
    )
    searched: int = Field(description="Panels (judge subsets × aggregations) compared.")
    disagreements: list[Disagreement] = Field(
        description="Samples where the full panel under the run's aggregation disagrees with "
        "the people."
    )
    panel_aggregation: str = Field(description="The run's aggregation, used for disagreements.")


class CalibrationReport(BaseModel):
    """The judges of a run against people's labels (``ragas-boot calibrate``)."""

    model_config = _FROZEN

    dataset: DatasetInfo = Field(description="The dataset run.")
    judges: list[JudgeInfo] = Field(description="Every judge of the run.")
    metrics: list[MetricCalibration] = Field(description="One per metric with labels.")
    unlabelled_metrics: list[str] = Field(
        description="Metrics of the run that no sample labels (not calibrated)."
    )
    cost_unit: CostUnit = Field(description="What cost figures count: cost, or tokens.")
    seed: int = Field(description="Seed of the bootstrap.")
    resamples: int = Field(description="Bootstrap resamples per interval.")
    confidence: float = Field(description="Coverage of the intervals.")

    def metric(self, name: str) -> MetricCalibration:
        """The calibration of ``name`` (bean name).

        Raises:
            KeyError: the metric was not calibrated.
        """
        for calibration in self.metrics:
            if calibration.metric == name:
                return calibration
        raise KeyError(name)


def calibration_json_schema() -> dict[str, Any]:
    """The JSON Schema of a calibration report (draft 2020-12)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **CalibrationReport.model_json_schema(mode="serialization"),
        "title": "ragas-boot calibration report",
    }


# --------------------------------------------------------------------------- statistics


@dataclass(frozen=True, slots=True)
class _Bootstrap:
    seed: int
    resamples: int
    confidence: float


class _Stats:
    """The extra's libraries, imported once per calibration."""

    def __init__(self, settings: _Bootstrap) -> None:
        self.np = _require("numpy", "numpy")
        self.metrics = _require("sklearn.metrics", "scikit-learn")
        self.krippendorff = _require("krippendorff", "krippendorff")
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


# --------------------------------------------------------------------------- the run's data


@dataclass(frozen=True, slots=True)
class _Human:
    """The people's consensus on one sample."""

    passed: bool
    score: float | None
    notes: list[str]
    off_topic: list[str] | None


def _consensus(labels: Sequence[HumanLabel], info: MetricInfo) -> _Human | None:
    votes = [
        label.verdict_at(info.threshold, lower_is_better=info.lower_is_better) for label in labels
    ]
    yes = sum(votes)
    if yes * 2 == len(votes):
        return None  # a split: no verdict to calibrate against
    scores = [label.score for label in labels if label.score is not None]
    notes = []
    for label in labels:
        who = f"{label.annotator}: " if label.annotator else ""
        if label.off_topic:
            notes.append(f"{who}off topic: {', '.join(label.off_topic)}")
        if label.note:
            notes.append(f"{who}{label.note}")
    subjects = [label.off_topic for label in labels if label.off_topic is not None]
    return _Human(
        passed=yes * 2 > len(votes),
        score=sum(scores) / len(scores) if scores else None,
        notes=notes,
        off_topic=list(dict.fromkeys(s for found in subjects for s in found)) if subjects else None,
    )


def _same_subject(first: str, second: str) -> bool:
    a, b = " ".join(first.lower().split()), " ".join(second.lower().split())
    return bool(a and b) and (a in b or b in a)


def _items(rows: Sequence[tuple[str, Evaluation, _Human]], judge: str) -> ItemAgreement | None:
    samples = labelled = found = matched = confirmed = 0
    for _, evaluation, human in rows:
        named = _off_topic(evaluation.result, judge) if evaluation.result is not None else None
        if human.off_topic is None or named is None:
            continue
        samples += 1
        labelled += len(human.off_topic)
        found += len(named)
        matched += sum(any(_same_subject(s, n) for n in named) for s in human.off_topic)
        confirmed += sum(any(_same_subject(n, s) for s in human.off_topic) for n in named)
    if not samples:
        return None
    return ItemAgreement(
        samples=samples,
        labelled=labelled,
        found=found,
        matched=matched,
        precision=confirmed / found if found else None,
        recall=matched / labelled if labelled else None,
    )


def _off_topic(result: MetricResult, judge_id: str) -> list[str] | None:
    """The topics a judge called off topic (TopicAdherence's per-judge details), if recorded."""
    judges = result.metadata.get("judges")
    detail = judges.get(judge_id) if isinstance(judges, dict) else None
    verdicts = detail.get("verdicts") if isinstance(detail, dict) else None
    if not isinstance(verdicts, list):
        return None
    return [
        str(v.get("topic")) for v in verdicts if isinstance(v, dict) and v.get("on_topic") is False
    ]


def _judge_value(evaluation: Evaluation, judge_id: str, basis: Basis) -> float | None:
    """A judge's score on a sample, as calibration compares it (None: it did not score)."""
    result = evaluation.result
    if result is None:
        return None
    if basis == "off_topic":
        found = _off_topic(result, judge_id)
        return None if found is None else (0.0 if found else 1.0)
    return result.model_scores.get(judge_id)


def _call_cost(call: Any) -> float | None:
    """A judge call's billed cost at its judge's price (``None``: the judge has no price)."""
    cost = call.cost
    return None if cost is None else float(cost)


def _call_tokens(call: Any) -> int:
    """The tokens a judge call costs: billed, plus what a cache hit saved (a panel's cost is
    what asking it costs, whatever a cache answered this time)."""
    return int(call.billed_usage.total_tokens + call.saved_usage.total_tokens)


def _costs(run: RunResult) -> tuple[dict[tuple[str, str], float], CostUnit]:
    """(metric, judge) → cost over the run, in the unit every call can give."""
    calls = [
        (evaluation.metric, call)
        for sample in run.samples
        for evaluation in sample.evaluations
        for call in evaluation.judge_calls()
    ]
    priced = bool(calls) and all(_call_cost(call) is not None for _, call in calls)
    unit: CostUnit = "cost" if priced else "tokens"
    totals: dict[tuple[str, str], float] = {}
    for metric, call in calls:
        value = _call_cost(call) if priced else _call_tokens(call)
        key = (metric, call.judge_id)
        totals[key] = totals.get(key, 0.0) + float(value or 0.0)
    return totals, unit


def _reason(evaluation: Evaluation, judge_id: str) -> str:
    result = evaluation.result
    if result is None:
        return evaluation.error.message if evaluation.error is not None else "failed"
    for exclusion in result.exclusions:
        if exclusion.judge_id == judge_id:
            return f"excluded at {exclusion.step}: {exclusion.kind}: {exclusion.message}"
    return result.reasons().get(judge_id, "")


def _panels(judges: Sequence[str]) -> list[tuple[str, ...]]:
    sizes = range(1, len(judges) + 1 if len(judges) <= MAX_SEARCHED_JUDGES else 4)
    subsets = [combo for size in sizes for combo in itertools.combinations(judges, size)]
    if tuple(judges) not in subsets:
        subsets.append(tuple(judges))
    return subsets


def _panel_verdicts(
    values: dict[str, list[float | None]],
    judges: Sequence[str],
    method: Aggregation,
    info: MetricInfo,
    basis: Basis,
    count: int,
) -> list[tuple[float, bool] | None]:
    verdicts: list[tuple[float, bool] | None] = []
    threshold = 0.5 if basis == "off_topic" else info.threshold
    for index in range(count):
        scores = [v for judge in judges if (v := values[judge][index]) is not None]
        if not scores:
            verdicts.append(None)
            continue
        try:
            score = aggregate(scores, method)
        except NoConsensusError:
            verdicts.append(None)
            continue
        lower = info.lower_is_better and basis == "threshold"
        verdicts.append((score, meets_threshold(score, threshold, lower_is_better=lower)))
    return verdicts


def _pareto(panels: Sequence[PanelCalibration]) -> list[PanelCalibration]:
    """The panels no other beats on both cost and κ, cheapest first."""
    ranked = sorted(
        (p for p in panels if p.figures.kappa.value is not None),
        key=lambda p: (p.cost, -(p.figures.kappa.value or 0.0), len(p.judges)),
    )
    front: list[PanelCalibration] = []
    for panel in ranked:
        if not front or (panel.figures.kappa.value or 0.0) > (front[-1].figures.kappa.value or 0.0):
            front.append(panel)
    return front


def _kappa_key(figures: AgreementFigures) -> float:
    return figures.kappa.value if figures.kappa.value is not None else -2.0


def _metric_calibration(
    run: RunResult,
    info: MetricInfo,
    stats: _Stats,
    costs: dict[tuple[str, str], float],
    aggregations: Sequence[Aggregation],
) -> MetricCalibration | None:
    rows: list[tuple[str, Evaluation, _Human]] = []
    ties = 0
    every_label: list[tuple[str, list[HumanLabel]]] = []
    for sample in run.samples:
        labels = sample.sample.labels_for(info.name)
        if not labels:
            continue
        every_label.append((sample.sample_id, labels))
        human = _consensus(labels, info)
        if human is None:
            ties += 1
            continue
        rows.append((sample.sample_id, sample.evaluation(info.name), human))
    if not every_label:
        return None
    flat = [label for _, labels in every_label for label in labels]
    basis: Basis = (
        "off_topic"
        if all(label.verdict is None and label.score is None for label in flat)
        else "threshold"
    )
    judges = list(info.judge_ids)
    truth = [human.passed for _, _, human in rows]
    values = {judge: [_judge_value(e, judge, basis) for _, e, _ in rows] for judge in judges}
    threshold = 0.5 if basis == "off_topic" else info.threshold
    lower = info.lower_is_better and basis == "threshold"

    judge_rows = []
    for judge in judges:
        pairs = [(t, v) for t, v in zip(truth, values[judge], strict=True) if v is not None]
        scored = [
            (human.score, value)
            for (_, _, human), value in zip(rows, values[judge], strict=True)
            if human.score is not None and value is not None and basis == "threshold"
        ]
        figures = stats.figures(
            [t for t, _ in pairs],
            [meets_threshold(v, threshold, lower_is_better=lower) for _, v in pairs],
            scored,
        )
        judge_rows.append(
            JudgeCalibration(
                judge_id=judge,
                figures=figures,
                cost=costs.get((info.name, judge), 0.0),
                items=_items(rows, judge),
            )
        )
    judge_rows.sort(key=lambda j: -_kappa_key(j.figures))

    def panel(members: Sequence[str], method: Aggregation, full: bool) -> PanelCalibration:
        verdicts = _panel_verdicts(values, members, method, info, basis, len(rows))
        kept = [(t, v) for t, v in zip(truth, verdicts, strict=True) if v is not None]
        if full:
            scored = [
                (human.score, v[0])
                for (_, _, human), v in zip(rows, verdicts, strict=True)
                if v is not None and human.score is not None and basis == "threshold"
            ]
            figures = stats.figures([t for t, _ in kept], [v[1] for _, v in kept], scored)
        else:
            truth_kept, rated = [t for t, _ in kept], [v[1] for _, v in kept]
            kappa = stats.kappa_only(truth_kept, rated)
            figures = AgreementFigures(
                items=len(kept),
                accuracy=Estimate(
                    value=sum(a == b for a, b in zip(truth_kept, rated, strict=True)) / len(kept)
                    if kept
                    else None
                ),
                precision=Estimate(value=None),
                recall=Estimate(value=None),
                kappa=Estimate(value=kappa),
                confusion=[[0, 0], [0, 0]],
            )
        return PanelCalibration(
            judges=list(members),
            aggregation=method.value,
            figures=figures,
            cost=sum(costs.get((info.name, judge), 0.0) for judge in members),
            no_verdict=len(rows) - len(kept),
        )

    full_panels = [panel(judges, method, True) for method in aggregations]
    full_panels.sort(key=lambda p: -_kappa_key(p.figures))
    searched = [
        panel(members, method, False) for members in _panels(judges) for method in aggregations
    ]
    # The front's members get the full figures (intervals, confusion matrix).
    front = [panel(p.judges, Aggregation(p.aggregation), True) for p in _pareto(searched)]
    best = front[-1] if front else None

    aggregation = _run_aggregation(rows)
    full = _panel_verdicts(values, judges, aggregation, info, basis, len(rows))
    disagreements = []
    for (sample_id, evaluation, human), verdict in zip(rows, full, strict=True):
        if verdict is None or verdict[1] == human.passed:
            continue
        said = []
        for judge in judges:
            value = _judge_value(evaluation, judge, basis)
            said.append(
                JudgeVerdict(
                    judge_id=judge,
                    score=value,
                    passed=None
                    if value is None
                    else meets_threshold(value, threshold, lower_is_better=lower),
                    reason=_reason(evaluation, judge),
                )
            )
        disagreements.append(
            Disagreement(
                sample_id=sample_id,
                human_passed=human.passed,
                human_notes=human.notes,
                panel_score=verdict[0],
                panel_passed=verdict[1],
                judges=said,
            )
        )

    return MetricCalibration(
        metric=info.name,
        threshold=info.threshold,
        lower_is_better=info.lower_is_better,
        basis=basis,
        labelled=len(rows),
        ties=ties,
        human_pass_rate=sum(truth) / len(truth) if truth else None,
        human=_human_agreement(every_label, info, stats),
        judges=judge_rows,
        panels=full_panels,
        front=front,
        best=best,
        searched=len(searched),
        disagreements=disagreements,
        panel_aggregation=aggregation.value,
    )


def _run_aggregation(rows: Sequence[tuple[str, Evaluation, _Human]]) -> Aggregation:
    for _, evaluation, _ in rows:
        if evaluation.result is not None:
            return Aggregation(evaluation.result.aggregation)
    return Aggregation.AVERAGE


def _human_agreement(
    every_label: Sequence[tuple[str, list[HumanLabel]]], info: MetricInfo, stats: _Stats
) -> HumanAgreement | None:
    # Only samples two or more people labelled say anything about their agreement.
    every_label = [(sample_id, labels) for sample_id, labels in every_label if len(labels) > 1]
    if not every_label:
        return None
    names: list[str] = []
    for _, labels in every_label:
        for position, label in enumerate(labels, start=1):
            name = label.annotator or f"annotator {position}"
            if name not in names:
                names.append(name)
    verdicts: list[list[float | None]] = [[None] * len(every_label) for _ in names]
    scores: list[list[float | None]] = [[None] * len(every_label) for _ in names]
    for column, (_, labels) in enumerate(every_label):
        for position, label in enumerate(labels, start=1):
            row = names.index(label.annotator or f"annotator {position}")
            verdicts[row][column] = float(
                label.verdict_at(info.threshold, lower_is_better=info.lower_is_better)
            )
            scores[row][column] = label.score
    shared = sum(1 for _, labels in every_label if len(labels) > 1)
    scored = sum(
        1
        for column in range(len(every_label))
        if sum(scores[row][column] is not None for row in range(len(names))) > 1
    )
    return HumanAgreement(
        annotators=names,
        items=shared,
        alpha=stats.alpha(verdicts, "nominal"),
        alpha_scores=stats.alpha(scores, "interval") if scored else None,
    )


def check_ready(samples: Sequence[Sample], metrics: Sequence[str] | None = None) -> None:
    """Check, before a run, that calibration can follow it.

    Args:
        samples: the dataset's samples.
        metrics: the bean names about to run (None: any labelled metric will do).

    Raises:
        SampleValidationError: no sample has ``labels`` (for one of ``metrics``).
        MissingExtraError: the ``[calibration]`` extra is not installed.
    """
    labelled = {name for sample in samples for name in (sample.labels or {})}
    if not labelled:
        raise SampleValidationError(
            "no sample of the dataset has labels to calibrate against; add e.g. "
            "labels: {agent_goal_accuracy: {verdict: pass}} to the samples "
            "(see docs/calibration.md)",
            field="labels",
        )
    if metrics is not None and not labelled & set(metrics):
        raise SampleValidationError(
            f"the samples label {', '.join(sorted(labelled))} but the run has "
            f"{', '.join(metrics) or 'no metric'}; run a labelled metric (--metric)",
            field="labels",
        )
    _Stats(_Bootstrap(seed=DEFAULT_SEED, resamples=1, confidence=DEFAULT_CONFIDENCE))


def calibrate(
    run: RunResult,
    *,
    metrics: Sequence[str] | None = None,
    aggregations: Sequence[Aggregation | str] | None = None,
    seed: int = DEFAULT_SEED,
    resamples: int = DEFAULT_RESAMPLES,
    confidence: float = DEFAULT_CONFIDENCE,
) -> CalibrationReport:
    """Compare the run's judges and panels with the people's labels of its samples.

    Args:
        run: a finished run whose samples carry ``labels``.
        metrics: bean names to calibrate (default: every metric of the run some sample labels).
        aggregations: the aggregations to try for panels (default: all but CONSENSUS, which
            needs a tolerance; pass it explicitly to include it).
        seed: the bootstrap's seed (same seed, same intervals).
        resamples: bootstrap resamples per interval.
        confidence: the intervals' coverage, in (0, 1).

    Raises:
        SampleValidationError: no sample labels a metric asked for (field ``labels``).
        MissingExtraError: the ``[calibration]`` extra is not installed.
        ValueError: ``resamples`` < 1 or ``confidence`` outside (0, 1).
    """
    if resamples < 1:
        raise ValueError(f"resamples must be at least 1, got {resamples}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be within (0, 1), got {confidence}")
    methods = [
        Aggregation(a)
        for a in (aggregations or [m for m in Aggregation if m is not Aggregation.CONSENSUS])
    ]
    stats = _Stats(_Bootstrap(seed=seed, resamples=resamples, confidence=confidence))
    known = {info.name: info for info in run.metrics}
    names = list(metrics) if metrics is not None else list(known)
    for name in names:
        if name not in known:
            raise ValueError(f"metric {name!r} is not part of the run ({', '.join(known)})")
    costs, unit = _costs(run)
    calibrated = []
    unlabelled = []
    for name in names:
        info = known[name]
        if not info.judge_ids:
            unlabelled.append(name)  # computed metrics have no judges to calibrate
            continue
        calibration = _metric_calibration(run, info, stats, costs, methods)
        if calibration is None:
            unlabelled.append(name)
        else:
            calibrated.append(calibration)
    if not calibrated:
        asked = ", ".join(names) or "none"
        raise SampleValidationError(
            f"no sample has labels for the metrics run ({asked}); add e.g. "
            f"labels: {{{names[0] if names else 'agent_goal_accuracy'}: {{verdict: pass}}}} "
            "to the samples",
            field="labels",
        )
    return CalibrationReport(
        dataset=run.dataset,
        judges=run.judges,
        metrics=calibrated,
        unlabelled_metrics=unlabelled,
        cost_unit=unit,
        seed=seed,
        resamples=resamples,
        confidence=confidence,
    )
