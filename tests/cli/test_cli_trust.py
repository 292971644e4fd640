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


def test_a_quorum_the_answering_judges_reach_scores_normally(run_cli, quorum_config, dataset_file):
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


ONE_SAMPLE = """\
name: flaky
samples:
  - id: refund
    user_input_messages:
      - {type: human, content: "Refund order 7."}
      - {type: ai, content: "Refunded."}
    reference: Order 7 is refunded
"""


@pytest.fixture
def flaky_judge(
    tmp_path: Path,
    openai_server: FakeOpenAIServer,
    root_conftest: ModuleType,
    secret: str,
    monkeypatch: pytest.MonkeyPatch,
) -> tuple[Path, Path, list[bool]]:
    """One judge whose verdict alternates: yes, no, yes, no, ... (the config, the dataset, the
    verdicts given so far: clear it to start again with yes)."""
    monkeypatch.setenv("JUDGE_KEY", secret)
    verdicts: list[bool] = []

    def alternate(request: ChatRequest) -> dict[str, object]:
        properties = (request.json_schema or {}).get("properties", {})
        if "goal_achieved" not in properties:
            return {"ok": True}
        verdicts.append(len(verdicts) % 2 == 0)
        return {"goal_achieved": verdicts[-1], "reason": f"verdict {len(verdicts)}"}

    openai_server.respond(None, alternate)
    dataset = tmp_path / "flaky.yaml"
    dataset.write_text(ONE_SAMPLE, encoding="utf-8")
    return _config(tmp_path, openai_server, root_conftest, ["judge-a"], ""), dataset, verdicts


def test_repeat_5_flags_a_sample_whose_judge_alternates_as_unstable(
    run_cli, flaky_judge, tmp_path, openai_server
):
    config, dataset, _verdicts = flaky_judge
    json_report, html_report = tmp_path / "run.json", tmp_path / "run.html"
    result = run_cli(
        "evaluate", dataset, *GOAL, "--config", config, "--repeat", "5",
        "--out", json_report, "--out", html_report,
    )  # fmt: skip
    assert result.code == 0, result.text
    assert openai_server.count("judge-a") == 5
    row = next(line for line in result.out.splitlines() if "refund" in line and "%" in line)
    assert "3/5" in row and "60.0%" in row and "[23.1%, 88.2%]" in row and "unstable" in row
    assert "0.600 pass · 3/5 passed unstable" in result.out
    assert "1.000 0.000 1.000 0.000 1.000" in row
    document = json.loads(json_report.read_text(encoding="utf-8"))
    evaluation = document["samples"][0]["evaluations"][0]
    repeats = evaluation["result"]["repeats"]
    assert repeats["scores"] == [1.0, 0.0, 1.0, 0.0, 1.0]
    assert (repeats["passed"], repeats["scored"], repeats["unstable"]) == (3, 5, True)
    assert repeats["pass_rate"] == pytest.approx(0.6)
    assert repeats["ci_low"] == pytest.approx(0.2307, abs=1e-4)
    assert repeats["ci_high"] == pytest.approx(0.8824, abs=1e-4)
    assert [step["repeat"] for step in evaluation["result"]["steps"]] == [0, 1, 2, 3, 4]
    assert document["metric_summaries"][0]["unstable"] == 1
    html = html_report.read_text(encoding="utf-8")
    assert "unstable" in html and "60.0%" in html and "[23.1%, 88.2%]" in html


def test_min_pass_rate_fails_the_gate_under_it_and_passes_at_it(run_cli, flaky_judge):
    config, dataset, verdicts = flaky_judge
    failing = run_cli(
        "evaluate", dataset, *GOAL, "--config", config, "--repeat", "5",
        "--min-pass-rate", "80%",
    )  # fmt: skip
    assert failing.code == 1, failing.text
    assert (
        "FAILED agent_goal_accuracy: 1 sample(s) under the minimum pass rate (lowest 60.0%)"
        in failing.err
    )
    verdicts.clear()
    passing = run_cli(
        "evaluate", dataset, *GOAL, "--config", config, "--repeat", "5",
        "--min-pass-rate", "0.6",
    )  # fmt: skip
    assert passing.code == 0, passing.text
    assert "PASSED every sample's pass rate is at least 60.0%" in passing.err


def test_repeat_and_min_pass_rate_from_yaml(
    run_cli, flaky_judge, tmp_path, openai_server, root_conftest
):
    _, dataset, _ = flaky_judge
    config = _config(
        tmp_path,
        openai_server,
        root_conftest,
        ["judge-a"],
        """
        spring.ai.ragas.metrics.agent-goal-accuracy:
          repeat: 3
          min-pass-rate: 0.9
        """,
    )
    result = run_cli("evaluate", dataset, *GOAL, "--config", config)
    assert result.code == 1, result.text
    assert openai_server.count("judge-a") == 3
    assert "2/3 passed unstable" in result.out


def test_repeat_over_the_limit_is_a_usage_error(run_cli, flaky_judge):
    config, dataset, _verdicts = flaky_judge
    result = run_cli("evaluate", dataset, *GOAL, "--config", config, "--repeat", "101")
    assert result.code == 2
    assert "--repeat" in result.err and "at most 100" in result.err
