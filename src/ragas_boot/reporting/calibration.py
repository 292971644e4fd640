"""Renderers of a :class:`~ragas_boot.runs.calibration.CalibrationReport`: console, JSON, HTML.

Every view puts the samples where the panel disagrees with the people first (with each
judge's reason), then per metric the judges against the people, the full panel under each
aggregation, and the Pareto front of cost against Cohen's κ. The HTML page is self-contained
like the run report (inline CSS and SVG, no script): a chart of each judge's κ with its
interval, and one of the cost–κ front.
"""

from __future__ import annotations

import io
import json
from typing import Any

from rich.console import Console, RenderableType
from rich.table import Table

from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting._html import escape as _e
from ragas_boot.reporting._html import numeric_cell as _num
from ragas_boot.reporting._html import table as _table
from ragas_boot.reporting._style import style_tag
from ragas_boot.reporting.json_report import generator
from ragas_boot.runs.calibration import (
    AgreementFigures,
    CalibrationReport,
    Estimate,
    ItemAgreement,
    MetricCalibration,
    PanelCalibration,
    calibration_json_schema,
)

__all__ = [
    "CALIBRATION_SCHEMA_VERSION",
    "calibration_renderables",
    "calibration_report_json_schema",
    "render_calibration_console",
    "render_calibration_html",
    "render_calibration_json",
]

#: Version of the calibration JSON layout; raised when a field is renamed or removed.
CALIBRATION_SCHEMA_VERSION = 1

_MAX_DISAGREEMENTS = 20
_FIGURES = ("Items", "Cohen κ", "Accuracy", "Precision", "Recall")
_JUDGE_HEADERS = ("Judge", *_FIGURES, "MAE", "Confusion", "Off-topic subjects")
_PANEL_HEADERS = ("Panel", "Aggregation", *_FIGURES, "No verdict")


def estimate(value: Estimate | None, digits: int = 2) -> str:
    """``0.87 [0.57, 1.00]``; ``n/a`` when undefined."""
    if value is None or value.value is None:
        return "n/a"
    text = f"{value.value:.{digits}f}"
    if value.low is not None and value.high is not None:
        text += f" [{value.low:.{digits}f}, {value.high:.{digits}f}]"
    return text


def _cost(value: float, unit: str) -> str:
    return f"{value:,.0f} tok" if unit == "tokens" else f"${value:,.4f}"


def _confusion(figures: AgreementFigures) -> str:
    (tn, fp), (fn, tp) = figures.confusion
    return f"TN {tn} FP {fp} / FN {fn} TP {tp}"


def _verdict(passed: bool | None) -> str:
    return "excluded" if passed is None else ("pass" if passed else "fail")


def _people_line(metric: MetricCalibration) -> str:
    parts = [
        f"{metric.labelled} labelled samples",
        f"people pass {fmt.percent(metric.human_pass_rate)}",
        "verdict = no off-topic subject"
        if metric.basis == "off_topic"
        else f"verdict = score {'≤' if metric.lower_is_better else '≥'} {metric.threshold:.2f}",
    ]
    if metric.ties:
        parts.append(f"{metric.ties} left out (annotators split)")
    if metric.human is not None:
        parts.append(
            f"annotators' own agreement: Krippendorff α {fmt.kappa(metric.human.alpha)} on "
            f"{metric.human.items} samples ({', '.join(metric.human.annotators)})"
        )
    return " · ".join(parts)


# --------------------------------------------------------------------------- console


