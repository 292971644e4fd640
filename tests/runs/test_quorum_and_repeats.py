"""Quorum and repeats in the library (issue 16): metric results, run gate, Wilson interval.

Judges answer over real HTTP from the test server; failing judges are its scripted 500s.
"""

from __future__ import annotations

import itertools

import pytest

from ragas_boot import AIMessage, HumanMessage, Sample
from ragas_boot.errors import AllJudgesFailedError, ConfigError
from ragas_boot.execution.aggregation import wilson_interval
from ragas_boot.execution.repeats import bypass_cache, current_repeat, repeat_scope
from ragas_boot.runs import evaluate_dataset
from ragas_boot.testing import Reply, asks_for

QUIET = "spring.ai.ragas.metrics.logging.enabled: false\n"
FOUR = ["judge-a", "judge-b", "judge-c", "judge-d"]
SAMPLE = Sample(
    id="refund",
    user_input_messages=[HumanMessage("Refund order 7."), AIMessage("Refunded.")],
    reference="Order 7 is refunded",
)
YES = {"goal_achieved": True, "reason": "done"}
NO = {"goal_achieved": False, "reason": "not done"}


@pytest.mark.parametrize(
    ("successes", "trials"), [(0, 1), (1, 1), (0, 5), (3, 5), (5, 5), (7, 20), (19, 20), (50, 97)]
)
@pytest.mark.parametrize("confidence", [0.9, 0.95, 0.99])
def test_the_wilson_interval_matches_scipy(successes, trials, confidence):
    stats = pytest.importorskip("scipy.stats")
    expected = stats.binomtest(successes, trials).proportion_ci(confidence, method="wilson")
    low, high = wilson_interval(successes, trials, confidence)
    assert low == pytest.approx(expected.low, abs=1e-12)
    assert high == pytest.approx(expected.high, abs=1e-12)


@pytest.mark.parametrize(
    ("successes", "trials", "confidence"), [(1, 0, 0.95), (6, 5, 0.95), (-1, 5, 0.95), (1, 5, 1.0)]
)
def test_the_wilson_interval_refuses_impossible_counts(successes, trials, confidence):
    with pytest.raises(ValueError, match=r"must be|at least one"):
        wilson_interval(successes, trials, confidence)


def test_the_repeat_scope_marks_every_repeat_after_the_first_as_bypassing_the_cache():
    assert (current_repeat(), bypass_cache()) == (0, False)
    with repeat_scope(0):
        assert not bypass_cache()
    with repeat_scope(3):
        assert (current_repeat(), bypass_cache()) == (3, True)
    assert (current_repeat(), bypass_cache()) == (0, False)


def test_one_surviving_judge_of_four_no_longer_decides(make_container, openai_server):
    openai_server.respond(None, YES)
    for judge in ("judge-b", "judge-c", "judge-d"):
        openai_server.fail_always(judge, Reply.error(500))
    with make_container(FOUR, extra=QUIET) as container:
        metric = container.agent_goal_accuracy()
        unguarded = metric.evaluate(SAMPLE)
        guarded = metric.evaluate(SAMPLE, {"min_judges": 2})
    assert unguarded.score == 1.0 and unguarded.quorum is None  # today's behaviour, no quorum
    assert guarded.score is None
    assert guarded.undefined_reason == "no quorum (1 of 4 answered): min-judges is 2"
    assert guarded.quorum is not None
    assert (guarded.quorum.answered, guarded.quorum.asked, guarded.quorum.met) == (1, 4, False)
    assert guarded.model_scores == {"judge-a": 1.0}  # what the one judge said is still shown


def test_the_global_min_judges_applies_and_a_metric_key_wins(make_container, openai_server):
    openai_server.respond(None, YES)
    openai_server.fail_always("judge-d", Reply.error(500))
    extra = QUIET + (
        "spring.ai.ragas.metrics.min-judges: 4\n"
        "spring.ai.ragas.metrics.topic-adherence.min-judges: 3\n"
    )
    with make_container(FOUR, extra=extra) as container:
        result = container.agent_goal_accuracy().evaluate(SAMPLE)
        assert result.score is None and result.quorum is not None
        assert result.quorum.required == 4
        own = container.agent_goal_accuracy().evaluate(SAMPLE, {"min_judges": 3})
    assert own.score == 1.0 and own.quorum is not None and own.quorum.met


