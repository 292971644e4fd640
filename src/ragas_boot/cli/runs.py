"""``ragas-boot runs list | diff BASE NEW | merge GROUP``: the run history; a CI gate on a
regression; the run of a group of shards."""

from __future__ import annotations

import argparse

from ragas_boot.cli._arguments import (
    add_config_arguments,
    add_history_arguments,
    add_regression_arguments,
    positive_int,
    settings_if_configured,
    unit_float,
)
from ragas_boot.cli._console import message, stdout
from ragas_boot.cli._errors import EXIT_GATE_FAILED, EXIT_OK
from ragas_boot.cli._history import show_diff
from ragas_boot.cli._registry import register_command

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``list`` and ``diff`` actions."""
    actions = parser.add_subparsers(dest="runs_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the recorded runs, latest first")
    diff = actions.add_parser(
        "diff",
        help="compare two recorded runs; exit 1 with --fail-on-regression when NEW regressed",
    )
    for action in (listing, diff):
        add_config_arguments(action)
    listing.add_argument(
        "--limit", type=positive_int, default=20, metavar="N", help="runs to show (default: 20)"
    )
    listing.add_argument(
        "--kind", choices=("evaluate", "compare", "suite"), help="only runs of this kind"
    )
    diff.add_argument("base", metavar="BASE", help="run id (or a unique prefix), latest, previous")
    diff.add_argument("new", metavar="NEW", help="run id (or a unique prefix), latest, previous")
    add_regression_arguments(diff, gate_help="exit 1 when a metric regressed")
    _configure_merge(actions)


def _configure_merge(actions: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    merge = actions.add_parser(
        "merge",
        help="one run from the shards of a --run-group (results, summaries, gate and reports "
        "as one machine's); exit 2 naming a shard missing, recorded twice or unfinished, or "
        "shards of another configuration or dataset",
    )
    merge.add_argument("group", metavar="GROUP", help="the --run-group of the shards")
    add_config_arguments(merge)
    merge.add_argument(
        "--out",
        action="append",
        default=[],
        metavar="FILE",
        help="write a report of the merged run (.html, .json, .csv, .parquet, .xml, .md); "
        "repeat for several",
    )
    merge.add_argument(
        "--follow-symlinks", action="store_true", help="--out may be a symbolic link"
    )
    merge.add_argument(
        "--fail-under", type=unit_float, metavar="X", help="exit 1 when a metric's mean is under X"
    )
    merge.add_argument(
        "--min-pass-rate",
        type=unit_float,
        metavar="X",
        help="exit 1 when a sample's share of passing repeats is under X",
    )
    merge.add_argument(
        "--min-passed",
        type=unit_float,
        metavar="X",
        help="exit 1 when the share of samples passing every metric is under X",
    )
    add_history_arguments(merge)


def run(args: argparse.Namespace) -> int:
    """List the recorded runs, or diff two of them (exit 1 on a regression when asked)."""
    from ragas_boot.reporting.history_report import runs_table
    from ragas_boot.runs.history import open_history
    from ragas_boot.runs.regressions import diff_runs

    if args.runs_command == "merge":
        from ragas_boot.cli._merge import merge_group

        return merge_group(args)
    settings = settings_if_configured(args)
    with open_history(settings) as history:
        if args.runs_command == "list":
            runs = history.list_runs(limit=args.limit, kind=args.kind)
            stdout().print(runs_table(runs, title=f"Runs in {history.label}"))
            if not runs:
                message("no run recorded yet: `ragas-boot evaluate` records each run")
            return EXIT_OK
        base, new = history.load(args.base), history.load(args.new)
    diff = show_diff(diff_runs(base, new, tolerance=args.tolerance))
    return EXIT_GATE_FAILED if diff.regressed and args.fail_on_regression else EXIT_OK


register_command(
    "runs",
    configure,
    run,
    help="list recorded runs; diff two and gate on regressions; merge a group of shards",
)
