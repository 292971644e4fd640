"""The ``--ragas-report`` file: the session's evaluations as a report, rendered and written.

The report is a :class:`~ragas_boot.runs.pytest_session.PytestReport` (rows of
:class:`~ragas_boot.runs.pytest_session.PytestEvaluation`), rendered by
:func:`~ragas_boot.reporting.pytest_table.render_pytest_report`; any secret of the loaded
configuration is masked in the text before it is written (a provider's error message may
quote a key).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from ragas_boot.reporting.pytest_table import render_pytest_report
from ragas_boot.reporting.redaction import redact
from ragas_boot.runs.pytest_session import PytestEvaluation, PytestReport

__all__ = ["write_report"]


def write_report(
    path: Path,
    evaluations: Sequence[PytestEvaluation],
    *,
    config_files: Sequence[str] = (),
    profiles: Sequence[str] = (),
    secrets: Iterable[str] = (),
) -> None:
    """Write the session's report to ``path`` as JSON, creating parent folders."""
    report = PytestReport.of(evaluations, files=config_files, profiles=profiles)
    text = redact(render_pytest_report(report), secrets)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
