"""Panels: subsets of the run's judges under an aggregation, what they cost, the best ones.

One job: which panels are searched (every subset up to :data:`MAX_SEARCHED_JUDGES` judges),
a panel's verdicts recomputed from its judges' own scores in the run (so one run with every
judge prices every panel without asking anyone again), what each judge cost over the run,
and the Pareto front of cost against κ.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

from ragas_boot.config.settings import Aggregation
from ragas_boot.errors import NoConsensusError
from ragas_boot.execution.aggregation import aggregate
from ragas_boot.metrics.results import meets_threshold
from ragas_boot.runs.calibration.report import (
    AgreementFigures,
    Basis,
    CostUnit,
    PanelCalibration,
)
from ragas_boot.runs.records import MetricInfo
from ragas_boot.runs.results import RunResult

__all__ = [
    "MAX_SEARCHED_JUDGES",
    "judge_costs",
    "kappa_key",
    "panel_verdicts",
    "pareto",
    "searched_panels",
]

MAX_SEARCHED_JUDGES = 10
"""Every subset of up to this many judges is searched; with more, panels of 1–3 judges and
the full panel are."""


def _call_cost(call: Any) -> float | None:
    """A judge call's billed cost at its judge's price (``None``: the judge has no price)."""
    cost = call.cost
    return None if cost is None else float(cost)


def _call_tokens(call: Any) -> int:
    """The tokens a judge call costs: billed, plus what a cache hit saved (a panel's cost is
    what asking it costs, whatever a cache answered this time)."""
    return int(call.billed_usage.total_tokens + call.saved_usage.total_tokens)


def judge_costs(run: RunResult) -> tuple[dict[tuple[str, str], float], CostUnit]:
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


def searched_panels(judges: Sequence[str]) -> list[tuple[str, ...]]:
    """The judge subsets whose panels are compared: all of them up to
    :data:`MAX_SEARCHED_JUDGES` judges, else those of 1–3 judges; the full panel always."""
    sizes = range(1, len(judges) + 1 if len(judges) <= MAX_SEARCHED_JUDGES else 4)
    subsets = [combo for size in sizes for combo in itertools.combinations(judges, size)]
    if tuple(judges) not in subsets:
        subsets.append(tuple(judges))
    return subsets


def panel_verdicts(
    values: dict[str, list[float | None]],
    judges: Sequence[str],
    method: Aggregation,
    info: MetricInfo,
    basis: Basis,
    count: int,
) -> list[tuple[float, bool] | None]:
    """A panel's (score, verdict) on each of ``count`` labelled samples, from its judges'
    own scores (``values``, judge → per sample); None where no judge scored or the judges
    reach no consensus."""
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


def pareto(panels: Sequence[PanelCalibration]) -> list[PanelCalibration]:
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


def kappa_key(figures: AgreementFigures) -> float:
    """Sort key of a rater by κ (an undefined κ last)."""
    return figures.kappa.value if figures.kappa.value is not None else -2.0
