"""The shape of the keys ragas-boot consumes, read off the settings models.

One :class:`Node` tree covers ``spring.ai.retry``, ``spring.ai.openai`` and ``spring.ai.ragas``
(built from :data:`~ragas_boot.config.settings.ROOT_PREFIXES`), so that relaxed key names,
environment variable names, comma lists, secrets and "did you mean" hints all follow the models
instead of a second list of keys kept by hand. The metric sections come from whoever calls
:func:`root` (the metric registry is a higher layer): the config layer never asks for them.
"""

from __future__ import annotations

import re
import types
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel, SecretStr

from ragas_boot.config._tree import KeyPath, Segment, Tree, uniform
from ragas_boot.config.settings import ROOT_PREFIXES, MetricsSettings, RagasSettings
from ragas_boot.config.settings._base import _kebab, _snake_key

Kind = Literal["object", "list", "map", "scalar", "any"]

#: Bean name (snake_case) → the model of ``spring.ai.ragas.metrics.<bean-name>``.
MetricSections = Mapping[str, type[BaseModel]]

#: The namespace that belongs to ragas-boot alone: an unknown key under it is an error.
OWNED_PREFIX = "spring.ai.ragas"

#: Keys that name a secret (their values are never echoed). ``tokens`` (``max-tokens``) is not.
_SECRET_NAME = re.compile(
    r"api-?key|secret|passw(?:or)?d|credential|authorization|token(?!s)", re.IGNORECASE
)


@dataclass(eq=False)
class Node:
    """One level of the consumed key tree."""

    kind: Kind
    fields: dict[str, Node] = field(default_factory=dict)
    """Object: child nodes by YAML (kebab-case) key."""
    other: Node | None = None
    """Object: the node of any key not in ``fields``; None: such a key is unknown."""
    item: Node | None = None
    """List and map: the node of each item."""
    secret: bool = False
    """Scalar: a ``SecretStr``, whose value is never echoed."""

    def field_for(self, key: str) -> str | None:
        """The YAML key of the field that ``key`` names under Spring's relaxed binding."""
        if key in self.fields:
            return key
        wanted = uniform(key)
        for name in self.fields:
            if uniform(name) == wanted:
                return name
        return None


def kebab(key: str) -> str:
    """``baseUrl``, ``base_url`` and ``base-url`` all become ``base-url``."""
    return _kebab(_snake_key(key))


def is_secret_key(key: str) -> bool:
    """Whether a key (e.g. ``api-key``, ``client-secret``) names a secret."""
    return bool(_SECRET_NAME.search(key))


def root(metric_sections: MetricSections | None = None) -> Node:
    """The node of a whole YAML document (only the consumed subtrees are described).

    Args:
        metric_sections: the model of each metric's section by bean name; each becomes the
            node of ``spring.ai.ragas.metrics.<bean-name>``. None: metric sections are kept
            as written (any keys), to be checked by whoever knows the metrics.
    """
    top = Node("object")
    for name, prefix in ROOT_PREFIXES.items():
        node = top
        *parents, last = prefix.split(".")
        for part in parents:
            child = node.fields.get(part)
            if child is None:
                child = node.fields[part] = Node("object")
            node = child
        section = _node_for(RagasSettings.model_fields[name].annotation)
        if name == "metrics":
            section = _metrics_node(section, metric_sections)
        node.fields[last] = section
    return top


def _metrics_node(own: Node, metric_sections: MetricSections | None) -> Node:
    """``spring.ai.ragas.metrics``: its own keys, and a section per metric."""
    if metric_sections is None:
        return Node("object", fields=own.fields, other=Node("any"))
    fields = dict(own.fields)
    for bean, model in metric_sections.items():
        fields[kebab(bean)] = _model_node(model)
    return Node("object", fields=fields)


def node_at(top: Node, path: KeyPath) -> Node | None:
    """The node describing ``path`` under ``top``, or ``None`` when it is not a consumed key."""
    node: Node | None = top
    for segment in path:
        node = child_node(node, segment) if node is not None else None
    return node


