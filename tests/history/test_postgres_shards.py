"""Four shards of one run as four processes recording into a shared PostgreSQL history, then
``runs merge``: the per-sample scores, the summaries and the gate's exit code of one process's
run of the whole dataset; a group missing a shard exits 2 naming it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from ragas_boot.testing import ChatRequest

SCRIPT = Path(sys.executable).with_name("ragas-boot")
TOTAL = 40
METRICS = ("--metric", "agent_goal_accuracy", "--metric", "tool_call_accuracy")


def _verdict(request: ChatRequest) -> dict[str, object]:
    index = int(re.search(r"order (\d+)", request.prompt).group(1))
    # judge-b disagrees on every fifth sample; every seventh is not achieved at all
    achieved = index % 7 != 0 and not (request.model == "judge-b" and index % 5 == 0)
    return {"goal_achieved": achieved, "reason": f"order {index}"}


@pytest.fixture
def team(postgres_server, tmp_path, root_conftest, openai_server, monkeypatch):
    monkeypatch.setenv("JUDGE_KEY", root_conftest.SECRET_KEY)
    monkeypatch.setenv("HISTORY_URL", postgres_server.url)
    openai_server.respond(None, _verdict)
    config = tmp_path / "application.yaml"
    config.write_text(
        root_conftest.judges_yaml(openai_server.base_url, {"team": ["judge-a", "judge-b"]})
        + "spring.ai.ragas.metrics.logging.enabled: false\n"
        + "spring.ai.ragas.history.url: ${HISTORY_URL}\n",
        encoding="utf-8",
    )
    rows = [
        {
            "id": f"order-{index:03d}",
            "user_input_messages": [
                {"type": "human", "content": f"Refund order {index}."},
                {
                    "type": "ai",
                    "content": "",
                    "tool_calls": [{"name": "refund", "arguments": {"order": index}}],
                },
                {"type": "ai", "content": "Refunded."},
            ],
            "reference": f"order {index} is refunded",
            "reference_tool_calls": [{"name": "refund", "arguments": {"order": index}}],
        }
        for index in range(TOTAL)
    ]
    dataset = tmp_path / "orders.jsonl"
    dataset.write_text("\n".join(json.dumps(row) for row in rows) + "\n", encoding="utf-8")
    return config, dataset


def _shards(config: Path, dataset: Path, group: str, indices, count: int) -> list[str]:
    """Run the shards as processes at once; their stderr, each checked to exit 0."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SPRING_")}
    processes = [
        subprocess.Popen(
            [
                str(SCRIPT),
                "evaluate",
                str(dataset),
                *METRICS,
                "--config",
                str(config),
                "--shard",
                f"{index}/{count}",
                "--run-group",
                group,
                "--no-progress",
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for index in indices
    ]
    errors = []
    for process in processes:
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
        errors.append(err)
    return errors


def _document(report: Path) -> dict:
    return json.loads(report.read_text(encoding="utf-8"))


def _rows(document: dict) -> list[tuple[str, str, str, float | None, dict]]:
    return [
        (
            sample["sample_id"],
            evaluation["metric"],
            evaluation["status"],
            evaluation["score"],
            (evaluation["result"] or {}).get("model_scores"),
        )
        for sample in document["samples"]
        for evaluation in sample["evaluations"]
    ]


def _summaries(document: dict) -> tuple:
    judges = [
        {key: value for key, value in summary.items() if not key.startswith("latency")}
        for summary in document["judge_summaries"]
    ]
    return document["metric_summaries"], judges, document["agreement"], document["totals"]


def test_four_shard_processes_merge_into_one_processs_run(team, run_cli, tmp_path, openai_server):
    config, dataset = team
    whole_report = tmp_path / "whole.json"
    gate = ("--fail-under", "0.9")
    code, _, err = run_cli("evaluate", dataset, *METRICS, "--config", config, *gate,
                           "--out", whole_report, "--no-history")  # fmt: skip
    assert code == 1, err  # every seventh goal is not achieved: the gate fails
    asked_once = openai_server.count()

    group = f"nightly-{uuid.uuid4().hex[:8]}"
    errors = _shards(config, dataset, group, (1, 2, 3, 4), 4)
    shares = [int(re.search(r"of run group '\S+': (\d+) of 40 samples", err).group(1))
              for err in errors]  # fmt: skip
    assert sum(shares) == TOTAL and all(shares)
    assert openai_server.count() == 2 * asked_once  # each sample scored by one shard only

    merged_report = tmp_path / "merged.json"
    code, _, err = run_cli("runs", "merge", group, "--config", config, *gate,
                             "--out", merged_report)  # fmt: skip
    assert code == 1, err  # the same gate verdict
    assert "FAILED agent_goal_accuracy" in err
    merged, whole = _document(merged_report), _document(whole_report)
    assert _rows(merged) == _rows(whole)
    assert _summaries(merged) == _summaries(whole)
    assert merged["dataset"]["size"] == TOTAL
    assert "postgresql+pg8000://ragas:****@localhost" in err
    code, listing, _ = run_cli("runs", "list", "--config", config)
    assert re.search(r"Run recorded: (\S+)", err).group(1) in listing

    # One group missing a shard: the merge exits 2 naming it.
    partial = f"partial-{uuid.uuid4().hex[:8]}"
    _shards(config, dataset, partial, (1, 3), 3)
    code, _, err = run_cli("runs", "merge", partial, "--config", config)
    assert code == 2
    assert f"cannot merge run group '{partial}': shard 2/3 is missing" in " ".join(err.split())
