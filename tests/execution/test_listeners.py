"""Listener events around evaluations and the logging listener's summary box."""

from __future__ import annotations

import logging

import pytest

from ragas_boot import AIMessage, AllJudgesFailedError, HumanMessage, Sample
from ragas_boot.config.settings import LoggingLevel
from ragas_boot.execution import (
    EvaluationFinished,
    EvaluationStarted,
    Exclusion,
    JudgeCall,
    LoggingListener,
    StepRecord,
)
from ragas_boot.testing import Reply

SAMPLE = Sample(
    user_input_messages=[HumanMessage("Refund order 7"), AIMessage("Refunded.")],
    reference="Order 7 refunded",
)


class Recorder:
    order = 10

    def __init__(self):
        self.events = []

    def before_evaluation(self, event):
        self.events.append(("before", event))

    def after_evaluation(self, event):
        self.events.append(("after", event))


class Broken:
    order = 0

    def before_evaluation(self, event):
        raise RuntimeError("listener bug")

    def after_evaluation(self, event):
        raise RuntimeError("listener bug")


def verdicts(server):
    server.respond(None, {"goal_achieved": True, "reason": "refund confirmed"})


def test_listeners_see_one_before_and_one_after_event(make_container, openai_server):
    verdicts(openai_server)
    metric = make_container(["judge-a", "judge-b"]).agent_goal_accuracy()
    recorder = Recorder()
    metric.listeners.add(recorder)
    result = metric.evaluate(SAMPLE)
    (kind_before, before), (kind_after, after) = recorder.events
    assert (kind_before, kind_after) == ("before", "after")
    assert isinstance(before, EvaluationStarted)
    assert before.metric == "AgentGoalAccuracyMetric"
    assert before.judge_ids == ["judge-a", "judge-b"]
    assert before.total_steps == 1
    assert isinstance(after, EvaluationFinished)
    assert after.result is result
    assert after.score == 1.0
    assert after.error is None


def test_a_failing_listener_is_logged_and_never_breaks_the_run(
    make_container, openai_server, caplog
):
    verdicts(openai_server)
    metric = make_container(["judge-a"]).agent_goal_accuracy()
    recorder = Recorder()
    metric.listeners.add(Broken())
    metric.listeners.add(recorder)
    assert metric.evaluate(SAMPLE).score == 1.0
    assert [kind for kind, _ in recorder.events] == ["before", "after"]
    failures = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert [r.getMessage().split(" failed in ")[1] for r in failures] == [
        "before_evaluation",
        "after_evaluation",
    ]


def test_the_after_event_also_reports_a_run_where_every_judge_failed(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(400, message="bad model"))
    metric = make_container(["judge-a", "judge-b"]).agent_goal_accuracy()
    recorder = Recorder()
    metric.listeners.add(recorder)
    with pytest.raises(AllJudgesFailedError):
        metric.evaluate(SAMPLE)
    _, after = recorder.events[-1]
    assert after.score is None
    assert "All models failed" in after.error
    assert [e.judge_id for e in after.exclusions] == ["judge-a", "judge-b"]
    assert after.steps[0].name == "CompareOutcome"


def test_the_logging_listener_prints_the_summary_box(make_container, openai_server, caplog):
    caplog.set_level(logging.INFO, logger="ragas_boot.metrics")
    verdicts(openai_server)
    openai_server.fail_always("judge-c", Reply.error(503))
    openai_server.set_latency(None, 0.05)
    make_container(["judge-a", "judge-b", "judge-c"]).agent_goal_accuracy().evaluate(SAMPLE)
    box = caplog.text
    assert "RESULT: AgentGoalAccuracyMetric = 1.0000" in box
    assert "[1/1] CompareOutcome [LLM] - 2 OK, 1 FAILED" in box
    assert "Time(ms)" in box
    assert "┌─ Prompt" in box
    assert "EXCLUDED (1)" in box
    assert "judge-c @ CompareOutcome: server error" in box
    assert "min=1.0000" in box


def _event(score=0.5):
    call = JudgeCall(judge_id="judge-a", provider="p", step="S", prompt="p", ok=True, latency_s=0.2)
    return EvaluationFinished(
        metric="M",
        sample=None,
        config=None,
        judge_ids=["judge-a"],
        score=score,
        model_scores={"judge-a": score},
        steps=[StepRecord(name="S", index=0, calls=[call], duration_s=0.2)],
        exclusions=[Exclusion(judge_id="x", step="S", kind="timeout", message="slow")],
        duration_s=0.2,
    )


def test_minimal_level_keeps_only_the_result_and_exclusions():
    text = LoggingListener(level=LoggingLevel.MINIMAL).render(_event())
    assert "RESULT: M = 0.5000 (200ms)" in text
    assert "STEPS" not in text
    assert "x @ S: timeout" in text


