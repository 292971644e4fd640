"""``ragas-boot generate suite TOOLS --out FILE``: test cases for an agent from its tools, each
checked before it is kept (the subcommand of :mod:`ragas_boot.cli.generate`).

Exit codes: 0 ``--count`` cases kept and written; 1 fewer kept (what was kept is written;
nothing kept: no file is written, as ``generate testset`` does);
2 bad input (an invalid tool schema, a trace file without tool calls: the file and the path
named), a bad option, or the configuration.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ragas_boot.cli._arguments import (
    add_cache_flags,
    add_config_arguments,
    comma_separated,
    positive_float,
    positive_int,
    settings_from_args,
    unit_float,
    with_cache_flags,
)
from ragas_boot.cli._console import message, stdout
from ragas_boot.cli._errors import EXIT_OK, UsageError
from ragas_boot.cli._generation_reports import add_report_argument, checked_reports, write_reports

__all__ = ["configure", "run"]

_EXIT_INCOMPLETE = 1


def _weights(values: list[str], flag: str) -> dict[str, float]:
    weights: dict[str, float] = {}
    for item in comma_separated(values):
        name, equals, weight = item.partition("=")
        try:
            value = float(weight)
        except ValueError:
            value = -1.0
        if not equals or not name.strip() or value < 0:
            raise UsageError(f"{flag} takes NAME=WEIGHT (a number from 0), got {item!r}")
        weights[name.strip().replace("-", "_") if flag == "--mix" else name.strip()] = value
    return weights


def configure(kinds: Any) -> None:
    """Add the ``suite`` subparser to ``generate``'s subparsers."""
    parser: argparse.ArgumentParser = kinds.add_parser(
        "suite",
        help="a tool suite from the agent's tools",
        description="Generate test cases for an agent from its tools (OpenAI function "
        "schemas, an MCP tools/list result, or a suite file's tools): the generating model "
        "(spring.ai.ragas.generation) writes each case, which is kept only when its tools "
        "exist, its arguments are valid against their schemas, it is no near-duplicate and "
        "the judges vote it right. Exit 1 when fewer than --count were kept (those are "
        "written), 2 for bad input.",
    )
    parser.add_argument("tools", metavar="TOOLS", help="tools file (.json / .yaml) or suite file")
    parser.add_argument("--out", "-o", required=True, metavar="FILE", help="suite file to write")
    parser.add_argument("--count", type=positive_int, default=10, help="cases to keep (10)")
    parser.add_argument(
        "--description", metavar="TEXT", help="what the agent does (default: the suite's)"
    )
    parser.add_argument(
        "--share",
        action="append",
        default=[],
        metavar="TOOL=WEIGHT",
        help="weight of a tool among the cases (default: even); repeat or comma-separate",
    )
    parser.add_argument(
        "--mix",
        action="append",
        default=[],
        metavar="KIND=SHARE",
        help="share of each kind of case: single, multi, no-tool, scenario (default: "
        "single=0.7,multi=0.15,no-tool=0.15)",
    )
    parser.add_argument(
        "--style",
        action="append",
        default=[],
        metavar="NAME",
        help="style of the messages, used in turn: plain, terse, misspelled, russian "
        "(default: plain); repeat or comma-separate",
    )
    parser.add_argument("--seed", type=int, help="base seed (default: generation.seed)")
    parser.add_argument(
        "--min-coverage",
        type=unit_float,
        default=0.0,
        metavar="SHARE",
        help="share of tools and enum values the kept cases must reach (default: 0)",
    )
    parser.add_argument(
        "--max-calls", type=positive_int, metavar="N", help="model calls at most (6 per case)"
    )
    parser.add_argument(
        "--max-cost", type=positive_float, metavar="X", help="spend cap of the model calls"
    )
    parser.add_argument(
        "--agent", metavar="MODULE:FUNCTION", help="the generated suite's agent (over the input's)"
    )
    parser.add_argument(
        "--from-traces",
        metavar="FILE",
        help="OTLP JSON traces: conversations with tool calls become cases, marked for review",
    )
    parser.add_argument(
        "--validate-with-agent",
        action="store_true",
        help="run the agent once on the kept cases and report (not drop) those it fails",
    )
    parser.add_argument(
        "--plan",
        choices=("values", "model"),
        default="values",
        help="values (default): a case's tools and argument values are fixed in code from the "
        "inputs (enums, schema examples and defaults, the input suite's cases, traces) and the "
        "model writes the message only; model: the model proposes the calls too (also used "
        "when the inputs give no value for a required argument)",
    )
    parser.add_argument(
        "--no-vote",
        action="store_true",
        help="keep candidates on the checks that need no model, without the judges' vote",
    )
    add_report_argument(parser)
    add_cache_flags(parser)
    add_config_arguments(parser)
    parser.set_defaults(generate_run=run)


def run(args: argparse.Namespace) -> int:
    """``generate suite``: generate, write the suite, print (and write) the report."""
    from ragas_boot.cli._reports import write_atomically
    from ragas_boot.container import create_container
    from ragas_boot.generation.suite import generate_suite
    from ragas_boot.generation.tools import load_tools
    from ragas_boot.reporting.generation import generation_renderables

    reports = checked_reports(args.report)
    source = load_tools(args.tools)  # bad input ends here, before a model is started
    settings = with_cache_flags(settings_from_args(args), args)
    try:
        options: dict[str, Any] = {
            "count": args.count,
            "description": args.description,
            "shares": _weights(args.share, "--share") or None,
            "mix": _weights(args.mix, "--mix") or None,
            "styles": tuple(comma_separated(args.style)) or ("plain",),
            "seed": args.seed,
            "min_coverage": args.min_coverage,
            "max_calls": args.max_calls,
            "max_cost": args.max_cost,
            "agent": args.agent,
            "from_traces": args.from_traces,
            "validate_with_agent": args.validate_with_agent,
            "output": args.out,
            "plan": args.plan,
            "check_with_judges": not args.no_vote,
        }
        with create_container(settings) as container:
            generated = generate_suite(source, container=container, **options)
    except ValueError as error:
        if type(error) is ValueError:  # an option out of range; our own errors pass on
            raise UsageError(str(error)) from None
        raise
    if generated.suite is not None:
        write_atomically(Path(args.out), generated.text)
    for part in generation_renderables(generated.report):
        stdout().print(part)
    if generated.suite is not None:
        stdout().print(f"Wrote {args.out}")
    else:  # as generate testset: no file that `suite run` could not run
        message(f"nothing was kept: {args.out} was not written", "bold red")
    write_reports(generated.report, reports)
    return EXIT_OK if generated.report.complete else _EXIT_INCOMPLETE
