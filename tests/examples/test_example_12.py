"""Example 12: four shard processes and their merge give one process's run; the GitHub Actions
workflow and the GitLab snippet of docs/history.md run commands that exist, with those flags."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ragas_boot.cli._main import build_parser

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "12_sharded_runs"


def test_example_12_merges_four_shard_processes_into_one_run(ragas_boot_home):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPRING_", "HISTORY_URL"))}
    completed = subprocess.run(
        [sys.executable, "examples/12_sharded_runs/offline.py"],
        cwd=ROOT,
        env=env | {"COLUMNS": "160", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr
    out = completed.stdout
    assert "merge exit code: 0; one process exit code: 0; same scores: True" in out
    shares = re.findall(r"Shard (\d)/4 of run group 'offline': (\d+) of 20 samples", out)
    assert sorted(index for index, _ in shares) == ["1", "2", "3", "4"]
    assert sum(int(count) for _, count in shares) == 20
    assert out.count("judges: rate-limit 10 rps (of 40), max-concurrency 2 (of 8)") == 4
    assert "Run group 'offline': 4 shards merged" in completed.stderr
    assert (ragas_boot_home / "history.db").is_file()  # the test's home, not the repository


def _commands(script: str, values: dict[str, str]) -> list[list[str]]:
    """The ``ragas-boot`` commands of a CI script, its expressions replaced by ``values``."""
    text = re.sub(r"\$\{\{\s*([\w.]+)\s*\}\}", lambda match: values[match.group(1)], script)
    text = re.sub(r"\$\{?(\w+)\}?", lambda match: values[match.group(1)], text)
    commands = []
    for line in text.splitlines():
        words = shlex.split(line)
        if words and words[0] == "ragas-boot":
            commands.append(words[1:])
    return commands


def _parsed(arguments: list[str]):
    try:
        return build_parser().parse_args(arguments)
    except SystemExit as error:  # argparse's way of saying a flag does not exist
        pytest.fail(f"ragas-boot {' '.join(arguments)}: not a valid command ({error})")


def test_the_github_workflow_runs_a_matrix_of_shards_then_a_gating_merge():
    workflow = yaml.safe_load((EXAMPLE / "github-workflow.yml").read_text(encoding="utf-8"))
    jobs = workflow["jobs"]
    shards = jobs["shard"]["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, len(shards) + 1))
    assert jobs["merge"]["needs"] == "shard"
    group = workflow["env"]["RUN_GROUP"]
    assert "github.run_id" in group

    for shard in shards:
        values = {"matrix.shard": str(shard), "RUN_GROUP": "evals-42"}
        (command,) = [c for step in jobs["shard"]["steps"] if "run" in step
                      for c in _commands(step["run"], values)]  # fmt: skip
        args = _parsed(command)
        assert args.command == "evaluate"
        assert (args.shard, args.run_group) == (f"{shard}/{len(shards)}", "evals-42")
        assert (ROOT / args.dataset).is_file() and (ROOT / args.config).is_file()
        assert args.fail_under is None  # a shard is not gated on its own
    (merge,) = [c for step in jobs["merge"]["steps"] if "run" in step
                for c in _commands(step["run"], {"RUN_GROUP": "evals-42"})]  # fmt: skip
    args = _parsed(merge)
    assert (args.command, args.runs_command, args.group) == ("runs", "merge", "evals-42")
    assert args.fail_under == 0.7 and "report.md" in args.out
    upload = jobs["merge"]["steps"][-1]
    assert upload["uses"].startswith("actions/upload-artifact") and upload["if"] == "always()"


def test_the_gitlab_snippet_of_the_docs_runs_parallel_shards_then_a_merge():
    text = (ROOT / "docs" / "history.md").read_text(encoding="utf-8")
    section = text[text.index("## Shards across machines") :]
    block = re.search(r"```yaml\n(.*?)```", section, re.DOTALL).group(1)
    pipeline = yaml.safe_load(block)
    assert pipeline["evaluate"]["parallel"] == 4
    assert pipeline["merge"]["needs"] == ["evaluate"]
    values = {"CI_NODE_INDEX": "3", "CI_NODE_TOTAL": "4", "RUN_GROUP": "nightly-7"}
    (shard,) = [c for line in pipeline["evaluate"]["script"] for c in _commands(line, values)]
    args = _parsed(shard)
    assert (args.command, args.shard, args.run_group) == ("evaluate", "3/4", "nightly-7")
    (merge,) = [c for line in pipeline["merge"]["script"] for c in _commands(line, values)]
    args = _parsed(merge)
    assert (args.runs_command, args.group, args.fail_under) == ("merge", "nightly-7", 0.8)
