"""CLI fixtures: a config of three judges on the test server, a small dataset, ``run_cli``."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

import pytest

from ragas_boot.cli import main
from ragas_boot.testing import ChatRequest, FakeOpenAIServer

ROOT = Path(__file__).resolve().parents[2]
JUDGES = ["judge-a", "judge-b", "judge-c"]

DATASET = """\
name: cli-test
samples:
  - id: weather
    user_input_messages:
      - {type: human, content: "Weather in Oslo?"}
      - type: ai
        content: ""
        tool_calls: [{name: get_weather, arguments: {city: Oslo}}]
      - {type: tool, content: '{"temp_c": 3}'}
      - {type: ai, content: "3°C in Oslo."}
    reference: The user gets the weather in Oslo
    reference_topics: [weather]
    reference_tool_calls: [{name: get_weather, arguments: {city: Oslo}}]
  - id: refund
    messages:
      - {role: user, content: "Refund order 7, it never came."}
      - role: assistant
        content: null
        tool_calls:
          - {id: c1, type: function, function: {name: refund, arguments: '{"order": 7}'}}
      - {role: tool, tool_call_id: c1, content: '{"ok": true}'}
      - {role: assistant, content: "Refunded."}
    reference: Order 7 is refunded
    reference_topics: [refunds]
    reference_tool_calls: [{name: refund, arguments: {order: 7}}]
  - id: flight-not-booked
    user_input_messages:
      - {type: human, content: "Book the 9am flight to Paris."}
      - {type: ai, content: "I will book it later, promise."}
    reference: The 9am flight to Paris is booked
    reference_topics: [flights]
    reference_tool_calls: [{name: book_flight, arguments: {time: "09:00"}}]
"""


def answer(request: ChatRequest) -> dict[str, object]:
    """Scripted judges: the Paris flight was not booked (judge-c, lenient, says it was); every
    other goal was achieved; topics are always on topic."""
    properties = (request.json_schema or {}).get("properties", {})
    if "goal_achieved" in properties:
        achieved = "Paris" not in request.prompt or request.model == "judge-c"
        return {"goal_achieved": achieved, "reason": f"verdict of {request.model}"}
    if "topics" in properties:
        return {"topics": ["the request"]}
    if "classifications" in properties:
        return {
            "classifications": [
                {
                    "topic": "the request",
                    "on_topic": True,
                    "matched_reference_topic": None,
                    "reason": "fine",
                }
            ]
        }
    return {"ok": True}


@dataclass(frozen=True)
class CliResult:
    """What one ``ragas-boot`` run printed and returned."""

    code: int
    out: str
    err: str

    @property
    def text(self) -> str:
        return self.out + self.err


@pytest.fixture
def root_conftest(request: pytest.FixtureRequest) -> ModuleType:
    """tests/conftest.py, for its SECRET_KEY and judges_yaml."""
    plugin = request.config.pluginmanager.get_plugin(str(ROOT / "tests" / "conftest.py"))
    assert plugin is not None
    return plugin  # type: ignore[no-any-return]


@pytest.fixture
def secret(root_conftest: ModuleType) -> str:
    """The recognisable fake API key that must never be printed."""
    return str(root_conftest.SECRET_KEY)


@pytest.fixture
def judges(openai_server: FakeOpenAIServer) -> FakeOpenAIServer:
    """The test server answering as the three scripted judges."""
    openai_server.respond(None, answer)
    return openai_server


@pytest.fixture
def config_file(
    tmp_path: Path,
    openai_server: FakeOpenAIServer,
    root_conftest: ModuleType,
    secret: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """application.yaml with judge-a/b/c on the test server; the key comes from $JUDGE_KEY."""
    monkeypatch.setenv("JUDGE_KEY", secret)
    extra = textwrap.dedent(
        """
        spring.ai.ragas.metrics:
          logging.enabled: false
          agent-goal-accuracy: {threshold: 0.5}
        """
    )
    path = tmp_path / "application.yaml"
    path.write_text(
        root_conftest.judges_yaml(openai_server.base_url, {"local": JUDGES}, extra),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def dataset_file(tmp_path: Path) -> Path:
    """Three samples (one whose goal was not achieved), in both formats."""
    path = tmp_path / "dataset.yaml"
    path.write_text(DATASET, encoding="utf-8")
    return path


@pytest.fixture
def run_cli(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> Callable[..., CliResult]:
    """Run ``ragas-boot`` in-process: ``run_cli("evaluate", path, "--metric", ...)``."""
    monkeypatch.setenv("COLUMNS", "200")

    def run(*args: object) -> CliResult:
        capsys.readouterr()
        code = main([str(arg) for arg in args])
        captured = capsys.readouterr()
        return CliResult(code=code, out=captured.out, err=captured.err)

    return run
