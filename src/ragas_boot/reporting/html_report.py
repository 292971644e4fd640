"""Self-contained HTML report of a run: inline CSS and SVG, no script, nothing fetched.

Sections: metrics; judges (a bar chart of each judge's mean score per metric, a latency chart,
and a judge × metric table); agreement; failures; then every sample with its conversation,
expected outcome and each metric's result per judge with reasons. Prompts and raw answers sit
behind ``<details>`` toggles. Everything user-supplied is HTML-escaped.

A spooled run (more samples than ``run.spool-after``) keeps no steps, so no prompts or raw
answers; the report reads them back from the spool and shows them for the first
:data:`SPOOLED_DETAILED_SAMPLES` samples and the first as many samples with an evaluation that
did not pass (``detailed_samples``); the others show their verdicts, reasons and the count of
their judge calls, and say (as the samples section does) that the prompts and raw answers are
in the JSON report.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ragas_boot.execution.results import JudgeCall, StepRecord
from ragas_boot.metrics.results import meets_threshold
from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting._html import escape as _e
from ragas_boot.reporting._html import numeric_cell as _num
from ragas_boot.reporting._html import sample_anchor as _anchor
from ragas_boot.reporting._html import table as _table
from ragas_boot.reporting._style import style_tag
from ragas_boot.reporting.analysis import analysis_html
from ragas_boot.reporting.history_report import html_diff_section
from ragas_boot.reporting.simulation import simulation_html
from ragas_boot.runs.analysis import failure_analysis
from ragas_boot.runs.records import Evaluation, MetricInfo, SampleRun
from ragas_boot.runs.regressions import RunDiff
from ragas_boot.runs.results import JudgeSummary, RunResult
from ragas_boot.samples import (
    AIMessage,
    ExpectedToolCall,
    HumanMessage,
    Sample,
    ToolCall,
    ToolCallAlternatives,
    ToolMessage,
)

if TYPE_CHECKING:
    from ragas_boot.runs.calibration import CalibrationReport

__all__ = ["SPOOLED_DETAILED_SAMPLES", "html_chunks", "render_html"]

#: A spooled run's report shows the prompts and raw answers of the first this many samples,
#: and of the first this many samples with an evaluation that did not pass.
SPOOLED_DETAILED_SAMPLES = 100

_PALETTE = ("#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#b07aa1", "#edc948")


def _badge(evaluation: Evaluation) -> str:
    status = evaluation.status
    css = status if status != "scored" else ("pass" if evaluation.passed else "fail")
    return f'<span class="badge {css}">{_e(fmt.evaluation_label(evaluation))}</span>'


# --------------------------------------------------------------------------- charts


def _label(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _legend(metrics: Sequence[MetricInfo]) -> str:
    items = "".join(
        f'<span><i style="background:{_PALETTE[i % len(_PALETTE)]}"></i>{_e(m.name)}</span>'
        for i, m in enumerate(metrics)
    )
    return f'<div class="legend">{items}</div>'


def score_chart(run: RunResult) -> str:
    """Horizontal bars: each judge's mean score on each metric that uses judges."""
    metrics = [m for m in run.metrics if m.judge_ids]
    if not metrics or not run.judges:
        return ""
    bar, gap, group_gap, left, plot = 14, 3, 14, 210, 330
    group = len(metrics) * (bar + gap) + group_gap
    height = 24 + group * len(run.judges)
    parts = []
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = left + plot * tick
        parts.append(f'<line class="grid" x1="{x:.1f}" y1="16" x2="{x:.1f}" y2="{height - 4}"/>')
        parts.append(f'<text class="axis" x="{x:.1f}" y="12" text-anchor="middle">{tick:g}</text>')
    for j, judge in enumerate(run.judges):
        top = 24 + j * group
        middle = top + (len(metrics) * (bar + gap)) / 2 + 4
        parts.append(
            f'<text x="{left - 8}" y="{middle:.1f}" text-anchor="end">'
            f"<title>{_e(judge.id)}</title>{_e(_label(judge.id))}</text>"
        )
        for i, metric in enumerate(metrics):
            y = top + i * (bar + gap)
            summary = _judge_summary(run, judge.id, metric.name)
            value = summary.mean if summary is not None else None
            color = _PALETTE[i % len(_PALETTE)]
            width = plot * (value or 0.0)
            parts.append(
                f'<rect x="{left}" y="{y}" width="{width:.1f}" height="{bar}" '
                f'fill="{color}" rx="2">'
                f"<title>{_e(judge.id)} · {_e(metric.name)}: {fmt.score(value)}</title></rect>"
            )
            parts.append(
                f'<text x="{left + width + 4:.1f}" y="{y + bar - 3}">{fmt.score(value)}</text>'
            )
    svg = (
        f'<svg role="img" aria-label="Mean score by judge" width="{left + plot + 60}" '
        f'height="{height}" viewBox="0 0 {left + plot + 60} {height}">{"".join(parts)}</svg>'
    )
    return f"<h3>Mean score by judge</h3>{_legend(metrics)}{svg}"


