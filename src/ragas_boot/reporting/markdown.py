"""A run as a short Markdown summary for CI: GitHub's job summary (``$GITHUB_STEP_SUMMARY``),
a merge-request comment, a ``summary.md`` artifact.

The gate's verdict, a table per metric (mean, pass rate, counts), one per judge (calls,
failures, latency, tokens, cost) and the evaluations that did not pass, each with its judges'
scores (at most ``max_failures`` of them; the count of the rest is given). Text from the
dataset, the configuration or a judge is data: :func:`~ragas_boot._text.markdown_text` escapes
every link, image, HTML tag, emphasis and pipe in it, so GitHub renders it as written.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from ragas_boot._text import markdown_text, printable
from ragas_boot.reporting import _format as fmt
from ragas_boot.reporting.analysis import analysis_headline, finding_line
from ragas_boot.reporting.gates import run_gate_lines
from ragas_boot.reporting.simulation import simulation_markdown
from ragas_boot.runs.analysis import FailureAnalysis, failure_analysis
from ragas_boot.runs.gates import RunGate
from ragas_boot.runs.records import Evaluation
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.rows import evaluation_reason
from ragas_boot.runs.simulation.summary import simulation_summary

__all__ = [
    "STEP_SUMMARY_VARIABLE",
    "append_step_summary",
    "not_a_regular_file",
    "render_markdown",
]

#: The file GitHub Actions shows as the job's summary.
STEP_SUMMARY_VARIABLE = "GITHUB_STEP_SUMMARY"


def _cell(value: object) -> str:
    return markdown_text(fmt.short(printable(value), 200))


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def render_markdown(run: RunResult, *, gate: RunGate | None = None, max_failures: int = 20) -> str:
    """The summary (see the module docstring).

    Args:
        run: the run.
        gate: the CI gate's verdict to show (``run.gate(fail_under)``); default: ``run.gate()``.
        max_failures: evaluations that did not pass listed at most.
    """
    verdict = gate if gate is not None else run.gate()
    title = run.dataset.name or run.dataset.path or "dataset"
    mark = "✅" if verdict.passed else "❌"
    totals = run.totals
    lines = [
        f"## {mark} ragas-boot: {_cell(title)}",
        "",
        f"{run.dataset.size} samples × {len(run.metrics)} metrics: {totals.scored} scored, "
        f"{totals.undefined} undefined, {totals.failed} failed · "
        f"{totals.judge_calls} judge calls ({totals.failed_judge_calls} failed) · "
        f"{fmt.spend(totals.billed_usage.total_tokens, totals.usage.total_tokens, totals.cost)}"
        f" · {fmt.seconds(run.duration_s)}",
    ]
    if run.stopped is not None:
        lines += ["", f"**Stopped early: {run.stopped}.**"]
    gate_lines = run_gate_lines(verdict)
    if gate_lines:
        lines += ["", *(f"- {_cell(line)}" for line in gate_lines)]
    lines += ["", "### Metrics", ""]
    rows = [
        [
            _cell(summary.metric),
            fmt.score(summary.mean),
            fmt.percent(summary.pass_rate),
            f"{summary.threshold:g}" + (" (max)" if summary.lower_is_better else ""),
            str(summary.scored),
            str(summary.undefined),
            str(summary.failed),
        ]
        for summary in run.metric_summaries
    ]
    lines += _table(
        ["metric", "mean", "pass rate", "threshold", "scored", "undefined", "failed"], rows
    )
    judges = [summary for summary in run.judge_summaries if summary.metric is None]
    if judges:
        infos = {judge.id: judge for judge in run.judges}
        lines += ["", "### Judges", ""]
        lines += _table(
            ["judge", "calls", "failed", "p50", "p95", "tokens", "cost", "price from"],
            [
                [
                    _cell(summary.judge_id),
                    str(summary.calls),
                    str(summary.failed_calls),
                    fmt.seconds(summary.latency_p50_s),
                    fmt.seconds(summary.latency_p95_s),
                    fmt.tokens(summary.billed_usage.total_tokens),
                    fmt.cost(summary.cost),
                    _cell(infos[summary.judge_id].price_note())
                    if summary.judge_id in infos
                    else fmt.MISSING,
                ]
                for summary in judges
            ],
        )
    # Only the listed ones are kept: a spooled run's samples are read back one at a time.
    not_passing = 0
    listed: list[tuple[str, Evaluation]] = []
    for sample in run.samples:
        for evaluation in sample.evaluations:
            if evaluation.passed is not True:
                not_passing += 1
                if len(listed) < max_failures:
                    listed.append((sample.sample_id, evaluation))
    simulated = simulation_summary(run)
    if simulated is not None:
        lines += ["", *simulation_markdown(simulated, _cell)]
    analysis = failure_analysis(run)
    if analysis is not None:
        lines += ["", *_analysis(run, analysis, max_failures)]
    if not_passing:
        lines += ["", f"### Not passing ({not_passing})", ""]
        rows = []
        for sample_id, evaluation in listed:
            result = evaluation.result
            scores = (
                ", ".join(
                    f"{_cell(judge)} {fmt.score(value)}"
                    for judge, value in result.model_scores.items()
                )
                if result is not None
                else ""
            )
            reason = evaluation_reason(evaluation)
            rows.append(
                [
                    _cell(sample_id),
                    _cell(evaluation.metric),
                    _cell(fmt.evaluation_label(evaluation)),
                    scores or fmt.MISSING,
                    _cell(reason) if reason else "",
                ]
            )
        lines += _table(["sample", "metric", "result", "judges", "why"], rows)
        if not_passing > len(listed):
            lines += ["", f"… and {not_passing - len(listed)} more."]
    return "\n".join(lines) + "\n"


def _analysis(run: RunResult, analysis: FailureAnalysis, limit: int) -> list[str]:
    """The failure analysis: the groups, and the first ``limit`` findings."""
    lines = ["### Failure analysis", "", _cell(analysis_headline(run, analysis))]
    if not analysis.samples:
        return lines
    lines += [""]
    lines += _table(
        ["failure", "samples", "recommendation"],
        [
            [_cell(group.title), _cell(", ".join(group.sample_ids)), _cell(group.recommendation)]
            for group in analysis.groups
        ],
    )
    found = [(sample.sample_id, f) for sample in analysis.samples for f in sample.findings]
    lines += [""]
    lines += _table(
        ["sample", "finding"],
        [[_cell(sample_id), _cell(finding_line(f))] for sample_id, f in found[:limit]],
    )
    if len(found) > limit:
        lines += ["", f"… and {len(found) - limit} more findings."]
    return lines


def not_a_regular_file(path: Path) -> str | None:
    """What ``path`` is when it exists and is not a regular file (``a FIFO``, ``a directory``,
    ``a character device``, ...); None for a regular file (a link to one too) or no file.

    A summary is appended only to a regular file: opening a FIFO with no reader for writing
    would wait for ever, and a device or a directory is no summary.
    """
    try:
        mode = path.stat().st_mode
    except OSError:  # missing (it is created), or unreachable (appending will say why)
        return None
    return None if stat.S_ISREG(mode) else _kind(mode)


def _kind(mode: int) -> str:
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    )
    return next((name for test, name in kinds if test(mode)), "a special file")


def append_step_summary(text: str, environ: Mapping[str, str] | None = None) -> Path | None:
    """Append ``text`` to GitHub's job summary (``$GITHUB_STEP_SUMMARY``) when it is set.

    Only a regular file (or a new one) is appended to: a FIFO, a device or a directory is
    refused before it is opened, and the file is opened without blocking and checked again,
    so that a FIFO put in its place meanwhile is refused too, never waited on.

    Args:
        text: the Markdown (:func:`render_markdown`).
        environ: where to look the variable up; default ``os.environ``.

    Returns:
        The file appended to, or ``None`` when the variable is not set (not on GitHub).

    Raises:
        OSError: the file cannot be written, or is not a regular file (the message says what
            it is: ``... is a FIFO, not a regular file``).
    """
    target = (os.environ if environ is None else environ).get(STEP_SUMMARY_VARIABLE)
    if not target:
        return None
    path = Path(target)
    kind = not_a_regular_file(path)
    if kind is not None:
        raise OSError(f"{path} is {kind}, not a regular file")
    nonblocking = getattr(os, "O_NONBLOCK", 0)  # (POSIX; Windows has no FIFO files)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | nonblocking | getattr(os, "O_CLOEXEC", 0)
    handle = os.open(path, flags, 0o666)
    try:
        mode = os.fstat(handle).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"{path} is {_kind(mode)}, not a regular file")
        if nonblocking:
            os.set_blocking(handle, True)
        file = os.fdopen(handle, "a", encoding="utf-8")
    except BaseException:
        os.close(handle)
        raise
    with file:
        file.write(text if text.endswith("\n") else text + "\n")
    return path
