"""The failure analysis section of the console and HTML reports (the Markdown summary lays
it out with its own table helpers; the JSON report holds the data), and a failed case in a
few lines (the pytest failure message).

The analysis itself is data computed from the metrics' results
(:mod:`ragas_boot.runs.analysis`); these renderers lay it out: each failed sample with its
first findings, the groups with the samples in them, and one recommendation per group.
"""

from __future__ import annotations

import json

from rich.console import RenderableType
from rich.table import Table
from rich.text import Text

from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting._html import escape as _e
from ragas_boot.reporting._html import numeric_cell, sample_anchor, table
from ragas_boot.runs.analysis import FailureAnalysis, Finding, sample_findings
from ragas_boot.runs.results import RunResult, SampleRun

__all__ = [
    "FINDINGS_IN_HTML",
    "FINDINGS_SHOWN",
    "IDS_SHOWN",
    "SAMPLES_SHOWN",
    "analysis_headline",
    "analysis_html",
    "analysis_renderables",
    "case_explanation",
    "finding_line",
]

FINDINGS_SHOWN = 2
"""Findings shown per failed sample in the console (the seed's ``issues[:2]``)."""

SAMPLES_SHOWN = 20
"""Failed samples whose findings the console shows (the JSON and HTML reports have all)."""

IDS_SHOWN = 10
"""Sample ids a group lists in the console."""

FINDINGS_IN_HTML = 500
"""Findings the HTML page lists (a run of many failed samples keeps its page readable)."""


def analysis_headline(run: RunResult, analysis: FailureAnalysis) -> str:
    """``Samples passing every metric: 9/10 (90.0%) · agent weather_agent:run`` (the agents
    that ran the cases, when the samples record them); samples the simulator failed are not
    counted (``· 1 simulator failure not counted``)."""
    apart = run.simulator_failures
    total = len(run.samples) - apart
    passed = total - (len(analysis.samples) - apart)
    rate = fmt.percent(passed / total if total else None)
    agents = dict.fromkeys(
        sample.sample.agent_run.agent
        for sample in run.samples
        if sample.sample.agent_run is not None and sample.sample.agent_run.agent
    )
    ran = f" · agent {', '.join(agents)}" if agents else ""
    if apart:
        ran += f" · {apart} simulator failure(s) not counted"
    return f"Samples passing every metric: {passed}/{total} ({rate}){ran}"


def analysis_renderables(run: RunResult, analysis: FailureAnalysis) -> list[RenderableType]:
    """The console section: the pass count, each failed sample's first findings, the groups
    and the recommendations."""
    parts: list[RenderableType] = [fmt.plain(analysis_headline(run, analysis), style="bold")]
    if not analysis.samples:
        return parts
    issues = Table.grid(padding=(0, 2))
    issues.add_column(no_wrap=True)
    issues.add_column(overflow="fold")
    for sample in analysis.samples[:SAMPLES_SHOWN]:
        shown = sample.findings[:FINDINGS_SHOWN]
        for position, finding in enumerate(shown):
            issues.add_row(
                fmt.plain(f"  {sample.sample_id}" if position == 0 else ""),
                fmt.plain(finding_line(finding), style="red"),
            )
        hidden = len(sample.findings) - len(shown)
        if hidden:
            issues.add_row(Text(""), Text(f"… and {hidden} more"))
    parts += [fmt.plain("Failure analysis", style="bold"), issues]
    unlisted = len(analysis.samples) - SAMPLES_SHOWN
    if unlisted > 0:
        parts.append(fmt.plain(f"  … and {unlisted} more failed samples (see the JSON or HTML)"))
    groups = Table.grid()
    groups.add_column(overflow="fold")
    for group in analysis.groups:
        count = len(group.sample_ids)
        ids = ", ".join(group.sample_ids[:IDS_SHOWN])
        if count > IDS_SHOWN:
            ids += f", +{count - IDS_SHOWN} more"
        groups.add_row(fmt.plain(f"  {group.title}: {count} sample{'s' * (count != 1)} ({ids})"))
    advice = Table.grid(padding=(0, 1))
    advice.add_column(width=3, justify="right")
    advice.add_column(overflow="fold")
    for recommendation in analysis.recommendations:
        advice.add_row("-", fmt.plain(recommendation))
    parts += [groups, fmt.plain("Recommendations", style="bold"), advice]
    return parts


def finding_line(finding: Finding) -> str:
    """``kind: message``."""
    return f"{finding.kind.value}: {finding.message}"


def analysis_html(run: RunResult, analysis: FailureAnalysis) -> str:
    """The HTML section: the groups with their recommendations, then each failed sample's
    findings (linked to the sample below)."""
    head = (
        '<section class="card" id="analysis"><h2>Failure analysis</h2>'
        f"<p>{_e(analysis_headline(run, analysis))}</p>"
    )
    if not analysis.samples:
        return head + "<p>No failures.</p></section>"
    rows = [
        f"<tr><td>{_e(group.title)}</td>{numeric_cell(str(len(group.sample_ids)))}"
        f"<td>{_e(', '.join(group.sample_ids))}</td><td>{_e(group.recommendation)}</td></tr>"
        for group in analysis.groups
    ]
    groups = table(("Failure", "Samples", "Sample ids", "Recommendation"), rows, numeric=(1,))
    listed = [(sample.sample_id, f) for sample in analysis.samples for f in sample.findings]
    found = [
        f'<tr><td><a href="#{_e(sample_anchor(sample_id))}">{_e(sample_id)}</a></td>'
        f"<td><code>{_e(finding.kind.value)}</code></td><td>{_e(finding.metric)}</td>"
        f"<td>{_e(finding.message)}</td></tr>"
        for sample_id, finding in listed[:FINDINGS_IN_HTML]
    ]
    findings = table(("Sample", "Kind", "Metric", "Finding"), found)
    more = len(listed) - FINDINGS_IN_HTML
    note = (
        f'<p class="muted">… and {more} more findings (see the JSON report).</p>'
        if more > 0
        else ""
    )
    return f"{head}{groups}<h3>Findings</h3>{findings}{note}</section>"


def case_explanation(run: SampleRun) -> str:
    """A few lines saying how a case went: its verdict, each metric's score and explanation,
    every finding, the calls and the answer (pytest's failure message of a case)."""
    sample = run.sample
    verdict = "passed" if run.passed else "failed"
    agent = sample.agent_run
    facts = []
    if agent is not None and agent.latency_ms is not None:
        facts.append(f"latency {fmt.milliseconds(agent.latency_ms)}")
    calls = sample.actual_tool_calls()
    facts.append(f"{len(calls)} tool call(s)")
    lines = [f"case {run.sample_id} {verdict}: {', '.join(facts)}"]
    for evaluation in run.evaluations:
        label = fmt.evaluation_label(evaluation)
        why = evaluation.result.explanation if evaluation.result is not None else ""
        if evaluation.error is not None:
            why = evaluation.error.message
        lines.append(f"  {evaluation.metric}: {label}" + (f" — {why}" if why else ""))
    lines += [f"  - {finding_line(finding)}" for finding in sample_findings(run)]
    if calls:
        lines.append("  calls: " + ", ".join(_call(call.name, call.arguments) for call in calls))
    answer = sample.final_response()
    if answer:
        lines.append(f"  answer: {fmt.short(answer, 300)}")
    return "\n".join(lines)


def _call(name: str, arguments: object) -> str:
    return f"{name}({json.dumps(arguments, ensure_ascii=False, default=str)})"
