"""A run killed with SIGKILL part-way, then ``--resume``d: the evaluations that finished are
not scored again (the test server counts every request), the ones in flight at the kill are
the only ones asked twice (at most ``--concurrency``), and the resumed run's scores are those
of a run that was never killed. Then every refusal of ``--resume`` and its siblings."""

from __future__ import annotations

import itertools
import json
import re
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from ragas_boot.testing import ChatRequest, FakeOpenAIServer, Reply
from support.processes import cli_env, wait_until

SCRIPT = Path(sys.executable).with_name("ragas-boot")
TOTAL = 1000
ANSWERED = 600  # answered before the judge starts to hang
CONCURRENCY = 8
METRIC = ("--metric", "agent_goal_accuracy", "--models", "judge-a")


def _dataset(tmp_path: Path, total: int = TOTAL) -> Path:
    lines = [
        json.dumps(
            {
                "id": f"s{index:04d}",
                "user_input_messages": [
                    {"type": "human", "content": f"book table {index}"},
                    {"type": "ai", "content": "booked"},
                ],
                "reference": "a table is booked",
            }
        )
        for index in range(total)
    ]
    path = tmp_path / "dataset.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _verdict(request: ChatRequest) -> dict[str, object]:
    index = int(re.search(r"book table (\d+)", request.prompt).group(1))
    return {"goal_achieved": index % 3 != 0, "reason": f"table {index}"}


def _journaled(home: Path) -> int:
    try:
        with sqlite3.connect(home / "history.db", timeout=30) as connection:
            (count,) = connection.execute(
                "SELECT count(*) FROM ragas_boot_run_entries WHERE kind = 'evaluation'"
            ).fetchone()
    except sqlite3.OperationalError:  # not made yet
        return 0
    return int(count)


def _scores(report: Path) -> list[tuple[str, str, str, float | None]]:
    document = json.loads(report.read_text(encoding="utf-8"))
    return [
        (sample["sample_id"], evaluation["metric"], evaluation["status"], evaluation["score"])
        for sample in document["samples"]
        for evaluation in sample["evaluations"]
    ]


