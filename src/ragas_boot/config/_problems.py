"""Configuration problems, and how they become one :class:`~ragas_boot.errors.ConfigError`.

Every check of the loader (placeholders, unknown keys, pydantic validation) reports
:class:`Problem` values; :func:`config_error` turns all of them into one error, so that a user
fixes a file in one pass. No problem ever carries the value of a secret.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ragas_boot._validation import did_you_mean, field_problems
from ragas_boot.config import _schema
from ragas_boot.config._tree import KeyPath, Origins, Segment, format_path
from ragas_boot.config.settings import ROOT_PREFIXES
from ragas_boot.config.urls import mask_url
from ragas_boot.errors import ConfigError

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
    hint = did_you_mean(_schema.kebab(str(path[-1])), allowed)
    return Problem(format_path(path), "unknown key", origins.of(path), hint)


def from_validation_error(
    error: ValidationError, origins: Origins, top: _schema.Node, *, prefix: tuple[str, ...] = ()
) -> list[Problem]:
    """Translate pydantic's errors into problems named by their full YAML path.

    Args:
        top: the key tree (:func:`~ragas_boot.config._schema.root`), for the keys allowed
            beside a wrong one and the secrets never echoed.
        prefix: location of the validated model under :class:`RagasSettings` (e.g.
            ``("metrics", "tool-call-accuracy")`` for a metric's section).
    """
    problems = []
    for problem in field_problems(
        error,
        allowed_keys=lambda loc: _allowed_beside(top, (*prefix, *loc)),
        show=lambda value, loc: _shown(top, value, (*prefix, *loc)),
        spell=_schema.kebab,
    ):
        path = _yaml_path((*prefix, *problem.loc))
        problems.append(Problem(format_path(path), problem.message, origins.of(path), problem.hint))
    return problems


def _allowed_beside(top: _schema.Node, loc: tuple[int | str, ...]) -> list[str]:
    parent = _schema.node_at(top, _yaml_path(loc)[:-1])
    return list(parent.fields) if parent is not None else []


def _shown(top: _schema.Node, value: Any, loc: tuple[int | str, ...]) -> str | None:
    return None if _is_secret(top, _yaml_path(loc)) else _show(value)


def _yaml_path(loc: tuple[int | str, ...]) -> KeyPath:
    if not loc:
        return tuple(_schema.OWNED_PREFIX.split("."))
    head, *rest = loc
    prefix: list[Segment] = list(ROOT_PREFIXES.get(str(head), str(head)).split("."))
    # Pydantic puts union and validator tags (``function-after[...]``) in locations.
    return (*prefix, *(item for item in rest if not _is_tag(item)))


def _is_tag(item: int | str) -> bool:
    return isinstance(item, str) and any(char in item for char in "[](")


def _is_secret(top: _schema.Node, path: KeyPath) -> bool:
    node = _schema.node_at(top, path)
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
