"""RunHistory on SQLite: snapshots stored and loaded whole, runs named by id, prefix,
latest or previous, and clear errors for what is not there."""

from __future__ import annotations

import logging
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime

import pytest

from ragas_boot.errors import HistoryError
from ragas_boot.runs.history import (
    RunHistory,
    StoredMetric,
    StoredRun,
    StoredScore,
    default_history_url,
    open_history,
)


def snapshot(run_id: str, minute: int) -> StoredRun:
    when = datetime(2026, 11, 25, 12, minute, tzinfo=UTC)
    return StoredRun(
        id=run_id, kind="evaluate", recorded_at=when, started_at=when, duration_s=2.5,
        dataset="d", dataset_path="d.yaml", samples=1, config_files=["a.yaml"],
        profiles=["default"], judges=["j"], evaluations=1, scored=1, failed=0,
        total_tokens=12, cost_usd=0.5, stopped=None,
        metrics=[StoredMetric(metric="m", threshold=0.5, lower_is_better=False, evaluations=1,
                              scored=1, failed=0, passed=1, mean=0.9, pass_rate=1.0,
                              total_tokens=12, cost_usd=0.5)],
        scores=[StoredScore(sample_id="s", metric="m", status="scored", score=0.9, passed=True,
                            cost_usd=None)],
    )  # fmt: skip


@pytest.fixture
def history(tmp_path):
    with RunHistory(url=f"sqlite:///{tmp_path / 'deep' / 'runs.db'}") as opened:
        yield opened


def test_a_snapshot_comes_back_whole(history):
    stored = snapshot("20261125-120000-aaaa", 0)
    history.record(stored)
    assert history.load("20261125-120000-aaaa") == stored


def test_runs_by_prefix_latest_and_previous(history):
    for run_id, minute in (("20261125-120000-aaaa", 0), ("20261125-120100-bbbb", 1)):
        history.record(snapshot(run_id, minute))
    assert history.resolve("latest") == "20261125-120100-bbbb"
    assert history.resolve("previous") == "20261125-120000-aaaa"
    assert history.resolve("20261125-1201") == "20261125-120100-bbbb"
    assert [run.id for run in history.list_runs()] == [
        "20261125-120100-bbbb",
        "20261125-120000-aaaa",
    ]
    with pytest.raises(HistoryError, match="ambiguous: it starts 20261125-120000-aaaa, "):
        history.resolve("20261125-12")
    with pytest.raises(HistoryError, match=r"no run 'x%' in the history .*latest: 20261125"):
        history.resolve("x%")  # a LIKE wildcard is matched literally


def test_an_empty_history_has_no_latest(history):
    with pytest.raises(HistoryError, match="none recorded yet"):
        history.load("latest")


def test_the_default_history_lives_in_ragas_boot_home(ragas_boot_home):
    assert default_history_url() == f"sqlite:///{ragas_boot_home / 'history.db'}"
    with open_history() as history:
        history.record(snapshot("r1", 0))
    assert (ragas_boot_home / "history.db").is_file()


def test_a_malformed_url_is_named_with_its_password_masked():
    with pytest.raises(HistoryError) as caught:
        RunHistory(url="nonsense://user:hunter2-secret@host/db")
    assert "hunter2-secret" not in str(caught.value)
    assert "user:****@host" in str(caught.value)


HOLDER = """
import sqlite3, sys
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN EXCLUSIVE")
print("locked", flush=True)
sys.stdin.readline()  # hold the lock until the test says so
connection.execute("COMMIT")
"""


def test_a_database_locked_by_another_process_is_waited_for_not_failed(tmp_path, caplog):
    path = tmp_path / "runs.db"
    stored = snapshot("20261125-120000-aaaa", 0)
    outcome: list[object] = []
    with (
        RunHistory(url=f"sqlite:///{path}") as history,  # opened before the file is locked
        subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        ) as holder,
        caplog.at_level(logging.WARNING, logger="ragas_boot.runs.history"),
    ):  # fmt: skip
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        writer = threading.Thread(target=lambda: outcome.append(_attempt(history.record, stored)))
        writer.start()
        # The first try waits out SQLite's own 5 s; its failure is retried, not raised.
        for _ in range(1200):
            if "is busy" in caplog.text or not writer.is_alive():
                break
            time.sleep(0.05)
        assert "is busy" in caplog.text, outcome
        assert holder.stdin is not None
        holder.stdin.write("release\n")
        holder.stdin.flush()
        writer.join(timeout=120)
        assert holder.wait(timeout=60) == 0
    assert outcome == ["20261125-120000-aaaa"]
    with RunHistory(url=f"sqlite:///{path}") as reopened:
        assert reopened.load("20261125-120000-aaaa") == stored


def test_a_lock_held_past_the_retry_time_is_a_history_error(tmp_path):
    path = tmp_path / "runs.db"
    with (
        RunHistory(url=f"sqlite:///{path}", lock_timeout=0.0) as history,
        subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(path)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
        ) as holder,
    ):  # fmt: skip
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        try:
            with pytest.raises(HistoryError, match=r"cannot write the run history at .*locked"):
                history.record(snapshot("20261125-120000-aaaa", 0))
        finally:
            holder.kill()


def _attempt(action, *args):
    try:
        return action(*args)
    except Exception as error:  # the test asserts on what came back
        return error


CREATOR = """
import sys
from ragas_boot.runs.history import RunHistory
RunHistory(url=sys.argv[1]).close()
"""


def test_histories_opened_by_many_processes_at_once_all_open(tmp_path):
    """Two first runs at once both create the tables: the one that loses the race sees them
    on its next try instead of failing with "table ... already exists"."""
    url = f"sqlite:///{tmp_path / 'runs.db'}"
    processes = [
        subprocess.Popen([sys.executable, "-c", CREATOR, url], stderr=subprocess.PIPE, text=True)
        for _ in range(6)
    ]
    errors = [process.communicate(timeout=120)[1] for process in processes]
    assert [process.returncode for process in processes] == [0] * 6, errors
    with RunHistory(url=url) as history:
        assert history.list_runs() == []
