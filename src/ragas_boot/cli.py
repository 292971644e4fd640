"""The ``ragas-boot`` command."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``ragas-boot`` (the subcommands are being built)."""
    del argv
    print("ragas-boot: no subcommands yet", file=sys.stderr)
    return 2
