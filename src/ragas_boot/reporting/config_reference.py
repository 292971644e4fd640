"""The configuration key reference of the docs site, rendered from the settings models.

Every key ``load_settings`` reads, with its type, default and description, comes from the
pydantic models of :mod:`ragas_boot.config.settings` and the metrics' config models, so the
reference cannot drift from what the loader accepts. The site's build hook renders it; a test
checks that every field of every model has a row.
"""

from __future__ import annotations

import re
import types
from collections.abc import Iterator, Mapping, Sequence
from datetime import timedelta
from enum import Enum
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import annotated_types
import yaml
from pydantic import BaseModel, SecretStr
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from ragas_boot.config.settings import ROOT_PREFIXES, RagasSettings
from ragas_boot.metrics.base import MetricConfig

__all__ = ["Row", "Table", "config_reference_tables", "render_config_reference"]

#: ``:class:`~a.b.C``` and the like in a docstring's summary, shown as code.
_ROLE = re.compile(r":[a-z]+:`~?([^`]+)`")
_BOUNDS = (
    (annotated_types.Ge, "≥", "ge"),
    (annotated_types.Gt, ">", "gt"),
    (annotated_types.Le, "≤", "le"),
    (annotated_types.Lt, "<", "lt"),
)

#: One documented key: its dotted YAML path under its table's prefix, type, default, meaning.
Row = tuple[str, str, str, str]


def _summary(model: type[BaseModel]) -> str:
    paragraph = (model.__doc__ or "").strip().split("\n\n", 1)[0]
    return _ROLE.sub(
        lambda match: f"`{match.group(1).rsplit('.', 1)[-1]}`", " ".join(paragraph.split())
    )


def _strip(annotation: Any) -> Any:
    """The annotation without ``Annotated`` and ``None``: what a key holds when it is set."""
    if get_origin(annotation) is Annotated:
        return _strip(get_args(annotation)[0])
    if get_origin(annotation) in (Union, types.UnionType):
        kept = [arg for arg in get_args(annotation) if arg is not type(None)]
        return _strip(kept[0]) if len(kept) == 1 else Union[tuple(kept)]  # noqa: UP007
    return annotation


def _section(annotation: Any) -> tuple[str, type[BaseModel]] | None:
    """``("", M)`` for a section, ``("[]", M)`` for a list of them, ``(".<name>", M)`` a map."""
    held = _strip(annotation)
    if isinstance(held, type) and issubclass(held, BaseModel):
        return "", held
    origin, args = get_origin(held), get_args(held)
    if origin in (list, tuple, Sequence) and args:
        item = _strip(args[0])
        if isinstance(item, type) and issubclass(item, BaseModel):
            return "[]", item
    if origin in (dict, Mapping) and len(args) == 2:
        item = _strip(args[1])
        if isinstance(item, type) and issubclass(item, BaseModel):
            return ".<name>", item
    return None


def _type(annotation: Any) -> str:
    held = _strip(annotation)
    origin, args = get_origin(held), get_args(held)
    if origin is Literal:
        return "one of " + ", ".join(f"`{value}`" for value in args)
    if origin in (Union, types.UnionType):
        return " or ".join(_type(arg) for arg in args)
    if origin in (list, tuple, set, frozenset, Sequence):
        return f"list of {_type(args[0])}" if args else "list"
    if origin in (dict, Mapping):
        return f"map of {_type(args[1])}" if len(args) == 2 else "map"
    if isinstance(held, type):
        if issubclass(held, Enum):
            return "one of " + ", ".join(f"`{member.value}`" for member in held)
        if issubclass(held, BaseModel):
            return "section"
        if issubclass(held, timedelta):
            return "duration"
        if issubclass(held, SecretStr):
            return "secret"
        if held in (bool, int, float, str):
            return held.__name__
    return "any"


def _bounds(info: FieldInfo) -> str:
    found = [
        f"{sign} {getattr(item, attribute)}"
        for item in info.metadata
        for kind, sign, attribute in _BOUNDS
        if isinstance(item, kind)
    ]
    return " " + ", ".join(found) if found else ""


def _duration(value: timedelta) -> str:
    milliseconds = round(value.total_seconds() * 1000)
    for unit, size in (("h", 3_600_000), ("m", 60_000), ("s", 1000)):
        if milliseconds and milliseconds % size == 0:
            return f"{milliseconds // size}{unit}"
    return f"{milliseconds}ms" if milliseconds else "0"


