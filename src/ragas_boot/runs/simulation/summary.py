"""The scenarios of a run, summed up: pass rate with its Wilson interval, pass^k, how the
conversations ended, and what the simulator spent.

Read from a :class:`~ragas_boot.runs.RunResult`'s samples (each play is one, its
``agent_run.simulation`` saying which scenario and play), so any run that holds scenario
plays has it: a suite run, a dataset file of recorded plays, a run read back from JSON.

* **pass rate**: plays that passed every metric over the plays counted (a simulator failure
  is not counted: it is not the agent's), with the Wilson interval (95%);
* **pass^k**: a scenario passes when *every one* of its ``k`` counted plays passed (tau-bench's
  reliability measure); the run's pass^k is the share of scenarios that do;
* **simulator calls per user turn**: requests sent for the simulator (retries and re-asks
  included, cache hits not) over the users' turns.
"""

from __future__ import annotations

from collections import Counter

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.execution.aggregation import wilson_interval
from ragas_boot.runs.results import RunResult, SampleRun

__all__ = ["ScenarioSummary", "SimulationSummary", "simulation_summary"]

_FROZEN = ConfigDict(frozen=True)


class ScenarioSummary(BaseModel):
    """One scenario over its plays."""

    model_config = _FROZEN

    scenario: str = Field(description="The scenario case's id.")
    goal: str | None = Field(default=None, description="The simulated user's goal.")
    sample_ids: list[str] = Field(description="Its plays' sample ids, in play order.")
    plays: int = Field(description="Plays run.")
    counted: int = Field(description="Plays the pass rate counts (not simulator failures).")
    passed: int = Field(description="Counted plays that passed every metric.")
    pass_rate: float | None = Field(description="passed / counted; None when none counts.")
    wilson_low: float | None = Field(description="Lower bound of the pass rate's interval.")
    wilson_high: float | None = Field(description="Upper bound of the pass rate's interval.")
    pass_all: bool | None = Field(
        description="pass^k: every counted play passed; None when no play counts."
    )
    ends: dict[str, int] = Field(description="How the plays ended: end → plays.")
    user_turns: float | None = Field(description="Mean user turns per play.")


class SimulationSummary(BaseModel):
    """Every scenario of a run, and the totals."""

    model_config = _FROZEN

    scenarios: list[ScenarioSummary] = Field(description="One per scenario, in run order.")
    plays: int = Field(description="Plays run.")
    counted: int = Field(description="Plays counted.")
    passed: int = Field(description="Counted plays that passed every metric.")
    pass_rate: float | None = Field(description="passed / counted; None when none counts.")
    wilson_low: float | None = Field(description="Lower bound of the pass rate's interval.")
    wilson_high: float | None = Field(description="Upper bound of the pass rate's interval.")
    k: int | None = Field(description="Plays per scenario when every scenario has as many.")
    pass_hat_k: float | None = Field(
        description="Share of scenarios whose every counted play passed (pass^k)."
    )
    not_concluded: int = Field(description="Plays that ran out of turns (failures).")
    gave_up: int = Field(description="Plays in which the simulated user gave up (failures).")
    agent_errors: int = Field(description="Plays in which the agent raised (failures).")
    simulator_failures: int = Field(description="Plays the simulator failed (not counted).")
    user_turns: int = Field(description="The users' turns over every play.")
    simulator_calls: int = Field(description="Structured simulator calls over every play.")
    simulator_requests: int = Field(
        description="Requests those calls sent (retries and re-asks included; cache hits not)."
    )
    cache_hits: int = Field(description="Simulator calls the response cache answered.")
    requests_per_turn: float | None = Field(
        description="simulator_requests / user_turns; None without a turn."
    )
    input_tokens: int = Field(description="Prompt tokens the simulator billed.")
    output_tokens: int = Field(description="Completion tokens the simulator billed.")
    cost: float | None = Field(description="What the simulator cost; None without a price.")


def _interval(passed: int, counted: int) -> tuple[float | None, float | None]:
    return wilson_interval(passed, counted) if counted else (None, None)


def _scenario(name: str, plays: list[SampleRun]) -> ScenarioSummary:
    counted = [play for play in plays if play.counted]
    passed = sum(1 for play in counted if play.passed)
    low, high = _interval(passed, len(counted))
    ends: Counter[str] = Counter()
    turns = 0
    for play in plays:
        simulation = play.sample.agent_run.simulation  # type: ignore[union-attr]
        assert simulation is not None
        ends[str(simulation.end)] += 1
        turns += simulation.user_turns
    first = plays[0].sample.scenario
    return ScenarioSummary(
        scenario=name,
        goal=first.goal if first is not None else None,
        sample_ids=[play.sample_id for play in plays],
        plays=len(plays),
        counted=len(counted),
        passed=passed,
        pass_rate=passed / len(counted) if counted else None,
        wilson_low=low,
        wilson_high=high,
        pass_all=passed == len(counted) if counted else None,
        ends=dict(sorted(ends.items())),
        user_turns=turns / len(plays),
    )


def simulation_summary(run: RunResult) -> SimulationSummary | None:
    """The scenarios of ``run`` summed up; ``None`` when no sample is a scenario's play."""
    grouped: dict[str, list[SampleRun]] = {}
    totals: Counter[str] = Counter()
    cost: float | None = None
    for sample_run in run.samples:
        agent_run = sample_run.sample.agent_run
        simulation = agent_run.simulation if agent_run is not None else None
        if simulation is None:
            continue
        name = simulation.scenario or sample_run.sample_id
        grouped.setdefault(name, []).append(sample_run)
        totals["user_turns"] += simulation.user_turns
        totals["calls"] += simulation.simulator_calls
        totals["requests"] += simulation.simulator_requests
        totals["hits"] += simulation.cache_hits
        totals["input"] += simulation.input_tokens
        totals["output"] += simulation.output_tokens
        totals[str(simulation.end)] += 1
        if simulation.cost is not None:
            cost = (cost or 0.0) + simulation.cost
    if not grouped:
        return None
    scenarios = [_scenario(name, plays) for name, plays in grouped.items()]
    counted = sum(item.counted for item in scenarios)
    passed = sum(item.passed for item in scenarios)
    low, high = _interval(passed, counted)
    judged = [item.pass_all for item in scenarios if item.pass_all is not None]
    sizes = {item.plays for item in scenarios}
    turns = totals["user_turns"]
    return SimulationSummary(
        scenarios=scenarios,
        plays=sum(item.plays for item in scenarios),
        counted=counted,
        passed=passed,
        pass_rate=passed / counted if counted else None,
        wilson_low=low,
        wilson_high=high,
        k=sizes.pop() if len(sizes) == 1 else None,
        pass_hat_k=sum(judged) / len(judged) if judged else None,
        not_concluded=totals["not_concluded"],
        gave_up=totals["gave_up"],
        agent_errors=totals["agent_error"],
        simulator_failures=totals["simulator_failed"],
        user_turns=turns,
        simulator_calls=totals["calls"],
        simulator_requests=totals["requests"],
        cache_hits=totals["hits"],
        requests_per_turn=totals["requests"] / turns if turns else None,
        input_tokens=totals["input"],
        output_tokens=totals["output"],
        cost=cost,
    )
