"""Console report: rich tables of a run (results, metrics, judges, agreement, failures).

:func:`console_renderables` gives the tables for a rich console (the CLI prints them with
colour); :func:`render_console` renders them to plain text.
"""

from __future__ import annotations

import io
from typing import Literal

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting.analysis import analysis_renderables
from ragas_boot.reporting.simulation import simulation_renderables
from ragas_boot.runs.analysis import failure_analysis
from ragas_boot.runs.records import Evaluation, SampleRun
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.simulation.summary import simulation_summary

__all__ = ["ConsoleView", "console_renderables", "render_console"]

#: ``evaluate``: a row per sample; ``compare``: a row per judge × metric, and agreement.
ConsoleView = Literal["evaluate", "compare"]

_MAX_FAILURE_ROWS = 20


def _cell(evaluation: Evaluation) -> Text:
    style = {"failed": "bold red", "undefined": "yellow", "budget": "magenta"}.get(
        evaluation.status
    )
    if style is None:
        style = "green" if evaluation.passed else "red"
    return fmt.plain(fmt.evaluation_label(evaluation), style=style)


def results_table(run: RunResult) -> Table:
    """One row per sample, one column per metric; for cases (samples with expectations or
    an agent run: a suite's), also the verdict, the latency and the calls against the budget."""
    cases = any(s.sample.expectations or s.sample.agent_run for s in run.samples)
    table = Table(title=fmt.plain(f"Results ({_dataset_label(run)})"), title_justify="left")
    if cases:
        table.add_column("Result", no_wrap=True)
    table.add_column("Sample", no_wrap=True)
    for metric in run.metrics:
        table.add_column(metric.name, no_wrap=True)
    if cases:
        table.add_column("Latency", justify="right", no_wrap=True)
        table.add_column("Calls", justify="right", no_wrap=True)
    for sample in run.samples:
        cells: list[str | Text] = [
            fmt.plain(sample.sample_id),
            *(_cell(e) for e in sample.evaluations),
        ]
        if cases:
            cells = [_verdict(sample), *cells, *_case_facts(sample)]
        table.add_row(*cells)
    return table


def _verdict(sample: SampleRun) -> Text:
    if not sample.counted:  # the simulator failed: not the agent's, not counted
        return Text("SIM", style="magenta")
    return Text("PASS", style="green") if sample.passed else Text("FAIL", style="bold red")


def _case_facts(sample: SampleRun) -> tuple[str, str]:
    """The latency and ``calls/budget`` of a case."""
    run, expectations = sample.sample.agent_run, sample.sample.expectations
    latency = fmt.milliseconds(run.latency_ms if run is not None else None)
    budget = expectations.max_tool_calls if expectations is not None else None
    calls = str(len(sample.sample.actual_tool_calls()))
    return latency, calls if budget is None else f"{calls}/{budget}"


def metrics_table(run: RunResult) -> Table:
    """One row per metric: mean, spread, pass rate and counts."""
    table = Table(title="Metrics", title_justify="left")
    for name in ("Metric", "Mean", "Min", "Max", "Pass rate", "Threshold"):
        table.add_column(name, justify="left" if name == "Metric" else "right", no_wrap=True)
    for name in ("Scored", "Undefined", "Failed"):
        table.add_column(name, justify="right")
    budget = run.totals.budget > 0
    if budget:
        table.add_column("Budget", justify="right")
    priced = run.totals.cost is not None
    if priced:
        table.add_column("Cost", justify="right", no_wrap=True)
    for summary in run.metric_summaries:
        extra: list[str | Text] = []
        if budget:
            extra.append(Text(str(summary.budget), style="magenta" if summary.budget else ""))
        if priced:
            extra.append(fmt.cost(summary.cost))
        table.add_row(
            fmt.plain(summary.metric),
            fmt.score(summary.mean),
            fmt.score(summary.minimum),
            fmt.score(summary.maximum),
            fmt.percent(summary.pass_rate),
            f"{'≤ ' if summary.lower_is_better else ''}{summary.threshold:.2f}",
            str(summary.scored),
            str(summary.undefined),
            Text(str(summary.failed), style="bold red" if summary.failed else ""),
            *extra,
        )
    return table


