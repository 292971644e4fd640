"""A dataset run's four steps (plan -> run -> report -> exit code), driven without argparse."""

from __future__ import annotations

import json
import signal
from dataclasses import replace
from datetime import timedelta

import pytest

from ragas_boot.cli import EXIT_BAD_INPUT, EXIT_GATE_FAILED, EXIT_OK, EXIT_TERMINATED
from ragas_boot.cli._console import console_session
from ragas_boot.cli._dataset import exit_code, plan_run, report_run, run_plan
from ragas_boot.cli._errors import UsageError
from ragas_boot.cli._options import RunOptions
from ragas_boot.config import load_settings

METRICS = ("agent_goal_accuracy", "tool_call_accuracy")


def test_the_four_steps_score_write_and_gate(judges, config_file, dataset_file, tmp_path, capsys):
    report = tmp_path / "run.json"
    options = RunOptions(
        dataset=str(dataset_file),
        metrics=METRICS,
        config=str(config_file),
        out=(str(report),),
        fail_under=0.8,
        history=False,
    )
    with console_session():
        plan = plan_run(options)
        assert (plan.metrics, [kind for _, kind in plan.reports]) == (list(METRICS), ["json"])
        assert judges.requests == []  # planning asks no judge
        run = run_plan(plan)
        assert len(judges.requests) == 9  # 3 samples x 3 judges for the one judged metric
        reported = report_run(plan, run)
        code = exit_code(plan, run, reported)
    assert (reported.unwritten, reported.recorded, reported.diff) == (0, True, None)
    assert code == EXIT_GATE_FAILED  # agent_goal_accuracy's mean 0.778 is under 0.8
    written = json.loads(report.read_text(encoding="utf-8"))
    assert {s["metric"] for s in written["metric_summaries"]} == set(METRICS)
    err = capsys.readouterr().err
    assert "FAILED agent_goal_accuracy: mean 0.778 is under --fail-under 0.8" in err
    assert f"Report written: {report}" in err


def test_a_signal_received_during_the_run_decides_the_exit_code(judges, config_file, dataset_file):
    options = RunOptions(
        dataset=str(dataset_file), metrics=METRICS, config=str(config_file), history=False
    )
    with console_session():
        plan = plan_run(options)
        run = run_plan(plan)
        reported = report_run(plan, run)
        assert exit_code(plan, run, reported) == EXIT_OK
        assert exit_code(plan, run, reported, signals=[signal.SIGTERM]) == EXIT_TERMINATED
        failed_write = type(reported)(unwritten=1, recorded=True, diff=None)
        assert exit_code(plan, run, failed_write) == EXIT_BAD_INPUT


def test_bad_input_fails_in_the_plan_before_any_judge_call(judges, config_file, dataset_file):
    base = RunOptions(dataset=str(dataset_file), metrics=METRICS, config=str(config_file))
    cases = [
        (replace(base, out=("run.txt",)), "use a .html, .htm, .json, .csv, .parquet, .xml or .md"),
        (replace(base, metrics=("no_such_metric",)), "no_such_metric"),
        (replace(base, fail_on_regression=True), "--fail-on-regression needs --baseline"),
    ]
    with console_session():
        for options, expected in cases:
            with pytest.raises(UsageError, match=expected):
                plan_run(options)
    assert judges.requests == []


def test_flags_win_over_the_yaml_and_the_yaml_fills_the_rest(config_file):
    settings = load_settings(str(config_file))
    run = settings.run.model_copy(
        update={
            "deadline": timedelta(minutes=10),
            "evaluation_deadline": timedelta(seconds=30),
            "max_cost": 2.0,
            "spool_after": 50,
        }
    )
    settings = settings.model_copy(update={"run": run})

    from_yaml = RunOptions(dataset="d.yaml").over(settings)[1]
    assert (from_yaml.deadline_s, from_yaml.evaluation_deadline_s) == (600.0, 30.0)
    assert (from_yaml.max_cost, from_yaml.spool_after) == (2.0, 50)

    given = RunOptions(
        dataset="d.yaml",
        deadline_s=5.0,
        evaluation_deadline_s=1.0,
        max_cost=0.5,
        spool_after="never",
        cache=False,
        cache_dir="elsewhere",
    )
    resolved, limits = given.over(settings)
    assert (limits.deadline_s, limits.evaluation_deadline_s) == (5.0, 1.0)
    assert (limits.max_cost, limits.spool_after) == (0.5, None)
    assert (resolved.cache.enabled, str(resolved.cache.dir)) == (False, "elsewhere")
    assert str(settings.cache.dir) != "elsewhere"  # the loaded settings are left as they were


def test_per_metric_overrides_carry_only_the_flags_given():
    assert RunOptions(dataset="d.yaml").metric_overrides(["a", "b"]) == {}
    options = RunOptions(dataset="d.yaml", models=("judge-a",), min_judges=2)
    assert options.metric_overrides(["a"]) == {"a": {"models": ["judge-a"], "min_judges": 2}}
