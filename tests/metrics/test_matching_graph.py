"""The weighted bipartite matching of tool calls against scipy's assignment solver.

:func:`maximum_matching` ranks matchings by most pairs with required reference calls, then most
with optional ones, then the highest total score, and takes fast paths (edges that share no
call, equal scores, connected components of big groups). Whatever path it takes, its matching
must be as good as the one ``scipy.optimize.linear_sum_assignment`` finds for the same
objective written as tiered weights.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import linear_sum_assignment

from ragas_boot.metrics.agent.matching.graph import maximum_matching

Edge = tuple[int, int, float]
SCORES = [0.0, 0.25, 1 / 3, 0.5, 0.8, 1.0]
# With at most 12 pairs of score ≤ 1, an optional pair (10) outweighs any total score and a
# required one (1000) any number of optional pairs: the same order the library ranks by.
REQUIRED_WEIGHT, OPTIONAL_WEIGHT = 1000.0, 10.0


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, int, list[Edge], frozenset[int]]:
    actual = draw(st.integers(1, 12))
    reference = draw(st.integers(1, 12))
    pairs = draw(
        st.sets(st.tuples(st.integers(0, actual - 1), st.integers(0, reference - 1)), min_size=1)
    )
    # Half the graphs have one score for every edge (the maximum-cardinality path).
    uniform = draw(st.sampled_from([None, *SCORES]))
    edges = [
        (i, j, uniform if uniform is not None else draw(st.sampled_from(SCORES)))
        for i, j in sorted(pairs)
    ]
    optional = draw(st.frozensets(st.integers(0, reference - 1)))
    return actual, reference, edges, optional


def objective(pairs: list[Edge], optional: frozenset[int]) -> tuple[int, int, float]:
    required_pairs = sum(1 for _, j, _ in pairs if j not in optional)
    return required_pairs, len(pairs) - required_pairs, sum(score for _, _, score in pairs)


def scipy_best(
    actual: int, reference: int, edges: list[Edge], optional: frozenset[int]
) -> tuple[int, int, float]:
    weight = [[0.0] * reference for _ in range(actual)]
    for i, j, score in edges:
        weight[i][j] = (OPTIONAL_WEIGHT if j in optional else REQUIRED_WEIGHT) + score
    rows, columns = linear_sum_assignment(weight, maximize=True)
    score_of = {(i, j): score for i, j, score in edges}
    chosen = [
        (int(i), int(j), score_of[i, j])
        for i, j in zip(rows, columns, strict=True)
        if (i, j) in score_of
    ]
    return objective(chosen, optional)


@settings(max_examples=400, deadline=None)
@given(graphs())
def test_the_matching_is_as_good_as_scipys_assignment(
    graph: tuple[int, int, list[Edge], frozenset[int]],
) -> None:
    actual, reference, edges, optional = graph
    pairs = maximum_matching([edges], optional)

    assert set(pairs) <= set(edges)
    assert len({i for i, _, _ in pairs}) == len(pairs)  # no actual call pairs twice
    assert len({j for _, j, _ in pairs}) == len(pairs)  # no reference call pairs twice
    assert pairs == sorted(pairs)
    required, optional_pairs, total = objective(pairs, optional)
    best_required, best_optional, best_total = scipy_best(actual, reference, edges, optional)
    assert (required, optional_pairs) == (best_required, best_optional)
    assert abs(total - best_total) < 1e-9


@settings(max_examples=200, deadline=None)
@given(graphs(), graphs())
def test_groups_are_matched_apart(
    first: tuple[int, int, list[Edge], frozenset[int]],
    second: tuple[int, int, list[Edge], frozenset[int]],
) -> None:
    """Two tools' edges share no call: matching them together equals matching each alone."""
    actual, reference, edges, optional = first
    # The second tool's calls come after the first's in both lists.
    shifted = [(i + actual, j + reference, score) for i, j, score in second[2]]
    together = maximum_matching([edges, shifted], optional)
    apart = sorted(maximum_matching([edges], optional) + maximum_matching([shifted]))
    required, optional_pairs, total = objective(together, optional)
    assert (required, optional_pairs) == objective(apart, optional)[:2]
    assert abs(total - objective(apart, optional)[2]) < 1e-9
