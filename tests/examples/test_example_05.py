"""Example 05: a metric package installed beside ragas-boot becomes a bean, a fixture, a CLI
metric and a YAML section through the ``ragas_boot.metrics`` entry-point group.

The package is really installed (``pip install --target``, no build isolation, so no network)
into a temporary folder that the subprocesses below put on ``PYTHONPATH``; the judges are the
local test server with scripted answers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from ragas_boot.testing import ChatRequest, FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "05_custom_metric"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example package installed into a folder of its own."""
    work = tmp_path_factory.mktemp("example05")
    source = work / "source"
    # A copy, so the build leaves nothing (build/, *.egg-info) in the repository.
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("build", "*.egg-info"))
    target = work / "site"
    completed = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
         "--no-build-isolation", "--target", str(target), str(source)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stderr
    assert list(target.glob("acme_agent_metrics-*.dist-info"))
    return target


def polite_judges(request: ChatRequest) -> dict[str, object]:
    """judge-a and judge-b find an answer polite unless it tells the user to stop writing."""
    polite = "stop writing" not in request.prompt
    return {"polite": polite, "reason": f"{request.model}: {'kind' if polite else 'curt'}"}


@pytest.fixture
def env(site: Path, openai_server: FakeOpenAIServer) -> dict[str, str]:
    openai_server.respond(None, polite_judges)
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SPRING_", "RAGAS_")) or k == "RAGAS_BOOT_HOME"
    }
    env.update(
        PYTHONPATH=os.pathsep.join([str(site), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        JUDGE_URL=openai_server.base_url,
        COLUMNS="200",
    )
    return env


def run(env: dict[str, str], *args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=180, check=False,
    )  # fmt: skip


def cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return run(env, "-m", "ragas_boot", *args)


def test_the_outside_metrics_are_listed_by_evaluate_help(env):
    completed = cli(env, "evaluate", "--help")
    assert completed.returncode == 0, completed.stderr
    help_text = " ".join(completed.stdout.split())
    assert "politeness" in help_text
    assert "response_length" in help_text
    assert "tool_call_accuracy" in help_text


def test_the_outside_metrics_score_through_evaluate(env, openai_server, tmp_path):
    report = tmp_path / "report.json"
    completed = cli(
        env, "evaluate", str(EXAMPLE / "dataset.yaml"),
        "--metric", "politeness", "--metric", "response_length",
        "--config", str(EXAMPLE / "application.yaml"), "--out", str(report),
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr
    data = json.loads(report.read_text(encoding="utf-8"))
    scores = {(row["sample_id"], row["metric"]): row["score"] for row in _evaluations(data)}
    assert scores[("short-and-polite", "politeness")] == 1.0
    assert scores[("long-and-rude", "politeness")] == 0.0
    assert scores[("short-and-polite", "response_length")] == 1.0
    # max-chars 80 from the YAML section: the rude answer is longer, so 80 / its length.
    rude = next(s for s in _samples(EXAMPLE / "dataset.yaml") if s["id"] == "long-and-rude")
    assert scores[("long-and-rude", "response_length")] == pytest.approx(80 / len(rude["response"]))
    # Two judges for each of the two samples scored by politeness; none for response_length.
    assert openai_server.count() == 4


def test_a_typo_in_the_outside_metric_section_names_the_key(env, tmp_path):
    config = tmp_path / "application.yaml"
    config.write_text(
        (EXAMPLE / "application.yaml")
        .read_text(encoding="utf-8")
        .replace("max-chars: 80", "max-char: 80"),
        encoding="utf-8",
    )
    completed = cli(
        env, "evaluate", str(EXAMPLE / "dataset.yaml"), "--metric", "response_length",
        "--config", str(config),
    )  # fmt: skip
    assert completed.returncode == 2
    assert "spring.ai.ragas.metrics.response-length.max-char: unknown key" in completed.stderr
    assert "did you mean 'max-chars'?" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_the_outside_metrics_are_pytest_fixtures(env, openai_server):
    completed = run(
        env, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_politeness.py",
        cwd=EXAMPLE,
    )  # fmt: skip
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "2 passed" in completed.stdout
    rows = [line for line in completed.stdout.splitlines() if "test_politeness.py::" in line]
    assert len(rows) == 2, completed.stdout  # the plugin's score table, one row per test
    assert "ResponseLength" in rows[0] and "Politeness" in rows[1]
    assert openai_server.count() == 2


def test_the_outside_metrics_are_typed_container_beans(env):
    code = """
import os
from acme_metrics import PolitenessMetric, ResponseLengthMetric
from ragas_boot import Sample, create_container, load_settings

settings = load_settings(os.environ["CONFIG"])
with create_container(settings) as container:
    bean = container.metric(ResponseLengthMetric)
    assert isinstance(bean, ResponseLengthMetric)
    assert bean is container.response_length()
    assert bean.defaults.max_chars == 80
    polite = container.metric("politeness")
    assert isinstance(polite, PolitenessMetric)
    print(polite.multi_turn_score(Sample(user_input="Hi", response="Hello, glad to help!")))
"""
    completed = run({**env, "CONFIG": str(EXAMPLE / "application.yaml")}, "-c", code)
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.strip() == "1.0"


def _evaluations(data: dict[str, object]) -> list[dict[str, object]]:
    rows = []
    for sample in data["samples"]:  # type: ignore[attr-defined]
        for evaluation in sample["evaluations"]:
            rows.append({"sample_id": sample["sample_id"], **evaluation})
    return rows


def _samples(path: Path) -> list[dict[str, str]]:
    return yaml.safe_load(path.read_text(encoding="utf-8"))["samples"]  # type: ignore[no-any-return]
