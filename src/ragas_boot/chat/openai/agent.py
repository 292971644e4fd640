"""The built-in agent: an OpenAI-compatible chat model with tools, looping until it answers.

Any chat model of ``application.yaml`` can be the agent under test: build the agent from the
model's :class:`~ragas_boot.chat.JudgeSpec`. Each turn sends the conversation and the tool
schemas; tool calls are answered by the user's tool functions, canned results or the seed
article's mock (see :class:`~ragas_boot.suites.ToolSpec`), and the loop goes on until
the model answers without calling a tool or has made more calls than the case's
``max_tool_calls`` (the calls of that last turn are recorded, not executed).

The model's answers are read with the one model of the OpenAI chat format
(:mod:`ragas_boot.samples.openai_chat`), as dataset files, the importers and the local
servers read it: function and custom tool calls, a legacy ``function_call``, content parts
and a refusal read here as they do in a sample, and a malformed answer fails with the same
words, located under ``choices[0].message``. The turn sent back is the answer as the model
wrote it (arguments that are not JSON included), with ids given to calls that had none.

HTTP calls make one attempt each (``max_retries=0``); how a turn is attempted (the
``spring.ai.retry`` policy, the provider's rate limit and concurrency cap, its per-call
timeout) is the :class:`TurnPolicy` whoever builds the agent passes (``turns=``): the
execution layer's ``ModelTurns`` under the judges' rules, which this layer does not import.
Clients are made per event loop, like the judges' (the OpenAI client that ``ChatOpenAI``
holds, asked for the raw answer so that it is read once, by the model above).
Given a :class:`TurnCache` (the response cache), each turn's answer is kept by the request
that asked for it, so a replayed run sends nothing.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ragas_boot.chat.answers import body_usage
from ragas_boot.chat.failures import await_translated, translate_error
from ragas_boot.chat.judge import ModelIdentity, TokenUsage
from ragas_boot.chat.loops import PerLoop
from ragas_boot.chat.openai.chat_openai import LoopBoundChatModel
from ragas_boot.chat.openai.endpoints import api_base_url
from ragas_boot.chat.specs import JudgeSpec, OpenAICompatibleSpec
from ragas_boot.config.urls import mask_url
from ragas_boot.errors import JudgeOutputError, SampleValidationError
from ragas_boot.samples import AIMessage, Message, StopReason, ToolCall, ToolMessage
from ragas_boot.samples._base import message_of
from ragas_boot.samples.openai_chat import (
    AssistantMessage,
    ChatMessage,
    CustomToolCall,
    FunctionToolCall,
    chat_problem,
)
from ragas_boot.samples.to_openai import to_openai_chat

__all__ = [
    "DEFAULT_MAX_TOOL_CALLS",
    "AgentCase",
    "AgentReply",
    "AgentSuite",
    "AgentTool",
    "OpenAIToolAgent",
    "StopReason",
    "TurnCache",
    "TurnPolicy",
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


class TurnCache(Protocol):
    """Where the agent's turns are kept, so that a replayed run asks the model nothing (the
    response cache of ``execution/cache.py`` is one)."""

    def turn_answer(self, spec: JudgeSpec, request: Mapping[str, Any]) -> str | None:
        """The answer stored for this request, if any (and if the model is covered)."""
        ...

    def keep_turn(
        self, spec: JudgeSpec, request: Mapping[str, Any], content: str, usage: TokenUsage
    ) -> None:
        """Store the answer of a turn that was read whole."""
        ...


class _LoopState:
    """The OpenAI client of one loop (the one its ``ChatOpenAI`` holds)."""

    __slots__ = ("client",)

    def __init__(self, client: Any) -> None:
        self.client = client


class _Choice(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")

    message: dict[str, Any]


class _Completion(BaseModel):
    """The part of a ``chat.completion`` the agent reads: the first choice's message."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    choices: list[_Choice] = Field(min_length=1)
    usage: dict[str, Any] | None = None


_MESSAGE: TypeAdapter[ChatMessage] = TypeAdapter(ChatMessage)


class _Turn:
    """One answer of the model: what it said, each call (with the problem of its
    arguments, if any) and the message to send back."""

    __slots__ = ("calls", "echo", "text")

    def __init__(
        self, text: str, calls: list[tuple[ToolCall, str | None, bool]], echo: dict[str, Any]
    ) -> None:
        self.text = text
        self.calls = calls  # (call, problem, legacy function_call)
        self.echo = echo


