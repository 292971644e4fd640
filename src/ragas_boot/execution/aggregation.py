"""How several judges' scores become one, and how much the judges agree."""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass

from ragas_boot.config.settings import Aggregation
from ragas_boot.errors import NoConsensusError

__all__ = [
    "DEFAULT_CONSENSUS_TOLERANCE",
    "VOTE_THRESHOLD",
    "WILSON_CONFIDENCE",
    "Agreement",
    "aggregate",
    "agreement",
    "wilson_interval",
]

#: Confidence level of the pass-rate interval of repeated evaluations.
WILSON_CONFIDENCE = 0.95

#: Spread allowed by CONSENSUS when no tolerance is configured.
DEFAULT_CONSENSUS_TOLERANCE = 0.1

#: A score at or above this counts as a "yes" vote (MAJORITY_VOTING, agreement).
VOTE_THRESHOLD = 0.5


def aggregate(
    scores: Sequence[float],
    method: Aggregation | str = Aggregation.AVERAGE,
    *,
    tolerance: float = DEFAULT_CONSENSUS_TOLERANCE,
) -> float:
    """Combine judges' scores (Java semantics, spec §2.5).

    AVERAGE mean; MEDIAN middle (mean of the two middles); MIN; MAX; MAJORITY_VOTING 1.0 when
    more than half score ≥ 0.5, else 0.0 (a tie is 0.0); CONSENSUS the mean when
    ``max − min ≤ tolerance``.

    Raises:
        ValueError: ``scores`` is empty (callers raise AllJudgesFailedError before that).
        NoConsensusError: CONSENSUS and the scores are further apart than ``tolerance``.
    """
    if not scores:
        raise ValueError("no judge scores to aggregate")
    method = Aggregation(method)
    if method is Aggregation.AVERAGE:
        return statistics.fmean(scores)
    if method is Aggregation.MEDIAN:
        return float(statistics.median(scores))
    if method is Aggregation.MIN:
        return min(scores)
    if method is Aggregation.MAX:
        return max(scores)
    if method is Aggregation.MAJORITY_VOTING:
        yes = sum(1 for score in scores if score >= VOTE_THRESHOLD)
        return 1.0 if yes > len(scores) / 2 else 0.0
    low, high = min(scores), max(scores)
    if high - low > tolerance + 1e-12:
        raise NoConsensusError(low, high, tolerance)
    return statistics.fmean(scores)


@dataclass(frozen=True, slots=True)
class Agreement:
    """How much the judges agree, each score read as a vote (≥ 0.5 is "yes").

    Attributes:
        share: fraction of judges on the majority side (1.0 = unanimous).
        disagreement: whether any judge voted against the others.
        spread: max − min of the raw scores.
    """

    share: float
    disagreement: bool
    spread: float


def agreement(scores: Sequence[float]) -> Agreement:
    """The judges' agreement; unanimous when there are fewer than two scores."""
    if len(scores) < 2:
        return Agreement(share=1.0, disagreement=False, spread=0.0)
    yes = sum(1 for score in scores if score >= VOTE_THRESHOLD)
    majority = max(yes, len(scores) - yes)
    return Agreement(
        share=majority / len(scores),
        disagreement=0 < yes < len(scores),
        spread=max(scores) - min(scores),
    )


def wilson_interval(
    successes: int, trials: int, confidence: float = WILSON_CONFIDENCE
) -> tuple[float, float]:
    """The Wilson score interval of a pass rate (``successes`` of ``trials``).

    With ``p = successes / trials`` and ``z`` the two-sided normal quantile of ``confidence``
    (1.96 for 0.95)::

        centre = (p + z²/2n) / (1 + z²/n)
        half   = z / (1 + z²/n) * sqrt(p(1 - p)/n + z²/4n²)
        [centre - half, centre + half]

    Unlike the normal ("Wald") interval it stays inside [0, 1] and is not empty at 0 or n
    successes, which is what a handful of repeats produce. It equals scipy's
    ``binomtest(k, n).proportion_ci(confidence, method="wilson")`` (checked in the tests);
    computed here so the core does not need scipy.

    Raises:
        ValueError: no trials, successes outside [0, trials], or confidence outside (0, 1).
    """
    if trials < 1:
        raise ValueError(f"a pass rate needs at least one trial, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be within [0, {trials}], got {successes}")
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be within (0, 1), got {confidence}")
    z = statistics.NormalDist().inv_cdf(0.5 + confidence / 2)
    p = successes / trials
    z2n = z * z / trials
    centre = (p + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(p * (1 - p) / trials + z2n / (4 * trials))
    return max(0.0, centre - half), min(1.0, centre + half)
