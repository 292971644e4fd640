"""``simulate``: play scenarios against an agent from Python, scored like a suite run.

>>> run = simulate(Scenario(goal="Book a table for two on Friday"), my_agent,
...                container=container, repeat=5)  # doctest: +SKIP
>>> simulation_summary(run).pass_hat_k  # doctest: +SKIP
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ragas_boot.execution.bridge import LoopPortal
from ragas_boot.execution.roles import ModelRole
from ragas_boot.runs.results import RunResult
from ragas_boot.runs.simulation.user import SimulatedUser, UserScript
from ragas_boot.runs.suites.expectations import AgentTestCase
from ragas_boot.runs.suites.runner import Agent, MetricsArgument, arun_suite, run_suite
from ragas_boot.runs.suites.suite import AgentTestSuite, ToolSpec, load_suite
from ragas_boot.samples import Scenario

if TYPE_CHECKING:
    from ragas_boot.container import RagasContainer

__all__ = ["Scenarios", "asimulate", "scenario_suite", "simulate"]

Scenarios = (
    Scenario
    | AgentTestCase
    | Sequence[Scenario | AgentTestCase]
    | AgentTestSuite
    | str
    | os.PathLike[str]
)
"""What :func:`simulate` plays: scenarios, scenario cases (with expectations), a suite, or a
suite file."""


def scenario_suite(
    scenarios: Scenarios, *, tools: Sequence[ToolSpec | dict[str, Any]] = ()
) -> AgentTestSuite:
    """The suite :func:`simulate` runs: ``scenarios`` as cases (a bare scenario is the case
    ``scenario-N``, expecting nothing but its conversation's end), with ``tools``.

    Raises:
        SuiteError: a suite file cannot be loaded.
        ValueError: no scenario is given.
    """
    if isinstance(scenarios, AgentTestSuite):
        return scenarios
    if isinstance(scenarios, str | os.PathLike):
        return load_suite(scenarios)
    given = [scenarios] if isinstance(scenarios, Scenario | AgentTestCase) else list(scenarios)
    if not given:
        raise ValueError("give at least one scenario to simulate")
    cases = [
        item
        if isinstance(item, AgentTestCase)
        else AgentTestCase(id=f"scenario-{index}", scenario=item)
        for index, item in enumerate(given, start=1)
    ]
    return AgentTestSuite(
        name="Simulated scenarios",
        cases=cases,
        tools=[ToolSpec.model_validate(tool) if isinstance(tool, dict) else tool for tool in tools],
    )


async def asimulate(
    scenarios: Scenarios,
    agent: Agent | None = None,
    *,
    container: RagasContainer | None = None,
    user: UserScript | SimulatedUser | None = None,
    simulator: ModelRole | None = None,
    repeat: int | None = None,
    max_turns: int | None = None,
    metrics: MetricsArgument = (),
    tools: Sequence[ToolSpec | dict[str, Any]] = (),
    concurrency: int | None = None,
) -> RunResult:
    """Play every scenario ``repeat`` times against ``agent`` (its user simulated by the
    container's ``spring.ai.ragas.simulation`` model, ``simulator``, or the script ``user``)
    and score the plays: ``tool_call_accuracy``, ``case_expectations`` and ``metrics``
    (``agent_goal_accuracy`` takes each scenario's ``success`` as its reference).

    Raises:
        SuiteError: nothing can play the users, or the agent cannot be resolved.
        ConfigError: the simulation model is not declared.
    """
    return await arun_suite(
        scenario_suite(scenarios, tools=tools),
        agent,
        metrics=metrics,
        container=container,
        concurrency=concurrency,
        simulator=simulator,
        user=user,
        max_turns=max_turns,
        repeat=repeat,
    )


def simulate(
    scenarios: Scenarios,
    agent: Agent | None = None,
    *,
    container: RagasContainer | None = None,
    user: UserScript | SimulatedUser | None = None,
    simulator: ModelRole | None = None,
    repeat: int | None = None,
    max_turns: int | None = None,
    metrics: MetricsArgument = (),
    tools: Sequence[ToolSpec | dict[str, Any]] = (),
    concurrency: int | None = None,
    portal: LoopPortal | None = None,
) -> RunResult:
    """Sync twin of :func:`asimulate`, on the container's I/O loop (``portal``, else a
    private one); do not call it from inside that loop."""
    return run_suite(
        scenario_suite(scenarios, tools=tools),
        agent,
        metrics=metrics,
        container=container,
        concurrency=concurrency,
        portal=portal,
        simulator=simulator,
        user=user,
        max_turns=max_turns,
        repeat=repeat,
    )
