"""The API key never reaches stdout, stderr, the JSON or the HTML report."""

from __future__ import annotations

import pytest

from ragas_boot.testing import Reply


@pytest.mark.parametrize("command", ["evaluate", "compare"])
def test_no_output_shows_the_key_even_when_a_provider_echoes_it(
    run_cli, judges, config_file, dataset_file, secret, tmp_path, command
):
    # A provider that quotes the key in its error (some do, for 401s): the exclusion message
    # carries it, and the output edge must mask it.
    judges.fail_always("judge-b", Reply.error(401, f"Incorrect API key provided: {secret}"))
    html, report = tmp_path / "r.html", tmp_path / "r.json"
    result = run_cli(
        command, dataset_file, "--metric", "agent_goal_accuracy", "--metric", "topic_adherence",
        "--config", config_file, "--out", html, "--out", report, "--debug", "-v",
    )  # fmt: skip
    assert result.code == 0, result.err
    written = html.read_text(encoding="utf-8") + report.read_text(encoding="utf-8")
    assert "Incorrect API key provided: ****" in written
    for text in (result.out, result.err, written):
        assert secret not in text


def test_config_show_and_check_never_show_the_key(run_cli, judges, config_file, secret):
    for args in (("config", "show"), ("config", "check", "--ping")):
        result = run_cli(*args, "--config", config_file, "--debug")
        assert result.code == 0, result.err
        assert secret not in result.out + result.err


def test_an_error_exit_does_not_show_the_key(run_cli, config_file, dataset_file, secret):
    result = run_cli("evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config",
                     config_file, "--models", "judge-x", "--debug")  # fmt: skip
    assert result.code == 2
    assert secret not in result.out + result.err
