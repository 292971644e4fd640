"""JSON report: the whole :class:`~ragas_boot.runs.RunResult`, with a schema version.

The document is ``{"schema_version": 1, "generator": {...}, <the RunResult fields>}``; its
fields are described in ``docs/report-json.md`` and by :func:`report_json_schema`
(``ragas-boot schema report``). Fields are only ever added within a schema version; a
renamed or removed field raises it.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ragas_boot.runs.results import RunResult

if TYPE_CHECKING:
    from ragas_boot.runs.calibration import CalibrationReport

__all__ = ["REPORT_SCHEMA_VERSION", "generator", "render_json", "report_json_schema"]

#: Version of the JSON report's layout; raised when a field is renamed or removed.
REPORT_SCHEMA_VERSION = 1


def generator() -> dict[str, str]:
    """``{"name": "ragas-boot", "version": ...}``: who wrote a JSON report."""
    from ragas_boot import __version__

    return {"name": "ragas-boot", "version": __version__}


def report_document(run: RunResult, calibration: CalibrationReport | None = None) -> dict[str, Any]:
    """The report as JSON-ready data; with ``calibration`` (``compare`` on a labelled
    dataset), a ``calibration`` key holding that report's fields."""
    document = {
        "schema_version": REPORT_SCHEMA_VERSION,
        "generator": generator(),
        **run.model_dump(mode="json"),
    }
    if calibration is not None:
        document["calibration"] = calibration.model_dump(mode="json")
    return document


def render_json(
    run: RunResult,
    *,
    indent: int | None = 2,
    calibration: CalibrationReport | None = None,
) -> str:
    """The JSON report as text (UTF-8, keys in schema order)."""
    document = report_document(run, calibration)
    return json.dumps(document, indent=indent, ensure_ascii=False) + "\n"


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
        "calibration": {
            "type": "object",
            "description": "compare on a labelled dataset: the judges and panels against "
            "people's labels, as in the calibration report (ragas-boot schema calibration).",
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        **schema,
        "title": "ragas-boot run report",
        "properties": properties,
        "required": ["schema_version", "generator", *schema.get("required", [])],
    }
