"""No judge configured: a metric that needs one is one start-up error (exit 2) for
``evaluate``, ``compare`` and ``config check``; a run of ToolCallAccuracy alone never builds
a judge, so it needs neither a judge nor the local judge's model."""

from __future__ import annotations

import pytest

NO_JUDGES = "spring.ai.ragas.metrics.logging.enabled: false\n"

DATASET = """\
samples:
  - id: one
    user_input_messages: [{type: human, content: hi}, {type: ai, content: hello}]
    reference: greet
    tool_calls: [{name: f}]
    reference_tool_calls: [{name: f}]
  - id: two
    user_input_messages: [{type: human, content: hi}, {type: ai, content: hello}]
    reference: greet
    tool_calls: [{name: g}]
    reference_tool_calls: [{name: f}]
"""


@pytest.fixture
def dataset(tmp_path):
    path = tmp_path / "data.yaml"
    path.write_text(DATASET, encoding="utf-8")
    return path


def write(tmp_path, text):
    path = tmp_path / "application.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "command",
    [("evaluate", "--metric", "agent_goal_accuracy"), ("compare",)],
    ids=["evaluate", "compare"],
)
def test_a_judged_metric_without_judges_is_one_start_up_error(run_cli, tmp_path, dataset, command):
    config = write(tmp_path, NO_JUDGES)
    result = run_cli(command[0], dataset, *command[1:], "--config", config, "--no-history")
    assert result.code == 2
    assert result.err.count("no judges are configured") == 1
    assert "spring.ai.ragas.providers" in result.err
    assert "Results" not in result.out  # nothing ran: no error per sample


def test_config_check_reports_judged_metrics_that_cannot_run(run_cli, tmp_path):
    config = write(
        tmp_path, NO_JUDGES + "spring.ai.ragas.metrics.agent-goal-accuracy:\n  threshold: 0.7\n"
    )
    result = run_cli("config", "check", "--config", config)
    assert result.code == 2
    assert "no judges are configured" in result.err and "agent_goal_accuracy" in result.err
    assert "Configuration OK" not in result.out


def test_config_check_without_judges_or_judged_metrics_warns_only(run_cli, tmp_path):
    config = write(tmp_path, NO_JUDGES)
    result = run_cli("config", "check", "--config", config)
    assert result.code == 0, result.err
    assert "Configuration OK: 0 judge(s)" in result.out
    assert "warning: no judge is configured" in result.err


def test_tool_call_accuracy_alone_never_builds_the_local_judge(run_cli, tmp_path, dataset):
    # The local judge's model file does not exist: building that judge would be an error.
    config = write(
        tmp_path,
        NO_JUDGES
        + "spring.ai.ragas.providers.local:\n  enabled: true\n  model-path: /nowhere/x.gguf\n",
    )
    result = run_cli(
        "evaluate", dataset, "--metric", "tool_call_accuracy", "--config", config, "--no-history"
    )
    assert result.code == 0, result.err
    assert "2 samples × 1 metrics: 2 scored" in result.out
    dry = run_cli(
        "evaluate", dataset, "--metric", "tool_call_accuracy", "--config", config, "--dry-run"
    )
    assert dry.code == 0, dry.err  # the estimate of a run that builds no judge builds none
    assert "/nowhere/x.gguf" not in dry.err
    judged = run_cli(
        "evaluate", dataset, "--metric", "agent_goal_accuracy", "--config", config, "--no-history"
    )
    assert judged.code == 2
    assert "/nowhere/x.gguf" in judged.err  # a judged metric does build it, and says why
