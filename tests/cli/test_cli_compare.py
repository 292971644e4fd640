"""``ragas-boot compare``: the judge × metric table, agreement, and judges that fail."""

from __future__ import annotations

import json

from ragas_boot.testing import Reply


def _row(out: str, *words: str) -> str:
    return next(line for line in out.splitlines() if all(word in line for word in words))


def test_compare_prints_judges_and_their_agreement(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    report = tmp_path / "compare.html"
    result = run_cli("compare", dataset_file, "--config", config_file, "--out", report)
    assert result.code == 0, result.err
    out = result.out
    assert "Results (" not in out  # compare shows judges, not a row per sample
    header = _row(out, "Judge", "Metric", "Mean", "Pass rate", "p50", "p95", "Answered", "Billed")
    assert "Failed calls" in header and "Excluded" in header
    judge_c = _row(out, "judge-c (local)", "agent_goal_accuracy")
    assert "1.000" in judge_c and "100.0%" in judge_c and "0/3" in judge_c
    judge_a = _row(out, "judge-a (local)", "agent_goal_accuracy")
    assert "0.667" in judge_a and "66.7%" in judge_a
    assert "0/6" in _row(out, "topic_adherence", "0/6")  # two steps per sample
    assert "66.7%" in _row(out, "judge-a · judge-c")
    assert "1.00" in _row(out, "agent_goal_accuracy", "judge-a · judge-b")
    assert "n/a" in _row(out, "topic_adherence", "judge-a · judge-b")  # all "yes": undefined
    assert "Fleiss κ, all judges" in out
    assert "all metrics" in out  # pooled over both judge metrics
    html = report.read_text(encoding="utf-8")
    assert "ragas-boot judge comparison: cli-test" in html
    assert "<svg" in html


def test_a_judge_that_is_down_is_excluded_and_every_sample_still_reported(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    judges.fail_always("judge-b", Reply.error(500, "upstream exploded"))
    report = tmp_path / "r.json"
    result = run_cli("compare", dataset_file, "--config", config_file, "--out", report)
    assert result.code == 0, result.err
    judge_b = _row(result.out, "judge-b (local)", "agent_goal_accuracy")
    assert "3/3" in judge_b  # every call failed ...
    assert judge_b.rstrip("│ ").endswith("3")  # ... and it was excluded 3 times
    document = json.loads(report.read_text(encoding="utf-8"))
    assert [s["sample_id"] for s in document["samples"]] == [
        "weather",
        "refund",
        "flight-not-booked",
    ]
    for sample in document["samples"]:
        for evaluation in sample["evaluations"]:
            assert evaluation["status"] == "scored"
            assert [e["judge_id"] for e in evaluation["result"]["exclusions"]] == ["judge-b"]
            assert "upstream exploded" in evaluation["result"]["exclusions"][0]["message"]
    assert document["totals"]["failed"] == 0


def test_all_judges_down_marks_every_sample_failed_writes_the_report_and_exits_1(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    judges.fail_always(None, Reply.error(503))
    html, report = tmp_path / "down.html", tmp_path / "down.json"
    result = run_cli(
        "compare", dataset_file, "--config", config_file, "--metric", "agent_goal_accuracy",
        "--out", html, "--out", report,
    )  # fmt: skip
    assert result.code == 1
    assert "FAILED agent_goal_accuracy: no sample could be scored (3 failed)" in result.err
    assert "Failed evaluations (3)" in result.out
    assert "all_judges_failed" in result.out
    document = json.loads(report.read_text(encoding="utf-8"))
    statuses = [s["evaluations"][0]["status"] for s in document["samples"]]
    assert statuses == ["failed", "failed", "failed"]
    error = document["samples"][0]["evaluations"][0]["error"]
    assert error["kind"] == "all_judges_failed"
    assert [f["judge_id"] for f in error["failures"]] == ["judge-a", "judge-b", "judge-c"]
    page = html.read_text(encoding="utf-8")
    assert "Failed evaluations (3)" in page
    assert "All models failed at step CompareOutcome" in page
