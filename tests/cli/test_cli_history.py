"""Run history: ``evaluate`` records each run, ``runs list`` shows them, ``runs diff`` and
``evaluate --baseline`` compare two and gate CI on a regression."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

from ragas_boot.testing import ChatRequest, FakeOpenAIServer

METRICS = ("--metric", "agent_goal_accuracy", "--metric", "tool_call_accuracy")

Answer = Callable[[ChatRequest], dict[str, object]]


@pytest.fixture
def answer(request: pytest.FixtureRequest) -> Answer:
    """The scripted judges of tests/cli/conftest.py (the Paris flight is not booked)."""
    conftest = str(Path(__file__).with_name("conftest.py"))
    plugin = request.config.pluginmanager.get_plugin(conftest)
    assert plugin is not None
    return plugin.answer  # type: ignore[no-any-return]


@pytest.fixture
def worse(answer: Answer) -> Answer:
    """The judges of a worse agent: the weather goal is now missed as well (judge-c still
    lenient), so agent_goal_accuracy's weather sample falls under its 0.5 threshold."""

    def reply(request: ChatRequest) -> dict[str, object]:
        properties = (request.json_schema or {}).get("properties", {})
        if "goal_achieved" in properties and "Oslo" in request.prompt:
            return {"goal_achieved": request.model == "judge-c", "reason": "no weather given"}
        return answer(request)

    return reply


def run_id(text: str) -> str:
    match = re.search(r"Run recorded: (\S+)", text)
    assert match, text
    return match.group(1)


def test_evaluate_records_the_run_in_ragas_boot_home(
    run_cli, judges, config_file, dataset_file, ragas_boot_home
):
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    assert result.code == 0, result.err
    recorded = run_id(result.err)
    database = ragas_boot_home / "history.db"
    with sqlite3.connect(database) as connection:
        (kind, dataset, files, scored, cost) = connection.execute(
            "SELECT kind, dataset, config_files, scored, cost_usd FROM ragas_boot_runs "
            "WHERE id = ?",
            (recorded,),
        ).fetchone()
        metrics = connection.execute(
            "SELECT metric, mean, pass_rate FROM ragas_boot_run_metrics WHERE run_id = ? "
            "ORDER BY position",
            (recorded,),
        ).fetchall()
        scores = connection.execute(
            "SELECT sample_id, metric, score, passed FROM ragas_boot_run_scores "
            "WHERE run_id = ? ORDER BY position",
            (recorded,),
        ).fetchall()
    assert (kind, dataset, scored) == ("evaluate", "cli-test", 6)
    assert json.loads(files) == [str(config_file)]
    assert cost is None  # no result carries a cost yet: the column stays empty
    assert [m[0] for m in metrics] == ["agent_goal_accuracy", "tool_call_accuracy"]
    assert metrics[0][1] == pytest.approx(7 / 9) and metrics[0][2] == pytest.approx(2 / 3)
    assert len(scores) == 6
    assert ("flight-not-booked", "agent_goal_accuracy", pytest.approx(1 / 3), 0) in scores

    listing = run_cli("runs", "list", "--config", config_file)
    assert listing.code == 0, listing.err
    assert recorded in listing.out and "cli-test" in listing.out


def test_runs_diff_flags_a_scripted_regression_and_the_gate_exits_1(
    run_cli, openai_server: FakeOpenAIServer, config_file, dataset_file, answer, worse
):
    openai_server.respond(None, answer)
    base = run_id(run_cli("evaluate", dataset_file, *METRICS, "--config", config_file).err)
    openai_server.reset()
    openai_server.respond(None, worse)
    new = run_id(run_cli("evaluate", dataset_file, *METRICS, "--config", config_file).err)

    report = run_cli("runs", "diff", base, new, "--config", config_file)
    assert report.code == 0, report.err  # without the gate, a diff is only a report
    row = next(line for line in report.out.splitlines() if "agent_goal_accuracy" in line)
    assert "0.778" in row and "0.556" in row and "-0.222" in row  # means and their change
    assert "66.7%" in row and "33.3%" in row and "-33.3 pp" in row  # pass rates
    assert "REGRESSED" in row
    tool_row = next(line for line in report.out.splitlines() if "tool_call_accuracy" in line)
    assert "REGRESSED" not in tool_row and "+0.000" in tool_row
    moved = next(line for line in report.out.splitlines() if line.startswith("│ weather"))
    assert "agent_goal_accuracy" in moved and "pass → fail" in moved
    assert "REGRESSION agent_goal_accuracy: pass rate fell from 66.7% to 33.3%" in report.err

    gated = run_cli("runs", "diff", base, new, "--config", config_file, "--fail-on-regression")
    assert gated.code == 1
    back = run_cli("runs", "diff", new, base, "--config", config_file, "--fail-on-regression")
    assert back.code == 0, back.err  # the way back is an improvement
    assert f"NO REGRESSION against {new}" in back.err
    assert "fail → pass" in back.out


def test_evaluate_baseline_latest_prints_the_diff_and_puts_it_in_the_html(
    run_cli, openai_server: FakeOpenAIServer, config_file, dataset_file, tmp_path, answer, worse
):
    openai_server.respond(None, answer)
    base = run_id(run_cli("evaluate", dataset_file, *METRICS, "--config", config_file).err)
    openai_server.reset()
    openai_server.respond(None, worse)
    html = tmp_path / "run.html"
    result = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file,
        "--baseline", "latest", "--fail-on-regression", "--out", html,
    )  # fmt: skip
    assert result.code == 1
    assert f"Run diff: {base} → {run_id(result.err)}" in result.out
    assert "REGRESSION agent_goal_accuracy" in result.err
    page = html.read_text(encoding="utf-8")
    assert f'<section id="baseline"><h2>Against baseline {base}</h2>' in page
    assert "REGRESSED" in page and "pass → fail" in page


