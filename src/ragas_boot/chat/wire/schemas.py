"""JSON Schema helpers: find the schema a request asks for, and fill it with a minimal instance.

The fake server answers with them, and a dry run (``ragas-boot evaluate --dry-run``) feeds
minimal answers to a metric's dependent steps without sending anything. Both are best effort
by design: they serve a test double and an estimate, not a validator. The instance
generator covers what pydantic's ``model_json_schema()`` and OpenAI's strict schemas produce.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["find_schema_in_text", "minimal_instance"]

# Nesting deeper than this is a recursive schema whose required fields never end.
_MAX_DEPTH = 32

_FORMAT_EXAMPLES: Mapping[str, str] = {
    "date-time": "1970-01-01T00:00:00Z",
    "date": "1970-01-01",
    "time": "00:00:00",
    "duration": "P0D",
    "email": "user@example.com",
    "hostname": "example.com",
    "ipv4": "127.0.0.1",
    "ipv6": "::1",
    "uri": "https://example.com/",
    "url": "https://example.com/",
    "uuid": "00000000-0000-0000-0000-000000000000",
}

_SCHEMA_KEYS = frozenset(
    {"type", "properties", "$ref", "anyOf", "oneOf", "allOf", "$defs", "definitions", "items"}
)
_FENCE_RE = re.compile(r"```json[ \t]*\r?\n")
_DECODER = json.JSONDecoder()


def minimal_instance(schema: Any, *, min_items: int = 0) -> Any:
    """A small value that validates against ``schema``.

    Supported: ``object`` (``properties``, ``required``, ``additionalProperties``), ``array``
    (``items``, ``prefixItems``, ``minItems``; ``maxItems`` is respected because no more than
    ``minItems`` items are made), ``string`` (``enum``, ``minLength``, common ``format``\\s),
    ``integer``/``number`` (``minimum``, ``maximum`` and their ``exclusive`` forms), ``boolean``
    (``true``), ``null``, ``anyOf``/``oneOf`` (the first branch), ``allOf`` (merged), ``$ref``
    into ``$defs``/``definitions`` (any local JSON pointer) and ``const``. Only required
    properties are filled.

    Args:
        schema: a JSON Schema as a dict (a boolean schema is accepted too).
        min_items: arrays get at least this many items (within ``maxItems``) and strings at
            least one character, so a dry run's dependent steps (a verdict per extracted item)
            have something to ask about.

    Returns:
        A JSON-compatible value.

    Example:
        >>> minimal_instance({"type": "array", "minItems": 2, "items": {"enum": ["a", "b"]}})
        ['a', 'a']
    """
    return _instance(schema, schema, 0, min_items)


def _instance(schema: Any, root: Any, depth: int, fill: int = 0) -> Any:
    if not isinstance(schema, Mapping) or depth > _MAX_DEPTH:
        return None
    if "$ref" in schema:
        return _instance(_resolve(schema["$ref"], root), root, depth + 1, fill)
    if "const" in schema:
        return schema["const"]
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        return enum[0]
    for key in ("anyOf", "oneOf"):
        branches = schema.get(key)
        if isinstance(branches, list) and branches:
            return _instance(branches[0], root, depth + 1, fill)
    if isinstance(schema.get("allOf"), list):
        return _instance(_merge_all_of(schema, root), root, depth + 1, fill)
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = kind[0] if kind else None
    if kind is None:
        if "properties" in schema or "required" in schema:
            kind = "object"
        elif "items" in schema or "prefixItems" in schema:
            kind = "array"
    if kind == "object":
        return _object(schema, root, depth, fill)
    if kind == "array":
        return _array(schema, root, depth, fill)
    if kind == "string":
        return _string(schema, fill)
    if kind == "integer":
        return int(_number(schema, integer=True))
    if kind == "number":
        return float(_number(schema, integer=False))
    if kind == "boolean":
        return True
    return None


def _resolve(ref: Any, root: Any) -> Any:
    if not isinstance(ref, str) or not ref.startswith("#"):
        return None
    node = root
    for part in ref[1:].split("/"):
        if not part:
            continue
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping):
            node = node.get(part)
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            return None
    return node


def _merge_all_of(schema: Mapping[str, Any], root: Any) -> dict[str, Any]:
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    properties: dict[str, Any] = dict(merged.get("properties", {}))
    required: list[str] = list(merged.get("required", []))
    for part in schema["allOf"]:
        if isinstance(part, Mapping) and "$ref" in part:
            part = _resolve(part["$ref"], root)
        if not isinstance(part, Mapping):
            continue
        properties.update(part.get("properties", {}))
        required.extend(name for name in part.get("required", []) if name not in required)
        for key, value in part.items():
            merged.setdefault(key, value)
    if properties:
        merged["properties"] = properties
    if required:
        merged["required"] = required
    return merged


def _object(schema: Mapping[str, Any], root: Any, depth: int, fill: int) -> dict[str, Any]:
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        properties = {}
    extra = schema.get("additionalProperties")
    result: dict[str, Any] = {}
    for name in schema.get("required", ()):
        if name in properties:
            result[name] = _instance(properties[name], root, depth + 1, fill)
        else:
            result[name] = (
                _instance(extra, root, depth + 1, fill) if isinstance(extra, Mapping) else None
            )
    return result


def _array(schema: Mapping[str, Any], root: Any, depth: int, fill: int) -> list[Any]:
    prefix = schema.get("prefixItems")
    prefix_items = list(prefix) if isinstance(prefix, list) else []
    count = max(_int(schema.get("minItems"), 0), len(prefix_items))
    maximum = schema.get("maxItems")
    count = max(count, min(fill, maximum) if isinstance(maximum, int) else fill)
    items = schema.get("items")
    result = [_instance(item, root, depth + 1, fill) for item in prefix_items]
    while len(result) < count:
        result.append(_instance(items, root, depth + 1, fill))
    return result


def _string(schema: Mapping[str, Any], fill: int = 0) -> str:
    example = _FORMAT_EXAMPLES.get(str(schema.get("format", "")), "")
    length = max(_int(schema.get("minLength"), 0), 1 if fill else 0)
    if len(example) < length:
        example += "x" * (length - len(example))
    maximum = schema.get("maxLength")
    if isinstance(maximum, int) and len(example) > maximum:
        example = example[:maximum]
    return example


def _number(schema: Mapping[str, Any], *, integer: bool) -> float:
    low, low_open = _bound(schema, "minimum", "exclusiveMinimum", lower=True)
    high, high_open = _bound(schema, "maximum", "exclusiveMaximum", lower=False)
    if integer:
        first = None if low is None else math.floor(low) + 1 if low_open else math.ceil(low)
        last = None if high is None else math.ceil(high) - 1 if high_open else math.floor(high)
        if first is not None:
            return first
        return 0 if last is None or last >= 0 else last
    if low is None:
        if high is None or high > 0 or (high == 0 and not high_open):
            return 0.0
        return high - 1 if high_open else high
    if not low_open:
        return low
    if high is None or low + 1 < high or (low + 1 == high and not high_open):
        return low + 1
    return (low + high) / 2


def _bound(
    schema: Mapping[str, Any], inclusive_key: str, exclusive_key: str, *, lower: bool
) -> tuple[float | None, bool]:
    """The tighter of the inclusive and exclusive bounds, and whether it is exclusive."""
    inclusive = schema.get(inclusive_key)
    exclusive = schema.get(exclusive_key)
    if not _is_number(inclusive):
        inclusive = None
    if exclusive is True and inclusive is not None:  # draft 4: a flag on the inclusive bound
        return inclusive, True
    if not _is_number(exclusive):
        return inclusive, False
    if inclusive is None:
        return exclusive, True
    tighter_exclusive = exclusive >= inclusive if lower else exclusive <= inclusive
    return (exclusive, True) if tighter_exclusive else (inclusive, False)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _int(value: Any, default: int) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def find_schema_in_text(texts: Iterable[str]) -> dict[str, Any] | None:
    """The first JSON Schema written into one of ``texts``, or ``None``.

    A schema is the first JSON object after the words "JSON Schema" (any case) or inside a
    fenced ```` ```json ```` block, and it counts only if it looks like a schema (it has
    ``type``, ``properties``, ``$ref``, ``anyOf``, ...), so that an answer example is skipped.

    Args:
        texts: the texts to search, most relevant first (the last user message, then others).
    """
    for text in texts:
        if "{" not in text:
            continue
        lowered = text.lower()
        starts = [match.end() for match in re.finditer("json schema", lowered)]
        starts.extend(match.end() for match in _FENCE_RE.finditer(text))
        for start in starts:
            found = _object_at(text, text.find("{", start))
            if found is not None:
                return found
    return None


def _object_at(text: str, index: int) -> dict[str, Any] | None:
    if index < 0:
        return None
    try:
        value, _ = _DECODER.raw_decode(text, index)
    except ValueError:
        return None
    if isinstance(value, dict) and not _SCHEMA_KEYS.isdisjoint(value):
        return value
    return None
