"""The ``--report`` of ``generate suite`` and ``generate testset``: one flag, checked before
the first model call, written the same way by both."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ragas_boot.cli._reports import report_paths, write_atomically

if TYPE_CHECKING:  # the generation package loads when a generate command runs
    from ragas_boot.generation.report import GenerationReport

__all__ = ["add_report_argument", "checked_reports", "write_reports"]


def add_report_argument(parser: argparse.ArgumentParser) -> None:
    """``--report FILE``, repeatable: the generation report as ``.json`` or ``.html``."""
    parser.add_argument(
        "--report",
        action="append",
        default=[],
        metavar="FILE",
        help="also write the generation report: .json or .html; repeat for both",
    )


def checked_reports(values: Sequence[str]) -> list[tuple[Path, str]]:
    """The ``--report`` paths with their kind, each checked writable before any model call.

    Raises:
        UsageError: a suffix other than .json/.html, or a path that cannot be written.
    """
    return report_paths(values, follow_symlinks=False, kinds=("html", "json"), flag="--report")


def write_reports(report: GenerationReport, paths: Sequence[tuple[Path, str]]) -> None:
    """Write ``report`` to each checked path, atomically."""
    from ragas_boot.reporting.generation import render_generation_html, render_generation_json

    for path, kind in paths:
        render = render_generation_html if kind == "html" else render_generation_json
        write_atomically(path, render(report))
