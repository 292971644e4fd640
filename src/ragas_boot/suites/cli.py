"""``ragas-boot suite run SUITE.yaml``: run a tool suite, print the report, gate on the pass rate.

Registered by the main CLI as ``register_command("suite", configure, run)``. Exit codes: 0
when the pass rate reaches the minimum, 1 when it does not, 2 for bad input (one message on
stderr: a suite, config or agent that cannot be used, a bad option).

Which agent runs:

1. ``--agent module:function``: that Python callable (looked up beside the suite file, then
   on ``sys.path`` with the working directory first);
2. ``--agent-model ID``: that chat model of the configuration, with the built-in runner;
3. the suite's ``agent_model``, when a configuration is found and declares it (so a profile
   such as ``--profile local`` can make a model the agent);
4. the suite's ``agent`` (a Python callable).

The configuration is ``--config``, else ``$RAGAS_CONFIG``, else ``application.yaml`` beside
the suite file, else in the working directory; it is read only when a model may be the agent.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from ragas_boot.chat.judge import JudgeModel, JudgeSpec
from ragas_boot.cli import positive_int, unit_float
from ragas_boot.config import load_settings
from ragas_boot.config.loader import CONFIG_ENV_VAR, DEFAULT_FILES
from ragas_boot.errors import RagasBootError, SuiteError
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.suites.openai_agent import OpenAIToolAgent
from ragas_boot.suites.report import render_console, render_html, render_json
from ragas_boot.suites.results import SuiteResult
from ragas_boot.suites.runner import Agent, run_suite
from ragas_boot.suites.suite import AgentTestSuite, load_suite, resolve_reference

__all__ = ["EXIT_BAD_INPUT", "EXIT_GATE_FAILED", "EXIT_OK", "configure", "register", "run"]

EXIT_OK = 0
"""The pass rate reached the minimum."""
EXIT_GATE_FAILED = 1
"""The pass rate is under the minimum."""
EXIT_BAD_INPUT = 2
"""The suite, the configuration, the agent or an option cannot be used."""

_REPORT_SUFFIXES = (".html", ".json")


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the ``suite`` sub-commands (``run``) to the ``suite`` command's parser."""
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
    runner.add_argument(
        "--config",
        metavar="FILE",
        help="application.yaml (default: $RAGAS_CONFIG, then beside the suite, then ./)",
    )
    runner.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="NAME",
        help="Spring profile to activate; repeat or comma-separate for several",
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
        help="also write the report to FILE: .html or .json (repeatable)",
    )


def register() -> None:
    """Add ``ragas-boot suite`` to the main command (the ``ragas_boot.commands`` entry point)."""
    from ragas_boot.cli import register_command

    # replace: registering twice (an entry point, then an explicit call) is harmless
    register_command(
        "suite", configure, run, help="run a tool-evaluation suite; gate CI on it", replace=True
    )


def run(args: argparse.Namespace) -> int:
    """Run the command parsed by :func:`configure`; return the exit code."""
    try:
        return _run_suite(args)
    except RagasBootError as error:
        print(f"ragas-boot suite run: error: {error}", file=sys.stderr)
        return EXIT_BAD_INPUT


def _run_suite(args: argparse.Namespace) -> int:
    suite = load_suite(args.suite)
    outputs = _outputs(args.out)
    cases: list[str] | None = args.cases
    for case_id in cases or ():
        if case_id not in {case.id for case in suite.cases}:
            known = ", ".join(case.id for case in suite.cases)
            raise SuiteError(f"no case '{case_id}' (cases: {known})", file=args.suite)
    min_pass_rate = suite.min_pass_rate if args.min_pass_rate is None else args.min_pass_rate
    result = _execute(suite, args, cases)
    gate = result.gate(min_pass_rate)
    sys.stdout.write(render_console(result, gate, color=sys.stdout.isatty()))
    sys.stdout.flush()
    for path in outputs:
        text = render_html(result, gate) if path.suffix == ".html" else render_json(result, gate)
        path.write_text(text, encoding="utf-8")
        print(f"Report written to {path}", file=sys.stderr)
    return EXIT_OK if gate.passed else EXIT_GATE_FAILED