def latency_chart(run: RunResult) -> str:
    """Horizontal bars: each judge's latency p50 (dark) and p95 (light), all metrics."""
    overall = [s for s in run.judge_summaries if s.metric is None]
    highest = max((s.latency_p95_s or s.latency_p50_s or 0.0 for s in overall), default=0.0)
    if not overall or highest <= 0:
        return ""
    bar, row, left, plot = 16, 26, 210, 300
    height = 24 + row * len(overall)
    scale = plot / (highest * 1.05)
    parts = []
    for tick in (0.0, 0.5, 1.0):
        x = left + plot * tick / 1.05
        label = fmt.seconds(highest * tick)
        parts.append(f'<line class="grid" x1="{x:.1f}" y1="16" x2="{x:.1f}" y2="{height - 4}"/>')
        parts.append(f'<text class="axis" x="{x:.1f}" y="12" text-anchor="middle">{label}</text>')
    for j, summary in enumerate(overall):
        y = 24 + j * row
        p50 = summary.latency_p50_s or 0.0
        p95 = summary.latency_p95_s or p50
        parts.append(
            f'<text x="{left - 8}" y="{y + bar - 3}" text-anchor="end">'
            f"<title>{_e(summary.judge_id)}</title>{_e(_label(summary.judge_id))}</text>"
        )
        parts.append(
            f'<rect x="{left}" y="{y}" width="{p95 * scale:.1f}" height="{bar}" '
            f'fill="#9ecae9" rx="2"><title>p95 {fmt.seconds(p95)}</title></rect>'
        )
        parts.append(
            f'<rect x="{left}" y="{y + 3}" width="{p50 * scale:.1f}" height="{bar - 6}" '
            f'fill="#2b6cb0" rx="2"><title>p50 {fmt.seconds(p50)}</title></rect>'
        )
        parts.append(
            f'<text x="{left + p95 * scale + 4:.1f}" y="{y + bar - 3}">'
            f"{fmt.seconds(p50)} / {fmt.seconds(p95)}</text>"
        )
    width = left + plot + 130
    svg = (
        f'<svg role="img" aria-label="Latency by judge" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}">{"".join(parts)}</svg>'
    )
    legend = (
        '<div class="legend"><span><i style="background:#2b6cb0"></i>p50</span>'
        '<span><i style="background:#9ecae9"></i>p95</span></div>'
    )
    return f"<h3>Latency of answered calls</h3>{legend}{svg}"


def _judge_summary(run: RunResult, judge_id: str, metric: str | None) -> JudgeSummary | None:
    try:
        return run.judge_summary(judge_id, metric)
    except KeyError:
        return None


# --------------------------------------------------------------------------- sections


def _header(run: RunResult, title: str) -> str:
    from ragas_boot._version import __version__

    dataset = run.dataset
    facts = [
        f"{dataset.size} samples × {len(run.metrics)} metrics",
        f"{len(run.judges)} judges",
        f"started {run.started_at:%Y-%m-%d %H:%M:%S} UTC",
        f"{run.duration_s:.1f} s",
        f"concurrency {run.concurrency}",
        f"ragas-boot {__version__}",
    ]
    if dataset.path:
        facts.insert(0, f"dataset {dataset.path}")
    nav = ["metrics", "judges", "agreement", "failures", "samples"]
    shown = {
        "judges": bool(run.judges),
        "agreement": bool(run.agreement),
        "failures": bool(run.failures()),
    }
    links = "".join(
        f'<a href="#{name}">{name.title()}</a>' for name in nav if shown.get(name, True)
    )
    return (
        f'<header class="top"><div><h1>{_e(title)}</h1>'
        f'<p class="meta">{" · ".join(_e(f) for f in facts)}</p><nav>{links}</nav></div></header>'
    )


