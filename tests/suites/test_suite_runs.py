"""A suite run is a run: the JSON report evaluate writes, every --out format, the history,
--baseline / --fail-on-regression, and evaluate / compare given a suite file."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from suite_helpers import DATA

from ragas_boot.cli import main
from ragas_boot.runs import RunResult

EXAMPLE = Path(__file__).parents[2] / "examples" / "04_tool_suite"
EXIT_OK, EXIT_GATE_FAILED, EXIT_BAD_INPUT = 0, 1, 2

LAZY_AGENT = """
def run(messages):
    return "I don't know."
"""


@pytest.fixture
def suite_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The weather suite and its modules in a folder of their own (the working directory)."""
    for name in ("weather_suite.yaml", "passing_agent.py", "weather_tools.py"):
        shutil.copy(DATA / name, tmp_path / name)
    (tmp_path / "lazy_agent.py").write_text(LAZY_AGENT, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_example_suite_writes_the_json_report_evaluate_writes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite_json, dataset_json = tmp_path / "run.json", tmp_path / "dataset.json"
    dataset = tmp_path / "dataset.yaml"
    dataset.write_text(
        json.dumps(
            {
                "samples": [
                    {
                        "id": "s1",
                        "user_input_messages": [{"type": "human", "content": "hi"}],
                        "tool_calls": [],
                        "reference_tool_calls": [],
                    }
                ]
            }
        ),
        encoding="utf-8",
    )

    suite_code = main(
        ["suite", "run", str(EXAMPLE / "suite.yaml"), "--out", str(suite_json), "--no-history"]
    )
    evaluate_code = main(
        [
            "evaluate",
            str(dataset),
            "--metric",
            "tool_call_accuracy",
            "--out",
            str(dataset_json),
            "--no-history",
        ]
    )

    assert (suite_code, evaluate_code) == (EXIT_GATE_FAILED, EXIT_OK)
    suite_report = json.loads(suite_json.read_text(encoding="utf-8"))
    dataset_report = json.loads(dataset_json.read_text(encoding="utf-8"))
    assert list(suite_report) == list(dataset_report)
    fields = {key: value for key, value in suite_report.items() if key in RunResult.model_fields}
    assert RunResult.model_validate(fields).passed_samples == 9  # it reads back as a run
    assert suite_report["dataset"] == {
        "name": "Weather Agent Tests",
        "path": str(EXAMPLE / "suite.yaml"),
        "size": 10,
    }
    assert [m["name"] for m in suite_report["metrics"]] == [
        "tool_call_accuracy",
        "case_expectations",
    ]
    assert suite_report["analysis"]["failed_sample_ids"] == ["T003_no_tool_needed"]
    assert dataset_report["analysis"]["failed_sample_ids"] == []


def test_every_out_format_takes_a_suite_run(
    suite_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pyarrow_parquet = pytest.importorskip("pyarrow.parquet")
    junitparser = pytest.importorskip("junitparser")
    outs = {kind: suite_dir / f"run.{kind}" for kind in ("csv", "xml", "md", "parquet", "html")}

    code = main(
        [
            "suite",
            "run",
            "weather_suite.yaml",
            "--agent",
            "lazy_agent:run",
            *[arg for path in outs.values() for arg in ("--out", str(path))],
            "--no-history",
        ]
    )

    assert code == EXIT_GATE_FAILED
    with outs["csv"].open(encoding="utf-8") as table_file:
        rows = list(csv.DictReader(table_file))
    assert len(rows) == 5 * 2  # one row per case × metric
    assert {row["metric"] for row in rows} == {"tool_call_accuracy", "case_expectations"}
    suites = {s.name: s for s in junitparser.JUnitXml.fromfile(str(outs["xml"]))}
    assert set(suites) == {"tool_call_accuracy", "case_expectations"}
    assert suites["tool_call_accuracy"].failures == 4  # T003 (no tool wanted) passes
    summary = outs["md"].read_text(encoding="utf-8")
    assert "### Failure analysis" in summary
    assert "| Tool not called |" in summary
    # the lazy agent answers no case: T003 (no tool wanted) lacks its keywords
    assert "FAILED 0/5 samples passed every metric (0.0%), under the 90.0% required" in summary
    table = pyarrow_parquet.read_table(str(outs["parquet"]))
    assert table.num_rows == 10
    page = outs["html"].read_text(encoding="utf-8")
    assert "<title>ragas-boot tool suite: Weather Agent Tests</title>" in page
    assert 'id="analysis"' in page


def test_a_suite_run_gates_on_a_regression_against_its_baseline(
    suite_dir: Path, ragas_boot_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("sqlalchemy", reason="the run history needs the [history] extra")

    assert main(["suite", "run", "weather_suite.yaml"]) == EXIT_OK
    regressed = main(
        [
            "suite",
            "run",
            "weather_suite.yaml",
            "--agent",
            "lazy_agent:run",
            "--min-pass-rate",
            "0",
            "--baseline",
            "latest",
            "--fail-on-regression",
        ]
    )

    captured = capsys.readouterr()
    assert regressed == EXIT_GATE_FAILED  # the pass rate gate passes, the regression does not
    assert "REGRESSION tool_call_accuracy: " in captured.err
    assert "pass → fail" in captured.out  # the cases that crossed the threshold
    assert main(["runs", "list", "--kind", "suite"]) == EXIT_OK
    listing = capsys.readouterr().out
    assert listing.count("│ suite") == 2
    assert main(["runs", "diff", "previous", "latest", "--fail-on-regression"]) == EXIT_GATE_FAILED


def test_evaluate_and_compare_run_a_suite_file_s_agent_first(
    suite_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    evaluated = main(
        [
            "evaluate",
            "weather_suite.yaml",
            "--metric",
            "tool_call_accuracy",
            "--agent",
            "lazy_agent:run",
            "--out",
            "evaluate.json",
            "--no-history",
        ]
    )

    captured = capsys.readouterr()
    assert evaluated == EXIT_GATE_FAILED  # the suite's min-pass-rate (0.9) is the gate
    assert "FAILED 1/5 samples passed every metric" in captured.err  # T003: no tool wanted
    report = json.loads((suite_dir / "evaluate.json").read_text(encoding="utf-8"))
    assert [m["name"] for m in report["metrics"]] == ["tool_call_accuracy"]
    # the suite's scoring is the metric's config there too
    assert report["metrics"][0]["config"]["mode"] == "FLEXIBLE"
    assert report["samples"][0]["sample"]["agent_run"]["agent"] == "lazy_agent:run"

    compared = main(
        [
            "compare",
            "weather_suite.yaml",
            "--metric",
            "case_expectations",
            "--min-passed",
            "1.0",
            "--no-history",
        ]
    )
    assert compared == EXIT_OK  # the suite's own agent passes every case
    assert "case_expectations" in capsys.readouterr().out


def test_a_suite_file_is_found_by_its_cases_or_named_with_from(
    suite_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    odd = suite_dir / "cases.txt"
    shutil.copy(suite_dir / "weather_suite.yaml", odd)

    # a .txt is no dataset suffix: --from suite reads it as a suite
    code = main(["evaluate", str(odd), "--from", "suite", "--metric", "case_expectations"])

    assert code == EXIT_OK
    assert main(["evaluate", "weather_suite.yaml", "--metric", "x", "--sample", "2"]) == (
        EXIT_BAD_INPUT
    )
    assert main(
        ["evaluate", "weather_suite.yaml", "--metric", "case_expectations", "--sample", "2"]
    ) == (EXIT_BAD_INPUT)
    assert "a suite runs every case" in capsys.readouterr().err
    assert main(["suite", "run", str(DATA.parent / "conftest.py")]) == EXIT_BAD_INPUT


def test_the_agent_phase_shows_its_progress_on_a_terminal(
    suite_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich takes stderr for a terminal

    assert main(["suite", "run", "weather_suite.yaml", "--no-history"]) == EXIT_OK

    err = capsys.readouterr().err
    assert "Running the agent" in err
    assert "5/5" in err and "0 agent errors" in err
    assert main(["suite", "run", "weather_suite.yaml", "--no-history", "--no-progress"]) == 0
    assert "Running the agent" not in capsys.readouterr().err
