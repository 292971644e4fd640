"""The generation report (``generate suite``, ``generate testset``) on the console, as JSON
and as an HTML section (or page): kept and rejected by reason, each rejection with its
candidate, calls and tokens by kind and per kept case, cost, coverage per group and value.
"""

from __future__ import annotations

import io
import json
from typing import Any

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from ragas_boot.generation.report import CallTally, GenerationReport
from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting._html import escape as _e
from ragas_boot.reporting._html import numeric_cell, table
from ragas_boot.reporting._style import style_tag
from ragas_boot.reporting.json_report import generator

__all__ = [
    "GENERATION_SCHEMA_VERSION",
    "generation_document",
    "generation_headline",
    "generation_html",
    "generation_renderables",
    "render_generation_console",
    "render_generation_html",
    "render_generation_json",
]

#: Version of the generation JSON report's layout; raised when a field is renamed or removed.
GENERATION_SCHEMA_VERSION = 1

_STOPS = {
    "complete": "count and coverage reached",
    "max_calls": "--max-calls spent",
    "max_cost": "--max-cost spent",
    "exhausted": "nothing left to ask",
}


def _per_case(value: float | None) -> str:
    return f"{value:.2f}" if value is not None else fmt.MISSING


def generation_headline(report: GenerationReport, separator: str = " · ") -> str:
    """``Kept 10/10 cases · rejected 3 (unknown_tool 2, near_duplicate 1) · 24 calls (2.40
    per kept case), 0 requests · ...`` (the parts joined by ``separator``)."""
    total = report.total
    parts = [f"Kept {report.kept_count}/{report.requested} cases ({_STOPS[report.stop_reason]})"]
    if report.rejected:
        reasons = ", ".join(f"{reason} {n}" for reason, n in report.rejected_by_reason.items())
        parts.append(f"rejected {len(report.rejected)} ({reasons})")
    else:
        parts.append("rejected 0")
    spend = (
        f"{total.calls} model calls ({_per_case(report.calls_per_kept_case)} per kept case), "
        f"{total.requests} requests, {total.cached} from the cache, "
        f"{fmt.tokens(total.tokens)} tokens"
    )
    if total.cost is not None:
        spend += f", {fmt.cost(total.cost)}"
    parts.append(spend)
    coverage = f"coverage {fmt.percent(report.coverage_share)}"
    if report.uncovered:
        coverage += " (not reached: " + ", ".join(report.uncovered[:8])
        coverage += f" +{len(report.uncovered) - 8} more)" if len(report.uncovered) > 8 else ")"
    parts.append(coverage)
    if report.review:
        parts.append(f"{len(report.review)} case(s) marked for review")
    if report.agent_checks is not None:
        parts.append(
            f"agent failed {len(report.agent_checks)} of {report.agent_checked} kept case(s)"
        )
    return separator.join(parts)


def _calls_rows(report: GenerationReport) -> list[tuple[str, CallTally]]:
    return [*report.calls.items(), ("total", report.total)]


def generation_renderables(report: GenerationReport) -> list[RenderableType]:
    """Calls by kind, coverage, rejections, agent failures and the headline, for a console."""
    parts: list[RenderableType] = []
    calls = Table(title="Model calls", title_justify="left")
    for name in ("Kind", "Calls", "Requests", "Cached", "Failed", "Tokens", "Cost"):
        calls.add_column(name, justify="left" if name == "Kind" else "right", no_wrap=True)
    for kind, tally in _calls_rows(report):
        calls.add_row(
            kind,
            str(tally.calls),
            str(tally.requests),
            str(tally.cached),
            str(tally.failed),
            fmt.tokens(tally.tokens),
            fmt.cost(tally.cost),
        )
    parts.append(calls)
    if report.coverage:
        coverage = Table(title="Coverage (kept cases)", title_justify="left")
        coverage.add_column("Group")
        coverage.add_column("Value")
        coverage.add_column("Cases", justify="right")
        for group, values in report.coverage.items():
            for value, count in values.items():
                coverage.add_row(
                    fmt.plain(group),
                    fmt.plain(value),
                    Text(str(count), style="" if count else "red"),
                )
        parts.append(coverage)
    if report.rejected:
        rejected = Table(title="Rejected candidates", title_justify="left")
        for name in ("#", "Reason", "Why"):
            rejected.add_column(name, justify="right" if name == "#" else "left")
        for rejection in report.rejected:
            rejected.add_row(
                str(rejection.attempt), rejection.reason, fmt.plain(fmt.short(rejection.message))
            )
        parts.append(rejected)
    if report.agent_checks:
        failed = Table(title="Kept cases the agent failed (kept)", title_justify="left")
        failed.add_column("Case")
        failed.add_column("What went wrong")
        for check in report.agent_checks:
            failed.add_row(fmt.plain(check.case_id), fmt.plain("; ".join(check.failures)))
        parts.append(failed)
    style = "" if report.complete else "red"
    parts.append(Text(generation_headline(report, "\n"), style=style))
    return parts


