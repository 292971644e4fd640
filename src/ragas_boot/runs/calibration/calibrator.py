"""Calibration of a finished run: each metric's judges and panels against the labels.

One job: putting the people's side (``labels.py``), the judges' side (``verdicts.py``), the
panels (``panels.py``) and the figures (``figures.py``) together into a
:class:`~ragas_boot.runs.calibration.report.CalibrationReport`, per labelled metric; and
checking before a run that calibration can follow it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ragas_boot.config.settings import Aggregation
from ragas_boot.errors import SampleValidationError
from ragas_boot.metrics.results import meets_threshold
from ragas_boot.runs.calibration.figures import Bootstrap, Stats
from ragas_boot.runs.calibration.labels import (
    LabelledRow,
    consensus,
    human_agreement,
)
from ragas_boot.runs.calibration.panels import (
    judge_costs,
    kappa_key,
    panel_verdicts,
    pareto,
    searched_panels,
)
from ragas_boot.runs.calibration.report import (
    AgreementFigures,
    Basis,
    CalibrationReport,
    Disagreement,
    Estimate,
    JudgeCalibration,
    JudgeVerdict,
    MetricCalibration,
    PanelCalibration,
)
from ragas_boot.runs.calibration.verdicts import item_agreement, judge_reason, judge_value
from ragas_boot.runs.records import MetricInfo
from ragas_boot.runs.results import RunResult
from ragas_boot.samples import HumanLabel, Sample

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_RESAMPLES",
    "DEFAULT_SEED",
    "calibrate",
    "check_ready",
]

DEFAULT_SEED = 0
"""Seed of the bootstrap's random generator: the same run and seed give the same intervals."""

DEFAULT_RESAMPLES = 1000
"""Bootstrap resamples behind each confidence interval."""

DEFAULT_CONFIDENCE = 0.95
"""Coverage of the confidence intervals (percentile bootstrap)."""


def _metric_calibration(
    run: RunResult,
    info: MetricInfo,
    stats: Stats,
    costs: dict[tuple[str, str], float],
    aggregations: Sequence[Aggregation],
) -> MetricCalibration | None:
    rows: list[LabelledRow] = []
    ties = 0
    every_label: list[tuple[str, list[HumanLabel]]] = []
    for sample in run.samples:
        labels = sample.sample.labels_for(info.name)
        if not labels:
            continue
        every_label.append((sample.sample_id, labels))
        human = consensus(labels, info)
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
    values = {judge: [judge_value(e, judge, basis) for _, e, _ in rows] for judge in judges}
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
                items=item_agreement(rows, judge),
            )
        )
    judge_rows.sort(key=lambda j: -kappa_key(j.figures))

    def panel(members: Sequence[str], method: Aggregation, full: bool) -> PanelCalibration:
        verdicts = panel_verdicts(values, members, method, info, basis, len(rows))
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
    full_panels.sort(key=lambda p: -kappa_key(p.figures))
    searched = [
        panel(members, method, False)
        for members in searched_panels(judges)
        for method in aggregations
    ]
    # The front's members get the full figures (intervals, confusion matrix).
    front = [panel(p.judges, Aggregation(p.aggregation), True) for p in pareto(searched)]
    best = front[-1] if front else None

    aggregation = _run_aggregation(rows)
    full = panel_verdicts(values, judges, aggregation, info, basis, len(rows))
    disagreements = []
    for (sample_id, evaluation, human), verdict in zip(rows, full, strict=True):
        if verdict is None or verdict[1] == human.passed:
            continue
        said = []
        for judge in judges:
            value = judge_value(evaluation, judge, basis)
            said.append(
                JudgeVerdict(
                    judge_id=judge,
                    score=value,
                    passed=None
                    if value is None
                    else meets_threshold(value, threshold, lower_is_better=lower),
                    reason=judge_reason(evaluation, judge),
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
        human=human_agreement(every_label, info, stats),
        judges=judge_rows,
        panels=full_panels,
        front=front,
        best=best,
        searched=len(searched),
        disagreements=disagreements,
        panel_aggregation=aggregation.value,
    )


def _run_aggregation(rows: Sequence[LabelledRow]) -> Aggregation:
    for _, evaluation, _ in rows:
        if evaluation.result is not None:
            return Aggregation(evaluation.result.aggregation)
    return Aggregation.AVERAGE


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
    Stats(Bootstrap(seed=DEFAULT_SEED, resamples=1, confidence=DEFAULT_CONFIDENCE))


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
    stats = Stats(Bootstrap(seed=seed, resamples=resamples, confidence=confidence))
    known = {info.name: info for info in run.metrics}
    names = list(metrics) if metrics is not None else list(known)
    for name in names:
        if name not in known:
            raise ValueError(f"metric {name!r} is not part of the run ({', '.join(known)})")
    costs, unit = judge_costs(run)
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
