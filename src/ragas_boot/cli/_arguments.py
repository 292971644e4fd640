"""Arguments the commands share, and the argparse types that check values as they are parsed."""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ragas_boot.cli._console import add_secrets

if TYPE_CHECKING:
    from ragas_boot.config.settings import RagasSettings

__all__ = [
    "add_cache_dir",
    "add_config_arguments",
    "add_history_arguments",
    "add_log_flags",
    "add_regression_arguments",
    "aggregation",
    "comma_separated",
    "duration",
    "load_settings",
    "positive_float",
    "positive_int",
    "repeat_count",
    "settings_from_args",
    "settings_if_configured",
    "spool_after",
    "unit_float",
]


def add_log_flags(parser: argparse.ArgumentParser, *, top: bool) -> None:
    """``--debug`` and ``-v``, on the top parser and again on each (sub)command's."""
    default: Any = False if top else argparse.SUPPRESS
    parser.add_argument(
        "--debug", action="store_true", default=default, help="show tracebacks and debug logs"
    )
    parser.add_argument(
        "-v", "--verbose", action="store_true", default=default, help="show info logs"
    )


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


def comma_separated(values: Sequence[str]) -> list[str]:
    """A repeatable flag's values, each possibly comma-separated (``--profile``,
    ``--models``), as one list."""
    return [p.strip() for value in values for p in value.split(",") if p.strip()]


def load_settings(config: str | None, profiles: Sequence[str] = ()) -> RagasSettings:
    """Load the settings; mask their secrets in everything printed from now on.

    Raises:
        ConfigError: the configuration is invalid.
    """
    from ragas_boot.container import load_settings as load
    from ragas_boot.reporting.redaction import secret_values

    settings = load(config, profiles=list(profiles) or None)
    add_secrets(secret_values(settings))
    return settings


def settings_from_args(args: argparse.Namespace) -> RagasSettings:
    """Load the settings named by ``--config`` / ``--profile``; mask their secrets in output.

    Raises:
        ConfigError: the configuration is invalid (exit code 2 when raised from a command).
    """
    return load_settings(args.config, comma_separated(args.profile))


def settings_if_configured(args: argparse.Namespace) -> RagasSettings | None:
    """The settings of ``--config`` / ``--profile`` / ``$RAGAS_CONFIG``, or of the default
    file when one is here; None when no configuration is named or present (a command that
    works without one, on the defaults: ``cache``, ``runs``).

    Raises:
        ConfigError: the configuration is invalid.
    """
    from ragas_boot.config.loader import CONFIG_ENV_VAR, DEFAULT_FILES

    named = args.config is not None or args.profile or os.environ.get(CONFIG_ENV_VAR, "").strip()
    if not named and not any(Path(name).is_file() for name in DEFAULT_FILES):
        return None
    return settings_from_args(args)


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


def aggregation(text: str) -> str:
    """An argparse type: an :class:`~ragas_boot.config.settings.Aggregation` name."""
    from ragas_boot.config.settings import Aggregation

    try:
        return Aggregation(text).value
    except ValueError:
        known = ", ".join(member.value.lower() for member in Aggregation)
        raise argparse.ArgumentTypeError(
            f"unknown aggregation {text!r}; use one of {known}"
        ) from None


def spool_after(text: str) -> int | str:
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


def repeat_count(text: str) -> int:
    """An argparse type: a repeat count in [1, MAX_REPEATS]."""
    from ragas_boot.metrics.base import MAX_REPEATS

    value = positive_int(text)
    if value > MAX_REPEATS:
        raise argparse.ArgumentTypeError(f"must be at most {MAX_REPEATS}, got {value}")
    return value


def duration(text: str) -> float:
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


def add_cache_dir(parser: argparse.ArgumentParser) -> None:
    """``--cache-dir DIR``: the response cache's folder."""
    parser.add_argument(
        "--cache-dir",
        metavar="DIR",
        help="response cache folder (default: spring.ai.ragas.cache.dir, else "
        "$RAGAS_BOOT_HOME/cache, else ./.ragas-boot/cache)",
    )


def add_cache_flags(parser: argparse.ArgumentParser) -> None:
    """``--no-cache`` and ``--cache-dir DIR`` of a command that makes model calls outside a
    dataset run (``generate``)."""
    parser.add_argument(
        "--no-cache", action="store_true", help="neither read nor write the response cache"
    )
    add_cache_dir(parser)


def with_cache_flags(settings: RagasSettings, args: argparse.Namespace) -> RagasSettings:
    """``settings`` with ``--no-cache`` / ``--cache-dir`` (:func:`add_cache_flags`) applied."""
    cache: dict[str, Any] = {}
    if args.no_cache:
        cache["enabled"] = False
    if args.cache_dir:
        cache["dir"] = args.cache_dir
    if not cache:
        return settings
    return settings.model_copy(update={"cache": settings.cache.model_copy(update=cache)})


def add_history_arguments(parser: argparse.ArgumentParser) -> None:
    """``--baseline``, the regression gate and ``--no-history`` of a dataset run."""
    parser.add_argument(
        "--baseline",
        metavar="RUN",
        help="after the run, print (and put in --out HTML) its diff against this recorded run: "
        "a run id, 'latest' or 'previous' (see `ragas-boot runs list`)",
    )
    add_regression_arguments(parser, gate_help="with --baseline: exit 1 when a metric regressed")
    parser.add_argument(
        "--no-history",
        action="store_true",
        help="do not record this run in the run history (spring.ai.ragas.history)",
    )


def add_regression_arguments(parser: argparse.ArgumentParser, *, gate_help: str) -> None:
    """``--fail-on-regression`` (described by ``gate_help``) and ``--tolerance``."""
    parser.add_argument("--fail-on-regression", action="store_true", help=gate_help)
    parser.add_argument(
        "--tolerance",
        type=unit_float,
        default=0.0,
        metavar="X",
        help="a metric's mean may fall by X before it counts as a regression (default: 0)",
    )
