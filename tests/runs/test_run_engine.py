"""Dataset runs over real HTTP: every sample kept, failures as data, summaries, progress."""

from __future__ import annotations

import pytest

from ragas_boot import JudgeNotFoundError, Sample
from ragas_boot.runs import RunProgress, aevaluate_dataset, evaluate_dataset
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall
from ragas_boot.testing import Reply

JUDGES = ["judge-a", "judge-b", "judge-c"]  # as the lookup_container fixture has them


def _sample(text: str, **fields: object) -> Sample:
    return Sample(
        user_input_messages=[
            HumanMessage(text),
            AIMessage("On it.", [ToolCall("lookup", {"q": text})]),
            AIMessage("Done."),
        ],
        reference=f"{text} is done",
        reference_topics=["lookups"],
        reference_tool_calls=[ToolCall("lookup", {"q": text})],
        **fields,
    )


SAMPLES = [_sample("alpha", id="a"), _sample("bravo"), _sample("charlie", id="c")]


@pytest.fixture
def container(lookup_container):
    return lookup_container()


def test_every_sample_and_metric_is_in_the_result_in_order(container):
    run = evaluate_dataset(
        SAMPLES,
        [container.agent_goal_accuracy(), container.tool_call_accuracy()],
        concurrency=2,
    )
    assert [s.sample_id for s in run.samples] == ["a", "sample-002", "c"]
    assert [e.metric for e in run.samples[0].evaluations] == [
        "agent_goal_accuracy",
        "tool_call_accuracy",
    ]
    bravo = run.samples[1].evaluation("agent_goal_accuracy")
    assert bravo.status == "scored"
    assert bravo.result.model_scores == {"judge-a": 1.0, "judge-b": 1.0, "judge-c": 0.0}
    assert bravo.score == pytest.approx(2 / 3)
    assert bravo.passed is True
    assert run.metric_summary("tool_call_accuracy").mean == 1.0
    goal = run.metric_summary("agent_goal_accuracy")
    assert (goal.scored, goal.failed, goal.passed) == (3, 0, 3)
    assert goal.mean == pytest.approx((1 + 2 / 3 + 1) / 3)
    assert [j.id for j in run.judges] == JUDGES
    assert run.metrics[1].judge_ids == []  # ToolCallAccuracy asks no judge
    assert run.totals.judge_calls == 9
    assert run.dataset.size == 3


def test_judge_summaries_and_agreement(container):
    run = evaluate_dataset(SAMPLES, [container.agent_goal_accuracy()])
    judge_c = run.judge_summary("judge-c", "agent_goal_accuracy")
    assert (judge_c.evaluations, judge_c.scored, judge_c.excluded) == (3, 3, 0)
    assert judge_c.mean == pytest.approx(2 / 3)
    assert judge_c.pass_rate == pytest.approx(2 / 3)
    assert (judge_c.calls, judge_c.failed_calls) == (3, 0)
    assert judge_c.latency_p50_s is not None and judge_c.latency_p95_s >= judge_c.latency_p50_s
    assert judge_c.usage.total_tokens > 0
    overall = run.judge_summary("judge-c")
    assert overall.metric is None and overall.mean is None and overall.calls == 3
    agreement = run.agreement_for("agent_goal_accuracy")
    pairs = {(p.judge_a, p.judge_b): p for p in agreement.pairs}
    assert pairs["judge-a", "judge-b"].percent_agreement == 1.0
    assert pairs["judge-a", "judge-b"].cohen_kappa is None  # both always "yes"
    assert pairs["judge-a", "judge-c"].agreed == 2
    assert agreement.fleiss_items == 3
    assert agreement.fleiss_kappa == pytest.approx(-1 / 8)
    assert run.agreement_for(None) is None  # one metric: no pooled figure


def test_a_judge_that_is_down_is_excluded_from_every_sample(container, openai_server):
    openai_server.fail_always("judge-b")
    run = evaluate_dataset(SAMPLES, [container.agent_goal_accuracy(), container.topic_adherence()])
    assert run.totals.failed == 0
    for sample in run.samples:
        for evaluation in sample.evaluations:
            assert evaluation.status == "scored"
            assert evaluation.result.excluded_judges == ["judge-b"]
            assert "judge-b" not in evaluation.result.model_scores
    down = run.judge_summary("judge-b", "topic_adherence")
    assert (down.scored, down.excluded, down.mean) == (0, 3, None)
    assert down.failed_calls == down.calls == 3  # only ExtractTopics was asked
    assert run.totals.failed_judge_calls == 6


