"""A sample's conversation written in the OpenAI chat format: the reverse of the importers.

The built-in tool agent sends a conversation to its model in this form, and a suite whose
``agent-input`` is ``openai`` hands it to the user's agent in the same form, ready for
``client.chat.completions.create(messages=...)``. Written with the one typed model of the
format (:mod:`ragas_boot.samples.openai_chat`), so what is written reads back through every
reader of it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ragas_boot.samples.messages import AIMessage, HumanMessage, Message
from ragas_boot.samples.openai_chat import (
    AssistantMessage,
    ChatMessage,
    CustomToolCall,
    FunctionCall,
    FunctionToolCall,
    ToolResultMessage,
    UserMessage,
)

__all__ = ["to_openai_chat", "to_openai_messages"]


def to_openai_chat(messages: Sequence[Message]) -> list[ChatMessage]:
    """A conversation as typed OpenAI chat messages.

    A call without an id gets one (``call_h{message}_{position}``); a tool message without a
    ``tool_call_id`` answers the first call not yet answered that has its name, else the
    first not yet answered.
    """
    converted: list[ChatMessage] = []
    pending: list[tuple[str, str]] = []  # (call id, tool name) not yet answered
    for index, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            converted.append(UserMessage(role="user", content=message.content))
        elif isinstance(message, AIMessage):
            calls: list[FunctionToolCall | CustomToolCall] = []
            for position, call in enumerate(message.tool_calls):
                call_id = call.id or f"call_h{index}_{position}"
                pending.append((call_id, call.name))
                arguments = json.dumps(call.arguments)
                calls.append(
                    FunctionToolCall(
                        id=call_id, function=FunctionCall(name=call.name, arguments=arguments)
                    )
                )
            converted.append(
                AssistantMessage(
                    role="assistant", content=message.content or None, tool_calls=calls or None
                )
            )
        else:
            answered = message.tool_call_id
            if answered is None and pending:
                named = [item for item in pending if item[1] == message.name]
                answered = (named or pending)[0][0]
            pending = [item for item in pending if item[0] != answered]
            converted.append(
                ToolResultMessage(role="tool", tool_call_id=answered or "", content=message.content)
            )
    return converted


def to_openai_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """A conversation as OpenAI chat messages in JSON form (plain dicts, nulls left out), as
    ``chat.completions.create(messages=...)`` takes them.

    Example:
        >>> from ragas_boot.samples import AIMessage, HumanMessage, ToolCall
        >>> to_openai_messages([HumanMessage("Weather in Paris?"),
        ...                     AIMessage("", [ToolCall("get_weather", {"city": "Paris"})])])
        ... # doctest: +NORMALIZE_WHITESPACE
        [{'role': 'user', 'content': 'Weather in Paris?'},
         {'role': 'assistant', 'tool_calls': [{'id': 'call_h1_0', 'type': 'function',
          'function': {'name': 'get_weather', 'arguments': '{"city": "Paris"}'}}]}]
    """
    return [
        message.model_dump(mode="json", exclude_none=True) for message in to_openai_chat(messages)
    ]
