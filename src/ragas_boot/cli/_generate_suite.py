"""``ragas-boot generate suite TOOLS``: test cases for an agent from its tools, each checked
before it is kept (the subcommand of :mod:`ragas_boot.cli.generate`)."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["configure", "run"]


def configure(kinds: Any) -> None:
    """Add the ``suite`` subparser to ``generate``'s subparsers."""
    parser: argparse.ArgumentParser = kinds.add_parser(
        "suite",
        help="a tool suite from the agent's tools",
        description="Generate test cases for an agent from its tools.",
    )
    parser.set_defaults(generate_run=run)


def run(args: argparse.Namespace) -> int:
    """``generate suite``."""
    raise NotImplementedError