def test_when_every_judge_is_down_every_sample_is_failed_not_dropped(container, openai_server):
    openai_server.fail_always(None, Reply.error(503))
    run = evaluate_dataset(
        SAMPLES, [container.agent_goal_accuracy(), container.tool_call_accuracy()]
    )
    assert len(run.samples) == 3
    goal = [s.evaluation("agent_goal_accuracy") for s in run.samples]
    assert {e.status for e in goal} == {"failed"}
    error = goal[0].error
    assert error.kind == "all_judges_failed"
    assert error.step == "CompareOutcome"
    assert [f.judge_id for f in error.failures] == JUDGES
    assert error.steps[0].calls[0].ok is False  # the calls are kept for the report
    assert run.metric_summary("agent_goal_accuracy").mean is None
    assert run.metric_summary("tool_call_accuracy").mean == 1.0
    assert run.judge_summary("judge-a", "agent_goal_accuracy").excluded == 3
    assert len(run.failures()) == 3


def test_a_sample_that_lacks_a_field_fails_only_that_metric(container):
    bare = Sample(id="bare", user_input_messages=[HumanMessage("hi"), AIMessage("hello")])
    run = evaluate_dataset([*SAMPLES, bare], [container.topic_adherence()])
    failed = run.samples[3].evaluation("topic_adherence")
    assert failed.status == "failed"
    assert failed.error.kind == "sample_validation"
    assert failed.error.field == "reference_topics"
    assert run.metric_summary("topic_adherence").scored == 3


def test_progress_reports_every_evaluation_and_concurrency_is_bounded(container, openai_server):
    openai_server.set_latency(None, 0.05)
    seen: list[RunProgress] = []
    many = [_sample(f"item {n}") for n in range(6)]
    run = evaluate_dataset(
        many, [container.agent_goal_accuracy()], concurrency=2, progress=seen.append
    )
    assert openai_server.peak_in_flight <= 2 * len(JUDGES)
    assert seen[0].evaluations_done == 0 and seen[0].eta_s is None
    assert [p.evaluations_done for p in seen] == list(range(7))
    last = seen[-1]
    assert (last.samples_done, last.samples_total, last.judge_calls) == (6, 6, 18)
    assert last.eta_s == 0.0
    assert run.concurrency == 2


def test_an_unknown_judge_is_refused_before_any_call(container, openai_server):
    with pytest.raises(JudgeNotFoundError, match="nobody"):
        evaluate_dataset(
            SAMPLES,
            [container.agent_goal_accuracy()],
            configs={"agent_goal_accuracy": {"models": ["nobody"]}},
        )
    assert openai_server.count() == 0


def test_configs_override_the_beans_defaults_for_the_run(container):
    run = evaluate_dataset(
        SAMPLES,
        {"goal": container.agent_goal_accuracy()},
        configs={"goal": {"models": ["judge-a", "judge-c"], "aggregation": "MIN"}},
    )
    assert run.metrics[0].judge_ids == ["judge-a", "judge-c"]
    assert run.metrics[0].config["aggregation"] == "MIN"
    assert run.samples[1].evaluation("goal").score == 0.0


def test_bad_arguments_are_refused(container):
    metric = container.tool_call_accuracy()
    with pytest.raises(ValueError, match="concurrency"):
        evaluate_dataset(SAMPLES, [metric], concurrency=0)
    with pytest.raises(ValueError, match="used twice"):
        evaluate_dataset([_sample("x", id="dup"), _sample("y", id="dup")], [metric])
    with pytest.raises(ValueError, match="given twice"):
        evaluate_dataset(SAMPLES, [metric, metric])
    with pytest.raises(ValueError, match="not run"):
        evaluate_dataset(SAMPLES, [metric], configs={"agent_goal_accuracy": {}})


