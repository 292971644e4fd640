"""The run history as the commands use it: record a run, load a baseline, show a diff."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ragas_boot.cli._console import message, stdout

if TYPE_CHECKING:
    from ragas_boot.config.settings import HistorySettings, RagasSettings
    from ragas_boot.runs.history import StoredRun
    from ragas_boot.runs.regressions import RunDiff

__all__ = ["load_baseline", "show_diff", "store"]


def load_baseline(settings: RagasSettings, run_id: str) -> StoredRun:
    """The ``--baseline`` run, loaded before the new run is made (so 'latest' is the last
    one recorded before it)."""
    from ragas_boot.runs.history import open_history

    with open_history(settings) as history:
        return history.load(run_id)


def store(
    section: HistorySettings | None,
    snapshot: StoredRun,
    *,
    enabled: bool = True,
    replace: bool = False,
) -> bool:
    """Record ``snapshot`` unless ``enabled`` is false (``--no-history``) or
    ``history.enabled: false``; False when that failed.

    A failure is a warning, never the run's exit code: the history is a record of runs, and
    another process holding it (one CI job's lock) must not fail a neighbour's gate. A locked
    history is retried for ``history.lock-timeout`` first (:class:`RunHistory`). SQLAlchemy is
    a dependency of every install, so its absence (a broken environment) is such a warning
    too, naming what to install. ``replace``: a run of the same id recorded before (a
    resumed run's earlier stop) is replaced.
    """
    from ragas_boot.errors import HistoryError, MissingExtraError
    from ragas_boot.runs.history import open_history

    if not enabled or (section is not None and not section.enabled):
        return True
    try:
        with open_history(section) as history:  # its password is masked by load_settings
            history.record(snapshot, replace=replace)
            message(f"Run recorded: {snapshot.id} ({history.label})", "dim")
    except (HistoryError, MissingExtraError) as error:
        message(f"warning: run not recorded: {error}", "yellow")
        return False
    return True


def show_diff(diff: RunDiff) -> RunDiff:
    """Print the diff's tables (stdout) and its verdict lines (stderr)."""
    from ragas_boot.reporting.history_report import diff_lines, diff_renderables

    for part in diff_renderables(diff):
        stdout().print(part)
    for line in diff_lines(diff):
        message(line, "bold red" if diff.regressed else "green")
    return diff
