"""Run a suite: the agent on every case (the agent phase), then the metrics (the one run engine).

An *agent* is any callable, sync or async, that takes the conversation (a list of
:class:`~ragas_boot.samples.Message`) and returns what it did, as one of:

* an :class:`~ragas_boot.chat.openai.agent.AgentReply`;
* a string (the final answer; no tool calls);
* a pair ``(answer, tool_calls)`` whose calls are :class:`~ragas_boot.samples.ToolCall`\\ s or
  mappings (``{"name": ..., "arguments": {...}}``, or OpenAI's ``{"function": {...}}``);
* a :class:`~ragas_boot.samples.Sample`;
* a trace: a list of messages, native, in OpenAI chat format (``role``) or LangChain's
  (objects or dicts), read with the sample importers. It may hold only what the agent added,
  or the whole conversation starting with the input (the input is then left out).

An agent that also accepts a keyword argument ``case`` receives the
:class:`~ragas_boot.runs.suites.expectations.AgentTestCase` (the built-in model runner reads its
budget and canned tool results). Sync agents run in a worker thread so that cases overlap.

Each case's run becomes a :class:`~ragas_boot.samples.Sample`: the case's sample (input,
expected calls, expectations) with the conversation the agent added, its answer, and an
``agent_run`` record (latency: the wall time of the agent's call minus rate-limit waiting;
turns, stop reason, tokens). An agent that raises, or returns something else, is that case's
``agent_run.error`` (the run goes on). The samples are then scored by
:func:`~ragas_boot.runs.engine.aevaluate_dataset` with ``tool_call_accuracy`` and
``case_expectations`` (the suite's ``scoring`` mapped onto their configs) and any other
metric given: the result is a :class:`~ragas_boot.runs.RunResult`.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ragas_boot.chat.openai.agent import AgentReply, OpenAIToolAgent
from ragas_boot.datasets import Dataset
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.metrics.agent.case_expectations import CaseExpectationsMetric
from ragas_boot.metrics.agent.tool_call_accuracy import ToolCallAccuracyMetric
from ragas_boot.metrics.base import Metric, MetricConfig
from ragas_boot.runs._concurrency import RunControl, bounded_run, run_blocking
from ragas_boot.runs.engine import DEFAULT_CONCURRENCY, aevaluate_dataset
from ragas_boot.runs.records import SampleRun
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.suites.expectations import AgentTestCase
from ragas_boot.runs.suites.scoring import SUITE_METRICS
from ragas_boot.runs.suites.suite import AgentTestSuite
from ragas_boot.samples import (
    AgentRun,
    AIMessage,
    HumanMessage,
    Message,
    Sample,
    StopReason,
    ToolCall,
    ToolMessage,
    from_langchain_messages,
    from_openai_messages,
)

if TYPE_CHECKING:
    from ragas_boot.container import RagasContainer

__all__ = [
    "Agent",
    "MetricsArgument",
    "aevaluate_cases",
    "arun_agent",
    "arun_case",
    "arun_suite",
    "as_agent_reply",
    "case_sample",
    "describe_agent",
    "evaluate_cases",
    "run_agent",
    "run_case",
    "run_suite",
    "suite_configs",
    "suite_dataset",
]

Agent = Callable[..., Any]
"""A sync or async callable taking the conversation (and optionally ``case=``)."""

MetricsArgument = Sequence[Metric[Any] | str]
"""Metrics to score the cases with besides the suite's own: beans, or bean names resolved
through a container (``"agent_goal_accuracy"``, ``"aspect_critic:polite"``)."""

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


def case_sample(
    case: AgentTestCase,
    reply: AgentReply | None = None,
    *,
    latency_ms: float | None = None,
    error: str | None = None,
    agent: str | None = None,
) -> Sample:
    """The case's sample with what the agent did: its conversation (the input, then what it
    added; an answer given without a trace becomes AI messages), its answer, and the
    ``agent_run`` record. Also how a run recorded elsewhere (a production trace) becomes a
    case to score.

    Args:
        case: the case.
        reply: what the agent returned (``None`` when it failed).
        latency_ms: the run's latency.
        error: the agent's failure, ``"ErrorType: message"``.
        agent: which agent ran, for reports.
    """
    planned = case.sample()
    inputs = list(planned.user_input_messages or [])
    reply = reply or AgentReply(stop_reason=StopReason.ERROR if error else StopReason.ANSWERED)
    added = list(reply.messages)
    if not added and error is None:
        if reply.tool_calls:
            added.append(AIMessage("", list(reply.tool_calls)))
        added.append(AIMessage(reply.response))
    # The calls are read off the conversation when it carries them (their tool results then
    # tell failed calls); reported apart from it, they are kept as reported.
    apart = _calls(added) != list(reply.tool_calls)
    usage = reply.usage
    return Sample(
        id=planned.id,
        user_input_messages=[*inputs, *added],
        response=None if error is not None else reply.response,
        tool_calls=list(reply.tool_calls) if apart else None,
        reference_tool_calls=planned.reference_tool_calls,
        expectations=planned.expectations,
        agent_run=AgentRun(
            agent=agent,
            latency_ms=latency_ms,
            turns=reply.turns,
            stop_reason=StopReason.ERROR if error is not None else reply.stop_reason,
            error=error,
            input_tokens=usage.input_tokens if usage is not None else None,
            output_tokens=usage.output_tokens if usage is not None else None,
        ),
        metadata=planned.metadata,
    )


async def _run_agent_on(case: AgentTestCase, agent: Agent, name: str) -> Sample:
    """Run ``agent`` on one case; its failure is the sample's ``agent_run.error``."""
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
        return case_sample(
            case, latency_ms=elapsed_ms, error=f"{type(error).__name__}: {error}", agent=name
        )
    elapsed_ms = (time.perf_counter() - started) * 1000
    latency = max(0.0, elapsed_ms - reply.wait_ms)
    return case_sample(case, reply, latency_ms=latency, agent=name)


