"""``ragas-boot generate suite | testset``: test cases generated and checked before they are
kept. Each kind is its own module (``_generate_suite``, ``_generate_testset``); this one only
registers them."""

from __future__ import annotations

import argparse

from ragas_boot.cli import _generate_suite, _generate_testset
from ragas_boot.cli._registry import register_command

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """One subparser per kind; each sets ``generate_run`` to its runner."""
    kinds = parser.add_subparsers(dest="generate_command", metavar="KIND", required=True)
    _generate_suite.configure(kinds)
    _generate_testset.configure(kinds)


def run(args: argparse.Namespace) -> int:
    """Run the kind chosen."""
    runner = args.generate_run
    code: int = runner(args)
    return code


register_command("generate", configure, run, help="generate test cases, each checked first")
