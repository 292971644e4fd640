"""Data in and out from the command line (issue 26): ``--from``, ``--map``, ``--sample`` /
``--seed``, and ``--out`` as CSV, Parquet, JUnit XML and a Markdown summary (appended to
``$GITHUB_STEP_SUMMARY``), each file parsed back by the library a CI tool would use."""

from __future__ import annotations

import csv
import importlib.util
import textwrap
from pathlib import Path

import pytest

from ragas_boot.datasets import load_otlp
from ragas_boot.testing import ChatRequest, asks_for

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "10_production_sampling"

CRITERION = """
spring.ai.ragas.metrics:
  logging.enabled: false
  aspect-critic.criteria:
    correct-capital: { definition: The response names the right capital city. }
"""

#: ragas's spelling of a table, with columns that need a map.
TABLE = (
    "id,question,answer,team\n"
    "france,Capital of France?,Paris.,geo\n"
    "japan,Capital of Japan?,Kyoto.,geo\n"
)


def verdict(request: ChatRequest) -> dict[str, object]:
    """judge-a knows Kyoto is wrong; judge-b does not."""
    wrong = "Kyoto" in request.prompt and request.model == "judge-a"
    return {"reasoning": "Kyoto is not the capital." if wrong else "Right.", "verdict": not wrong}


@pytest.fixture
def capital_config(config_only, openai_server):
    """Two judges on the test server, judging the capitals, and one AspectCritic criterion."""
    openai_server.when(asks_for("verdict"), verdict)
    return config_only


@pytest.fixture
def config_only(tmp_path, openai_server, root_conftest, secret, monkeypatch):
    """The configuration of :func:`capital_config`, the judges not scripted."""
    monkeypatch.setenv("JUDGE_KEY", secret)
    path = tmp_path / "application.yaml"
    path.write_text(
        root_conftest.judges_yaml(openai_server.base_url, {"p": ["judge-a", "judge-b"]}, CRITERION),
        encoding="utf-8",
    )
    return path


@pytest.fixture
def table(tmp_path):
    path = tmp_path / "capitals.csv"
    path.write_text(TABLE, encoding="utf-8")
    return path


MAP = ("--map", "question=user_input", "--map", "answer=response", "--map", "team=metadata.team")


def test_a_csv_table_is_scored_and_every_out_format_reads_back(
    run_cli, capital_config, table, tmp_path, monkeypatch, openai_server
):
    pyarrow_parquet = pytest.importorskip("pyarrow.parquet")
    junitparser = pytest.importorskip("junitparser")
    step_summary = tmp_path / "step_summary.md"
    step_summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(step_summary))
    outs = {kind: tmp_path / f"results.{kind}" for kind in ("csv", "parquet", "xml", "md")}
    result = run_cli(
        "evaluate", table, *MAP,
        "--metric", "aspect_critic:correct-capital",
        "--config", capital_config, "--no-history", "--fail-under", "0.9",
        *(arg for path in outs.values() for arg in ("--out", path)),
    )  # fmt: skip
    assert result.code == 1, result.err  # mean 0.75 is under --fail-under 0.9
    assert openai_server.count() == 4  # 2 samples × 2 judges

    with outs["csv"].open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    assert [(row["sample_id"], row["score"]) for row in rows] == [
        ("france", "1.0"),
        ("japan", "0.5"),
    ]
    assert [row["score:judge-a"] for row in rows] == ["1.0", "0.0"]
    assert rows[1]["reason:judge-a"] == "Kyoto is not the capital."

    parquet = pyarrow_parquet.read_table(outs["parquet"]).to_pylist()
    assert [(row["sample_id"], row["score"]) for row in parquet] == [
        ("france", 1.0),
        ("japan", 0.5),
    ]
    assert [row["score:judge-b"] for row in parquet] == [1.0, 1.0]
    assert list(parquet[0]) == list(rows[0])  # the same columns as the CSV

    suites = list(junitparser.JUnitXml.fromfile(str(outs["xml"])))
    assert [suite.name for suite in suites] == ["aspect_critic:correct-capital"]
    assert [case.name for case in suites[0]] == ["france", "japan"]
    assert suites[0].tests == 2 and suites[0].failures == 0  # 0.5 meets the threshold 0.5

    summary = outs["md"].read_text(encoding="utf-8")
    # The CLI's own gate (--fail-under 0.9), not the metric thresholds' verdict.
    assert "❌" in summary
    assert "FAILED aspect_critic:correct-capital: mean 0.750 is under --fail-under 0.9" in summary
    assert step_summary.read_text(encoding="utf-8") == "earlier step\n" + summary
    assert f"Summary appended to $GITHUB_STEP_SUMMARY ({step_summary})" in result.err
    for path in outs.values():
        assert f"Report written: {path}" in result.err


