"""The ``ragas-boot`` command: evaluate and compare on dataset files, inspect the configuration.

Subcommands::

    ragas-boot evaluate DATASET --metric NAME [...]   score a dataset; CI gate with --fail-under
    ragas-boot compare DATASET [...]                  the judges side by side, and their agreement
    ragas-boot calibrate DATASET [...]                the judges and panels against people's labels
    ragas-boot config show | check [--ping]           the resolved YAML; validate (and reach) judges
    ragas-boot cache stats | clear [--expired]        the judges' response cache
    ragas-boot schema dataset | report | calibration  JSON Schemas of datasets and JSON reports
    ragas-boot suite run SUITE.yaml [...]             run a tool suite; gate CI on its pass rate
    ragas-boot runs list | diff BASE NEW              the run history; gate CI on a regression

Exit codes: 0 success; 1 a quality gate failed (``--fail-under``, ``--min-pass-rate``, a missed
quorum, a metric with no score at all, a judge that did not answer ``--ping``,
``--fail-on-regression``); 2 bad input (arguments, configuration or dataset), reported as one
message without a traceback (``--debug`` shows it), or a report (or the run history) that could
not be written; 3 the spend cap (``--max-cost``) cut the run short; 130 interrupted (SIGINT),
143 terminated (SIGTERM).

``evaluate`` and ``compare`` never lose finished work: on SIGINT or SIGTERM they stop sending,
cancel the judge calls in flight, write every ``--out`` report of what finished (the rest
marked ``interrupted``) and stop the local judge; a second signal aborts at once. Every
``--out`` path is checked before the first judge call, and reports are written atomically
(a temporary file renamed over the target), never through a symbolic link unless
``--follow-symlinks`` is given.

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

import argparse
import contextlib
import io
import json
import logging
import math
import os
import signal
import sys
import tempfile
import threading
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO, cast

if TYPE_CHECKING:  # heavy modules are imported by the commands that use them
    from rich.console import Console

    from ragas_boot.config.settings import RagasSettings
    from ragas_boot.runs import ProgressCallback, RunResult
    from ragas_boot.runs.history import StoredRun
    from ragas_boot.runs.regressions import RunDiff
    from ragas_boot.runs.suites import AgentTestSuite, SuiteResult

__all__ = [
    "ENTRY_POINT_GROUP",
    "Command",
    "UsageError",
    "add_config_arguments",
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

#: Entry-point group scanned for :func:`register_command` calls of other packages.
ENTRY_POINT_GROUP = "ragas_boot.commands"

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_BAD_INPUT = 2
#: The run's spend cap (``--max-cost``, ``spring.ai.ragas.run.max-cost``) cut it short.
EXIT_BUDGET = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

_REPORT_SUFFIXES = {".html": "html", ".htm": "html", ".json": "json"}


class UsageError(Exception):
    """A bad argument value; reported like a configuration error (exit code 2)."""


# --------------------------------------------------------------------------- registry


@dataclass(frozen=True, slots=True)
class Command:
    """A subcommand: how to declare its arguments and how to run it.

    Attributes:
        name: the word after ``ragas-boot``.
        configure: adds the subcommand's arguments to its parser.
        run: runs it and returns the exit code.
        help: one line for ``ragas-boot --help``.
    """

    name: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]
    help: str = ""


_COMMANDS: dict[str, Command] = {}
_plugins_loaded = False


def register_command(
    name: str,
    configure: Callable[[argparse.ArgumentParser], None],
    run: Callable[[argparse.Namespace], int],
    *,
    help: str = "",
    replace: bool = False,
) -> Command:
    """Add a subcommand ``ragas-boot NAME`` (see the module docstring).

    Raises:
        ValueError: ``name`` is taken (pass ``replace=True`` to override it) or empty.
    """
    if not name or name.startswith("-") or " " in name:
        raise ValueError(f"invalid command name {name!r}")
    if name in _COMMANDS and not replace:
        raise ValueError(f"the command {name!r} is already registered")
    command = Command(name=name, configure=configure, run=run, help=help)
    _COMMANDS[name] = command
    return command


def unregister_command(name: str) -> None:
    """Remove a subcommand (no error when it is not registered)."""
    _COMMANDS.pop(name, None)


def registered_commands() -> list[Command]:
    """The subcommands, in registration order (entry points loaded first)."""
    _load_plugins()
    return list(_COMMANDS.values())


def _load_plugins() -> None:
    global _plugins_loaded
    if _plugins_loaded:
        return
    _plugins_loaded = True
    from importlib.metadata import entry_points

    for entry in entry_points(group=ENTRY_POINT_GROUP):
        try:
            loaded = entry.load()
            if callable(loaded):
                loaded()
        except Exception as error:  # a broken plugin must not take the built-ins down
            print(
                f"ragas-boot: warning: command plugin {entry.name!r} ({entry.value}) failed "
                f"to load: {error}",
                file=sys.stderr,
            )


# --------------------------------------------------------------------------- output


class _RedactingWriter(io.TextIOBase):
    """A text stream that masks secrets on the way out."""

    def __init__(self, target: TextIO, secrets: set[str]) -> None:
        self._target = target
        self._secrets = secrets

    def write(self, text: str) -> int:
        from ragas_boot.reporting.redaction import redact

        self._target.write(redact(text, self._secrets) if self._secrets else text)
        return len(text)

    def flush(self) -> None:
        self._target.flush()

    def isatty(self) -> bool:
        return bool(getattr(self._target, "isatty", lambda: False)())

    def writable(self) -> bool:
        return True


@dataclass
class _Session:
    out: Console
    err: Console
    out_stream: _RedactingWriter
    secrets: set[str] = field(default_factory=set)


_SESSION: ContextVar[_Session] = ContextVar("ragas_boot_cli_session")


def _width(stream: TextIO) -> int | None:
    if getattr(stream, "isatty", lambda: False)():
        return None
    try:
        return max(80, int(os.environ.get("COLUMNS", "")))
    except ValueError:
        return 120


def _session() -> _Session:
    try:
        return _SESSION.get()
    except LookupError:
        raise RuntimeError("ragas-boot CLI output is only available while main() runs") from None


def _open_session() -> _Session:
    from rich.console import Console

    secrets: set[str] = set()
    out_stream = _RedactingWriter(sys.stdout, secrets)
    err_stream = _RedactingWriter(sys.stderr, secrets)
    out = Console(
        file=cast(IO[str], out_stream), width=_width(sys.stdout), highlight=False, emoji=False
    )
    err = Console(
        file=cast(IO[str], err_stream),
        width=_width(sys.stderr),
        highlight=False,
        emoji=False,
        soft_wrap=True,
    )
    return _Session(out=out, err=err, out_stream=out_stream, secrets=secrets)


def stdout() -> Console:
    """The console for results (stdout); secrets of loaded settings are masked."""
    return _session().out


def stderr() -> Console:
    """The console for progress, logs and errors (stderr); secrets are masked."""
    return _session().err


def _write(text: str) -> None:
    """Raw text to stdout (JSON, YAML), masked, without rich's wrapping."""
    session = _session()
    session.out_stream.write(text)
    session.out_stream.flush()