def metric_section_keys() -> frozenset[str]:
    """YAML keys of ``spring.ai.ragas.metrics`` that are not metric sections."""
    return frozenset(info.alias or name for name, info in MetricsSettings.model_fields.items())


def consumed_prefixes() -> tuple[str, ...]:
    """``spring.ai.retry``, ``spring.ai.openai``, ``spring.ai.ragas``: the subtrees we read."""
    owned = OWNED_PREFIX + "."
    return tuple(
        dict.fromkeys(
            OWNED_PREFIX if prefix.startswith(owned) else prefix
            for prefix in ROOT_PREFIXES.values()
        )
    )


def child_node(node: Node, segment: Segment) -> Node | None:
    """The node of ``segment`` under ``node`` (exact YAML key for objects)."""
    if node.kind == "object":
        return node.fields.get(segment, node.other) if isinstance(segment, str) else None
    if node.kind == "list":
        return node.item if isinstance(segment, int) else None
    if node.kind == "map":
        return node.item
    if node.kind == "any":
        return node
    return None


@cache
def _model_node(model: type[BaseModel]) -> Node:
    node = Node("object")
    for name, info in model.model_fields.items():
        node.fields[info.alias or name] = _node_for(info.annotation)
    return node


def _node_for(annotation: Any) -> Node:
    origin = get_origin(annotation)
    if origin is Annotated:
        return _node_for(get_args(annotation)[0])
    if origin in (Union, types.UnionType):
        options = [arg for arg in get_args(annotation) if arg is not type(None)]
        return _node_for(options[0]) if len(options) == 1 else Node("scalar")
    if origin is list:
        return Node("list", item=_node_for(get_args(annotation)[0]))
    if origin is dict:
        return Node("map", item=_node_for(get_args(annotation)[1]))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return _model_node(annotation)
    if annotation is Any:
        return Node("any")
    return Node("scalar", secret=annotation is SecretStr)


def normalise_keys(value: Any, node: Node) -> Any:
    """Rename relaxed keys (``baseUrl``, ``base_url``) to the models' kebab-case keys.

    Only keys the models know are renamed, so an unknown key keeps the spelling its author
    wrote. An empty value (``default-provider:`` with nothing under it) of a section, list or
    map is dropped, as Spring leaves such a property unbound.
    """
    if node.kind == "object" and isinstance(value, dict):
        result: Tree = {}
        for key, item in value.items():
            name = node.field_for(key)
            if name is None:
                result[key] = item
                continue
            child_node = node.fields[name]
            if item is None and child_node.kind in ("object", "list", "map"):
                continue
            child = normalise_keys(item, child_node)
            if isinstance(result.get(name), dict) and isinstance(child, dict):
                result[name] = {**result[name], **child}
            else:
                result[name] = child
        return result
    if node.kind == "list" and isinstance(value, list) and node.item is not None:
        return [normalise_keys(item, node.item) for item in value]
    if node.kind == "map" and isinstance(value, dict) and node.item is not None:
        return {key: normalise_keys(item, node.item) for key, item in value.items()}
    return value


def split_lists(value: Any, node: Node) -> Any:
    """Turn a comma string (``429,503``) or a lone scalar into a list where a list is wanted.

    Spring converts both for list properties; environment variables can only give strings.
    """
    if node.kind == "object" and isinstance(value, dict):
        return {
            key: split_lists(item, node.fields[key]) if key in node.fields else item
            for key, item in value.items()
        }
    if node.kind == "map" and isinstance(value, dict) and node.item is not None:
        return {key: split_lists(item, node.item) for key, item in value.items()}
    if node.kind == "list" and node.item is not None:
        if isinstance(value, list):
            return [split_lists(item, node.item) for item in value]
        if node.item.kind == "scalar":
            if isinstance(value, str):
                return [part.strip() for part in value.split(",") if part.strip()]
            if isinstance(value, bool | int | float):
                return [value]
    return value