def test_every_line_of_the_box_has_the_same_width():
    lines = LoggingListener(width=90).render(_event()).splitlines()
    assert {len(line) for line in lines} == {90}


def test_no_consensus_is_raised_and_the_after_event_keeps_the_steps(make_container, openai_server):
    from ragas_boot import NoConsensusError

    openai_server.respond("judge-a", {"goal_achieved": True, "reason": "yes"})
    openai_server.respond("judge-b", {"goal_achieved": False, "reason": "no"})
    metric = make_container(["judge-a", "judge-b"]).agent_goal_accuracy()
    recorder = Recorder()
    metric.listeners.add(recorder)
    with pytest.raises(NoConsensusError, match=r"from 0\.0000 to 1\.0000"):
        metric.evaluate(SAMPLE, {"aggregation": "consensus", "consensus_tolerance": 0.2})
    _, after = recorder.events[-1]
    assert after.model_scores == {"judge-a": 1.0, "judge-b": 0.0}
    assert after.steps[0].name == "CompareOutcome"
    assert "No consensus" in after.error


def test_repeats_send_an_event_each_then_one_for_them_together(make_container, openai_server):
    verdicts(openai_server)
    metric = make_container(["judge-a"]).agent_goal_accuracy()
    recorder = Recorder()
    metric.listeners.add(recorder)

    result = metric.evaluate(SAMPLE, {"repeat": 3})

    finished = [event for kind, event in recorder.events if kind == "after"]
    assert [event.repeat for event in finished] == [0, 1, 2, None]
    assert all(event.result.repeats is None for event in finished[:3])
    together = finished[-1]
    assert together.result is result  # what the metric returned, not a copy
    assert together.result.repeats.runs == 3
    assert [step.repeat for step in together.steps] == [0, 1, 2]


def test_repeats_that_all_failed_end_with_one_error_event_of_every_step(
    make_container, openai_server
):
    openai_server.fail_always(None, Reply.error(401, "no key"))
    metric = make_container(["judge-a"]).agent_goal_accuracy()
    recorder = Recorder()
    metric.listeners.add(recorder)

    with pytest.raises(AllJudgesFailedError):
        metric.evaluate(SAMPLE, {"repeat": 2})

    finished = [event for kind, event in recorder.events if kind == "after"]
    assert [event.repeat for event in finished] == [0, 1, None]
    together = finished[-1]
    assert together.result is None and together.error == finished[0].error
    assert len(together.steps) == len(finished[0].steps) + len(finished[1].steps) == 2
    assert together.judge_ids == ["judge-a"]


def test_an_evaluation_without_repeats_marks_no_repeat(make_container, openai_server):
    verdicts(openai_server)
    metric = make_container(["judge-a"]).agent_goal_accuracy()
    recorder = Recorder()
    metric.listeners.add(recorder)

    metric.evaluate(SAMPLE)

    assert [event.repeat for kind, event in recorder.events if kind == "after"] == [None]


def test_the_after_event_of_a_failure_names_the_bean_its_quorum_and_the_exception(
    make_container, openai_server
):
    openai_server.fail_always(None, Reply.error(400, message="bad model"))
    extra = """
    spring.ai.ragas.metrics:
      min-judges: 2
      aspect-critic:
        criteria:
          no-profanity: { definition: "The response has no profanity" }
    """
    container = make_container(["judge-a", "judge-b"], extra=extra)
    goal, critic = (
        container.agent_goal_accuracy(),
        container.metric("aspect_critic", "no-profanity"),
    )
    recorder = Recorder()
    for metric in (goal, critic):
        metric.listeners.add(recorder)
        with pytest.raises(AllJudgesFailedError) as raised:
            metric.evaluate(SAMPLE if metric is goal else Sample(response="Fine."))
        _, after = recorder.events[-1]
        # The exception itself, beside its message; the quorum with the YAML default.
        assert (after.failure, after.error) == (raised.value, str(raised.value))
        assert after.min_judges == 2
    names = [(event.metric, event.bean_name) for kind, event in recorder.events if kind == "after"]
    assert names == [
        ("AgentGoalAccuracyMetric", "agent_goal_accuracy"),
        ("AspectCriticMetric:no-profanity", "aspect_critic:no-profanity"),
    ]


def test_a_judge_less_bean_asks_no_quorum(make_container):
    metric = make_container(["judge-a"]).tool_call_accuracy()
    recorder = Recorder()
    metric.listeners.add(recorder)
    metric.evaluate(Sample(tool_calls=[], reference_tool_calls=[]))
    _, after = recorder.events[-1]
    assert (after.bean_name, after.min_judges, after.failure) == ("tool_call_accuracy", None, None)
