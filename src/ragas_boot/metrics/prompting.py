"""Prompt templates (package resources, en/ru) and the deterministic conversation rendering."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from ragas_boot.samples import AIMessage, HumanMessage, ToolCall, ToolMessage

__all__ = [
    "bullet_list",
    "check_template",
    "load_prompt",
    "prompt_placeholders",
    "render_conversation",
    "render_prompt",
    "tool_call_text",
]

_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
_PROMPTS = "prompts"


@cache
def prompt_placeholders() -> dict[str, frozenset[str]]:
    """Each shipped template's name with the placeholders it may use.

    Read off the English template files (``metrics/prompts/en/<name>.txt``): a metric adds a
    prompt by adding its files, and the placeholders its template uses are the public contract
    for custom templates.
    """
    folder = resources.files("ragas_boot.metrics").joinpath(_PROMPTS, "en")
    return {
        entry.name.removesuffix(".txt"): frozenset(
            _PLACEHOLDER.findall(entry.read_text(encoding="utf-8"))
        )
        for entry in sorted(folder.iterdir(), key=lambda item: item.name)
        if entry.name.endswith(".txt")
    }


@cache
def load_prompt(name: str, language: str = "en") -> str:
    """The template ``name`` in ``language`` (``ru`` or ``en``; anything else is English).

    Raises:
        KeyError: no such template.
    """
    known = prompt_placeholders()
    if name not in known:
        raise KeyError(f"no prompt named '{name}'; known: {', '.join(known)}")
    folder = "ru" if language.lower() == "ru" else "en"
    path = resources.files("ragas_boot.metrics").joinpath(_PROMPTS, folder, f"{name}.txt")
    if folder != "en" and not path.is_file():
        raise KeyError(f"prompt '{name}' has no '{folder}' translation")
    return path.read_text(encoding="utf-8")


def check_template(name: str, template: str) -> None:
    """Check a custom template: a known prompt, using only that prompt's placeholders.

    Raises:
        ValueError: unknown prompt name, unknown placeholder, or no ``{conversation}`` /
            list placeholder at all (a template that ignores its input is a mistake).
    """
    known = prompt_placeholders()
    if name not in known:
        raise ValueError(f"no prompt named '{name}'; known: {', '.join(known)}")
    allowed = known[name]
    used = set(_PLACEHOLDER.findall(template))
    unknown = sorted(used - allowed)
    may_use = ", ".join("{" + item + "}" for item in sorted(allowed))
    if unknown:
        listed = ", ".join("{" + item + "}" for item in unknown)
        raise ValueError(
            f"prompt '{name}' uses unknown placeholder(s) {listed}; it may use {may_use}"
        )
    if not used:
        raise ValueError(f"prompt '{name}' uses none of its placeholders ({may_use})")


def render_prompt(template: str, values: Mapping[str, Any]) -> str:
    """Fill ``{name}`` placeholders; braces that are not a known placeholder stay as they are.

    Values are inserted literally (a conversation full of JSON braces is safe).

    Raises:
        KeyError: the template names a placeholder that ``values`` lacks.
    """

    def substitute(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in values:
            raise KeyError(f"prompt placeholder '{{{key}}}' has no value")
        return str(values[key])

    return _PLACEHOLDER.sub(substitute, template)


def tool_call_text(call: ToolCall) -> str:
    """``name({"a":1,"b":"x"})``: arguments as compact JSON with sorted keys (stable)."""
    arguments = json.dumps(
        call.arguments, ensure_ascii=False, sort_keys=True, separators=(",", ":")
    )
    return f"{call.name}({arguments})"


def render_conversation(messages: Sequence[HumanMessage | AIMessage | ToolMessage]) -> str:
    """The conversation as judges see it, one ``[ROLE]: content`` block per message.

    Unlike the Java library (``Map.toString()`` in unstable order), tool-call arguments are
    compact JSON with sorted keys, so the same sample always renders the same prompt.
    """
    lines: list[str] = []
    for message in messages:
        if isinstance(message, HumanMessage):
            lines.append(f"[USER]: {message.content}")
        elif isinstance(message, ToolMessage):
            lines.append(f"[TOOL]: {message.content}")
        else:
            lines.append(f"[ASSISTANT]: {message.content}")
            if message.tool_calls:
                lines.append("  Tool calls:")
                lines.extend(f"    - {tool_call_text(call)}" for call in message.tool_calls)
    return "\n".join(lines)


def bullet_list(items: Sequence[str]) -> str:
    """Items as ``- item`` lines (every item gets its dash, unlike the Java join)."""
    return "\n".join(f"- {item}" for item in items)
