"""The installed ``ragas-boot`` script, and what light commands must not import."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(sys.executable).with_name("ragas-boot")


def _env(**extra: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SPRING_", "RAGAS_")) or k == "RAGAS_BOOT_HOME"
    }
    env.update(COLUMNS="200", **extra)
    return env


def test_the_installed_script_runs_evaluate_against_the_test_server(
    judges, config_file, dataset_file, secret, tmp_path
):
    report = tmp_path / "out.json"
    completed = subprocess.run(
        [str(SCRIPT), "evaluate", str(dataset_file), "--metric", "agent_goal_accuracy",
         "--config", str(config_file), "--out", str(report), "--fail-under", "0.5"],
        env=_env(JUDGE_KEY=secret),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert "flight-not-booked" in completed.stdout
    assert "PASSED" in completed.stderr
    assert report.is_file()
    assert secret not in completed.stdout + completed.stderr + report.read_text(encoding="utf-8")
    assert judges.count() == 9


def test_the_installed_script_exits_2_on_a_bad_dataset(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n", encoding="utf-8")
    completed = subprocess.run(
        [str(SCRIPT), "evaluate", str(bad), "--metric", "tool_call_accuracy"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 2
    assert f"{bad}:1: not valid JSON" in completed.stderr
    assert "Traceback" not in completed.stderr


PROBE = """
import contextlib, io, sys
from ragas_boot.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
print(code, "langchain_openai" in sys.modules, "openai" in sys.modules)
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--help"],
        ["evaluate", "--help"],
        ["schema", "dataset"],
        ["config", "show"],
        ["config", "check"],
        ["evaluate", "DATASET", "--metric", "tool_call_accuracy"],
    ],
    ids=["help", "evaluate-help", "schema", "config-show", "config-check", "tool-calls-only"],
)
def test_light_commands_never_import_langchain_openai(config_file, dataset_file, secret, args):
    args = [str(dataset_file) if arg == "DATASET" else arg for arg in args]
    if args[0] in ("config", "evaluate") and "--help" not in args:
        args += ["--config", str(config_file)]
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        env=_env(JUDGE_KEY=secret),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.stdout.split() == ["0", "False", "False"], completed.stderr


@pytest.mark.parametrize("module", ["ragas_boot", "ragas_boot.cli"])
def test_python_dash_m_runs_the_command(module):
    completed = subprocess.run(
        [sys.executable, "-m", module, "schema", "dataset"],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    assert '"samples"' in completed.stdout