def _outputs(raw: Sequence[str]) -> list[Path]:
    paths = []
    for text in raw:
        path = Path(text)
        if path.suffix.lower() not in _REPORT_SUFFIXES:
            raise SuiteError(f"--out {text}: the report file must end in .html or .json")
        if not path.parent.is_dir():
            raise SuiteError(f"--out {text}: folder {path.parent} does not exist")
        paths.append(path.with_suffix(path.suffix.lower()))
    return paths


def _execute(
    suite: AgentTestSuite, args: argparse.Namespace, cases: list[str] | None
) -> SuiteResult:
    if args.agent and args.agent_model:
        raise SuiteError("give --agent or --agent-model, not both")
    if args.agent:
        return run_suite(
            suite, _python_agent(args.agent, suite), concurrency=args.concurrency, cases=cases
        )
    model = args.agent_model or suite.agent_model
    config = _config_path(args.config, suite)
    if args.agent_model and config is None:
        raise SuiteError(
            f"--agent-model {args.agent_model} needs a configuration declaring it: pass --config"
        )
    profiles = [name.strip() for value in args.profile for name in value.split(",") if name.strip()]
    if profiles and config is None:
        raise SuiteError(
            f"--profile {','.join(profiles)} needs a configuration file: pass --config"
        )
    if model and config is not None:
        result = _run_model(
            suite, model, config, profiles, args, cases, required=bool(args.agent_model)
        )
        if result is not None:
            return result
    return run_suite(suite, concurrency=args.concurrency, cases=cases)


def _python_agent(reference: str, suite: AgentTestSuite) -> Agent:
    folders = [Path.cwd(), *([suite.base_dir] if suite.base_dir else [])]
    try:
        agent = resolve_reference(reference, base_dirs=folders)
    except (ImportError, AttributeError, ValueError) as error:
        raise SuiteError(f"--agent {reference}: {error}") from None
    if not callable(agent):
        raise SuiteError(f"--agent {reference}: a {type(agent).__name__} is not callable")
    chosen: Agent = agent
    return chosen


def _config_path(explicit: str | None, suite: AgentTestSuite) -> Path | None:
    if explicit:
        return Path(explicit)
    from_env = os.environ.get(CONFIG_ENV_VAR, "").strip()
    if from_env:
        return Path(from_env)
    folders = [suite.base_dir] if suite.base_dir else []
    for folder in [*folders, Path.cwd()]:
        for name in DEFAULT_FILES:
            if (folder / name).is_file():
                return folder / name
    return None


def _run_model(
    suite: AgentTestSuite,
    model: str,
    config: Path,
    profiles: list[str],
    args: argparse.Namespace,
    cases: list[str] | None,
    *,
    required: bool,
) -> SuiteResult | None:
    """Run the configured model ``model`` as the agent; ``None`` when it is not declared
    (and not ``required``), so that the suite's Python agent runs instead."""
    from ragas_boot.container import create_container
    from ragas_boot.errors import JudgeNotFoundError

    settings = load_settings(config, profiles=profiles or None)
    with create_container(settings) as container:
        executor = container.executor()
        try:
            judge = executor.select([model])[0]
        except JudgeNotFoundError:
            if required or suite.agent is None:
                raise
            return None
        portal: LoopPortal = container.portal()
        agent = OpenAIToolAgent.for_suite(
            suite, spec=_agent_spec(judge, portal), retry=executor.retry_policy
        )
        return run_suite(suite, agent, concurrency=args.concurrency, cases=cases, portal=portal)


def _agent_spec(judge: JudgeModel, portal: LoopPortal) -> JudgeSpec:
    """The judge's spec, with the URL of its server.

    A judge of the embedded ``local`` provider starts its model server on demand; it is
    prepared on the portal first, after which its spec carries the server's URL.
    """
    if getattr(judge.spec, "local", None) is not None:

        async def prepare() -> None:
            judge.prepare()  # on the portal's loop, where the judge's clients live

        portal.call(prepare())
    return judge.spec
