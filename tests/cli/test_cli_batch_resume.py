"""A batch run (``transport: batch``) killed with SIGKILL while its first round's batches are
in progress at the provider, then ``--resume``d: the batch ids were in the run's journal
before the kill, the resumed run polls those very batches and creates none again for their
calls (only the next round's), no judge call is made twice, and the scores are those of a run
never killed."""

from __future__ import annotations

import json
import re
import signal
import sqlite3
import subprocess
import sys
import zlib
from collections import Counter
from pathlib import Path

from ragas_boot.testing import ChatRequest, FakeOpenAIServer
from support.processes import cli_env, wait_until

SCRIPT = Path(sys.executable).with_name("ragas-boot")
TOTAL = 120
JUDGES = ("judge-a", "judge-b")
METRIC = ("--metric", "agent_goal_accuracy", "--models", ",".join(JUDGES))


def _config(tmp_path: Path, base_url: str) -> Path:
    models = "\n".join(f"        - {{id: {judge}}}" for judge in JUDGES)
    path = tmp_path / "application.yaml"
    path.write_text(
        f"""
spring.ai.ragas:
  cache.enabled: false
  metrics.logging.enabled: false
  providers:
    batch: {{poll-interval: 20ms, max-poll-interval: 100ms}}
    openai-compatible:
      - name: hosted
        base-url: {base_url}
        api-key: ${{JUDGE_KEY}}
        transport: batch
        chat-models:
{models}
""",
        encoding="utf-8",
    )
    return path


def _dataset(tmp_path: Path) -> Path:
    lines = [
        json.dumps(
            {
                "id": f"s{index:04d}",
                "user_input_messages": [
                    {"type": "human", "content": f"book table {index}"},
                    {"type": "ai", "content": "booked"},
                ],
            }
        )
        for index in range(TOTAL)
    ]
    path = tmp_path / "dataset.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _answer(request: ChatRequest) -> dict[str, object]:
    index = int(re.search(r"book table (\d+)", request.prompt).group(1))
    if request.asks_for("inferred_goal"):  # the first round: each judge infers the goal
        return {"inferred_goal": f"book table {index}", "reason": "asked"}
    achieved = index % 3 != 0 if request.model == "judge-a" else index % 4 != 0
    return {"goal_achieved": achieved, "reason": f"table {index}"}


def _journaled_batches(home: Path) -> dict[str, list[str]]:
    """batch id -> the custom_ids the run's journal holds for it."""
    try:
        with sqlite3.connect(home / "history.db", timeout=30) as connection:
            rows = connection.execute(
                "SELECT data FROM ragas_boot_run_entries WHERE kind = 'batch'"
            ).fetchall()
    except sqlite3.OperationalError:  # not made yet
        return {}
    entries = [json.loads(zlib.decompress(data)) for (data,) in rows]  # the store zlibs rows
    return {entry["batch_id"]: entry["custom_ids"] for entry in entries}


def _scores(report: Path) -> list[tuple[str, str, float | None]]:
    document = json.loads(report.read_text(encoding="utf-8"))
    return [
        (sample["sample_id"], evaluation["status"], evaluation["score"])
        for sample in document["samples"]
        for evaluation in sample["evaluations"]
    ]


def _asked(server: FakeOpenAIServer) -> list[tuple[str | None, str]]:
    """Every judge call the server was asked, in a batch or not: (model, prompt)."""
    lines = [line.request for batch in server.batches for line in batch.lines]
    sent = [record.request for record in server.requests]
    return [(request.model, request.prompt) for request in lines + sent]


def test_a_batch_run_killed_mid_batch_resumes_by_polling_the_batches_it_submitted(
    openai_server: FakeOpenAIServer, tmp_path: Path, secret: str, ragas_boot_home: Path
) -> None:
    openai_server.respond(None, _answer)
    openai_server.set_batch_timing(in_progress=3600)  # the provider's day, until released
    config, dataset = _config(tmp_path, openai_server.base_url), _dataset(tmp_path)
    command = [str(SCRIPT), "evaluate", str(dataset), *METRIC, "--config", str(config),
               "--no-progress"]  # fmt: skip
    process = subprocess.Popen(
        command, env=cli_env(secret), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        # The first round's batches (one per judge) submitted, recorded, and being polled.
        wait_until(
            lambda: (
                process.poll() is not None
                or (
                    len(_journaled_batches(ragas_boot_home)) == len(JUDGES)
                    and all(batch.polls >= 1 for batch in openai_server.batches)
                )
            ),
            "the first round's batches journaled and polled",
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
    before = {batch.id: batch for batch in openai_server.batches}
    journaled = _journaled_batches(ragas_boot_home)
    assert set(journaled) == set(before)
    assert all(batch.status == "in_progress" for batch in before.values())
    assert sorted(len(ids) for ids in journaled.values()) == [TOTAL] * len(JUDGES)
    assert openai_server.count() == 0

    # The provider finishes its work while nobody waits; the next batches answer at once.
    openai_server.set_batch_timing()
    assert openai_server.release_batches() == len(JUDGES)
    resumed_report = tmp_path / "resumed.json"
    resumed = subprocess.run(
        [*command, "--resume", run_id, "--out", str(resumed_report)],
        env=cli_env(secret), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert resumed.returncode in (0, 1), resumed.stderr  # 1: a sample below the threshold
    assert f"Run {run_id} resumed" in resumed.stderr

    after = openai_server.batches
    # The batches submitted before the kill were polled again and read, not sent again.
    for batch in after[: len(before)]:
        assert batch.id in before and batch.polls > before[batch.id].polls
        assert batch.status == "completed"
    # The resumed run created only the second round (each judge's verdict on the goal it
    # inferred): one batch per judge.
    created = after[len(before) :]
    assert sorted(batch.model for batch in created) == sorted(JUDGES)
    assert all(len(batch.lines) == TOTAL for batch in created)
    asked = _asked(openai_server)
    twice = sum(count - 1 for count in Counter(asked).values())
    assert len(asked) == 2 * TOTAL * len(JUDGES)
    assert twice <= len(asked) // 100  # at most 1 % of judge calls made twice
    assert twice == 0
    assert openai_server.count() == 0  # no synchronous request either

    # The resumed run scored what a run never killed scores, sample by sample.
    whole_report = tmp_path / "whole.json"
    whole = subprocess.run(
        [*command, "--no-history", "--out", str(whole_report)],
        env=cli_env(secret), capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    assert whole.returncode == resumed.returncode, whole.stderr
    assert _scores(resumed_report) == _scores(whole_report)
    assert len(_scores(resumed_report)) == TOTAL
    assert {score for _, _, score in _scores(resumed_report)} == {0.0, 0.5, 1.0}
