"""Run an agent on a suite's cases, concurrently (bounded), and score each run.

An *agent* is any callable, sync or async, that takes the conversation (a list of
:class:`~ragas_boot.samples.Message`) and returns what it did, as one of:

* an :class:`~ragas_boot.chat.tool_agent.AgentReply`;
* a string (the final answer; no tool calls);
* a pair ``(answer, tool_calls)`` whose calls are :class:`~ragas_boot.samples.ToolCall`\\ s or
  mappings (``{"name": ..., "arguments": {...}}``, or OpenAI's ``{"function": {...}}``);
* a :class:`~ragas_boot.samples.Sample`;
* a trace: a list of messages, native, in OpenAI chat format (``role``) or LangChain's
  (objects or dicts), read with the sample importers. It may hold only what the agent added,
  or the whole conversation starting with the input (the input is then left out).

An agent that also accepts a keyword argument ``case`` receives the
:class:`~ragas_boot.runs.suites.expectations.AgentTestCase` (the built-in model runner reads its
budget and canned tool results). Sync agents run in a worker thread so that cases overlap; an
agent that raises, or returns something else, fails its case with an ``agent_error`` issue
(the run goes on). Latency is the wall time of the agent's call, minus rate-limit waiting.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from ragas_boot.chat.tool_agent import OpenAIToolAgent
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.runs._concurrency import bounded_map, run_blocking
from ragas_boot.runs.suites.expectations import AgentTestCase
from ragas_boot.runs.suites.results import AgentReply, AgentRun, CaseResult, StopReason, SuiteResult
from ragas_boot.runs.suites.scoring import ScoringSettings, score_case
from ragas_boot.runs.suites.suite import AgentTestSuite
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

__all__ = [
    "Agent",
    "arun_case",
    "arun_suite",
    "as_agent_reply",
    "describe_agent",
    "run_case",
    "run_suite",
]

Agent = Callable[..., Any]
"""A sync or async callable taking the conversation (and optionally ``case=``)."""

_NATIVE = (HumanMessage, AIMessage, ToolMessage)

T = TypeVar("T")


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
        calls = list(output.tool_calls) if output.tool_calls else _calls(added)
        return AgentReply(response=response, tool_calls=calls, messages=added)
    if isinstance(output, tuple) and len(output) == 2 and isinstance(output[0], str):
        text, raw_calls = output
        return AgentReply(response=text, tool_calls=_tool_calls(raw_calls))
    if isinstance(output, list):
        messages = _trace(output)
        added = _added(messages, inputs)
        return AgentReply(response=_final_text(added), tool_calls=_calls(added), messages=added)
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
            calls.extend(_calls(from_openai_messages([message]).user_input_messages or []))
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


def _calls(messages: Sequence[Message]) -> list[ToolCall]:
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


async def _call_agent(agent: Agent, messages: list[Message], case: AgentTestCase) -> Any:
    keywords = {"case": case} if _takes_case(agent) else {}
    if _is_async(agent):
        result = await agent(messages, **keywords)
    else:
        result = await asyncio.to_thread(agent, messages, **keywords)
    if inspect.isawaitable(result):
        result = await result
    return result


async def arun_case(
    case: AgentTestCase, agent: Agent, *, scoring: ScoringSettings | None = None
) -> CaseResult:
    """Run ``agent`` on one case and score it; the agent's failure becomes the case's issue.

    Args:
        case: the case.
        agent: the agent (see the module docs).
        scoring: weights, threshold and value comparison (defaults when omitted).

    Returns:
        The scored result.
    """
    messages = case.conversation()
    if isinstance(agent, OpenAIToolAgent):
        agent.prepare()  # client set-up is not the model's latency
    started = time.perf_counter()
    try:
        output = await _call_agent(agent, messages, case)
        reply = as_agent_reply(output, inputs=messages)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # the agent's failure is the case's data, not the run's end
        elapsed_ms = (time.perf_counter() - started) * 1000
        run = AgentRun(
            latency_ms=elapsed_ms,
            error=f"{type(error).__name__}: {error}",
            stop_reason=StopReason.ERROR,
        )
        return score_case(case, run, scoring)
    elapsed_ms = (time.perf_counter() - started) * 1000
    run = AgentRun(
        **reply.model_dump(exclude={"tool_calls", "messages"}),
        tool_calls=reply.tool_calls,
        messages=reply.messages,
        latency_ms=max(0.0, elapsed_ms - reply.wait_ms),
    )
    return score_case(case, run, scoring)


async def arun_suite(
    suite: AgentTestSuite,
    agent: Agent | None = None,
    *,
    concurrency: int | None = None,
    cases: Sequence[str] | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> SuiteResult:
    """Run the suite's cases with at most ``concurrency`` at once; results in suite order.

    Args:
        suite: the suite.
        agent: the agent; the suite's default agent when omitted.
        concurrency: cases in flight at once; the suite's ``concurrency`` when omitted.
        cases: ids of the cases to run; all when omitted.
        on_result: called with each case's result as it finishes.

    Returns:
        The suite's result.

    Raises:
        SuiteError: no agent was given and the suite's cannot be resolved.
        KeyError: ``cases`` names an unknown case.
        ValueError: ``concurrency`` is below 1.
    """
    chosen = suite.resolve_agent() if agent is None else agent
    limit = suite.concurrency if concurrency is None else concurrency
    if limit < 1:
        raise ValueError(f"concurrency must be at least 1, got {limit}")
    selected = suite.cases if cases is None else [suite.case(case_id) for case_id in cases]
    started_at = datetime.now(UTC)
    started = time.perf_counter()

    async def one(case: AgentTestCase) -> CaseResult:
        return await arun_case(case, chosen, scoring=suite.scoring)

    def finished(_: int, result: CaseResult) -> None:
        if on_result is not None:
            on_result(result)

    results = await bounded_map(selected, one, concurrency=limit, on_done=finished)
    return SuiteResult(
        suite=suite.name,
        agent=describe_agent(chosen),
        started_at=started_at,
        duration_s=time.perf_counter() - started,
        concurrency=limit,
        cases=results,
    )


def run_suite(
    suite: AgentTestSuite,
    agent: Agent | None = None,
    *,
    concurrency: int | None = None,
    cases: Sequence[str] | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
    portal: LoopPortal | None = None,
) -> SuiteResult:
    """Sync twin of :func:`arun_suite`: runs on ``portal``'s loop (a private one if omitted).

    A built-in :class:`OpenAIToolAgent`'s HTTP clients on that loop are closed afterwards (the
    agent stays usable). Do not call it from inside ``portal``'s own loop.
    """
    return run_blocking(
        _released(
            arun_suite(suite, agent, concurrency=concurrency, cases=cases, on_result=on_result),
            agent,
        ),
        portal=portal,
        name="ragas-boot-suite",
    )


async def _released(work: Coroutine[Any, Any, T], agent: Agent | None) -> T:
    try:
        return await work
    finally:
        if isinstance(agent, OpenAIToolAgent):
            await agent.aclose()


def run_case(
    case: AgentTestCase,
    agent: Agent,
    *,
    scoring: ScoringSettings | None = None,
    portal: LoopPortal | None = None,
) -> CaseResult:
    """Sync twin of :func:`arun_case` (same loop rules as :func:`run_suite`)."""
    return run_blocking(
        _released(arun_case(case, agent, scoring=scoring), agent),
        portal=portal,
        name="ragas-boot-suite",
    )
