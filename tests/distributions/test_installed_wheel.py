"""The wheel, installed alone in a fresh virtualenv, runs as the editable install does.

Everything a checkout supplies by accident (a data file the wheel lacks, an import that only
works beside ``src/``) passes the rest of the suite, which runs from the editable install. Here
the same commands run from both installs, each in a folder of its own outside the checkout with
nothing on ``PYTHONPATH``, and must print the same: ``ragas-boot --help`` and ``--version``,
``config check``, a dataset run against the test server (the prompt templates are package data)
and a user's pytest gate through the plugin.

The wheel's virtualenv is named by ``RAGAS_BOOT_WHEEL_VENV``; ``.ci/run`` builds one (it needs
the wheel's dependencies and pytest, from pip's cache). By hand::

    python -m build --outdir dist && python3 -m venv /tmp/wheel-venv
    /tmp/wheel-venv/bin/pip install dist/*.whl pytest
    RAGAS_BOOT_WHEEL_VENV=/tmp/wheel-venv .venv/bin/pytest tests/distributions
"""

from __future__ import annotations

import json
import os
import re
import runpy
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from ragas_boot import __version__
from ragas_boot.testing import FakeOpenAIServer, asks_for

ROOT = Path(__file__).resolve().parents[2]
EDITABLE = Path(sys.executable).parent
#: A duration as the console prints it (``0.4 s``, ``12 ms``, ``in 0.52s``): the one part of
#: the output that differs from run to run.
_DURATION = re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s)\b")
#: A run id as the history names it (``20261125-193012-4f2a``): the time and a random suffix.
_RUN_ID = re.compile(r"\b\d{8}-\d{6}-[0-9a-f]{4}\b")

#: The user's gate run through the plugin, and its configuration, which the CLI runs share.
GATE = Path(__file__).parent / "wheel_project" / "gate.py"
CONFIG: str = runpy.run_path(str(GATE))["CONFIG"]
METRICS = ("agent_goal_accuracy", "topic_adherence", "tool_call_accuracy")


@pytest.fixture(scope="module")
def wheel_bin(unavailable) -> Path:
    """The bin folder of the wheel's virtualenv, checked to import ragas-boot from itself."""
    venv = os.environ.get("RAGAS_BOOT_WHEEL_VENV")
    if not venv:
        unavailable("wheel", "RAGAS_BOOT_WHEEL_VENV names no virtualenv with the wheel installed")
    bin_dir = Path(str(venv)) / "bin"
    assert (bin_dir / "ragas-boot").is_file(), f"{bin_dir} has no ragas-boot script"
    return bin_dir


@dataclass(frozen=True)
class Outcome:
    """What a command printed, with its working folder and durations masked."""

    code: int
    stdout: str
    stderr: str


