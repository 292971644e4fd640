"""All three metrics end to end through the real local model, from YAML to results.

What is asserted is the plumbing: every answer fits its schema (no exclusion, no re-ask), the
same run gives the same raw answers at temperature 0, and timings and tokens are recorded.
Whether SmolLM2-135M's verdicts are right is not (they are close to a coin flip).
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest
from pydantic import BaseModel

from ragas_boot import (
    AIMessage,
    HumanMessage,
    MetricResult,
    RagasContainer,
    Sample,
    ToolCall,
    ToolMessage,
    create_container,
)
from ragas_boot.chat import LocalJudge, OpenAICompatibleJudge
from ragas_boot.errors import JudgeOutputError
from ragas_boot.metrics import AgentGoalAccuracyConfig, TopicAdherenceConfig

pytestmark = pytest.mark.local_llm

YAML = textwrap.dedent(
    """
    spring.ai:
      retry:
        max-attempts: 1
      ragas:
        providers:
          default-options: {temperature: 0.0, max-tokens: 256}
          local:
            enabled: true
            n-ctx: 2048
            n-threads: 1            # answers depend on the thread count; pin it
            max-string-length: 200  # short answers keep the test fast
            max-array-items: 4
            timeout: 120s
            chat-models:
              - id: smollm2-135m
        metrics.logging.enabled: false
    """
)

SAMPLE = Sample(
    user_input_messages=[
        HumanMessage("Book me a flight to Paris for Monday"),
        AIMessage("Searching.", [ToolCall("search_flights", {"destination": "Paris"})]),
        ToolMessage("Air France 10:00, $450"),
        AIMessage("Booked Air France at 10:00. Confirmation AF12345."),
    ],
    reference="The flight to Paris is booked",
    reference_topics=["flight booking", "travel plans"],
    reference_tool_calls=[ToolCall("search_flights", {"destination": "Paris"})],
)


@pytest.fixture(scope="module")
def container(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RagasContainer]:
    from ragas_boot import load_settings

    path = tmp_path_factory.mktemp("local") / "application.yaml"
    path.write_text(YAML, encoding="utf-8")
    with create_container(load_settings(path, environ={})) as made:
        yield made


def _run_all(container: RagasContainer) -> list[MetricResult]:
    return [
        container.tool_call_accuracy().evaluate(SAMPLE),
        # WITHOUT_REFERENCE: two judge steps (with_reference runs in the closing test).
        container.agent_goal_accuracy().evaluate(
            SAMPLE, AgentGoalAccuracyConfig(mode="without_reference")
        ),
        container.topic_adherence().evaluate(SAMPLE, TopicAdherenceConfig(mode="recall")),
    ]


def _raw_answers(results: list[MetricResult]) -> list[tuple[str, str, list[str]]]:
    return [
        (result.metric, step.name, call.raw_attempts)
        for result in results
        for step in result.steps
        for call in step.calls
    ]


@pytest.fixture(scope="module")
def two_runs(container: RagasContainer) -> tuple[list[MetricResult], list[MetricResult]]:
    (judge,) = container.judges()
    assert isinstance(judge, LocalJudge)
    assert not judge.server.loaded
    first = _run_all(container)
    return first, _run_all(container)


def test_tool_call_accuracy_alone_never_starts_the_model(local_yaml):
    settings = local_yaml(YAML)
    with create_container(settings) as container:
        result = container.tool_call_accuracy().evaluate(SAMPLE)
        (judge,) = container.judges()
        assert result.score == 1.0
        assert not judge.server.loaded


def test_every_metric_gets_schema_valid_answers_from_the_local_model(two_runs):
    first, _ = two_runs
    tool_calls, goal, topics = first

    assert tool_calls.score == 1.0
    for result in (goal, topics):
        assert result.exclusions == []
        assert result.model_scores.keys() == {"smollm2-135m"}
        assert 0.0 <= result.model_scores["smollm2-135m"] <= 1.0
        for step in result.steps:
            (call,) = step.calls
            assert call.ok, call.error_message
            assert len(call.raw_attempts) == 1  # valid at the first answer: no re-ask
    assert [step.name for step in goal.steps] == ["InferGoal", "EvaluateOutcome"]
    assert [step.name for step in topics.steps] == ["ExtractTopics", "ClassifyTopics"]


def test_the_same_run_twice_gives_the_same_raw_answers(two_runs):
    first, second = two_runs

    assert _raw_answers(first) == _raw_answers(second)
    assert [r.score for r in first] == [r.score for r in second]


def test_timings_and_tokens_are_recorded_in_the_steps(two_runs, container):
    first, _ = two_runs
    (judge,) = container.judges()

    for result in first[1:]:
        assert result.duration_s > 0
        assert result.usage.total_tokens > 0
        for step in result.steps:
            assert step.duration_s > 0
            (call,) = step.calls
            assert 0 < call.latency_s <= step.duration_s
            assert call.usage.input_tokens > 0
            assert call.usage.output_tokens > 0
            assert call.attempts == 1
    # The one-off model load happened in prepare(), outside every call's latency; the calls
    # went to the model in process: every one is a generation, and no port was bound.
    assert judge.server.start_s is not None
    assert judge.server.loaded
    assert not judge.server.running
    calls = [call for result in first for step in result.steps for call in step.calls]
    generated = judge.server.records[: len(calls)]
    assert [(r.prompt_tokens, r.completion_tokens) for r in generated] == [
        (call.usage.input_tokens, call.usage.output_tokens) for call in calls
    ]


def test_closing_the_container_stops_the_server_and_its_threads(local_yaml, local_threads):
    before = set(local_threads())
    container = create_container(local_yaml(YAML))
    (judge,) = container.judges()
    result = container.agent_goal_accuracy().evaluate(
        SAMPLE, AgentGoalAccuracyConfig(mode="with_reference")
    )
    assert result.exclusions == []
    assert judge.server.loaded

    container.close()

    assert not judge.server.loaded
    assert set(local_threads()) <= before


@pytest.mark.asyncio
async def test_async_close_stops_a_started_server_and_it_stays_stopped(local_yaml, local_threads):
    before = set(local_threads())
    async with create_container(local_yaml(YAML)) as container:
        (judge,) = container.judges()
        spec = judge.served_spec()  # what the tool-suite agent runner asks for
        assert judge.server.running
        assert spec.base_url == judge.server.base_url
        assert judge.endpoint == judge.server.url + "/chat/completions"

    assert not judge.server.running
    assert set(local_threads()) <= before
    with pytest.raises(RuntimeError, match="closed"):
        judge.server.start()


class GoalVerdict(BaseModel):
    """Whether the user's goal was achieved."""

    goal_achieved: bool
    reason: str