def _selected(suite: AgentTestSuite, cases: Sequence[str] | None) -> list[AgentTestCase]:
    return list(suite.cases) if cases is None else [suite.case(case_id) for case_id in cases]


async def arun_agent(
    suite: AgentTestSuite,
    agent: Agent | None = None,
    *,
    concurrency: int | None = None,
    cases: Sequence[str] | None = None,
    on_sample: Callable[[Sample], None] | None = None,
    control: RunControl | None = None,
) -> list[Sample]:
    """The agent phase: the agent on each case, at most ``concurrency`` at once.

    Args:
        suite: the suite.
        agent: the agent; the suite's default agent when omitted.
        concurrency: cases in flight at once; the suite's ``concurrency`` when omitted.
        cases: ids of the cases to run; all when omitted.
        on_sample: called with each case's sample as it finishes.
        control: ends the phase early; the cases not run get an ``agent_run.error``.

    Returns:
        One sample per case, in suite order.

    Raises:
        SuiteError: no agent was given and the suite's cannot be resolved.
        KeyError: ``cases`` names an unknown case.
        ValueError: ``concurrency`` is below 1.
    """
    chosen = suite.resolve_agent() if agent is None else agent
    limit = suite.concurrency if concurrency is None else concurrency
    if limit < 1:
        raise ValueError(f"concurrency must be at least 1, got {limit}")
    selected = _selected(suite, cases)
    name = describe_agent(chosen)

    async def one(case: AgentTestCase) -> Sample:
        return await _run_agent_on(case, chosen, name)

    def finished(_: int, sample: Sample) -> None:
        if on_sample is not None:
            on_sample(sample)

    done, stopped = await bounded_run(
        selected, one, concurrency=limit, on_done=finished, control=control
    )
    return [
        done[index]
        if index in done
        else case_sample(case, error=f"RunStopped: {stopped} before the agent ran", agent=name)
        for index, case in enumerate(selected)
    ]


def run_agent(
    suite: AgentTestSuite,
    agent: Agent | None = None,
    *,
    concurrency: int | None = None,
    cases: Sequence[str] | None = None,
    portal: LoopPortal | None = None,
    on_sample: Callable[[Sample], None] | None = None,
    control: RunControl | None = None,
) -> list[Sample]:
    """Sync twin of :func:`arun_agent`, on ``portal``'s loop (a private one if omitted); a
    built-in :class:`OpenAIToolAgent`'s HTTP clients on that loop are closed afterwards.
    ``on_sample`` is then called from that loop's thread."""
    work = arun_agent(
        suite, agent, concurrency=concurrency, cases=cases, on_sample=on_sample, control=control
    )
    return _blocking(work, agent, None, portal)