def test_without_github_step_summary_the_markdown_is_only_written(
    run_cli, capital_config, table, tmp_path, monkeypatch
):
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    out = tmp_path / "summary.md"
    result = run_cli(
        "evaluate", table, *MAP, "--metric", "aspect_critic:correct-capital",
        "--config", capital_config, "--no-history", "--out", out,
    )  # fmt: skip
    assert result.code == 0, result.err
    assert "✅" in out.read_text(encoding="utf-8")
    assert "GITHUB_STEP_SUMMARY" not in result.err


def test_sample_and_seed_pick_the_same_rows(run_cli, capital_config, table, tmp_path):
    picked = []
    for name in ("first", "second"):
        out = tmp_path / f"{name}.csv"
        result = run_cli(
            "evaluate", table, *MAP, "--metric", "aspect_critic:correct-capital",
            "--config", capital_config, "--no-history", "--sample", "1", "--seed", "7",
            "--out", out,
        )  # fmt: skip
        assert result.code in (0, 1), result.err
        with out.open(encoding="utf-8", newline="") as file:
            picked.append([row["sample_id"] for row in csv.DictReader(file)])
    assert len(picked[0]) == 1 and picked[0] == picked[1]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("--map", "question"), "--map: expected COLUMN=FIELD"),
        (("--map", "q=user_input", "--map", "q=response"), "--map: column 'q' is mapped twice"),
        (("--seed", "3"), "--seed picks the samples of --sample N"),
        (("--from", "otlp", "--map", "a=user_input"), "--map applies to tables"),
        (("--sample", "0"), "must be at least 1"),
        (("--from", "xlsx"), "invalid choice: 'xlsx'"),
    ],
)
def test_bad_source_arguments_are_usage_errors(
    run_cli, capital_config, table, openai_server, args, expected
):
    result = run_cli(
        "evaluate", table, "--metric", "aspect_critic:correct-capital",
        "--config", capital_config, "--no-history", *args,
    )  # fmt: skip
    assert result.code == 2
    assert expected in result.err
    assert openai_server.count() == 0


def test_an_unmapped_column_names_it(run_cli, capital_config, table):
    result = run_cli(
        "evaluate", table, "--metric", "aspect_critic:correct-capital",
        "--config", capital_config, "--no-history",
    )  # fmt: skip
    assert result.code == 2
    assert "question" in result.err and "column" in result.err


def test_calibrate_refuses_the_table_formats(run_cli, capital_config, table, tmp_path):
    result = run_cli("calibrate", table, "--config", capital_config, "--out", tmp_path / "x.csv")
    assert result.code == 2
    assert "use a .html, .htm or .json file name" in result.err


