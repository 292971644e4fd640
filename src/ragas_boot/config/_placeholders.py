"""``${NAME}`` and ``${NAME:default}`` placeholders, resolved the way Spring does.

A placeholder may appear several times in a string and inside another one's default
(``${A:${B:x}}``); the default starts after the first ``:`` and may be empty or hold more
colons; ``\\${`` stands for a literal ``${``. A resolved value is itself resolved, so a
property may refer to another one; a cycle is an error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ragas_boot.config import _schema, _unsupported
from ragas_boot.config._problems import Problem
from ragas_boot.config._tree import KeyPath, Origins, Tree, find, format_path

Lookup = Callable[[str], str | None]


class PlaceholderError(Exception):
    """A placeholder cannot be resolved (internal: the loader turns it into a Problem)."""

    def __init__(self, message: str, *, variable: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.variable = variable
        self.hint = hint


class Resolver:
    """Resolves the placeholders of strings against one lookup (config first, then environment).

    Args:
        lookup: the value of a name, or ``None`` when the name is unknown.
    """

    def __init__(self, lookup: Lookup) -> None:
        self._lookup = lookup

    def resolve(self, text: str) -> str:
        """``text`` with every placeholder replaced.

        Raises:
            PlaceholderError: a name without default is unknown, or names refer to each other.
        """
        return self._resolve(text, ())

    def _resolve(self, text: str, visiting: tuple[str, ...]) -> str:
        parts: list[str] = []
        index = 0
        while (start := text.find("${", index)) >= 0:
            if start > 0 and text[start - 1] == "\\":
                parts.append(text[index : start - 1] + "${")
                index = start + 2
                continue
            end = _closing_brace(text, start + 2)
            if end < 0:
                # An unclosed ``${`` is plain text, as in Spring.
                break
            parts.append(text[index:start])
            parts.append(self._value(text[start + 2 : end], visiting))
            index = end + 1
        parts.append(text[index:])
        return "".join(parts)

    def _value(self, content: str, visiting: tuple[str, ...]) -> str:
        name_part, default = _split_default(content)
        name = self._resolve(name_part, visiting).strip()
        if name in visiting:
            chain = " -> ".join((*visiting, name))
            raise PlaceholderError(f"placeholders refer to each other: {chain}", variable=name)
        value = self._lookup(name)
        if value is not None:
            return self._resolve(value, (*visiting, name))
        if default is not None:
            return self._resolve(default, visiting)
        raise PlaceholderError(
            f"placeholder ${{{name}}} cannot be resolved: the environment variable {name} "
            "is not set and there is no default",
            variable=name,
            hint=f"set {name}, or give a default: ${{{name}:value}}",
        )


def _closing_brace(text: str, position: int) -> int:
    # Braces nest as in Spring: every ``{`` (also that of an inner ``${``) needs its ``}``.
    depth = 1
    for index in range(position, len(text)):
        if text[index] == "{":
            depth += 1
        elif text[index] == "}":
            depth -= 1
            if depth == 0:
                return index
    return -1


def _split_default(content: str) -> tuple[str, str | None]:
    depth = 0
    for index, char in enumerate(content):
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
        elif char == ":" and depth == 0:
            return content[:index], content[index + 1 :]
    return content, None


def resolve_tree(
    tree: Tree, resolver: Resolver, origins: Origins, top: _schema.Node
) -> list[Problem]:
    """Resolve, in place, the placeholders of the consumed subtrees of ``tree`` (the keys of
    ``top``, the key tree).

    Keys the models do not consume (unknown keys, Java keys kept but unsupported) are left as
    they are, so that a placeholder there never fails a load.

    Returns:
        One problem per placeholder that could not be resolved.
    """
    problems: list[Problem] = []

    def walk(value: Any, node: _schema.Node, path: KeyPath) -> Any:
        if _unsupported.is_unsupported(path):
            return value
        if isinstance(value, str):
            if "${" not in value:
                return value
            try:
                return resolver.resolve(value)
            except PlaceholderError as error:
                problems.append(
                    Problem(format_path(path), error.message, origins.of(path), error.hint)
                )
                return value
        if isinstance(value, dict):
            for key in value:
                child = _schema.child_node(node, key)
                if child is not None:
                    value[key] = walk(value[key], child, (*path, key))
        elif isinstance(value, list):
            for index, item in enumerate(value):
                child = _schema.child_node(node, index)
                if child is not None:
                    value[index] = walk(item, child, (*path, index))
        return value

    for prefix in _schema.consumed_prefixes():
        path: KeyPath = tuple(prefix.split("."))
        found, parent = find(tree, path[:-1])
        node = _schema.node_at(top, path)
        if found and isinstance(parent, dict) and path[-1] in parent and node is not None:
            parent[path[-1]] = walk(parent[path[-1]], node, path)
    return problems
