"""Plain-data configuration trees: key paths, dotted-key expansion, merging with provenance.

A tree is what YAML gives (dicts, lists, scalars) after dotted keys are expanded. A key path is
a tuple of segments, a ``str`` for a map key and an ``int`` for a list index; it is written the
Spring way, ``spring.ai.ragas.providers.openai-compatible[0].base-url``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, TypeAlias

Segment: TypeAlias = str | int
KeyPath: TypeAlias = tuple[Segment, ...]
Tree: TypeAlias = dict[str, Any]

#: Spring's "uniform" form of a key: relaxed binding compares keys this way.
_NOT_ALNUM = re.compile(r"[^0-9a-z]")


def uniform(key: str) -> str:
    """``base-url``, ``baseUrl``, ``base_url`` and ``BASE_URL`` all become ``baseurl``."""
    return _NOT_ALNUM.sub("", key.lower())


def format_path(path: Iterable[Segment]) -> str:
    """Write a key path as Spring does: ``a.b[0].c``; a map key holding a dot gets ``[...]``."""
    text = ""
    for segment in path:
        if isinstance(segment, int) or "." in segment:
            text += f"[{segment}]"
        else:
            text += f".{segment}" if text else segment
    return text


def split_key(key: str) -> list[Segment]:
    """Split a (possibly dotted) YAML key into segments.

    ``a.b[0].c`` gives ``['a', 'b', 0, 'c']``; ``[x.y]`` keeps ``x.y`` as one map key (Spring's
    bracket notation). Empty segments are dropped.
    """
    segments: list[Segment] = []
    current = ""
    index = 0
    while index < len(key):
        char = key[index]
        if char == ".":
            if current:
                segments.append(current)
            current = ""
        elif char == "[" and "]" in key[index:]:
            if current:
                segments.append(current)
            current = ""
            close = key.index("]", index)
            inner = key[index + 1 : close].strip().strip("\"'")
            if inner.isdigit():
                segments.append(int(inner))
            elif inner:
                segments.append(inner)
            index = close
        else:
            current += char
        index += 1
    if current:
        segments.append(current)
    return segments


def key_text(key: object) -> str:
    """The text of a YAML key: YAML 1.1 may have read ``true:`` or ``1:`` as a bool or int."""
    if isinstance(key, bool):
        return "true" if key else "false"
    return "" if key is None else str(key)


def expand(value: Any) -> Any:
    """Turn dotted keys into nested maps, at every level; returns fresh containers.

    Maps written twice (``spring.ai: {...}`` and ``spring.ai.retry: {...}``) are merged; for
    anything else the later key wins, as it does in one YAML document.
    """
    if isinstance(value, dict):
        result: Tree = {}
        for raw_key, raw_value in value.items():
            segments = split_key(key_text(raw_key)) or [key_text(raw_key)]
            _place(result, segments, expand(raw_value))
        return result
    if isinstance(value, list):
        return [expand(item) for item in value]
    return value


def _child(container: Tree | list[Any], segment: Segment) -> Any:
    if isinstance(container, dict):
        return container.get(str(segment))
    if isinstance(segment, int) and segment < len(container):
        return container[segment]
    return None


def _set_child(container: Tree | list[Any], segment: Segment, value: Any) -> None:
    if isinstance(container, dict):
        container[str(segment)] = value
        return
    assert isinstance(segment, int)
    # A gap (``a[2]`` without ``a[1]``) is left as null so that validation names the index.
    container.extend([None] * (segment + 1 - len(container)))
    container[segment] = value


def _place(container: Tree | list[Any], segments: list[Segment], value: Any) -> None:
    head, rest = segments[0], segments[1:]
    if rest:
        child = _child(container, head)
        wants_list = isinstance(rest[0], int)
        if not isinstance(child, list if wants_list else dict):
            child = [] if wants_list else {}
            _set_child(container, head, child)
        _place(child, rest, value)
        return
    existing = _child(container, head)
    if isinstance(existing, dict) and isinstance(value, dict):
        for key, item in value.items():
            _place(existing, [key], item)
    else:
        _set_child(container, head, value)


def find(tree: Any, path: Iterable[Segment]) -> tuple[bool, Any]:
    """Look a key path up; map keys match exactly, else in Spring's uniform form.

    Returns:
        ``(found, value)``.
    """
    node = tree
    for segment in path:
        if isinstance(segment, int):
            if not isinstance(node, list) or segment >= len(node):
                return False, None
            node = node[segment]
        elif isinstance(node, dict):
            if segment in node:
                node = node[segment]
                continue
            wanted = uniform(segment)
            matches = [key for key in node if uniform(key) == wanted]
            if not matches:
                return False, None
            node = node[matches[-1]]
        else:
            return False, None
    return True, node


class Origins:
    """Where each leaf of a merged tree came from: ``key path`` → ``file``, ``file#profile``...

    Keys are formatted paths. A key set again moves to the end, so the most recent source of a
    subtree is the last of its keys.
    """

    def __init__(self) -> None:
        self._by_key: dict[str, str] = {}

    def record(self, path: KeyPath, value: Any, label: str) -> None:
        """Forget what was known under ``path`` and record ``label`` for each leaf of ``value``."""
        self.forget(path)
        for leaf in _leaves(path, value):
            self._by_key[format_path(leaf)] = label

    def forget(self, path: KeyPath) -> None:
        """Drop ``path`` and everything under it."""
        key = format_path(path)
        for known in [k for k in self._by_key if is_under(k, key)]:
            del self._by_key[known]

    def of(self, path: KeyPath) -> str | None:
        """The source of ``path``: its own, else the latest of a key under it or its parents."""
        for depth in range(len(path), 0, -1):
            key = format_path(path[:depth])
            if key in self._by_key:
                return self._by_key[key]
            under = [label for known, label in self._by_key.items() if is_under(known, key)]
            if under:
                return under[-1]
        return None

    def items_under(self, prefixes: Iterable[str]) -> dict[str, str]:
        """The recorded keys under any of ``prefixes``, in recording order."""
        wanted = tuple(prefixes)
        return {
            key: label
            for key, label in self._by_key.items()
            if any(is_under(key, prefix) for prefix in wanted)
        }


def is_under(key: str, prefix: str) -> bool:
    """Whether the formatted path ``key`` is ``prefix`` or lies under it."""
    return key == prefix or key.startswith((prefix + ".", prefix + "["))


def _leaves(path: KeyPath, value: Any) -> Iterator[KeyPath]:
    if isinstance(value, dict) and value:
        for key, item in value.items():
            yield from _leaves((*path, key), item)
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            yield from _leaves((*path, index), item)
    else:
        yield path


def merge(target: Tree, source: Tree, label: str, origins: Origins, prefix: KeyPath = ()) -> None:
    """Apply ``source`` over ``target`` with Spring semantics: maps merge, lists replace."""
    for key, value in source.items():
        path = (*prefix, key)
        current = target.get(key)
        if isinstance(current, dict) and isinstance(value, dict):
            merge(current, value, label, origins, path)
        else:
            target[key] = value
            origins.record(path, value, label)