def judges_table(run: RunResult) -> Table:
    """One row per judge × metric: the judge's own scores, latency, tokens (answered and
    billed), cost and failures."""
    table = Table(title="Judges", title_justify="left")
    table.add_column("Judge", no_wrap=True)
    table.add_column("Metric", no_wrap=True)
    priced = run.totals.cost is not None
    columns = ["Mean", "Pass rate", "p50", "p95", "Answered", "Billed"]
    columns += ["Cost"] if priced else []
    for name in (*columns, "Failed calls", "Excluded"):
        table.add_column(name, justify="right", no_wrap=True)
    per_metric = [summary for summary in run.judge_summaries if summary.metric is not None]
    for index, summary in enumerate(per_metric):
        first = index == 0 or per_metric[index - 1].judge_id != summary.judge_id
        last = index == len(per_metric) - 1 or per_metric[index + 1].judge_id != summary.judge_id
        table.add_row(
            fmt.plain(f"{summary.judge_id} ({summary.provider})" if first else ""),
            fmt.plain(summary.metric),
            fmt.score(summary.mean),
            fmt.percent(summary.pass_rate),
            fmt.seconds(summary.latency_p50_s),
            fmt.seconds(summary.latency_p95_s),
            fmt.tokens(summary.usage.total_tokens),
            fmt.tokens(summary.billed_usage.total_tokens),
            *([fmt.cost(summary.cost)] if priced else []),
            Text(
                f"{summary.failed_calls}/{summary.calls}",
                style="bold red" if summary.failed_calls else "",
            ),
            Text(str(summary.excluded), style="bold red" if summary.excluded else ""),
            end_section=last,
        )
    return table


def agreement_table(run: RunResult) -> Table:
    """Percent agreement and Cohen's kappa per pair of judges, per metric."""
    table = Table(title="Judge agreement (verdict = score >= 0.5)", title_justify="left")
    table.add_column("Metric", no_wrap=True)
    table.add_column("Judges", no_wrap=True)
    for name in ("Items", "Agreement", "Cohen κ"):
        table.add_column(name, justify="right", no_wrap=True)
    for summary in run.agreement:
        label = summary.metric or "all metrics"
        for index, pair in enumerate(summary.pairs):
            table.add_row(
                fmt.plain(label if index == 0 else ""),
                fmt.plain(f"{pair.judge_a} · {pair.judge_b}"),
                str(pair.items),
                fmt.percent(pair.percent_agreement),
                fmt.kappa(pair.cohen_kappa),
            )
        table.add_row(
            "",
            Text("Fleiss κ, all judges", style="bold"),
            str(summary.fleiss_items),
            "",
            Text(fmt.kappa(summary.fleiss_kappa), style="bold"),
            end_section=True,
        )
    return table


def _evaluations_table(title: str, last: str, rows: list[tuple[str, str, Text]]) -> Table | None:
    """Sample, metric and ``last`` column for the first few rows; None when there are none."""
    if not rows:
        return None
    table = Table(title=f"{title} ({len(rows)})", title_justify="left")
    table.add_column("Sample", no_wrap=True)
    table.add_column("Metric", no_wrap=True)
    table.add_column(last)
    for sample_id, metric, message in rows[:_MAX_FAILURE_ROWS]:
        table.add_row(fmt.plain(sample_id), fmt.plain(metric), message)
    if len(rows) > _MAX_FAILURE_ROWS:
        table.caption = f"… and {len(rows) - _MAX_FAILURE_ROWS} more (see the JSON or HTML)"
    return table


def failures_table(run: RunResult) -> Table | None:
    """The failed evaluations (the first few), or None when there are none."""
    rows = []
    for sample_id, evaluation in run.failures():
        error = evaluation.error
        message = f"{error.kind}: {fmt.short(error.message, 160)}" if error else "failed"
        rows.append((sample_id, evaluation.metric, fmt.plain(message, style="red")))
    return _evaluations_table("Failed evaluations", "Error", rows)


def undefined_table(run: RunResult) -> Table | None:
    """Why each undefined evaluation has no score (a missed quorum among them), or None."""
    rows = []
    for sample in run.samples:
        for evaluation in sample.evaluations:
            if evaluation.status != "undefined":
                continue
            reason = evaluation.result.undefined_reason if evaluation.result else None
            style = "bold red" if evaluation.no_quorum else "yellow"
            message = fmt.plain(fmt.short(reason or "no score", 160), style=style)
            rows.append((sample.sample_id, evaluation.metric, message))
    return _evaluations_table("Undefined evaluations", "Reason", rows)


