"""What a run costs, from the command line: prices, billed tokens, --dry-run, --max-cost."""

from __future__ import annotations

import json

import pytest

from ragas_boot.cli import EXIT_BUDGET, build_parser
from ragas_boot.testing import Reply

JUDGES = ["judge-a", "judge-b", "judge-c"]


@pytest.fixture
def priced_config(config_file):
    """The three judges, judge-a and judge-b priced ($1 in, $2 out per million tokens)."""
    text = config_file.read_text(encoding="utf-8")
    for judge in ("judge-a", "judge-b"):
        text = text.replace(
            f"- {{ id: {judge} }}",
            f"- {{ id: {judge}, price: {{input-per-million: 1.0, output-per-million: 2.0}} }}",
        )
    config_file.write_text(text, encoding="utf-8")
    return config_file


def test_dry_run_sends_nothing_and_counts_the_calls(run_cli, judges, priced_config, dataset_file):
    result = run_cli(
        "evaluate", dataset_file, "--config", priced_config, "--metric",
        "agent_goal_accuracy", "--metric", "topic_adherence", "--dry-run",
    )  # fmt: skip
    assert result.code == 0, result.text
    assert judges.count() == 0
    out = " ".join(result.out.split())
    assert "nothing sent" in out and "characters / 4" in out
    # agent_goal_accuracy: 3 samples × 1 step; topic_adherence: 3 samples × 2 dependent steps
    total = next(line for line in result.out.splitlines() if "Total" in line)
    cells = [cell.strip() for cell in total.split("│")]
    assert cells[3] == str(3 * 3 + 3 * 2 * 3)  # Calls
    assert "No price (tokens only): judge-c" in out
    assert "$" in total


def test_prices_show_cost_per_judge_metric_and_run(
    run_cli, judges, priced_config, dataset_file, tmp_path
):
    out = tmp_path / "run.json"
    result = run_cli(
        "compare", dataset_file, "--config", priced_config, "--metric", "agent_goal_accuracy",
        "--out", out, "--out", tmp_path / "run.html",
    )  # fmt: skip
    assert result.code == 0, result.text
    document = json.loads(out.read_text(encoding="utf-8"))
    served = sum(record.total_tokens for record in judges.requests)
    totals = document["totals"]
    assert totals["billed_usage"]["total_tokens"] == served
    assert (
        totals["unpriced_tokens"] == document["judge_summaries"][-1]["billed_usage"]["total_tokens"]
    )  # judge-c, the last judge over all metrics
    judge_a = next(
        s for s in document["judge_summaries"] if s["judge_id"] == "judge-a" and s["metric"]
    )
    usage = judge_a["billed_usage"]
    assert judge_a["cost"] == pytest.approx(
        (usage["input_tokens"] + 2 * usage["output_tokens"]) / 1e6
    )
    assert document["metric_summaries"][0]["cost"] == pytest.approx(totals["cost"])
    text = " ".join(result.out.split())
    assert "tokens billed" in text and "Cost" in text and f"${totals['cost']:.4f}" in text
    html = (tmp_path / "run.html").read_text(encoding="utf-8")
    assert f"${totals['cost']:.4f}" in html and "billed" in html


def test_max_cost_stops_the_run_with_exit_code_3(
    run_cli, judges, priced_config, dataset_file, tmp_path
):
    judges.respond(
        None,
        Reply.json({"goal_achieved": True, "reason": "ok"}, usage={"prompt_tokens": 300_000}),
    )
    out = tmp_path / "run.json"
    result = run_cli(
        "evaluate", dataset_file, "--config", priced_config, "--metric", "agent_goal_accuracy",
        "--concurrency", "1", "--max-cost", "0.5", "--out", out,
    )  # fmt: skip
    assert result.code == EXIT_BUDGET == 3, result.text
    # the first sample's 3 calls cost $0.6 (judge-c has no price): nothing more was sent
    assert judges.count() == len(JUDGES)
    document = json.loads(out.read_text(encoding="utf-8"))
    statuses = [s["evaluations"][0]["status"] for s in document["samples"]]
    assert statuses == ["scored", "budget", "budget"]
    assert document["stopped"] == "budget" and document["max_cost"] == 0.5
    assert "spend cap" in result.text
    assert "Judge spend: judge-a 300,0" in result.out and "judge-c 300,0" in result.out


def test_max_cost_and_the_exit_code_are_in_the_help():
    parser = build_parser()
    assert "3 the spend cap" in " ".join((parser.epilog or "").split())
    with pytest.raises(SystemExit):
        parser.parse_args(["evaluate", "d.yaml", "--metric", "x", "--max-cost", "-1"])


def test_the_yaml_budget_applies_and_a_price_of_cached_input(
    run_cli, judges, priced_config, dataset_file, tmp_path
):
    text = priced_config.read_text(encoding="utf-8").replace(
        "output-per-million: 2.0}", "output-per-million: 2.0, cached-input-per-million: 0.5}"
    )
    priced_config.write_text(text + "\nspring.ai.ragas.run.max-cost: 0.5\n", encoding="utf-8")
    judges.respond(
        None,
        Reply.json(
            {"goal_achieved": True, "reason": "ok"},
            usage={"prompt_tokens": 400_000, "prompt_tokens_details": {"cached_tokens": 200_000}},
        ),
    )
    out = tmp_path / "run.json"
    result = run_cli(
        "evaluate", dataset_file, "--config", priced_config, "--metric", "agent_goal_accuracy",
        "--concurrency", "1", "--out", out,
    )  # fmt: skip
    assert result.code == 3, result.text
    document = json.loads(out.read_text(encoding="utf-8"))
    judge_a = next(s for s in document["judge_summaries"] if s["judge_id"] == "judge-a")
    usage = judge_a["billed_usage"]
    assert usage["cached_input_tokens"] == 200_000
    # 200k at $1, 200k cached at $0.5, the answer's output at $2 (per million)
    assert judge_a["cost"] == pytest.approx(0.2 + 0.1 + usage["output_tokens"] * 2 / 1e6)
    assert document["max_cost"] == 0.5 and judges.count() == len(JUDGES)


