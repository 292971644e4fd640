"""Writing a dataset run's ``--out`` reports: JSON, HTML, CSV, Parquet, JUnit XML, Markdown.

Each report is written atomically (a temporary file renamed into place) and masked with the
session's secrets: text reports a piece at a time, Parquet cell by cell. One report failing
does not cost the others; once all are written, the Markdown summary is also appended to
``$GITHUB_STEP_SUMMARY`` (a regular file only: a FIFO there is refused, never waited on).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragas_boot.cli._console import message, redact
from ragas_boot.cli._reports import write_atomically, write_file_atomically

if TYPE_CHECKING:
    from ragas_boot.cli._options import RunOptions
    from ragas_boot.runs import RunResult
    from ragas_boot.runs.regressions import RunDiff

__all__ = ["write_reports"]


def write_reports(
    reports: list[tuple[Path, str]],
    run: RunResult,
    *,
    options: RunOptions,
    title: str,
    diff: RunDiff | None,
    calibration: Any,
) -> int:
    """Write every ``(path, kind)`` report, then append the Markdown one to
    ``$GITHUB_STEP_SUMMARY``; return how many could not be written."""
    unwritten = 0
    summary: Path | None = None
    for path, kind in reports:  # one report failing must not cost the others
        try:
            if kind == "parquet":
                write_file_atomically(path, lambda temporary: _write_parquet(run, temporary))
            else:
                write_atomically(
                    path,
                    _report_pieces(
                        run,
                        kind,
                        options=options,
                        title=title,
                        diff=diff,
                        calibration=calibration,
                    ),
                )
        except OSError as error:
            unwritten += 1
            message(f"ragas-boot: error: cannot write {path}: {error}", "bold red")
            continue
        message(f"Report written: {path}")
        if kind == "markdown":
            summary = path
    if summary is not None:  # last: whatever the variable names, no report waits for it
        unwritten += _append_step_summary(summary)
    return unwritten


def _report_pieces(
    run: RunResult,
    kind: str,
    *,
    options: RunOptions,
    title: str,
    diff: RunDiff | None,
    calibration: Any,
) -> Iterator[str]:
    """One report's text, masked, a piece at a time: a large run's report is never one
    string, and each piece is whole values or elements, so no secret straddles two pieces."""
    from ragas_boot.reporting.html_report import html_chunks
    from ragas_boot.reporting.json_report import json_chunks

    if options.view == "calibrate" and calibration is not None:
        from ragas_boot.reporting.calibration import (
            render_calibration_html,
            render_calibration_json,
        )

        render = render_calibration_html if kind == "html" else render_calibration_json
        yield redact(render(calibration))
        return
    if kind in ("csv", "junit", "markdown"):
        yield redact(_render_text(run, kind, options))
        return
    if kind == "html":  # compare on labels: the people's section too
        heading = {
            "compare": f"ragas-boot judge comparison: {title}",
            "suite": f"ragas-boot tool suite: {title}",
        }.get(options.view)
        pieces = html_chunks(run, title=heading, baseline=diff, calibration=calibration)
    else:
        pieces = json_chunks(run, calibration=calibration)
    for piece in pieces:
        yield redact(piece)


def _render_text(run: RunResult, kind: str, options: RunOptions) -> str:
    """A CSV table, JUnit XML or the Markdown summary (whose verdict is this run's gate)."""
    if kind == "csv":
        from ragas_boot.reporting.tables import render_csv

        return render_csv(run)
    if kind == "junit":
        from ragas_boot.reporting.junit import render_junit

        return render_junit(run)
    from ragas_boot.reporting.markdown import render_markdown

    gate = options.gate(run)
    return render_markdown(run, gate=gate)


def _write_parquet(run: RunResult, path: Path) -> None:
    """The run as Parquet (the columns of ``run.to_pandas()``), every text cell masked as
    the text reports are: reasons quote judges' answers and errors."""
    from ragas_boot._extras import import_extra
    from ragas_boot.runs.rows import long_columns, long_rows

    pa = import_extra("pyarrow", feature="writing Parquet", extra="tables", package="pyarrow")
    parquet = import_extra(
        "pyarrow.parquet", feature="writing Parquet", extra="tables", package="pyarrow"
    )
    columns, rows = long_columns(run), list(long_rows(run))
    table = pa.table(
        {
            column: [
                redact(value) if isinstance(value, str) else value
                for value in (row.get(column) for row in rows)
            ]
            for column in columns
        }
    )
    parquet.write_table(table, str(path))


def _append_step_summary(path: Path) -> int:
    """Append the Markdown summary just written to ``$GITHUB_STEP_SUMMARY`` when it is set
    (GitHub Actions shows it on the run's page); 1 when that failed, else 0.

    A variable naming something other than a regular file (a FIFO, which would block with no
    reader; a device; a directory) is refused with a warning: the summary is a copy of a
    report that was written, and such a target was never GitHub's."""
    from ragas_boot.reporting.markdown import (
        STEP_SUMMARY_VARIABLE,
        append_step_summary,
        not_a_regular_file,
    )

    variable = f"${STEP_SUMMARY_VARIABLE}"
    named = os.environ.get(STEP_SUMMARY_VARIABLE)
    kind = not_a_regular_file(Path(named)) if named else None
    if kind is not None:
        message(
            f"warning: {variable} ({named}) is {kind}, not a regular file: the summary is not "
            "appended",
            "yellow",
        )
        return 0
    try:
        target = append_step_summary(path.read_text(encoding="utf-8"))
    except OSError as error:
        message(f"ragas-boot: error: cannot append the summary to {variable}: {error}", "bold red")
        return 1
    if target is not None:
        message(f"Summary appended to {variable} ({target})")
    return 0