def repeats_table(run: RunResult) -> Table | None:
    """Per sample × metric scored more than once: pass rate, Wilson interval, stability."""
    rows = [
        (sample.sample_id, evaluation, evaluation.result.repeats)
        for sample in run.samples
        for evaluation in sample.evaluations
        if evaluation.result is not None and evaluation.result.repeats is not None
    ]
    if not rows:
        return None
    table = Table(title="Repeats (pass rate, 95% Wilson interval)", title_justify="left")
    table.add_column("Sample", no_wrap=True)
    table.add_column("Metric", no_wrap=True)
    for name in ("Runs", "Passed", "Pass rate", "95% CI", "Scores"):
        table.add_column(name, justify="right", no_wrap=True)
    table.add_column("Stability", no_wrap=True)
    for sample_id, evaluation, repeats in rows:
        table.add_row(
            fmt.plain(sample_id),
            fmt.plain(evaluation.metric),
            str(repeats.runs),
            f"{repeats.passed}/{repeats.scored}",
            fmt.percent(repeats.pass_rate),
            fmt.interval(repeats.ci_low, repeats.ci_high),
            " ".join(fmt.score(value) for value in repeats.scores),
            Text("unstable", style="bold yellow") if repeats.unstable else Text("stable"),
        )
    return table


def _dataset_label(run: RunResult) -> str:
    name = run.dataset.name or run.dataset.path or "samples"
    return f"{name}: {run.dataset.size} samples × {len(run.metrics)} metrics"


def run_line(run: RunResult) -> Text:
    """One line: counts, judge calls, tokens, cost and time of the run."""
    totals = run.totals
    budget = f", {totals.budget} budget" if totals.budget else ""
    cache = fmt.cache(
        totals.cache_hits,
        totals.cache_misses,
        totals.saved_usage.total_tokens,
        totals.saved_cost,
    )
    spend = fmt.spend(
        totals.billed_usage.total_tokens,
        totals.usage.total_tokens,
        totals.cost,
        totals.unpriced_tokens,
        cap=run.max_cost,
    )
    line = fmt.plain(
        f"{run.dataset.size} samples × {len(run.metrics)} metrics: "
        f"{totals.scored} scored, {totals.undefined} undefined, {totals.failed} failed{budget} · "
        f"{totals.judge_calls} judge calls ({totals.failed_judge_calls} failed) · "
        f"{spend} · "
        + (f"{cache} · " if cache else "")
        + f"{run.duration_s:.1f} s (concurrency {run.concurrency})"
    )
    if run.stopped == "budget":
        line.append(
            f"\nspend cap {fmt.cost(run.max_cost)} reached: {totals.budget} evaluations cut "
            "short (status budget); no judge call was sent after it",
            style="magenta",
        )
    return line


def console_renderables(run: RunResult, view: ConsoleView = "evaluate") -> list[RenderableType]:
    """The tables of ``view``, in print order."""
    parts: list[RenderableType] = []
    if view == "evaluate":
        parts.append(results_table(run))
    parts.append(metrics_table(run))
    if view == "compare" and run.judges:
        parts.append(judges_table(run))
        if run.agreement:
            parts.append(agreement_table(run))
    for table in (repeats_table(run), undefined_table(run), failures_table(run)):
        if table is not None:
            parts.append(table)
    simulated = simulation_summary(run)
    if simulated is not None:
        parts += simulation_renderables(simulated)
    analysis = failure_analysis(run)
    if analysis is not None:
        parts += analysis_renderables(run, analysis)
    if view == "evaluate" and run.judges:
        parts.append(judge_spend_line(run))
    price_line = fmt.prices(run.judges)
    if price_line is not None:
        parts.append(fmt.plain(price_line))
    parts.append(run_line(run))
    return parts


def judge_spend_line(run: RunResult) -> Text:
    """One line: each judge's billed tokens and cost over the run (the evaluate view; the
    compare view has them in the judges table)."""
    parts = []
    for summary in run.judge_summaries:
        if summary.metric is not None:
            continue
        text = f"{summary.judge_id} {fmt.tokens(summary.billed_usage.total_tokens)} billed"
        if summary.cost is not None:
            text += f" {fmt.cost(summary.cost)}"
        parts.append(text)
    return fmt.plain("Judge spend: " + " · ".join(parts))


def render_console(run: RunResult, view: ConsoleView = "evaluate", *, width: int = 120) -> str:
    """The console report as plain text (no colour)."""
    buffer = io.StringIO()
    console = Console(
        file=buffer, width=width, color_system=None, highlight=False, emoji=False, markup=False
    )
    for part in console_renderables(run, view):
        console.print(part)
    return buffer.getvalue()