def _metrics_section(run: RunResult) -> str:
    rows = []
    for s in run.metric_summaries:
        failed = f'<td class="num error">{s.failed}</td>' if s.failed else _num(str(s.failed))
        threshold = ("≤ " if s.lower_is_better else "") + f"{s.threshold:.2f}"
        rows.append(
            f"<tr><td>{_e(s.metric)}</td>{_num(fmt.score(s.mean))}{_num(fmt.score(s.minimum))}"
            f"{_num(fmt.score(s.maximum))}{_num(fmt.percent(s.pass_rate))}"
            f"{_num(threshold)}{_num(str(s.scored))}{_num(str(s.undefined))}"
            f"{failed}</tr>"
        )
    priced = run.totals.cost is not None
    budget = run.totals.budget > 0
    if priced or budget:
        rows = [
            row[: -len("</tr>")]
            + (_num(str(s.budget)) if budget else "")
            + (_num(fmt.cost(s.cost)) if priced else "")
            + "</tr>"
            for row, s in zip(rows, run.metric_summaries, strict=True)
        ]
    headers = ("Metric", "Mean", "Min", "Max", "Pass rate", "Threshold", "Scored", "Undefined")
    extra = (("Budget",) if budget else ()) + (("Cost",) if priced else ())
    table = _table((*headers, "Failed", *extra), rows, numeric=range(1, 9 + len(extra)))
    totals = run.totals
    billed = totals.billed_usage
    line = (
        f"{totals.judge_calls} judge calls ({totals.failed_judge_calls} failed) · "
        + fmt.spend(
            billed.total_tokens,
            totals.usage.total_tokens,
            totals.cost,
            totals.unpriced_tokens,
            cap=run.max_cost,
        )
        + f" · billed {fmt.tokens(billed.input_tokens)} in, {fmt.tokens(billed.output_tokens)} out"
    )
    if run.stopped == "budget":
        line += f" · spend cap reached: {totals.budget} evaluations cut short (budget)"
    cache = fmt.cache(
        totals.cache_hits,
        totals.cache_misses,
        totals.saved_usage.total_tokens,
        totals.saved_cost,
    )
    if cache:
        line += f" · {cache}"
    return (
        f'<section class="card" id="metrics"><h2>Metrics</h2>{table}'
        f'<p class="muted">{_e(line)}</p></section>'
    )


def _judges_section(run: RunResult) -> str:
    if not run.judges:
        return ""
    rows = []
    previous = None
    priced = run.totals.cost is not None
    for s in (s for s in run.judge_summaries if s.metric is not None):
        first = s.judge_id != previous
        previous = s.judge_id
        judge = f"{_e(s.judge_id)} <span class='muted'>({_e(s.provider)})</span>" if first else ""
        failed_calls = f"{s.failed_calls}/{s.calls}"
        failed_cell = (
            f'<td class="num error">{failed_calls}</td>' if s.failed_calls else _num(failed_calls)
        )
        excluded = f'<td class="num error">{s.excluded}</td>' if s.excluded else _num("0")
        rows.append(
            f'<tr class="{"group-start" if first else ""}"><td>{judge}</td><td>{_e(s.metric)}</td>'
            f"{_num(fmt.score(s.mean))}{_num(fmt.percent(s.pass_rate))}"
            f"{_num(fmt.seconds(s.latency_p50_s))}{_num(fmt.seconds(s.latency_p95_s))}"
            f"{_num(fmt.tokens(s.usage.total_tokens))}"
            f"{_num(fmt.tokens(s.billed_usage.total_tokens))}"
            f"{_num(fmt.cost(s.cost)) if priced else ''}{failed_cell}{excluded}</tr>"
        )
    headers: tuple[str, ...] = ("Judge", "Metric", "Mean", "Pass rate", "p50", "p95")
    headers += ("Answered", "Billed", *(("Cost",) if priced else ()))
    table = _table((*headers, "Failed calls", "Excluded"), rows, numeric=range(2, len(headers) + 2))
    charts = "".join(
        f'<div class="chart">{c}</div>' for c in (score_chart(run), latency_chart(run)) if c
    )
    note = "".join(f'<p class="muted">{_e(line)}</p>' for line in [fmt.prices(run.judges)] if line)
    return (
        f'<section class="card" id="judges"><h2>Judges</h2><div class="charts">{charts}</div>'
        f"{table}{note}</section>"
    )


