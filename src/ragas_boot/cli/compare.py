"""``ragas-boot compare DATASET``: the judges side by side, and their agreement."""

from __future__ import annotations

import argparse

from ragas_boot.cli._dataset import run_dataset
from ragas_boot.cli._options import RunOptions, add_run_arguments, add_source_arguments
from ragas_boot.cli._registry import register_command

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The dataset run's arguments; without ``--metric``, every metric that fits the samples."""
    add_run_arguments(parser, metric_required=False)
    add_source_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Score the dataset and print the judges' tables (and the people's, when labelled)."""
    return run_dataset(RunOptions.from_args(args, "compare"))


register_command(
    "compare",
    configure,
    run,
    help="compare the judges on a dataset: scores, latency, tokens, agreement",
)
