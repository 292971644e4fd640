"""A suite in the user's pytest run: one test per case.

.. code-block:: python

    from pathlib import Path

    import pytest

    from ragas_boot.suites import SuiteCase, pytest_cases

    SUITE = Path(__file__).with_name("suite.yaml")


    @pytest.mark.parametrize("suite_case", pytest_cases(SUITE))
    def test_tool_use(suite_case: SuiteCase) -> None:
        suite_case.check()  # the suite's agent; fails with the case's findings


    @pytest.mark.asyncio
    @pytest.mark.parametrize("suite_case", pytest_cases(SUITE))
    async def test_tool_use_async(suite_case: SuiteCase, my_agent) -> None:
        await suite_case.acheck(my_agent)  # any agent, e.g. an OpenAIToolAgent fixture

Each test is named after its case id (``test_tool_use[T001_current_weather]``). A case runs
its agent, then the suite's metrics (``tool_call_accuracy``, ``case_expectations``, and any
``metrics=`` given) on its sample; it passes when every metric passes it. A scenario case is
one test too: its ``repeat`` plays run (its user simulated by the container's simulation
model, or ``user=``), and every play the simulator did not fail must pass (pass^k). pytest is
imported only when :func:`pytest_cases` is called (or a scenario's plays all fail on the
simulator's side: the test is then skipped).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ragas_boot.chat.openai.agent import OpenAIToolAgent
from ragas_boot.reporting.analysis import case_explanation
from ragas_boot.runs.results import RunResult, SampleRun
from ragas_boot.runs.simulation.user import UserScript
from ragas_boot.runs.suites.runner import (
    Agent,
    MetricsArgument,
    arun_case,
    arun_suite,
    run_case,
    run_suite,
)
from ragas_boot.runs.suites.suite import AgentTestSuite, load_suite

if TYPE_CHECKING:
    from _pytest.mark.structures import ParameterSet

    from ragas_boot.container import RagasContainer
    from ragas_boot.runs.suites.expectations import AgentTestCase

__all__ = ["SuiteCase", "pytest_cases"]


@dataclass(frozen=True, slots=True)
class SuiteCase:
    """One case of a suite, as a pytest parameter.

    Attributes:
        suite: the suite (its default agent, tools and scoring).
        case: the case.
    """

    suite: AgentTestSuite
    case: AgentTestCase

    @property
    def id(self) -> str:
        """The case id."""
        return self.case.id

    def _agent(self, agent: Agent | None) -> Agent:
        return self.suite.resolve_agent() if agent is None else agent

    def run(
        self,
        agent: Agent | None = None,
        *,
        metrics: MetricsArgument = (),
        container: RagasContainer | None = None,
        user: UserScript | None = None,
    ) -> SampleRun:
        """Run the case (the suite's agent when none is given) and score it: its sample with
        one evaluation per metric. A scenario case is played once here (:meth:`check` plays
        it ``repeat`` times).

        Args:
            agent: the agent; the suite's when omitted.
            metrics: metrics besides the suite's (beans, or bean names with ``container``),
                e.g. the ``agent_goal_accuracy`` fixture.
            container: resolves metric names (the ``ragas_container`` fixture); its
                simulation model plays a scenario's user.
            user: a script playing a scenario's user instead.
        """
        return run_case(
            self.case,
            self._agent(agent),
            suite=self.suite,
            metrics=metrics,
            container=container,
            user=user,
        )

    async def arun(
        self,
        agent: Agent | None = None,
        *,
        metrics: MetricsArgument = (),
        container: RagasContainer | None = None,
        user: UserScript | None = None,
    ) -> SampleRun:
        """Async twin of :meth:`run`, on the running loop (the test's).

        A built-in :class:`~ragas_boot.suites.OpenAIToolAgent`'s client on this loop is closed
        after the case (the agent stays usable), since each test may have its own loop.
        """
        chosen = self._agent(agent)
        try:
            return await arun_case(
                self.case,
                chosen,
                suite=self.suite,
                metrics=metrics,
                container=container,
                user=user,
            )
        finally:
            if isinstance(chosen, OpenAIToolAgent):
                await chosen.aclose()

    def play(
        self,
        agent: Agent | None = None,
        *,
        metrics: MetricsArgument = (),
        container: RagasContainer | None = None,
        user: UserScript | None = None,
    ) -> RunResult:
        """Every play of the case (``repeat`` of a scenario; one for another case), scored:
        a run of its own (:func:`~ragas_boot.runs.simulation.summary.simulation_summary`
        gives the pass rate, its interval and pass^k)."""
        return run_suite(
            self.suite,
            self._agent(agent),
            metrics=metrics,
            container=container,
            cases=[self.case.id],
            user=user,
        )

    def check(
        self,
        agent: Agent | None = None,
        *,
        metrics: MetricsArgument = (),
        container: RagasContainer | None = None,
        user: UserScript | None = None,
    ) -> SampleRun:
        """Run the case; fail the test when a metric does not pass it. A scenario case is
        played ``repeat`` times and must pass every counted play (pass^k); when the
        simulator failed every play, the test is skipped (not the agent's failure).

        Returns:
            The case's sample and evaluations (of a scenario, its first play).

        Raises:
            AssertionError: the case failed; the message gives each metric's score and
                explanation and every finding of the failure analysis.
        """
        __tracebackhide__ = True
        if self.case.scenario is None:
            result = self.run(agent, metrics=metrics, container=container, user=user)
            if not result.passed:
                raise AssertionError(case_explanation(result))
            return result
        return _checked(self.play(agent, metrics=metrics, container=container, user=user))

    async def acheck(
        self,
        agent: Agent | None = None,
        *,
        metrics: MetricsArgument = (),
        container: RagasContainer | None = None,
        user: UserScript | None = None,
    ) -> SampleRun:
        """Async twin of :meth:`check`."""
        __tracebackhide__ = True
        if self.case.scenario is None:
            result = await self.arun(agent, metrics=metrics, container=container, user=user)
            if not result.passed:
                raise AssertionError(case_explanation(result))
            return result
        chosen = self._agent(agent)
        try:
            run = await arun_suite(
                self.suite,
                chosen,
                metrics=metrics,
                container=container,
                cases=[self.case.id],
                user=user,
            )
        finally:
            if isinstance(chosen, OpenAIToolAgent):
                await chosen.aclose()
        return _checked(run)


def _checked(run: RunResult) -> SampleRun:
    """The first play of a scenario's run, once every counted play passed.

    Raises:
        AssertionError: a counted play did not pass (each such play explained).
        Skipped: the simulator failed every play.
    """
    __tracebackhide__ = True
    failed = [play for play in run.samples if play.counted and not play.passed]
    if failed:
        counted = len(run.samples) - run.simulator_failures
        head = f"{len(failed)} of {counted} play(s) failed (pass^{counted} needs all):\n"
        raise AssertionError(head + "\n".join(case_explanation(play) for play in failed))
    if run.simulator_failures == len(run.samples):
        import pytest

        reasons = {
            (play.sample.agent_run.simulation.reason or "")
            for play in run.samples
            if play.sample.agent_run is not None and play.sample.agent_run.simulation
        }
        pytest.skip(f"the simulator failed every play (not the agent's): {'; '.join(reasons)}")
    return run.samples[0]


def pytest_cases(
    suite: AgentTestSuite | str | os.PathLike[str], *, marks: Any = ()
) -> list[ParameterSet]:
    """The suite's cases as ``pytest.param`` values, each with its case id as the test id.

    Args:
        suite: a suite, or the path of a suite file (relative paths are read from the
            working directory; ``Path(__file__).with_name(...)`` is safer).
        marks: marks to put on every parameter (``pytest.mark.slow``, ...).

    Raises:
        SuiteError: the file cannot be loaded (pytest reports it as a collection error).
    """
    import pytest

    loaded = suite if isinstance(suite, AgentTestSuite) else load_suite(suite)
    return [pytest.param(SuiteCase(loaded, case), id=case.id, marks=marks) for case in loaded.cases]
