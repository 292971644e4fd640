"""RunResult.to_pandas, the CSV/Parquet tables, JUnit XML and the Markdown summary of one run."""

from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest

from ragas_boot.reporting.junit import render_junit
from ragas_boot.reporting.markdown import append_step_summary, render_markdown
from ragas_boot.reporting.tables import render_csv, write_table
from ragas_boot.runs import RunResult
from ragas_boot.runs.rows import LONG_COLUMNS

pd = pytest.importorskip("pandas", reason="the [tables] extra")
junitparser = pytest.importorskip("junitparser", reason="the dev extra")

JUDGES = ["gpt-4o-mini", "gpt-4.1-mini", "claude-3.5-haiku", "gemini-2.0-flash", "gemini-2.5-flash"]


def test_to_pandas_has_a_row_per_sample_and_metric_with_each_judge_a_column(run: RunResult):
    frame = run.to_pandas()
    assert len(frame) == len(run.samples) * len(run.metrics) == 27
    assert list(frame.columns) == [
        *LONG_COLUMNS,
        *(f"score:{judge}" for judge in JUDGES),
        *(f"reason:{judge}" for judge in JUDGES),
    ]
    pairs = set(zip(frame["sample_id"], frame["metric"], strict=True))
    assert pairs == {
        (sample.sample_id, evaluation.metric)
        for sample in run.samples
        for evaluation in sample.evaluations
    }
    row = frame[
        (frame.sample_id == "flight-booking-wrong-date") & (frame.metric == "agent_goal_accuracy")
    ]
    (values,) = row.to_dict("records")
    assert (values["status"], values["score"], values["threshold"], values["passed"]) == (
        "scored",
        0.25,
        0.5,
        False,
    )
    assert [values[f"score:{judge}"] for judge in JUDGES[:4]] == [0.0, 0.0, 0.0, 1.0]
    assert values["score:gemini-2.5-flash"] is None  # down for the whole run: excluded
    assert values["excluded"] == "gemini-2.5-flash"
    assert values["reason:gemini-2.0-flash"] == "The conversation shows the expected outcome."
    assert values["input_tokens"] > 0 and values["cost"] > 0 and values["latency_s"] > 0
    failed = frame[frame.status == "failed"]
    assert set(failed["error_kind"]) == {"all_judges_failed", "sample_validation"}
    assert failed["score"].isna().all()


def test_the_wide_frame_has_a_score_column_per_metric(run: RunResult):
    wide = run.to_pandas(wide=True)
    assert list(wide["sample_id"]) == [sample.sample_id for sample in run.samples]
    for info in run.metrics:
        assert info.name in wide.columns
        assert f"{info.name}:passed" in wide.columns
    hostile = wide[wide.sample_id == "hostile<script>"].to_dict("records")[0]
    assert hostile["tool_call_accuracy"] == 1.0
    assert hostile["agent_goal_accuracy:status"] == "failed"


def test_a_spooled_run_gives_the_same_rows(run: RunResult, spooled_run: RunResult):
    timing = ["latency_s"]
    spooled = spooled_run.to_pandas().drop(columns=timing)
    plain = run.to_pandas().drop(columns=timing)
    assert spooled.shape == plain.shape
    assert list(spooled["score"].fillna(-1)) == list(plain["score"].fillna(-1))
    assert list(spooled["reason:gpt-4o-mini"].fillna("")) == list(
        plain["reason:gpt-4o-mini"].fillna("")
    )


def test_csv_and_parquet_hold_the_frame(run: RunResult, tmp_path: Path):
    write_table(run, tmp_path / "results.csv")
    write_table(run, tmp_path / "results.parquet")
    write_table(run, tmp_path / "wide.parquet", wide=True)
    rows = list(csv.DictReader(io.StringIO(render_csv(run))))
    assert len(rows) == 27
    assert rows[0]["sample_id"] == run.samples[0].sample_id
    from_csv = pd.read_csv(tmp_path / "results.csv")
    from_parquet = pd.read_parquet(tmp_path / "results.parquet")
    frame = run.to_pandas()
    assert list(from_parquet.columns) == list(frame.columns) == list(from_csv.columns)
    assert list(from_parquet["score"].fillna(-1)) == list(frame["score"].fillna(-1))
    assert list(from_csv["score"].fillna(-1)) == list(frame["score"].fillna(-1))
    assert list(pd.read_parquet(tmp_path / "wide.parquet").columns) == list(
        run.to_pandas(wide=True).columns
    )
    with pytest.raises(ValueError, match=r"\.csv or \.parquet"):
        write_table(run, tmp_path / "results.xlsx")


