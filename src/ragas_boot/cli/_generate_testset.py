"""``ragas-boot generate testset DOCS...``: RAG samples from documents, each checked before it
is kept (the subcommand of :mod:`ragas_boot.cli.generate`).

Exit codes: 0 when ``--count`` samples were kept; 1 when fewer were (the budget ran out:
what was kept is written all the same); 2 for bad input (a missing path, no readable text, a
bad configuration), naming what is at fault.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ragas_boot.cli._arguments import (
    add_cache_flags,
    add_config_arguments,
    positive_float,
    positive_int,
    settings_from_args,
    unit_float,
    with_cache_flags,
)
from ragas_boot.cli._console import message, write
from ragas_boot.cli._errors import EXIT_GATE_FAILED, EXIT_OK
from ragas_boot.cli._generation_reports import add_report_argument, checked_reports, write_reports
from ragas_boot.cli._reports import write_atomically

__all__ = ["configure", "run"]


def configure(kinds: Any) -> None:
    """Add the ``testset`` subparser to ``generate``'s subparsers."""
    parser: argparse.ArgumentParser = kinds.add_parser(
        "testset",
        help="a RAG test set (question, reference, reference contexts) from documents",
        description="Generate RAG samples from Markdown, text or PDF documents: single- and "
        "multi-hop questions with reference answers and the verbatim chunks they rest on, each "
        "checked (chunks cited, blanks, near-duplicates, the judges' vote on grounding) before "
        "it is kept. The same documents, options and seed again send nothing and write the "
        "same file.",
    )
    parser.add_argument(
        "documents", nargs="+", metavar="DOCS", help="Markdown, text or PDF files, or folders"
    )
    parser.add_argument(
        "--out",
        default="testset.yaml",
        metavar="FILE",
        help="the test-set file to write (YAML; default: testset.yaml)",
    )
    parser.add_argument(
        "--count", type=positive_int, default=10, metavar="N", help="samples to keep (10)"
    )
    parser.add_argument(
        "--multi-hop",
        type=unit_float,
        default=None,
        metavar="SHARE",
        help="share of samples that must rest on two or more chunks (0..1 or 40%%; default 0.25)",
    )
    parser.add_argument(
        "--style",
        action="append",
        default=[],
        metavar="TEXT",
        help="a question style or persona ('terse', 'a new customer'); repeat for several, "
        "taken in turn",
    )
    parser.add_argument(
        "--language", metavar="LANG", help="write in this language (ru, German, ...)"
    )
    parser.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="base seed (default: spring.ai.ragas.generation.seed); also orders the chunks",
    )
    parser.add_argument(
        "--max-calls",
        type=positive_int,
        metavar="N",
        help="model calls at most, cache answers included (default: 6 per sample)",
    )
    parser.add_argument(
        "--max-cost", type=positive_float, metavar="AMOUNT", help="spend cap for the models"
    )
    parser.add_argument(
        "--min-coverage",
        type=unit_float,
        default=0.0,
        metavar="SHARE",
        help="share of documents (and of single/multi-hop) the kept samples must reach",
    )
    parser.add_argument(
        "--judge",
        action="append",
        default=[],
        metavar="ID",
        help="a judge that votes on each candidate (default: all judges); repeat for several",
    )
    parser.add_argument(
        "--no-vote",
        action="store_true",
        help="keep candidates on the code's checks alone, without the judges' vote",
    )
    parser.add_argument(
        "--chunk-size", type=positive_int, metavar="CHARS", help="characters per chunk (1200)"
    )
    add_report_argument(parser)
    add_cache_flags(parser)
    add_config_arguments(parser)
    parser.set_defaults(generate_run=run)


def run(args: argparse.Namespace) -> int:
    """``generate testset``."""
    from ragas_boot.container import create_container
    from ragas_boot.generation.documents import DEFAULT_CHUNK_SIZE
    from ragas_boot.generation.testset import DEFAULT_MULTI_HOP, agenerate_testset
    from ragas_boot.reporting.generation import render_generation_console

    output = Path(args.out)
    reports = checked_reports(args.report)
    settings = with_cache_flags(settings_from_args(args), args)
    multi_hop = DEFAULT_MULTI_HOP if args.multi_hop is None else args.multi_hop
    with create_container(settings) as container:
        made = container.executor().portal.call(
            agenerate_testset(
                args.documents,
                container=container,
                count=args.count,
                multi_hop=multi_hop,
                styles=args.style,
                language=args.language,
                seed=args.seed,
                max_calls=args.max_calls,
                max_cost=args.max_cost,
                min_coverage=args.min_coverage,
                judges=args.judge or None,
                check_with_judges=not args.no_vote,
                chunk_size=args.chunk_size or DEFAULT_CHUNK_SIZE,
            )
        )
    report = made.report
    if made.samples:
        write_atomically(output, made.text)
        report = report.model_copy(update={"output": str(output)})
    write(render_generation_console(report))
    write_reports(report, reports)
    if not made.samples:
        message(f"nothing was kept: {output} was not written", "bold red")
    if report.kept_count < report.requested:
        return EXIT_GATE_FAILED
    return EXIT_OK
