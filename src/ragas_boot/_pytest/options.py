"""The plugin's options, on the command line and in the ini file, and what they resolve to."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

__all__ = ["RagasOptions", "add_options"]

_GROUP = "ragas-boot"


def add_options(parser: pytest.Parser) -> None:
    """Declare ``--ragas-config``, ``--ragas-profile``, ``--ragas-report`` and their ini twins."""
    group = parser.getgroup(_GROUP, "ragas-boot: agent metrics scored by several judge models")
    group.addoption(
        "--ragas-config",
        dest="ragas_config",
        metavar="PATH",
        default=None,
        help="application.yaml of the ragas fixtures (default: ini ragas_config, then "
        "RAGAS_CONFIG, then ./application.yaml).",
    )
    group.addoption(
        "--ragas-profile",
        dest="ragas_profile",
        metavar="NAME",
        action="append",
        default=[],
        help="Spring profile to activate; repeat or comma-separate for several "
        "(default: ini ragas_profile, then SPRING_PROFILES_ACTIVE, then the file's own).",
    )
    group.addoption(
        "--ragas-report",
        dest="ragas_report",
        metavar="PATH",
        default=None,
        help="Write every scored test x metric (scores per judge, reasons, checks) as JSON.",
    )
    parser.addini(
        "ragas_config",
        type="string",
        default="",
        help="ragas-boot: application.yaml of the ragas fixtures, relative to the ini file.",
    )
    parser.addini(
        "ragas_profile",
        type="linelist",
        default=[],
        help="ragas-boot: Spring profiles to activate, one per line.",
    )
    parser.addini(
        "ragas_report",
        type="string",
        default="",
        help="ragas-boot: JSON report of scored tests, relative to the ini file.",
    )


def _ini_base(config: pytest.Config) -> Path:
    return config.inipath.parent if config.inipath is not None else config.rootpath


def _split(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@dataclass(frozen=True, slots=True)
class RagasOptions:
    """The plugin's options, resolved: command line first, then the ini file.

    Attributes:
        config_path: the YAML file to load; ``None`` leaves the choice to ``load_settings``
            (``RAGAS_CONFIG``, then ``./application.yaml``).
        profiles: profiles to activate; ``None`` leaves the choice to ``load_settings``.
        report_path: where to write the JSON report, if anywhere.
    """

    config_path: Path | None
    profiles: list[str] | None
    report_path: Path | None

    @classmethod
    def from_config(cls, config: pytest.Config) -> RagasOptions:
        """Read the options: command-line paths are relative to where pytest was started,
        ini paths to the ini file."""
        here = config.invocation_params.dir
        config_path: Path | None = None
        if value := config.getoption("ragas_config"):
            config_path = here / value
        elif value := str(config.getini("ragas_config")).strip():
            config_path = _ini_base(config) / value
        profiles = _split(config.getoption("ragas_profile") or []) or _split(
            list(config.getini("ragas_profile"))
        )
        report_path: Path | None = None
        if value := config.getoption("ragas_report"):
            report_path = here / value
        elif value := str(config.getini("ragas_report")).strip():
            report_path = _ini_base(config) / value
        return cls(config_path=config_path, profiles=profiles or None, report_path=report_path)

    @property
    def configured(self) -> bool:
        """Whether the user pointed the plugin at settings (so the header may load them)."""
        return self.config_path is not None or self.profiles is not None