def _agreement_section(run: RunResult) -> str:
    if not run.agreement:
        return ""
    rows = []
    for summary in run.agreement:
        label = _e(summary.metric or "all metrics")
        for index, pair in enumerate(summary.pairs):
            rows.append(
                f'<tr class="{"group-start" if index == 0 else ""}">'
                f"<td>{label if index == 0 else ''}</td>"
                f"<td>{_e(pair.judge_a)} · {_e(pair.judge_b)}</td>{_num(str(pair.items))}"
                f"{_num(fmt.percent(pair.percent_agreement))}{_num(fmt.kappa(pair.cohen_kappa))}</tr>"
            )
        rows.append(
            f"<tr><td></td><td><b>Fleiss κ, all judges</b></td>{_num(str(summary.fleiss_items))}"
            f"<td></td><td class='num'><b>{_e(fmt.kappa(summary.fleiss_kappa))}</b></td></tr>"
        )
    table = _table(("Metric", "Judges", "Items", "Agreement", "Cohen κ"), rows, numeric=(2, 3, 4))
    note = (
        "A judge's verdict is its score ≥ 0.5. Agreement and Cohen's κ per pair count the "
        "evaluations both judges scored; Fleiss' κ counts those every judge scored."
    )
    return (
        f'<section class="card" id="agreement"><h2>Agreement</h2>'
        f'<p class="muted">{_e(note)}</p>{table}</section>'
    )


def _repeats_section(run: RunResult) -> str:
    rows = []
    for sample in run.samples:
        for evaluation in sample.evaluations:
            repeats = evaluation.result.repeats if evaluation.result is not None else None
            if repeats is None:
                continue
            stability = (
                '<span class="badge fail">unstable</span>'
                if repeats.unstable
                else '<span class="badge pass">stable</span>'
            )
            rows.append(
                f'<tr><td><a href="#{_anchor(sample.sample_id)}">{_e(sample.sample_id)}</a></td>'
                f"<td>{_e(evaluation.metric)}</td>{_num(str(repeats.runs))}"
                f"{_num(f'{repeats.passed}/{repeats.scored}')}"
                f"{_num(fmt.percent(repeats.pass_rate))}"
                f"{_num(fmt.interval(repeats.ci_low, repeats.ci_high))}"
                f"{_num(' '.join(fmt.score(value) for value in repeats.scores))}"
                f"<td>{stability}</td></tr>"
            )
    if not rows:
        return ""
    table = _table(
        ("Sample", "Metric", "Runs", "Passed", "Pass rate", "95% CI", "Scores", "Stability"),
        rows,
        numeric=(2, 3, 4, 5, 6),
    )
    note = (
        "Each sample scored several times (repeat). The interval is Wilson's at 95%; "
        "unstable: the repeats fall on both sides of the threshold."
    )
    return (
        f'<section class="card" id="repeats"><h2>Repeats</h2>'
        f'<p class="muted">{_e(note)}</p>{table}</section>'
    )


def _failures_section(run: RunResult) -> str:
    failures = run.failures()
    if not failures:
        return ""
    rows = []
    for sample_id, evaluation in failures:
        error = evaluation.error
        message = f"{error.kind}: {error.message}" if error else "failed"
        rows.append(
            f'<tr><td><a href="#{_anchor(sample_id)}">{_e(sample_id)}</a></td>'
            f'<td>{_e(evaluation.metric)}</td><td class="error">{_e(message)}</td></tr>'
        )
    table = _table(("Sample", "Metric", "Error"), rows)
    return (
        f'<section class="card" id="failures"><h2>Failed evaluations ({len(failures)})</h2>'
        f"{table}</section>"
    )


# --------------------------------------------------------------------------- samples


def _call_text(call: ToolCall) -> str:
    arguments = json.dumps(call.arguments, ensure_ascii=False, sort_keys=True)
    notes = ""
    if isinstance(call, ExpectedToolCall):
        rules = [f"{name}: {rule.describe()}" for name, rule in call.argument_rules.items()]
        notes = "; ".join((["optional"] if call.optional else []) + rules)
        notes = f' <span class="muted">[{_e(notes)}]</span>' if notes else ""
    return f'<code class="call">{_e(call.name)}({_e(arguments)})</code>{notes}'