def suite_dataset(suite: AgentTestSuite, samples: Sequence[Sample]) -> Dataset:
    """The samples of a suite run as the dataset the engine scores (the suite's name, its
    file)."""
    return Dataset(
        name=suite.name,
        description=suite.description,
        path=str(suite.source) if suite.source is not None else None,
        samples=list(samples),
    )


def _suite_beans(
    metrics: MetricsArgument, container: RagasContainer | None
) -> dict[str, Metric[Any]]:
    """The suite's metrics (the container's beans, with their YAML defaults, when there is a
    container) and the others given, by name."""
    beans: dict[str, Metric[Any]] = {}
    for name in SUITE_METRICS:
        if container is not None:
            beans[name] = container.metric(name)
        elif name == "tool_call_accuracy":
            beans[name] = ToolCallAccuracyMetric()
        else:
            beans[name] = CaseExpectationsMetric()
    for index, metric in enumerate(metrics):
        if isinstance(metric, str):
            if container is None:
                raise TypeError(
                    f"metrics[{index}] is the name {metric!r}: pass container= to run metrics "
                    "by bean name, or give the bean itself"
                )
            name, _, criterion = metric.partition(":")
            bean = container.metric(name, criterion or None)
            key = f"{bean.bean_name}:{bean.criterion}" if bean.criterion else bean.bean_name
        elif isinstance(metric, Metric):
            bean = metric
            key = f"{bean.bean_name}:{bean.criterion}" if bean.criterion else bean.bean_name
        else:
            raise TypeError(f"metrics[{index}] is a {type(metric).__name__}, not a metric bean")
        if key in SUITE_METRICS:
            beans[key] = bean  # the caller's bean of a suite metric replaces the default one
        elif key in beans:
            raise ValueError(f"metric {key!r} is given twice")
        else:
            beans[key] = bean
    return beans


def suite_configs(
    suite: AgentTestSuite, configs: Mapping[str, MetricConfig | Mapping[str, Any]] | None = None
) -> dict[str, MetricConfig | Mapping[str, Any]]:
    """The suite's ``scoring`` as metric configs, under the caller's ``configs``."""
    merged: dict[str, MetricConfig | Mapping[str, Any]] = dict(suite.scoring.metric_configs())
    for name, config in (configs or {}).items():
        base = merged.get(name)
        if isinstance(base, Mapping) and isinstance(config, Mapping):
            merged[name] = {**base, **config}
        else:
            merged[name] = config
    return merged


async def aevaluate_cases(
    suite: AgentTestSuite,
    samples: Sequence[Sample],
    *,
    metrics: MetricsArgument = (),
    configs: Mapping[str, MetricConfig | Mapping[str, Any]] | None = None,
    container: RagasContainer | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
    control: RunControl | None = None,
) -> RunResult:
    """The scoring phase alone: the suite's cases, already run (:func:`arun_agent`, or
    :func:`case_sample` of a trace recorded elsewhere), scored with the suite's metrics and
    ``metrics`` (arguments as for :func:`arun_suite`)."""
    return await aevaluate_dataset(
        suite_dataset(suite, samples),
        _suite_beans(metrics, container),
        configs=suite_configs(suite, configs),
        concurrency=concurrency,
        control=control,
    )


