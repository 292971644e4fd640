"""``ragas-boot schema dataset | report | calibration``: JSON Schemas of datasets and reports."""

from __future__ import annotations

import argparse
import json

from ragas_boot.cli._console import write
from ragas_boot.cli._errors import EXIT_OK
from ragas_boot.cli._registry import register_command

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The schema's name."""
    parser.add_argument(
        "kind",
        choices=("dataset", "report", "calibration"),
        help="dataset: a dataset file (for editors); report: the JSON report; calibration: "
        "the JSON report of ragas-boot calibrate",
    )


def run(args: argparse.Namespace) -> int:
    """Print the schema as JSON."""
    if args.kind == "dataset":
        from ragas_boot.datasets import dataset_json_schema

        schema = dataset_json_schema()
    elif args.kind == "calibration":
        from ragas_boot.reporting.calibration import calibration_report_json_schema

        schema = calibration_report_json_schema()
    else:
        from ragas_boot.reporting import report_json_schema

        schema = report_json_schema()
    write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK


register_command("schema", configure, run, help="print a JSON Schema")
