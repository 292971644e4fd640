"""What the plugin prints: the report header lines and the end-of-session score table."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from ragas_boot._pytest.report import ScoreRow
from ragas_boot._pytest.state import RagasPluginState

__all__ = ["header_lines", "report_line", "summary_lines"]


def _display_path(path: str, root: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(root.resolve()))
    except ValueError:
        return path


def header_lines(state: RagasPluginState) -> list[str]:
    """Config file, active profiles and judges in effect; nothing unless configured.

    Loads the settings (once; the fixtures reuse them) but builds no judge, so no HTTP
    client is made and langchain is not imported.
    """
    options = state.options
    if not options.configured:
        return []
    try:
        from ragas_boot.chat.factory import judge_specs

        settings = state.settings()
        specs = judge_specs(settings)
    except Exception as error:
        where = options.config_path or "the default application.yaml"
        return [f"ragas-boot: cannot load {where}: {error}"]
    root = state.config.rootpath
    files = ", ".join(_display_path(path, root) for path in settings.source.files)
    profiles = ", ".join(settings.source.active_profiles) or "none"
    lines = [f"ragas-boot: config {files} (profiles: {profiles})"]
    if not specs:
        lines.append("ragas-boot: no judges configured (only computed metrics can run)")
        return lines
    by_provider: dict[str, list[str]] = {}
    for spec in specs:
        by_provider.setdefault(spec.provider, []).append(spec.id)
    described = "; ".join(f"{name}: {', '.join(ids)}" for name, ids in by_provider.items())
    lines.append(f"ragas-boot: {len(specs)} judge(s) - {described}")
    return lines


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
        text = f"{score:.3f}"
        return text if len(row.evaluations) == 1 else f"{text} (x{len(row.evaluations)})"
    return "error" if row.errors else "n/a"


def summary_lines(rows: Sequence[ScoreRow]) -> list[str]:
    """One table row per scored test x metric: score, check, and each judge's score.

    A judge column shows that judge's score, ``excl`` when it was excluded and ``-`` when
    the metric did not ask it (a computed metric asks no judge).
    """
    judges: list[str] = []
    for row in rows:
        for judge in [*row.model_scores, *row.excluded]:
            if judge not in judges:
                judges.append(judge)
    names = _short_names(judges)
    header = ["test", "metric", "score", "check", *(names[judge] for judge in judges)]
    table = [header]
    for row in rows:
        scores = row.model_scores
        excluded = set(row.excluded)
        cells = [
            row.test or "(outside a test)",
            row.metric.removesuffix("Metric"),
            _score_cell(row),
            _check_cell(row),
        ]
        for judge in judges:
            if judge in scores:
                cells.append(f"{scores[judge]:.2f}" + ("*" if judge in excluded else ""))
            else:
                cells.append("excl" if judge in excluded else "-")
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
    failed = sum(1 for row in rows if row.checks and not all(c.passed for c in row.checks))
    notes.append(
        f"{len(rows)} scored test x metric row(s), "
        f"{sum(len(row.evaluations) for row in rows)} evaluation(s), {failed} failed check(s)"
    )
    return [*lines, *notes]


def report_line(path: Path) -> str:
    """The line telling where the JSON report went."""
    return f"ragas-boot report: {os.fspath(path)}"