def _conversation(sample: Sample) -> str:
    parts = []
    if sample.user_input:
        parts.append(
            f'<div class="msg human"><div class="role">user input</div>'
            f'<div class="text">{_e(sample.user_input)}</div></div>'
        )
    for message in sample.user_input_messages or []:
        if isinstance(message, HumanMessage):
            role, css, body = "user", "human", f'<div class="text">{_e(message.content)}</div>'
        elif isinstance(message, ToolMessage):
            name = f" · {message.name}" if message.name else ""
            name += " · error" if message.failed else ""
            role, css, body = (
                f"tool{name}",
                "tool",
                f'<div class="text">{_e(message.content)}</div>',
            )
        elif isinstance(message, AIMessage):
            text = f'<div class="text">{_e(message.content)}</div>' if message.content else ""
            role, css = "assistant", "ai"
            body = text + "".join(_call_text(call) for call in message.tool_calls)
        else:  # pragma: no cover - the message union is closed
            continue
        parts.append(f'<div class="msg {css}"><div class="role">{_e(role)}</div>{body}</div>')
    if sample.response:
        parts.append(
            f'<div class="msg ai"><div class="role">response</div>'
            f'<div class="text">{_e(sample.response)}</div></div>'
        )
    return "".join(parts) or '<p class="muted">No conversation.</p>'


def _expected(sample: Sample) -> str:
    parts = []
    if sample.reference:
        parts.append(f'<h4>Reference</h4><div class="text">{_e(sample.reference)}</div>')
    if sample.reference_topics is not None:
        chips = "".join(f'<span class="chip">{_e(t)}</span>' for t in sample.reference_topics)
        parts.append(f"<h4>Reference topics</h4><div>{chips or '<i>none</i>'}</div>")
    alternatives = sample.reference_alternatives()
    if alternatives is not None:
        listed = [
            "".join(_call_text(call) for call in calls) or "<i>none expected</i>"
            for calls in alternatives
        ]
        if isinstance(sample.reference_tool_calls, ToolCallAlternatives):
            listed = [
                f'<div><span class="muted">Alternative {number}:</span> {calls}</div>'
                for number, calls in enumerate(listed, 1)
            ]
        parts.append(f"<h4>Reference tool calls</h4>{''.join(listed)}")
    for title, record in (("Expectations", sample.expectations), ("Agent run", sample.agent_run)):
        if record is not None:
            dumped = json.dumps(
                record.model_dump(mode="json", exclude_none=True), ensure_ascii=False
            )
            parts.append(f"<h4>{title}</h4><pre>{_e(dumped)}</pre>")
    if sample.metadata:
        dumped = json.dumps(sample.metadata, ensure_ascii=False, indent=2, default=str)
        parts.append(f"<h4>Metadata</h4><pre>{_e(dumped)}</pre>")
    return "".join(parts) or '<p class="muted">Nothing expected.</p>'


def _call_box(call: JudgeCall) -> str:
    status = (
        '<span class="badge pass">answered</span>'
        if call.ok
        else f'<span class="badge failed">{_e(call.error_kind or "failed")}</span>'
    )
    facts = (
        f"{fmt.seconds(call.latency_s)} · waited {fmt.seconds(call.wait_s)} · "
        f"{call.attempts} attempt(s) · {fmt.tokens(call.billed_usage.total_tokens)} tokens "
        f"billed ({fmt.tokens(call.usage.total_tokens)} answered)"
        + (f" · {fmt.cost(call.cost)}" if call.cost is not None else "")
    )
    if call.cached:
        status += ' <span class="badge">cached</span>'
        facts = (
            f"from the response cache · {fmt.tokens(call.saved_usage.total_tokens)} tokens saved"
        )
    error = f'<div class="error">{_e(call.error_message)}</div>' if call.error_message else ""
    answers = call.raw_attempts or ([call.raw_text] if call.raw_text else [])
    raw = "".join(
        f'<details class="part"><summary>Raw answer'
        f"{f' {i + 1} of {len(answers)}' if len(answers) > 1 else ''}</summary>"
        f"<pre>{_e(text)}</pre></details>"
        for i, text in enumerate(answers)
    )
    return (
        f'<div class="call-box"><b>{_e(call.judge_id)}</b> {status} '
        f'<span class="muted">{_e(facts)}</span>{error}'
        f'<details class="part"><summary>Prompt</summary><pre>{_e(call.prompt)}</pre></details>'
        f"{raw}</div>"
    )


