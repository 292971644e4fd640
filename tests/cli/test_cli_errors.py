"""Bad input ends with exit code 2 and one clear message; --debug adds the traceback."""

from __future__ import annotations

import pytest


def _assert_one_clear_message(result, *words):
    assert result.code == 2, result.text
    assert "Traceback" not in result.text
    errors = [line for line in result.err.splitlines() if line.startswith("ragas-boot: error:")]
    assert len(errors) == 1, result.err
    for word in words:
        assert word in errors[0]
    assert "--debug" in result.err


def test_a_missing_dataset_file(run_cli, config_file, tmp_path):
    result = run_cli("evaluate", tmp_path / "none.yaml", "--metric", "tool_call_accuracy",
                     "--config", config_file)  # fmt: skip
    _assert_one_clear_message(result, "none.yaml", "dataset file not found")


def test_a_bad_sample_names_file_line_and_field(run_cli, config_file, tmp_path):
    data = tmp_path / "bad.yaml"
    data.write_text(
        "samples:\n  - user_input: ok\n  - reference_tool_calls:\n      - {nme: f}\n",
        encoding="utf-8",
    )
    result = run_cli("evaluate", data, "--metric", "tool_call_accuracy", "--config", config_file)
    _assert_one_clear_message(result, "bad.yaml:4", "samples[1]", "reference_tool_calls[0]")


def test_an_unknown_config_key_with_a_hint(run_cli, dataset_file, tmp_path):
    config = tmp_path / "application.yaml"
    config.write_text("spring.ai.ragas.metrics.agregation: median\n", encoding="utf-8")
    result = run_cli("evaluate", dataset_file, "--metric", "tool_call_accuracy",
                     "--config", config)  # fmt: skip
    _assert_one_clear_message(result, "spring.ai.ragas.metrics.agregation", "aggregation")


def test_a_placeholder_without_value(run_cli, dataset_file, config_file, monkeypatch):
    monkeypatch.delenv("JUDGE_KEY")
    result = run_cli("compare", dataset_file, "--config", config_file)
    _assert_one_clear_message(result, "JUDGE_KEY", "api-key")


def test_a_missing_config_file(run_cli, dataset_file, tmp_path):
    result = run_cli("config", "show", "--config", tmp_path / "nope.yaml")
    _assert_one_clear_message(result, "configuration file not found")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--metric", "no_such_metric"), ["unknown metric 'no_such_metric'", "tool_call_accuracy"]),
        (("--metric", "agent_goal_accuracy", "--models", "judge-z"), ["unknown judge 'judge-z'"]),
        (
            ("--metric", "tool_call_accuracy", "--out", "report.pdf"),
            ["use a .html, .htm, .json, .csv, .parquet, .xml or .md"],
        ),
        (("--metric", "tool_call_accuracy", "--out", "no/such/dir/r.html"), ["does not exist"]),
    ],
)
def test_bad_arguments_are_reported_before_any_call(
    run_cli, judges, config_file, dataset_file, args, words
):
    result = run_cli("evaluate", dataset_file, "--config", config_file, *args)
    _assert_one_clear_message(result, *words)
    assert judges.count() == 0


@pytest.mark.parametrize(
    "args",
    [
        ("evaluate", "data.yaml"),  # --metric is required
        ("evaluate", "data.yaml", "--metric", "x", "--concurrency", "0"),
        ("compare", "data.yaml", "--fail-under", "1.5"),
        ("compare", "data.yaml", "--aggregation", "mode"),
        ("schema", "sample"),
        ("frobnicate",),
    ],
)
def test_usage_errors_exit_2(run_cli, args):
    result = run_cli(*args)
    assert result.code == 2
    assert "usage: ragas-boot" in result.err
    assert "Traceback" not in result.err


def test_no_command_prints_help_and_exits_2(run_cli):
    result = run_cli()
    assert result.code == 2
    assert "evaluate" in result.err and "compare" in result.err


def test_help_and_version_exit_0(run_cli):
    result = run_cli("--help")
    assert result.code == 0
    for command in ("evaluate", "compare", "config", "schema"):
        assert command in result.out
    assert "Exit codes" in result.out
    assert run_cli("--version").out.startswith("ragas-boot ")


def test_debug_shows_the_traceback(run_cli, config_file, tmp_path):
    result = run_cli("--debug", "evaluate", tmp_path / "none.yaml", "--metric",
                     "tool_call_accuracy", "--config", config_file)  # fmt: skip
    assert result.code == 2
    assert "Traceback" in result.err
    assert "DatasetError" in result.err


def test_an_empty_dataset_exits_2_unless_allowed(run_cli, judges, config_file, tmp_path):
    empty = tmp_path / "empty.yaml"
    empty.write_text("name: truncated\nsamples: []\n", encoding="utf-8")
    arguments = ("evaluate", empty, "--metric", "agent_goal_accuracy", "--config", config_file)

    refused = run_cli(*arguments, "--no-history")
    assert refused.code == 2
    assert f"ragas-boot: error: {empty}: the dataset has no samples" in refused.err
    assert "--allow-empty" in refused.err
    assert judges.requests == []

    allowed = run_cli(*arguments, "--no-history", "--allow-empty")
    assert allowed.code == 0, allowed.err
    assert "0 samples" in allowed.out
    gated = run_cli(*arguments, "--no-history", "--allow-empty", "--fail-under", "0.9")
    assert gated.code == 1  # a mean score was asked for, and no sample gives one
    assert "FAILED agent_goal_accuracy: mean — is under --fail-under 0.9" in gated.err
