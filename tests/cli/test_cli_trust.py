"""``ragas-boot evaluate`` verdicts a CI gate can trust: quorum, repeats, pass rate (issue 16).

Judges answer over real HTTP from the test server; failures are its scripted 500s.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

from ragas_boot.testing import ChatRequest, FakeOpenAIServer, Reply

FOUR = ["judge-a", "judge-b", "judge-c", "judge-d"]
GOAL = ("--metric", "agent_goal_accuracy")


def _config(
    tmp_path: Path, server: FakeOpenAIServer, conftest: ModuleType, judges: list[str], extra: str
) -> Path:
    path = tmp_path / "trust.yaml"
    quiet = "spring.ai.ragas.metrics.logging.enabled: false\n"
    path.write_text(
        conftest.judges_yaml(server.base_url, {"local": judges}, quiet + textwrap.dedent(extra)),
        encoding="utf-8",
    )
    return path


def _goal_reply(request: ChatRequest) -> dict[str, object]:
    properties = (request.json_schema or {}).get("properties", {})
    if "goal_achieved" in properties:
        return {"goal_achieved": True, "reason": "done"}
    return {"ok": True}


@pytest.fixture
def quorum_config(
    tmp_path: Path,
    openai_server: FakeOpenAIServer,
    root_conftest: ModuleType,
    secret: str,
    monkeypatch: pytest.MonkeyPatch,
) -> Path:
    """Four judges; judge-c and judge-d answer every request with HTTP 500."""
    monkeypatch.setenv("JUDGE_KEY", secret)
    openai_server.respond(None, _goal_reply)
    openai_server.fail_always("judge-c", Reply.error(500))
    openai_server.fail_always("judge-d", Reply.error(500))
    return _config(
        tmp_path,
        openai_server,
        root_conftest,
        FOUR,
        """
        spring.ai.ragas.metrics.agent-goal-accuracy:
          min-judges: 3
        """,
    )


def test_two_of_four_judges_failing_misses_a_quorum_of_3_and_fails_the_gate(
    run_cli, quorum_config, dataset_file, tmp_path
):
    report = tmp_path / "run.json"
    result = run_cli("evaluate", dataset_file, *GOAL, "--config", quorum_config, "--out", report)
    assert result.code == 1, result.text
    assert "no quorum (2 of 4 answered): min-judges is 3" in result.out
    assert "FAILED agent_goal_accuracy: no quorum in 3 evaluation(s)" in result.err
    document = json.loads(report.read_text(encoding="utf-8"))
    evaluation = document["samples"][0]["evaluations"][0]
    assert evaluation["status"] == "undefined"
    assert evaluation["no_quorum"] is True
    assert evaluation["result"]["quorum"] == {
        "required": 3,
        "answered": 2,
        "asked": 4,
        "met": False,
        "on_failure": "FAIL",
    }
    assert evaluation["result"]["model_scores"] == {"judge-a": 1.0, "judge-b": 1.0}


def test_quorum_failure_skip_leaves_the_gate_to_the_other_checks(
    run_cli, quorum_config, dataset_file, monkeypatch
):
    monkeypatch.setenv("SPRING_AI_RAGAS_METRICS_QUORUM_FAILURE", "skip")
    result = run_cli("evaluate", dataset_file, *GOAL, "--config", quorum_config)
    assert result.code == 0, result.text
    assert "no quorum (2 of 4 answered)" in result.out


def test_a_quorum_the_answering_judges_reach_scores_normally(
    run_cli, quorum_config, dataset_file
):
    result = run_cli(
        "evaluate", dataset_file, *GOAL, "--config", quorum_config, "--min-judges", "2"
    )
    assert result.code == 0, result.text
    assert "no quorum" not in result.out


def test_a_quorum_larger_than_the_judges_asked_is_a_config_error(
    run_cli, quorum_config, dataset_file, openai_server
):
    result = run_cli(
        "evaluate", dataset_file, *GOAL, "--config", quorum_config, "--min-judges", "5"
    )
    assert result.code == 2
    assert "min-judges" in result.err and "asks only 4" in result.err
    assert openai_server.requests == []
