"""The pytest plugin's end-of-session table and its ``--ragas-report`` JSON.

Both render a :class:`~ragas_boot.runs.pytest_session.PytestReport`: its rows (one per
scored test x metric x criterion) as table lines, and the whole report as JSON, whose
evaluations are the same :class:`~ragas_boot.runs.records.Evaluation` JSON as a dataset
run's report (``docs/report-json.md``). Nothing here needs pytest.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from ragas_boot.execution.aggregation import wilson_interval
from ragas_boot.execution.results import CallSpend, JudgeCall
from ragas_boot.reporting import _format as fmt
from ragas_boot.runs.pytest_session import PytestReport, ScoreRow
from ragas_boot.runs.records import CallFacts

__all__ = ["render_pytest_report", "spend_lines", "summary_lines"]


def _short_metric(label: str) -> str:
    """``AspectCritic:no-profanity`` for ``AspectCriticMetric:no-profanity``."""
    name, colon, criterion = label.partition(":")
    return name.removesuffix("Metric") + colon + criterion


def _short_names(judges: Sequence[str]) -> dict[str, str]:
    """Judge id → column header: the part after the last '/', unless that is ambiguous."""
    tails = [judge.rsplit("/", 1)[-1] for judge in judges]
    if len(set(tails)) == len(tails):
        return dict(zip(judges, tails, strict=True))
    return {judge: judge for judge in judges}


def _check_cell(row: ScoreRow) -> str:
    checks = row.checks
    if not checks:
        return ""
    verdict = "ok" if all(check.passed for check in checks) else "FAIL"
    labels = ", ".join(dict.fromkeys(check.label() for check in checks))
    return f"{verdict} {labels}"


def _score_cell(row: ScoreRow) -> str:
    score = row.score
    if score is not None:
        text = fmt.score(score)
        return text if len(row.evaluations) == 1 else f"{text} (x{len(row.evaluations)})"
    return "error" if row.errors else fmt.MISSING


def _repeats_cell(row: ScoreRow) -> str:
    """``2/3 66.7% [20.8%, 93.9%] unstable``: repeats passed of those scored, the pass rate
    and its 95% Wilson interval; over several evaluations, their repeats pooled."""
    repeats = row.repeats
    if not repeats:
        return fmt.MISSING
    # One evaluation's figures are its own (pass rate passed / scored, the same interval).
    passed = sum(item.passed for item in repeats)
    scored = sum(item.scored for item in repeats)
    rate = passed / scored if scored else None
    low, high = wilson_interval(passed, scored) if scored else (None, None)
    text = f"{passed}/{scored} {fmt.percent(rate)} {fmt.interval(low, high)}"
    unstable = sum(item.unstable for item in repeats)
    if unstable:
        text += " unstable" if len(repeats) == 1 else f" {unstable} unstable"
    return text


def _quorum_cell(row: ScoreRow) -> str:
    """``3/4 ok (min 3)``, ``2/4 MISSED (min 3)``; over several evaluations ``ok x2 (min 3)``
    or ``MISSED 1 of 2 (min 3)``."""
    quorums = row.quorums
    if not quorums:
        return fmt.MISSING
    required = ", ".join(dict.fromkeys(str(item.required) for item in quorums))
    if len(quorums) == 1:
        only = quorums[0]
        verdict = "ok" if only.met else "MISSED"
        return f"{only.answered}/{only.asked} {verdict} (min {required})"
    missed = sum(not item.met for item in quorums)
    if missed:
        return f"MISSED {missed} of {len(quorums)} (min {required})"
    return f"ok x{len(quorums)} (min {required})"


def _spend_text(spend: CallSpend) -> str:
    text = f"{fmt.tokens(spend.billed_usage.total_tokens)} billed"
    if spend.cost is not None:
        text += f" {fmt.cost(spend.cost)}"
    return text


def spend_lines(rows: Sequence[ScoreRow]) -> list[str]:
    """What the judges' calls cost: the session, then per metric and per judge (none without
    judge calls)."""
    calls = [call for row in rows for call in row.calls]
    if not calls:
        return []
    total = CallSpend.of(calls)
    lines = [
        "judge spend: "
        + fmt.spend(
            total.billed_usage.total_tokens,
            total.usage.total_tokens,
            total.cost,
            total.unpriced_tokens,
        )
    ]
    by_metric: dict[str, list[JudgeCall | CallFacts]] = {}
    for row in rows:
        by_metric.setdefault(_short_metric(row.metric), []).extend(row.calls)
    by_judge: dict[str, list[JudgeCall | CallFacts]] = {}
    for call in calls:
        by_judge.setdefault(call.judge_id, []).append(call)
    for label, groups in (("by metric", by_metric), ("by judge", by_judge)):
        parts = [
            f"{name} {_spend_text(CallSpend.of(group))}" for name, group in groups.items() if group
        ]
        lines.append(f"  {label}: " + "; ".join(parts))
    return lines


def summary_lines(rows: Sequence[ScoreRow]) -> list[str]:
    """One table row per scored test x metric: score, check, and each judge's score.

    A judge column shows that judge's score, ``excl`` when it was excluded and the missing
    mark ``—`` when the metric did not ask it (a computed metric asks no judge); the score
    column shows ``error`` when the row's evaluations failed and ``—`` when none has a score.
    A ``repeats`` column (pass rate of the repeats, its 95% Wilson interval, ``unstable``)
    appears when a metric ran ``repeat: N``, a ``quorum`` column when one had ``min-judges``.
    """
    judges: list[str] = []
    for row in rows:
        for judge in [*row.model_scores, *row.excluded]:
            if judge not in judges:
                judges.append(judge)
    names = _short_names(judges)
    with_repeats = any(row.repeats for row in rows)
    with_quorum = any(row.quorums for row in rows)
    header = [
        "test",
        "metric",
        "score",
        "check",
        *(["repeats"] if with_repeats else []),
        *(["quorum"] if with_quorum else []),
        *(names[judge] for judge in judges),
    ]
    table = [header]
    for row in rows:
        scores = row.model_scores
        excluded = set(row.excluded)
        cells = [
            row.test or "(outside a test)",
            _short_metric(row.metric),
            _score_cell(row),
            _check_cell(row),
            *([_repeats_cell(row)] if with_repeats else []),
            *([_quorum_cell(row)] if with_quorum else []),
        ]
        for judge in judges:
            if judge in scores:
                cells.append(f"{scores[judge]:.2f}" + ("*" if judge in excluded else ""))
            else:
                cells.append("excl" if judge in excluded else fmt.MISSING)
        table.append(cells)
    widths = [max(len(line[column]) for line in table) for column in range(len(header))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in table
    ]
    notes = []
    if any(names[judge] != judge for judge in judges):
        notes.append("judges: " + ", ".join(f"{names[j]} = {j}" for j in judges))
    if any(judge in row.excluded and judge in row.model_scores for row in rows for judge in judges):
        notes.append("*: excluded from some of the row's evaluations")
    if with_repeats:
        notes.append(
            "repeats: repeats passed/scored, pass rate, 95% Wilson interval; unstable: "
            "the repeats fell on both sides of the threshold"
        )
    if with_quorum:
        notes.append("quorum: judges answered/asked against min-judges; MISSED: no score")
    failed = sum(1 for row in rows if row.checks and not all(c.passed for c in row.checks))
    notes.append(
        f"{len(rows)} scored test x metric row(s), "
        f"{sum(len(row.evaluations) for row in rows)} evaluation(s), {failed} failed check(s)"
    )
    return [*lines, *notes, *spend_lines(rows)]


def render_pytest_report(report: PytestReport, *, indent: int | None = 2) -> str:
    """The ``--ragas-report`` document as JSON text (UTF-8, keys in model order)."""
    document = report.model_dump(mode="json")
    return json.dumps(document, indent=indent, ensure_ascii=False) + "\n"
