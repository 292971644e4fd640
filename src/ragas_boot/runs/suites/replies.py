"""What an agent returned, read as a reply; how an agent is called and named.

An agent is any callable, sync or async, taking the conversation (a list of
:class:`~ragas_boot.samples.Message`, and optionally ``case=``); what it returns is read by
:func:`as_agent_reply` (the forms are listed in :mod:`ragas_boot.runs.suites.runner`). A suite's
single-turn cases and its scenario plays call it the same way. A suite whose ``agent-input``
is ``openai`` gives it the conversation as OpenAI chat messages (dicts) instead
(:func:`with_agent_input`).
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ragas_boot.chat.openai.agent import AgentReply, OpenAIToolAgent
from ragas_boot.samples import (
    AIMessage,
    HumanMessage,
    Message,
    Sample,
    ToolCall,
    ToolMessage,
    from_langchain_messages,
    from_openai_messages,
)
from ragas_boot.samples.to_openai import to_openai_messages

__all__ = [
    "Agent",
    "OpenAIInputAgent",
    "as_agent_reply",
    "call_agent",
    "describe_agent",
    "reported_calls",
    "with_agent_input",
]

Agent = Callable[..., Any]
"""A sync or async callable taking the conversation (and optionally ``case=``)."""

_NATIVE = (HumanMessage, AIMessage, ToolMessage)


def describe_agent(agent: Agent) -> str:
    """A short name for reports: ``module:function``, or the agent's own ``description``."""
    description = getattr(agent, "description", None)
    if isinstance(description, str) and description:
        return description
    module = getattr(agent, "__module__", None) or type(agent).__module__
    name = getattr(agent, "__qualname__", None) or type(agent).__qualname__
    if module.startswith("ragas_boot_suite_"):
        module = module.removeprefix("ragas_boot_suite_").rsplit("_", 1)[0]
    return f"{module}:{name}"


def as_agent_reply(output: Any, *, inputs: Sequence[Message] = ()) -> AgentReply:
    """Read what an agent returned as an :class:`AgentReply` (see the module docs for forms).

    Args:
        output: the agent's return value.
        inputs: the conversation the agent received; a returned trace that starts with it
            keeps only what follows.

    Raises:
        TypeError: ``output`` is none of the accepted forms.
        SampleValidationError: a trace or a tool call is malformed.
    """
    if isinstance(output, AgentReply):
        return output
    if isinstance(output, str):
        return AgentReply(response=output)
    if isinstance(output, Sample):
        messages = list(output.user_input_messages or [])
        added = _added(messages, inputs)
        response = output.response
        if response is None:
            response = _final_text(added)
        calls = list(output.tool_calls) if output.tool_calls else reported_calls(added)
        return AgentReply(response=response, tool_calls=calls, messages=added)
    if isinstance(output, tuple) and len(output) == 2 and isinstance(output[0], str):
        text, raw_calls = output
        return AgentReply(response=text, tool_calls=_tool_calls(raw_calls))
    if isinstance(output, list):
        messages = _trace(output)
        added = _added(messages, inputs)
        return AgentReply(
            response=_final_text(added), tool_calls=reported_calls(added), messages=added
        )
    raise TypeError(
        f"the agent returned {type(output).__name__}; expected an AgentReply, a string, "
        "(answer, tool_calls), a Sample or a list of messages"
    )


def _tool_calls(raw_calls: Any) -> list[ToolCall]:
    if raw_calls is None:
        return []
    if isinstance(raw_calls, str | bytes | Mapping) or not isinstance(raw_calls, Sequence):
        raise TypeError(f"tool calls must be a list, got {type(raw_calls).__name__}")
    calls = []
    for raw in raw_calls:
        if isinstance(raw, ToolCall):
            calls.append(raw)
        elif isinstance(raw, Mapping) and "function" in raw:
            message = {"role": "assistant", "content": None, "tool_calls": [raw]}
            calls.extend(reported_calls(from_openai_messages([message]).user_input_messages or []))
        else:
            calls.append(ToolCall.model_validate(raw))
    return calls


def _trace(raw: list[Any]) -> list[Message]:
    if all(isinstance(message, _NATIVE) for message in raw):
        return list(raw)
    if any(isinstance(message, Mapping) and "role" in message for message in raw):
        sample = from_openai_messages(raw)
    elif any(type(message).__module__.startswith("openai.") for message in raw):
        sample = from_openai_messages(raw)  # the OpenAI SDK's message objects
    else:
        sample = from_langchain_messages(raw)
    return list(sample.user_input_messages or [])


def _added(messages: list[Message], inputs: Sequence[Message]) -> list[Message]:
    if inputs and messages[: len(inputs)] == list(inputs):
        return messages[len(inputs) :]
    return messages


def _final_text(messages: Sequence[Message]) -> str:
    for message in reversed(messages):
        if isinstance(message, AIMessage):
            return message.content
    return ""


def reported_calls(messages: Sequence[Message]) -> list[ToolCall]:
    """Every tool call of the AI messages, in order."""
    return [call for m in messages if isinstance(m, AIMessage) for call in m.tool_calls]


def _takes_case(agent: Agent) -> bool:
    try:
        parameters = inspect.signature(agent).parameters.values()
    except (TypeError, ValueError):
        return False
    return any(
        parameter.name == "case" or parameter.kind is inspect.Parameter.VAR_KEYWORD
        for parameter in parameters
    )


def _is_async(agent: Agent) -> bool:
    # An object whose __call__ is ``async def`` is an async agent too.
    method = type(agent).__dict__.get("__call__") if not inspect.isroutine(agent) else None
    return inspect.iscoroutinefunction(agent) or inspect.iscoroutinefunction(method)


async def call_agent(agent: Agent, messages: list[Any], case: Any) -> Any:
    """Call ``agent`` on ``messages`` (with ``case=`` when it takes it); a sync agent runs in
    a worker thread, so that cases overlap."""
    keywords = {"case": case} if _takes_case(agent) else {}
    if _is_async(agent):
        result = await agent(messages, **keywords)
    else:
        result = await asyncio.to_thread(agent, messages, **keywords)
    if inspect.isawaitable(result):
        result = await result
    return result


class OpenAIInputAgent:
    """A Python agent given the conversation as OpenAI chat messages (JSON dicts).

    The agent sees the messages :func:`~ragas_boot.samples.to_openai.to_openai_messages`
    writes (calls without an id get one). When it returns a list that starts with the very
    messages it was given (``messages + [reply]``), only what follows is its turn; any other
    return form is read as from any agent (:func:`as_agent_reply`).
    """

    def __init__(self, agent: Agent) -> None:
        self.agent = agent
        self.description = describe_agent(agent)

    async def __call__(self, messages: list[Message], case: Any = None) -> Any:
        given = to_openai_messages(messages)
        output = await call_agent(self.agent, list(given), case)
        if isinstance(output, list) and given and output[: len(given)] == given:
            return output[len(given) :]
        return output


def with_agent_input(agent: Agent, form: str) -> Agent:
    """``agent`` as the suite's ``agent-input`` says it takes the conversation: unchanged for
    ``native``, wrapped in :class:`OpenAIInputAgent` for ``openai`` (never the built-in model
    agent, which speaks the chat format to its model itself)."""
    if form != "openai" or isinstance(agent, OpenAIInputAgent) or _is_model_agent(agent):
        return agent
    return OpenAIInputAgent(agent)


def _is_model_agent(agent: Agent) -> bool:
    return isinstance(agent, OpenAIToolAgent)
