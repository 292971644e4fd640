"""Bounded reading of YAML and JSON: the one path configs and datasets are loaded through.

Files come from other teams and from copy-paste, so reading one must cost a bounded amount
of time and memory whatever it holds:

* **size**: a file (or text) larger than ``max_bytes`` is refused before it is parsed;
* **nesting**: a value nested deeper than ``max_depth`` levels is refused while parsing
  (Python's recursion limit would otherwise end the program with a ``RecursionError``);
* **aliases**: YAML anchors and aliases share one value between places, which is cheap to
  parse but expands when the value is walked, copied or written out (the "billion laughs"
  document: a few hundred bytes expanding to 10⁹ values). At most ``max_aliases`` aliases
  per document, which may add at most ``max_alias_values`` values and
  ``max_alias_chars`` characters of text when expanded (counting values alone let one
  100 KiB string aliased 9,000 times through: 922 MB reports, a 102 MB prompt to every
  judge); an alias to a value that contains it (a cycle) is refused.

A refusal is a :class:`LoadLimitError` with the 1-based line, which the config and dataset
loaders turn into their own errors naming the file (exit code 2 in the CLI).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

import yaml

__all__ = [
    "CONFIG_LIMITS",
    "DATASET_LIMITS",
    "BoundedLoader",
    "LoadLimitError",
    "LoadLimits",
    "check_json_depth",
    "check_size",
    "load_json",
    "load_yaml_documents",
]


@dataclass(frozen=True, slots=True)
class LoadLimits:
    """Bounds on one file (see the module docstring).

    Attributes:
        max_bytes: largest file (or text, in characters) read.
        max_depth: deepest nesting of mappings and lists.
        max_aliases: YAML aliases (``*name``) per document.
        max_alias_values: values the aliases of one document may add when expanded.
        max_alias_chars: characters of text (keys and scalars) the aliases of one document
            may add when expanded.
    """

    max_bytes: int
    max_depth: int
    max_aliases: int
    max_alias_values: int
    max_alias_chars: int = 1024 * 1024


#: Limits of ``application.yaml`` and its profile files.
CONFIG_LIMITS = LoadLimits(
    max_bytes=4 * 1024 * 1024,
    max_depth=64,
    max_aliases=200,
    max_alias_values=20_000,
    max_alias_chars=1024 * 1024,
)
#: Limits of dataset files (YAML, JSON, JSONL) and of JSON text inside samples. Aliases may
#: add 16 Mi characters per document: room for a shared context quoted in many samples, not
#: for a few kilobytes of file turning into gigabytes of reports and prompts.
DATASET_LIMITS = LoadLimits(
    max_bytes=512 * 1024 * 1024,
    max_depth=100,
    max_aliases=10_000,
    max_alias_values=1_000_000,
    max_alias_chars=16 * 1024 * 1024,
)


class LoadLimitError(ValueError):
    """A document is over one of its :class:`LoadLimits`.

    Attributes:
        line: 1-based line where the limit was crossed, when known.
    """

    def __init__(self, message: str, *, line: int | None = None) -> None:
        self.line = line
        super().__init__(message)


def check_size(length: int, limits: LoadLimits, what: str = "bytes") -> None:
    """Refuse ``length`` over ``limits.max_bytes``.

    Raises:
        LoadLimitError: the text is too large.
    """
    if length > limits.max_bytes:
        raise LoadLimitError(
            f"{length:,} {what} is more than the {limits.max_bytes:,} this reader accepts; "
            "split the file"
        )


class BoundedLoader(yaml.SafeLoader):
    """PyYAML's SafeLoader that enforces :class:`LoadLimits` while composing nodes.

    Set :attr:`limits` before loading (``load_yaml_documents`` does).
    """

    limits: LoadLimits = DATASET_LIMITS

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        self._depth = 0
        self._aliases = 0
        self._alias_values = 0
        self._alias_chars = 0
        # Expanded size of each node composed so far in this document (by identity), in
        # values and in characters; an alias to a node missing here refers to one still
        # open, i.e. to its own ancestor.
        self._sizes: dict[int, tuple[int, int]] = {}

    def compose_document(self) -> yaml.Node | None:
        self._aliases = 0
        self._alias_values = 0
        self._alias_chars = 0
        self._sizes = {}
        return super().compose_document()

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        limits = self.limits
        event = self.peek_event()  # type: ignore[no-untyped-call]
        line = event.start_mark.line + 1 if event.start_mark is not None else None
        if isinstance(event, yaml.AliasEvent):
            target = self.anchors.get(event.anchor)
            if target is not None:
                self._aliases += 1
                if self._aliases > limits.max_aliases:
                    raise LoadLimitError(
                        f"more than {limits.max_aliases} YAML aliases in one document", line=line
                    )
                size = self._sizes.get(id(target))
                if size is None:
                    raise LoadLimitError(
                        f"the alias *{event.anchor} refers to a value that contains it "
                        "(a recursive alias)",
                        line=line,
                    )
                values, chars = size
                self._alias_values += values
                self._alias_chars += chars
                if self._alias_values > limits.max_alias_values:
                    raise LoadLimitError(
                        f"YAML aliases expand to more than {limits.max_alias_values:,} values "
                        "(an alias bomb?)",
                        line=line,
                    )
                if self._alias_chars > limits.max_alias_chars:
                    raise LoadLimitError(
                        f"YAML aliases expand to more than {limits.max_alias_chars:,} "
                        f"characters of text (*{event.anchor} repeats "
                        f"{chars:,} characters; an alias bomb?)",
                        line=line,
                    )
            return super().compose_node(parent, index)
        opens = isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent)
        if opens and self._depth >= limits.max_depth:
            raise LoadLimitError(f"values nested deeper than {limits.max_depth} levels", line=line)
        self._depth += opens
        try:
            node = super().compose_node(parent, index)
        finally:
            self._depth -= opens
        if node is not None:
            self._sizes[id(node)] = self._size(node)
        return node

    def _size(self, node: yaml.Node) -> tuple[int, int]:
        """(values, characters) that ``node`` stands for once every alias in it is expanded."""
        if isinstance(node, yaml.ScalarNode):
            return 1, len(node.value)
        children: list[yaml.Node] = (
            node.value
            if isinstance(node, yaml.SequenceNode)
            else [part for pair in node.value for part in pair]
        )
        values, chars = 1, 0
        for child in children:
            child_values, child_chars = self._sizes.get(id(child), (1, 0))
            values += child_values
            chars += child_chars
        return values, chars


def load_yaml_documents(
    text: str, *, limits: LoadLimits, loader: type[BoundedLoader] = BoundedLoader
) -> list[tuple[yaml.Node, Any]]:
    """Every ``---`` document of ``text`` as (node, data); empty documents are kept as None.

    Raises:
        LoadLimitError: over a limit (with the line).
        yaml.YAMLError: not valid YAML.
    """
    check_size(len(text), limits, "characters")
    bounded = type("_Loader", (loader,), {"limits": limits})
    reader = bounded(text)
    documents: list[tuple[yaml.Node, Any]] = []
    try:
        while reader.check_node():
            node = reader.get_node()
            documents.append((node, reader.construct_document(node)))
    finally:
        reader.dispose()
    return documents


# A JSON string (escapes included) or one bracket; strings are skipped whole so that
# brackets inside them do not count.
_JSON_TOKEN = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"|[\[\]{}]')


def check_json_depth(text: str, max_depth: int) -> None:
    """Refuse JSON text nested deeper than ``max_depth`` (without parsing it).

    Raises:
        LoadLimitError: too deep (with the line of the first bracket too many).
    """
    if text.count("[") + text.count("{") <= max_depth:
        return
    depth = 0
    for match in _JSON_TOKEN.finditer(text):
        token = match.group()
        if token in ("[", "{"):
            depth += 1
            if depth > max_depth:
                line = text.count("\n", 0, match.start()) + 1
                raise LoadLimitError(f"values nested deeper than {max_depth} levels", line=line)
        elif token in ("]", "}"):
            depth -= 1


def load_json(text: str, *, limits: LoadLimits) -> Any:
    """``json.loads`` within ``limits`` (size and nesting).

    Raises:
        LoadLimitError: over a limit.
        ValueError: not valid JSON (``json.JSONDecodeError``).
    """
    check_size(len(text), limits, "characters")
    check_json_depth(text, limits.max_depth)
    return json.loads(text)