def test_baseline_without_regression_exits_0(run_cli, judges, config_file, dataset_file):
    run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    result = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file,
        "--baseline", "latest", "--fail-on-regression",
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "NO REGRESSION against" in result.err


def test_an_unknown_baseline_fails_before_any_judge_call(
    run_cli, judges, config_file, dataset_file
):
    result = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file, "--baseline", "nope"
    )
    assert result.code == 2
    assert "no run 'nope' in the history" in result.err and "none recorded yet" in result.err
    assert judges.requests == []


def test_fail_on_regression_needs_a_baseline(run_cli, judges, config_file, dataset_file):
    result = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file, "--fail-on-regression"
    )
    assert result.code == 2
    assert "--fail-on-regression needs --baseline" in result.err


def test_history_can_be_switched_off(run_cli, judges, config_file, dataset_file, ragas_boot_home):
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file, "--no-history")
    assert result.code == 0 and "Run recorded" not in result.err
    with config_file.open("a", encoding="utf-8") as file:
        file.write("spring.ai.ragas.history.enabled: false\n")
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    assert result.code == 0 and "Run recorded" not in result.err
    assert not (ragas_boot_home / "history.db").exists()


def test_a_history_url_in_yaml_is_used_and_its_password_never_printed(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    database = tmp_path / "team" / "runs.db"
    with config_file.open("a", encoding="utf-8") as file:
        file.write(f"spring.ai.ragas.history.url: sqlite:///{database}\n")
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    assert result.code == 0, result.err
    assert database.is_file()
    listing = run_cli("runs", "list", "--config", config_file)
    assert run_id(result.err) in listing.out


def test_an_unreachable_history_names_it_with_the_password_masked(
    run_cli, judges, config_file, dataset_file, tmp_path
):
    password = "hunter2-very-secret"
    with config_file.open("a", encoding="utf-8") as file:
        file.write(
            f"spring.ai.ragas.history.url: postgresql+pg8000://ci:{password}@127.0.0.1:1/runs\n"
        )
    pytest.importorskip("pg8000")
    listing = run_cli("runs", "list", "--config", config_file)
    assert listing.code == 2
    assert "cannot open the run history at postgresql+pg8000://ci:****@127.0.0.1:1/runs" in (
        listing.err
    )
    result = run_cli("evaluate", dataset_file, *METRICS, "--config", config_file)
    assert result.code == 0  # the run is reported; not recording it is a warning only
    assert "Results (cli-test" in result.out and "warning: run not recorded" in result.err
    shown = run_cli("config", "show", "--config", config_file)
    for text in (listing.text, result.text, shown.text):
        assert password not in text


def test_compare_is_recorded_as_a_compare_run(run_cli, judges, config_file, dataset_file):
    result = run_cli("compare", dataset_file, "--metric", "agent_goal_accuracy", "--config",
                     config_file)  # fmt: skip
    assert result.code == 0, result.err
    recorded = run_id(result.err)
    listing = run_cli("runs", "list", "--config", config_file, "--kind", "compare")
    row = next(line for line in listing.out.splitlines() if recorded in line)
    assert "compare" in row and "cli-test" in row
    assert (
        run_cli("runs", "list", "--config", config_file, "--kind", "evaluate").out.count(recorded)
        == 0
    )


def test_a_priced_run_records_its_cost_and_the_diff_shows_the_change(
    run_cli, judges, config_file, dataset_file, ragas_boot_home, tmp_path
):
    text = config_file.read_text(encoding="utf-8")
    for judge in ("judge-a", "judge-b", "judge-c"):
        text = text.replace(
            f"- {{ id: {judge} }}",
            f"- {{ id: {judge}, price: {{input-per-million: 1.0, output-per-million: 2.0}} }}",
        )
    config_file.write_text(text, encoding="utf-8")
    report = tmp_path / "run.json"
    first = run_cli(
        "evaluate", dataset_file, *METRICS, "--config", config_file, "--out", report, "--no-cache"
    )
    assert first.code == 0, first.err
    base = run_id(first.err)
    document = json.loads(report.read_text(encoding="utf-8"))
    with sqlite3.connect(ragas_boot_home / "history.db") as connection:
        (run_cost,) = connection.execute(
            "SELECT cost_usd FROM ragas_boot_runs WHERE id = ?", (base,)
        ).fetchone()
        metric_costs = dict(
            connection.execute(
                "SELECT metric, cost_usd FROM ragas_boot_run_metrics WHERE run_id = ?", (base,)
            ).fetchall()
        )
    assert run_cost == pytest.approx(document["totals"]["cost"]) and run_cost > 0
    assert metric_costs["agent_goal_accuracy"] == pytest.approx(run_cost)
    assert metric_costs["tool_call_accuracy"] is None  # computed: no judge, no cost

    config_file.write_text(text.replace("output-per-million: 2.0", "output-per-million: 4.0"))
    new = run_id(run_cli("evaluate", dataset_file, *METRICS, "--config", config_file).err)
    diff = run_cli("runs", "diff", base, new, "--config", config_file)
    assert diff.code == 0, diff.err
    row = next(line for line in diff.out.splitlines() if "agent_goal_accuracy" in line)
    assert "+$" in row  # the same calls at a higher output price cost more