def _calls(steps: Sequence[StepRecord]) -> str:
    count = sum(len(step.calls) for step in steps)
    if not count:
        return ""
    body = "".join(
        f"<h4>{_e(step.name)} <span class='muted'>({fmt.seconds(step.duration_s)})</span></h4>"
        + "".join(_call_box(call) for call in step.calls)
        for step in steps
        if step.calls
    )
    return (
        f'<details class="calls"><summary>Prompts and raw answers ({count} calls)</summary>'
        f"{body}</details>"
    )


def _call_facts(evaluation: Evaluation) -> str:
    """A spooled evaluation not read back: its judge calls counted, not shown."""
    calls = evaluation.judge_calls()
    if not calls:
        return ""
    failed = sum(not call.ok for call in calls)
    tokens = sum(call.billed_usage.total_tokens for call in calls)
    return (
        f'<p class="muted">{len(calls)} judge calls ({failed} failed, {fmt.tokens(tokens)} '
        "tokens billed): their prompts and raw answers are in the JSON report.</p>"
    )


def _evaluation(evaluation: Evaluation, detailed: bool = True) -> str:
    head = f"<h4>{_e(evaluation.metric)} {_badge(evaluation)}</h4>"
    result, error = evaluation.result, evaluation.error
    if result is None:
        failures = "".join(
            f"<li>{_e(f.judge_id)} at {_e(f.step)}: {_e(f.kind)}: {_e(f.message)}</li>"
            for f in (error.failures if error else [])
        )
        message = _e(error.message) if error else "failed"
        if error is not None and error.kind == "all_judges_failed" and failures:
            # the full message repeats every judge's error; the list below says it once each
            message = f"No judge answered at step {_e(error.step)}:"
        listed = f"<ul>{failures}</ul>" if failures else ""
        steps = (_calls(error.steps) if error else "") if detailed else _call_facts(evaluation)
        return f'<div class="evaluation">{head}<p class="error">{message}</p>{listed}{steps}</div>'
    explanation = f"<p>{_e(result.explanation)}</p>" if result.explanation else ""
    undefined = (
        f'<p class="muted">Undefined: {_e(result.undefined_reason)}</p>'
        if result.undefined_reason and result.score is None
        else ""
    )
    rows = []
    reasons = result.reasons()
    threshold = float(result.config.get("threshold", 0.5))
    for judge_id, value in result.model_scores.items():
        verdict = (
            "pass"
            if meets_threshold(value, threshold, lower_is_better=result.lower_is_better)
            else "fail"
        )
        rows.append(
            f"<tr><td>{_e(judge_id)}</td>{_num(fmt.score(value))}"
            f'<td><span class="badge {verdict}">{verdict}</span></td>'
            f'<td class="text">{_e(reasons.get(judge_id, ""))}</td></tr>'
        )
    for exclusion in result.exclusions:
        rows.append(
            f"<tr><td>{_e(exclusion.judge_id)}</td>{_num(fmt.MISSING)}"
            f'<td><span class="badge failed">excluded</span></td>'
            f'<td class="error">{_e(exclusion.step)}: {_e(exclusion.kind)}: '
            f"{_e(exclusion.message)}</td></tr>"
        )
    judges = _table(("Judge", "Score", "Verdict", "Reason"), rows, numeric=(1,)) if rows else ""
    agreement = (
        f'<p class="muted">Aggregation {_e(result.aggregation)} · agreement '
        f"{fmt.percent(result.agreement)}{' · judges disagree' if result.disagreement else ''}</p>"
        if result.model_scores
        else ""
    )
    return (
        f'<div class="evaluation">{head}{explanation}{undefined}{agreement}{judges}'
        f"{_calls(result.steps) if detailed else _call_facts(evaluation)}</div>"
    )


def _sample(run: SampleRun, detailed: bool = True) -> str:
    badges = "".join(_badge(e) for e in run.evaluations)
    first = next(
        (m.content for m in run.sample.user_input_messages or [] if isinstance(m, HumanMessage)),
        run.sample.user_input or "",
    )
    preview = f'<span class="muted">{_e(fmt.short(first, 90))}</span>' if first else ""
    evaluations = "".join(_evaluation(e, detailed) for e in run.evaluations)
    return (
        f'<details class="sample" id="{_anchor(run.sample_id)}">'
        f'<summary><span class="sid">{_e(run.sample_id)}</span>{badges} {preview}</summary>'
        f'<div class="sample-body"><div class="cols">'
        f"<div><h4>Conversation</h4>{_conversation(run.sample)}</div>"
        f"<div>{_expected(run.sample)}</div></div>{evaluations}</div></details>"
    )


