"""Failure analysis of a run: what went wrong in each failed sample, grouped, with what to do.

It reads the metrics' results, not a scoring of its own: ToolCallAccuracy's matching (calls
with wrong arguments, calls missed, extra calls, calls out of order) and CaseExpectations'
failed checks (keywords, budgets, the agent's error); any other metric that did not pass a
sample is one finding too. Only samples that did not pass (:attr:`SampleRun.passed`) are
analysed; a sample whose agent failed has that finding alone (its calls and answer are not
its behaviour). Every finding belongs to one group (:data:`TITLES`), each failed sample is
listed once per group, and each group carries a recommendation: the first three are the
tool-evaluation seed article's.

The analysis applies to runs that score tool use (``tool_call_accuracy`` or
``case_expectations``): :func:`failure_analysis` gives ``None`` for any other run.
"""

from __future__ import annotations

import json
from collections import Counter
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.metrics.agent.matching import ValueComparison, argument_problems
from ragas_boot.runs.results import Evaluation, RunResult, SampleRun
from ragas_boot.samples import Sample, ToolCall

__all__ = [
    "ANALYSED_METRICS",
    "RECOMMENDATIONS",
    "TITLES",
    "FailedSample",
    "FailureAnalysis",
    "FailureGroup",
    "FailureKind",
    "Finding",
    "analyze_failures",
    "failure_analysis",
    "sample_findings",
]

ANALYSED_METRICS = ("tool_call_accuracy", "case_expectations")
"""The metrics whose results the analysis reads finding by finding."""

_FROZEN = ConfigDict(frozen=True)


class FailureKind(StrEnum):
    """The failure groups, in report order."""

    PARAMETER_ERRORS = "parameter_errors"
    WRONG_TOOL = "wrong_tool"
    TOOL_NOT_CALLED = "tool_not_called"
    OVER_CALLING = "over_calling"
    WRONG_ORDER = "wrong_order"
    LATENCY = "latency"
    MISSING_KEYWORDS = "missing_keywords"
    NOT_CONCLUDED = "not_concluded"
    USER_GAVE_UP = "user_gave_up"
    AGENT_ERRORS = "agent_errors"
    SIMULATOR_FAILURES = "simulator_failures"
    OTHER_METRICS = "other_metrics"


TITLES: dict[FailureKind, str] = {
    FailureKind.PARAMETER_ERRORS: "Parameter errors",
    FailureKind.WRONG_TOOL: "Wrong tool called",
    FailureKind.TOOL_NOT_CALLED: "Tool not called",
    FailureKind.OVER_CALLING: "Over-calling",
    FailureKind.WRONG_ORDER: "Calls out of order",
    FailureKind.LATENCY: "Latency over budget",
    FailureKind.MISSING_KEYWORDS: "Missing keywords",
    FailureKind.NOT_CONCLUDED: "Conversations not concluded",
    FailureKind.USER_GAVE_UP: "Simulated user gave up",
    FailureKind.AGENT_ERRORS: "Agent errors",
    FailureKind.SIMULATOR_FAILURES: "Simulator failures (not counted)",
    FailureKind.OTHER_METRICS: "Other metrics",
}
"""Each group's name for people."""

RECOMMENDATIONS: dict[FailureKind, str] = {
    FailureKind.PARAMETER_ERRORS: (
        "Improve tool input_schema descriptions — add examples for each param"
    ),
    FailureKind.WRONG_TOOL: "Clarify tool descriptions — disambiguate similar tools more clearly",
    FailureKind.TOOL_NOT_CALLED: "Add more trigger phrases in tool descriptions for missed tools",
    FailureKind.OVER_CALLING: (
        "State when no tool is needed (system prompt, tool descriptions); one call per fact"
    ),
    FailureKind.WRONG_ORDER: (
        "State the order of the steps (system prompt), or accept any order (scoring.order)"
    ),
    FailureKind.LATENCY: "Cut sequential model turns (parallel tool calls) or use a faster model",
    FailureKind.MISSING_KEYWORDS: (
        "Ask the agent to restate the key facts (city, figures) in its final answer"
    ),
    FailureKind.NOT_CONCLUDED: (
        "Read the transcripts: an agent that loops, or never acts on what the user gave it, "
        "runs out of turns (raise max-turns only if the task needs more)"
    ),
    FailureKind.USER_GAVE_UP: (
        "Read the transcripts: the agent refused, or could not do what the goal needs"
    ),
    FailureKind.AGENT_ERRORS: (
        "Fix the agent's errors first: these samples were not scored on behaviour"
    ),
    FailureKind.SIMULATOR_FAILURES: (
        "Not the agent's: the simulation model gave no valid answer after its retries; check "
        "spring.ai.ragas.simulation (model, max-tokens) and the provider's timeout"
    ),
    FailureKind.OTHER_METRICS: "Read each metric's explanation of the samples it did not pass",
}
"""What to do about each group (the first three are the seed article's)."""