def _run(bin_dir: Path, args: list[str], work: Path, environ: dict[str, str]) -> Outcome:
    env = {
        name: value
        for name, value in os.environ.items()
        if name not in ("PYTHONPATH", "VIRTUAL_ENV", "RAGAS_CONFIG")
        and not name.startswith(("SPRING_", "PYTEST_", "RAGAS_"))
    }
    env.update(environ, RAGAS_BOOT_HOME=str(work / ".home"), COLUMNS="120", NO_COLOR="1")
    completed = subprocess.run(
        [str(bin_dir / args[0]), *args[1:]],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    def mask(text: str) -> str:
        text = _RUN_ID.sub("<run>", text.replace(str(work), "<work>"))
        return _DURATION.sub("<time>", text)

    return Outcome(completed.returncode, mask(completed.stdout), mask(completed.stderr))


def _both(
    wheel_bin: Path, args: list[str], tmp_path: Path, files: dict[str, str], **environ: str
) -> tuple[Outcome, Outcome]:
    """The command from the wheel's virtualenv and from the editable install, each in its own
    copy of ``files``."""
    outcomes = []
    for name, bin_dir in (("wheel", wheel_bin), ("editable", EDITABLE)):
        work = tmp_path / name
        work.mkdir()
        for file, text in files.items():
            (work / file).write_text(text, encoding="utf-8")
        outcomes.append(_run(bin_dir, args, work, environ))
    return outcomes[0], outcomes[1]


def test_the_wheel_imports_from_its_own_virtualenv(wheel_bin: Path, tmp_path: Path):
    where = _run(
        wheel_bin,
        ["python", "-c", "import ragas_boot, sys; print(ragas_boot.__file__); print(sys.path)"],
        tmp_path,
        {},
    )
    assert where.code == 0, where.stderr
    module, path = where.stdout.splitlines()
    assert Path(module).is_relative_to(wheel_bin.parent), module
    assert str(ROOT) not in path, "the checkout is on the wheel's sys.path"


@pytest.mark.parametrize("args", [["ragas-boot", "--help"], ["ragas-boot", "--version"]])
def test_the_command_line_prints_the_same(wheel_bin: Path, tmp_path: Path, args: list[str]):
    wheel, editable = _both(wheel_bin, args, tmp_path, {})
    assert wheel == editable
    assert wheel.code == 0, wheel.stderr
    if args[1] == "--version":
        assert wheel.stdout == f"ragas-boot {__version__}\n"


@pytest.fixture
def judges(openai_server: FakeOpenAIServer) -> FakeOpenAIServer:
    openai_server.when(asks_for("goal_achieved"), {"goal_achieved": True, "reason": "done"})
    openai_server.when(asks_for("topics"), {"topics": ["flights"]})
    openai_server.when(
        asks_for("classifications"),
        {
            "classifications": [
                {
                    "topic": "flights",
                    "on_topic": True,
                    "matched_reference_topic": "travel",
                    "reason": "about travel",
                }
            ]
        },
    )
    return openai_server


def test_config_check_prints_the_same(wheel_bin: Path, tmp_path: Path, judges):
    files = {"application.yaml": CONFIG}
    wheel, editable = _both(
        wheel_bin, ["ragas-boot", "config", "check"], tmp_path, files, JUDGE_URL=judges.base_url
    )
    assert wheel == editable
    assert wheel.code == 0, wheel.stderr
    assert "Configuration OK: 2 judge(s) in 1 provider(s)" in wheel.stdout


def test_a_dataset_run_against_the_test_server_prints_and_scores_the_same(
    wheel_bin: Path, tmp_path: Path, judges: FakeOpenAIServer
):
    files = {
        "application.yaml": CONFIG,
        "dataset.yaml": (ROOT / "examples/quickstart/dataset.yaml").read_text(encoding="utf-8"),
    }
    args = ["ragas-boot", "evaluate", "dataset.yaml", "--out", "report.json"]
    args += [option for metric in METRICS for option in ("--metric", metric)]
    wheel, editable = _both(wheel_bin, args, tmp_path, files, JUDGE_URL=judges.base_url)
    assert wheel == editable
    assert wheel.code == 0, wheel.stderr
    assert "3 samples × 3 metrics: 9 scored, 0 undefined, 0 failed" in wheel.stdout
    # A fresh install records its runs (the history is on by default) and says nothing else.
    assert "Run recorded: <run> (sqlite:///<work>/.home/history.db)" in wheel.stderr
    assert "note" not in wheel.stderr and "warning" not in wheel.stderr
    # Both asked the judges the same prompts, read from the package's templates.
    prompts = [record.request.prompt for record in judges.requests]
    # Two installs × two judges × 3 samples × 3 LLM steps (the goal; topics, then verdicts).
    assert len(prompts) == 2 * 2 * 3 * 3
    assert prompts[: len(prompts) // 2] == prompts[len(prompts) // 2 :]

    def scores(install: str) -> list[tuple[str, str, float]]:
        report = json.loads((tmp_path / install / "report.json").read_text(encoding="utf-8"))
        return [
            (sample["sample_id"], evaluation["metric"], evaluation["score"])
            for sample in report["samples"]
            for evaluation in sample["evaluations"]
        ]

    assert scores("wheel") == scores("editable")
    assert len(scores("wheel")) == 9


@pytest.mark.parametrize(
    "args",
    [
        # The plugin module loaded by name, as where plugin autoloading is off.
        ["pytest", "-p", "ragas_boot.pytest_plugin"],
        # The plugin found through the wheel's pytest11 entry point, by its name.
        ["pytest", "-p", "ragas_boot"],
    ],
    ids=["module", "entry point"],
)
def test_a_pytest_gate_with_the_plugin_prints_the_same(
    wheel_bin: Path, tmp_path: Path, args: list[str]
):
    files = {"test_gate.py": GATE.read_text(encoding="utf-8")}
    command = [*args, "-q", "-p", "no:cacheprovider", "test_gate.py"]
    # Autoloading off: no other plugin of either environment (the editable one has the dev
    # extra's) takes part, so both print the same.
    wheel, editable = _both(wheel_bin, command, tmp_path, files, PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
    assert wheel == editable
    assert wheel.code == 0, wheel.stdout + wheel.stderr
    assert "2 passed" in wheel.stdout
    assert "ragas-boot scores" in wheel.stdout