def _message(text: str, style: str = "") -> None:
    from ragas_boot.reporting._format import plain

    # Messages quote file names, sample ids and values from datasets and configs: shown as
    # written (no markup, control characters escaped), never interpreted by the terminal.
    stderr().print(plain(text, style=style))


class _PrintableFormatter(logging.Formatter):
    """Log records may quote dataset or config text: control characters are shown escaped."""

    def format(self, record: logging.LogRecord) -> str:
        from ragas_boot._text import printable

        return printable(super().format(record))


class _QuietExecution(logging.Filter):
    """Each judge failure is in the results; its log line is noise unless asked for."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR or not record.name.startswith("ragas_boot.execution")


@contextlib.contextmanager
def _logging(err: Console, *, verbose: bool, debug: bool) -> Iterator[None]:
    from rich.logging import RichHandler

    logger = logging.getLogger("ragas_boot")
    level = logging.DEBUG if debug else logging.INFO if verbose else logging.WARNING
    handler = RichHandler(
        console=err, show_time=False, show_path=False, markup=False, rich_tracebacks=False
    )
    handler.setFormatter(_PrintableFormatter("%(message)s"))
    handler.setLevel(level)
    if not (verbose or debug):
        handler.addFilter(_QuietExecution())
    saved = (logger.level, logger.propagate)
    logger.addHandler(handler)
    logger.setLevel(level)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(saved[0])
        logger.propagate = saved[1]


# --------------------------------------------------------------------------- shared arguments


def add_config_arguments(
    parser: argparse.ArgumentParser,
    *,
    default_help: str = "$RAGAS_CONFIG, else ./application.yaml",
) -> None:
    """Add ``--config FILE`` and ``--profile NAME`` (repeatable, or comma-separated).

    ``default_help`` says where the configuration comes from without ``--config``.
    """
    parser.add_argument(
        "--config",
        metavar="FILE",
        help=f"application.yaml to read (default: {default_help})",
    )
    parser.add_argument(
        "--profile",
        action="append",
        default=[],
        metavar="NAME",
        help="Spring profile to activate; repeat or comma-separate for several",
    )


def settings_from_args(args: argparse.Namespace) -> RagasSettings:
    """Load the settings named by ``--config`` / ``--profile``; mask their secrets in output.

    Raises:
        ConfigError: the configuration is invalid (exit code 2 when raised from a command).
    """
    from ragas_boot.config import load_settings
    from ragas_boot.reporting.redaction import secret_values

    profiles = [p.strip() for value in args.profile for p in value.split(",") if p.strip()]
    settings = load_settings(args.config, profiles=profiles or None)
    with contextlib.suppress(RuntimeError):  # outside main(): nothing to mask
        _session().secrets.update(secret_values(settings))
    return settings


def positive_int(text: str) -> int:
    """An argparse type: a whole number ≥ 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def unit_float(text: str) -> float:
    """An argparse type: a number in [0, 1], or a percentage such as ``90%``."""
    raw = text.strip()
    try:
        value = float(raw[:-1]) / 100 if raw.endswith("%") else float(raw)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {value}")
    return value


def positive_float(text: str) -> float:
    """An argparse type: a finite number > 0 (an amount such as ``2.50``)."""
    try:
        value = float(text.strip().removeprefix("$"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a number above 0, got {text!r}")
    return value


def _aggregation(text: str) -> str:
    from ragas_boot.config.settings import Aggregation

    try:
        return Aggregation(text).value
    except ValueError:
        known = ", ".join(member.value.lower() for member in Aggregation)
        raise argparse.ArgumentTypeError(
            f"unknown aggregation {text!r}; use one of {known}"
        ) from None


# --------------------------------------------------------------------------- evaluate / compare


def _configure_run(parser: argparse.ArgumentParser, *, metric_required: bool) -> None:
    parser.add_argument("dataset", metavar="DATASET", help="dataset file (.yaml, .json, .jsonl)")
    parser.add_argument(
        "--metric",
        action="append",
        default=[],
        metavar="NAME",
        required=metric_required,
        help=f"metric to run: {_metric_choices()}; METRIC:CRITERION runs a named criterion "
        "of the YAML (aspect_critic:no-profanity); repeat"
        + (
            ""
            if metric_required
            else "; default: every metric that uses judges and can read the dataset's samples"
        ),
    )
    add_config_arguments(parser)
    parser.add_argument(
        "--models",
        action="append",
        default=[],
        metavar="A,B",
        help="only these judges (ids or aliases, comma-separated); default: all",
    )
    parser.add_argument(
        "--aggregation",
        type=_aggregation,
        metavar="NAME",
        help="how judges' scores combine: average, median, min, max, majority_voting, consensus",
    )
    parser.add_argument(
        "--concurrency",
        type=positive_int,
        default=8,
        metavar="N",
        help="evaluations in flight at once (default: 8)",
    )
    parser.add_argument(
        "--out",
        action="append",
        default=[],
        metavar="FILE",
        help="write a report: .html (self-contained) or .json; repeat for several",
    )
    parser.add_argument(
        "--fail-under",
        type=unit_float,
        metavar="X",
        help="exit 1 when the mean score of any metric is under X (a CI gate); for "
        "lower-is-better metrics (noise_sensitivity, hallucination), over 1 - X",
    )
    parser.add_argument(
        "--min-judges",
        type=positive_int,
        metavar="K",
        help="quorum: a score needs K answering judges, else it is undefined ('no quorum') "
        "and fails the gate unless quorum-failure is SKIP (default: the YAML's min-judges)",
    )
    parser.add_argument(
        "--repeat",
        type=_repeat_count,
        metavar="N",
        help="score each sample N times (repeats bypass the response cache); reports show "
        "each sample's pass rate, its 95%% Wilson interval and 'unstable' when the repeats "
        "disagree (default: the YAML's repeat, else 1)",
    )
    parser.add_argument(
        "--min-pass-rate",
        type=unit_float,
        metavar="X",
        help="exit 1 when any sample's share of passing repeats is under X, 0.8 or 80%% "
        "(default: each metric's min-pass-rate)",
    )
    parser.add_argument(
        "--follow-symlinks",
        action="store_true",
        help="--out may be a symbolic link: write to its target (default: refuse)",
    )
    parser.add_argument(
        "--deadline",
        type=_duration,
        metavar="DURATION",
        help="longest time the whole run may take (30s, 10m, 1h); then what is unfinished is "
        "cancelled and reported as 'deadline' (default: spring.ai.ragas.run.deadline)",
    )
    parser.add_argument(
        "--evaluation-deadline",
        type=_duration,
        metavar="DURATION",
        help="longest time one sample × metric may take (default: "
        "spring.ai.ragas.run.evaluation-deadline)",
    )
    parser.add_argument(
        "--max-cost",
        type=positive_float,
        metavar="AMOUNT",
        help="spend cap of the run, in the judges' price currency: once the priced judges' "
        "billed tokens cost AMOUNT no judge call is sent, what is unfinished is reported as "
        "'budget' and the exit code is 3 (default: spring.ai.ragas.run.max-cost)",
    )
    parser.add_argument(
        "--spool-after",
        type=_spool_after,
        metavar="N",
        help="a run of more than N samples keeps its judge calls' prompts and raw answers in "
        "an unnamed temporary file instead of memory (the JSON report is the same; the HTML "
        "report shows them for the first and the failing samples); 0 = always, 'never' = keep "
        "everything in memory (default: spring.ai.ragas.run.spool-after, 1000)",
    )
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="send nothing: print the judge calls the run would make per metric and judge, "
        "their estimated tokens and cost, and exit 0",
    )
    parser.add_argument(
        "--no-progress", action="store_true", help="no live progress bar (auto off when piped)"
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the response cache (default: spring.ai.ragas.cache.enabled)",
    )
    _add_cache_dir(parser)
    _add_history_arguments(parser)


def _spool_after(text: str) -> int | str:
    """An argparse type: a whole number ≥ 0, or ``never``."""
    if text.strip().lower() == "never":
        return "never"
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a whole number or 'never', got {text!r}"
        ) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, got {value}")
    return value