def evaluate_cases(
    suite: AgentTestSuite,
    samples: Sequence[Sample],
    *,
    metrics: MetricsArgument = (),
    configs: Mapping[str, MetricConfig | Mapping[str, Any]] | None = None,
    container: RagasContainer | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> RunResult:
    """Sync twin of :func:`aevaluate_cases` (on the container's loop when given)."""
    return run_blocking(
        aevaluate_cases(
            suite,
            samples,
            metrics=metrics,
            configs=configs,
            container=container,
            concurrency=concurrency,
        ),
        portal=container.portal() if container is not None else None,
        name="ragas-boot-suite",
    )


async def arun_suite(
    suite: AgentTestSuite,
    agent: Agent | None = None,
    *,
    metrics: MetricsArgument = (),
    configs: Mapping[str, MetricConfig | Mapping[str, Any]] | None = None,
    container: RagasContainer | None = None,
    concurrency: int | None = None,
    evaluation_concurrency: int = DEFAULT_CONCURRENCY,
    cases: Sequence[str] | None = None,
    control: RunControl | None = None,
) -> RunResult:
    """Run the agent on the suite's cases, then score them: a :class:`RunResult` like any
    dataset run's (every report, the history, ``compare`` and the gate take it).

    Args:
        suite: the suite.
        agent: the agent; the suite's default agent when omitted.
        metrics: metrics besides ``tool_call_accuracy`` and ``case_expectations`` (beans,
            or bean names with ``container``); a bean of one of those two replaces it.
        configs: metric configs over the suite's ``scoring`` (bean name → config fields).
        container: resolves metric names; its beans of the suite's metrics carry the YAML
            defaults (language, listeners).
        concurrency: cases the agent runs at once; the suite's ``concurrency`` when omitted.
        evaluation_concurrency: evaluations in flight at once afterwards.
        cases: ids of the cases to run; all when omitted.
        control: ends the run early (a signal handler's :meth:`RunControl.stop`).

    Raises:
        SuiteError: no agent was given and the suite's cannot be resolved.
        KeyError: ``cases`` names an unknown case.
        ValueError: ``concurrency`` is below 1, or a metric is given twice.
    """
    _suite_beans(metrics, container)  # a bad metric fails before the agent runs
    samples = await arun_agent(suite, agent, concurrency=concurrency, cases=cases, control=control)
    return await aevaluate_cases(
        suite,
        samples,
        metrics=metrics,
        configs=configs,
        container=container,
        concurrency=evaluation_concurrency,
        control=control,
    )


def run_suite(
    suite: AgentTestSuite,
    agent: Agent | None = None,
    *,
    metrics: MetricsArgument = (),
    configs: Mapping[str, MetricConfig | Mapping[str, Any]] | None = None,
    container: RagasContainer | None = None,
    concurrency: int | None = None,
    evaluation_concurrency: int = DEFAULT_CONCURRENCY,
    cases: Sequence[str] | None = None,
    portal: LoopPortal | None = None,
) -> RunResult:
    """Sync twin of :func:`arun_suite`: runs on the container's I/O loop (``portal``, else a
    private one). A built-in :class:`OpenAIToolAgent`'s HTTP clients on that loop are closed
    afterwards (the agent stays usable). Do not call it from inside that loop."""
    work = arun_suite(
        suite,
        agent,
        metrics=metrics,
        configs=configs,
        container=container,
        concurrency=concurrency,
        evaluation_concurrency=evaluation_concurrency,
        cases=cases,
    )
    return _blocking(work, agent, container, portal)


def _blocking(
    work: Coroutine[Any, Any, T],
    agent: Agent | None,
    container: RagasContainer | None,
    portal: LoopPortal | None,
) -> T:
    """``work`` from sync code on ``portal`` (else the container's, else a private loop),
    the built-in agent's clients on that loop closed afterwards."""
    if portal is None and container is not None:
        portal = container.portal()
    return run_blocking(_released(work, agent), portal=portal, name="ragas-boot-suite")


async def _released(work: Coroutine[Any, Any, T], agent: Agent | None) -> T:
    try:
        return await work
    finally:
        if isinstance(agent, OpenAIToolAgent):
            await agent.aclose()


async def arun_case(
    case: AgentTestCase,
    agent: Agent,
    *,
    suite: AgentTestSuite | None = None,
    metrics: MetricsArgument = (),
    container: RagasContainer | None = None,
) -> SampleRun:
    """Run ``agent`` on one case and score it: the case's sample with its evaluations
    (:attr:`SampleRun.passed` says whether every metric passed it).

    Args:
        case: the case.
        agent: the agent (see the module docs).
        suite: the suite whose ``scoring`` applies (the defaults when omitted).
        metrics: more metrics, as for :func:`arun_suite`.
        container: as for :func:`arun_suite`.
    """
    owner = suite or AgentTestSuite(name=case.id, cases=[case])
    sample = await _run_agent_on(case, agent, describe_agent(agent))
    run = await aevaluate_dataset(
        suite_dataset(owner, [sample]),
        _suite_beans(metrics, container),
        configs=suite_configs(owner),
    )
    return run.samples[0]


def run_case(
    case: AgentTestCase,
    agent: Agent,
    *,
    suite: AgentTestSuite | None = None,
    metrics: MetricsArgument = (),
    container: RagasContainer | None = None,
    portal: LoopPortal | None = None,
) -> SampleRun:
    """Sync twin of :func:`arun_case` (same loop rules as :func:`run_suite`)."""
    work = arun_case(case, agent, suite=suite, metrics=metrics, container=container)
    return _blocking(work, agent, container, portal)