@pytest.mark.asyncio
async def test_the_async_twin_runs_on_the_callers_loop(container):
    run = await aevaluate_dataset(SAMPLES, [container.agent_goal_accuracy()], concurrency=3)
    assert run.metric_summary("agent_goal_accuracy").scored == 3


def test_a_compute_only_run_needs_no_judge_loop(container):
    run = evaluate_dataset(SAMPLES, [container.tool_call_accuracy()])
    assert run.judges == [] and run.agreement == []
    assert run.totals.judge_calls == 0


def test_metrics_named_by_bean_name_are_resolved_through_the_container(container):
    run = evaluate_dataset(
        SAMPLES, ["agent_goal_accuracy", "tool_call_accuracy"], container=container
    )
    assert [e.metric for e in run.samples[0].evaluations] == [
        "agent_goal_accuracy",
        "tool_call_accuracy",
    ]
    assert run.samples[1].evaluation("agent_goal_accuracy").score == pytest.approx(2 / 3)
    assert run.metric_summary("tool_call_accuracy").mean == 1.0


def test_a_bean_name_without_a_container_says_what_to_pass(container):
    with pytest.raises(
        TypeError, match=r"metrics\[0\] is the name 'agent_goal_accuracy'.*container="
    ):
        evaluate_dataset(SAMPLES, ["agent_goal_accuracy"])
    with pytest.raises(TypeError, match=r"metrics\[1\] is a int; expected a metric bean"):
        evaluate_dataset(SAMPLES, [container.tool_call_accuracy(), 3])  # type: ignore[list-item]
    with pytest.raises(KeyError, match="did you mean 'agent_goal_accuracy'"):
        evaluate_dataset(SAMPLES, ["agent_goal"], container=container)


def _kind(recorded) -> str:
    properties = (recorded.request.json_schema or {}).get("properties", {})
    return (
        "goal"
        if "goal_achieved" in properties
        else "topics"
        if "topics" in properties
        else "classify"
    )


def test_a_metric_step_reaches_the_judge_for_a_block_of_samples_before_the_next_metric(
    container, openai_server
):
    many = [_sample(name) for name in ("alpha", "bravo", "charlie", "delta")]
    run = evaluate_dataset(
        many, [container.agent_goal_accuracy(), container.topic_adherence()], concurrency=2
    )
    assert run.metric_summary("topic_adherence").scored == 4
    sent = [
        (
            _kind(r),
            next(
                (n for n in ("alpha", "bravo", "charlie", "delta") if n in r.request.prompt), None
            ),
        )
        for r in openai_server.requests_for("judge-a")
    ]
    # (A classify call names no sample: its prompt holds the topics only.)
    # Samples in blocks of 2 (the concurrency); in a block, the goal calls of both samples
    # come before any topic call, and no call of the next block comes before them.
    assert {s for s in sent[:2]} == {("goal", "alpha"), ("goal", "bravo")}
    block_two = [i for i, (_, name) in enumerate(sent) if name in ("charlie", "delta")]
    block_one_goal = [
        i for i, call in enumerate(sent) if call in {("goal", "alpha"), ("goal", "bravo")}
    ]
    assert max(block_one_goal) < min(block_two)
    assert len(sent) == 4 * 3  # goal, topics, classify per sample
    # Results stay in dataset order.
    assert [s.sample_id for s in run.samples] == [f"sample-00{n}" for n in range(1, 5)]


@pytest.mark.parametrize(
    ("samples", "metrics", "concurrency"), [(5, 3, 2), (1, 1, 8), (4, 2, 1), (0, 2, 3)]
)
def test_the_evaluation_order_covers_every_pair_once_in_sample_blocks(
    samples, metrics, concurrency
):
    from ragas_boot.runs.engine import _evaluation_order

    order = _evaluation_order(samples, metrics, concurrency)
    assert sorted(order) == [(s, m) for s in range(samples) for m in range(metrics)]
    blocks = [s // concurrency for s, _ in order]
    assert blocks == sorted(blocks)  # a block is started whole before the next
    for block in set(blocks):
        in_block = [m for s, m in order if s // concurrency == block]
        assert in_block == sorted(in_block)  # one metric over the block, then the next
