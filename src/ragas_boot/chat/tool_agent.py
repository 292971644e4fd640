"""The built-in agent: an OpenAI-compatible chat model with tools, looping until it answers.

Any chat model of ``application.yaml`` can be the agent under test: build the agent from the
model's :class:`~ragas_boot.chat.JudgeSpec`. Each turn sends the conversation and the tool
schemas; tool calls are answered by the user's tool functions, canned results or the seed
article's mock (see :class:`~ragas_boot.suites.ToolSpec`), and the loop goes on until
the model answers without calling a tool or has made more calls than the case's
``max_tool_calls`` (the calls of that last turn are recorded, not executed).

HTTP calls follow the judges' rules: one attempt per call (``max_retries=0``) retried by the
``spring.ai.retry`` policy, the provider's rate limit and concurrency cap, and its per-call
timeout. Clients are made per event loop, like the judges'. Those rules belong to the
execution layer, which sits above this one: it registers how a turn is attempted
(:func:`set_turn_policy_factory`) when it is imported, as ``import ragas_boot`` does.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, cast

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.chat.judge import JudgeSpec, TokenUsage
from ragas_boot.chat.openai_calls import PerLoop, await_translated, translate_error, usage_of
from ragas_boot.chat.openai_judge import LoopBoundChatModel, api_base_url
from ragas_boot.config.settings import RetrySettings
from ragas_boot.config.urls import mask_url
from ragas_boot.samples import (
    AIMessage,
    HumanMessage,
    Message,
    StopReason,
    ToolCall,
    ToolMessage,
)

if TYPE_CHECKING:
    from langchain_core.language_models import LanguageModelInput
    from langchain_core.messages import BaseMessage
    from langchain_core.runnables import Runnable

__all__ = [
    "DEFAULT_MAX_TOOL_CALLS",
    "AgentCase",
    "AgentReply",
    "AgentSuite",
    "AgentTool",
    "OpenAIToolAgent",
    "StopReason",
    "TurnPolicy",
    "TurnPolicyFactory",
    "openai_messages",
    "set_turn_policy_factory",
]

DEFAULT_MAX_TOOL_CALLS = 5
"""A case's default tool-call budget (as in the seed article)."""

ToolFunction = Callable[..., Any]
"""A tool's implementation: called with the call's arguments as keywords, sync or async."""