def _add_cache_dir(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="response cache folder (default: spring.ai.ragas.cache.dir, else "
        "$RAGAS_BOOT_HOME/cache, else ./.ragas-boot/cache)",
    )


def _with_cache_arguments(settings: RagasSettings, args: argparse.Namespace) -> RagasSettings:
    """The settings with ``--no-cache`` / ``--cache-dir`` applied to ``spring.ai.ragas.cache``."""
    update: dict[str, Any] = {}
    if getattr(args, "no_cache", False):
        update["enabled"] = False
    if getattr(args, "cache_dir", None):
        update["dir"] = args.cache_dir
    if not update:
        return settings
    return settings.model_copy(update={"cache": settings.cache.model_copy(update=update)})


def _repeat_count(text: str) -> int:
    """An argparse type: a repeat count in [1, MAX_REPEATS]."""
    from ragas_boot.metrics.base import MAX_REPEATS

    value = positive_int(text)
    if value > MAX_REPEATS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_REPEATS}, got {value}")
    return value


def _add_history_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--baseline",
        metavar="RUN",
        help="after the run, print (and put in --out HTML) its diff against this recorded run: "
        "a run id, 'latest' or 'previous' (see `ragas-boot runs list`)",
    )
    _add_regression_arguments(parser, gate_help="with --baseline: exit 1 when a metric regressed")
    parser.add_argument(
        "--no-history",
        action="store_true",
        help="do not record this run in the run history (spring.ai.ragas.history)",
    )


def _add_regression_arguments(parser: argparse.ArgumentParser, *, gate_help: str) -> None:
    parser.add_argument("--fail-on-regression", action="store_true", help=gate_help)
    parser.add_argument(
        "--tolerance",
        type=unit_float,
        default=0.0,
        metavar="X",
        help="a metric's mean may fall by X before it counts as a regression (default: 0)",
    )