def disagreements_table(metric: MetricCalibration) -> Table | None:
    """The samples where the panel's verdict is not the people's, each judge's reason."""
    if not metric.disagreements:
        return None
    table = Table(
        title=fmt.plain(
            f"Panel vs people: {metric.metric} ({len(metric.disagreements)} samples disagree; "
            f"{metric.panel_aggregation.lower()} of all judges)"
        ),
        title_justify="left",
    )
    table.add_column("Sample", no_wrap=True)
    table.add_column("People", no_wrap=True)
    table.add_column("Panel", no_wrap=True)
    table.add_column("Judges: verdict, reason")
    for item in metric.disagreements[:_MAX_DISAGREEMENTS]:
        said = "\n".join(
            f"{j.judge_id}: {_verdict(j.passed)} — {fmt.short(j.reason, 110)}" for j in item.judges
        )
        people = _verdict(item.human_passed)
        if item.human_notes:
            people += "\n" + "\n".join(fmt.short(note, 40) for note in item.human_notes)
        table.add_row(
            fmt.plain(item.sample_id),
            fmt.plain(people),
            fmt.plain(f"{fmt.score(item.panel_score)} {_verdict(item.panel_passed)}"),
            fmt.plain(said),
            end_section=True,
        )
    if len(metric.disagreements) > _MAX_DISAGREEMENTS:
        table.caption = (
            f"… and {len(metric.disagreements) - _MAX_DISAGREEMENTS} more (see the JSON or HTML)"
        )
    return table


def _items(items: ItemAgreement | None) -> str:
    """``2 of 3 found, 2 named`` (people's subjects found; topics the judge named)."""
    if items is None:
        return fmt.MISSING
    return f"{items.matched} of {items.labelled} found, {items.found} named"


def _point(value: Estimate | None) -> str:
    return "n/a" if value is None or value.value is None else f"{value.value:.2f}"


def _amount(value: float, unit: str) -> str:
    return f"{value:,.0f}" if unit == "tokens" else f"{value:,.4f}"


def judges_table(metric: MetricCalibration, unit: str) -> Table:
    """One row per judge: agreement with the people, with intervals, best κ first."""
    table = Table(
        title=fmt.plain(f"Judges vs people: {metric.metric}"),
        caption=fmt.plain(_people_line(metric)),
        title_justify="left",
        caption_justify="left",
    )
    graded = any(j.figures.mae is not None for j in metric.judges)
    itemised = any(j.items is not None for j in metric.judges)
    table.add_column("Judge")
    for name in ("Items", "Cohen κ", "Accuracy", "Prec.", "Recall", *(["MAE"] if graded else [])):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("TN/FP/FN/TP", justify="right", no_wrap=True)
    if itemised:
        table.add_column("Off-topic subjects", justify="right", no_wrap=True)
    table.add_column("Cost" if unit == "cost" else "Tokens", justify="right", no_wrap=True)
    for judge in metric.judges:
        f = judge.figures
        mae = [estimate(f.mae, 3) if f.mae is not None else fmt.MISSING] if graded else []
        items = [_items(judge.items)] if itemised else []
        table.add_row(
            fmt.plain(judge.judge_id),
            str(f.items),
            estimate(f.kappa),
            estimate(f.accuracy),
            _point(f.precision),
            _point(f.recall),
            *mae,
            "/".join(str(cell) for row in f.confusion for cell in row),
            *items,
            _amount(judge.cost, unit),
        )
    return table


