"""CaseExpectations: keywords, tool-call and latency budgets, the agent's error (no LLM)."""

from __future__ import annotations

from typing import Any

import pytest

from ragas_boot import AIMessage, HumanMessage, Sample, SampleValidationError, ToolCall
from ragas_boot.errors import UndefinedScoreError
from ragas_boot.metrics import CaseExpectationsConfig, CaseExpectationsMetric
from ragas_boot.runs import evaluate_dataset


def _case(
    answer: str = "31 °C in Hanoi, humid.",
    calls: int = 1,
    latency_ms: float | None = 800.0,
    error: str | None = None,
    **expectations: Any,
) -> Sample:
    messages = [HumanMessage("Weather in Hanoi?")]
    if calls:
        messages.append(AIMessage("", [ToolCall("get_weather", {"city": "Hanoi"})] * calls))
    messages.append(AIMessage(answer))
    run: dict[str, Any] = {"latency_ms": latency_ms}
    if error is not None:
        run["error"] = error
    return Sample(id="case", user_input_messages=messages, expectations=expectations, agent_run=run)


@pytest.fixture
def metric() -> CaseExpectationsMetric:
    return CaseExpectationsMetric()


def test_every_check_met_scores_one(metric: CaseExpectationsMetric) -> None:
    sample = _case(response_contains=["hanoi", "HUMID"], max_tool_calls=1, max_latency_ms=1000)

    result = metric.evaluate(sample)

    assert result.score == 1.0
    assert result.passes(1.0)
    assert result.metadata["checks"] == 4  # two keywords, two budgets
    assert result.metadata["failed_checks"] == []
    assert result.explanation == "4/4 checks passed"


def test_each_failed_check_is_data_and_one_line(metric: CaseExpectationsMetric) -> None:
    sample = _case(
        response_contains=["Hanoi", "climate", "forecast"],
        max_tool_calls=1,
        calls=3,
        max_latency_ms=500,
        latency_ms=812.4,
    )

    result = metric.evaluate(sample)

    # 5 checks: Hanoi passes; climate, forecast, the budget and the latency fail.
    assert result.score == pytest.approx(1 / 5)
    assert not result.passes(CaseExpectationsConfig().threshold)
    assert result.metadata["failed_checks"] == [
        {
            "check": "response_contains",
            "expected": ["climate", "forecast"],
            "actual": None,
            "message": "the answer lacks 'climate', 'forecast'",
        },
        {
            "check": "max_tool_calls",
            "expected": 1,
            "actual": 3,
            "message": "3 tool calls, over the budget of 1",
        },
        {
            "check": "max_latency_ms",
            "expected": 500.0,
            "actual": 812.4,
            "message": "latency 812 ms, over the budget of 500 ms",
        },
    ]
    assert result.explanation.startswith("1/5 checks passed: the answer lacks 'climate'")
    assert (result.metadata["tool_calls"], result.metadata["latency_ms"]) == (3, 812.4)


def test_budgets_are_inclusive(metric: CaseExpectationsMetric) -> None:
    sample = _case(max_tool_calls=2, calls=2, max_latency_ms=800, latency_ms=800.0)
    assert metric.multi_turn_score(sample) == 1.0


def test_an_agent_error_is_its_own_failure(metric: CaseExpectationsMetric) -> None:
    sample = _case(error="TimeoutError: no answer", response_contains=["Hanoi"], max_tool_calls=0)

    result = metric.evaluate(sample)

    assert result.score == 0.0
    assert [check["check"] for check in result.metadata["failed_checks"]] == ["agent_error"]
    assert result.explanation == "0/1 checks passed: the agent failed: TimeoutError: no answer"


def test_expectations_that_check_nothing_are_undefined(metric: CaseExpectationsMetric) -> None:
    result = metric.evaluate(_case())

    assert result.score is None
    assert "check nothing" in (result.undefined_reason or "")
    with pytest.raises(UndefinedScoreError):
        metric.multi_turn_score(_case())


@pytest.mark.parametrize(
    ("sample", "field"),
    [
        (Sample(response="hi"), "expectations"),
        (
            Sample(
                user_input_messages=[HumanMessage("hi")], expectations={"response_contains": ["x"]}
            ),
            "response",
        ),
        (Sample(response="hi", expectations={"max_tool_calls": 1}), "tool_calls"),
        (
            Sample(response="hi", tool_calls=[], expectations={"max_latency_ms": 10}),
            "agent_run.latency_ms",
        ),
        (
            Sample(response="hi", expectations={"max_latency_ms": 10}, agent_run={"turns": 1}),
            "agent_run.latency_ms",
        ),
    ],
)
def test_what_a_check_reads_must_be_there(
    metric: CaseExpectationsMetric, sample: Sample, field: str
) -> None:
    with pytest.raises(SampleValidationError) as caught:
        metric.evaluate(sample)
    assert caught.value.field == field
    assert caught.value.metric == "CaseExpectationsMetric"


def test_a_tool_call_budget_of_zero_counts_the_response_field_calls(
    metric: CaseExpectationsMetric,
) -> None:
    sample = Sample(response="ok", tool_calls=[ToolCall("t")], expectations={"max_tool_calls": 0})
    assert metric.multi_turn_score(sample) == 0.0


def test_russian_explanations(metric: CaseExpectationsMetric) -> None:
    result = metric.evaluate(_case(response_contains=["климат"]), {"language": "ru"})
    assert result.explanation == "выполнено проверок: 0 из 1: в ответе нет 'климат'"


def test_it_runs_from_a_dataset_run_like_any_metric(make_container: Any) -> None:
    container = make_container([])
    samples = [
        _case(response_contains=["Hanoi"]).model_copy(update={"id": "good"}),
        _case(response_contains=["Paris"]).model_copy(update={"id": "bad"}),
    ]

    run = evaluate_dataset(samples, ["case_expectations"], container=container)

    assert [sample.passed for sample in run.samples] == [True, False]
    assert run.metric_summary("case_expectations").mean == 0.5
    assert container.case_expectations().defaults.threshold == 1.0


def test_tool_call_accuracy_leaves_a_case_without_expected_calls_undefined() -> None:
    from ragas_boot.metrics import ToolCallAccuracyMetric

    metric = ToolCallAccuracyMetric()
    case = _case(response_contains=["Hanoi"])

    result = metric.evaluate(case)

    assert (result.score, result.undefined_reason) == (
        None,
        "the case expects nothing of its tool calls (no reference_tool_calls)",
    )
    with pytest.raises(UndefinedScoreError):
        metric.multi_turn_score(case)
    plain = case.model_copy(update={"expectations": None})
    with pytest.raises(SampleValidationError) as caught:
        metric.evaluate(plain)  # not a case: the reference is missing, as before
    assert caught.value.field == "reference_tool_calls"