def test_a_quorum_above_the_judges_selected_is_refused_before_any_call(
    make_container, openai_server
):
    with make_container(FOUR, extra=QUIET) as container:
        metric = container.agent_goal_accuracy()
        with pytest.raises(ConfigError, match="min-judges") as raised:
            metric.evaluate(SAMPLE, {"min_judges": 3, "models": ["judge-a", "judge-b"]})
        with pytest.raises(ConfigError, match="asks only 2"):
            evaluate_dataset([SAMPLE], [metric], configs={metric.bean_name: {
                "min_judges": 3, "models": ["judge-a", "judge-b"]}})  # fmt: skip
    assert "agent-goal-accuracy.min-judges" in str(raised.value)
    assert openai_server.requests == []


def test_the_run_gate_fails_on_a_missed_quorum_unless_it_is_skipped(make_container, openai_server):
    openai_server.respond(None, YES)
    openai_server.fail_always("judge-c", Reply.error(500))
    openai_server.fail_always("judge-d", Reply.error(500))
    with make_container(FOUR, extra=QUIET) as container:
        metric = container.agent_goal_accuracy()
        failing = evaluate_dataset(
            [SAMPLE], [metric], configs={metric.bean_name: {"min_judges": 3}}
        )
        skipped = evaluate_dataset([SAMPLE], [metric], configs={
            metric.bean_name: {"min_judges": 3, "quorum_failure": "skip"}})  # fmt: skip
    evaluation = failing.samples[0].evaluations[0]
    assert (evaluation.status, evaluation.no_quorum) == ("undefined", True)
    gate = failing.gate()
    assert not gate.passed
    assert [(f.kind, f.count) for f in gate.failures] == [("no_quorum", 1)]
    assert failing.metric_summaries[0].no_quorum == 1
    assert skipped.gate().passed


def test_no_judge_answering_counts_as_a_missed_quorum(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(500))
    with make_container(FOUR, extra=QUIET) as container:
        metric = container.agent_goal_accuracy()
        with pytest.raises(AllJudgesFailedError):
            metric.evaluate(SAMPLE, {"min_judges": 2})
        run = evaluate_dataset([SAMPLE], [metric], configs={metric.bean_name: {"min_judges": 2}})
    assert run.samples[0].evaluations[0].no_quorum
    assert {f.kind for f in run.gate().failures} == {"no_quorum", "nothing_scored"}


def test_repeats_are_sent_one_after_another_and_marked(make_container, openai_server):
    openai_server.script("judge-a", YES, NO, YES, NO)
    with make_container(["judge-a"], extra=QUIET) as container:
        result = container.agent_goal_accuracy().evaluate(SAMPLE, {"repeat": 4})
    assert openai_server.count("judge-a") == 4
    assert result.repeats is not None
    assert result.repeats.scores == [1.0, 0.0, 1.0, 0.0]
    assert (result.repeats.passed, result.repeats.scored, result.repeats.unstable) == (2, 4, True)
    assert result.score == 0.5  # the mean of the repeats
    assert [step.repeat for step in result.steps] == [0, 1, 2, 3]
    # one after another: each repeat's request arrives after the previous one was answered
    records = openai_server.requests_for("judge-a")
    for earlier, later in itertools.pairwise(records):
        assert earlier.answered_at is not None
        assert later.request.received_at >= earlier.answered_at


def test_agreeing_repeats_are_stable(make_container, openai_server):
    openai_server.respond(None, YES)
    with make_container(["judge-a"], extra=QUIET) as container:
        result = container.agent_goal_accuracy().evaluate(SAMPLE, {"repeat": 3})
    assert result.repeats is not None
    assert (result.repeats.pass_rate, result.repeats.unstable) == (1.0, False)
    assert result.repeats.ci_low == pytest.approx(0.4385, abs=1e-4)


def test_a_repeat_without_any_judge_is_counted_failed_and_the_rest_still_score(
    make_container, openai_server
):
    openai_server.script("judge-a", YES, Reply.error(400), YES)
    with make_container(["judge-a"], extra=QUIET) as container:
        result = container.agent_goal_accuracy().evaluate(SAMPLE, {"repeat": 3})
    assert result.repeats is not None
    assert result.repeats.scores == [1.0, None, 1.0]
    assert (result.repeats.failed, result.repeats.scored, result.repeats.pass_rate) == (1, 2, 1.0)


def test_min_pass_rate_gates_each_sample(make_container, openai_server):
    openai_server.when(asks_for("goal_achieved"), YES)
    with make_container(["judge-a"], extra=QUIET) as container:
        metric = container.agent_goal_accuracy()
        run = evaluate_dataset([SAMPLE], [metric], configs={metric.bean_name: {"repeat": 2}})
    assert run.gate(min_pass_rate=1.0).passed
    assert run.samples[0].evaluations[0].pass_rate == 1.0