def panels_table(metric: MetricCalibration, unit: str) -> Table:
    """The full panel under each aggregation, then the cost–κ front (★ the best panel)."""
    table = Table(
        title=fmt.plain(
            f"Panels vs people: {metric.metric} (all judges by aggregation; then the Pareto "
            f"front of {metric.searched} panels searched, cheapest first)"
        ),
        title_justify="left",
    )
    table.add_column("Panel", min_width=30)
    table.add_column("Aggregation", no_wrap=True)
    for name in ("Items", "Cohen κ", "Accuracy", "Prec.", "Recall", "No verdict"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("Cost" if unit == "cost" else "Tokens", justify="right", no_wrap=True)

    def row(panel: PanelCalibration, label: str, last: bool = False) -> None:
        f = panel.figures
        table.add_row(
            fmt.plain(label),
            panel.aggregation.lower(),
            str(f.items),
            estimate(f.kappa),
            estimate(f.accuracy),
            _point(f.precision),
            _point(f.recall),
            str(panel.no_verdict),
            _amount(panel.cost, unit),
            end_section=last,
        )

    for index, panel in enumerate(metric.panels):
        row(panel, "all judges" if index == 0 else "", last=index == len(metric.panels) - 1)
    for panel in metric.front:
        star = "★ " if panel == metric.best else "  "
        row(panel, star + " + ".join(panel.judges))
    return table


def calibration_renderables(report: CalibrationReport) -> list[RenderableType]:
    """The console tables, in print order: disagreements first, then per metric."""
    parts: list[RenderableType] = [
        fmt.plain(
            f"Calibration of {len(report.judges)} judges against people's labels: "
            f"{report.dataset.name or report.dataset.path or 'samples'} "
            f"({report.dataset.size} samples) · bootstrap {report.resamples} resamples, "
            f"seed {report.seed}, {report.confidence:.0%} intervals · cost in {report.cost_unit}"
        )
    ]
    for metric in report.metrics:
        table = disagreements_table(metric)
        if table is not None:
            parts.append(table)
    for metric in report.metrics:
        parts.append(judges_table(metric, report.cost_unit))
        parts.append(panels_table(metric, report.cost_unit))
        if metric.best is not None:
            parts.append(
                fmt.plain(
                    f"Best panel for {metric.metric}: {' + '.join(metric.best.judges)} "
                    f"({metric.best.aggregation.lower()}), κ {estimate(metric.best.figures.kappa)}"
                    f", {_cost(metric.best.cost, report.cost_unit)}",
                    style="bold",
                )
            )
    if report.unlabelled_metrics:
        parts.append(
            fmt.plain(f"Not calibrated (no labels): {', '.join(report.unlabelled_metrics)}")
        )
    return parts


def render_calibration_console(report: CalibrationReport, *, width: int = 140) -> str:
    """The console report as plain text (no colour)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, color_system=None, highlight=False, emoji=False, markup=False
    )
    for part in calibration_renderables(report):
        console.print(part)
    return buffer.getvalue()


# --------------------------------------------------------------------------- JSON


def calibration_document(report: CalibrationReport) -> dict[str, Any]:
    """The calibration report as JSON-ready data."""
    return {
        "schema_version": CALIBRATION_SCHEMA_VERSION,
        "generator": generator(),
        "kind": "calibration",
        **report.model_dump(mode="json"),
    }


def render_calibration_json(report: CalibrationReport, *, indent: int | None = 2) -> str:
    """The JSON report as text."""
    return json.dumps(calibration_document(report), indent=indent, ensure_ascii=False) + "\n"


def calibration_report_json_schema() -> dict[str, Any]:
    """The JSON Schema of the calibration JSON report."""
    schema = calibration_json_schema()
    schema["properties"] = {
        "schema_version": {"const": CALIBRATION_SCHEMA_VERSION},
        "generator": {"type": "object"},
        "kind": {"const": "calibration"},
        **schema.get("properties", {}),
    }
    schema["required"] = ["schema_version", "generator", "kind", *schema.get("required", [])]
    return schema


# --------------------------------------------------------------------------- HTML


def kappa_chart(metric: MetricCalibration) -> str:
    """Each judge's κ (dot) with its interval (whisker), on a −1…1 axis."""
    judges = [j for j in metric.judges if j.figures.kappa.value is not None]
    if not judges:
        return ""
    row, left, plot = 24, 200, 360
    height = 28 + row * len(judges)

    def x(value: float) -> float:
        return left + plot * (value + 1) / 2

    parts = []
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        parts.append(
            f'<line class="grid" x1="{x(tick):.1f}" y1="16" x2="{x(tick):.1f}" '
            f'y2="{height - 4}"/><text class="axis" x="{x(tick):.1f}" y="12" '
            f'text-anchor="middle">{tick:g}</text>'
        )
    for index, judge in enumerate(judges):
        y = 30 + index * row
        kappa = judge.figures.kappa
        value = kappa.value if kappa.value is not None else 0.0
        parts.append(
            f'<text x="{left - 8}" y="{y + 4}" text-anchor="end">{_e(judge.judge_id)}</text>'
        )
        if kappa.low is not None and kappa.high is not None:
            parts.append(
                f'<line x1="{x(kappa.low):.1f}" y1="{y}" x2="{x(kappa.high):.1f}" y2="{y}" '
                f'stroke="#4e79a7" stroke-width="2"/>'
            )
        parts.append(
            f'<circle cx="{x(value):.1f}" cy="{y}" r="5" fill="#4e79a7">'
            f"<title>{_e(judge.judge_id)}: κ {_e(estimate(kappa))}</title></circle>"
            f'<text x="{left + plot + 8}" y="{y + 4}">{_e(estimate(kappa))}</text>'
        )
    width = left + plot + 150
    return (
        f'<svg role="img" aria-label="Cohen kappa by judge" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>'
    )


def front_chart(metric: MetricCalibration, unit: str) -> str:
    """Cost against κ: every judge alone (grey) and the Pareto front (a step line)."""
    points = [(j.cost, j.figures.kappa.value, j.judge_id) for j in metric.judges]
    front = [(p.cost, p.figures.kappa.value, " + ".join(p.judges)) for p in metric.front]
    known = [(c, k, n) for c, k, n in points + front if k is not None]
    if not known:
        return ""
    left, top, plot_w, plot_h = 60, 16, 420, 200
    most = max(c for c, _, _ in known) or 1.0

    def x(cost: float) -> float:
        return left + plot_w * cost / (most * 1.05)

    def y(kappa: float) -> float:
        return top + plot_h * (1 - (kappa + 1) / 2)

    parts = []
    for tick in (-1.0, 0.0, 1.0):
        parts.append(
            f'<line class="grid" x1="{left}" y1="{y(tick):.1f}" x2="{left + plot_w}" '
            f'y2="{y(tick):.1f}"/><text class="axis" x="{left - 6}" y="{y(tick) + 4:.1f}" '
            f'text-anchor="end">{tick:g}</text>'
        )
    parts.append(
        f'<text class="axis" x="{left + plot_w / 2}" y="{top + plot_h + 30}" '
        f'text-anchor="middle">{"cost" if unit == "cost" else "tokens"} →  (κ ↑)</text>'
    )
    for cost, kappa, name in points:
        if kappa is not None:
            parts.append(
                f'<circle cx="{x(cost):.1f}" cy="{y(kappa):.1f}" r="4" fill="#bbb">'
                f"<title>{_e(name)}: κ {kappa:.2f}, {_e(_cost(cost, unit))}</title></circle>"
            )
    path = []
    for index, (cost, kappa, _) in enumerate(front):
        if kappa is None:
            continue
        if index:
            path.append(f"H{x(cost):.1f}V{y(kappa):.1f}")
        else:
            path.append(f"M{x(cost):.1f},{y(kappa):.1f}")
    if path:
        parts.append(f'<path d="{"".join(path)}" fill="none" stroke="#e15759" stroke-width="2"/>')
    for cost, kappa, name in front:
        if kappa is not None:
            parts.append(
                f'<circle cx="{x(cost):.1f}" cy="{y(kappa):.1f}" r="5" fill="#e15759">'
                f"<title>{_e(name)}: κ {kappa:.2f}, {_e(_cost(cost, unit))}</title></circle>"
                + (
                    f'<text x="{x(cost) - 7:.1f}" y="{y(kappa) + 16:.1f}" text-anchor="end">'
                    if x(cost) > left + plot_w / 2
                    else f'<text x="{x(cost) + 7:.1f}" y="{y(kappa) - 6:.1f}">'
                )
                + f"{_e(fmt.short(name, 48))}</text>"
            )
    width, height = left + plot_w + 160, top + plot_h + 40
    return (
        f'<svg role="img" aria-label="Cost against kappa" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>'
    )


def _figure_cells(figures: AgreementFigures) -> str:
    return (
        _num(str(figures.items))
        + _num(estimate(figures.kappa))
        + _num(estimate(figures.accuracy))
        + _num(estimate(figures.precision))
        + _num(estimate(figures.recall))
    )


def _disagreements_html(metric: MetricCalibration) -> str:
    if not metric.disagreements:
        return (
            f'<p class="muted">The panel ({_e(metric.panel_aggregation.lower())} of all judges) '
            "agrees with the people on every labelled sample.</p>"
        )
    rows = []
    for item in metric.disagreements:
        judges = "".join(
            f"<li><b>{_e(j.judge_id)}</b> "
            f'<span class="badge {_verdict(j.passed) if j.passed is not None else "failed"}">'
            f"{_e(_verdict(j.passed))}</span> {_e(j.reason)}</li>"
            for j in item.judges
        )
        notes = "".join(f"<br><span class='muted'>{_e(n)}</span>" for n in item.human_notes)
        rows.append(
            f"<tr><td>{_e(item.sample_id)}</td>"
            f'<td><span class="badge {_verdict(item.human_passed)}">'
            f"{_verdict(item.human_passed)}</span>{notes}</td>"
            f"<td>{fmt.score(item.panel_score)} {_verdict(item.panel_passed)}</td>"
            f'<td><ul class="text">{judges}</ul></td></tr>'
        )
    return _table(("Sample", "People", "Panel", "Each judge's verdict and reason"), rows)


def _metric_html(metric: MetricCalibration, unit: str) -> str:
    cost_header = "Cost" if unit == "cost" else "Tokens"
    judge_rows = [
        f"<tr><td>{_e(j.judge_id)}</td>{_figure_cells(j.figures)}"
        f"{_num(estimate(j.figures.mae, 3) if j.figures.mae else fmt.MISSING)}"
        f"{_num(_confusion(j.figures))}{_num(_items(j.items))}{_num(_cost(j.cost, unit))}</tr>"
        for j in metric.judges
    ]
    judges = _table(
        (*_JUDGE_HEADERS, cost_header),
        judge_rows,
        numeric=range(1, 10),
    )
    panel_rows = [
        f"<tr><td>{'★ ' if p == metric.best else ''}{_e(' + '.join(p.judges))}</td>"
        f"<td>{_e(p.aggregation.lower())}</td>{_figure_cells(p.figures)}"
        f"{_num(str(p.no_verdict))}{_num(_cost(p.cost, unit))}</tr>"
        for p in [*metric.panels, *metric.front]
    ]
    panels = _table(
        (*_PANEL_HEADERS, cost_header),
        panel_rows,
        numeric=range(2, 9),
    )
    best = (
        f"<p><b>Best panel</b>: {_e(' + '.join(metric.best.judges))} "
        f"({_e(metric.best.aggregation.lower())}), κ {_e(estimate(metric.best.figures.kappa))}, "
        f"{_e(_cost(metric.best.cost, unit))}.</p>"
        if metric.best is not None
        else ""
    )
    return (
        f'<section class="card" id="metric-{_e(metric.metric)}"><h2>{_e(metric.metric)}</h2>'
        f'<p class="meta">{_e(_people_line(metric))}</p>'
        f"<h3>Where the panel disagrees with the people</h3>{_disagreements_html(metric)}"
        f'<div class="charts"><div class="chart"><h3>Cohen κ per judge, with '
        f"intervals</h3>{kappa_chart(metric)}</div>"
        f'<div class="chart"><h3>Cost against κ: the Pareto front</h3>'
        f"{front_chart(metric, unit)}</div></div>"
        f"<h3>Judges</h3>{judges}<h3>Panels: all judges by aggregation, then the front of "
        f"{metric.searched} panels searched</h3>{panels}{best}</section>"
    )


def calibration_html_body(report: CalibrationReport) -> str:
    """Each calibrated metric's tables and charts (the page's body, also a section of
    ``compare``'s HTML report)."""
    return "".join(_metric_html(metric, report.cost_unit) for metric in report.metrics)


def render_calibration_html(report: CalibrationReport, *, title: str | None = None) -> str:
    """The calibration report as one self-contained HTML page."""
    name = report.dataset.name or report.dataset.path or "samples"
    heading = title or f"ragas-boot calibration: {name}"
    facts = [
        f"{report.dataset.size} samples",
        f"{len(report.judges)} judges",
        f"bootstrap {report.resamples} resamples, seed {report.seed}",
        f"{report.confidence:.0%} intervals",
        f"cost in {report.cost_unit}",
    ]
    if report.unlabelled_metrics:
        facts.append("not calibrated (no labels): " + ", ".join(report.unlabelled_metrics))
    body = calibration_html_body(report)
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(heading)}</title>{style_tag()}</head><body>"
        f'<header class="top"><div><h1>{_e(heading)}</h1>'
        f'<p class="meta">{" · ".join(_e(f) for f in facts)}</p></div></header>'
        f"<main>{body}</main><footer>Generated by ragas-boot calibrate.</footer>"
        "</body></html>\n"
    )
