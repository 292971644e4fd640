"""``ragas-boot suite run SUITE.yaml``: run a tool suite's agent, score the cases like any
dataset, gate CI on the share of cases that pass every metric."""

from __future__ import annotations

import argparse

from ragas_boot.cli._arguments import (
    add_cache_dir,
    add_config_arguments,
    add_history_arguments,
    comma_separated,
    positive_int,
    unit_float,
)
from ragas_boot.cli._dataset import run_dataset
from ragas_boot.cli._metrics import metric_choices
from ragas_boot.cli._options import RunOptions, add_agent_arguments
from ragas_boot.cli._registry import register_command

__all__ = ["configure", "options_from_args", "run"]

#: Evaluations in flight at once after the agent phase, unless --concurrency says.
_EVALUATION_CONCURRENCY = 8


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``run`` action and its arguments."""
    commands = parser.add_subparsers(dest="suite_command", metavar="COMMAND", required=True)
    runner = commands.add_parser(
        "run",
        help="run a tool-evaluation suite and gate on its pass rate",
        description="Run an agent on every case of SUITE.yaml, score each case with "
        "tool_call_accuracy and case_expectations (and any --metric), print the report, and "
        "exit 1 when fewer cases than --min-pass-rate pass every metric (2 for bad input).",
    )
    runner.add_argument("suite", metavar="SUITE.yaml", help="the suite file")
    add_agent_arguments(runner, suite_only=True)
    add_config_arguments(
        runner, default_help="$RAGAS_CONFIG, else beside the suite, else ./application.yaml"
    )
    runner.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="NAME",
        help=f"also score the cases with this metric: {metric_choices()}; repeat",
    )
    runner.add_argument(
        "--min-pass-rate",
        "--min-passed",
        dest="min_passed",
        metavar="RATE",
        type=unit_float,
        help="share of cases that must pass every metric, 0.9 or 90%% (default: the suite's "
        "min-pass-rate, else 0.9)",
    )
    runner.add_argument(
        "--fail-under",
        type=unit_float,
        metavar="X",
        help="also exit 1 when the mean score of any metric is under X",
    )
    runner.add_argument(
        "--concurrency",
        metavar="N",
        type=positive_int,
        help="cases run at once (default: the suite's, else 4), and evaluations in flight "
        "afterwards (default: 8)",
    )
    runner.add_argument(
        "--max-turns",
        metavar="N",
        type=positive_int,
        help="scenario cases: the simulated user's turns at most (default: each scenario's "
        "max-turns)",
    )
    runner.add_argument(
        "--repeat",
        metavar="K",
        type=positive_int,
        help="scenario cases: play each K times, each with its own seed (pass rate, Wilson "
        "interval, pass^k; default: the case's or the suite's repeat)",
    )
    runner.add_argument(
        "--case",
        metavar="ID",
        action="append",
        dest="cases",
        default=[],
        help="run only this case (repeatable)",
    )
    runner.add_argument(
        "--out",
        metavar="FILE",
        action="append",
        default=[],
        help="also write the report: .html (self-contained), .json, .csv / .parquet (one row "
        "per case × metric), .xml (JUnit) or .md (Markdown, appended to "
        "$GITHUB_STEP_SUMMARY when set); repeat for several",
    )
    runner.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="--out may be a symbolic link: write its target (refused otherwise)",
    )
    runner.add_argument(
        "--no-progress", action="store_true", help="no live progress bar (auto off when piped)"
    )
    runner.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the response cache"
    )
    add_cache_dir(runner)
    add_history_arguments(runner)


def options_from_args(args: argparse.Namespace) -> RunOptions:
    """The dataset run ``suite run`` is: the suite as the dataset, its metrics, its gate."""
    return RunOptions(
        dataset=args.suite,
        view="suite",
        metrics=tuple(args.metric),
        config=args.config,
        profiles=tuple(comma_separated(args.profile)),
        concurrency=args.concurrency or _EVALUATION_CONCURRENCY,
        agent_concurrency=args.concurrency,
        out=tuple(args.out),
        fail_under=args.fail_under,
        min_sample_pass_rate=args.min_passed,
        follow_symlinks=args.follow_symlinks,
        progress=not args.no_progress,
        cache=not args.no_cache,
        cache_dir=args.cache_dir,
        baseline=args.baseline,
        fail_on_regression=args.fail_on_regression,
        tolerance=args.tolerance,
        history=not args.no_history,
        source_format="suite",
        agent=args.agent,
        agent_model=args.agent_model,
        cases=tuple(args.cases),
        max_turns=args.max_turns,
        plays=args.repeat,
    )


def run(args: argparse.Namespace) -> int:
    """``suite run``: the agent on every case, the cases scored, reported, recorded, gated."""
    return run_dataset(options_from_args(args))


register_command("suite", configure, run, help="run a tool-evaluation suite; gate CI on it")
