"""Nothing finished is lost: SIGINT/SIGTERM mid-run, bad --out paths, symlinks, deadlines.

The interrupted runs are real processes: the test waits (on the server's count of requests
in flight) until every worker is stuck on a held request, signals the process, and checks
the exit code, the report of what finished, and that the server received nothing after the
signal (its own timestamps, on the same monotonic clock).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ragas_boot.testing import ChatRequest, FakeOpenAIServer, Reply
from support.processes import cli_env, wait_until

SCRIPT = Path(sys.executable).with_name("ragas-boot")
FAST = 6
TOTAL = 20
CONCURRENCY = 4


def _dataset(tmp_path: Path) -> Path:
    lines = []
    for index in range(TOTAL):
        kind = "fast" if index < FAST else "held"
        lines.append(
            json.dumps(
                {
                    "id": f"s{index:02d}",
                    "user_input_messages": [
                        {"type": "human", "content": f"[{kind}] book table {index}"},
                        {"type": "ai", "content": "booked"},
                    ],
                    "reference": "a table is booked",
                }
            )
        )
    path = tmp_path / "dataset.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _answer(request: ChatRequest) -> Reply | dict[str, object]:
    if "[held]" in request.prompt:
        return Reply.hang(3600)
    return {"goal_achieved": True, "reason": "booked"}


@pytest.fixture
def held_server(openai_server: FakeOpenAIServer) -> FakeOpenAIServer:
    openai_server.respond(None, _answer)
    return openai_server


@pytest.mark.parametrize(
    ("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"]
)
def test_a_signal_mid_run_writes_every_report_of_what_finished(
    held_server, config_file, secret, tmp_path, signum, code
):
    dataset = _dataset(tmp_path)
    json_report, html_report = tmp_path / "run.json", tmp_path / "run.html"
    process = subprocess.Popen(
        [str(SCRIPT), "evaluate", str(dataset),
         "--metric", "agent_goal_accuracy", "--models", "judge-a", "--config", str(config_file),
         "--concurrency", str(CONCURRENCY), "--out", str(json_report), "--out", str(html_report)],
        env=cli_env(secret),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )  # fmt: skip
    try:
        # Every worker stuck on a held request, the fast samples all answered.
        wait_until(
            lambda: (
                process.poll() is not None
                or (held_server.in_flight >= CONCURRENCY and held_server.count() >= FAST + 4)
            ),
            "all workers held",
        )
        assert process.poll() is None, process.communicate()
        signalled_at = time.monotonic()
        process.send_signal(signum)
        out, err = process.communicate(timeout=120)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()

    assert process.returncode == code, err
    assert "Traceback" not in err
    assert f"STOPPED interrupted: {FAST} of {TOTAL} evaluations finished, 14 marked" in err
    # Stop sending: nothing reached the server after the signal.
    assert all(r.request.received_at < signalled_at for r in held_server.requests)
    document = json.loads(json_report.read_text(encoding="utf-8"))
    assert document["stopped"] == "interrupted"
    statuses = [
        (sample["sample_id"], evaluation["status"], (evaluation["error"] or {}).get("kind"))
        for sample in document["samples"]
        for evaluation in sample["evaluations"]
    ]
    assert len(statuses) == TOTAL
    assert statuses[:FAST] == [(f"s{i:02d}", "scored", None) for i in range(FAST)]
    assert statuses[FAST:] == [(f"s{i:02d}", "failed", "interrupted") for i in range(FAST, TOTAL)]
    assert "interrupted" in html_report.read_text(encoding="utf-8")
    assert "s19" in out and "failed (interrupted)" in out
    assert secret not in out + err + json_report.read_text(encoding="utf-8")


# --------------------------------------------------------------------------- --out checks


@pytest.mark.parametrize("bad", ["missing-dir/r.json", "a-file/r.json", "a-dir.json"])
def test_a_bad_out_path_is_found_before_the_first_judge_call(
    run_cli, judges, config_file, dataset_file, tmp_path, bad
):
    (tmp_path / "a-file").write_text("x", encoding="utf-8")
    (tmp_path / "a-dir.json").mkdir()
    good = tmp_path / "good.json"

    result = run_cli(
        "evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config_file,
        "--out", good, "--out", tmp_path / bad,
    )  # fmt: skip

    assert result.code == 2
    assert f"--out {tmp_path / bad}" in result.err
    assert judges.count() == 0
    assert not good.exists()


def test_out_refuses_a_symlink_unless_asked(run_cli, judges, config_file, dataset_file, tmp_path):
    target = tmp_path / "elsewhere.json"
    target.write_text("precious", encoding="utf-8")
    link = tmp_path / "report.json"
    link.symlink_to(target)
    args = ("evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config_file)

    refused = run_cli(*args, "--out", link)

    assert refused.code == 2
    assert "is a symbolic link" in refused.err and "--follow-symlinks" in refused.err
    assert judges.count() == 0
    assert target.read_text(encoding="utf-8") == "precious"

    followed = run_cli(*args, "--out", link, "--follow-symlinks")

    assert followed.code == 0, followed.err
    assert link.is_symlink()
    assert json.loads(target.read_text(encoding="utf-8"))["schema_version"] == 1


def test_reports_are_replaced_atomically_leaving_no_temporary_files(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    report = tmp_path / "out" / "run.json"
    report.parent.mkdir()
    report.write_text("old", encoding="utf-8")
    before = report.stat().st_ino

    result = run_cli(
        "evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config_file,
        "--out", report,
    )  # fmt: skip

    assert result.code == 0, result.err
    assert json.loads(report.read_text(encoding="utf-8"))["dataset"]["size"] == 3
    assert report.stat().st_ino != before  # a new file renamed in, not rewritten in place
    assert sorted(p.name for p in report.parent.iterdir()) == ["run.json"]
    assert report.stat().st_mode & 0o044  # readable as a plain open() would make it


# --------------------------------------------------------------------------- deadlines


@pytest.mark.parametrize("where", ["flag", "yaml"])
def test_the_run_deadline_gives_every_sample_a_result_and_writes_the_report(
    run_cli, held_server, config_file, tmp_path, where
):
    dataset = _dataset(tmp_path)
    report = tmp_path / "run.json"
    args = ["--deadline", "2s"]
    if where == "yaml":
        args = []
        with config_file.open("a", encoding="utf-8") as file:
            file.write("spring.ai.ragas.run.deadline: 2s\n")

    result = run_cli(
        "evaluate", dataset, "--metric", "agent_goal_accuracy", "--models", "judge-a",
        "--config", config_file, "--concurrency", CONCURRENCY, "--out", report, *args,
    )  # fmt: skip

    assert result.code == 1, result.err  # an unfinished run does not pass
    assert "STOPPED the run's deadline passed: 6 of 20 evaluations finished" in result.err
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["stopped"] == "deadline"
    kinds = [
        (sample["evaluations"][0]["error"] or {}).get("kind") for sample in document["samples"]
    ]
    assert kinds == [None] * FAST + ["deadline"] * (TOTAL - FAST)
    message = document["samples"][-1]["evaluations"][0]["error"]["message"]
    assert message == "the run's deadline of 2s passed before this evaluation finished"
    # Only the held requests of the first wave went out: the rest were never sent.
    assert held_server.count() == FAST + CONCURRENCY


def test_the_evaluation_deadline_fails_only_the_slow_evaluations(
    run_cli, held_server, config_file, tmp_path
):
    dataset = _dataset(tmp_path)
    report = tmp_path / "run.json"

    result = run_cli(
        "evaluate", dataset, "--metric", "agent_goal_accuracy", "--models", "judge-a",
        "--config", config_file, "--concurrency", TOTAL, "--out", report,
        "--evaluation-deadline", "5s",  # ample for an answered call, even on a busy machine
    )  # fmt: skip

    assert result.code == 0, result.err
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["stopped"] is None
    errors = [sample["evaluations"][0]["error"] for sample in document["samples"]]
    assert errors[:FAST] == [None] * FAST
    assert {error["kind"] for error in errors[FAST:]} == {"deadline"}
    assert "evaluation deadline of 5s" in errors[-1]["message"]
    assert held_server.count() == TOTAL  # every sample was tried


@pytest.mark.parametrize("value", ["0s", "10", "soon", "-1s"])
def test_a_bad_deadline_is_a_usage_error(run_cli, dataset_file, value):
    result = run_cli(
        "evaluate", dataset_file, "--metric", "tool_call_accuracy", "--deadline", value
    )

    assert result.code == 2
    assert "--deadline" in result.err
