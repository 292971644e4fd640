"""JSON report: the whole :class:`~ragas_boot.runs.RunResult`, with a schema version.

The document is ``{"schema_version": 1, "generator": {...}, <the RunResult fields>}``; its
fields are described in ``docs/report-json.md`` and by :func:`report_json_schema`
(``ragas-boot schema report``). Fields are only ever added within a schema version; a
renamed or removed field raises it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from ragas_boot.runs.analysis import FailureAnalysis, failure_analysis
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.simulation.summary import SimulationSummary, simulation_summary

if TYPE_CHECKING:
    from ragas_boot.runs.calibration import CalibrationReport

__all__ = [
    "REPORT_SCHEMA_VERSION",
    "analysis_document",
    "generator",
    "json_chunks",
    "render_json",
    "report_json_schema",
]

#: Version of the JSON report's layout; raised when a field is renamed or removed.
REPORT_SCHEMA_VERSION = 1


def generator() -> dict[str, str]:
    """``{"name": "ragas-boot", "version": ...}``: who wrote a JSON report."""
    from ragas_boot._version import __version__

    return {"name": "ragas-boot", "version": __version__}


def _document(
    run: RunResult, calibration: CalibrationReport | None, samples: object
) -> dict[str, Any]:
    """The report's top-level keys in schema order, ``samples`` standing where they go."""
    dumped = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "generator": generator(),
        **run.model_dump(mode="json", exclude={"samples"}),
    }
    document = {
        key: samples if key == "samples" else dumped[key]
        for key in ("schema_version", "generator", *RunResult.model_fields)
        if key in dumped or key == "samples"
    }
    analysis = failure_analysis(run)
    document["analysis"] = analysis_document(analysis) if analysis is not None else None
    simulated = simulation_summary(run)
    document["simulation"] = simulated.model_dump(mode="json") if simulated is not None else None
    if calibration is not None:
        document["calibration"] = calibration.model_dump(mode="json")
    return document


def analysis_document(analysis: FailureAnalysis) -> dict[str, Any]:
    """The failure analysis as the JSON report holds it: its fields, the failed sample ids
    and the recommendations."""
    return {
        **analysis.model_dump(mode="json"),
        "failed_sample_ids": analysis.failed_sample_ids,
        "recommendations": analysis.recommendations,
    }


def report_document(run: RunResult, calibration: CalibrationReport | None = None) -> dict[str, Any]:
    """The report as JSON-ready data; with ``calibration`` (``compare`` on a labelled
    dataset), a ``calibration`` key holding that report's fields. A spooled run's samples are
    read back from its spool, so the document is the same as without spooling."""
    samples = [run.sample_document(index) for index in range(len(run.samples))]
    return _document(run, calibration, samples)


def render_json(
    run: RunResult,
    *,
    indent: int | None = 2,
    calibration: CalibrationReport | None = None,
) -> str:
    """The JSON report as text (UTF-8, keys in schema order): :func:`json_chunks` joined."""
    return "".join(json_chunks(run, indent=indent, calibration=calibration))


#: Stands for the samples in the document while the rest is serialised (see json_chunks).
_SAMPLES_SLOT = "\u0000ragas-boot-samples\u0000"


def json_chunks(
    run: RunResult,
    *,
    indent: int | None = 2,
    calibration: CalibrationReport | None = None,
) -> Iterator[str]:
    """The JSON report (``json.dumps`` of :func:`report_document`) in pieces: the samples
    (most of a large run's report) are serialised one at a time, so writing the report of a
    10,000-sample run never holds the whole document, or its text, in memory. Each piece is
    whole JSON values (a secret inside a value never straddles two pieces), so pieces can be
    redacted one by one. A spooled run's samples are read back from its spool one at a time:
    its judge calls' prompts and raw answers are in the report, never all in memory."""
    text = json.dumps(_document(run, calibration, _SAMPLES_SLOT), indent=indent, ensure_ascii=False)
    head, tail = text.split(json.dumps(_SAMPLES_SLOT, ensure_ascii=False), 1)
    yield head
    if not run.samples:
        yield "[]"
    else:
        pad = "" if indent is None else "\n" + " " * (2 * indent)
        sep = ", " if indent is None else ","  # json.dumps's own item separators
        yield "["
        for index in range(len(run.samples)):
            piece = json.dumps(run.sample_document(index), indent=indent, ensure_ascii=False)
            if indent is not None:
                piece = piece.replace("\n", pad)
            yield (sep if index else "") + pad + piece
        yield ("" if indent is None else "\n" + " " * indent) + "]"
    yield tail + "\n"


def report_json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the JSON report, generated from the result models."""
    schema = RunResult.model_json_schema(mode="serialization")
    properties = {
        "schema_version": {
            "const": REPORT_SCHEMA_VERSION,
            "description": "Version of this layout; raised when a field is renamed or removed.",
        },
        "generator": {
            "type": "object",
            "description": "The program that wrote the report.",
            "properties": {"name": {"type": "string"}, "version": {"type": "string"}},
            "required": ["name", "version"],
        },
        **schema.get("properties", {}),
        "analysis": {
            "anyOf": [
                {"$ref": "#/$defs/FailureAnalysis"},
                {"type": "null"},
            ],
            "description": "Failure analysis of a run that scores tool use (tool_call_accuracy "
            "or case_expectations): each sample that did not pass with its findings, the "
            "groups with a recommendation each, failed_sample_ids and recommendations; null "
            "for other runs.",
        },
        "simulation": {
            "anyOf": [
                {"$ref": "#/$defs/SimulationSummary"},
                {"type": "null"},
            ],
            "description": "The scenarios played by simulated users: per scenario its plays, "
            "pass rate with its Wilson interval and pass^k; the totals, simulator failures "
            "(not counted) and the simulator's calls, requests and cost; null for runs "
            "without scenario plays.",
        },
        "calibration": {
            "type": "object",
            "description": "compare on a labelled dataset: the judges and panels against "
            "people's labels, as in the calibration report (ragas-boot schema calibration).",
        },
    }
    analysis_schema = FailureAnalysis.model_json_schema(
        mode="serialization", ref_template="#/$defs/{model}"
    )
    definitions = {**schema.get("$defs", {}), **analysis_schema.pop("$defs", {})}
    definitions["FailureAnalysis"] = analysis_schema
    simulation_schema = SimulationSummary.model_json_schema(
        mode="serialization", ref_template="#/$defs/{model}"
    )
    definitions.update(simulation_schema.pop("$defs", {}))
    definitions["SimulationSummary"] = simulation_schema
    schema["$defs"] = definitions
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
        "title": "ragas-boot run report",
        "properties": properties,
        "required": ["schema_version", "generator", *schema.get("required", [])],
    }
