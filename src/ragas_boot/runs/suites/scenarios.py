"""Scenario cases in a suite run: who plays the user, and each play's sample.

A scenario case is played ``repeat`` times (each play its own seed: the simulation model's
``seed`` plus the play's index from 0); each play is a sample of its own, ``ID#1`` ... ``ID#k``
(the case id alone when it is played once), whose conversation is the transcript and whose
``agent_run.simulation`` says how it ended and what the simulator spent. The expectations
(tool calls, keywords, budgets) apply to the whole conversation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ragas_boot.chat.openai.agent import AgentReply, OpenAIToolAgent
from ragas_boot.errors import SuiteError
from ragas_boot.execution.roles import ModelRole
from ragas_boot.runs.simulation.conversation import play_scenario
from ragas_boot.runs.simulation.state import PlayState, playing
from ragas_boot.runs.simulation.user import ModelUser, ScriptedUser, SimulatedUser, UserScript
from ragas_boot.runs.suites.expectations import AgentTestCase
from ragas_boot.runs.suites.replies import Agent, as_agent_reply, call_agent
from ragas_boot.runs.suites.suite import AgentTestSuite
from ragas_boot.samples import AgentRun, Message, Sample, StopReason

if TYPE_CHECKING:
    from ragas_boot.container import RagasContainer

__all__ = ["Simulator", "play_case", "simulation_role"]


def simulation_role(container: RagasContainer) -> ModelRole:
    """The container's ``spring.ai.ragas.simulation`` model as a role.

    Raises:
        ConfigError: the model is not declared, or no judge is.
    """
    return ModelRole.from_settings(
        container.settings().simulation,
        container.executor(),
        name="simulation",
        fault_kind="simulator_failed",
    )


@dataclass(frozen=True, slots=True)
class Simulator:
    """What plays a run's simulated users and tools.

    Attributes:
        role: the simulation model (simulated users and tools); ``None`` when a script plays
            every user and no tool is simulated.
        user: who plays the users: a script, else the model.
        max_turns: overrides every scenario's ``max_turns``.
        repeat: overrides every scenario's plays.
    """

    role: ModelRole | None
    user: SimulatedUser | None
    max_turns: int | None = None
    repeat: int | None = None

    @classmethod
    def of(
        cls,
        suite: AgentTestSuite,
        *,
        role: ModelRole | None,
        user: UserScript | SimulatedUser | None,
        max_turns: int | None = None,
        repeat: int | None = None,
    ) -> Simulator:
        """The simulator of a run of ``suite``.

        Raises:
            SuiteError: the suite has scenario cases (or simulated tools) and nothing can
                play their users (or answer the tools).
            ValueError: ``max_turns`` or ``repeat`` is below 1.
        """
        for name, value in (("max_turns", max_turns), ("repeat", repeat)):
            if value is not None and value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        played: SimulatedUser | None
        if user is None:
            played = ModelUser(role) if role is not None else None
        elif isinstance(user, ModelUser | ScriptedUser) or callable(getattr(user, "turn", None)):
            played = cast(SimulatedUser, user)
        else:
            played = ScriptedUser(cast(UserScript, user))
        file = str(suite.source) if suite.source is not None else None
        if suite.has_scenarios and played is None:
            raise SuiteError(
                "scenario cases need a simulated user: run with a configuration (its "
                "spring.ai.ragas.simulation model, else its first judge), or pass user=",
                file=file,
                field="cases[].scenario",
            )
        if suite.simulates_tools and role is None:
            raise SuiteError(
                "simulated tools need the simulation model: run with a configuration that "
                "declares a judge (spring.ai.ragas.simulation)",
                file=file,
                field="tools[].simulated",
            )
        return cls(role=role, user=played, max_turns=max_turns, repeat=repeat)


async def play_case(
    case: AgentTestCase,
    agent: Agent,
    name: str,
    simulator: Simulator,
    *,
    sample_id: str,
    play: int = 1,
    plays: int = 1,
) -> Sample:
    """One play of a scenario case: its sample (the transcript, the expectations, the
    ``agent_run`` with its simulation record).

    Raises:
        ValueError: ``case`` is not a scenario case, or nothing plays its user.
    """
    scenario = case.scenario
    if scenario is None or simulator.user is None:
        raise ValueError(f"case {case.id} is not a scenario case, or no user is simulated")
    state = PlayState(role=simulator.role, seed_offset=play - 1)
    if isinstance(agent, OpenAIToolAgent):
        agent.prepare()  # client set-up is not the model's latency

    async def agent_turn(messages: list[Message]) -> tuple[AgentReply, float]:
        started = time.perf_counter()
        output = await call_agent(agent, messages, case)
        reply = as_agent_reply(output, inputs=messages)
        elapsed_ms = (time.perf_counter() - started) * 1000
        return reply, max(0.0, elapsed_ms - reply.wait_ms)

    with playing(state):
        played = await play_scenario(
            scenario,
            agent_turn=agent_turn,
            user=simulator.user,
            state=state,
            max_turns=simulator.max_turns,
            scenario_id=case.id,
            play=play,
            plays=plays,
        )
    planned = case.sample()
    return planned.model_copy(
        update={
            "id": sample_id,
            "user_input_messages": played.messages,
            "response": played.response if played.error is None else None,
            "agent_run": AgentRun(
                agent=name,
                latency_ms=played.latency_ms,
                turns=played.turns,
                stop_reason=StopReason.ERROR if played.error is not None else StopReason.ANSWERED,
                error=played.error,
                traceback=played.traceback,
                input_tokens=played.input_tokens,
                output_tokens=played.output_tokens,
                simulation=played.simulation,
            ),
        }
    )
