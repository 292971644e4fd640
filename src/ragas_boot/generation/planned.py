"""Planned cases: the tools and argument values of a case fixed in code, the model asked only
for the user's message.

A small model cannot be trusted to invent a sensible call (its values are nonsense), but it
can usually write one short sentence that asks for given values. So when the inputs give a
value for every required argument of a slot's tools, :class:`ValuePlanner` fixes the calls
first, seeded: each argument's value comes from its pool, in this order of sources: the
schema's ``enum``, its ``examples`` and ``default``, the values the input suite's own cases
expect (``required-params``), the values seen in ``--from-traces``, and for a bounded integer
the numbers of its range when nothing else is given. Every pooled value is valid against its
argument's schema (jsonschema), so a planned call is too. An optional argument is fixed in
about half of the calls (its values then reach the coverage table). Pools are cycled in a
seeded order, so a slot asked again gets the next values, not the same ones.

The model then writes the message (:class:`PlannedMessage`, one short field), and
:func:`missing_values` rejects a message that does not state each fixed value
(``message_missing_value``): a string value must appear in it (case and accents of the
letters as given, case-insensitive), a number as its digits. A boolean is not planned (no
word states it reliably): a slot whose required argument is a boolean, or has no value in the
inputs, is left to the model (the free path, :mod:`.candidates`).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.generation.schemas import argument_problems
from ragas_boot.generation.tools import ToolSource

__all__ = [
    "PlannedMessage",
    "ValuePlanner",
    "argument_text",
    "closest_example",
    "missing_values",
    "request_text",
    "value_pools",
]

_MAX_RANGE = 31  # a bounded integer with more values than this is not enumerated


def _strict(schema: dict[str, Any]) -> None:
    # What the model is held to (a local model's grammar); validation stays lenient, so a
    # remote model's stray keys are ignored and an empty message is a finding, not a re-ask.
    schema["required"] = ["user_message"]
    schema["additionalProperties"] = False


class PlannedMessage(BaseModel):
    """The one thing a planned case asks the model for."""

    model_config = ConfigDict(frozen=True, extra="ignore", json_schema_extra=_strict)

    user_message: str = Field(
        default="",
        description="The user's message: one short sentence that states every given value.",
        json_schema_extra={"maxLength": 120},
    )


def _valid(schema: Mapping[str, Any], value: Any) -> bool:
    wrapper = {"type": "object", "properties": {"v": dict(schema)}}
    return not argument_problems(wrapper, {"v": value})


def _plannable(value: Any) -> bool:
    return (isinstance(value, str) and bool(value.strip())) or (
        isinstance(value, int | float) and not isinstance(value, bool)
    )


def value_pools(
    source: ToolSource, observed: Sequence[Mapping[str, Any]] = ()
) -> dict[tuple[str, str], list[Any]]:
    """Each ``(tool, argument)``'s plannable values, in source order, deduplicated.

    Args:
        source: the tools (their schemas, and the input suite's case values).
        observed: more expected calls (``{tool-name, required-params}``), e.g. from traces.
    """
    pools: dict[tuple[str, str], list[Any]] = {}
    seen = [*source.examples, *observed]
    for tool in source.tools:
        for name, schema in tool.parameters.get("properties", {}).items():
            if not isinstance(schema, Mapping):
                continue
            values: list[Any] = []
            values += schema.get("enum") or []
            values += schema.get("examples") or []
            if "default" in schema:
                values.append(schema["default"])
            for call in seen:
                params = call.get("required-params") or {}
                if call.get("tool-name") == tool.name and isinstance(params, Mapping):
                    values.append(params.get(name))
            low, high = schema.get("minimum"), schema.get("maximum")
            if (
                not values
                and schema.get("type") == "integer"
                and isinstance(low, int)
                and isinstance(high, int)
                and 0 <= high - low < _MAX_RANGE
            ):
                values = list(range(low, high + 1))
            kept: list[Any] = []
            for value in values:
                if _plannable(value) and value not in kept and _valid(schema, value):
                    kept.append(value)
            if kept:
                pools[(tool.name, name)] = kept
    return pools


class ValuePlanner:
    """Fixes the argument values of slots, seeded (see the module docs)."""

    def __init__(
        self, source: ToolSource, pools: Mapping[tuple[str, str], list[Any]], seed: int
    ) -> None:
        self._source = source
        self._rng = random.Random(seed)
        self._cycles: dict[tuple[str, str], Iterator[Any]] = {}
        for key, values in pools.items():
            order = list(values)
            self._rng.shuffle(order)
            self._cycles[key] = _cycle(order)

    def can_plan(self, tools: Sequence[str]) -> bool:
        """Whether every required argument of ``tools`` has a pool."""
        for name in tools:
            tool = self._source.tool(name)
            if tool is None:
                return False
            for argument in tool.parameters.get("required", []):
                if (name, argument) not in self._cycles:
                    return False
        return True

    def plan(
        self, tools: Sequence[str], fixed: Mapping[str, Any] | None = None
    ) -> tuple[dict[str, Any], ...]:
        """The arguments of one call of each tool: required ones always, optional ones about
        half of the time; ``fixed`` (``argument: value``) sets the first call's values."""
        calls = []
        for index, name in enumerate(tools):
            tool = self._source.tool(name)
            schema = tool.parameters if tool is not None else {}
            required = set(schema.get("required", []))
            arguments: dict[str, Any] = {}
            for argument in schema.get("properties", {}):
                key = (name, argument)
                if index == 0 and fixed and argument in fixed:
                    arguments[argument] = fixed[argument]
                elif key in self._cycles and (argument in required or self._rng.random() < 0.5):
                    arguments[argument] = next(self._cycles[key])
            calls.append(arguments)
        return tuple(calls)


def _cycle(values: list[Any]) -> Iterator[Any]:
    while True:
        yield from values


def _stated(value: Any, message: str) -> bool:
    if isinstance(value, str):
        return value.casefold() in message.casefold()
    text = format(value, "g") if isinstance(value, float) else str(value)
    return re.search(rf"(?<![\d.]){re.escape(text)}(?![\d]|\.\d)", message) is not None


def missing_values(message: str, calls: Sequence[Mapping[str, Any]]) -> list[str]:
    """The fixed values (``argument = value``) that ``message`` does not state."""
    return [
        f"{argument} = {value!r}"
        for arguments in calls
        for argument, value in arguments.items()
        if not _stated(value, message)
    ]


def request_text(
    source: ToolSource, tools: Sequence[str], calls: Sequence[Mapping[str, Any]]
) -> str:
    """What the message asks for, on one line: each call's tool description and values."""
    parts = []
    for name, arguments in zip(tools, calls, strict=True):
        tool = source.tool(name)
        what = (tool.description if tool is not None else "") or name
        given = ", ".join(
            f"{argument} {value}" for argument, value in arguments.items() if value is not None
        )
        parts.append(f"{what} ({given})" if given else what)
    return "; and ".join(parts)


def closest_example(
    source: ToolSource, tools: Sequence[str], calls: Sequence[Mapping[str, Any]]
) -> tuple[str, str] | None:
    """The input suite's message closest to a planned case (the same tools, then the same
    arguments), with its values as :func:`stated_values` writes them; ``None`` when the
    input has no message with calls. A small model rewrites such a message for new values
    far better than it writes one from a description."""
    best: tuple[int, str, str] | None = None
    for message, expected in source.messages:
        names = [call["tool-name"] for call in expected]
        params = [call["required-params"] for call in expected]
        if not any(value is not None for call in params for value in call.values()):
            continue
        score = 4 * (sorted(names) == sorted(tools)) + 2 * (
            [sorted(p) for p in params] == [sorted(c) for c in calls]
        )
        score += len(set(names) & set(tools))
        if best is None or score > best[0]:
            best = (score, message, argument_text(params))
    return None if best is None else (best[1], best[2])


def argument_text(calls: Sequence[Mapping[str, Any]]) -> str:
    """``city Hanoi, days 5``: each call's values, by name."""
    return "; ".join(
        ", ".join(f"{name} {value}" for name, value in call.items() if value is not None)
        for call in calls
    )


def stated_values(calls: Sequence[Mapping[str, Any]]) -> str:
    """The values a message must state, comma-separated, each once."""
    values = [str(v) for call in calls for v in call.values() if v is not None]
    return ", ".join(dict.fromkeys(values))


def _grams(text: str, size: int = 4) -> set[tuple[str, ...]]:
    words = re.findall(r"\w+", text.casefold())
    return {tuple(words[i : i + size]) for i in range(len(words) - size + 1)}


def copied_prompt(
    message: str, instructions: str, source: ToolSource, tools: Sequence[str]
) -> str | None:
    """What of the prompt ``message`` copies, or ``None``: four words in a row of the
    ``instructions`` (the prompt's own text, without the example message), a tool's
    description, or a placeholder (``[new_value_1]``, ``{city}``). Such a message is the
    instructions echoed, not a user's words."""
    shared = _grams(message) & _grams(instructions)
    if shared:
        return f"the prompt's words {' '.join(sorted(shared)[0])!r}"
    said = message.casefold()
    for name in tools:
        tool = source.tool(name)
        if tool is not None and tool.description and tool.description.casefold() in said:
            return f"the description of {name} ({tool.description!r})"
    placeholder = re.search(r"\[[\w ]*\]|\{[\w ]*\}|<[\w ]*>", message)
    if placeholder is not None:
        return f"a placeholder {placeholder.group(0)!r}"
    return None