def _duration(text: str) -> float:
    """An argparse type: a duration with a unit (``500ms``, ``30s``, ``10m``, ``PT1H``)."""
    from ragas_boot.config.settings import parse_duration

    if text.strip().replace(".", "", 1).isdigit():
        raise argparse.ArgumentTypeError(f"give a unit, e.g. {text.strip()}s or {text.strip()}m")
    try:
        value = parse_duration(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    seconds = float(value.total_seconds())
    if not seconds > 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {text!r}")
    return seconds


def _report_paths(values: Sequence[str], *, follow_symlinks: bool) -> list[tuple[Path, str]]:
    """The ``--out`` paths, each checked writable now: a bad one must not cost a whole run."""
    paths: list[tuple[Path, str]] = []
    for value in values:
        path = Path(value)
        kind = _REPORT_SUFFIXES.get(path.suffix.lower())
        if kind is None:
            raise UsageError(f"--out {value}: use a .html, .htm or .json file name")
        if path.is_symlink():
            if not follow_symlinks:
                raise UsageError(
                    f"--out {value} is a symbolic link (to {os.readlink(path)}); pass "
                    "--follow-symlinks to write to its target, or choose another name"
                )
            path = path.resolve()
        if not path.parent.is_dir():
            raise UsageError(f"--out {value}: the directory {path.parent} does not exist")
        if path.exists() and not path.is_file():
            raise UsageError(f"--out {value} exists and is not a file")
        if path.exists() and not os.access(path, os.W_OK):
            raise UsageError(f"--out {value} is not writable")
        try:  # the report is renamed into place: the directory must take a new file
            probe, probe_name = tempfile.mkstemp(
                dir=path.parent, prefix=".ragas-boot-", suffix=".tmp"
            )
            os.close(probe)
            os.unlink(probe_name)
        except OSError as error:
            raise UsageError(
                f"--out {value}: cannot write in {path.parent}: {error.strerror or error}"
            ) from None
        if any(path == earlier for earlier, _ in paths):
            raise UsageError(f"--out {value} is given twice")
        paths.append((path, kind))
    return paths


def _write_atomically(path: Path, text: str | Iterable[str]) -> None:
    """Write ``text`` (or its pieces, one at a time) to a temporary file beside ``path``,
    then rename it over ``path``.

    A reader never sees half a report, an interrupted write leaves the old one in place, and
    a symbolic link at ``path`` is replaced, never written through (callers resolve it first
    when asked to follow it).
    """
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            for piece in (text,) if isinstance(text, str) else text:
                file.write(piece)
            file.flush()
            os.fsync(file.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)  # as a plain open() would (mkstemp makes 0600)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _metric_choices() -> str:
    """The registered metrics for ``--metric``'s help (importing no LLM client)."""
    from ragas_boot.metrics.registry import METRICS

    return ", ".join(METRICS)


def _metric_names(
    names: Sequence[str], settings: RagasSettings | None = None, samples: Sequence[Any] = ()
) -> list[str]:
    """Bean names for ``--metric`` (``aspect_critic:no-profanity`` names a criterion).

    Without ``--metric``: every metric that uses judges and can read some sample of the
    dataset (an agent dataset does not run the RAG metrics, nor a RAG dataset the agent
    ones); a metric with named criteria (AspectCritic, ...) runs as its declared criteria,
    since it needs one.

    Raises:
        UsageError: an unknown metric.
        ConfigError: a criterion the settings do not declare (lists the declared ones).
    """
    from ragas_boot.metrics.base import Need
    from ragas_boot.metrics.registry import METRICS, metric_class, split_criterion

    if not names:
        chosen = []
        for name, cls in METRICS.items():
            if not cls.uses(Need.JUDGES):
                continue
            if samples and not any(map(cls.can_read, samples)):
                continue
            if cls.criteria_key is None:
                chosen.append(name)
            elif settings is not None:
                chosen.extend(f"{name}:{c}" for c in cls.criteria(settings.metrics))
        return chosen
    chosen = []
    for name in names:
        metric, criterion = split_criterion(name)
        try:
            cls = metric_class(metric)
        except KeyError as error:
            raise UsageError(str(error.args[0])) from None
        key = cls.bean_name
        if criterion is not None:
            if not criterion:
                raise UsageError(f"--metric {name}: name the criterion after the colon")
            if settings is not None:
                criterion = cls.find_criterion(settings.metrics, criterion)
            key = f"{key}:{criterion}"
        if key not in chosen:
            chosen.append(key)
    return chosen


def _needs_models(names: Sequence[str]) -> bool:
    """Whether any of the metrics uses judges or embedding models."""
    from ragas_boot.metrics.base import Need
    from ragas_boot.metrics.registry import metric_class, split_criterion

    return any(
        metric_class(split_criterion(name)[0]).uses(Need.JUDGES)
        or metric_class(split_criterion(name)[0]).uses(Need.EMBEDDINGS)
        for name in names
    )


def _without_embedding_metrics(names: Sequence[str]) -> list[str]:
    from ragas_boot.metrics.base import Need
    from ragas_boot.metrics.registry import metric_class, split_criterion

    return [
        name for name in names if not metric_class(split_criterion(name)[0]).uses(Need.EMBEDDINGS)
    ]


def _run_configs(args: argparse.Namespace, names: Sequence[str]) -> dict[str, dict[str, Any]]:
    override: dict[str, Any] = {}
    models = [m.strip() for value in args.models for m in value.split(",") if m.strip()]
    if models:
        override["models"] = models
    if args.aggregation:
        override["aggregation"] = args.aggregation
    for key in ("min_judges", "repeat"):
        if getattr(args, key, None) is not None:
            override[key] = getattr(args, key)
    return {name: dict(override) for name in names} if override else {}


@contextlib.contextmanager
def _progress(enabled: bool, total: int) -> Iterator[ProgressCallback | None]:
    if not enabled:
        yield None
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, SpinnerColumn, TextColumn

    from ragas_boot.reporting import _format as fmt
    from ragas_boot.runs import RunProgress

    columns = (
        SpinnerColumn(),
        TextColumn("Evaluating"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("samples · {task.fields[detail]}"),
    )
    with Progress(*columns, console=stderr(), transient=True) as bar:
        task = bar.add_task("evaluate", total=total, detail="starting")

        def update(state: RunProgress) -> None:
            eta = fmt.seconds(state.eta_s) if state.eta_s is not None else "…"
            detail = (
                f"{state.judge_calls} judge calls ({state.failed_judge_calls} failed) · "
                f"{state.failed_evaluations} failed evaluations · ETA {eta}"
            )
            bar.update(task, completed=state.samples_done, detail=detail)

        yield update


@contextlib.contextmanager
def _stop_on_signals(on_signal: Callable[[int], None]) -> Iterator[None]:
    """Call ``on_signal`` on SIGINT / SIGTERM (main thread only); restore the old handlers."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[int] = []

    def handler(signum: int, frame: object) -> None:
        if received:  # a second signal: stop waiting for a clean end
            raise KeyboardInterrupt
        received.append(signum)
        on_signal(signum)

    saved = {number: signal.signal(number, handler) for number in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for number, previous in saved.items():
            signal.signal(number, previous)


def _run_dataset(args: argparse.Namespace, view: str) -> int:
    from ragas_boot.container import create_container
    from ragas_boot.datasets import load_dataset
    from ragas_boot.reporting import console_renderables
    from ragas_boot.reporting.gates import run_gate_lines
    from ragas_boot.reporting.html_report import html_chunks
    from ragas_boot.reporting.json_report import json_chunks
    from ragas_boot.runs import RunControl, evaluate_dataset

    reports = _report_paths(args.out, follow_symlinks=args.follow_symlinks)
    _metric_names(args.metric)  # an unknown metric is reported before anything is loaded
    dataset = load_dataset(args.dataset)
    settings = _with_cache_arguments(settings_from_args(args), args)
    names = _metric_names(args.metric, settings, dataset.samples)
    if view == "calibrate":  # before any judge is asked: labels and the extra are needed
        from ragas_boot.runs.calibration import check_ready

        check_ready(dataset.samples, names)
    baseline = _baseline(args, settings)  # an unknown baseline fails before any judge call
    deadline = args.deadline
    if deadline is None and settings.run.deadline is not None:
        deadline = settings.run.deadline.total_seconds()
    evaluation_deadline = args.evaluation_deadline
    if evaluation_deadline is None and settings.run.evaluation_deadline is not None:
        evaluation_deadline = settings.run.evaluation_deadline.total_seconds()
    max_cost = args.max_cost if args.max_cost is not None else settings.run.max_cost
    spool_after: int | None = settings.run.spool_after  # --spool-after overrides it
    if args.spool_after is not None:
        spool_after = None if args.spool_after == "never" else int(args.spool_after)
    if args.dry_run:
        return _dry_run(args, settings, dataset, names)
    control = RunControl()
    signals: list[int] = []

    def stop(signum: int) -> None:
        signals.append(signum)
        control.stop("interrupted")

    # The spool of a large run is closed (its unnamed file gone) once the reports are written.
    with _stop_on_signals(stop), contextlib.ExitStack() as cleanup:
        # Metrics that use no judge (ToolCallAccuracy, NLP) never build one: such a run needs
        # neither the local judge's extra nor a reachable model.
        judged = _needs_models(names) or not args.metric
        with create_container(settings, build_judges=judged) as container:  # stops local judge
            if not args.metric and not container.embedding_models():
                # By default, metrics that need embedding models are left out when none is
                # configured; asked for by name, they fail with an error naming
                # embedding-models.
                names = _without_embedding_metrics(names)
            beans = {name: container.metric(name) for name in names}
            for bean in beans.values():
                bean.check_ready()  # a missing judge or embedding model fails before any call
            enabled = not args.no_progress and stderr().is_terminal
            with _progress(enabled, len(dataset)) as callback:
                run = evaluate_dataset(
                    dataset,
                    beans,
                    configs=_run_configs(args, names),
                    concurrency=args.concurrency,
                    progress=callback,
                    deadline_s=deadline,
                    evaluation_deadline_s=evaluation_deadline,
                    control=control,
                    max_cost=max_cost,
                    spool_after=spool_after,
                )
                cleanup.callback(run.close_spool)
        console = stdout()
        calibration = _calibration(run, args, view, dataset.samples)
        if view == "calibrate":
            from ragas_boot.reporting.calibration import calibration_renderables

            parts = calibration_renderables(calibration) if calibration is not None else []
        else:
            parts = console_renderables(run, "compare" if view == "compare" else "evaluate")
            if calibration is not None:  # compare on a labelled dataset: the people too
                from ragas_boot.reporting.calibration import calibration_renderables

                parts += calibration_renderables(calibration)
        for part in parts:
            console.print(part)
        snapshot, recorded = _record_run(args, settings, run, view)
        diff = _print_diff(args, baseline, snapshot)
        title = (
            f"ragas-boot judge comparison: {dataset.name or args.dataset}"
            if view == "compare"
            else None
        )
        unwritten = 0
        for path, kind in reports:  # one report failing must not cost the others
            try:
                if view == "calibrate" and calibration is not None:
                    _write_atomically(path, _redact(_calibration_text(calibration, kind)))
                elif kind == "html":  # compare on labels: the people's section too
                    # A sample at a time, as the JSON report: whole elements, so no secret
                    # straddles two pieces.
                    pages = html_chunks(run, title=title, baseline=diff, calibration=calibration)
                    _write_atomically(path, (_redact(page) for page in pages))
                else:
                    # Streamed a sample at a time: a large run's report is never one string.
                    # Each piece is whole JSON values, so no secret straddles two pieces.
                    pieces = json_chunks(run, calibration=calibration)
                    _write_atomically(path, (_redact(piece) for piece in pieces))
            except OSError as error:
                unwritten += 1
                _message(f"ragas-boot: error: cannot write {path}: {error}", "bold red")
            else:
                _message(f"Report written: {path}")
    if run.stopped is not None:
        unfinished = sum(
            1
            for sample in run.samples
            for evaluation in sample.evaluations
            if evaluation.error is not None and evaluation.error.kind == run.stopped
        )
        total = run.dataset.size * len(run.metrics)
        cause = {
            "deadline": "the run's deadline passed",
            "budget": f"the spend cap of {run.max_cost or 0:g} was reached",
        }.get(run.stopped, "interrupted")
        _message(
            f"STOPPED {cause}: {total - unfinished} of {total} evaluations finished, "
            f"{unfinished} marked '{run.stopped}'",
            "bold red",
        )
    if signals:
        return EXIT_TERMINATED if signals[0] == signal.SIGTERM else EXIT_INTERRUPTED
    if unwritten or not recorded:
        return EXIT_BAD_INPUT
    if run.stopped == "budget":
        return EXIT_BUDGET
    gate = run.gate(args.fail_under, min_pass_rate=args.min_pass_rate)
    if not gate.passed or run.stopped is None:  # no PASSED line for a run cut short
        for line in run_gate_lines(gate):
            _message(line, "green" if gate.passed else "bold red")
    regressed = diff is not None and diff.regressed and args.fail_on_regression
    return EXIT_OK if gate.passed and run.stopped is None and not regressed else EXIT_GATE_FAILED


# --------------------------------------------------------------------------- run history


def _baseline(args: argparse.Namespace, settings: RagasSettings) -> StoredRun | None:
    """The ``--baseline`` run, loaded before the new run is made (so 'latest' is the last
    one recorded before it)."""
    if args.fail_on_regression and not args.baseline:
        raise UsageError("--fail-on-regression needs --baseline RUN (a run id or 'latest')")
    if not args.baseline:
        return None
    from ragas_boot.runs.history import open_history

    with open_history(settings) as history:
        return history.load(args.baseline)


def _record_run(
    args: argparse.Namespace, settings: RagasSettings, run: RunResult, view: str
) -> tuple[StoredRun, bool]:
    """The run as the history keeps it, recorded unless the history is off; False when
    recording failed (reported; exit code 2 once the reports are written)."""
    from ragas_boot.runs.history import snapshot_run

    source = settings.source
    snapshot = snapshot_run(
        run,
        kind="compare" if view in ("compare", "calibrate") else "evaluate",
        config_files=source.files,
        profiles=source.active_profiles,
    )
    return snapshot, _store(args, settings, snapshot)


def _store(args: argparse.Namespace, settings: RagasSettings | None, snapshot: StoredRun) -> bool:
    """Record ``snapshot`` unless ``--no-history`` or ``history.enabled: false``; False when
    that failed (reported). Without SQLAlchemy and with no history URL configured, a note."""
    from ragas_boot.errors import HistoryError, MissingExtraError
    from ragas_boot.runs.history import open_history

    section = settings.history if settings is not None else None
    if args.no_history or (section is not None and not section.enabled):
        return True
    try:
        with open_history(section) as history:  # its password is masked by settings_from_args
            history.record(snapshot)
            _message(f"Run recorded: {snapshot.id} ({history.label})", "dim")
    except MissingExtraError as error:
        if section is None or section.url is None:  # on by default: a note, not a failure
            _history_note(section, error)
            return True
        _message(f"ragas-boot: error: run not recorded: {error}", "bold red")
        return False
    except HistoryError as error:
        _message(f"ragas-boot: error: run not recorded: {error}", "bold red")
        return False
    return True


#: Marker file in the history's home: the note that runs are not recorded was shown there.
_HISTORY_NOTE_MARKER = "history-not-recorded-note"


def _history_note(section: Any, error: Exception) -> None:
    """Say that runs are not recorded without the ``[history]`` extra: on every run when the
    configuration asks for the history (``history.enabled: true`` written out), else once per
    home folder (a marker file there), so that a default history never nags; ``ragas-boot
    runs list`` still explains, and ``history.enabled: false`` says it is off on purpose."""
    from ragas_boot.runs.history import history_home

    asked = section is not None and "enabled" in section.model_fields_set
    if not asked:
        marker = history_home() / _HISTORY_NOTE_MARKER
        if marker.exists():
            return
        with contextlib.suppress(OSError):  # a read-only home: the note then shows each time
            marker.parent.mkdir(parents=True, exist_ok=True)
            marker.write_text(
                "ragas-boot told once here that runs are not recorded without the [history] "
                "extra; delete this file to be told again.\n",
                encoding="utf-8",
            )
    tail = (
        ""
        if asked
        else " (said once in this home folder; `ragas-boot runs list` explains again, "
        "spring.ai.ragas.history.enabled: false turns recording off)"
    )
    _message(f"note: run not recorded: {error}{tail}", "dim")


def _print_diff(
    args: argparse.Namespace, baseline: StoredRun | None, snapshot: StoredRun
) -> RunDiff | None:
    if baseline is None:
        return None
    from ragas_boot.runs.regressions import diff_runs

    return _show_diff(diff_runs(baseline, snapshot, tolerance=args.tolerance))


def _show_diff(diff: RunDiff) -> RunDiff:
    """Print the diff's tables (stdout) and its verdict lines (stderr)."""
    from ragas_boot.reporting.history_report import diff_lines, diff_renderables

    for part in diff_renderables(diff):
        stdout().print(part)
    for line in diff_lines(diff):
        _message(line, "bold red" if diff.regressed else "green")
    return diff


def _configure_runs(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="runs_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the recorded runs, latest first")
    diff = actions.add_parser(
        "diff",
        help="compare two recorded runs; exit 1 with --fail-on-regression when NEW regressed",
    )
    for action in (listing, diff):
        _flags(action, top=False)
        add_config_arguments(action)
    listing.add_argument(
        "--limit", type=positive_int, default=20, metavar="N", help="runs to show (default: 20)"
    )
    listing.add_argument(
        "--kind", choices=("evaluate", "compare", "suite"), help="only runs of this kind"
    )
    diff.add_argument("base", metavar="BASE", help="run id (or a unique prefix), latest, previous")
    diff.add_argument("new", metavar="NEW", help="run id (or a unique prefix), latest, previous")
    _add_regression_arguments(diff, gate_help="exit 1 when a metric regressed")


def _run_runs(args: argparse.Namespace) -> int:
    from ragas_boot.reporting.history_report import runs_table
    from ragas_boot.runs.history import open_history
    from ragas_boot.runs.regressions import diff_runs

    settings = _history_settings(args)
    with open_history(settings) as history:
        if args.runs_command == "list":
            runs = history.list_runs(limit=args.limit, kind=args.kind)
            stdout().print(runs_table(runs, title=f"Runs in {history.label}"))
            if not runs:
                _message("no run recorded yet: `ragas-boot evaluate` records each run")
            return EXIT_OK
        base, new = history.load(args.base), history.load(args.new)
    diff = _show_diff(diff_runs(base, new, tolerance=args.tolerance))
    return EXIT_GATE_FAILED if diff.regressed and args.fail_on_regression else EXIT_OK


def _calibration(run: Any, args: argparse.Namespace, view: str, samples: Sequence[Any]) -> Any:
    """The run against the samples' labels (``calibrate``; ``compare`` when labelled)."""
    if view == "evaluate" or not any(sample.labels for sample in samples):
        return None
    from ragas_boot.errors import MissingExtraError, SampleValidationError
    from ragas_boot.runs.calibration import calibrate

    try:
        return calibrate(
            run,
            seed=getattr(args, "seed", 0),
            resamples=getattr(args, "resamples", 1000),
        )
    except (MissingExtraError, SampleValidationError) as error:
        if view == "calibrate":
            raise
        # compare works without the extra, and on labels of metrics it did not run
        _message(f"Not compared with the dataset's labels: {error}", "dim")
        return None


def _calibration_text(report: Any, kind: str) -> str:
    from ragas_boot.reporting.calibration import (
        render_calibration_html,
        render_calibration_json,
    )

    return render_calibration_html(report) if kind == "html" else render_calibration_json(report)


def _dry_run(args: argparse.Namespace, settings: Any, dataset: Any, names: list[str]) -> int:
    """``--dry-run``: the calls, tokens and cost the run would make; nothing is sent."""
    from ragas_boot.container import create_container
    from ragas_boot.reporting.estimate import estimate_renderables
    from ragas_boot.runs.estimate import estimate_run

    with create_container(settings) as container:
        if not args.metric and not container.embedding_models():
            names = _without_embedding_metrics(names)
        beans = {name: container.metric(name) for name in names}
        for bean in beans.values():
            bean.check_ready()
        executor = container.executor()
        estimate = estimate_run(
            dataset,
            beans,
            configs=_run_configs(args, names),
            cached=executor.would_answer_from_cache if executor.cache is not None else None,
        )
    console = stdout()
    for part in estimate_renderables(estimate):
        console.print(part)
    return EXIT_OK


def _redact(text: str) -> str:
    from ragas_boot.reporting.redaction import redact

    return redact(text, _session().secrets)


def _configure_evaluate(parser: argparse.ArgumentParser) -> None:
    _configure_run(parser, metric_required=True)


def _configure_compare(parser: argparse.ArgumentParser) -> None:
    _configure_run(parser, metric_required=False)


def _configure_calibrate(parser: argparse.ArgumentParser) -> None:
    _configure_run(parser, metric_required=False)
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        metavar="N",
        help="seed of the bootstrap behind the confidence intervals (default: 0)",
    )
    parser.add_argument(
        "--resamples",
        type=positive_int,
        default=1000,
        metavar="N",
        help="bootstrap resamples per confidence interval (default: 1000)",
    )


# --------------------------------------------------------------------------- cache


def _configure_cache(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="cache_command", metavar="ACTION", required=True)
    stats = actions.add_parser("stats", help="entries, size and models of the response cache")
    clear = actions.add_parser("clear", help="remove the response cache's entries")
    clear.add_argument("--expired", action="store_true", help="only entries past their ttl")
    for action in (stats, clear):
        _flags(action, top=False)
        add_config_arguments(action)
        _add_cache_dir(action)


def _cache_settings(args: argparse.Namespace) -> Any:
    from ragas_boot.config.settings import CacheSettings

    if args.cache_dir:
        return CacheSettings(dir=args.cache_dir)
    default_files = [Path("application.yaml"), Path("application.yml")]
    configured = args.config is not None or os.environ.get("RAGAS_CONFIG")
    if not configured and not any(path.is_file() for path in default_files):
        return CacheSettings()  # no configuration here: the default folder
    return settings_from_args(args).cache


def _run_cache(args: argparse.Namespace) -> int:
    from ragas_boot.execution.cache import ResponseCache, resolve_cache_dir

    settings = _cache_settings(args)
    directory = resolve_cache_dir(settings.dir)
    if not directory.is_dir():
        _write(f"No response cache at {directory}\n")
        return EXIT_OK
    cache = ResponseCache(directory=directory, ttl=settings.ttl)
    try:
        if args.cache_command == "clear":
            removed = cache.clear(expired_only=args.expired)
            kind = "expired entries" if args.expired else "entries"
            _write(f"Removed {removed} {kind} from {directory}\n")
            return EXIT_OK
        stats = cache.stats()
    finally:
        cache.close()
    lines = [
        f"Response cache: {stats.directory}",
        f"Entries: {stats.entries} · size {stats.size_bytes / 1024:,.1f} KiB · "
        f"{stats.tokens:,} tokens when first asked (saved by each hit on them)",
        *(f"  {model}: {count}" for model, count in stats.models.items()),
    ]
    if not settings.enabled:
        lines.append("(spring.ai.ragas.cache.enabled is false: runs neither read nor write it)")
    _write("\n".join(lines) + "\n")
    return EXIT_OK


# --------------------------------------------------------------------------- config


def _configure_config(parser: argparse.ArgumentParser) -> None:
    actions = parser.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    show = actions.add_parser(
        "show", help="print the resolved YAML (secrets masked) with where each value came from"
    )
    check = actions.add_parser("check", help="validate the configuration and build the judges")
    for action in (show, check):
        _flags(action, top=False)
        add_config_arguments(action)
    check.add_argument("--ping", action="store_true", help="send one tiny request to each judge")
    check.add_argument(
        "--timeout",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="--ping: seconds to wait for each judge (default: 30)",
    )


def _run_config(args: argparse.Namespace) -> int:
    if args.config_command == "show":
        from ragas_boot.reporting import render_settings_yaml

        _write(render_settings_yaml(settings_from_args(args)))
        return EXIT_OK
    return _config_check(args)


def _config_check(args: argparse.Namespace) -> int:
    from rich.table import Table
    from rich.text import Text

    from ragas_boot.config.urls import append_path, mask_url
    from ragas_boot.container import create_container
    from ragas_boot.metrics.registry import METRICS, criterion_beans
    from ragas_boot.reporting._format import plain

    settings = settings_from_args(args)
    with create_container(settings) as container:
        judges = container.judges()
        if settings.metrics.enabled:
            for name in METRICS:  # building the beans validates their YAML sections
                getattr(container, name)()
            for name in criterion_beans(settings):  # and each named criterion over them
                getattr(container, name)()
        table = Table(title="Judges", title_justify="left")
        for column in ("Judge", "Provider", "Model", "Endpoint", "Output"):
            table.add_column(column, overflow="fold")
        for judge in judges:
            spec = judge.spec
            endpoint = mask_url(append_path(spec.base_url, spec.completions_path))
            table.add_row(
                plain(judge.id),
                plain(judge.provider),
                plain(spec.model),
                plain(getattr(judge, "endpoint", endpoint)),
                spec.structured_output.value,
            )
        stdout().print(table)
        if not judges:
            judged = _judged_sections(settings)
            if judged:  # configured, but they cannot run: the same error evaluate gives
                _message(
                    "ragas-boot: error: spring.ai.ragas.providers: no judges are configured, "
                    f"and the YAML configures metrics that need them: {', '.join(judged)}. "
                    "Declare chat-models under openai-compatible (or enable the local judge)",
                    "bold red",
                )
                return EXIT_BAD_INPUT
        providers = len({judge.provider for judge in judges})
        files = ", ".join(settings.source.files)
        profiles = ", ".join(settings.source.active_profiles)
        stdout().print(
            plain(
                f"Configuration OK: {len(judges)} judge(s) in {providers} provider(s) "
                f"(files: {files}; profiles: {profiles})",
                style="green",
            )
        )
        if not judges:
            _message(
                "warning: no judge is configured; only metrics without judges can run "
                "(tool_call_accuracy, the NLP metrics)",
                "yellow",
            )
        if not args.ping:
            return EXIT_OK
        results = container.portal().call(_ping_all(judges, args.timeout))
    ping = Table(title="Ping", title_justify="left")
    for column in ("Judge", "Status", "Latency", "Detail", "Modes accepted"):
        ping.add_column(column, overflow="fold")
    for result in results:
        ping.add_row(
            plain(result.judge_id),
            Text(
                "ok" if result.error is None else "failed",
                style="green" if result.error is None else "red",
            ),
            f"{result.latency_s * 1000:.0f} ms",
            plain(result.error or ""),
            plain(result.modes_text()),
        )
    stdout().print(ping)
    failed = [result.judge_id for result in results if result.error is not None]
    if failed:
        _message(f"FAILED {len(failed)} judge(s) did not answer: {', '.join(failed)}", "bold red")
        return EXIT_GATE_FAILED
    return EXIT_OK


def _judged_sections(settings: RagasSettings) -> list[str]:
    """The metrics needing judges that the YAML configures (a section or a named criterion)."""
    from ragas_boot.metrics.base import Need
    from ragas_boot.metrics.registry import METRICS

    return [
        name
        for name in settings.metrics.sections
        if name in METRICS and METRICS[name].uses(Need.JUDGES)
    ]


@dataclass
class _PingResult:
    judge_id: str
    error: str | None
    latency_s: float
    modes: dict[str, str | None] = field(default_factory=dict)

    def modes_text(self) -> str:
        """``prompt, json_object; not: json_schema (HTTP 500)``: what the judge took."""
        accepted = [mode for mode, error in self.modes.items() if error is None]
        refused = [f"{mode} ({error})" for mode, error in self.modes.items() if error is not None]
        text = ", ".join(accepted) or "none"
        return text + (f"; not: {', '.join(refused)}" if refused else "")


async def _ping_all(judges: Sequence[Any], seconds: float) -> list[_PingResult]:
    import asyncio
    import time

    from pydantic import BaseModel, Field

    class Ping(BaseModel):
        """The answer to a health check."""

        ok: bool = Field(description="Always true.")

    prompt = 'This is a health check. Answer with the JSON object {"ok": true}.'

    async def attempt(judge: Any) -> tuple[str | None, float]:
        started = time.perf_counter()
        try:
            judge.prepare()
            async with asyncio.timeout(seconds):
                await judge.ainvoke_structured(prompt, Ping)
        except Exception as error:
            kind = getattr(error, "kind_detail", None) or getattr(error, "kind", None)
            detail = f"{kind or type(error).__name__}: {error or f'no answer in {seconds:g} s'}"
            return detail, time.perf_counter() - started
        return None, time.perf_counter() - started

    async def short(judge: Any) -> str | None:
        """Why a mode failed, in a word or two (``HTTP 500``, ``output``, ``timeout``)."""
        try:
            judge.prepare()
            async with asyncio.timeout(seconds):
                await judge.ainvoke_structured(prompt, Ping)
        except Exception as error:
            status = getattr(error, "status_code", None)
            if status is not None:
                return f"HTTP {status}"
            return str(getattr(error, "kind", None) or type(error).__name__)
        return None

    async def ping(judge: Any) -> _PingResult:
        error, latency = await attempt(judge)
        result = _PingResult(judge.id, error, latency)
        configured = judge.spec.structured_output
        modes = [mode for mode in getattr(judge, "output_modes", ()) if mode is not configured]
        variants = [judge.with_output_mode(mode) for mode in modes]
        try:
            answers = await asyncio.gather(*(short(variant) for variant in variants))
        finally:
            await asyncio.gather(
                *(variant.aclose() for variant in variants), return_exceptions=True
            )
        result.modes[configured.value] = None if error is None else "failed"
        for mode, answer in zip(modes, answers, strict=True):
            result.modes[mode.value] = answer
        return result

    return list(await asyncio.gather(*(ping(judge) for judge in judges)))


# --------------------------------------------------------------------------- schema


def _configure_schema(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "kind",
        choices=("dataset", "report", "calibration"),
        help="dataset: a dataset file (for editors); report: the JSON report; calibration: "
        "the JSON report of ragas-boot calibrate",
    )


def _run_schema(args: argparse.Namespace) -> int:
    if args.kind == "dataset":
        from ragas_boot.datasets import dataset_json_schema

        schema = dataset_json_schema()
    elif args.kind == "calibration":
        from ragas_boot.reporting.calibration import calibration_report_json_schema

        schema = calibration_report_json_schema()
    else:
        from ragas_boot.reporting import report_json_schema

        schema = report_json_schema()
    _write(json.dumps(schema, indent=2, ensure_ascii=False) + "\n")
    return EXIT_OK


# --------------------------------------------------------------------------- suite


def _configure_suite(parser: argparse.ArgumentParser) -> None:
    commands = parser.add_subparsers(dest="suite_command", metavar="COMMAND", required=True)
    runner = commands.add_parser(
        "run",
        help="run a tool-evaluation suite and gate on its pass rate",
        description="Run an agent on every case of SUITE.yaml, print the report, and exit 1 "
        "when the pass rate is under --min-pass-rate (2 for bad input).",
    )
    _flags(runner, top=False)
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


def _run_suite(args: argparse.Namespace) -> int:
    """``suite run``: the agent's runs scored, the report printed and written, the gate."""
    from ragas_boot.errors import SuiteError
    from ragas_boot.reporting.suite_report import render_console, render_html, render_json
    from ragas_boot.runs.suites import load_suite

    suite = load_suite(args.suite)
    reports = _report_paths(args.out, follow_symlinks=args.follow_symlinks)
    known = [case.id for case in suite.cases]
    for case_id in args.cases or ():
        if case_id not in known:
            raise SuiteError(f"no case '{case_id}' (cases: {', '.join(known)})", file=args.suite)
    result = _suite_result(suite, args)
    gate = result.gate(suite.min_pass_rate if args.min_pass_rate is None else args.min_pass_rate)
    _write(render_console(result, gate, color=stdout().is_terminal))
    for path, kind in reports:
        text = render_html(result, gate) if kind == "html" else render_json(result, gate)
        _write_atomically(path, _redact(text))
        _message(f"Report written: {path}")
    recorded = _record_suite(args, result, gate.min_pass_rate)
    return EXIT_OK if gate.passed else EXIT_GATE_FAILED if recorded else EXIT_BAD_INPUT


def _history_settings(args: argparse.Namespace) -> RagasSettings | None:
    """The settings naming the history: ``--config`` (or the default file, when one exists);
    None, the default history, when no configuration file is there to read."""
    from ragas_boot.config.loader import CONFIG_ENV_VAR, DEFAULT_FILES

    named = args.config is not None or args.profile or os.environ.get(CONFIG_ENV_VAR, "").strip()
    if not named and not any(Path(name).is_file() for name in DEFAULT_FILES):
        return None
    return settings_from_args(args)


def _record_suite(args: argparse.Namespace, result: SuiteResult, min_pass_rate: float) -> bool:
    """Record a suite run in the history of its configuration (the default one without)."""
    from ragas_boot.runs.history import snapshot_suite

    settings = _history_settings(args) if args.config else None
    source = settings.source if settings is not None else None
    snapshot = snapshot_suite(
        result,
        min_pass_rate=min_pass_rate,
        config_files=source.files if source else (),
        profiles=source.active_profiles if source else (),
    )
    return _store(args, settings, snapshot)


def _suite_result(suite: AgentTestSuite, args: argparse.Namespace) -> SuiteResult:
    """Run the agent chosen as :mod:`ragas_boot.runs.suites.agents` describes."""
    from ragas_boot.runs.suites import (
        python_agent,
        run_model_agent,
        run_suite,
        suite_config_path,
    )

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
    profiles = [p.strip() for value in args.profile for p in value.split(",") if p.strip()]
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


register_command(
    "evaluate",
    _configure_evaluate,
    lambda args: _run_dataset(args, "evaluate"),
    help="score every sample of a dataset with the given metrics",
)
register_command(
    "compare",
    _configure_compare,
    lambda args: _run_dataset(args, "compare"),
    help="compare the judges on a dataset: scores, latency, tokens, agreement",
)
register_command(
    "calibrate",
    _configure_calibrate,
    lambda args: _run_dataset(args, "calibrate"),
    help="the judges against people's labels: kappa, accuracy, the best panel per cost",
)
register_command("config", _configure_config, _run_config, help="show or check the configuration")
register_command(
    "cache", _configure_cache, _run_cache, help="show or clear the judges' response cache"
)
register_command(
    "runs", _configure_runs, _run_runs, help="list recorded runs; diff two and gate on regressions"
)
register_command("schema", _configure_schema, _run_schema, help="print a JSON Schema")
register_command(
    "suite", _configure_suite, _run_suite, help="run a tool-evaluation suite; gate CI on it"
)


# --------------------------------------------------------------------------- main


def _flags(parser: argparse.ArgumentParser, *, top: bool) -> None:
    default: Any = False if top else argparse.SUPPRESS
    parser.add_argument(
        "--debug", action="store_true", default=default, help="show tracebacks and debug logs"
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", default=default, help="show info logs"
    )


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
    _flags(parser, top=True)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in registered_commands():
        sub = commands.add_parser(command.name, help=command.help, description=command.help)
        _flags(sub, top=False)
        command.configure(sub)
        sub.set_defaults(_run=command.run)
    return parser


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
    session = _open_session()
    token = _SESSION.set(session)
    try:
        with _logging(session.err, verbose=args.verbose, debug=args.debug):
            return _dispatch(args)
    finally:
        _SESSION.reset(token)


def _dispatch(args: argparse.Namespace) -> int:
    from ragas_boot.errors import MissingExtraError, RagasBootError

    try:
        code: int = args._run(args)
        return code
    except (RagasBootError, UsageError, OSError) as error:
        if args.debug:
            stderr().print(traceback.format_exc(), markup=False, highlight=False)
        message = str(error) or type(error).__name__
        _message(f"ragas-boot: error: {message}", "bold red")
        if not args.debug and not isinstance(error, MissingExtraError):
            # A missing extra's message is the whole story: the pip command.
            _message("(run with --debug to see the traceback)", "dim")
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        _message("ragas-boot: interrupted", "bold red")
        return EXIT_INTERRUPTED
