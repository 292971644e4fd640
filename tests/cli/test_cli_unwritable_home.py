"""A home folder that cannot be made never costs a run its reports.

``$RAGAS_BOOT_HOME`` (or ``./.ragas-boot``) under a regular file cannot be made by anyone, root
included (``chmod`` would not stop root): the history and the response cache live there. Every
command that records a run (``evaluate``, ``compare``, ``calibrate``, ``suite run``) must still
ask every judge, write every ``--out`` report, warn ``run not recorded: <why>`` and exit as its
gate says; the cache that cannot be made is a warning and a run without cache.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

pytest.importorskip("diskcache", reason="the response cache needs the [cache] extra")

ROOT = Path(__file__).resolve().parents[2]
SUITE = ROOT / "tests" / "suites" / "data" / "weather_suite.yaml"
SCRIPT = Path(sys.executable).with_name("ragas-boot")
METRICS = ("--metric", "agent_goal_accuracy", "--metric", "tool_call_accuracy")


@pytest.fixture
def blocked_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """``RAGAS_BOOT_HOME`` under a regular file: no mkdir can make it."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where a folder would have to be\n", encoding="utf-8")
    home = blocker / "home"
    monkeypatch.setenv("RAGAS_BOOT_HOME", str(home))
    return home


@pytest.fixture
def cached_config(config_file: Path) -> Path:
    """The judges' configuration with the response cache on for them (they are on loopback)."""
    with config_file.open("a", encoding="utf-8") as file:
        file.write("spring.ai.ragas.cache.loopback: true\n")
    return config_file


def _reports(folder: Path) -> list[Path]:
    return [folder / name for name in ("run.json", "run.md", "run.csv", "run.xml", "run.html")]


def _assert_written(reports: list[Path]) -> None:
    for path in reports:
        assert path.is_file(), f"{path.name} was not written"
    assert json.loads(reports[0].read_text(encoding="utf-8"))["samples"]
    ET.parse(reports[3])  # a whole JUnit file


@pytest.mark.parametrize(("command", "fail_under", "code"), [
    ("evaluate", "0.5", 0),
    ("evaluate", "0.9", 1),
    ("compare", "0.5", 0),
])  # fmt: skip
def test_a_run_whose_home_cannot_be_made_writes_its_reports_and_exits_by_the_gate(
    run_cli, judges, cached_config, dataset_file, blocked_home, tmp_path, command, fail_under, code
):
    reports = _reports(tmp_path)
    outs = [arg for path in reports for arg in ("--out", path)]
    result = run_cli(
        command, dataset_file, *METRICS, "--config", cached_config, "--fail-under", fail_under,
        *outs,
    )  # fmt: skip
    assert result.code == code, result.text
    assert judges.count() == 9  # every judge call made, none answered from a cache
    _assert_written(reports)
    assert "warning: run not recorded: cannot open the run history" in result.err
    assert str(blocked_home) in result.err
    assert "Errno" not in result.err.split("warning:")[0]  # no bare OSError, only warnings
    assert "warning: cache unusable: response cache at" in result.out
    assert "Traceback" not in result.text


def test_reports_are_written_before_the_history_is_asked(
    run_cli, judges, config_file, dataset_file, blocked_home, tmp_path
):
    reports = _reports(tmp_path)
    outs = [arg for path in reports for arg in ("--out", path)]
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file, *outs)
    assert result.code == 0, result.text
    written = [result.err.index(f"Report written: {path}") for path in reports]
    assert max(written) < result.err.index("warning: run not recorded")


def test_calibrate_with_a_home_that_cannot_be_made_writes_its_reports(
    run_cli, judges, config_file, blocked_home, tmp_path
):
    dataset = tmp_path / "labelled.yaml"
    dataset.write_text(
        textwrap.dedent(
            """\
            name: labelled
            samples:
              - id: done
                user_input_messages:
                  - {type: human, content: "Refund order 7."}
                  - {type: ai, content: "Refunded."}
                reference: Order 7 is refunded
                labels: {agent_goal_accuracy: {verdict: pass}}
              - id: not-done
                user_input_messages:
                  - {type: human, content: "Book the 9am flight to Paris."}
                  - {type: ai, content: "Later."}
                reference: The 9am flight to Paris is booked
                labels: {agent_goal_accuracy: {verdict: fail}}
            """
        ),
        encoding="utf-8",
    )
    report, page = tmp_path / "calibration.json", tmp_path / "calibration.html"
    result = run_cli(
        "calibrate", dataset, "--metric", "agent_goal_accuracy", "--config", config_file,
        "--resamples", "50", "--out", report, "--out", page,
    )  # fmt: skip
    assert result.code == 0, result.text
    assert json.loads(report.read_text(encoding="utf-8"))["kind"] == "calibration"
    assert page.is_file()
    assert "warning: run not recorded: cannot open the run history" in result.err


#: An agent that never calls a tool: it fails the suite's cases that expect one, passes the rest.
IDLE_AGENT = 'def run(messages):\n    return "I can\'t help with that.", []\n'


@pytest.mark.parametrize(("rate", "code"), [("0", 0), ("0.9", 1)])
def test_a_suite_run_with_a_home_that_cannot_be_made_exits_by_the_gate(
    run_cli, blocked_home, tmp_path, rate, code
):
    for name in ("weather_suite.yaml", "weather_tools.py"):
        shutil.copy(SUITE.parent / name, tmp_path / name)
    (tmp_path / "idle_agent.py").write_text(IDLE_AGENT, encoding="utf-8")
    report = tmp_path / "suite.json"
    result = run_cli(
        "suite", "run", tmp_path / "weather_suite.yaml", "--agent", "idle_agent:run",
        "--min-pass-rate", rate, "--out", report,
    )  # fmt: skip
    assert result.code == code, result.text
    assert json.loads(report.read_text(encoding="utf-8"))["samples"]
    assert "warning: run not recorded: cannot open the run history" in result.err
    assert "Traceback" not in result.text


def test_the_installed_script_with_a_dot_ragas_boot_file_writes_its_reports(
    judges, config_file, dataset_file, secret, tmp_path
):
    """No ``$RAGAS_BOOT_HOME``: ``./.ragas-boot`` is a regular file in the working folder."""
    work = tmp_path / "work"
    work.mkdir()
    (work / ".ragas-boot").write_text("not a folder\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SPRING_", "RAGAS_"))}
    env.update(COLUMNS="200", JUDGE_KEY=secret)
    reports = _reports(tmp_path)
    outs = [str(arg) for path in reports for arg in ("--out", path)]
    completed = subprocess.run(
        [str(SCRIPT), "evaluate", str(dataset_file), *METRICS, "--config", str(config_file),
         "--fail-under", "0.9", *outs],
        cwd=work, env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert completed.returncode == 1, completed.stderr  # the gate's own verdict
    _assert_written(reports)
    assert "warning: run not recorded: cannot open the run history" in completed.stderr
    assert str(work / ".ragas-boot") in completed.stderr
    assert "FAILED" in completed.stderr
    assert judges.count() == 9