class AgentReply(BaseModel):
    """What an agent returns for one case (agents may also return a trace; see the runner).

    Attributes:
        response: the final answer text.
        tool_calls: every tool call made, in order.
        messages: the messages the agent added (AI turns and tool results), when known.
        turns: model turns taken, when known.
        usage: tokens used, when known.
        stop_reason: why the run ended.
        wait_ms: time spent waiting for rate-limit tokens, left out of the latency.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    response: str = Field(default="", description="The final answer text.")
    tool_calls: list[ToolCall] = Field(
        default_factory=list, description="Every tool call made, in order."
    )
    messages: list[Message] = Field(
        default_factory=list, description="Messages the agent added (AI turns, tool results)."
    )
    turns: int | None = Field(default=None, description="Model turns taken, when known.")
    usage: TokenUsage | None = Field(default=None, description="Tokens used, when known.")
    stop_reason: StopReason = Field(default=StopReason.ANSWERED, description="Why the run ended.")
    wait_ms: float = Field(
        default=0.0, ge=0.0, description="Rate-limit waiting, left out of the latency."
    )


class AgentTool(Protocol):
    """A tool the agent offers the model (a suite's ``ToolSpec`` is one)."""

    @property
    def name(self) -> str:
        """The tool's name."""
        ...

    def openai_tool(self) -> dict[str, Any]:
        """The tool in OpenAI's ``tools`` format."""
        ...

    def mock_result(self, arguments: Mapping[str, Any]) -> Any:
        """The result given when no function or canned result answers."""
        ...


class AgentCase(Protocol):
    """What the agent reads of a case (a suite's ``AgentTestCase`` is one)."""

    @property
    def max_tool_calls(self) -> int:
        """The tool-call budget."""
        ...

    @property
    def tool_results(self) -> Mapping[str, Any]:
        """Canned tool results by tool name."""
        ...


class AgentSuite(Protocol):
    """What :meth:`OpenAIToolAgent.for_suite` reads of a suite (``AgentTestSuite`` is one)."""

    @property
    def tools(self) -> Sequence[AgentTool]:
        """The tools the model may call."""
        ...

    @property
    def system_prompt(self) -> str | None:
        """Sent first in every conversation."""
        ...

    def tool_functions(self) -> dict[str, Callable[..., Any]]:
        """The tools' implementations by name."""
        ...


class TurnPolicy(Protocol):
    """How one model turn is attempted: rate-limit token, concurrency slot, timeout, retry."""

    async def attempt(
        self, turn: Callable[[], Awaitable[Any]], *, model_id: str, timeout_s: float | None
    ) -> tuple[Any, float]:
        """Run ``turn`` (which raises judge errors) until it succeeds or the policy gives up.

        Returns:
            The turn's answer and the seconds spent waiting for the provider's limits.
        """
        ...


TurnPolicyFactory = Callable[[JudgeSpec, Any], TurnPolicy]
"""Makes the turn policy of an agent from its spec and its ``retry`` argument."""

_turn_policy_factory: TurnPolicyFactory | None = None


def set_turn_policy_factory(factory: TurnPolicyFactory) -> None:
    """Register how agents attempt a turn (``ragas_boot.execution`` does so on import)."""
    global _turn_policy_factory
    _turn_policy_factory = factory


def _turn_policy(spec: JudgeSpec, retry: Any) -> TurnPolicy:
    if _turn_policy_factory is None:  # pragma: no cover - import ragas_boot registers it
        raise RuntimeError("no turn policy is registered; import ragas_boot.execution first")
    return _turn_policy_factory(spec, retry)


class _LoopState:
    """The model bound to the tools, for one loop."""

    __slots__ = ("runnable",)

    def __init__(self, runnable: Runnable[LanguageModelInput, BaseMessage]) -> None:
        self.runnable = runnable


class OpenAIToolAgent:
    """A tool-calling chat model on an OpenAI-compatible endpoint, run as the agent under test.

    Args:
        spec: the model's settings (a judge entry of ``application.yaml``).
        tools: the tools the model may call.
        tool_functions: implementations by tool name (the others get canned or mock results).
        system_prompt: sent first in every conversation.
        retry: the ``spring.ai.retry`` settings, or a retry policy made from them (defaults
            when omitted); or a :class:`TurnPolicy` of your own.
        base_url: overrides ``spec.base_url`` (Spring form, no ``/v1``), e.g. for a server
            whose address is only known once it runs.
        max_tool_calls: the budget when the runner gives no case.
    """

    def __init__(
        self,
        *,
        spec: JudgeSpec,
        tools: Sequence[AgentTool] = (),
        tool_functions: Mapping[str, ToolFunction] | None = None,
        system_prompt: str | None = None,
        retry: RetrySettings | TurnPolicy | Any | None = None,
        base_url: str | None = None,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
    ) -> None:
        self._spec = spec
        self._tools = {tool.name: tool for tool in tools}
        self._functions = dict(tool_functions or {})
        self._system_prompt = system_prompt
        self._turns: TurnPolicy = (
            cast(TurnPolicy, retry)
            if callable(getattr(retry, "attempt", None))
            else _turn_policy(spec, retry or RetrySettings())
        )
        self._api_base = api_base_url(base_url or spec.base_url, spec.completions_path)
        self._models = LoopBoundChatModel(spec=spec, api_base=self._api_base)
        self._max_tool_calls = max_tool_calls
        self._states = PerLoop(self._make_state)

    @classmethod
    def for_suite(
        cls,
        suite: AgentSuite,
        *,
        spec: JudgeSpec,
        retry: RetrySettings | TurnPolicy | Any | None = None,
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
            f"url={mask_url(self._api_base)!r}, tools={list(self._tools)!r})"
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
        self, messages: Sequence[Message], *, case: AgentCase | None = None
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
        return self._states.get()

    def _make_state(self) -> _LoopState:
        llm = self._models.get()
        tools = [tool.openai_tool() for tool in self._tools.values()]
        runnable: Runnable[LanguageModelInput, BaseMessage] = (
            llm.bind_tools(tools) if tools else llm
        )
        return _LoopState(runnable)

    async def _complete(self, state: _LoopState, chat: list[Any]) -> tuple[BaseMessage, float]:
        """One model turn, with retries; returns the answer and seconds spent waiting."""

        async def turn() -> BaseMessage:
            return await await_translated(state.runnable.ainvoke(chat), self._translated)

        answer, waited = await self._turns.attempt(
            turn,
            model_id=self.id,
            timeout_s=self._spec.limits.call_timeout.total_seconds() or None,
        )
        message: BaseMessage = answer
        return message, waited

    def _translated(self, error: Exception) -> BaseException:
        """The OpenAI client's errors as judge errors, which the retry policy understands."""
        return translate_error(error, spec=self._spec)

    async def aclose(self) -> None:
        """Close the HTTP clients of this loop (and of loops still running).

        The agent stays usable: a later call opens a new client.
        """
        await self._states.aclose()  # bound runnables only: the clients are the models'
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
