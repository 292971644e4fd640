"""Percentiles and the judges' agreement figures, against hand-computed values."""

from __future__ import annotations

import pytest

from ragas_boot.runs.statistics import cohen_kappa, fleiss_kappa, percentile


def test_percentile_interpolates_between_ranks_like_numpy():
    values = [0.4, 0.1, 0.3, 0.2]
    assert percentile(values, 0.5) == pytest.approx(0.25)
    assert percentile(values, 0.95) == pytest.approx(0.385)
    assert percentile([7.0], 0.95) == 7.0
    assert percentile([], 0.5) is None


def test_cohen_kappa_of_two_raters():
    # 10 items: both yes 4, both no 3, a yes/b no 2, a no/b yes 1 -> po 0.7, pe 0.5 -> 0.4
    a = [True] * 4 + [False] * 3 + [True] * 2 + [False]
    b = [True] * 4 + [False] * 3 + [False] * 2 + [True]
    assert cohen_kappa(a, b) == pytest.approx(0.4)
    assert cohen_kappa(a, a) == pytest.approx(1.0)
    assert cohen_kappa([True, False], [False, True]) == pytest.approx(-1.0)


def test_cohen_kappa_is_undefined_without_items_or_without_variation():
    assert cohen_kappa([], []) is None
    assert cohen_kappa([True, True], [True, True]) is None
    with pytest.raises(ValueError, match="same items"):
        cohen_kappa([True], [])


def test_fleiss_kappa_of_three_raters():
    # items (yes votes of 3): 3, 0, 2, 1 -> P_i 1, 1, 1/3, 1/3 -> P 2/3; p_yes 0.5 -> Pe 0.5
    items = [
        [True, True, True],
        [False, False, False],
        [True, True, False],
        [True, False, False],
    ]
    assert fleiss_kappa(items) == pytest.approx(1 / 3)


def test_fleiss_kappa_is_undefined_for_unanimous_verdicts_or_one_rater():
    assert fleiss_kappa([]) is None
    assert fleiss_kappa([[True, True], [True, True]]) is None
    assert fleiss_kappa([[True], [False]]) is None
    assert fleiss_kappa([[True, False], [True]]) is None