def test_a_run_killed_mid_run_resumes_asking_again_only_what_was_in_flight(
    openai_server: FakeOpenAIServer, config_file, secret, tmp_path, ragas_boot_home
):
    dataset = _dataset(tmp_path)
    answered = itertools.count(1)
    lock = threading.Lock()

    def until_killed(request: ChatRequest) -> Reply | dict[str, object]:
        with lock:
            if next(answered) > ANSWERED:
                return Reply.hang(3600)
        return _verdict(request)

    openai_server.respond(None, until_killed)
    command = [str(SCRIPT), "evaluate", str(dataset), *METRIC, "--config", str(config_file),
               "--concurrency", str(CONCURRENCY), "--no-progress"]  # fmt: skip
    process = subprocess.Popen(
        command, env=cli_env(secret), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        # Every answered evaluation committed, every worker held on an unanswered call.
        wait_until(
            lambda: (
                process.poll() is not None
                or (
                    openai_server.in_flight >= CONCURRENCY
                    and _journaled(ragas_boot_home) >= ANSWERED
                )
            ),
            "the run held with its answered evaluations journaled",
        )
        assert process.poll() is None, process.communicate()
        process.send_signal(signal.SIGKILL)
        _, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == -signal.SIGKILL
    run_id = re.search(r"Run (\S+) started; if it stops or is killed, --resume \1", err).group(1)
    first = openai_server.requests
    asked_first = [record.request.prompt for record in first]
    answered_first = set(asked_first[:ANSWERED])
    in_flight = asked_first[ANSWERED:]
    assert len(in_flight) == CONCURRENCY

    openai_server.respond(None, _verdict)
    resumed_report = tmp_path / "resumed.json"
    resumed = subprocess.run(
        [*command, "--resume", run_id, "--out", str(resumed_report)],
        env=cli_env(secret), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert resumed.returncode == 0, resumed.stderr
    assert f"Run {run_id} resumed" in resumed.stderr
    assert f"Run recorded: {run_id}" in resumed.stderr
    asked_again = [record.request.prompt for record in openai_server.requests[len(first) :]]

    # Nothing answered before the kill was asked again; what was in flight was.
    assert not answered_first & set(asked_again)
    assert set(in_flight) <= set(asked_again)
    assert len(asked_again) == TOTAL - ANSWERED
    twice = len(in_flight)
    assert twice <= CONCURRENCY and twice / TOTAL <= 0.01  # the bound the docs state

    # The resumed run scored what a run never killed scores, sample by sample.
    whole_report = tmp_path / "whole.json"
    whole = subprocess.run(
        [*command, "--no-history", "--out", str(whole_report)],
        env=cli_env(secret), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert whole.returncode == 0, whole.stderr
    assert _scores(resumed_report) == _scores(whole_report)
    assert len(_scores(resumed_report)) == TOTAL
    # The journal of the finished run is gone; its record stays.
    assert _journaled(ragas_boot_home) == 0
    with sqlite3.connect(ragas_boot_home / "history.db") as connection:
        rows = connection.execute("SELECT id, stopped FROM ragas_boot_runs").fetchall()
    assert rows == [(run_id, None)]


# --------------------------------------------------------------------------- refusals


def test_resuming_a_finished_run_exits_2_saying_so(run_cli, judges, config_file, dataset_file):
    first = run_cli("evaluate", dataset_file, *METRIC, "--config", config_file)
    run_id = re.search(r"Run recorded: (\S+)", first.err).group(1)
    asked = judges.count()

    again = run_cli("evaluate", dataset_file, *METRIC, "--config", config_file, "--resume", run_id)

    assert again.code == 2
    assert f"run {run_id} finished: there is nothing to resume" in again.err
    assert judges.count() == asked


def _interrupted(run_cli, judges, config_file, dataset_file) -> str:
    """A run stopped by its deadline part-way (recorded, resumable): its id."""
    judges.set_latency(None, 0.5)
    stopped = run_cli(
        "evaluate", dataset_file, *METRIC, "--config", config_file, "--deadline", "0.1s"
    )
    judges.set_latency(None, 0)
    assert stopped.code == 1, stopped.err
    return re.search(r"Run recorded: (\S+)", stopped.err).group(1)


def test_a_run_stopped_by_its_deadline_resumes_to_the_end(
    run_cli, judges, config_file, dataset_file
):
    run_id = _interrupted(run_cli, judges, config_file, dataset_file)

    resumed = run_cli(
        "evaluate", dataset_file, *METRIC, "--config", config_file, "--resume", "latest"
    )

    assert resumed.code in (0, 1), resumed.err  # the gate decides; the run finished
    assert "STOPPED" not in resumed.err
    assert f"Run {run_id} resumed" in resumed.err
    assert f"Run recorded: {run_id}" in resumed.err


@pytest.mark.parametrize(
    ("change", "named"),
    [
        (("--models", "judge-b"), "its configuration differs"),
        (("--metric", "tool_call_accuracy"), "its configuration differs"),
        (("--sample", "2", "--seed", "1"), "its dataset differs"),
    ],
    ids=["models", "metrics", "dataset"],
)
def test_resuming_with_another_config_or_dataset_exits_2_naming_it(
    run_cli, judges, config_file, dataset_file, change, named
):
    run_id = _interrupted(run_cli, judges, config_file, dataset_file)
    asked = judges.count()

    args = ["evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config_file]
    if change[0] != "--models":
        args += ["--models", "judge-a"]
    result = run_cli(*args, *change, "--resume", run_id)

    assert result.code == 2
    assert f"cannot resume run {run_id}: {named}" in " ".join(result.err.split())
    assert judges.count() == asked  # refused before any judge was asked


@pytest.mark.parametrize(
    ("flags", "said"),
    [
        (("--shard", "1/2"), "--shard 1/2 needs --run-group NAME"),
        (("--shard", "3/2", "--run-group", "g"), "--shard: a shard is I/N with 1 <= I <= N"),
        (("--shard", "two", "--run-group", "g"), "--shard: a shard is I/N"),
        (("--run-group", "g"), "--run-group g names a group of shards: give --shard"),
        (("--shard", "1/2", "--run-group", "g", "--no-history"), "--shard needs the run history"),
        (("--resume", "latest", "--dry-run"), "--resume needs the run history, which --dry-run"),
        (("--resume", "nope"), "no run 'nope' to resume"),
    ],
)
def test_shard_and_resume_flags_that_cannot_apply_exit_2(
    run_cli, judges, config_file, dataset_file, flags, said
):
    result = run_cli("evaluate", dataset_file, *METRIC, "--config", config_file, *flags)

    assert result.code == 2
    assert said in " ".join(result.err.split())
    assert judges.count() == 0


def test_a_history_that_cannot_be_opened_costs_only_resuming(
    run_cli, judges, config_file, dataset_file, tmp_path, monkeypatch
):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("x", encoding="utf-8")
    monkeypatch.setenv("RAGAS_BOOT_HOME", str(blocker / "home"))
    report = tmp_path / "report.json"

    result = run_cli("evaluate", dataset_file, *METRIC, "--config", config_file, "--out", report)

    assert result.code == 0, result.err
    flat = " ".join(result.err.split())
    assert "warning: this run cannot be resumed if it stops: cannot open the run history" in flat
    assert "warning: run not recorded" in flat
    assert report.is_file() and len(_scores(report)) == 3