class Finding(BaseModel):
    """One thing that went wrong in a sample, from one metric's result.

    Attributes:
        kind: the group it belongs to.
        metric: the metric whose result says so (bean name).
        message: one readable line.
        tool: the tool concerned, if any.
        params: the arguments concerned, with what is wrong with each, if any.
        expected: what was expected (a call, a budget, keywords), if anything.
        actual: what the agent did (a call, a count, a latency, an error), if relevant.
    """

    model_config = _FROZEN

    kind: FailureKind = Field(description="The group it belongs to.")
    metric: str = Field(description="The metric whose result says so (bean name).")
    message: str = Field(description="One readable line.")
    tool: str | None = Field(default=None, description="The tool concerned, if any.")
    params: dict[str, str] = Field(
        default_factory=dict, description="The arguments concerned: name → what is wrong."
    )
    expected: Any = Field(default=None, description="What was expected, if anything.")
    actual: Any = Field(default=None, description="What the agent did, if relevant.")


class FailedSample(BaseModel):
    """A sample that did not pass, and why."""

    model_config = _FROZEN

    sample_id: str = Field(description="The sample (a suite's case id).")
    findings: list[Finding] = Field(description="What went wrong, metric by metric.")


class FailureGroup(BaseModel):
    """The failed samples that share one kind of failure.

    Attributes:
        kind: the group.
        title: its name for people.
        sample_ids: the samples affected, in run order, each once.
        count: findings of this group in those samples.
        recommendation: what to do about it.
    """

    model_config = _FROZEN

    kind: FailureKind = Field(description="The group.")
    title: str = Field(description="Its name for people.")
    sample_ids: list[str] = Field(description="The samples affected, in run order.")
    count: int = Field(description="Findings of this group in those samples.")
    recommendation: str = Field(description="What to do about it.")


class FailureAnalysis(BaseModel):
    """The failures of a run, sample by sample and grouped.

    Attributes:
        samples: every sample that did not pass, in run order, with its findings.
        groups: the non-empty groups, in :class:`FailureKind` order.
    """

    model_config = _FROZEN

    samples: list[FailedSample] = Field(description="Every sample that did not pass.")
    groups: list[FailureGroup] = Field(description="The non-empty groups, in report order.")

    @property
    def failed_sample_ids(self) -> list[str]:
        """The ids of the samples that did not pass, in run order."""
        return [sample.sample_id for sample in self.samples]

    @property
    def recommendations(self) -> list[str]:
        """One recommendation per group, in group order."""
        return [group.recommendation for group in self.groups]

    def group(self, kind: FailureKind | str) -> FailureGroup | None:
        """The group of ``kind``, if any sample has a failure of that kind."""
        wanted = FailureKind(kind)
        return next((group for group in self.groups if group.kind is wanted), None)

    def findings(self, sample_id: str) -> list[Finding]:
        """The findings of one sample (``[]`` when it passed)."""
        for sample in self.samples:
            if sample.sample_id == sample_id:
                return list(sample.findings)
        return []


def failure_analysis(run: RunResult) -> FailureAnalysis | None:
    """:func:`analyze_failures` for a run that scores tool use (``tool_call_accuracy`` or
    ``case_expectations``); ``None`` for any other run."""
    if not any(info.name in ANALYSED_METRICS for info in run.metrics):
        return None
    return analyze_failures(run)


