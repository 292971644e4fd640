"""Bipartite matchings over index pairs: which actual call pairs with which reference call.

An *edge* ``(i, j, score)`` says actual call ``i`` may pair with reference call ``j`` with
argument score ``score`` in [0, 1]. :func:`maximum_matching` is the one weighted bipartite
matching: most pairs with required reference calls, then most with optional ones, then the
highest total score (an assignment problem, solved by the Hungarian algorithm, with fast
paths for the usual shapes: edges that share no call, equal scores, and big groups split
into connected components). :func:`ordered_matching` is the same objective when the pairs
must also keep both lists' order (a weighted longest common subsequence). Nothing here knows
what a tool call is.
"""

from __future__ import annotations

import math

__all__ = ["maximum_matching", "ordered_matching"]


def maximum_matching(
    groups: list[list[tuple[int, int, float]]], optional: frozenset[int] = frozenset()
) -> list[tuple[int, int, float]]:
    """Most pairs with required reference calls, then most with optional ones, then highest
    total score; solved per tool and, in big groups, per connected component."""
    pairs: list[tuple[int, int, float]] = []
    for edges in groups:
        if _disjoint(edges):
            pairs.extend(edges)  # no call can pair twice: nothing to choose (the usual case)
            continue
        for component in _components(edges) if len(edges) > _SPLIT_ABOVE else [edges]:
            uniform = len({score for _, _, score in component}) == 1
            if uniform and not any(j in optional for _, j, _ in component):
                pairs.extend(_maximum_cardinality(component))
            else:
                pairs.extend(_maximum_weight(component, optional))
    pairs.sort()
    return pairs


_SPLIT_ABOVE = 32
"""Edge count above which a tool's edges are split into connected components first: the
assignment costs cubic time in the group size, the split linear time in the edges."""


def _disjoint(edges: list[tuple[int, int, float]]) -> bool:
    actual_seen: set[int] = set()
    reference_seen: set[int] = set()
    for i, j, _ in edges:
        if i in actual_seen or j in reference_seen:
            return False
        actual_seen.add(i)
        reference_seen.add(j)
    return True


def _components(edges: list[tuple[int, int, float]]) -> list[list[tuple[int, int, float]]]:
    """Edges grouped by connected component (actual and reference indices are apart)."""
    parent: dict[tuple[int, int], tuple[int, int]] = {}

    def root(node: tuple[int, int]) -> tuple[int, int]:
        parent.setdefault(node, node)
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for i, j, _ in edges:
        a, r = root((0, i)), root((1, j))
        if a != r:
            parent[a] = r
    groups: dict[tuple[int, int], list[tuple[int, int, float]]] = {}
    for edge in edges:
        groups.setdefault(root((0, edge[0])), []).append(edge)
    return list(groups.values())


def _maximum_cardinality(edges: list[tuple[int, int, float]]) -> list[tuple[int, int, float]]:
    """Most pairs (all scores equal), by breadth-first augmenting paths."""
    score = edges[0][2]
    adjacent: dict[int, list[int]] = {}
    for i, j, _ in edges:
        adjacent.setdefault(i, []).append(j)
    partner_of_actual: dict[int, int] = {}
    partner_of_reference: dict[int, int] = {}
    for start in adjacent:
        reached_from: dict[int, int] = {}  # reference index -> actual index that reached it
        frontier = [start]
        free: int | None = None
        while frontier and free is None:
            following = []
            for i in frontier:
                for j in adjacent[i]:
                    if j in reached_from:
                        continue
                    reached_from[j] = i
                    if j not in partner_of_reference:
                        free = j
                        break
                    following.append(partner_of_reference[j])
                if free is not None:
                    break
            frontier = following
        # Flip the path start -> ... -> free: each actual on it takes the next reference.
        step = free
        while step is not None:
            i = reached_from[step]
            previous = partner_of_actual.get(i)
            partner_of_actual[i] = step
            partner_of_reference[step] = i
            step = previous
    return [(i, j, score) for i, j in partner_of_actual.items()]


def _tier_weights(size: int, optional: frozenset[int]) -> tuple[float, float]:
    """Weights of a pair with a required and with an optional reference call.

    With at most ``size`` pairs and scores in [0, 1], an optional pair (``BIG + score``)
    outweighs any score gain, and a required one any number of optional pairs.
    """
    big = size + 1.0
    return ((size + 1.0) * (big + 1.0) if optional else big), big


