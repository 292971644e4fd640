"""Aggregation of judges' scores: the Java semantics (spec §2.5) and agreement."""

import pytest

from ragas_boot.config.settings import Aggregation
from ragas_boot.errors import NoConsensusError
from ragas_boot.execution import aggregate, agreement


@pytest.mark.parametrize(
    ("method", "scores", "expected"),
    [
        (Aggregation.AVERAGE, [1.0, 0.0, 1.0], 2 / 3),
        (Aggregation.MEDIAN, [0.2, 0.9, 0.4], 0.4),
        (Aggregation.MEDIAN, [0.2, 0.9, 0.4, 0.6], 0.5),
        (Aggregation.MIN, [0.2, 0.9, 0.4], 0.2),
        (Aggregation.MAX, [0.2, 0.9, 0.4], 0.9),
        (Aggregation.MAJORITY_VOTING, [1.0, 0.0, 1.0], 1.0),
        (Aggregation.MAJORITY_VOTING, [1.0, 0.0], 0.0),  # a tie is 0.0
        (Aggregation.MAJORITY_VOTING, [0.5, 0.5, 0.0], 1.0),  # exactly 0.5 votes yes
        (Aggregation.CONSENSUS, [0.8, 0.85, 0.9], 0.85),
    ],
)
def test_aggregation_follows_java_semantics(method, scores, expected):
    assert aggregate(scores, method) == pytest.approx(expected)


@pytest.mark.parametrize("name", ["median", "MEDIAN", "Median"])
def test_aggregation_accepts_names_in_any_case(name):
    assert aggregate([0.1, 0.5, 0.9], name) == pytest.approx(0.5)


def test_consensus_outside_tolerance_raises_with_the_range():
    with pytest.raises(NoConsensusError, match=r"from 0\.2000 to 0\.9000 \(tolerance: 0\.1\)"):
        aggregate([0.2, 0.9], Aggregation.CONSENSUS, tolerance=0.1)


def test_consensus_tolerance_is_configurable():
    assert aggregate([0.2, 0.9], Aggregation.CONSENSUS, tolerance=0.75) == pytest.approx(0.55)


def test_empty_scores_are_an_error_not_zero():
    with pytest.raises(ValueError, match="no judge scores"):
        aggregate([], Aggregation.AVERAGE)


def test_unknown_aggregation_name_is_rejected():
    with pytest.raises(ValueError, match="geometric"):
        aggregate([1.0], "geometric")


def test_agreement_is_the_majority_share():
    votes = agreement([1.0, 0.0, 1.0, 1.0])
    assert votes.share == pytest.approx(0.75)
    assert votes.disagreement is True
    assert votes.spread == pytest.approx(1.0)


def test_unanimous_and_single_judges_agree():
    assert agreement([1.0, 1.0]).disagreement is False
    assert agreement([0.3]).share == 1.0
    assert agreement([]).share == 1.0