def render_generation_console(report: GenerationReport, *, width: int = 120) -> str:
    """The console report as plain text (no colour)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, color_system=None, highlight=False, emoji=False, markup=False
    )
    for part in generation_renderables(report):
        console.print(part)
    return buffer.getvalue()


def generation_document(report: GenerationReport) -> dict[str, Any]:
    """The report as JSON-ready data, with its derived figures."""
    return {
        "schema_version": GENERATION_SCHEMA_VERSION,
        "generator": generator(),
        "kind": "generation",
        **report.model_dump(mode="json"),
        "rejected_by_reason": report.rejected_by_reason,
        "total": report.total.model_dump(mode="json"),
        "calls_per_kept_case": report.calls_per_kept_case,
        "tokens_per_kept_case": report.tokens_per_kept_case,
        "coverage_share": report.coverage_share,
    }


def render_generation_json(report: GenerationReport, *, indent: int | None = 2) -> str:
    """The JSON report as text."""
    return json.dumps(generation_document(report), indent=indent, ensure_ascii=False) + "\n"


def generation_html(report: GenerationReport) -> str:
    """The generation section of an HTML page: headline, calls, coverage, rejections."""
    calls = table(
        ("Kind", "Calls", "Requests", "Cached", "Failed", "Tokens", "Cost"),
        (
            f"<tr><td>{_e(kind)}</td>{numeric_cell(str(t.calls))}"
            f"{numeric_cell(str(t.requests))}{numeric_cell(str(t.cached))}"
            f"{numeric_cell(str(t.failed))}{numeric_cell(fmt.tokens(t.tokens))}"
            f"{numeric_cell(fmt.cost(t.cost))}</tr>"
            for kind, t in _calls_rows(report)
        ),
        numeric=(1, 2, 3, 4, 5, 6),
    )
    coverage = table(
        ("Group", "Value", "Cases"),
        (
            f"<tr><td>{_e(group)}</td><td>{_e(value)}</td>{numeric_cell(str(count))}</tr>"
            for group, values in report.coverage.items()
            for value, count in values.items()
        ),
        numeric=(2,),
    )
    rejected = table(
        ("#", "Reason", "Why", "Candidate"),
        (
            f"<tr>{numeric_cell(str(r.attempt))}<td>{_e(r.reason)}</td><td>{_e(r.message)}</td>"
            f"<td><details><summary>show</summary><pre>"
            f"{_e(json.dumps(r.candidate, indent=2, ensure_ascii=False))}</pre></details></td></tr>"
            for r in report.rejected
        ),
        numeric=(0,),
    )
    checks = ""
    if report.agent_checks:
        checks = "<h3>Kept cases the agent failed</h3>" + table(
            ("Case", "What went wrong"),
            (
                f"<tr><td>{_e(c.case_id)}</td><td>{_e('; '.join(c.failures))}</td></tr>"
                for c in report.agent_checks
            ),
        )
    return (
        f'<section class="generation"><h2>Generation</h2>'
        f'<p class="meta">{_e(generation_headline(report))}</p>'
        f"<h3>Model calls</h3>{calls}<h3>Coverage</h3>{coverage}"
        f"<h3>Rejected candidates</h3>{rejected if report.rejected else '<p>None.</p>'}"
        f"{checks}</section>"
    )


def render_generation_html(report: GenerationReport) -> str:
    """The generation report as one self-contained HTML page."""
    heading = f"ragas-boot generate {report.kind}" + (f": {report.output}" if report.output else "")
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(heading)}</title>{style_tag()}</head><body>"
        f'<header class="top"><div><h1>{_e(heading)}</h1></div></header>'
        f"<main>{generation_html(report)}</main>"
        f"<footer>Generated by ragas-boot generate.</footer></body></html>\n"
    )
