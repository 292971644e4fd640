"""The ``ragas-boot`` command: evaluate and compare on dataset files, inspect the configuration.

One module per subcommand (``evaluate``, ``compare``, ``calibrate``, ``config``, ``cache``,
``runs``, ``schema``, ``suite``), each registered with :func:`register_command` as a plugin's
would be; the private modules hold what they share (``_arguments``, ``_console``, ``_errors``,
``_reports``, ``_history``) and the dataset run (``_options``: the flags over the YAML, once;
``_dataset``: plan -> run -> report -> exit code).

Subcommands::

    ragas-boot evaluate DATASET --metric NAME [...]   score a dataset (or a table, traces: --from);
                                                      CI gate with --fail-under
    ragas-boot compare DATASET [...]                  the judges side by side, and their agreement
    ragas-boot calibrate DATASET [...]                the judges and panels against people's labels
    ragas-boot config show | check [--ping]           the resolved YAML; validate (reach) judges;
                                                      list the metrics that cannot run
    ragas-boot cache stats | clear [--expired]        the judges' response cache (stats: exit 1
                                                      when its files are unusable)
    ragas-boot schema dataset | report | calibration  JSON Schemas of datasets and JSON reports
    ragas-boot suite run SUITE.yaml [...]             run a tool suite; gate CI on its pass rate
    ragas-boot runs list | diff BASE NEW              the run history; gate CI on a regression

Exit codes: 0 success; 1 a quality gate failed (``--fail-under``, ``--min-pass-rate``, a missed
quorum, a metric with no score at all, a judge that did not answer ``--ping``,
``--fail-on-regression``); 2 bad input (arguments, configuration or dataset, a dataset of no
samples without ``--allow-empty`` included), reported as one message without a traceback
(``--debug`` shows it), a report that could not be written, or a history ``runs`` cannot
read (a run that could not be recorded is a warning, never its exit code); 3 the spend
cap (``--max-cost``) cut the run short; 130 interrupted (SIGINT), 143 terminated (SIGTERM).

``evaluate`` and ``compare`` never lose finished work: on SIGINT or SIGTERM they stop sending,
cancel the judge calls in flight, write every ``--out`` report of what finished (the rest
marked ``interrupted``) and stop the local judge; a second signal aborts at once. Every
``--out`` path is checked before the first judge call, and reports are written atomically
(a temporary file renamed over the target), never through a symbolic link unless
``--follow-symlinks`` is given; the temporary file a killed run left (``.NAME.XXXX.tmp``) is
removed by the next run that writes that report.

Adding a subcommand
-------------------
Other packages add subcommands through :func:`register_command`::

    import argparse

    from ragas_boot.cli import add_config_arguments, register_command, settings_from_args, stdout

    def configure(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("report")
        add_config_arguments(parser)            # --config / --profile, as the built-ins

    def run(args: argparse.Namespace) -> int:
        settings = settings_from_args(args)     # loads, and keeps its secrets out of output
        stdout().print(f"publishing {args.report}")
        return 0

    register_command("publish", configure, run, help="publish a report")

The module that registers must be imported before :func:`main` builds its parser: declare it
as an entry point in the group ``ragas_boot.commands`` (the object is a function of no
arguments that calls :func:`register_command`, or a module that does so when imported)::

    [project.entry-points."ragas_boot.commands"]
    publish = "my_package.cli:register"

``run`` returns the exit code; a :class:`~ragas_boot.errors.RagasBootError` (or ``OSError``)
it raises becomes exit code 2 with its message. Print through :func:`stdout` and
:func:`stderr` (rich consoles that mask every secret of the loaded settings). Keep heavy
imports inside ``run``: ``ragas-boot --help`` imports every registered module.
"""

from __future__ import annotations

from ragas_boot.cli._arguments import (
    add_config_arguments,
    positive_int,
    settings_from_args,
    unit_float,
)
from ragas_boot.cli._console import stderr, stdout
from ragas_boot.cli._errors import (
    EXIT_BAD_INPUT,
    EXIT_BUDGET,
    EXIT_GATE_FAILED,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_TERMINATED,
    UsageError,
)
from ragas_boot.cli._registry import (
    ENTRY_POINT_GROUP,
    Command,
    register_command,
    registered_commands,
    unregister_command,
)

# The built-in commands register themselves on import, in the order ``--help`` lists them.
from ragas_boot.cli import evaluate, compare, calibrate, config, cache, runs, schema, suite  # noqa: F401  # isort: skip
from ragas_boot.cli import generate  # noqa: F401  # isort: skip
from ragas_boot.cli._main import build_parser, main

__all__ = [
    "ENTRY_POINT_GROUP",
    "EXIT_BAD_INPUT",
    "EXIT_BUDGET",
    "EXIT_GATE_FAILED",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_TERMINATED",
    "Command",
    "UsageError",
    "add_config_arguments",
    "build_parser",
    "main",
    "positive_int",
    "register_command",
    "registered_commands",
    "settings_from_args",
    "stderr",
    "stdout",
    "unit_float",
    "unregister_command",
]
