"""Another process holding the run history locked never fails a run: recording retries with
backoff for ``history.lock-timeout``, then gives up with a warning and the run's own exit code."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

METRICS = ("--metric", "agent_goal_accuracy", "--metric", "tool_call_accuracy")

# Holds history.db under an exclusive lock: until stdin closes, or for the seconds given.
HOLDER = textwrap.dedent(
    """
    import sqlite3, sys, time
    connection = sqlite3.connect(sys.argv[1], isolation_level=None)
    connection.execute("BEGIN EXCLUSIVE")
    print("locked", flush=True)
    if sys.argv[2] == "stdin":
        sys.stdin.read()
    else:
        time.sleep(float(sys.argv[2]))
    connection.execute("COMMIT")
    """
)


@contextmanager
def _locked(database: Path, hold: str) -> Iterator[subprocess.Popen[str]]:
    database.parent.mkdir(parents=True, exist_ok=True)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(database), hold],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline() == "locked\n"
        yield holder
    finally:
        assert holder.stdin is not None and holder.stdout is not None
        holder.stdin.close()
        assert holder.wait() == 0
        holder.stdout.close()


def _lock_timeout(config_file: Path, value: str) -> None:
    with config_file.open("a", encoding="utf-8") as file:
        file.write(f"spring.ai.ragas.history.lock-timeout: {value}\n")


def test_a_history_locked_all_along_is_a_warning_not_the_exit_code(
    run_cli, judges, config_file, dataset_file, ragas_boot_home, tmp_path
):
    _lock_timeout(config_file, "1s")
    report = tmp_path / "run.json"
    with _locked(ragas_boot_home / "history.db", "stdin"):
        result = run_cli(
            "evaluate", dataset_file, *METRICS, "--config", config_file, "--out", report
        )
    assert result.code == 0, result.err  # the gate passed; the history is not the gate
    assert "warning: run not recorded" in result.err and "database is locked" in result.err
    assert json.loads(report.read_text(encoding="utf-8"))["samples"]
    failing = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file, "--fail-under", "0.9"
    )
    assert failing.code == 1  # and its own verdict when the gate fails (the lock is gone now)
    assert "Run recorded: " in failing.err


def test_a_lock_released_within_the_timeout_is_waited_for(
    run_cli, judges, config_file, dataset_file, ragas_boot_home
):
    # sqlite waits a quarter of the timeout (3 s) by itself; the lock outlasts that, so the
    # run is recorded by a retry.
    _lock_timeout(config_file, "12s")
    with _locked(ragas_boot_home / "history.db", "5"):
        result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    assert result.code == 0, result.err
    assert "Run recorded: " in result.err and "not recorded" not in result.err
    listing = run_cli("runs", "list", "--config", config_file)
    assert listing.code == 0 and "cli-test" in listing.out
