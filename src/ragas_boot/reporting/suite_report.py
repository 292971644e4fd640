"""Renderers of suite results: console (rich), JSON, and one self-contained HTML page.

Each renderer takes a :class:`~ragas_boot.runs.suites.results.SuiteResult` (and optionally the
gate's verdict) and returns a string; none of them prints or writes files. They share the run
reports' figures (:mod:`ragas_boot.reporting._format`, so "no score" is spelled one way), the
one stylesheet (:mod:`ragas_boot.reporting._style`) and the JSON envelope (``schema_version``,
``generator``).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting._html import escape as _e
from ragas_boot.reporting._html import numeric_cell, table
from ragas_boot.reporting._style import style_tag
from ragas_boot.reporting.gates import suite_gate_line
from ragas_boot.reporting.json_report import generator
from ragas_boot.runs.suites.analysis import FailureAnalysis, analyze_failures
from ragas_boot.runs.suites.results import CaseIssue, CaseResult, SuiteGate, SuiteResult

__all__ = [
    "SUITE_REPORT_SCHEMA_VERSION",
    "case_explanation",
    "render_console",
    "render_html",
    "render_json",
    "report_data",
]

_ISSUES_SHOWN = 2
"""Issues shown per case in the console (the seed's ``issues[:2]``)."""


_fraction = fmt.fraction
_latency = fmt.milliseconds


def _percent(fraction: float) -> str:
    return fmt.percent(fraction)


_gate_line = suite_gate_line


_FIGURES = ("Score", "Precision", "Recall", "Params", "Output", "Latency", "Calls")
"""Headers of the per-case figures, in both tables."""


def _figures(case: CaseResult) -> tuple[str, ...]:
    """A case's figures under :data:`_FIGURES`."""
    return (
        f"{case.score:.2f}",
        _fraction(case.tool_precision),
        _fraction(case.tool_recall),
        _fraction(case.param_accuracy),
        _fraction(case.output_score),
        _latency(case.latency_ms),
        f"{len(case.tool_calls)}/{case.max_tool_calls}",
    )


def _issue_line(issue: CaseIssue) -> str:
    return f"{issue.kind.value}: {issue.message}"


def case_explanation(result: CaseResult) -> str:
    """A few lines saying how a case went: verdict, scores, and every issue.

    Used as the failure message of a case in pytest.
    """
    verdict = "passed" if result.passed else "failed"
    lines = [
        f"case {result.case_id} {verdict}: score {result.score:.3f} "
        f"(precision {_fraction(result.tool_precision)}, recall {_fraction(result.tool_recall)}, "
        f"params {_fraction(result.param_accuracy)}, output {_fraction(result.output_score)}), "
        f"latency {_latency(result.latency_ms)}, {len(result.tool_calls)} tool call(s)"
    ]
    lines += [f"  - {_issue_line(issue)}" for issue in result.issues]
    calls = ", ".join(
        f"{call.name}({json.dumps(call.arguments, ensure_ascii=False)})"
        for call in result.tool_calls
    )
    if calls:
        lines.append(f"  calls: {calls}")
    if result.response:
        lines.append(f"  answer: {result.response[:300]}")
    return "\n".join(lines)


# -- console ---------------------------------------------------------------------------------


def render_console(
    result: SuiteResult,
    gate: SuiteGate | None = None,
    *,
    color: bool = False,
    width: int = 110,
) -> str:
    """The report as console text: one row per case, first issues, totals, analysis, gate.

    Args:
        result: the suite's result.
        gate: the gate's verdict, printed last when given.
        color: include ANSI colour codes.
        width: the width to lay the table out in.
    """
    buffer = io.StringIO()
    console = Console(
        file=buffer,
        width=width,
        force_terminal=color,
        color_system="standard" if color else None,
        no_color=not color,
        highlight=False,
        emoji=False,
    )
    header = Text(f"Tool suite: {result.suite}", style="bold")
    header.append(
        f" — {result.total} case(s), agent {result.agent}, concurrency {result.concurrency}",
        style="default",
    )
    console.print(header)
    console.print(_table(result.cases))
    with_issues = [case for case in result.cases if case.issues]
    if with_issues:
        console.print(Text("Issues", style="bold"))
        console.print(_issues_grid(with_issues))
    console.print()
    console.print(
        Text(
            f"Results: {result.passed}/{result.total} passed ({_percent(result.pass_rate)})",
            style="bold",
        )
    )
    console.print(
        Text(
            f"  Avg score {_fraction(result.average_score)} | "
            f"precision {_fraction(result.average_precision)} | "
            f"recall {_fraction(result.average_recall)} | "
            f"param accuracy {_fraction(result.average_param_accuracy)} | "
            f"latency {_latency(result.average_latency_ms)} | "
            f"run {result.duration_s:.2f} s"
        )
    )
    analysis = analyze_failures(result)
    if analysis.groups:
        console.print()
        console.print(Text("Failure analysis", style="bold"))
        groups = Table.grid(padding=(0, 1))
        groups.add_column(no_wrap=True)
        groups.add_column(overflow="fold")
        for group in analysis.groups:
            count = len(group.case_ids)
            groups.add_row(
                Text(f"  {group.title}: {count} case{'s' * (count != 1)}"),
                Text(f"({', '.join(group.case_ids)})"),
            )
        console.print(groups)
        console.print(Text("Recommendations", style="bold"))
        advice = Table.grid(padding=(0, 1))
        advice.add_column(width=3, justify="right")
        advice.add_column(overflow="fold")
        for recommendation in analysis.recommendations:
            advice.add_row("-", Text(recommendation))
        console.print(advice)
    if gate is not None:
        console.print()
        console.print(Text(_gate_line(gate), style="bold green" if gate.passed else "bold red"))
    # Table cells are padded to their width; trailing blanks only get in the way of diffs.
    return "\n".join(line.rstrip() for line in buffer.getvalue().splitlines()) + "\n"


def _issues_grid(cases: Sequence[CaseResult]) -> Table:
    """The first issues of each case, wrapped within their column."""
    grid = Table.grid(padding=(0, 2))
    grid.add_column(no_wrap=True)
    grid.add_column(overflow="fold")
    for case in cases:
        shown = case.issues[:_ISSUES_SHOWN]
        for position, issue in enumerate(shown):
            style = "yellow" if case.passed else "red"
            grid.add_row(
                Text(f"  {case.case_id}" if position == 0 else ""),
                Text(_issue_line(issue), style=style),
            )
        hidden = len(case.issues) - len(shown)
        if hidden:
            grid.add_row(Text(""), Text(f"… and {hidden} more"))
    return grid


def _table(cases: Sequence[CaseResult]) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    table.add_column("Result")
    table.add_column("Case", overflow="fold")
    for name in _FIGURES:
        table.add_column(name, justify="right")
    for case in cases:
        table.add_row(
            Text("PASS", style="green") if case.passed else Text("FAIL", style="bold red"),
            Text(case.case_id),
            *_figures(case),
        )
    return table


# -- JSON ------------------------------------------------------------------------------------


SUITE_REPORT_SCHEMA_VERSION = 1
"""Version of the suite JSON report's layout; raised when a field is renamed or removed."""


def report_data(result: SuiteResult, gate: SuiteGate | None = None) -> dict[str, Any]:
    """The report as JSON-ready data: ``schema_version`` and ``generator`` (as in the run
    report), then the result, its failure analysis and the gate."""
    data: dict[str, Any] = {
        "schema_version": SUITE_REPORT_SCHEMA_VERSION,
        "generator": generator(),
        **result.model_dump(mode="json"),
    }
    analysis = analyze_failures(result)
    data["analysis"] = analysis.model_dump(mode="json")
    data["analysis"]["recommendations"] = analysis.recommendations
    data["gate"] = gate.model_dump(mode="json") if gate is not None else None
    return data


def render_json(result: SuiteResult, gate: SuiteGate | None = None, *, indent: int = 2) -> str:
    """The report as a JSON document (see :func:`report_data`)."""
    return json.dumps(report_data(result, gate), indent=indent, ensure_ascii=False) + "\n"


# -- HTML ------------------------------------------------------------------------------------


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def render_html(result: SuiteResult, gate: SuiteGate | None = None) -> str:
    """The report as one self-contained HTML page (inline CSS, no scripts, no links)."""
    analysis = analyze_failures(result)
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>Tool suite: {_e(result.suite)}</title>",
        f"{style_tag()}</head><body><main>",
        f"<h1>Tool suite: {_e(result.suite)}</h1>",
        f'<p class="meta">agent {_e(result.agent)} · {result.total} case(s) · concurrency '
        f"{result.concurrency} · started {_e(result.started_at.isoformat(timespec='seconds'))}"
        f" · {result.duration_s:.2f} s</p>",
    ]
    if gate is not None:
        css = "pass" if gate.passed else "fail"
        parts.append(f'<div class="gate {css}">{_e(_gate_line(gate))}</div>')
    parts.append(_tiles(result))
    parts.append(f'<section class="card">{_cases_table(result.cases)}</section>')
    parts.append(_analysis_html(analysis))
    parts.append("<h2>Cases</h2>")
    parts += [_case_html(case) for case in result.cases]
    parts.append("</main></body></html>")
    return "\n".join(parts) + "\n"


