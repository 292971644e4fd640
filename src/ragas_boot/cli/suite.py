"""``ragas-boot suite run SUITE.yaml``: run a tool suite; a CI gate on its pass rate."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ragas_boot.cli._arguments import (
    add_config_arguments,
    comma_separated,
    positive_int,
    settings_from_args,
    settings_if_configured,
    unit_float,
)
from ragas_boot.cli._console import message, redact, stdout, write
from ragas_boot.cli._errors import EXIT_GATE_FAILED, EXIT_OK, UsageError
from ragas_boot.cli._history import store
from ragas_boot.cli._registry import register_command
from ragas_boot.cli._reports import report_paths, write_atomically

if TYPE_CHECKING:
    from ragas_boot.suites import AgentTestSuite, SuiteResult

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    """The ``run`` action and its arguments."""
    commands = parser.add_subparsers(dest="suite_command", metavar="COMMAND", required=True)
    runner = commands.add_parser(
        "run",
        help="run a tool-evaluation suite and gate on its pass rate",
        description="Run an agent on every case of SUITE.yaml, print the report, and exit 1 "
        "when the pass rate is under --min-pass-rate (2 for bad input).",
    )
    runner.add_argument("suite", metavar="SUITE.yaml", help="the suite file")
    runner.add_argument(
        "--agent",
        metavar="MODULE:FUNCTION",
        help="a Python agent callable (default: the suite's agent or agent_model)",
    )
    runner.add_argument(
        "--agent-model",
        metavar="ID",
        help="a chat model id (or alias) of the configuration to run as the agent",
    )
    add_config_arguments(
        runner, default_help="$RAGAS_CONFIG, else beside the suite, else ./application.yaml"
    )
    runner.add_argument(
        "--min-pass-rate",
        metavar="RATE",
        type=unit_float,
        help="pass rate the gate requires, 0.9 or 90%% (default: the suite's, else 0.9)",
    )
    runner.add_argument(
        "--concurrency",
        metavar="N",
        type=positive_int,
        help="cases run at once (default: the suite's, else 4)",
    )
    runner.add_argument(
        "--case",
        metavar="ID",
        action="append",
        dest="cases",
        help="run only this case (repeatable)",
    )
    runner.add_argument(
        "--out",
        metavar="FILE",
        action="append",
        default=[],
        help="also write the report: .html (self-contained) or .json; repeat for several",
    )
    runner.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="--out may be a symbolic link: write its target (refused otherwise)",
    )
    runner.add_argument(
        "--no-history", action="store_true", help="do not record this run in the run history"
    )


def run(args: argparse.Namespace) -> int:
    """``suite run``: the agent's runs scored, the report printed and written, the gate."""
    from ragas_boot.errors import SuiteError
    from ragas_boot.reporting.suite_report import render_console, render_html, render_json
    from ragas_boot.suites import load_suite

    suite = load_suite(args.suite)
    reports = report_paths(args.out, follow_symlinks=args.follow_symlinks)
    known = [case.id for case in suite.cases]
    for case_id in args.cases or ():
        if case_id not in known:
            raise SuiteError(f"no case '{case_id}' (cases: {', '.join(known)})", file=args.suite)
    result = _suite_result(suite, args)
    gate = result.gate(suite.min_pass_rate if args.min_pass_rate is None else args.min_pass_rate)
    write(render_console(result, gate, color=stdout().is_terminal))
    for path, kind in reports:
        text = render_html(result, gate) if kind == "html" else render_json(result, gate)
        write_atomically(path, redact(text))
        message(f"Report written: {path}")
    _record_suite(args, result, gate.min_pass_rate)  # not recorded: a warning only
    return EXIT_OK if gate.passed else EXIT_GATE_FAILED


def _record_suite(args: argparse.Namespace, result: SuiteResult, min_pass_rate: float) -> bool:
    """Record a suite run in the history of its configuration (the default one without)."""
    from ragas_boot.runs.history import snapshot_suite

    settings = settings_if_configured(args) if args.config else None
    source = settings.source if settings is not None else None
    snapshot = snapshot_suite(
        result,
        min_pass_rate=min_pass_rate,
        config_files=source.files if source else (),
        profiles=source.active_profiles if source else (),
    )
    section = settings.history if settings is not None else None
    return store(section, snapshot, enabled=not args.no_history)


def _suite_result(suite: AgentTestSuite, args: argparse.Namespace) -> SuiteResult:
    """Run the agent chosen as :mod:`ragas_boot.runs.suites.agents` describes."""
    from ragas_boot.runs.suites.agents import python_agent, run_model_agent, suite_config_path
    from ragas_boot.suites import run_suite

    if args.agent and args.agent_model:
        raise UsageError("give --agent or --agent-model, not both")
    if args.agent:
        agent = python_agent(args.agent, suite)
        return run_suite(suite, agent, concurrency=args.concurrency, cases=args.cases)
    model = args.agent_model or suite.agent_model
    config = suite_config_path(args.config, suite)
    if args.agent_model and config is None:
        raise UsageError(
            f"--agent-model {args.agent_model} needs a configuration declaring it: pass --config"
        )
    profiles = comma_separated(args.profile)
    if profiles and config is None:
        raise UsageError(
            f"--profile {','.join(profiles)} needs a configuration file: pass --config"
        )
    if model and config is not None:
        args.config = str(config)
        result = run_model_agent(
            suite,
            model,
            settings_from_args(args),
            required=bool(args.agent_model),
            concurrency=args.concurrency,
            cases=args.cases,
        )
        if result is not None:
            return result
    return run_suite(suite, concurrency=args.concurrency, cases=args.cases)


register_command("suite", configure, run, help="run a tool-evaluation suite; gate CI on it")
