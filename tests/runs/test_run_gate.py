"""The gate of a dataset run: data in runs (``RunResult.gate``), lines in reporting."""

from __future__ import annotations

import pytest

from ragas_boot import Sample
from ragas_boot.reporting.gates import run_gate_lines, sample_gate_line
from ragas_boot.runs import GateFailure, RunGate, evaluate_dataset
from ragas_boot.samples import AIMessage, HumanMessage, ToolCall
from ragas_boot.testing import Reply

QUIET = "spring.ai.ragas.metrics.logging.enabled: false\n"


def _sample(sample_id: str, called: str) -> Sample:
    return Sample(
        id=sample_id,
        user_input_messages=[
            HumanMessage("Find it."),
            AIMessage("", [ToolCall(called, {"q": "it"})]),
            AIMessage("Found."),
        ],
        reference="It is found",
        reference_tool_calls=[ToolCall("lookup", {"q": "it"})],
    )


# tool_call_accuracy: 1.0 for "a", 0.0 for "b": a mean of 0.5
SAMPLES = [_sample("a", "lookup"), _sample("b", "search")]


@pytest.fixture
def container(make_container, openai_server):
    openai_server.fail_always(None, Reply.error(503))  # agent_goal_accuracy: nothing scored
    return make_container(["judge-a"], extra=QUIET)


def test_a_failed_metric_and_a_low_mean_fail_the_gate(container):
    run = evaluate_dataset(
        SAMPLES, [container.tool_call_accuracy(), container.agent_goal_accuracy()]
    )

    gate = run.gate(0.6)

    assert not gate.passed
    assert gate.failures == [
        GateFailure(metric="tool_call_accuracy", kind="under_fail_under", mean=0.5, failed=0),
        GateFailure(metric="agent_goal_accuracy", kind="nothing_scored", mean=None, failed=2),
    ]
    assert run_gate_lines(gate) == [
        "FAILED tool_call_accuracy: mean 0.500 is under --fail-under 0.6",
        "FAILED agent_goal_accuracy: no sample could be scored (2 failed)",
    ]
    # without --fail-under only the metric with nothing scored fails
    assert [failure.metric for failure in run.gate().failures] == ["agent_goal_accuracy"]


def test_a_mean_at_the_bound_passes(container):
    run = evaluate_dataset(SAMPLES, [container.tool_call_accuracy()])

    assert run.gate(0.5) == RunGate(
        fail_under=0.5, samples=2, passed_samples=1, failures=[], passed=True
    )
    assert run_gate_lines(run.gate(0.5)) == ["PASSED every metric's mean is at least 0.5"]
    assert run.gate() == RunGate(
        fail_under=None, samples=2, passed_samples=1, failures=[], passed=True
    )
    assert run_gate_lines(run.gate()) == []
    with pytest.raises(ValueError, match="fail_under must be within"):
        run.gate(1.5)


@pytest.mark.parametrize(
    ("required", "passed", "line"),
    [
        (0.5, True, "PASSED 1/2 samples passed every metric (50.0%), at least the 50.0% required"),
        (0.9, False, "FAILED 1/2 samples passed every metric (50.0%), under the 90.0% required"),
        (0.0, True, "PASSED 1/2 samples passed every metric (50.0%), at least the 0.0% required"),
    ],
)
def test_the_share_of_samples_passing_every_metric_gates_the_run(
    container, required: float, passed: bool, line: str
) -> None:
    # "a" passes tool_call_accuracy, "b" does not: one sample of two passes every metric.
    run = evaluate_dataset(SAMPLES, [container.tool_call_accuracy()])

    gate = run.gate(min_sample_pass_rate=required)

    assert (run.passed_samples, run.sample_pass_rate) == (1, 0.5)
    assert [sample.passed for sample in run.samples] == [True, False]
    assert gate.passed is passed
    assert gate.failures == []  # no metric fails it: the samples' share does
    assert (gate.samples, gate.passed_samples, gate.sample_pass_rate) == (2, 1, 0.5)
    assert sample_gate_line(gate) == line
    assert run_gate_lines(gate) == [line]
    assert run.gate(0.4, min_sample_pass_rate=0.9).passed is False
    assert run_gate_lines(run.gate(0.6, min_sample_pass_rate=0.9)) == [
        "FAILED tool_call_accuracy: mean 0.500 is under --fail-under 0.6",
        "FAILED 1/2 samples passed every metric (50.0%), under the 90.0% required",
    ]
    with pytest.raises(ValueError, match="min_sample_pass_rate must be within"):
        run.gate(min_sample_pass_rate=1.5)


def test_a_sample_passes_only_when_every_metric_passes_it(container) -> None:
    # agent_goal_accuracy fails on every sample (the judges answer 503): nobody passes.
    run = evaluate_dataset(
        SAMPLES, [container.tool_call_accuracy(), container.agent_goal_accuracy()]
    )

    assert [sample.passed for sample in run.samples] == [False, False]
    assert run.gate(min_sample_pass_rate=0.5).passed is False
    assert sample_gate_line(run.gate()) is None  # not asked for


def test_an_empty_run_reaches_no_share_of_samples(container) -> None:
    run = evaluate_dataset([], [container.tool_call_accuracy()])

    assert run.sample_pass_rate is None
    assert run.gate(min_sample_pass_rate=0.0).passed
    assert not run.gate(min_sample_pass_rate=0.1).passed