def _detailed(run: RunResult, limit: int) -> set[int]:
    """Indexes of the samples whose prompts and raw answers a spooled run's report shows."""
    first = set(range(min(limit, len(run.samples))))
    # Not passing: failed, undefined, under budget, or scored under the threshold.
    missed = (
        index
        for index, sample in enumerate(run.samples)
        if any(e.status != "scored" or e.passed is False for e in sample.evaluations)
    )
    # Stops at the limit: the samples after it are not read back from the spool.
    return first | set(itertools.islice(missed, limit))


def _samples_section(run: RunResult, limit: int) -> Iterator[str]:
    """The samples section in pieces: its heading, then one piece per sample, then its end."""
    note = ""
    detailed: set[int] = set()
    if run.spooled:
        detailed = _detailed(run, limit)
        note = (
            f'<p class="muted">A large run ({len(run.samples)} samples, more than '
            "<code>spring.ai.ragas.run.spool-after</code>): the judges' prompts and raw "
            f"answers are shown for {len(detailed)} samples, the first {limit} and the first "
            f"{limit} with an evaluation that did not pass; the other samples show their "
            "verdicts, reasons and the count of judge calls. The JSON report has every prompt "
            "and raw answer.</p>"
        )
    yield f'<section id="samples"><h2>Samples ({len(run.samples)})</h2>{note}'
    for index, sample in enumerate(run.samples):
        if not run.spooled:
            yield _sample(sample)
        elif index in detailed:  # read back one at a time: never all in memory
            yield _sample(run.full_sample(index), True)
        else:
            yield _sample(sample, False)
    yield "</section>"


def _calibration_section(report: CalibrationReport) -> str:
    from ragas_boot.reporting.calibration import calibration_html_body

    return (
        '<section class="card" id="calibration"><h2>Judges against people\'s labels</h2>'
        + calibration_html_body(report)
        + "</section>"
    )


def html_chunks(
    run: RunResult,
    *,
    title: str | None = None,
    baseline: RunDiff | None = None,
    calibration: CalibrationReport | None = None,
    detailed_samples: int = SPOOLED_DETAILED_SAMPLES,
) -> Iterator[str]:
    """The HTML report of :func:`render_html`, the same text, in pieces: the summary sections,
    then one piece per sample, then the end; writing a large run's report never holds its
    text whole. Each piece is whole elements and escaped texts (a secret never straddles two
    pieces), so pieces can be redacted one by one."""
    heading = title or f"ragas-boot report: {run.dataset.name or run.dataset.path or 'samples'}"
    yield (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{_e(heading)}</title>{style_tag()}</head><body>"
        + _header(run, heading)
        + "<main>"
        + (html_diff_section(baseline) if baseline is not None else "")
        + _metrics_section(run)
        + _judges_section(run)
        + _agreement_section(run)
        + (_calibration_section(calibration) if calibration is not None else "")
        + _repeats_section(run)
        + simulation_html(run)
        + _failures_section(run)
        + (analysis_html(run, found) if (found := failure_analysis(run)) is not None else "")
    )
    yield from _samples_section(run, detailed_samples)
    yield (
        "</main><footer>Generated by ragas-boot. Click a sample to see its conversation, "
        "each judge's verdict and reason, and the prompts and raw answers.</footer>"
        "</body></html>\n"
    )


def render_html(
    run: RunResult,
    *,
    title: str | None = None,
    baseline: RunDiff | None = None,
    calibration: CalibrationReport | None = None,
    detailed_samples: int = SPOOLED_DETAILED_SAMPLES,
) -> str:
    """The report as one HTML document (no script, no external resource); with ``baseline``
    (``evaluate --baseline``), the diff against that run comes first; with ``calibration``
    (``compare`` on a labelled dataset), the judges and panels against people follow the
    agreement section. A spooled run shows the prompts and raw answers of ``detailed_samples``
    samples and as many that did not pass; :func:`html_chunks` gives the text in pieces."""
    return "".join(
        html_chunks(
            run,
            title=title,
            baseline=baseline,
            calibration=calibration,
            detailed_samples=detailed_samples,
        )
    )