def _tiles(result: SuiteResult) -> str:
    tiles = [
        ("Passed", f"{result.passed}/{result.total}"),
        ("Pass rate", _percent(result.pass_rate)),
        ("Avg score", _fraction(result.average_score)),
        ("Precision", _fraction(result.average_precision)),
        ("Recall", _fraction(result.average_recall)),
        ("Param accuracy", _fraction(result.average_param_accuracy)),
        ("Avg latency", _latency(result.average_latency_ms)),
    ]
    inner = "".join(
        f'<div class="tile"><span class="muted">{_e(label)}</span><b>{_e(value)}</b></div>'
        for label, value in tiles
    )
    return f'<div class="tiles">{inner}</div>'


def _verdict_html(case: CaseResult) -> str:
    if case.passed:
        return '<span class="badge pass">PASS</span>'
    return '<span class="badge fail">FAIL</span>'


def _cases_table(cases: Sequence[CaseResult]) -> str:
    rows = []
    for case in cases:
        first = _e(_issue_line(case.issues[0])) if case.issues else ""
        numbers = "".join(numeric_cell(cell) for cell in _figures(case))
        rows.append(
            f'<tr><td>{_verdict_html(case)}</td><td><a href="#case-{_e(case.case_id)}">'
            f"{_e(case.case_id)}</a></td>{numbers}<td>{first}</td></tr>"
        )
    headers = ("Result", "Case", *_FIGURES, "First issue")
    return table(headers, rows, numeric=range(2, 2 + len(_FIGURES)))


