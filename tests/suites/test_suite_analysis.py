"""Failure analysis over a RunResult: the metrics' results grouped by kind, each failed sample
once per group, with the seed's recommendations; any dataset run that scores tool use."""

from __future__ import annotations

from typing import Any

from ragas_boot.metrics import ToolCallAccuracyMetric
from ragas_boot.runs import evaluate_dataset
from ragas_boot.runs.analysis import failure_analysis
from ragas_boot.samples import AIMessage, HumanMessage, Sample, ToolCall
from ragas_boot.suites import (
    AgentReply,
    AgentTestCase,
    AgentTestSuite,
    FailureKind,
    ToolCallExpectation,
    analyze_failures,
    case_sample,
    evaluate_cases,
)

FORECAST = ToolCallExpectation(tool_name="get_forecast", required_params={"city": "Hue", "days": 3})
GOOD = ToolCall("get_forecast", {"city": "Hue", "days": 3})


def _sample(
    case_id: str,
    *calls: ToolCall,
    latency_ms: float = 1.0,
    error: str | None = None,
    **fields: Any,
) -> Sample:
    case = AgentTestCase.model_validate({"id": case_id, "user_message": "q", **fields})
    reply = None if error else AgentReply(response="done", tool_calls=list(calls))
    return case_sample(case, reply, latency_ms=latency_ms, error=error)


def _run(*samples: Sample) -> Any:
    cases = [{"id": sample.id, "user_message": "q"} for sample in samples]
    suite = AgentTestSuite.model_validate({"name": "s", "cases": cases})
    return evaluate_cases(suite, samples)


def test_failures_are_grouped_by_kind_with_sample_ids_once() -> None:
    run = _run(
        _sample("ok", GOOD, expected_tool_calls=[FORECAST]),
        # two wrong values and a keyword: two groups
        _sample(
            "params",
            ToolCall("get_forecast", {"city": "Hanoi", "days": 9}),
            expected_tool_calls=[FORECAST],
            expected_output_contains=["Hue"],
        ),
        _sample(
            "wrong_tool", ToolCall("get_weather", {"city": "Hue"}), expected_tool_calls=[FORECAST]
        ),
        _sample("no_tool_wanted", ToolCall("get_weather", {}), should_not_call_tools=True),
        _sample("slow", GOOD, expected_tool_calls=[FORECAST], latency_ms=500, max_latency_ms=100),
        _sample("budget", *[GOOD] * 3, expected_tool_calls=[FORECAST], max_tool_calls=2),
    )

    analysis = analyze_failures(run)

    assert analysis.failed_sample_ids == [
        "params",
        "wrong_tool",
        "no_tool_wanted",
        "slow",
        "budget",
    ]
    groups = {group.kind: group.sample_ids for group in analysis.groups}
    assert groups == {
        FailureKind.PARAMETER_ERRORS: ["params"],
        FailureKind.WRONG_TOOL: ["wrong_tool"],
        FailureKind.TOOL_NOT_CALLED: ["wrong_tool"],
        FailureKind.OVER_CALLING: ["no_tool_wanted", "budget"],
        FailureKind.LATENCY: ["slow"],
        FailureKind.MISSING_KEYWORDS: ["params"],
    }
    assert [group.kind for group in analysis.groups] == list(groups)  # report order
    params = analysis.findings("params")
    assert [finding.kind for finding in params] == [
        FailureKind.PARAMETER_ERRORS,
        FailureKind.MISSING_KEYWORDS,
    ]
    assert params[0].params == {"city": "expected 'Hue', got 'Hanoi'", "days": "expected 3, got 9"}
    assert [f.metric for f in params] == ["tool_call_accuracy", "case_expectations"]
    budget = analysis.group("over_calling")
    assert budget is not None and budget.count == 4  # 1 + two extra calls + the budget
    assert analysis.recommendations[:3] == [
        "Improve tool input_schema descriptions — add examples for each param",
        "Clarify tool descriptions — disambiguate similar tools more clearly",
        "Add more trigger phrases in tool descriptions for missed tools",
    ]
    assert analysis.findings("ok") == []


def test_samples_that_passed_are_left_out() -> None:
    # An extra call costs precision, yet P = 2/3, R = 1 gives F1 0.8: the case passes.
    weather = ToolCallExpectation(tool_name="get_weather", required_params={"city": "Hue"})
    run = _run(
        _sample(
            "passing",
            GOOD,
            ToolCall("get_weather", {"city": "Hue"}),
            ToolCall("get_time", {}),
            expected_tool_calls=[FORECAST, weather],
        )
    )

    assert run.samples[0].passed
    assert analyze_failures(run).groups == []


def test_agent_errors_have_their_own_group() -> None:
    run = _run(_sample("boom", error="RuntimeError: boom", expected_tool_calls=[FORECAST]))

    analysis = analyze_failures(run)

    assert analysis.group(FailureKind.AGENT_ERRORS) is not None
    assert analysis.group(FailureKind.TOOL_NOT_CALLED) is None  # the calls are not behaviour
    assert analysis.samples[0].findings[0].actual == "RuntimeError: boom"


def test_another_metric_that_fails_a_sample_is_a_finding(
    make_container: Any, openai_server: Any
) -> None:
    openai_server.when(
        lambda r: "inferred_goal" in r.prompt,
        {"inferred_goal": "a forecast", "reason": "asked"},
        model="judge-a",
    )
    openai_server.when(
        lambda r: "goal_achieved" in r.prompt,
        {"goal_achieved": False, "reason": "The user got no forecast."},
        model="judge-a",
    )
    container = make_container(["judge-a"])
    suite = AgentTestSuite.model_validate(
        {"name": "s", "cases": [{"id": "c", "user_message": "q"}]}
    )
    sample = _sample("c", GOOD, expected_tool_calls=[FORECAST])

    run = evaluate_cases(suite, [sample], metrics=["agent_goal_accuracy"], container=container)

    (finding,) = analyze_failures(run).findings("c")
    assert finding.kind is FailureKind.OTHER_METRICS
    assert finding.metric == "agent_goal_accuracy"
    assert finding.message.startswith("agent_goal_accuracy scored 0.00 under its threshold 0.5")


def test_any_run_that_scores_tool_use_is_analysed() -> None:
    sample = Sample(
        id="trace-1",
        user_input_messages=[HumanMessage("Weather?"), AIMessage("", [ToolCall("search", {})])],
        reference_tool_calls=[ToolCall("get_weather", {"city": "Hue"})],
    )

    run = evaluate_dataset([sample], [ToolCallAccuracyMetric()])

    analysis = failure_analysis(run)
    assert analysis is not None
    assert [g.kind for g in analysis.groups] == [
        FailureKind.WRONG_TOOL,
        FailureKind.TOOL_NOT_CALLED,
    ]


def test_runs_that_score_no_tool_use_have_no_analysis(make_container: Any) -> None:
    from ragas_boot.metrics import StringSimilarityMetric

    run = evaluate_dataset([Sample(response="a", reference="a")], [StringSimilarityMetric()])

    assert failure_analysis(run) is None
