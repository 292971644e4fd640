"""The response cache from the command line: an unchanged rerun sends nothing, --no-cache,
--cache-dir, the YAML section, ``ragas-boot cache stats|clear``, two runs at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

METRICS = ("--metric", "agent_goal_accuracy", "--metric", "topic_adherence")

#: The test server is on 127.0.0.1: judges on this machine are cached only when asked.
LOOPBACK = "\nspring.ai.ragas.cache.loopback: true\n"


@pytest.fixture
def config_file(config_file):
    """The CLI tests' configuration, caching the test server's answers."""
    config_file.write_text(config_file.read_text(encoding="utf-8") + LOOPBACK, encoding="utf-8")
    return config_file


def _scores(report):
    document = json.loads(report.read_text(encoding="utf-8"))
    return [
        (evaluation["metric"], evaluation["score"], evaluation["result"]["model_scores"])
        for sample in document["samples"]
        for evaluation in sample["evaluations"]
    ], document


def test_an_unchanged_rerun_sends_no_request_and_scores_the_same(
    run_cli, judges, config_file, dataset_file, tmp_path, ragas_boot_home
):
    first_report, second_report = tmp_path / "first.json", tmp_path / "second.json"
    first = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file, "--out", first_report
    )
    assert first.code == 0, first.err
    sent = judges.count()
    assert sent == 3 * 3 * 3  # 3 samples × 3 judges × (1 goal step + 2 topic steps)
    assert f"cache: 0 hits, {sent} misses, 0 tokens saved" in first.out

    second = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file, "--out", second_report
    )
    assert second.code == 0, second.err
    assert judges.count() == sent  # the rerun sent nothing
    first_scores, first_doc = _scores(first_report)
    second_scores, second_doc = _scores(second_report)
    assert second_scores == first_scores
    totals = second_doc["totals"]
    assert totals["cache_hits"] == sent and totals["cache_misses"] == 0
    assert totals["usage"]["total_tokens"] == 0
    assert totals["saved_usage"] == first_doc["totals"]["usage"]
    assert f"cache: {sent} hits, 0 misses, {totals['saved_usage']['total_tokens']:,} tokens" in (
        second.out
    )
    overall = [s for s in second_doc["judge_summaries"] if s["metric"] is None]
    assert [s["cache_hits"] for s in overall] == [9, 9, 9]
    assert all(s["saved_usage"]["total_tokens"] > 0 for s in overall)
    calls = [
        call
        for sample in second_doc["samples"]
        for evaluation in sample["evaluations"]
        for step in evaluation["result"]["steps"]
        for call in step["calls"]
    ]
    assert {call["cache"] for call in calls} == {"hit"}
    # The default folder is under RAGAS_BOOT_HOME, never the working directory.
    assert (ragas_boot_home / "cache").is_dir()


def test_a_changed_prompt_misses_only_its_own_calls(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    assert run_cli("evaluate", dataset_file, *METRICS, "--config", config_file).code == 0
    sent = judges.count()
    text = dataset_file.read_text(encoding="utf-8")
    dataset_file.write_text(text.replace("Refunded.", "Refunded, sorry."), encoding="utf-8")
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    assert result.code == 0, result.err
    # Only the refund sample changed: its 3 goal calls and 3 topic extractions are asked again;
    # the classification prompts repeat the extracted topics, which are unchanged.
    assert judges.count() - sent == 6
    assert "cache: 21 hits, 6 misses" in result.out


def test_no_cache_neither_reads_nor_writes(
    run_cli, judges, config_file, dataset_file, ragas_boot_home
):
    for _ in range(2):
        result = run_cli(
            "evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config_file,
            "--no-cache",
        )  # fmt: skip
        assert result.code == 0, result.err
        assert "cache:" not in result.out
    assert judges.count() == 18
    assert not (ragas_boot_home / "cache").exists()


def test_cache_dir_stats_and_clear(run_cli, judges, config_file, dataset_file, tmp_path):
    folder = tmp_path / "answers"
    args = ("evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config_file)
    assert run_cli(*args, "--cache-dir", folder).code == 0
    stats = run_cli("cache", "stats", "--cache-dir", folder)
    assert stats.code == 0, stats.err
    assert f"Response cache: {folder}" in stats.out
    assert "Entries: 9 ·" in stats.out
    for model in ("judge-a", "judge-b", "judge-c"):
        assert f"  {model}: 3" in stats.out
    cleared = run_cli("cache", "clear", "--cache-dir", folder)
    assert cleared.code == 0 and f"Removed 9 entries from {folder}" in cleared.out
    assert "Entries: 0 ·" in run_cli("cache", "stats", "--cache-dir", folder).out
    assert run_cli(*args, "--cache-dir", folder).code == 0
    assert judges.count() == 18  # cleared: asked again


def test_the_yaml_section_sets_the_folder_and_can_turn_the_cache_off(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    folder = tmp_path / "from-yaml"
    base = config_file.read_text(encoding="utf-8")
    config_file.write_text(
        base.replace(LOOPBACK, "")
        + f"\nspring.ai.ragas.cache:\n  dir: {folder}\n  ttl: 7d\n  loopback: true\n",
        encoding="utf-8",
    )
    args = ("evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config_file)
    assert run_cli(*args).code == 0
    stats = run_cli("cache", "stats", "--config", config_file)
    assert f"Response cache: {folder}" in stats.out and "Entries: 9 ·" in stats.out
    config_file.write_text(base + "\nspring.ai.ragas.cache.enabled: false\n", encoding="utf-8")
    assert run_cli(*args).code == 0
    assert judges.count() == 18


def test_a_bad_cache_section_is_an_error_naming_the_key(run_cli, judges, config_file, dataset_file):
    base = config_file.read_text(encoding="utf-8").replace(LOOPBACK, "")
    for bad, expected in (
        ("ttl: soon", "spring.ai.ragas.cache.ttl"),
        ("ttl: 0s", "spring.ai.ragas.cache.ttl"),
        ("enable: true", "spring.ai.ragas.cache.enable"),
    ):
        config_file.write_text(base + f"\nspring.ai.ragas.cache:\n  {bad}\n", encoding="utf-8")
        result = run_cli(
            "evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config_file
        )
        assert result.code == 2, bad
        assert expected in result.err, result.err
        assert "Traceback" not in result.err
    assert judges.count() == 0


def test_the_test_server_is_not_cached_without_loopback(
    run_cli, judges, config_file, dataset_file, ragas_boot_home
):
    config_file.write_text(
        config_file.read_text(encoding="utf-8").replace(LOOPBACK, ""), encoding="utf-8"
    )
    for _ in range(2):
        result = run_cli(
            "evaluate", dataset_file, "--metric", "agent_goal_accuracy", "--config", config_file
        )
        assert result.code == 0, result.err
        assert "cache:" not in result.out
    assert judges.count() == 18
    assert not (ragas_boot_home / "cache").exists()


def test_stats_of_a_folder_that_does_not_exist(run_cli, tmp_path):
    result = run_cli("cache", "stats", "--cache-dir", tmp_path / "nothing")
    assert result.code == 0
    assert f"No response cache at {tmp_path / 'nothing'}" in result.out


def test_two_runs_at_once_share_the_cache(
    run_cli, judges, config_file, dataset_file, tmp_path, secret
):
    judges.set_latency(None, 0.05)  # both runs are still sending while the other stores
    env = dict(os.environ, JUDGE_KEY=secret, COLUMNS="200")
    command = [
        sys.executable, "-m", "ragas_boot", "evaluate", str(dataset_file), *METRICS,
        "--config", str(config_file), "--cache-dir", str(tmp_path / "shared"),
    ]  # fmt: skip
    runs = [
        subprocess.Popen(
            [*command, "--out", str(tmp_path / f"run{index}.json")],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for index in range(2)
    ]
    outputs = [run.communicate(timeout=600) for run in runs]
    for run, (_, err) in zip(runs, outputs, strict=True):
        assert run.returncode == 0, err
        assert "unusable" not in err
    first, _ = _scores(tmp_path / "run0.json")
    second, _ = _scores(tmp_path / "run1.json")
    assert first == second
    sent = judges.count()
    assert 27 <= sent <= 54
    third = run_cli(*command[3:], "--out", tmp_path / "run2.json")
    assert third.code == 0, third.err
    assert judges.count() == sent
    assert _scores(tmp_path / "run2.json")[0] == first


def test_stats_reads_the_configuration_as_runs_does(
    run_cli, tmp_path, monkeypatch, ragas_boot_home
):
    """``cache`` and ``runs`` decide alike whether a configuration is named: ``--profile``
    without one is an error, never silently the default folder; a blank $RAGAS_CONFIG is
    unset, and then the default folder is shown."""
    monkeypatch.chdir(tmp_path)  # no application.yaml here
    monkeypatch.setenv("RAGAS_CONFIG", "  ")
    default = run_cli("cache", "stats")
    assert default.code == 0, default.err
    assert f"No response cache at {ragas_boot_home / 'cache'}" in default.out
    for command in (("cache", "stats"), ("runs", "list")):
        result = run_cli(*command, "--profile", "ci")
        assert result.code == 2, command
        assert "ragas-boot: error:" in result.err and "application.yaml" in result.err
