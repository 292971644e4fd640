"""Example 12 offline: one run split into four shard processes, then merged and gated.

Run from the repository root::

    .venv/bin/python examples/12_sharded_runs/offline.py

It starts ragas-boot's local OpenAI-compatible test server, runs the four shards of
``github-workflow.yml`` as four processes at once (``ragas-boot evaluate ... --shard I/4
--run-group offline``), each recording itself in the run history, then its merge job
(``ragas-boot runs merge offline --fail-under 0.7``), and, to compare, one process scoring the
whole dataset with the same gate. It prints the merge's output, both exit codes and whether the
two runs scored every sample alike, and exits with the merge's code.

The history is the SQLite file ``history.db`` in ``$RAGAS_BOOT_HOME`` (default: a fresh
temporary folder, so the example never writes into the repository); on CI, ``HISTORY_URL``
names the team's PostgreSQL instead.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from ragas_boot.cli import main as ragas_boot
from ragas_boot.testing import ChatRequest, FakeOpenAIServer

HERE = Path(__file__).parent
SHARDS = 4
EVALUATE = [
    "evaluate", str(HERE / "dataset.jsonl"), "--config", str(HERE / "application.yaml"),
    "--metric", "agent_goal_accuracy", "--metric", "tool_call_accuracy", "--no-progress",
]  # fmt: skip
GATE = ["--fail-under", "0.7"]


def answer(request: ChatRequest) -> dict[str, Any]:
    """Judges that find a goal achieved unless the agent said it could not book."""
    achieved = "could not book" not in request.prompt
    return {"goal_achieved": achieved, "reason": "booked" if achieved else "not booked"}


def scores(report: Path) -> list[tuple[str, str, float | None]]:
    document = json.loads(report.read_text(encoding="utf-8"))
    return [
        (sample["sample_id"], evaluation["metric"], evaluation["score"])
        for sample in document["samples"]
        for evaluation in sample["evaluations"]
    ]


def main() -> int:
    os.environ.setdefault("RAGAS_BOOT_HOME", tempfile.mkdtemp(prefix="ragas-boot-example-"))
    os.environ.setdefault("OPENROUTER_API_KEY", "sk-offline-example")
    reports = Path(tempfile.mkdtemp(prefix="ragas-boot-reports-"))
    with FakeOpenAIServer() as server:
        os.environ["JUDGE_BASE_URL"] = server.base_url
        server.respond(None, answer)
        print(f"== {SHARDS} shards at once, run group 'offline'", flush=True)
        shards = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "ragas_boot.cli",
                    *EVALUATE,
                    "--shard",
                    f"{index}/{SHARDS}",
                    "--run-group",
                    "offline",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            for index in range(1, SHARDS + 1)
        ]
        for shard in shards:
            _, err = shard.communicate()
            print(
                *(line for line in err.splitlines() if "Shard" in line or "judges:" in line),
                sep="\n",
            )
            if shard.returncode != 0:
                print(err, file=sys.stderr)
                return 2
        print("== ragas-boot runs merge offline --fail-under 0.7", flush=True)
        merged = ragas_boot(
            ["runs", "merge", "offline", "--config", str(HERE / "application.yaml"), *GATE,
             "--out", str(reports / "merged.json")]
        )  # fmt: skip
        print("== one process, the whole dataset, the same gate", flush=True)
        whole = ragas_boot([*EVALUATE, *GATE, "--no-history", "--out", str(reports / "one.json")])
    alike = scores(reports / "merged.json") == scores(reports / "one.json")
    print(f"merge exit code: {merged}; one process exit code: {whole}; same scores: {alike}")
    return merged


if __name__ == "__main__":
    sys.exit(main())
