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
import time
import traceback
from collections.abc import Callable, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

from ragas_boot.chat.openai.agent import AgentReply, OpenAIToolAgent
from ragas_boot.datasets import Dataset
from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.execution.roles import ModelRole
from ragas_boot.metrics.agent.case_expectations import CaseExpectationsMetric
from ragas_boot.metrics.agent.tool_call_accuracy import ToolCallAccuracyMetric
from ragas_boot.metrics.base import Metric, MetricConfig
from ragas_boot.runs._concurrency import RunControl, bounded_run, run_blocking
from ragas_boot.runs.engine import DEFAULT_CONCURRENCY, aevaluate_dataset
from ragas_boot.runs.records import SampleRun
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.simulation.state import PlayState, playing
from ragas_boot.runs.simulation.user import SimulatedUser, UserScript
from ragas_boot.runs.suites.expectations import AgentTestCase
from ragas_boot.runs.suites.replies import (
    Agent,
    as_agent_reply,
    call_agent,
    describe_agent,
    reported_calls,
    with_agent_input,
)
from ragas_boot.runs.suites.scenarios import Simulator, play_case, simulation_role
from ragas_boot.runs.suites.scoring import SUITE_METRICS
from ragas_boot.runs.suites.suite import AgentTestSuite
from ragas_boot.samples import (
    AgentRun,
    AIMessage,
    ConversationEnd,
    Sample,
    StopReason,
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

MetricsArgument = Sequence[Metric[Any] | str]
"""Metrics to score the cases with besides the suite's own: beans, or bean names resolved
through a container (``"agent_goal_accuracy"``, ``"aspect_critic:polite"``)."""

T = TypeVar("T")


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
    apart = reported_calls(added) != list(reply.tool_calls)
    usage = reply.usage
    return Sample(
        id=planned.id,
        user_input_messages=[*inputs, *added],
        response=None if error is not None else reply.response,
        tool_calls=list(reply.tool_calls) if apart else None,
        reference_tool_calls=planned.reference_tool_calls,
        expectations=planned.expectations,
        scenario=planned.scenario,
        reference=planned.reference,
        reference_topics=planned.reference_topics,
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


async def _run_agent_on(
    case: AgentTestCase, agent: Agent, name: str, simulator: Simulator
) -> Sample:
    """Run ``agent`` on one case; its failure is the sample's ``agent_run.error``, a fault of
    a simulated tool its ``agent_run.simulation`` (the case then counts apart)."""
    messages = case.conversation()
    if isinstance(agent, OpenAIToolAgent):
        agent.prepare()  # client set-up is not the model's latency
    state = PlayState(role=simulator.role)
    started = time.perf_counter()
    try:
        with playing(state):
            output = await call_agent(agent, messages, case)
        reply = as_agent_reply(output, inputs=messages)
    except asyncio.CancelledError:
        raise
    except Exception as error:  # the agent's failure is the case's data, not the run's end
        elapsed_ms = (time.perf_counter() - started) * 1000
        sample = case_sample(
            case, latency_ms=elapsed_ms, error=f"{type(error).__name__}: {error}", agent=name
        )
        return _traced(sample, error, state)
    elapsed_ms = (time.perf_counter() - started) * 1000
    latency = max(0.0, elapsed_ms - reply.wait_ms)
    return _traced(case_sample(case, reply, latency_ms=latency, agent=name), None, state)


def _traced(sample: Sample, error: BaseException | None, state: PlayState) -> Sample:
    """The sample with the agent's traceback, and a simulated tool's fault as a simulator
    failure (not the agent's)."""
    run = sample.agent_run
    if run is None or (error is None and state.fault is None):
        return sample
    update: dict[str, Any] = {}
    if error is not None:
        update["traceback"] = "".join(traceback.format_exception(error)).rstrip()
    if state.fault is not None:
        update["simulation"] = state.record(ConversationEnd.SIMULATOR_FAILED, state.fault)
    return sample.model_copy(update={"agent_run": run.model_copy(update=update)})


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
    simulator: ModelRole | None = None,
    user: UserScript | SimulatedUser | None = None,
    max_turns: int | None = None,
    repeat: int | None = None,
) -> list[Sample]:
    """The agent phase: the agent on each case (each play of a scenario case, with its
    simulated user), at most ``concurrency`` at once.

    Args:
        suite: the suite.
        agent: the agent; the suite's default agent when omitted.
        concurrency: cases (plays) in flight at once; the suite's ``concurrency`` when
            omitted.
        cases: ids of the cases to run; all when omitted.
        on_sample: called with each sample as it finishes.
        control: ends the phase early; the cases not run get an ``agent_run.error``.
        simulator: the simulation model (simulated users and tools), e.g.
            :func:`~ragas_boot.runs.suites.scenarios.simulation_role` of a container.
        user: plays every scenario's user instead of the model: a callable
            ``(conversation, scenario)`` returning the next message, a ``UserTurn`` or
            ``None`` (done), sync or async.
        max_turns: overrides every scenario's ``max_turns``.
        repeat: overrides how many times each scenario is played.

    Returns:
        One sample per case (per play of a scenario case), in suite order.

    Raises:
        SuiteError: no agent was given and the suite's cannot be resolved, or nothing can
            play a scenario's user.
        KeyError: ``cases`` names an unknown case.
        ValueError: ``concurrency``, ``max_turns`` or ``repeat`` is below 1.
    """
    chosen = with_agent_input(suite.resolve_agent() if agent is None else agent, suite.agent_input)
    limit = suite.concurrency if concurrency is None else concurrency
    if limit < 1:
        raise ValueError(f"concurrency must be at least 1, got {limit}")
    selected = _selected(suite, cases)
    played = Simulator.of(
        suite.model_copy(update={"cases": selected}),
        role=simulator,
        user=user,
        max_turns=max_turns,
        repeat=repeat,
    )
    name = describe_agent(chosen)
    units = [
        (case, play, plays, sample_id)
        for case in selected
        for plays in [suite.plays(case, repeat)]
        for play, sample_id in enumerate(case.play_ids(plays), start=1)
    ]

    async def one(unit: tuple[AgentTestCase, int, int, str]) -> Sample:
        case, play, plays, sample_id = unit
        if case.scenario is None:
            return await _run_agent_on(case, chosen, name, played)
        return await play_case(
            case, chosen, name, played, sample_id=sample_id, play=play, plays=plays
        )

    def finished(_: int, sample: Sample) -> None:
        if on_sample is not None:
            on_sample(sample)

    try:
        done, stopped = await bounded_run(
            units, one, concurrency=limit, on_done=finished, control=control
        )
    finally:
        if simulator is not None:
            await simulator.aclose()
    return [
        done[index]
        if index in done
        else case_sample(
            case, error=f"RunStopped: {stopped} before the agent ran", agent=name
        ).model_copy(update={"id": sample_id})
        for index, (case, _, _, sample_id) in enumerate(units)
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
    simulator: ModelRole | None = None,
    user: UserScript | SimulatedUser | None = None,
    max_turns: int | None = None,
    repeat: int | None = None,
) -> list[Sample]:
    """Sync twin of :func:`arun_agent`, on ``portal``'s loop (a private one if omitted); a
    built-in :class:`OpenAIToolAgent`'s HTTP clients on that loop are closed afterwards.
    ``on_sample`` is then called from that loop's thread."""
    work = arun_agent(
        suite,
        agent,
        concurrency=concurrency,
        cases=cases,
        on_sample=on_sample,
        control=control,
        simulator=simulator,
        user=user,
        max_turns=max_turns,
        repeat=repeat,
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
    simulator: ModelRole | None = None,
    user: UserScript | SimulatedUser | None = None,
    max_turns: int | None = None,
    repeat: int | None = None,
) -> RunResult:
    """Run the agent on the suite's cases (scenario cases with their simulated users), then
    score them: a :class:`RunResult` like any dataset run's (every report, the history,
    ``compare`` and the gate take it).

    Args:
        suite: the suite.
        agent: the agent; the suite's default agent when omitted.
        metrics: metrics besides ``tool_call_accuracy`` and ``case_expectations`` (beans,
            or bean names with ``container``); a bean of one of those two replaces it.
        configs: metric configs over the suite's ``scoring`` (bean name → config fields).
        container: resolves metric names; its beans of the suite's metrics carry the YAML
            defaults (language, listeners); its ``spring.ai.ragas.simulation`` model plays
            the scenarios' users and the simulated tools unless ``simulator`` or ``user``
            says otherwise.
        concurrency: cases the agent runs at once; the suite's ``concurrency`` when omitted.
        evaluation_concurrency: evaluations in flight at once afterwards.
        cases: ids of the cases to run; all when omitted.
        control: ends the run early (a signal handler's :meth:`RunControl.stop`).
        simulator: the simulation model (see :func:`arun_agent`).
        user: a script playing every scenario's user (see :func:`arun_agent`).
        max_turns: overrides every scenario's ``max_turns``.
        repeat: overrides how many times each scenario is played.

    Raises:
        SuiteError: no agent was given and the suite's cannot be resolved, or nothing can
            play a scenario's user.
        ConfigError: the simulation model is not declared.
        KeyError: ``cases`` names an unknown case.
        ValueError: ``concurrency`` is below 1, or a metric is given twice.
    """
    _suite_beans(metrics, container)  # a bad metric fails before the agent runs
    samples = await arun_agent(
        suite,
        agent,
        concurrency=concurrency,
        cases=cases,
        control=control,
        simulator=simulator or _simulation_model(suite, container, user),
        user=user,
        max_turns=max_turns,
        repeat=repeat,
    )
    return await aevaluate_cases(
        suite,
        samples,
        metrics=metrics,
        configs=configs,
        container=container,
        concurrency=evaluation_concurrency,
        control=control,
    )


def _simulation_model(
    suite: AgentTestSuite, container: RagasContainer | None, user: object
) -> ModelRole | None:
    """The container's simulation model, when the suite needs one and has no other user."""
    needed = suite.simulates_tools or (suite.has_scenarios and user is None)
    return simulation_role(container) if needed and container is not None else None


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
    simulator: ModelRole | None = None,
    user: UserScript | SimulatedUser | None = None,
    max_turns: int | None = None,
    repeat: int | None = None,
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
        simulator=simulator,
        user=user,
        max_turns=max_turns,
        repeat=repeat,
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
    user: UserScript | SimulatedUser | None = None,
) -> SampleRun:
    """Run ``agent`` on one case and score it: the case's sample with its evaluations
    (:attr:`SampleRun.passed` says whether every metric passed it). A scenario case is
    played once (:func:`arun_suite` with ``cases=[id]`` plays it ``repeat`` times).

    Args:
        case: the case.
        agent: the agent (see the module docs).
        suite: the suite whose ``scoring`` and tools apply (the defaults when omitted).
        metrics: more metrics, as for :func:`arun_suite`.
        container: as for :func:`arun_suite` (its simulation model plays a scenario's user).
        user: a script playing a scenario's user instead.
    """
    owner = suite or AgentTestSuite(name=case.id, cases=[case])
    run = await arun_suite(
        owner.model_copy(update={"cases": [case]}),
        agent,
        metrics=metrics,
        container=container,
        user=user,
        repeat=1,
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
    user: UserScript | SimulatedUser | None = None,
) -> SampleRun:
    """Sync twin of :func:`arun_case` (same loop rules as :func:`run_suite`)."""
    work = arun_case(case, agent, suite=suite, metrics=metrics, container=container, user=user)
    return _blocking(work, agent, container, portal)