def test_a_cached_rerun_shows_the_money_it_saved(
    run_cli, judges, priced_config, dataset_file, tmp_path
):
    priced_config.write_text(
        priced_config.read_text(encoding="utf-8") + "\nspring.ai.ragas.cache.loopback: true\n",
        encoding="utf-8",
    )
    first_report, second_report = tmp_path / "first.json", tmp_path / "second.json"
    args = ("evaluate", dataset_file, "--config", priced_config, "--metric", "agent_goal_accuracy")
    assert run_cli(*args, "--out", first_report).code == 0
    sent = judges.count()
    dry = run_cli(*args, "--dry-run")
    assert dry.code == 0, dry.text
    lines = dry.out.splitlines()
    header = [cell.strip() for cell in next(line for line in lines if "Cached" in line).split("┃")]
    total = [cell.strip() for cell in next(line for line in lines if "Total" in line).split("│")]
    assert total[header.index("Calls")] == total[header.index("Cached")] == str(sent)
    second = run_cli(*args, "--out", second_report)
    assert second.code == 0, second.text
    assert judges.count() == sent  # nothing sent
    first = json.loads(first_report.read_text(encoding="utf-8"))
    rerun = json.loads(second_report.read_text(encoding="utf-8"))
    # The hits saved what the priced judges' answers cost the first time; judge-c has no price.
    assert rerun["totals"]["saved_cost"] == pytest.approx(first["totals"]["cost"])
    assert rerun["totals"]["cost"] in (None, 0.0)
    overall = {s["judge_id"]: s for s in rerun["judge_summaries"] if s["metric"] is None}
    assert overall["judge-c"]["saved_cost"] is None
    assert overall["judge-a"]["saved_cost"] == pytest.approx(
        next(
            s["cost"]
            for s in first["judge_summaries"]
            if s["metric"] is None and s["judge_id"] == "judge-a"
        )
    )
    saved = f"tokens saved (${rerun['totals']['saved_cost']:.4f})"
    assert saved in " ".join(second.out.split())


def test_max_cost_is_refused_before_any_call_when_no_judge_of_the_run_has_a_price(
    run_cli, judges, config_file, dataset_file
):
    args = ("evaluate", dataset_file, "--config", config_file, "--metric", "agent_goal_accuracy")
    result = run_cli(*args, "--max-cost", "0.5")
    assert result.code == 2, result.text
    assert judges.count() == 0
    err = " ".join(result.err.split())
    assert (
        "--max-cost 0.5 cannot cap this run: no judge it calls has a price "
        "(judge-a, judge-b, judge-c), so no call would count against it"
    ) in err
    assert "price: {input-per-million: ..., output-per-million: ...}" in err
    # The same from the YAML key, named as such.
    config_file.write_text(
        config_file.read_text(encoding="utf-8") + "\nspring.ai.ragas.run.max-cost: 2\n",
        encoding="utf-8",
    )
    from_yaml = run_cli(*args)
    assert from_yaml.code == 2 and judges.count() == 0
    assert "spring.ai.ragas.run.max-cost: 2 cannot cap this run" in " ".join(from_yaml.err.split())
    # A run that calls no model has nothing to cap: nothing to refuse either.
    no_judges = run_cli(
        "evaluate", dataset_file, "--config", config_file, "--metric", "tool_call_accuracy"
    )
    assert no_judges.code == 0, no_judges.text
    assert "cannot cap" not in no_judges.text and "does not cap" not in no_judges.text


def test_max_cost_counts_the_judges_the_run_selects(run_cli, judges, priced_config, dataset_file):
    # judge-a and judge-b have prices, but --models picks only judge-c, which has none.
    result = run_cli(
        "evaluate", dataset_file, "--config", priced_config, "--metric", "agent_goal_accuracy",
        "--models", "judge-c", "--max-cost", "1",
    )  # fmt: skip
    assert result.code == 2, result.text
    assert "no judge it calls has a price (judge-c)" in " ".join(result.err.split())
    assert judges.count() == 0


def test_max_cost_warns_naming_the_judges_it_does_not_cap(
    run_cli, judges, priced_config, dataset_file
):
    for extra in ((), ("--dry-run",)):
        result = run_cli(
            "evaluate", dataset_file, "--config", priced_config, "--metric",
            "agent_goal_accuracy", "--max-cost", "5", *extra,
        )  # fmt: skip
        assert result.code == 0, result.text
        warnings = [line for line in result.err.splitlines() if "does not cap" in line]
        assert warnings == [
            "warning: --max-cost 5 does not cap the calls of judge-c (no price): they are sent "
            "and not counted; only judge-a, judge-b are capped"
        ]
    assert judges.count() == 3 * len(JUDGES)  # the run itself went on
