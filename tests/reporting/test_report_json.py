"""The JSON report: a stable, documented layout with a schema version."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from ragas_boot import MetricResult
from ragas_boot.chat.judge import TokenUsage
from ragas_boot.execution.results import Exclusion, JudgeCall, StepRecord
from ragas_boot.metrics.results import Quorum, RepeatSummary
from ragas_boot.reporting import REPORT_SCHEMA_VERSION, render_json, report_json_schema
from ragas_boot.runs import analysis, results
from ragas_boot.runs.simulation.summary import ScenarioSummary, SimulationSummary

DOC = Path(__file__).resolve().parents[2] / "docs" / "report-json.md"

TOP_LEVEL = [
    "schema_version",
    "generator",
    "dataset",
    "metrics",
    "judges",
    "samples",
    "metric_summaries",
    "judge_summaries",
    "agreement",
    "totals",
    "concurrency",
    "started_at",
    "duration_s",
    "stopped",
    "max_cost",
    "analysis",
    "simulation",
]

DOCUMENTED: list[type[BaseModel]] = [
    results.DatasetInfo,
    results.MetricInfo,
    results.JudgeInfo,
    results.SampleRun,
    results.Evaluation,
    results.EvaluationError,
    MetricResult,
    Quorum,
    RepeatSummary,
    StepRecord,
    JudgeCall,
    Exclusion,
    TokenUsage,
    results.MetricSummary,
    results.JudgeSummary,
    results.AgreementSummary,
    results.PairAgreement,
    results.RunTotals,
    analysis.FailureAnalysis,
    analysis.FailedSample,
    analysis.Finding,
    analysis.FailureGroup,
    SimulationSummary,
    ScenarioSummary,
]


def test_the_top_level_keys_and_version(run):
    document = json.loads(render_json(run))
    assert list(document) == TOP_LEVEL
    assert document["schema_version"] == REPORT_SCHEMA_VERSION == 1
    assert document["generator"]["name"] == "ragas-boot"
    assert document["dataset"] == {"name": "report-test", "path": None, "size": 9}


def test_the_nested_keys_are_stable(run):
    document = json.loads(render_json(run))
    evaluation = document["samples"][0]["evaluations"][0]
    assert list(document["samples"][0]) == ["sample_id", "sample", "evaluations"]
    assert list(evaluation) == [
        "metric", "status", "score", "passed", "result", "error", "duration_s", "no_quorum",
    ]  # fmt: skip
    result = evaluation["result"]
    for key in ("score", "model_scores", "exclusions", "steps", "explanation", "usage"):
        assert key in result
    call = result["steps"][0]["calls"][0]
    for key in ("judge_id", "prompt", "ok", "value", "raw_text", "latency_s", "usage"):
        assert key in call
    assert list(document["metric_summaries"][0]) == list(results.MetricSummary.model_fields)
    assert list(document["judge_summaries"][0]) == list(results.JudgeSummary.model_fields)
    assert list(document["agreement"][0]) == list(results.AgreementSummary.model_fields)
    assert list(document["agreement"][0]["pairs"][0]) == list(results.PairAgreement.model_fields)
    assert list(document["totals"]) == list(results.RunTotals.model_fields)


def test_failures_and_exclusions_are_in_the_report(run):
    document = json.loads(render_json(run))
    hostile = document["samples"][-1]
    assert hostile["sample_id"] == "hostile<script>"
    statuses = {e["metric"]: e["status"] for e in hostile["evaluations"]}
    assert statuses == {
        "agent_goal_accuracy": "failed",
        "topic_adherence": "failed",
        "tool_call_accuracy": "scored",
    }
    assert hostile["evaluations"][0]["error"]["kind"] == "all_judges_failed"
    assert hostile["evaluations"][1]["error"]["field"] == "reference_topics"
    exclusions = document["samples"][0]["evaluations"][0]["result"]["exclusions"]
    assert [e["judge_id"] for e in exclusions] == ["gemini-2.5-flash"]


def test_the_report_reads_back_as_a_run_result(run):
    document = json.loads(render_json(run))
    del document["schema_version"], document["generator"]
    again = results.RunResult.model_validate(document)
    assert again.metric_summaries == run.metric_summaries
    assert [s.sample_id for s in again.samples] == [s.sample_id for s in run.samples]


def test_the_json_schema_lists_the_same_top_level_fields(run):
    schema = report_json_schema()
    # Every field a run report always has, then the one only compare on labels adds.
    assert schema["properties"]["analysis"]["anyOf"][0] == {"$ref": "#/$defs/FailureAnalysis"}
    assert {"FailureAnalysis", "FailedSample", "Finding", "FailureGroup"} <= set(schema["$defs"])
    assert schema["properties"]["simulation"]["anyOf"][0] == {"$ref": "#/$defs/SimulationSummary"}
    assert {"SimulationSummary", "ScenarioSummary"} <= set(schema["$defs"])
    assert list(schema["properties"]) == [*TOP_LEVEL, "calibration"]
    assert "calibration" not in schema["required"]
    assert set(schema["required"]) >= {"schema_version", "samples", "metric_summaries"}
    assert schema["properties"]["schema_version"]["const"] == REPORT_SCHEMA_VERSION


def test_the_documentation_covers_every_field():
    text = DOC.read_text(encoding="utf-8")
    assert f"`schema_version` {REPORT_SCHEMA_VERSION}" in text
    documented = set(re.findall(r"^\| `([a-z_0-9]+)` \|", text, re.M))
    for key in TOP_LEVEL:
        assert key in documented, key
    for model in DOCUMENTED:
        missing = set(model.model_fields) - documented
        assert not missing, f"{model.__name__}: {sorted(missing)} not in docs/report-json.md"


def _whole_document(run):
    """The report as one dump of the run: what the pieces must add up to."""
    from ragas_boot.reporting.json_report import analysis_document, generator

    found = analysis.failure_analysis(run)
    return {
        "schema_version": REPORT_SCHEMA_VERSION,
        "generator": generator(),
        **run.model_dump(mode="json"),
        "analysis": analysis_document(found) if found is not None else None,
        "simulation": None,  # no scenario plays (tests/suites/test_scenario_reports.py)
    }


def test_the_report_document_is_the_run_dumped_whole_in_schema_order(run):
    from ragas_boot.reporting.json_report import report_document

    document = report_document(run)
    assert document == _whole_document(run)
    assert list(document) == list(_whole_document(run))


@pytest.mark.parametrize("indent", [2, None, 4])
def test_the_streamed_report_is_the_same_text_piece_by_piece(run, indent):
    from ragas_boot.reporting.json_report import json_chunks

    pieces = list(json_chunks(run, indent=indent))
    whole = json.dumps(_whole_document(run), indent=indent, ensure_ascii=False) + "\n"
    assert "".join(pieces) == whole
    assert render_json(run, indent=indent) == whole
    # One piece per sample (plus the head, the brackets and the tail): no piece holds two.
    assert len(pieces) == len(run.samples) + 4
    for sample, piece in zip(run.samples, pieces[2:-2], strict=True):
        assert json.loads(piece.lstrip(",").strip())["sample_id"] == sample.sample_id


def test_a_run_without_samples_streams_an_empty_list(run):
    from ragas_boot.reporting.json_report import json_chunks

    empty = run.model_copy(update={"samples": []})
    whole = json.dumps(_whole_document(empty), indent=2, ensure_ascii=False) + "\n"
    assert "".join(json_chunks(empty)) == whole
    assert json.loads("".join(json_chunks(empty)))["samples"] == []