async def _raw(judge: LocalJudge | OpenAICompatibleJudge) -> tuple[str, str | None]:
    """(outcome, the answer's raw text): a 135M model's free text may not parse."""
    try:
        answer = await judge.ainvoke_structured(
            "Was the user's goal achieved? The user asked for a flight to Paris; the agent "
            "booked AF1081 for Monday.",
            GoalVerdict,
        )
    except JudgeOutputError as error:
        return "invalid", error.raw_text
    return "valid", answer.raw_text


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", LocalJudge.output_modes, ids=lambda mode: mode.value)
async def test_a_call_in_process_gets_the_answer_the_same_call_gets_over_http(local_yaml, mode):
    async with create_container(local_yaml(YAML)) as container:
        (judge,) = container.judges()
        assert isinstance(judge, LocalJudge)
        local = judge.with_output_mode(mode)
        over_http = OpenAICompatibleJudge(spec=local.served_spec())
        try:
            in_process = await _raw(local)
            served = await _raw(over_http)
        finally:
            await over_http.aclose()
        generations = judge.server.records

    assert in_process == served
    assert in_process[1]  # the model answered something
    # Both were generated by the model, the same prompt read: one in process, one over HTTP.
    assert len(generations) == 2
    assert generations[0].messages == generations[1].messages
