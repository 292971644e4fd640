"""YAML files as lists of documents, each with the profiles it is activated on.

Reading is strict where Spring is: a key written twice in one mapping is an error (SnakeYAML
rejects it), and every error names the file and the line, never the text of the line (which
could hold a secret). Reading is bounded (:data:`ragas_boot._loading.CONFIG_LIMITS`): file
size, nesting depth and YAML aliases, as SnakeYAML caps aliases.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ragas_boot._loading import CONFIG_LIMITS, BoundedLoader, LoadLimitError, load_yaml_documents
from ragas_boot.config import _profiles
from ragas_boot.config._tree import KeyPath, Tree, expand, find, format_path
from ragas_boot.errors import ConfigError

ON_PROFILE: KeyPath = ("spring", "config", "activate", "on-profile")
_ON_CLOUD_PLATFORM: KeyPath = ("spring", "config", "activate", "on-cloud-platform")


class _StrictLoader(BoundedLoader):
    """A bounded SafeLoader that rejects duplicate keys in a mapping."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Hashable, Any]:
        first_line: dict[Hashable, int] = {}
        for key_node, _ in node.value:
            if not isinstance(key_node, yaml.ScalarNode) or key_node.tag.endswith(":merge"):
                continue
            key = self.construct_object(key_node)
            if key in first_line:
                raise yaml.constructor.ConstructorError(
                    "while reading a mapping",
                    node.start_mark,
                    f"found the key '{key}' twice (first at line {first_line[key]})",
                    key_node.start_mark,
                )
            first_line[key] = key_node.start_mark.line + 1
        return super().construct_mapping(node, deep=deep)


@dataclass(frozen=True, slots=True)
class Document:
    """One ``---`` document of a file, its dotted keys expanded."""

    data: Tree
    file: str
    on_profile: tuple[str, ...] | None
    """Profile expressions from ``spring.config.activate.on-profile``, or ``None``."""
    cloud_only: bool
    """It has ``spring.config.activate.on-cloud-platform``: never active here."""

    @property
    def label(self) -> str:
        """The origin of its keys: ``file``, or ``file#profile`` for a profile document."""
        return f"{self.file}#{','.join(self.on_profile)}" if self.on_profile else self.file

    @property
    def conditional(self) -> bool:
        """Whether it is active only under some condition."""
        return self.on_profile is not None or self.cloud_only

    def applies(self, active: Collection[str]) -> bool:
        """Whether it is part of the configuration when ``active`` are the profiles."""
        if self.cloud_only:
            return False
        if self.on_profile is None:
            return True
        try:
            return _profiles.matches(self.on_profile, active)
        except ValueError as error:
            raise ConfigError(str(error), key=format_path(ON_PROFILE), file=self.file) from None


def read_documents(path: Path, label: str) -> list[Document]:
    """Read every document of a YAML file.

    Args:
        path: the file.
        label: how the file is named in provenance and errors.

    Raises:
        ConfigError: the file cannot be read, is not valid YAML, or a document is not a mapping.
    """
    try:
        size = path.stat().st_size
        if size > CONFIG_LIMITS.max_bytes:
            raise ConfigError(
                f"the file has {size:,} bytes, more than the {CONFIG_LIMITS.max_bytes:,} a "
                "configuration may have",
                file=label,
            )
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"the file is not UTF-8 text (byte {error.start} cannot be decoded)", file=label
        ) from None
    except OSError as error:
        raise ConfigError(f"cannot read the file: {error.strerror or error}", file=label) from None
    try:
        raw_documents = [
            data
            for _, data in load_yaml_documents(text, limits=CONFIG_LIMITS, loader=_StrictLoader)
        ]
    except LoadLimitError as error:
        where = f" at line {error.line}" if error.line else ""
        raise ConfigError(f"refused to read the YAML{where}: {error}", file=label) from None
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise ConfigError(f"invalid YAML{where}: {error.problem}", file=label) from None
    except yaml.YAMLError as error:
        raise ConfigError(f"invalid YAML: {type(error).__name__}", file=label) from None
    documents = []
    for number, raw in enumerate(raw_documents, start=1):
        if raw is None:
            continue
        if not isinstance(raw, dict):
            raise ConfigError(
                f"document {number} is a {type(raw).__name__}, not a mapping of keys", file=label
            )
        data = expand(raw)
        present, on_profile = find(data, ON_PROFILE)
        try:
            expressions = tuple(_profiles.names(on_profile)) if present else None
        except ValueError as error:
            raise ConfigError(str(error), key=format_path(ON_PROFILE), file=label) from None
        cloud_only, _ = find(data, _ON_CLOUD_PLATFORM)
        documents.append(Document(data, label, expressions, cloud_only))
    return documents