class OpenAIToolAgent(ModelIdentity[OpenAICompatibleSpec]):
    """A tool-calling chat model on an OpenAI-compatible endpoint, run as the agent under test.

    Args:
        spec: the model's settings (a judge entry of ``application.yaml``; a plain
            :class:`~ragas_boot.chat.specs.JudgeSpec` is an OpenAI-compatible one).
        turns: how each turn is attempted: ``ModelTurns.of(spec, retry)`` from
            ``ragas_boot.suites`` (or ``ragas_boot.execution.attempts``) for the judges'
            retry policy and the provider's limits, or any :class:`TurnPolicy`.
        tools: the tools the model may call.
        tool_functions: implementations by tool name (the others get canned or mock results).
        system_prompt: sent first in every conversation.
        base_url: overrides ``spec.base_url`` (Spring form, no ``/v1``), e.g. for a server
            whose address is only known once it runs.
        max_tool_calls: the budget when the runner gives no case.
        cache: keeps each turn's answer by its request; a turn found there sends nothing
            (a replayed run); ``None``: every turn is sent.

    Raises:
        TypeError: ``turns`` has no ``attempt`` method, or ``spec`` is a LangChain class's.
    """

    def __init__(
        self,
        *,
        spec: JudgeSpec,
        turns: TurnPolicy,
        tools: Sequence[AgentTool] = (),
        tool_functions: Mapping[str, ToolFunction] | None = None,
        system_prompt: str | None = None,
        base_url: str | None = None,
        max_tool_calls: int = DEFAULT_MAX_TOOL_CALLS,
        cache: TurnCache | None = None,
    ) -> None:
        if not callable(getattr(turns, "attempt", None)):
            raise TypeError(
                "turns must be a TurnPolicy (an object with an async attempt(turn, *, "
                f"model_id, timeout_s)), e.g. ModelTurns.of(spec); got {type(turns).__name__}"
            )
        self._spec = OpenAICompatibleSpec.of(spec)
        self._cache = cache
        self._tools = {tool.name: tool for tool in tools}
        self._functions = dict(tool_functions or {})
        self._system_prompt = system_prompt
        self._turns = turns
        self._api_base = api_base_url(base_url or spec.base_url, self._spec.completions_path)
        self._models = LoopBoundChatModel(spec=self._spec, api_base=self._api_base)
        self._max_tool_calls = max_tool_calls
        self._states = PerLoop(self._make_state)

    @classmethod
    def for_suite(
        cls,
        suite: AgentSuite,
        *,
        spec: JudgeSpec,
        turns: TurnPolicy,
        base_url: str | None = None,
        cache: TurnCache | None = None,
    ) -> OpenAIToolAgent:
        """The agent with the suite's tools, tool functions and system prompt (the other
        arguments as :class:`OpenAIToolAgent` takes them).

        Raises:
            SuiteError: a tool function reference cannot be imported.
        """
        return cls(
            spec=spec,
            turns=turns,
            tools=suite.tools,
            tool_functions=suite.tool_functions(),
            system_prompt=suite.system_prompt,
            base_url=base_url,
            cache=cache,
        )

    def __repr__(self) -> str:
        return (
            f"OpenAIToolAgent(id={self.id!r}, model={self._spec.model!r}, "
            f"url={mask_url(self._api_base)!r}, tools={list(self._tools)!r})"
        )

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
        chat: list[dict[str, Any]] = []  # OpenAI format, the model's turns as it sent them
        if self._system_prompt:
            chat.append({"role": "system", "content": self._system_prompt})
        chat.extend(_sent(message) for message in to_openai_chat(messages))
        added: list[Message] = []
        calls: list[ToolCall] = []
        usage = TokenUsage()
        waited = 0.0
        turns = 0
        while True:
            (answer, used), wait = await self._complete(state, chat)
            turns += 1
            waited += wait
            usage = usage + used
            turn = _turn(answer, turns)
            added.append(AIMessage(turn.text, [call for call, _, _ in turn.calls]))
            stop = None
            if not turn.calls:
                stop = StopReason.ANSWERED
            else:
                calls.extend(call for call, _, _ in turn.calls)
                if len(calls) > budget:
                    stop = StopReason.TOOL_BUDGET
            if stop is not None:
                return AgentReply(
                    response=turn.text,
                    tool_calls=calls,
                    messages=added,
                    turns=turns,
                    usage=usage,
                    stop_reason=stop,
                    wait_ms=waited * 1000,
                )
            chat.append(turn.echo)
            for call, problem, legacy in turn.calls:
                output = await self._execute(call, canned, problem)
                added.append(ToolMessage(output, tool_call_id=call.id, name=call.name))
                if legacy:  # a function_call is answered the legacy way, by name
                    chat.append({"role": "function", "name": call.name, "content": output})
                else:
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
        return _LoopState(llm.root_async_client)

    def _request(self, chat: list[dict[str, Any]]) -> dict[str, Any]:
        """The keys of one turn's request: what ``ChatOpenAI`` would send for the spec."""
        spec = self._spec
        request: dict[str, Any] = {"model": spec.model, "messages": chat, "stream": False}
        options = {
            "temperature": spec.temperature,
            "top_p": spec.top_p,
            "max_completion_tokens": spec.max_tokens,
        }
        request.update((key, value) for key, value in options.items() if value is not None)
        if self._tools:
            request["tools"] = [tool.openai_tool() for tool in self._tools.values()]
        return request

    async def _complete(
        self, state: _LoopState, chat: list[dict[str, Any]]
    ) -> tuple[tuple[AssistantMessage, TokenUsage], float]:
        """One model turn, with retries; returns the answer, its usage and the seconds spent
        waiting. A turn the cache holds is read from it: nothing sent, nothing billed."""
        request = self._request(chat)
        kept = self._kept_turn(request)
        if kept is not None:
            return kept, 0.0

        async def turn() -> tuple[AssistantMessage, TokenUsage]:
            raw = await await_translated(
                state.client.chat.completions.with_raw_response.create(**request),
                self._translated,
            )
            read = self._read(raw.content)
            self._keep_turn(request, raw.content, read[1])
            return read

        answer, waited = await self._turns.attempt(
            turn,
            model_id=self.id,
            timeout_s=self._spec.limits.call_timeout.total_seconds() or None,
        )
        read: tuple[AssistantMessage, TokenUsage] = answer
        return read, waited

    # -- the turn cache (a replayed run sends nothing) ---------------------------------------

    def _kept_turn(self, request: dict[str, Any]) -> tuple[AssistantMessage, TokenUsage] | None:
        """The cached answer of ``request``, read as a fresh one would be (no usage: nothing
        was billed); None without a cache or an answer it can read."""
        if self._cache is None:
            return None
        content = self._cache.turn_answer(self._spec, request)
        if content is None:
            return None
        try:
            answer, _ = self._read(content.encode("utf-8"))
        except JudgeOutputError:
            return None  # a stored answer this model can no longer read is a miss
        return answer, TokenUsage()

    def _keep_turn(self, request: dict[str, Any], content: bytes, usage: TokenUsage) -> None:
        if self._cache is not None:
            self._cache.keep_turn(self._spec, request, content.decode("utf-8", "replace"), usage)

    def _read(self, content: bytes) -> tuple[AssistantMessage, TokenUsage]:
        """The answer's message, read with the chat format's model, and its usage.

        Raises:
            JudgeOutputError: the body is not a chat completion, or its message is malformed
                or not the assistant's (the raw body kept).
        """
        completion = None
        try:
            completion = _Completion.model_validate_json(content)
            answer = _MESSAGE.validate_python(completion.choices[0].message)
        except ValidationError as error:
            where = "" if completion is None else "choices[0].message"
            field, message = chat_problem(error, prefix=where)
            raise self._malformed(f"{field}: {message}", content) from None
        if not isinstance(answer, AssistantMessage):
            problem = f"choices[0].message.role: expected 'assistant', got {answer.role!r}"
            raise self._malformed(problem, content)
        return answer, body_usage({"usage": completion.usage}) or TokenUsage()

    def _malformed(self, problem: str, content: bytes) -> JudgeOutputError:
        return JudgeOutputError(
            f"malformed answer from the agent model: {problem}",
            judge_id=self.id,
            raw_text=content.decode("utf-8", "replace"),
        )

    def _translated(self, error: Exception) -> BaseException:
        """The OpenAI client's errors as judge errors, which the retry policy understands."""
        return translate_error(error, spec=self._spec)

    async def aclose(self) -> None:
        """Close the HTTP clients of this loop (and of loops still running).

        The agent stays usable: a later call opens a new client.
        """
        await self._states.aclose()  # bound runnables only: the clients are the models'
        await self._models.aclose()


