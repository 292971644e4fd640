"""The figures of a run: percentiles of latencies and the judges' agreement (Cohen, Fleiss).

Verdicts are binary here: a judge's score of 0.5 or more is a "pass" vote.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ragas_boot.execution.aggregation import VOTE_THRESHOLD

__all__ = ["cohen_kappa", "fleiss_kappa", "mean", "percentile", "verdict"]


def verdict(score: float) -> bool:
    """The binary verdict a score stands for (the same cut as MAJORITY_VOTING's)."""
    return score >= VOTE_THRESHOLD


def mean(values: Sequence[float]) -> float | None:
    """The arithmetic mean; None for no values."""
    return math.fsum(values) / len(values) if values else None


def percentile(values: Sequence[float], fraction: float) -> float | None:
    """The ``fraction`` quantile (0.5 = median) with linear interpolation; None for no values.

    Same definition as NumPy's default (``linear``): the value at rank ``(n - 1) * fraction``.
    """
    if not values:
        return None
    ordered = sorted(values)
    rank = (len(ordered) - 1) * fraction
    low = math.floor(rank)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def cohen_kappa(first: Sequence[bool], second: Sequence[bool]) -> float | None:
    """Cohen's kappa of two raters' binary verdicts on the same items.

    Returns None when it is undefined: no items, or chance agreement of 1 (both raters gave
    one and the same verdict throughout).
    """
    if len(first) != len(second):
        raise ValueError("both raters must rate the same items")
    count = len(first)
    if count == 0:
        return None
    observed = sum(a == b for a, b in zip(first, second, strict=True)) / count
    yes_first = sum(first) / count
    yes_second = sum(second) / count
    expected = yes_first * yes_second + (1 - yes_first) * (1 - yes_second)
    if math.isclose(expected, 1.0):
        return None
    return (observed - expected) / (1 - expected)


def fleiss_kappa(items: Sequence[Sequence[bool]]) -> float | None:
    """Fleiss' kappa of binary verdicts; each item holds every rater's verdict (same count).

    Returns None when it is undefined: no items, fewer than two raters, or chance agreement
    of 1 (every verdict the same).
    """
    if not items:
        return None
    raters = len(items[0])
    if raters < 2 or any(len(item) != raters for item in items):
        return None
    agreement = []
    yes_total = 0
    for item in items:
        yes = sum(item)
        no = raters - yes
        yes_total += yes
        agreement.append((yes * (yes - 1) + no * (no - 1)) / (raters * (raters - 1)))
    observed = math.fsum(agreement) / len(items)
    share_yes = yes_total / (len(items) * raters)
    expected = share_yes**2 + (1 - share_yes) ** 2
    if math.isclose(expected, 1.0):
        return None
    return (observed - expected) / (1 - expected)
