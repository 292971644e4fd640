"""The pytest plugin's end-of-session table: one row per scored test x metric (x criterion).

The plugin groups its records into rows (``ragas_boot._pytest.report.ScoreRow``); this module
only renders rows of that shape (:class:`ScoreRowView`), so it needs nothing of pytest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from ragas_boot.execution.aggregation import wilson_interval
from ragas_boot.execution.results import CallSpend, JudgeCall
from ragas_boot.reporting import _format as fmt

__all__ = [
    "QuorumView",
    "RepeatsView",
    "ScoreCheckView",
    "ScoreRowView",
    "criterion_label",
    "spend_lines",
    "summary_lines",
]


#: Characters of an inline criterion shown in a row's or an Allure page's name.
_CRITERION_WIDTH = 48


def criterion_label(metric: str, definition: object) -> str:
    """A metric's name with the criterion it checked, so each criterion gets its own row.

    A named criterion's bean is already ``AspectCriticMetric:no-profanity``; a criterion
    passed inline (``AspectCriticConfig(definition=...)``, as Java tests do) adds its
    definition, cut to a readable width: ``AspectCriticMetric:AI Response содержит…``.
    """
    if ":" in metric or not isinstance(definition, str) or not definition.strip():
        return metric
    text = " ".join(definition.split())
    if len(text) > _CRITERION_WIDTH:
        text = text[: _CRITERION_WIDTH - 1].rstrip() + "…"
    return f"{metric}:{text}"


def _short_metric(label: str) -> str:
    """``AspectCritic:no-profanity`` for ``AspectCriticMetric:no-profanity``."""
    name, colon, criterion = label.partition(":")
    return name.removesuffix("Metric") + colon + criterion


class ScoreCheckView(Protocol):
    """A threshold checked on a row's evaluation."""

    @property
    def passed(self) -> bool:
        """Whether the score met the threshold."""
        ...

    def label(self) -> str:
        """``>= 0.8``, ``<= 0.6`` or ``0.2..0.8``."""
        ...


class RepeatsView(Protocol):
    """How one evaluation's repeats (``repeat: N``) came out."""

    @property
    def scored(self) -> int:
        """Repeats with a score."""
        ...

    @property
    def passed(self) -> int:
        """Repeats whose score met the metric's threshold."""
        ...

    @property
    def unstable(self) -> bool:
        """Whether the repeats fell on both sides of the threshold."""
        ...


class QuorumView(Protocol):
    """One evaluation's quorum check (``min-judges``)."""

    @property
    def required(self) -> int:
        """min-judges."""
        ...

    @property
    def answered(self) -> int:
        """Judges that answered."""
        ...

    @property
    def asked(self) -> int:
        """Judges asked."""
        ...

    @property
    def met(self) -> bool:
        """answered >= required."""
        ...


class ScoreRowView(Protocol):
    """One test x metric as the table reads it."""

    @property
    def test(self) -> str | None:
        """The test's node id (None outside a test)."""
        ...

    @property
    def metric(self) -> str:
        """The metric's class name."""
        ...

    @property
    def evaluations(self) -> Sequence[object]:
        """The row's evaluations (the table shows how many)."""
        ...

    @property
    def score(self) -> float | None:
        """The row's score, None when no evaluation has one."""
        ...

    @property
    def model_scores(self) -> dict[str, float]:
        """Judge id → its score."""
        ...

    @property
    def excluded(self) -> list[str]:
        """Judges excluded from any evaluation of the row."""
        ...

    @property
    def checks(self) -> Sequence[ScoreCheckView]:
        """Thresholds checked on the row."""
        ...

    @property
    def errors(self) -> list[str]:
        """Why evaluations of the row failed."""
        ...

    @property
    def calls(self) -> Sequence[JudgeCall]:
        """Every judge call of the row (tokens answered and billed, cost)."""
        ...

    @property
    def repeats(self) -> Sequence[RepeatsView]:
        """The repeats of the row's evaluations that ran ``repeat: N``."""
        ...

    @property
    def quorums(self) -> Sequence[QuorumView]:
        """The quorum checks of the row's evaluations (``min-judges`` set)."""
        ...


def _short_names(judges: Sequence[str]) -> dict[str, str]:
    """Judge id → column header: the part after the last '/', unless that is ambiguous."""
    tails = [judge.rsplit("/", 1)[-1] for judge in judges]
    if len(set(tails)) == len(tails):
        return dict(zip(judges, tails, strict=True))
    return {judge: judge for judge in judges}


def _check_cell(row: ScoreRowView) -> str:
    checks = row.checks
    if not checks:
        return ""
    verdict = "ok" if all(check.passed for check in checks) else "FAIL"
    labels = ", ".join(dict.fromkeys(check.label() for check in checks))
    return f"{verdict} {labels}"


def _score_cell(row: ScoreRowView) -> str:
    score = row.score
    if score is not None:
        text = fmt.score(score)
        return text if len(row.evaluations) == 1 else f"{text} (x{len(row.evaluations)})"
    return "error" if row.errors else fmt.MISSING


def _repeats_cell(row: ScoreRowView) -> str:
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


def _quorum_cell(row: ScoreRowView) -> str:
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


def spend_lines(rows: Sequence[ScoreRowView]) -> list[str]:
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
    by_metric: dict[str, list[JudgeCall]] = {}
    for row in rows:
        by_metric.setdefault(_short_metric(row.metric), []).extend(row.calls)
    by_judge: dict[str, list[JudgeCall]] = {}
    for call in calls:
        by_judge.setdefault(call.judge_id, []).append(call)
    for label, groups in (("by metric", by_metric), ("by judge", by_judge)):
        parts = [
            f"{name} {_spend_text(CallSpend.of(group))}" for name, group in groups.items() if group
        ]
        lines.append(f"  {label}: " + "; ".join(parts))
    return lines


def summary_lines(rows: Sequence[ScoreRowView]) -> list[str]:
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
