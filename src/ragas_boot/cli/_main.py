"""``main``: parse the command line, open the masking consoles, run the command, map errors
to exit codes."""

from __future__ import annotations

import argparse
import sys
import traceback
from collections.abc import Sequence

from ragas_boot.cli._arguments import add_log_flags
from ragas_boot.cli._console import console_session, message, stderr
from ragas_boot.cli._errors import EXIT_BAD_INPUT, EXIT_INTERRUPTED, UsageError
from ragas_boot.cli._registry import registered_commands

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser, with every registered subcommand."""
    parser = argparse.ArgumentParser(
        prog="ragas-boot",
        description="Score AI agents with several LLM judges configured in application.yaml.",
        epilog="Exit codes: 0 ok; 1 a quality gate failed (or a deadline passed); 2 bad "
        "arguments, configuration or dataset, or a report not written; 3 the spend cap "
        "(--max-cost) cut the run short; 130 interrupted; 143 terminated.",
    )
    from ragas_boot import __version__

    parser.add_argument("--version", action="version", version=f"ragas-boot {__version__}")
    add_log_flags(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in registered_commands():
        sub = commands.add_parser(command.name, help=command.help, description=command.help)
        add_log_flags(sub, top=False)
        command.configure(sub)
        _log_flags_on_actions(sub)
        sub.set_defaults(_run=command.run)
    return parser


def _log_flags_on_actions(parser: argparse.ArgumentParser) -> None:
    """``--debug`` / ``-v`` on the action parsers a command adds (``cache stats``, a plugin's
    own): the flags go wherever the command line ends, whatever the command declares."""
    for action in parser._actions:
        if not isinstance(action, argparse._SubParsersAction):
            continue
        for nested in action.choices.values():
            if "--debug" not in nested._option_string_actions:
                add_log_flags(nested, top=False)
            _log_flags_on_actions(nested)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``ragas-boot`` with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    if getattr(args, "_run", None) is None:
        parser.print_help(sys.stderr)
        return EXIT_BAD_INPUT
    with console_session(verbose=args.verbose, debug=args.debug):
        return _dispatch(args)


def _dispatch(args: argparse.Namespace) -> int:
    from ragas_boot.errors import MissingExtraError, RagasBootError

    try:
        code: int = args._run(args)
        return code
    except (RagasBootError, UsageError, OSError) as error:
        if args.debug:
            stderr().print(traceback.format_exc(), markup=False, highlight=False)
        text = str(error) or type(error).__name__
        message(f"ragas-boot: error: {text}", "bold red")
        if not args.debug and not isinstance(error, MissingExtraError):
            # A missing extra's message is the whole story: the pip command.
            message("(run with --debug to see the traceback)", "dim")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        message("ragas-boot: interrupted", "bold red")
        return EXIT_INTERRUPTED
