"""Profile names and Spring's profile expressions (``spring.config.activate.on-profile``).

An expression is a name, ``!name``, or names combined with ``&``, ``|`` and parentheses
(``prod & !eu``); a comma list or a YAML list of expressions matches when any of them does.
"""

from __future__ import annotations

import re
from collections.abc import Collection, Sequence
from typing import Any

_TOKEN = re.compile(r"\s*(?:([()!&|])|([^()!&|\s]+))")


def names(value: Any) -> list[str]:
    """Profile names from a comma string or a list of them, stripped, without repeats.

    Raises:
        ValueError: ``value`` is neither a string nor a list of scalars.
    """
    if value is None:
        return []
    items: Sequence[Any] = value if isinstance(value, list | tuple) else [value]
    found: dict[str, None] = {}
    for item in items:
        if isinstance(item, dict | list | tuple):
            raise ValueError("expected a profile name, a comma-separated list or a list of names")
        for name in str(item).split(","):
            if name.strip():
                found[name.strip()] = None
    return list(found)


def matches(expressions: Sequence[str], active: Collection[str]) -> bool:
    """Whether any of ``expressions`` holds for the ``active`` profiles.

    Raises:
        ValueError: an expression is malformed.
    """
    return any(_evaluate(expression, active) for expression in expressions)


def _evaluate(expression: str, active: Collection[str]) -> bool:
    tokens = _tokens(expression)
    position = 0

    def peek() -> str | None:
        return tokens[position] if position < len(tokens) else None

    def take() -> str:
        nonlocal position
        token = peek()
        if token is None:
            raise ValueError(f"profile expression '{expression}' ends too early")
        position += 1
        return token

    def either() -> bool:
        value = both()
        while peek() == "|":
            take()
            value = both() or value
        return value

    def both() -> bool:
        value = single()
        while peek() == "&":
            take()
            value = single() and value
        return value

    def single() -> bool:
        token = take()
        if token == "!":
            return not single()
        if token == "(":
            value = either()
            if take() != ")":
                raise ValueError(f"profile expression '{expression}' lacks a ')'")
            return value
        if token in "()&|":
            raise ValueError(f"profile expression '{expression}' has '{token}' out of place")
        return token in active

    result = either()
    if peek() is not None:
        raise ValueError(f"profile expression '{expression}' has '{peek()}' out of place")
    return result


def _tokens(expression: str) -> list[str]:
    tokens = []
    position = 0
    text = expression.rstrip()
    while position < len(text):
        match = _TOKEN.match(text, position)
        if match is None:  # pragma: no cover - the pattern matches any non-blank text
            raise ValueError(f"cannot read profile expression '{expression}'")
        tokens.append(match.group(1) or match.group(2))
        position = match.end()
    if not tokens:
        raise ValueError("empty profile expression")
    return tokens