def _analysis_html(analysis: FailureAnalysis) -> str:
    if not analysis.groups:
        return '<section class="card"><h2>Failure analysis</h2><p>No failures.</p></section>'
    rows = [
        f"<tr><td>{_e(group.title)}</td>{numeric_cell(str(len(group.case_ids)))}"
        f"<td>{_e(', '.join(group.case_ids))}</td><td>{_e(group.recommendation)}</td></tr>"
        for group in analysis.groups
    ]
    headers = ("Failure", "Cases", "Case ids", "Recommendation")
    return (
        f'<section class="card"><h2>Failure analysis</h2>{table(headers, rows, numeric=(1,))}'
        "</section>"
    )


def _case_html(case: CaseResult) -> str:
    verdict = _verdict_html(case)
    parts = [
        f'<details class="sample" id="case-{_e(case.case_id)}"{"" if case.passed else " open"}>',
        f'<summary>{verdict} <span class="sid">{_e(case.case_id)}</span> score '
        f"{case.score:.2f}, latency {_e(_latency(case.latency_ms))}, "
        f"{len(case.tool_calls)} call(s)</summary>",
        '<div class="sample-body">',
    ]
    if case.description:
        parts.append(f'<p class="muted">{_e(case.description)}</p>')
    if case.issues:
        rows = [
            f"<tr><td><code>{_e(issue.kind.value)}</code></td><td>{_e(issue.tool or '')}</td>"
            f"<td>{_e(issue.param or '')}</td><td>{_e(_json_text(issue.expected))}</td>"
            f"<td>{_e(_json_text(issue.actual))}</td><td>{_e(issue.message)}</td></tr>"
            for issue in case.issues
        ]
        headers = ("Kind", "Tool", "Param", "Expected", "Actual", "Message")
        parts.append(table(headers, rows))
    if case.tool_calls:
        calls = "\n".join(f"{call.name}({_json_text(call.arguments)})" for call in case.tool_calls)
        parts.append(f"<h4>Tool calls</h4><pre>{_e(calls)}</pre>")
    parts.append(f"<h4>Answer</h4><pre>{_e(case.response or '(none)')}</pre>")
    conversation = "\n".join(_message_line(message) for message in case.messages)
    parts.append(f"<h4>Conversation</h4><pre>{_e(conversation)}</pre>")
    parts.append("</div></details>")
    return "\n".join(parts)


def _message_line(message: Any) -> str:
    kind = getattr(message, "type", "?")
    text = getattr(message, "content", "")
    calls = getattr(message, "tool_calls", None) or []
    suffix = "".join(f" → {call.name}({_json_text(call.arguments)})" for call in calls)
    return f"[{kind}] {text}{suffix}"
