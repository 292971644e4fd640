"""The metrics table of the docs and README, rendered from the metric registry."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ragas_boot.metrics.base import Metric, Need

__all__ = [
    "FIXTURES_END",
    "FIXTURES_START",
    "TABLE_END",
    "TABLE_START",
    "render_fixtures_table",
    "render_metrics_table",
]

#: Markers around the generated table in a Markdown file.
TABLE_START = "<!-- metrics-table:start (generated from the metric registry; do not edit) -->"
TABLE_END = "<!-- metrics-table:end -->"
#: Markers around the generated table of the pytest plugin's metric fixtures.
FIXTURES_START = "<!-- fixtures-table:start (generated from the metric registry; do not edit) -->"
FIXTURES_END = "<!-- fixtures-table:end -->"

_NEEDS = {
    frozenset(): "nothing (computed)",
    frozenset({Need.JUDGES}): "judges",
    frozenset({Need.EMBEDDINGS}): "embedding models",
    frozenset({Need.JUDGES, Need.EMBEDDINGS}): "judges + embedding models",
}


def _reads(reads: Mapping[str, tuple[str, ...]]) -> str:
    def fields(names: tuple[str, ...]) -> str:
        return ", ".join(" or ".join(f"`{part}`" for part in name.split("|")) for name in names)

    if set(reads) == {"*"}:
        return fields(reads["*"])
    return "; ".join(f"{mode}: {fields(names)}" for mode, names in reads.items())


def render_metrics_table(metrics: Mapping[str, type[Metric[Any]]]) -> str:
    """A Markdown table with one row per metric: class, bean, needs, fields read, meaning."""
    lines = [
        "| Metric (`result.metric`) | Bean | Needs | Sample fields read | What it measures |",
        "|---|---|---|---|---|",
    ]
    for bean, metric in metrics.items():
        meaning = metric.description
        if metric.lower_is_better:
            meaning += " (lower is better)"
        lines.append(
            f"| `{metric.name}` | `{bean}` | {_NEEDS.get(frozenset(metric.needs), 'judges')} "
            f"| {_reads(metric.reads)} | {meaning} |"
        )
    return "\n".join(lines)


def render_fixtures_table(metrics: Mapping[str, type[Metric[Any]]]) -> str:
    """A Markdown table of the pytest plugin's metric fixtures: one per bean, function scope."""
    lines = ["| Fixture | Metric | Needs |", "|---|---|---|"]
    for bean, metric in metrics.items():
        needs = _NEEDS.get(frozenset(metric.needs), "judges")
        lines.append(f"| `{bean}` | `{metric.name}` | {needs} |")
    return "\n".join(lines)
