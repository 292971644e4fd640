"""The run history as the CLI and the HTML report show it: the runs list and a run diff."""

from __future__ import annotations

import io
from collections.abc import Sequence

from rich.console import Console, RenderableType
from rich.table import Table

from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting._html import escape, numeric_cell, table
from ragas_boot.runs.history import StoredRun
from ragas_boot.runs.regressions import MetricChange, RunDiff, SampleMove

__all__ = [
    "diff_lines",
    "diff_renderables",
    "html_diff_section",
    "render_diff",
    "runs_table",
]


def _signed(value: float | None, *, percent: bool = False, money: bool = False) -> str:
    if value is None:
        return fmt.MISSING
    if percent:
        return f"{value * 100:+.1f} pp"
    if money:  # the one spelling of money: +$0.0003, -$1.25
        return ("+" if value >= 0 else "-") + fmt.cost(abs(value))
    return f"{value:+.3f}"


def _money(value: float | None) -> str:
    return fmt.cost(value)


def runs_table(runs: Sequence[StoredRun], *, title: str = "Runs") -> Table:
    """The recorded runs, latest first."""
    grid = Table(title=fmt.plain(title), title_justify="left")
    for name in ("Run", "Kind", "Recorded (UTC)", "Dataset", "Samples", "Metrics"):
        grid.add_column(name, no_wrap=name != "Dataset", overflow="fold")
    for name in ("Scored", "Failed", "Tokens", "Cost"):
        grid.add_column(name, justify="right", no_wrap=True)
    for run in runs:
        grid.add_row(
            fmt.plain(run.id),
            run.kind,
            f"{run.recorded_at:%Y-%m-%d %H:%M:%S}",
            fmt.plain(run.dataset or fmt.MISSING),
            str(run.samples),
            str(run.evaluations // run.samples if run.samples else 0),
            str(run.scored),
            str(run.failed),
            fmt.tokens(run.total_tokens),
            _money(run.cost_usd),
        )
    return grid


def _metric_row(change: MetricChange) -> tuple[str, ...]:
    verdict = (
        "REGRESSED"
        if change.regressed
        else {
            "both": "ok",
            "base_only": "only in base",
            "new_only": "new",
        }[change.presence]
    )
    return (
        change.metric,
        fmt.score(change.base_mean),
        fmt.score(change.new_mean),
        _signed(change.mean_change),
        fmt.percent(change.base_pass_rate),
        fmt.percent(change.new_pass_rate),
        _signed(change.pass_rate_change, percent=True),
        _signed(change.cost_change_usd, money=True),
        verdict,
    )


_METRIC_HEADERS = (
    "Metric",
    "Base mean",
    "New mean",
    "Δ mean",
    "Base pass",
    "New pass",
    "Δ pass",
    "Δ cost",
    "Verdict",
)
_MOVE_HEADERS = ("Sample", "Metric", "Base", "New", "Moved")


def _move_row(move: SampleMove) -> tuple[str, ...]:
    return (
        move.sample_id,
        move.metric,
        fmt.score(move.base_score),
        fmt.score(move.new_score),
        "pass → fail" if move.direction == "fell" else "fail → pass",
    )


def diff_renderables(diff: RunDiff) -> list[RenderableType]:
    """Tables of a diff for a rich console: metrics, then samples across the threshold."""
    metrics = Table(
        title=fmt.plain(f"Run diff: {diff.base_id} → {diff.new_id}"), title_justify="left"
    )
    for index, name in enumerate(_METRIC_HEADERS):
        metrics.add_column(name, justify="left" if index in (0, 8) else "right", no_wrap=True)
    for change in diff.metrics:
        cells = _metric_row(change)
        style = "bold red" if change.regressed else ""
        metrics.add_row(*(fmt.plain(cell) for cell in cells[:-1]), fmt.plain(cells[-1], style))
    parts: list[RenderableType] = [metrics]
    if diff.moves:
        moves = Table(title="Samples across the threshold", title_justify="left")
        for name in _MOVE_HEADERS:
            moves.add_column(name, no_wrap=name != "Sample", overflow="fold")
        for move in diff.moves:
            cells = _move_row(move)
            style = "red" if move.direction == "fell" else "green"
            moves.add_row(*(fmt.plain(cell) for cell in cells[:-1]), fmt.plain(cells[-1], style))
        parts.append(moves)
    return parts


def diff_lines(diff: RunDiff) -> list[str]:
    """The verdict lines: ``REGRESSION metric: why`` per regressed metric, or one OK line."""
    if not diff.regressed:
        return [f"NO REGRESSION against {diff.base_id}"]
    return [
        f"REGRESSION {change.metric}: {'; '.join(change.reasons)}" for change in diff.regressions
    ]


def render_diff(diff: RunDiff, *, width: int = 120) -> str:
    """The diff as plain text (tables and verdict lines)."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, color_system=None, highlight=False, emoji=False)
    for part in diff_renderables(diff):
        console.print(part)
    for line in diff_lines(diff):
        console.print(fmt.plain(line))
    return buffer.getvalue()


def html_diff_section(diff: RunDiff) -> str:
    """The diff as a ``<section id="baseline">`` of the HTML report."""
    rows = []
    for change in diff.metrics:
        cells = _metric_row(change)
        badge = "fail" if change.regressed else "pass"
        rows.append(
            f"<tr><td>{escape(cells[0])}</td>"
            + "".join(numeric_cell(cell) for cell in cells[1:-1])
            + f'<td><span class="badge {badge}">{escape(cells[-1])}</span></td></tr>'
        )
    body = table(_METRIC_HEADERS, rows, numeric=range(1, 8))
    if diff.moves:
        move_rows = [
            "<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in _move_row(move)) + "</tr>"
            for move in diff.moves
        ]
        body += "<h3>Samples across the threshold</h3>" + table(_MOVE_HEADERS, move_rows)
    state = "fail" if diff.regressed else "pass"
    verdict = "".join(f'<p class="gate {state}">{escape(line)}</p>' for line in diff_lines(diff))
    return (
        f'<section id="baseline"><h2>Against baseline {escape(diff.base_id)}</h2>'
        f"{verdict}{body}</section>"
    )
