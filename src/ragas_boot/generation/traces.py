"""``generate suite --from-traces``: production conversations become cases whose observed
calls are the expected ones, marked for a person's review.

The traces are read by the datasets' OTLP loader (:func:`~ragas_boot.datasets.otlp.load_otlp`:
OpenTelemetry GenAI and OpenInference spans). A conversation becomes a case when it has a user
message and tool calls: the input is the conversation up to the first tool call (its user
message, or the earlier turns too), the expected calls are the calls the agent made, with the
values it sent. They pass the same checks as generated candidates that need no model (the
tool exists, the arguments are valid against its schema, not a near-duplicate); one that
fails is left out, and a file with no usable conversation is bad input. No model is asked:
these cases are what happened, not what a judge thinks should happen, hence the review mark.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ragas_boot.errors import SuiteError
from ragas_boot.generation.duplicates import NearDuplicates
from ragas_boot.generation.schemas import argument_problems
from ragas_boot.generation.tools import ToolSource
from ragas_boot.samples import AIMessage, HumanMessage, Message

__all__ = ["trace_cases"]


def _input(messages: list[Message]) -> list[Message]:
    """The conversation before the agent's first tool call, ending with a user message."""
    before: list[Message] = []
    for message in messages:
        if isinstance(message, AIMessage) and message.tool_calls:
            break
        before.append(message)
    while before and not isinstance(before[-1], HumanMessage):
        before.pop()
    return before


def trace_cases(
    path: str | Path, source: ToolSource, duplicates: NearDuplicates
) -> Iterator[tuple[dict[str, Any], str]]:
    """Each usable conversation of the OTLP file as ``(case, its user text)``: the case in
    the suite file's keys, its id the trace's.

    Raises:
        SuiteError: the file is not OTLP JSON, or no conversation has a user message and a
            tool call (the file named).
        MissingExtraError: the ``[traces]`` extra is missing.
    """
    from ragas_boot.datasets.otlp import load_otlp
    from ragas_boot.errors import DatasetError

    label = str(path)
    try:
        imported = load_otlp(path)
    except DatasetError as error:
        raise SuiteError(str(error), file=label, field="--from-traces") from None
    found = 0
    for sample in imported.dataset.samples:
        calls = sample.actual_tool_calls()
        conversation = _input(list(sample.user_input_messages or []))
        if not calls or not conversation:
            continue
        found += 1
        known = all(source.tool(call.name) is not None for call in calls)
        valid = known and all(
            not argument_problems(source.tool(call.name).parameters, call.arguments)  # type: ignore[union-attr]
            for call in calls
        )
        text = conversation[-1].content
        if not valid or duplicates.find(text) is not None:
            continue
        case: dict[str, Any] = {"id": str(sample.id or f"trace{found}")[:16]}
        case["description"] = "Observed in production traces; review the expected calls."
        if len(conversation) == 1:
            case["user-message"] = text
        else:
            case["messages"] = [
                {
                    "role": "user" if isinstance(m, HumanMessage) else "assistant",
                    "content": m.content,
                }
                for m in conversation
                if isinstance(m, HumanMessage | AIMessage)
            ]
        case["expected-tool-calls"] = [
            {"tool-name": call.name, "required-params": dict(call.arguments)} for call in calls
        ]
        yield case, text
    if not found:
        raise SuiteError(
            f"no conversation in the traces has a user message and a tool call "
            f"({imported.summary()})",
            file=label,
            field="--from-traces",
        )
