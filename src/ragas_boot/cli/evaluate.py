"""``ragas-boot evaluate DATASET --metric NAME``: score a dataset (CI gate: ``--fail-under``)."""

from __future__ import annotations

import argparse

from ragas_boot.cli._dataset import run_dataset
from ragas_boot.cli._options import RunOptions, add_run_arguments, add_source_arguments
from ragas_boot.cli._registry import register_command

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The dataset run's arguments; ``--metric`` is required."""
    add_run_arguments(parser, metric_required=True)
    add_source_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Score the dataset and print each sample's scores; the gate's exit code."""
    return run_dataset(RunOptions.from_args(args, "evaluate"))


register_command(
    "evaluate", configure, run, help="score every sample of a dataset with the given metrics"
)
