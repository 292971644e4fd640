"""``ragas-boot calibrate DATASET``: the judges and panels against people's labels."""

from __future__ import annotations

import argparse

from ragas_boot.cli._arguments import positive_int
from ragas_boot.cli._dataset import run_dataset
from ragas_boot.cli._options import RunOptions, add_run_arguments
from ragas_boot.cli._registry import register_command

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The dataset run's arguments and the bootstrap's ``--seed`` / ``--resamples``."""
    add_run_arguments(parser, metric_required=False)
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the bootstrap behind the confidence intervals (default: 0)",
    )
    parser.add_argument(
        "--resamples",
        type=positive_int,
        default=1000,
        metavar="N",
        help="bootstrap resamples per confidence interval (default: 1000)",
    )


def run(args: argparse.Namespace) -> int:
    """Score the labelled dataset and print the calibration report."""
    return run_dataset(RunOptions.from_args(args, "calibrate"))


register_command(
    "calibrate",
    configure,
    run,
    help="the judges against people's labels: kappa, accuracy, the best panel per cost",
)