def _turn(answer: AssistantMessage, turn: int) -> _Turn:
    """A turn's calls as recorded (each with the problem of its arguments, if any) and the
    message to send back.

    Calls read as in a sample (a custom call's input as the argument ``input``, a
    ``function_call`` last). Calls whose arguments are not a JSON object are recorded with
    no arguments and answered with an error, as a production tool runner would; the turn
    sent back keeps them as the model wrote them. Tool calls without an id get one, so that
    their results can refer to it.
    """
    tool_calls: list[FunctionToolCall | CustomToolCall] = []
    calls: list[tuple[ToolCall, str | None, bool]] = []
    for position, call in enumerate(answer.tool_calls or ()):
        if call.id is None:
            call = call.model_copy(update={"id": f"call_{turn}_{position}"})
        tool_calls.append(call)
        calls.append(_recorded(call.name, call.id, call.tool_call, legacy=False))
    legacy = answer.function_call
    if legacy is not None:
        calls.append(_recorded(legacy.name, None, lambda: legacy.tool_call(None), legacy=True))
    echo = answer.model_copy(update={"tool_calls": tool_calls or None})
    return _Turn(answer.text, calls, {"content": None, **_sent(echo)})


def _recorded(
    name: str, call_id: str | None, read: Callable[[], ToolCall], *, legacy: bool
) -> tuple[ToolCall, str | None, bool]:
    try:
        return read(), None, legacy
    except SampleValidationError as error:
        return ToolCall(name, {}, id=call_id), f"arguments: {message_of(error)}", legacy


def _sent(message: BaseModel) -> dict[str, Any]:
    """A chat-format message as sent: the keys it was given, nulls left out."""
    sent: dict[str, Any] = message.model_dump(mode="json", exclude_none=True)
    return sent