def _maximum_weight(
    edges: list[tuple[int, int, float]], optional: frozenset[int] = frozenset()
) -> list[tuple[int, int, float]]:
    """Most pairs (required ones first), then highest total score: an assignment problem
    (Hungarian algorithm).

    Each edge weighs its tier's weight plus its score (see :func:`_tier_weights`); a missing
    edge weighs 0 and is dropped afterwards.
    """
    actuals = list(dict.fromkeys(i for i, _, _ in edges))
    references = list(dict.fromkeys(j for _, j, _ in edges))
    required_weight, optional_weight = _tier_weights(min(len(actuals), len(references)), optional)
    # The algorithm wants no more rows than columns.
    transposed = len(actuals) > len(references)
    rows, columns = (references, actuals) if transposed else (actuals, references)
    row_of = {key: row for row, key in enumerate(rows)}
    column_of = {key: column for column, key in enumerate(columns)}
    weight = [[0.0] * len(columns) for _ in rows]
    score_of = {}
    for i, j, score in edges:
        row, column = (row_of[j], column_of[i]) if transposed else (row_of[i], column_of[j])
        weight[row][column] = (optional_weight if j in optional else required_weight) + score
        score_of[i, j] = score
    pairs = []
    for row, column in enumerate(_assignment(weight)):
        i, j = (columns[column], rows[row]) if transposed else (rows[row], columns[column])
        if (i, j) in score_of:
            pairs.append((i, j, score_of[i, j]))
    pairs.sort()
    return pairs


def _assignment(weight: list[list[float]]) -> list[int]:
    """Column of each row in a maximum-weight assignment; needs rows ≤ columns.

    The O(n²·m) shortest-augmenting-path form of the Hungarian algorithm, on costs
    ``-weight``, with 1-based potentials ``u`` (rows) and ``v`` (columns).
    """
    n, m = len(weight), len(weight[0])
    infinity = math.inf
    u = [0.0] * (n + 1)
    v = [0.0] * (m + 1)
    row_at = [0] * (m + 1)  # row_at[j]: 1-based row assigned to column j; column 0 is a sentinel
    way = [0] * (m + 1)
    for row in range(1, n + 1):
        row_at[0] = row
        column = 0
        min_slack = [infinity] * (m + 1)
        used = [False] * (m + 1)
        while True:
            used[column] = True
            current_row = row_at[column]
            costs = weight[current_row - 1]
            u_row = u[current_row]
            delta = infinity
            next_column = 0
            for j in range(1, m + 1):
                if not used[j]:
                    slack = -costs[j - 1] - u_row - v[j]
                    if slack < min_slack[j]:
                        min_slack[j] = slack
                        way[j] = column
                    if min_slack[j] < delta:
                        delta = min_slack[j]
                        next_column = j
            for j in range(m + 1):
                if used[j]:
                    u[row_at[j]] += delta
                    v[j] -= delta
                else:
                    min_slack[j] -= delta
            column = next_column
            if row_at[column] == 0:
                break
        while column:
            previous = way[column]
            row_at[column] = row_at[previous]
            column = previous
    result = [0] * n
    for j in range(1, m + 1):
        if row_at[j]:
            result[row_at[j] - 1] = j - 1
    return result


def ordered_matching(
    n: int, m: int, edges: list[tuple[int, int, float]], optional: frozenset[int] = frozenset()
) -> list[tuple[int, int, float]]:
    """Most pairs that keep both orders (required ones first), then highest total score
    (weighted LCS).

    ``best[i][j]`` is the best weight of the first ``i`` actual and ``j`` reference calls,
    a pair weighing its tier's weight plus its score as in :func:`_maximum_weight`.
    """
    required_weight, optional_weight = _tier_weights(min(n, m), optional)
    tier = [optional_weight if j in optional else required_weight for j in range(m)]
    score_of: list[dict[int, float]] = [{} for _ in range(n)]
    for i, j, score in edges:
        score_of[i][j] = score
    best = [[0.0] * (m + 1)]
    for i in range(n):
        above, scores = best[-1], score_of[i]
        if not scores:
            best.append(above)  # a call that matches nothing changes no prefix's best
            continue
        here = [0.0] * (m + 1)
        left = 0.0
        for j in range(m):
            value = above[j + 1]
            if left > value:
                value = left
            gained = scores.get(j)
            if gained is not None:
                through = above[j] + tier[j] + gained
                if through > value:
                    value = through
            here[j + 1] = left = value
        best.append(here)
    pairs = []
    i, j = n, m
    while i and j:
        gained = score_of[i - 1].get(j - 1)
        if gained is not None and best[i][j] == best[i - 1][j - 1] + tier[j - 1] + gained:
            pairs.append((i - 1, j - 1, gained))
            i, j = i - 1, j - 1
        elif best[i][j] == best[i - 1][j]:
            i -= 1
        else:
            j -= 1
    pairs.reverse()
    return pairs
