"""``ragas-boot evaluate``: tables, reports, judge selection and the --fail-under gate."""

from __future__ import annotations

import json
import os

import pytest

METRICS = ("--metric", "agent_goal_accuracy", "--metric", "tool_call_accuracy")


def test_evaluate_prints_a_row_per_sample_and_the_metric_summary(
    run_cli, judges, config_file, dataset_file
):
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    assert result.code == 0, result.err
    out = result.out
    assert "Results (cli-test: 3 samples × 2 metrics)" in out
    weather = next(line for line in out.splitlines() if "weather" in line)
    assert "1.000 pass" in weather
    flight = next(line for line in out.splitlines() if "flight-not-booked" in line)
    assert "0.333 fail" in flight and "0.000 fail" in flight
    summary = next(line for line in out.splitlines() if line.startswith("│ agent_goal_accuracy"))
    assert "0.778" in summary and "66.7%" in summary
    assert "3 samples × 2 metrics: 6 scored, 0 undefined, 0 failed" in out
    assert "9 judge calls (0 failed)" in out
    assert "Traceback" not in result.err


def test_fail_under_exits_1_and_names_every_metric_under_it(
    run_cli, judges, config_file, dataset_file
):
    result = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file, "--fail-under", "0.8"
    )
    assert result.code == 1
    assert "FAILED agent_goal_accuracy: mean 0.778 is under --fail-under 0.8" in result.err
    assert "FAILED tool_call_accuracy: mean 0.667 is under --fail-under 0.8" in result.err


def test_fail_under_met_exits_0(run_cli, judges, config_file, dataset_file):
    result = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file, "--fail-under", "0.6"
    )
    assert result.code == 0
    assert "PASSED every metric's mean is at least 0.6" in result.err


def test_reports_are_written_and_models_and_aggregation_apply(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    html, report = tmp_path / "run.html", tmp_path / "run.json"
    result = run_cli(
        "evaluate", dataset_file, "--metric", "AgentGoalAccuracy", "--config", config_file,
        "--models", "judge-a,judge-c", "--aggregation", "max", "--concurrency", "1",
        "--out", html, "--out", report,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert f"Report written: {html}" in result.err
    document = json.loads(report.read_text(encoding="utf-8"))
    metric = document["metrics"][0]
    assert metric["name"] == "agent_goal_accuracy"
    assert metric["judge_ids"] == ["judge-a", "judge-c"]
    assert metric["config"]["aggregation"] == "MAX"
    flight = document["samples"][2]["evaluations"][0]
    assert flight["score"] == 1.0  # judge-c's yes wins under MAX
    assert document["concurrency"] == 1
    assert judges.count("judge-b") == 0
    assert html.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_a_jsonl_dataset_and_a_profile(run_cli, judges, config_file, tmp_path):
    config_file.with_name("application-fast.yaml").write_text(
        "spring.ai.ragas.metrics.tool-call-accuracy.threshold: 0.9\n", encoding="utf-8"
    )
    data = tmp_path / "data.jsonl"
    data.write_text(
        '{"user_input_messages": [{"type": "human", "content": "hi"}], '
        '"tool_calls": [{"name": "f"}], "reference_tool_calls": [{"name": "f"}]}\n',
        encoding="utf-8",
    )
    out = tmp_path / "r.json"
    result = run_cli(
        "evaluate", data, "--metric", "tool_call_accuracy", "--config", config_file,
        "--profile", "fast", "--out", out,
    )  # fmt: skip
    assert result.code == 0, result.err
    document = json.loads(out.read_text(encoding="utf-8"))
    assert document["metric_summaries"][0]["threshold"] == 0.9
    assert document["samples"][0]["sample_id"] == "sample-001"


@pytest.mark.parametrize("flag", ["--debug", "-v"])
def test_global_flags_are_accepted_after_the_subcommand(
    run_cli, judges, config_file, dataset_file, flag
):
    result = run_cli("evaluate", dataset_file, "--metric", "tool_call_accuracy", "--config",
                     config_file, flag)  # fmt: skip
    assert result.code == 0, result.err


def _unnamed_temporary_files() -> int:
    """Files this process holds open that have no name left (a run's spool is one)."""
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        count += target.endswith("(deleted)")
    return count


def test_spool_after_writes_the_same_reports_from_the_spool_and_closes_it(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    before = _unnamed_temporary_files()
    documents, pages = {}, {}
    for spool_after in ("0", "never"):
        html, report = tmp_path / f"{spool_after}.html", tmp_path / f"{spool_after}.json"
        result = run_cli(
            "evaluate", dataset_file, *METRICS, "--config", config_file,
            "--spool-after", spool_after, "--out", html, "--out", report,
        )  # fmt: skip
        assert result.code == 0, result.err
        documents[spool_after] = json.loads(report.read_text(encoding="utf-8"))
        pages[spool_after] = html.read_text(encoding="utf-8")
    assert _unnamed_temporary_files() == before  # the spool is gone with the run

    def prompts(document):
        return sorted(
            call["prompt"]
            for sample in document["samples"]
            for evaluation in sample["evaluations"]
            for step in evaluation["result"]["steps"]
            for call in step["calls"]
        )

    assert len(prompts(documents["0"])) == 9
    assert prompts(documents["0"]) == prompts(documents["never"])
    assert documents["0"]["totals"] == documents["never"]["totals"]
    assert "more than <code>spring.ai.ragas.run.spool-after</code>" in pages["0"]
    assert "spool-after" not in pages["never"]
    assert pages["0"].count("<summary>Prompt</summary>") == 9
    assert pages["never"].count("<summary>Prompt</summary>") == 9


def test_spool_after_is_checked(run_cli, judges, config_file, dataset_file):
    result = run_cli("evaluate", dataset_file, "--config", config_file, "--spool-after", "-1")
    assert result.code == 2
    assert "--spool-after" in result.err and "must be at least 0, got -1" in result.err
    result = run_cli("evaluate", dataset_file, "--config", config_file, "--spool-after", "lots")
    assert result.code == 2
    assert "expected a whole number or 'never', got 'lots'" in result.err
