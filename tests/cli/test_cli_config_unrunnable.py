"""``config check`` lists the metrics that cannot run with the configuration, and why
(issue 27): a warning for those only registered, exit 2 for those asked for (``--metric``,
or configured in the YAML)."""

from __future__ import annotations

import pytest

from ragas_boot import create_container, load_settings
from ragas_boot.container.readiness import NO_EMBEDDING_MODEL, NO_JUDGE, unrunnable_metrics

EMBEDDING_METRICS = ("response_relevancy", "semantic_similarity", "answer_correctness")


def _warning(result):
    marker = "cannot run with this configuration"
    lines = [line for line in result.err.splitlines() if marker in line]
    assert len(lines) == 1, result.err
    return lines[0]


def test_metrics_needing_embeddings_are_a_warning_when_not_asked_for(run_cli, config_file):
    result = run_cli("config", "check", "--config", config_file)
    assert result.code == 0, result.err
    assert "Configuration OK: 3 judge(s)" in result.out
    line = _warning(result)
    for name in EMBEDDING_METRICS:
        assert name in line
    assert "needs an embedding model" in line and "embedding-models" in line
    assert "agent_goal_accuracy" not in line  # judges are configured


def test_a_metric_asked_for_that_cannot_run_is_exit_2(run_cli, config_file):
    result = run_cli("config", "check", "--config", config_file, "--metric", "response_relevancy")
    assert result.code == 2
    assert "1 metric(s) asked for with --metric cannot run" in result.err
    assert "response_relevancy: needs an embedding model" in result.err
    assert "Configuration OK" not in result.out


def test_a_metric_asked_for_that_can_run_passes(run_cli, config_file):
    result = run_cli("config", "check", "--config", config_file, "--metric", "agent_goal_accuracy")
    assert result.code == 0, result.err
    assert "cannot run" not in result.err


def test_a_metric_the_yaml_configures_that_cannot_run_is_exit_2(run_cli, config_file):
    with config_file.open("a", encoding="utf-8") as file:
        file.write("\nspring.ai.ragas.metrics.response-relevancy: {threshold: 0.5}\n")
    result = run_cli("config", "check", "--config", config_file)
    assert result.code == 2
    assert "configured in the YAML cannot run" in result.err
    assert "response_relevancy: needs an embedding model" in result.err


def test_an_unknown_metric_is_a_usage_error(run_cli, config_file):
    result = run_cli("config", "check", "--config", config_file, "--metric", "no_such_metric")
    assert result.code == 2
    assert "no_such_metric" in result.err


def test_the_library_function_says_which_and_why(tmp_path, root_conftest, openai_server):
    yaml = root_conftest.judges_yaml(openai_server.base_url, {"p": ["judge-a"]})
    path = tmp_path / "application.yaml"
    path.write_text(yaml, encoding="utf-8")
    settings = load_settings(path, environ={"JUDGE_KEY": "k"})
    with create_container(settings) as container:
        found = {entry.name: entry.reason for entry in unrunnable_metrics(container)}
        assert set(EMBEDDING_METRICS) <= set(found)
        assert {found[name] for name in EMBEDDING_METRICS} == {NO_EMBEDDING_MODEL}
        assert NO_JUDGE not in found.values()
        assert unrunnable_metrics(container, ["agent_goal_accuracy", "tool_call_accuracy"]) == []
    no_judges = tmp_path / "none.yaml"
    no_judges.write_text("spring.ai.ragas.metrics.logging.enabled: false\n", encoding="utf-8")
    with create_container(load_settings(no_judges, environ={})) as container:
        (entry,) = unrunnable_metrics(container, ["agent_goal_accuracy"])
        assert entry.reason == NO_JUDGE
        assert unrunnable_metrics(container, ["tool_call_accuracy"]) == []


@pytest.mark.parametrize("metric", ["agent_goal_accuracy", "response_relevancy"])
def test_evaluate_agrees_with_config_check(run_cli, config_file, dataset_file, metric):
    """What config check calls unrunnable is what evaluate refuses (exit 2), and no more."""
    check = run_cli("config", "check", "--config", config_file, "--metric", metric)
    run = run_cli(
        "evaluate", dataset_file, "--metric", metric, "--config", config_file, "--dry-run"
    )
    assert (check.code == 2) == (run.code == 2), (check.err, run.err)
