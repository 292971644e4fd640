"""The run history as the commands use it: record a run, note a missing extra, show a diff."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from ragas_boot.cli._console import message, stdout

if TYPE_CHECKING:
    from ragas_boot.config.settings import HistorySettings, RagasSettings
    from ragas_boot.runs.history import StoredRun
    from ragas_boot.runs.regressions import RunDiff

__all__ = ["load_baseline", "show_diff", "store"]

#: Marker file in the history's home: the note that runs are not recorded was shown there.
_HISTORY_NOTE_MARKER = "history-not-recorded-note"


def load_baseline(settings: RagasSettings, run_id: str) -> StoredRun:
    """The ``--baseline`` run, loaded before the new run is made (so 'latest' is the last
    one recorded before it)."""
    from ragas_boot.runs.history import open_history

    with open_history(settings) as history:
        return history.load(run_id)


def store(section: HistorySettings | None, snapshot: StoredRun, *, enabled: bool = True) -> bool:
    """Record ``snapshot`` unless ``enabled`` is false (``--no-history``) or
    ``history.enabled: false``; False when that failed. Without SQLAlchemy and with no
    history URL configured, a note.

    A failure is a warning, never the run's exit code: the history is a record of runs, and
    another process holding it (one CI job's lock) must not fail a neighbour's gate. A locked
    history is retried for ``history.lock-timeout`` first (:class:`RunHistory`).
    """
    from ragas_boot.errors import HistoryError, MissingExtraError
    from ragas_boot.runs.history import open_history

    if not enabled or (section is not None and not section.enabled):
        return True
    try:
        with open_history(section) as history:  # its password is masked by load_settings
            history.record(snapshot)
            message(f"Run recorded: {snapshot.id} ({history.label})", "dim")
    except MissingExtraError as error:
        if section is None or section.url is None:  # on by default: a note, not a failure
            _history_note(section, error)
            return True
        message(f"warning: run not recorded: {error}", "yellow")
        return False
    except HistoryError as error:
        message(f"warning: run not recorded: {error}", "yellow")
        return False
    return True


def _history_note(section: Any, error: Exception) -> None:
    """Say that runs are not recorded without the ``[history]`` extra: on every run when the
    configuration asks for the history (``history.enabled: true`` written out), else once per
    home folder (a marker file there), so that a default history never nags; ``ragas-boot
    runs list`` still explains, and ``history.enabled: false`` says it is off on purpose."""
    from ragas_boot.runs.history import history_home

    asked = section is not None and "enabled" in section.model_fields_set
    if not asked:
        marker = history_home() / _HISTORY_NOTE_MARKER
        if marker.exists():
            return
        with contextlib.suppress(OSError):  # a read-only home: the note then shows each time
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(
                "ragas-boot told once here that runs are not recorded without the [history] "
                "extra; delete this file to be told again.\n",
                encoding="utf-8",
            )
    tail = (
        ""
        if asked
        else " (said once in this home folder; `ragas-boot runs list` explains again, "
        "spring.ai.ragas.history.enabled: false turns recording off)"
    )
    message(f"note: run not recorded: {error}{tail}", "dim")


def show_diff(diff: RunDiff) -> RunDiff:
    """Print the diff's tables (stdout) and its verdict lines (stderr)."""
    from ragas_boot.reporting.history_report import diff_lines, diff_renderables

    for part in diff_renderables(diff):
        stdout().print(part)
    for line in diff_lines(diff):
        message(line, "bold red" if diff.regressed else "green")
    return diff
