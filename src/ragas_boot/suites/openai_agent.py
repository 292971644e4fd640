"""The built-in agent: an OpenAI-compatible chat model with tools, looping until it answers.

Any chat model of ``application.yaml`` can be the agent under test: build the agent from the
model's :class:`~ragas_boot.chat.JudgeSpec`. Each turn sends the conversation and the tool
schemas; tool calls are answered by the user's tool functions, canned results or the seed
article's mock (see :class:`~ragas_boot.suites.suite.ToolSpec`), and the loop goes on until
the model answers without calling a tool or has made more calls than the case's
``max_tool_calls`` (the calls of that last turn are recorded, not executed).

HTTP calls follow the judges' rules: one attempt per call (``max_retries=0``) retried by the
``spring.ai.retry`` policy, the provider's rate limit and concurrency cap, and its per-call
timeout. Clients are made per event loop, like the judges'.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ragas_boot.chat.judge import JudgeSpec, TokenUsage
from ragas_boot.chat.openai_judge import (
    LoopBoundChatModel,
    api_base_url,
    translate_error,
    usage_of,
)
from ragas_boot.config.settings import RetrySettings
from ragas_boot.execution.attempts import CallTally, call_with_retries
from ragas_boot.execution.limits import ProviderGate
from ragas_boot.execution.retry import RetryPolicy
from ragas_boot.samples import AIMessage, HumanMessage, Message, ToolCall, ToolMessage
from ragas_boot.suites.expectations import DEFAULT_MAX_TOOL_CALLS, AgentTestCase
from ragas_boot.suites.results import AgentReply, StopReason
from ragas_boot.suites.suite import AgentTestSuite, ToolSpec

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable

__all__ = ["OpenAIToolAgent", "openai_messages"]

ToolFunction = Callable[..., Any]
"""A tool's implementation: called with the call's arguments as keywords, sync or async."""


class _LoopState:
    """The model bound to the tools and the provider gate of one loop."""

    __slots__ = ("gate", "runnable")

    def __init__(
        self,
        runnable: Runnable[LanguageModelInput, BaseMessage],
        gate: ProviderGate,
    ) -> None:
        self.runnable = runnable
        self.gate = gate


class OpenAIToolAgent:
    """A tool-calling chat model on an OpenAI-compatible endpoint, run as the agent under test.

    Args:
        spec: the model's settings (a judge entry of ``application.yaml``).
        tools: the tools the model may call.
        tool_functions: implementations by tool name (the others get canned or mock results).
        system_prompt: sent first in every conversation.
        retry: the retry policy or its ``spring.ai.retry`` settings (defaults when omitted).
        base_url: overrides ``spec.base_url`` (Spring form, no ``/v1``), e.g. for a server
            whose address is only known once it runs.
        max_tool_calls: the budget when the runner gives no case.
    """

    def __init__(
        self,
        *,
        spec: JudgeSpec,
        tools: Sequence[ToolSpec] = (),
        tool_functions: Mapping[str, ToolFunction] | None = None,
        system_prompt: str | None = None,
        retry: RetryPolicy | RetrySettings | None = None,
        base_url: str | None = None,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
    ) -> None:
        self._spec = spec
        self._tools = {tool.name: tool for tool in tools}
        self._functions = dict(tool_functions or {})
        self._system_prompt = system_prompt
        self._retry = (
            retry
            if isinstance(retry, RetryPolicy)
            else RetryPolicy(settings=retry or RetrySettings())
        )
        self._api_base = api_base_url(base_url or spec.base_url, spec.completions_path)
        self._models = LoopBoundChatModel(spec=spec, api_base=self._api_base)
        self._max_tool_calls = max_tool_calls
        self._states: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _LoopState] = (
            weakref.WeakKeyDictionary()
        )

    @classmethod
    def for_suite(
        cls,
        suite: AgentTestSuite,
        *,
        spec: JudgeSpec,
        retry: RetryPolicy | RetrySettings | None = None,
        base_url: str | None = None,
    ) -> OpenAIToolAgent:
        """The agent with the suite's tools, tool functions and system prompt.

        Raises:
            SuiteError: a tool function reference cannot be imported.
        """
        return cls(
            spec=spec,
            tools=suite.tools,
            tool_functions=suite.tool_functions(),
            system_prompt=suite.system_prompt,
            retry=retry,
            base_url=base_url,
        )

    def __repr__(self) -> str:
        return (
            f"OpenAIToolAgent(id={self.id!r}, model={self._spec.model!r}, "
            f"url={self._api_base!r}, tools={list(self._tools)!r})"
        )

    @property
    def id(self) -> str:
        """The model's judge id."""
        return self._spec.id

    @property
    def spec(self) -> JudgeSpec:
        """The model's settings."""
        return self._spec

    @property
    def description(self) -> str:
        """``model ID (provider)``, shown in reports."""
        return f"model {self._spec.id} ({self._spec.provider})"

    async def __call__(
        self, messages: Sequence[Message], *, case: AgentTestCase | None = None
    ) -> AgentReply:
        """Run the model on the conversation until it answers or exceeds the budget.

        Args:
            messages: the conversation, ending with the user's message.
            case: the case, for its ``max_tool_calls`` and canned ``tool_results``.

        Returns:
            The final answer, every call made, and the messages added.

        Raises:
            JudgeError: a call to the model failed after the retries.
        """
        state = self._state()
        budget = case.max_tool_calls if case is not None else self._max_tool_calls
        canned = case.tool_results if case is not None else {}
        chat: list[Any] = []  # OpenAI-format dicts, and the model's own turns as it sent them
        if self._system_prompt:
            chat.append({"role": "system", "content": self._system_prompt})
        chat.extend(openai_messages(messages))
        added: list[Message] = []
        calls: list[ToolCall] = []
        usage = TokenUsage()
        waited = 0.0
        turns = 0
        while True:
            answer, wait = await self._complete(state, chat)
            turns += 1
            waited += wait
            usage = usage + usage_of(answer)
            text = _text(answer.content)
            turn, echo = _turn_calls(answer, turns)
            added.append(AIMessage(text, [call for call, _ in turn]))
            stop = None
            if not turn:
                stop = StopReason.ANSWERED
            else:
                calls.extend(call for call, _ in turn)
                if len(calls) > budget:
                    stop = StopReason.TOOL_BUDGET
            if stop is not None:
                return AgentReply(
                    response=text,
                    tool_calls=calls,
                    messages=added,
                    turns=turns,
                    usage=usage,
                    stop_reason=stop,
                    wait_ms=waited * 1000,
                )
            chat.append(echo)
            for call, problem in turn:
                output = await self._execute(call, canned, problem)
                added.append(ToolMessage(output, tool_call_id=call.id, name=call.name))
                chat.append({"role": "tool", "tool_call_id": call.id, "content": output})

    async def _execute(self, call: ToolCall, canned: Mapping[str, Any], problem: str | None) -> str:
        """The tool's output for the model: canned, from the function, or mocked."""
        name = call.name
        value: Any
        if problem is not None:
            value = {"error": problem}
        elif name in canned:
            value = canned[name]
        elif name in self._functions:
            try:
                value = self._functions[name](**call.arguments)
                if inspect.isawaitable(value):
                    value = await value
            except Exception as error:  # the model sees the tool's error, as in production
                value = {"error": f"{type(error).__name__}: {error}"}
        elif name in self._tools:
            value = self._tools[name].mock_result(call.arguments)
        else:
            value = {"error": f"unknown tool {name!r}; tools: {sorted(self._tools)}"}
        if isinstance(value, str):
            return value
        return json.dumps(value, ensure_ascii=False, default=str)

    def prepare(self) -> None:
        """Make this loop's client now (importing langchain-openai on first use).

        The runner calls it before timing a case, so one-off set-up is not counted as the
        model's latency.
        """
        self._state()

    # -- HTTP ------------------------------------------------------------------------------

    def _state(self) -> _LoopState:
        loop = asyncio.get_running_loop()
        state = self._states.get(loop)
        if state is None:
            state = self._make_state()
            self._states[loop] = state
        return state

    def _make_state(self) -> _LoopState:
        spec = self._spec
        llm = self._models.get()
        tools = [tool.openai_tool() for tool in self._tools.values()]
        runnable: Runnable[LanguageModelInput, BaseMessage] = (
            llm.bind_tools(tools) if tools else llm
        )
        return _LoopState(runnable, ProviderGate(limits=spec.limits))

    async def _complete(self, state: _LoopState, chat: list[Any]) -> tuple[BaseMessage, float]:
        """One model turn, with retries; returns the answer and seconds spent waiting."""
        tally = CallTally()

        async def turn() -> BaseMessage:
            try:
                return await state.runnable.ainvoke(chat)
            except Exception as error:
                translated = self._translated(error)
                if translated is error:
                    raise
                raise translated from error

        answer = await call_with_retries(
            turn,
            judge_id=self.id,
            gate=state.gate,
            policy=self._retry,
            timeout_s=self._spec.limits.call_timeout.total_seconds() or None,
            tally=tally,
        )
        return answer, tally.wait_s

    def _translated(self, error: Exception) -> BaseException:
        """The OpenAI client's errors as judge errors, which the retry policy understands."""
        return translate_error(error, spec=self._spec)

    async def aclose(self) -> None:
        """Close the HTTP clients of this loop (and of loops still running).

        The agent stays usable: a later call opens a new client.
        """
        self._states.clear()
        await self._models.aclose()


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            part if isinstance(part, str) else str(part.get("text", ""))
            for part in content
            if isinstance(part, str) or (isinstance(part, Mapping) and part.get("type") == "text")
        )
    return ""


