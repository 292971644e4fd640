"""Environment variables that override YAML keys, named with Spring's relaxed rules.

A key's variable is its path upper-cased, ``.`` → ``_``, ``-`` removed, a list index as its own
word: ``spring.ai.retry.backoff.multiplier`` ↔ ``SPRING_AI_RETRY_BACKOFF_MULTIPLIER``,
``...openai-compatible[0].api-key`` ↔ ``..._OPENAICOMPATIBLE_0_APIKEY``. Spring's legacy form
with ``-`` → ``_`` (``SPRING_AI_RETRY_MAX_ATTEMPTS``) matches too. Names are matched against the
settings models, so only keys ragas-boot consumes are overridden.

One deliberate difference from Spring: an indexed variable changes that element of the YAML
list (Spring would replace the whole list with the elements the environment names), so that
``..._OPENAICOMPATIBLE_0_APIKEY`` can supply the key of a provider written in YAML.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ragas_boot.config import _schema
from ragas_boot.config._problems import Problem
from ragas_boot.config._tree import Origins, Segment, Tree, format_path, uniform

_PREFIX = "SPRING_AI_"


class MapKey(str):
    """A map key read from a variable name: it replaces an existing key of the same uniform form.

    Variable names lose case and punctuation, so a new key is written in lower kebab-case.
    """

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Override:
    """One environment variable that sets one key."""

    variable: str
    path: tuple[Segment, ...]
    value: str


def property_variables(name: str) -> list[str]:
    """Variables that may hold a property (``a.b-c`` → ``A_BC``, ``A_B_C``), the name first."""
    upper = name.upper().replace(".", "_")
    return list(dict.fromkeys((name, upper.replace("-", ""), upper.replace("-", "_"))))


def find_overrides(environ: Mapping[str, str], top: _schema.Node) -> list[Override]:
    """The variables of ``environ`` that name a key of ``top`` (the key tree), lists in index
    order."""
    overrides = []
    for variable, value in environ.items():
        upper = variable.upper()
        if not upper.startswith(_PREFIX):
            continue
        words = [word for word in upper.split("_") if word]
        path = _match(top, words, 0)
        if path is not None:
            overrides.append(Override(variable, tuple(path), value))
    # Index order, so that ``_0_`` creates an element before ``_1_`` extends the list.
    overrides.sort(key=lambda override: [_order(segment) for segment in override.path])
    return overrides


def _order(segment: Segment) -> tuple[int, int, str]:
    return (0, segment, "") if isinstance(segment, int) else (1, 0, segment)


def _match(node: _schema.Node, words: list[str], start: int) -> list[Segment] | None:
    if start == len(words):
        return [] if node.kind in ("scalar", "list", "any") else None
    if node.kind == "object":
        for key, child in node.fields.items():
            target = uniform(key).upper()
            joined = ""
            for end in range(start, len(words)):
                joined += words[end]
                if not target.startswith(joined):
                    break
                if joined == target and (rest := _match(child, words, end + 1)) is not None:
                    return [key, *rest]
        return None
    if node.kind == "list" and node.item is not None and words[start].isdigit():
        rest = _match(node.item, words, start + 1)
        return None if rest is None else [int(words[start]), *rest]
    if node.kind == "map" and node.item is not None:
        # A variable cannot say where a map key ends: take the shortest key that fits.
        for end in range(start + 1, len(words) + 1):
            if (rest := _match(node.item, words, end)) is not None:
                return [MapKey("-".join(words[start:end]).lower()), *rest]
    return None


def apply_overrides(tree: Tree, overrides: list[Override], origins: Origins) -> list[Problem]:
    """Write ``overrides`` into ``tree`` (environment wins over YAML) and record their origin.

    Returns:
        One problem per variable whose list index leaves a gap.
    """
    problems = []
    for override in overrides:
        origin = f"env:{override.variable}"
        container: Any = tree
        written: list[Segment] = []
        for position, segment in enumerate(override.path):
            key: Segment = segment
            if isinstance(segment, int):
                if segment > len(container):
                    problems.append(
                        Problem(
                            format_path((*written, segment)),
                            f"list index {segment} is out of range: the list has "
                            f"{len(container)} entries",
                            origin,
                            "number list entries from 0 without gaps",
                        )
                    )
                    break
                if segment == len(container):
                    container.append(None)
            elif isinstance(segment, MapKey):
                key = next((k for k in container if uniform(k) == uniform(segment)), str(segment))
            written.append(key)
            if position == len(override.path) - 1:
                container[key] = override.value
                origins.record(tuple(written), override.value, origin)
                break
            wanted = list if isinstance(override.path[position + 1], int) else dict
            child = container[key] if isinstance(key, int) else container.get(key)
            if not isinstance(child, wanted):
                child = wanted()
                container[key] = child
            container = child
    return problems
