"""Configuration problems, and how they become one :class:`~ragas_boot.errors.ConfigError`.

Every check of the loader (placeholders, unknown keys, pydantic validation) reports
:class:`Problem` values; :func:`config_error` turns all of them into one error, so that a user
fixes a file in one pass. No problem ever carries the value of a secret.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ragas_boot.config import _schema
from ragas_boot.config._tree import KeyPath, Origins, Segment, format_path
from ragas_boot.config.settings import ROOT_PREFIXES
from ragas_boot.config.urls import mask_url
from ragas_boot.errors import ConfigError

#: Error types whose message already says what was given, or that have no input of their own.
_NO_ECHO = frozenset({"missing", "extra_forbidden", "value_error", "assertion_error"})
_ECHO_LIMIT = 60


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with the configuration."""

    key: str | None
    message: str
    file: str | None = None
    hint: str | None = None

    def render(self) -> str:
        """One line: ``key: message (in file); hint``."""
        text = f"{self.key}: {self.message}" if self.key else self.message
        if self.file:
            text += f" (in {self.file})"
        if self.hint:
            text += f"; {self.hint}"
        return text


def config_error(problems: Sequence[Problem]) -> ConfigError:
    """One :class:`ConfigError` for all ``problems``; its key, file and hint are the first's."""
    first = problems[0]
    if len(problems) == 1:
        return ConfigError(first.message, key=first.key, file=first.file, hint=first.hint)
    listing = "\n".join(f"  - {problem.render()}" for problem in problems)
    error = ConfigError(f"the configuration has {len(problems)} problems:\n{listing}")
    error.key, error.file, error.hint = first.key, first.file, first.hint
    return error


def unknown_key(path: KeyPath, allowed: Iterable[str], origins: Origins) -> Problem:
    """An unknown key, with a "did you mean" hint drawn from the keys allowed at its level."""
    name = str(path[-1])
    choices = sorted(allowed)
    close = difflib.get_close_matches(_schema.kebab(name), choices, n=1, cutoff=0.6)
    hint = f"did you mean '{close[0]}'?" if close else f"allowed keys: {', '.join(choices)}"
    return Problem(format_path(path), "unknown key", origins.of(path), hint)


def from_validation_error(error: ValidationError, origins: Origins) -> list[Problem]:
    """Translate pydantic's errors into problems named by their full YAML path."""
    problems = []
    for detail in error.errors(include_url=False):
        path = _yaml_path(detail["loc"])
        if detail["type"] == "extra_forbidden":
            parent = _schema.node_at(path[:-1])
            problems.append(unknown_key(path, parent.fields if parent else (), origins))
            continue
        message = str(detail["msg"]).removeprefix("Value error, ")
        if detail["type"] not in _NO_ECHO and not _is_secret(path):
            shown = _show(detail.get("input"))
            if shown is not None:
                message += f"; got {shown}"
        problems.append(Problem(format_path(path), message, origins.of(path)))
    return problems


def _yaml_path(loc: tuple[int | str, ...]) -> KeyPath:
    if not loc:
        return tuple(_schema.OWNED_PREFIX.split("."))
    head, *rest = loc
    prefix: list[Segment] = list(ROOT_PREFIXES.get(str(head), str(head)).split("."))
    # Pydantic puts union and validator tags (``function-after[...]``) in locations.
    return (*prefix, *(item for item in rest if not _is_tag(item)))


def _is_tag(item: int | str) -> bool:
    return isinstance(item, str) and any(char in item for char in "[](")


def _is_secret(path: KeyPath) -> bool:
    node = _schema.node_at(path)
    names = [segment for segment in path if isinstance(segment, str)]
    return (node is not None and node.secret) or any(map(_schema.is_secret_key, names))


def _show(value: Any) -> str | None:
    """A short YAML-like rendering of a scalar input; containers are never echoed."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        value = mask_url(value)  # a URL's credentials are secrets wherever they appear
        text = value if len(value) <= _ECHO_LIMIT else value[:_ECHO_LIMIT] + "..."
        return repr(text)
    return None