def _turn_calls(
    answer: BaseMessage, turn: int
) -> tuple[list[tuple[ToolCall, str | None]], BaseMessage]:
    """Each call of a turn (as recorded, and the problem with it), and the turn to send back.

    Calls whose arguments are not JSON are recorded with no arguments and answered with an
    error, as a production tool runner would; the turn sent back keeps them as the model
    wrote them. Calls without an id get one, so that their results can refer to it.
    """
    calls: list[tuple[ToolCall, str | None]] = []
    valid = [dict(raw) for raw in getattr(answer, "tool_calls", None) or []]
    invalid = [dict(raw) for raw in getattr(answer, "invalid_tool_calls", None) or []]
    for position, raw in enumerate([*valid, *invalid]):
        raw["id"] = raw.get("id") or f"call_{turn}_{position}"
        name = raw.get("name") or "(unnamed)"
        if position < len(valid):
            calls.append((ToolCall(name, dict(raw.get("args") or {}), id=raw["id"]), None))
        else:
            problem = f"arguments are not valid JSON: {str(raw.get('args') or '')[:200]}"
            calls.append((ToolCall(name, {}, id=raw["id"]), problem))
    if not calls:
        return calls, answer
    echo = answer.model_copy(update={"tool_calls": valid, "invalid_tool_calls": invalid})
    return calls, echo


def openai_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """A native conversation in OpenAI chat format (call ids made up where missing)."""
    converted: list[dict[str, Any]] = []
    pending: list[tuple[str, str]] = []  # (call id, tool name) not yet answered
    for index, message in enumerate(messages):
        if isinstance(message, HumanMessage):
            converted.append({"role": "user", "content": message.content})
        elif isinstance(message, AIMessage):
            entry: dict[str, Any] = {"role": "assistant", "content": message.content or None}
            if message.tool_calls:
                echoed = []
                for position, call in enumerate(message.tool_calls):
                    call_id = call.id or f"call_h{index}_{position}"
                    pending.append((call_id, call.name))
                    echoed.append(
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {
                                "name": call.name,
                                "arguments": json.dumps(call.arguments),
                            },
                        }
                    )
                entry["tool_calls"] = echoed
            converted.append(entry)
        else:
            answered = message.tool_call_id
            if answered is None and pending:
                named = [item for item in pending if item[1] == message.name]
                answered = (named or pending)[0][0]
            pending = [item for item in pending if item[0] != answered]
            converted.append(
                {"role": "tool", "tool_call_id": answered or "", "content": message.content}
            )
    return converted