def analyze_failures(run: RunResult) -> FailureAnalysis:
    """What went wrong in each sample of ``run`` that did not pass, and the groups.

    Returns:
        The analysis; its ``samples`` and ``groups`` are empty when every sample passed.
    """
    failed = [
        FailedSample(sample_id=sample.sample_id, findings=sample_findings(sample))
        for sample in run.samples
        if not sample.passed
    ]
    members: dict[FailureKind, dict[str, None]] = {}
    counts: Counter[FailureKind] = Counter()
    for sample in failed:
        for finding in sample.findings:
            members.setdefault(finding.kind, {})[sample.sample_id] = None
            counts[finding.kind] += 1
    groups = [
        FailureGroup(
            kind=kind,
            title=TITLES[kind],
            sample_ids=list(members[kind]),
            count=counts[kind],
            recommendation=RECOMMENDATIONS[kind],
        )
        for kind in FailureKind
        if kind in members
    ]
    return FailureAnalysis(samples=failed, groups=groups)


def sample_findings(run: SampleRun) -> list[Finding]:
    """What went wrong in one sample, metric by metric (whether it passed or not); a
    simulator failure alone when the simulated user or a tool failed (not the agent's)."""
    sample = run.sample
    agent_run = sample.agent_run
    if agent_run is not None and agent_run.simulation is not None and agent_run.simulator_failed:
        reason = agent_run.simulation.reason or "no answer"
        return [
            Finding(
                kind=FailureKind.SIMULATOR_FAILURES,
                metric="simulation",
                message=f"The simulator failed (not counted): {reason.splitlines()[0]}",
                actual=reason,
            )
        ]
    if sample.agent_run is not None and sample.agent_run.error is not None:
        error = sample.agent_run.error
        return [
            Finding(
                kind=FailureKind.AGENT_ERRORS,
                metric="case_expectations",
                message=f"The agent failed: {error}",
                actual=error,
            )
        ]
    findings: list[Finding] = []
    for evaluation in run.evaluations:
        if evaluation.status == "scored" and evaluation.passed:
            continue
        if evaluation.status == "undefined" and not evaluation.no_quorum:
            continue
        if evaluation.result is not None and evaluation.status == "scored":
            if evaluation.metric == "tool_call_accuracy":
                findings += _tool_findings(sample, evaluation)
                continue
            if evaluation.metric == "case_expectations":
                findings += _check_findings(evaluation)
                continue
        findings.append(_metric_finding(evaluation))
    return findings


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _call_text(call: ToolCall) -> str:
    return f"{call.name}({_json(call.arguments)})"


def _call_data(call: ToolCall) -> dict[str, Any]:
    return {"name": call.name, "arguments": call.arguments}