def test_junit_xml_reads_as_ci_tools_read_it(run: RunResult, tmp_path: Path):
    path = tmp_path / "report.xml"
    path.write_text(render_junit(run), encoding="utf-8")
    report = junitparser.JUnitXml.fromfile(str(path))
    suites = {suite.name: suite for suite in report}
    assert list(suites) == [info.name for info in run.metrics]
    assert (report.tests, report.failures, report.errors, report.skipped) == (27, 4, 2, 0)
    goal = suites["agent_goal_accuracy"]
    assert goal.tests == len(run.samples)
    cases = {case.name: case for case in goal}
    wrong_date = cases["flight-booking-wrong-date"]
    (failure,) = wrong_date.result
    assert isinstance(failure, junitparser.Failure)
    assert failure.message.startswith("score 0.250 < threshold 0.5; judges: ")
    for judge, score in zip(JUDGES[:4], ("0.000", "0.000", "0.000", "1.000"), strict=True):
        assert f"{judge} {score} (" in failure.message
    assert "The expected outcome is not what happened in the conversation." in failure.message
    assert "excluded: gemini-2.5-flash" in failure.message
    assert "gemini-2.0-flash: 1.000 - The conversation shows the expected outcome." in (
        failure.text or ""
    )
    (error,) = cases["hostile<script>"].result
    assert isinstance(error, junitparser.Error)
    assert error.type == "all_judges_failed"
    assert wrong_date.classname == "agent_goal_accuracy"
    assert cases["weather-tokyo"].is_passed
    adherence = {case.name: case for case in suites["topic_adherence"]}
    (missing,) = adherence["hostile<script>"].result
    assert isinstance(missing, junitparser.Error) and missing.type == "sample_validation"


def test_junit_property_names_are_unique_so_every_reader_takes_the_file(
    run: RunResult, tmp_path: Path
):
    xunitparser = pytest.importorskip("xunitparser", reason="the dev extra")
    path = tmp_path / "report.xml"
    path.write_text(render_junit(run), encoding="utf-8")
    with path.open(encoding="utf-8") as file:
        suite, result = xunitparser.parse(file)  # refuses a property name given twice
    assert result.testsRun == 27
    assert suite.properties["agent_goal_accuracy.threshold"] == "0.5"
    report = junitparser.JUnitXml.fromfile(str(path))
    names = []
    for junit_suite in report:
        properties = {prop.name: prop.value for prop in junit_suite.properties()}
        assert properties[f"{junit_suite.name}.metric"]
        names += properties
    assert len(names) == len(set(names)) == 4 * len(run.metrics)


def test_undefined_scores_are_skipped_and_control_characters_are_kept_out(run: RunResult):
    sample = run.samples[0]
    evaluation = sample.evaluations[0]
    undefined = evaluation.model_copy(update={"status": "undefined", "score": None, "passed": None})
    renamed = sample.model_copy(
        update={
            "sample_id": "bell\x07and\x00nul",
            "evaluations": [undefined, *sample.evaluations[1:]],
        }
    )
    changed = run.model_copy(update={"samples": [renamed, *run.samples[1:]]})
    document = render_junit(changed)
    report = junitparser.JUnitXml.fromstring(document.encode())
    assert report.skipped == 1
    names = [case.name for suite in report for case in suite]
    assert "bell\\x07and\\x00nul" in names  # shown as escapes, as in a terminal


def test_the_markdown_summary_shows_metrics_judges_and_what_did_not_pass(run: RunResult):
    text = render_markdown(run, max_failures=3)
    assert text.startswith("## ✅ ragas-boot: report-test\n")
    assert "| agent_goal_accuracy | 0.719 | 75.0% | 0.5 | 8 | 0 | 1 |" in text
    (down,) = [line for line in text.splitlines() if line.startswith("| gemini-2.5-flash |")]
    calls, failed = down.split(" | ")[1:3]
    assert calls == failed != "0"  # every call of the judge that is down failed
    assert "### Not passing (6)" in text
    assert "… and 3 more." in text
    gated = render_markdown(run, gate=run.gate(0.9))
    assert gated.startswith("## ❌ ragas-boot")
    assert "- FAILED agent_goal_accuracy: mean 0.719 is under --fail-under 0.9" in gated
    assert "| hostile\\<script\\> |" in gated  # dataset text is escaped: GitHub renders HTML
    assert "<script>" not in gated


def test_the_step_summary_is_appended_only_on_github(run: RunResult, tmp_path: Path):
    summary = render_markdown(run)
    assert append_step_summary(summary, environ={}) is None
    target = tmp_path / "step_summary.md"
    target.write_text("earlier step\n", encoding="utf-8")
    environ = {"GITHUB_STEP_SUMMARY": str(target)}
    assert append_step_summary(summary, environ=environ) == target
    assert append_step_summary(summary, environ=environ) == target
    assert target.read_text(encoding="utf-8") == "earlier step\n" + summary + summary