def _default(info: FieldInfo) -> str:
    if info.default is PydanticUndefined and info.default_factory is None:
        return "required"
    value = info.get_default(call_default_factory=True, validated_data={})
    if value is None:
        return "unset"
    if isinstance(value, Enum):
        value = value.value
    if isinstance(value, timedelta):
        return f"`{_duration(value)}`"
    if isinstance(value, SecretStr):
        return "`**********`"
    text = yaml.safe_dump(value, default_flow_style=True, allow_unicode=True, width=1 << 30)
    return f"`{text.strip().removesuffix('...').strip()}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _walk(
    model: type[BaseModel], prefix: str, nested: list[tuple[str, type[BaseModel]]]
) -> Iterator[Row]:
    """Rows of ``model``'s keys; sections in lists and maps go to ``nested`` (own tables)."""
    for name, info in model.model_fields.items():
        key = prefix + (info.alias or name.replace("_", "-"))
        description = _cell(info.description or "")
        section = _section(info.annotation)
        if section is None:
            yield key, _type(info.annotation) + _bounds(info), _default(info), description
        elif section[0] == "":
            if info.is_required() or info.default is None:
                yield key, "section", _default(info), description
            yield from _walk(section[1], key + ".", nested)
        else:
            kind = "list of sections" if section[0] == "[]" else "map of sections"
            yield key, kind, _default(info), description
            nested.append((key + section[0], section[1]))


#: One table of the reference: its YAML prefix, heading level, model and rows.
Table = tuple[str, int, type[BaseModel], list[Row]]


def _tables(
    prefix: str, model: type[BaseModel], level: int, skip: frozenset[str] = frozenset()
) -> list[Table]:
    """The table of ``model`` under ``prefix``, then one per list or map of sections in it."""
    nested: list[tuple[str, type[BaseModel]]] = []
    rows = [row for row in _walk(model, "", nested) if row[0].split(".")[0] not in skip]
    tables: list[Table] = [(prefix, level, model, rows)]
    for key, item in nested:
        tables += _tables(f"{prefix}.{key}", item, 3)
    return tables


def config_reference_tables(metric_sections: Mapping[str, type[BaseModel]]) -> list[Table]:
    """Every table of the reference, in the order rendered.

    Args:
        metric_sections: bean name → model of ``spring.ai.ragas.metrics.<bean-name>``
            (``METRICS.section_models()``).
    """
    tables: list[Table] = []
    for field, prefix in ROOT_PREFIXES.items():
        annotation = RagasSettings.model_fields[field].annotation
        assert isinstance(annotation, type) and issubclass(annotation, BaseModel)
        tables += _tables(prefix, annotation, 2)
        if field != "metrics":
            continue
        # The keys every metric section shares once, then each metric's own.
        shared = frozenset(info.alias or name for name, info in MetricConfig.model_fields.items())
        tables += _tables(f"{prefix}.<metric>", MetricConfig, 3)
        for bean, model in metric_sections.items():
            tables += _tables(f"{prefix}.{bean.replace('_', '-')}", model, 3, shared)
    return tables


def render_config_reference(metric_sections: Mapping[str, type[BaseModel]]) -> str:
    """The key reference as Markdown: one table per section, from the settings models."""
    lines = [
        "# Configuration keys",
        "",
        "Every key ragas-boot reads from `application.yaml`, generated from the settings "
        "models when the site is built. Types: `duration` is `500ms`, `30s`, `2m`, `PT30S` "
        "or a number of milliseconds; `secret` is a string that is never printed. How keys "
        "are written, profiles and placeholders are in [Configuration](configuration.md).",
    ]
    for prefix, level, model, rows in config_reference_tables(metric_sections):
        lines += ["", f"{'#' * level} `{prefix}`", "", _summary(model), ""]
        if not rows:
            lines.append("No keys of its own: the shared keys above.")
            continue
        lines += ["| Key | Type | Default | Meaning |", "|---|---|---|---|"]
        lines += [
            f"| `{key}` | {kind} | {default} | {meaning} |" for key, kind, default, meaning in rows
        ]
    return "\n".join(lines) + "\n"