def _tool_findings(sample: Sample, evaluation: Evaluation) -> list[Finding]:
    """The matching's incorrect, missed and extra calls as findings."""
    assert evaluation.result is not None
    metadata = evaluation.result.metadata
    actual = sample.actual_tool_calls()
    alternatives = sample.reference_alternatives() or [[]]
    chosen = metadata.get("alternative")
    reference = alternatives[chosen if isinstance(chosen, int) else 0]
    comparison = evaluation.result.config.get("value_comparison", ValueComparison.EXACT)
    findings: list[Finding] = []

    def add(kind: FailureKind, message: str, **facts: Any) -> None:
        findings.append(Finding(kind=kind, metric=evaluation.metric, message=message, **facts))

    def wrong_arguments(made: ToolCall, expected: ToolCall, head: str, extra: list[str]) -> None:
        problems = argument_problems(made, expected, comparison=comparison)
        problems.update(
            {name: "not expected (STRICT mode)" for name in extra if name not in problems}
        )
        listed = "; ".join(f"{name}: {problem}" for name, problem in problems.items())
        add(
            FailureKind.PARAMETER_ERRORS,
            head + (f": {listed}" if listed else ""),
            tool=made.name,
            params=problems,
            expected=_call_data(expected),
            actual=_call_data(made),
        )

    for item in metadata.get("incorrect", []):
        made, expected = actual[item["actual_index"]], reference[item["reference_index"]]
        extra = list(item.get("extra_keys", []))
        if not argument_problems(made, expected, comparison=comparison) and not extra:
            add(
                FailureKind.WRONG_ORDER,
                f"Call out of the expected order: {_call_text(made)}",
                tool=made.name,
                expected=_call_data(expected),
                actual=_call_data(made),
            )
        else:
            wrong_arguments(made, expected, f"Wrong arguments in {made.name}", extra)
    for item in metadata.get("missed", []):
        expected = reference[item["position"]]
        arguments = f" {_json(expected.arguments)}" if expected.arguments else ""
        add(
            FailureKind.TOOL_NOT_CALLED,
            f"Missing expected tool call: {expected.name}{arguments}",
            tool=expected.name,
            expected=_call_data(expected),
        )
    extra_calls = [actual[item["position"]] for item in metadata.get("extra", [])]
    expected_counts = Counter(call.name for call in reference)
    if extra_calls and not reference and sample.reference_tool_calls == []:
        listed = ", ".join(_call_text(call) for call in extra_calls)
        add(
            FailureKind.OVER_CALLING,
            f"Called tools when none should be called: {listed}",
            expected=[],
            actual=[_call_data(call) for call in extra_calls],
        )
        return findings
    made_counts = Counter(call.name for call in actual)
    for call in extra_calls:
        times = expected_counts[call.name]
        if not times:
            add(
                FailureKind.WRONG_TOOL,
                f"Unexpected tool call: {_call_text(call)}",
                tool=call.name,
                expected=sorted(expected_counts),
                actual=_call_data(call),
            )
        elif made_counts[call.name] <= times:
            # Not one call too many: its arguments meet no expected call of its tool that is
            # left (an optional one, whose wrong arguments make it an extra call).
            expected = next(item for item in reference if item.name == call.name)
            wrong_arguments(call, expected, f"Call of {call.name} meets no expected call", [])
        else:
            add(
                FailureKind.OVER_CALLING,
                f"Extra call of {call.name}: expected {times} call{'s' * (times != 1)}, "
                f"got {made_counts[call.name]}",
                tool=call.name,
                expected=times,
                actual=_call_data(call),
            )
    return findings


_CHECK_KINDS = {
    "agent_error": FailureKind.AGENT_ERRORS,
    "conversation": FailureKind.NOT_CONCLUDED,
    "response_contains": FailureKind.MISSING_KEYWORDS,
    "max_tool_calls": FailureKind.OVER_CALLING,
    "max_latency_ms": FailureKind.LATENCY,
}


def _check_findings(evaluation: Evaluation) -> list[Finding]:
    """CaseExpectations' failed checks as findings."""
    assert evaluation.result is not None
    findings = []
    for check in evaluation.result.metadata.get("failed_checks", []):
        message = str(check.get("message", ""))
        kind = _CHECK_KINDS.get(str(check.get("check")), FailureKind.OTHER_METRICS)
        if kind is FailureKind.NOT_CONCLUDED and check.get("actual") == "gave_up":
            kind = FailureKind.USER_GAVE_UP
        findings.append(
            Finding(
                kind=kind,
                metric=evaluation.metric,
                message=message[:1].upper() + message[1:],
                expected=check.get("expected"),
                actual=check.get("actual"),
            )
        )
    return findings


def _metric_finding(evaluation: Evaluation) -> Finding:
    """A metric that did not pass the sample (or could not score it), in one line."""
    result = evaluation.result
    if evaluation.error is not None:
        message = f"{evaluation.metric} failed: {evaluation.error.message}"
    elif result is not None and result.score is not None:
        threshold = result.config.get("threshold")
        under = ""
        if isinstance(threshold, int | float):
            side = "over its maximum" if result.lower_is_better else "under its threshold"
            under = f" {side} {threshold:g}"
        explanation = f": {result.explanation}" if result.explanation else ""
        message = f"{evaluation.metric} scored {result.score:.2f}{under}{explanation}"
    else:
        reason = result.undefined_reason if result is not None else None
        message = f"{evaluation.metric} has no score: {reason or 'no quorum'}"
    return Finding(
        kind=FailureKind.OTHER_METRICS,
        metric=evaluation.metric,
        message=message,
        actual=evaluation.score,
    )