def _example_judges():
    """Example 10's scripted judges (``score.py``'s ``script_judges``)."""
    spec = importlib.util.spec_from_file_location("example_10_score", EXAMPLE / "score.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.script_judges


def test_example_10_from_the_command_line_as_its_readme_shows(
    run_cli, openai_server, tmp_path, monkeypatch
):
    """Example 10's OTLP export (real exporter output), scored by the README's command."""
    junitparser = pytest.importorskip("junitparser")
    pytest.importorskip("opentelemetry.proto")
    _example_judges()(openai_server)
    monkeypatch.setenv("JUDGE_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-offline-test")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    traces = EXAMPLE / "traces.jsonl"
    outs = [tmp_path / name for name in ("results.csv", "report.xml", "summary.md")]
    result = run_cli(
        "evaluate", traces, "--from", "otlp", "--sample", "200", "--seed", "1",
        "--config", EXAMPLE / "application.yaml",
        "--metric", "aspect_critic:polite", "--metric", "aspect_critic:next-step",
        "--metric", "agent_goal_accuracy", "--fail-under", "0.8", "--no-history",
        *(arg for path in outs for arg in ("--out", path)),
    )  # fmt: skip
    assert result.code == 1, result.err
    assert f"{traces}: 4 samples from 4 traces\n" in result.err
    for line in (
        "FAILED aspect_critic:polite: mean 0.750 is under --fail-under 0.8",
        "FAILED aspect_critic:next-step: mean 0.625 is under --fail-under 0.8",
        "FAILED agent_goal_accuracy: mean 0.500 is under --fail-under 0.8",
    ):
        assert line in result.err
        assert line in outs[2].read_text(encoding="utf-8")
    with outs[0].open(encoding="utf-8", newline="") as file:
        rows = list(csv.DictReader(file))
    assert len(rows) == 4 * 3
    assert {row["score:gpt-4o-mini"] for row in rows} <= {"0.0", "1.0"}
    suites = {suite.name: suite for suite in junitparser.JUnitXml.fromfile(str(outs[1]))}
    assert set(suites) == {"aspect_critic:polite", "aspect_critic:next-step", "agent_goal_accuracy"}
    assert suites["agent_goal_accuracy"].failures == 2  # the brush-off and the stock check


def test_sampled_traces_are_the_ones_load_otlp_picks(run_cli, openai_server, tmp_path, monkeypatch):
    pytest.importorskip("opentelemetry.proto")
    _example_judges()(openai_server)
    monkeypatch.setenv("JUDGE_BASE_URL", openai_server.base_url)
    monkeypatch.setenv("OPENROUTER_API_KEY", "sk-offline-test")
    traces, out = EXAMPLE / "traces.jsonl", tmp_path / "results.csv"
    result = run_cli(
        "evaluate", traces, "--from", "otlp", "--sample", "3", "--seed", "1",
        "--config", EXAMPLE / "application.yaml", "--metric", "agent_goal_accuracy",
        "--no-history", "--out", out,
    )  # fmt: skip
    assert result.code == 0, result.err
    imported = load_otlp(traces, sample=3, seed=1)
    assert f"{traces}: {imported.summary()}" in result.err
    with out.open(encoding="utf-8", newline="") as file:
        picked = [row["sample_id"] for row in csv.DictReader(file)]
    assert picked == [sample.id for sample in imported.dataset.samples]


def test_a_trace_file_with_other_spans_says_what_it_skipped(run_cli, tmp_path):
    """An export of nothing but HTTP spans: the import says it skipped them, and the run
    has no sample to score."""
    line = textwrap.dedent(
        """\
        {"resourceSpans": [{"scopeSpans": [{"spans": [{"traceId":
        "5b8efff798038103d269b633813fc60c", "spanId": "eee19b7ec3c1b174", "name": "GET /",
        "startTimeUnixNano": "1", "endTimeUnixNano": "2", "attributes": [{"key":
        "http.request.method", "value": {"stringValue": "GET"}}]}]}]}]}"""
    ).replace("\n", " ")
    path = tmp_path / "traces.jsonl"
    path.write_text(line + "\n", encoding="utf-8")
    pytest.importorskip("opentelemetry.proto")
    summary = load_otlp(path).summary()
    assert "skipped" in summary
    result = run_cli(
        "evaluate", path, "--from", "otlp", "--metric", "tool_call_accuracy", "--no-history"
    )
    assert summary in result.err


def test_no_table_or_summary_shows_the_key_a_judge_quotes(
    run_cli, config_only, table, tmp_path, openai_server, secret
):
    """A judge that quotes the API key in its reasoning: every --out format masks it,
    Parquet's text cells included (the file is binary, so it is checked cell by cell)."""
    pyarrow_parquet = pytest.importorskip("pyarrow.parquet")
    openai_server.when(
        asks_for("verdict"), {"reasoning": f"My key is {secret}, and Paris is right.", "verdict": 1}
    )
    outs = [tmp_path / f"results.{kind}" for kind in ("csv", "parquet", "xml", "md")]
    result = run_cli(
        "evaluate", table, *MAP, "--metric", "aspect_critic:correct-capital",
        "--config", config_only, "--no-history",
        *(arg for path in outs for arg in ("--out", path)),
    )  # fmt: skip
    assert result.code == 0, result.err
    cells = [
        str(value)
        for row in pyarrow_parquet.read_table(outs[1]).to_pylist()
        for value in row.values()
    ]
    assert any("My key is ****" in cell for cell in cells), cells
    assert secret.encode() not in outs[1].read_bytes()
    for path in (outs[0], outs[2], outs[3]):
        assert secret not in path.read_text(encoding="utf-8")
    assert "My key is ****" in outs[0].read_text(encoding="utf-8")
    assert all(secret not in cell for cell in cells)


def test_a_step_summary_that_cannot_be_appended_is_exit_2(
    run_cli, capital_config, table, tmp_path, monkeypatch
):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "no-such-dir" / "summary.md"))
    out = tmp_path / "summary.md"
    result = run_cli(
        "evaluate", table, *MAP, "--metric", "aspect_critic:correct-capital",
        "--config", capital_config, "--no-history", "--out", out,
    )  # fmt: skip
    assert result.code == 2
    assert out.is_file()  # the report itself is written
    assert "cannot append the summary to $GITHUB_STEP_SUMMARY" in result.err
