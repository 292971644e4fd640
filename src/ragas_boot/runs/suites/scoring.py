"""Scoring one case: what the agent did (an :class:`AgentRun`) against what the case expects.

Dimensions, each in [0, 1] or ``None`` when the case does not check it:

* **tool precision** = matched calls / calls made, **tool recall** = matched calls / expected
  calls. Calls are matched to expectations by a maximum matching on the tool name (a
  multiset: two calls of one tool match two expectations of it, never more), ties broken by
  how many required values agree (:func:`~ragas_boot.metrics.agent.matching.match_tool_calls`
  in FLEXIBLE mode with threshold 0).
* **parameter accuracy**: the mean over expected calls of the mean over their parameters:
  a required parameter missing scores 0, with another value 0.5, right 1; a forbidden
  parameter present scores 0 (absent 1); a failed validator scores 0. An expected call nobody
  made scores 0.
* **output**: the share of ``expected_output_contains`` keywords in the answer (any case).

An optional expectation is neither missing when no call meets it nor counted in precision when
one does (its parameters are then scored). With alternatives (``any_of``) each set of
expectations is scored and the one with the best weighted tool score (precision, recall and
parameters) counts, with its issues; the first on a tie. With ``failed_calls:
exclude_recovered`` a call whose tool result is an error, followed by a successful call of the
same tool, is left out of precision and pairing.

The overall score is the weighted mean of the dimensions the case checks (weights default to
the seed's 0.3 / 0.3 / 0.3 / 0.1). A case where tools must not be called scores 0 when any
was. A case passes when the overall score reaches ``pass_threshold`` (0.8), no expected tool
is missing, no forbidden call was made, the tool-call and latency budgets hold, and the agent
did not fail.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from pydantic import Field, model_validator

from ragas_boot.metrics.agent.matching import (
    FailedCalls,
    ToolCallMode,
    ValueComparison,
    match_tool_calls,
)
from ragas_boot.runs.suites.expectations import (
    AgentTestCase,
    ParamRule,
    SuiteModel,
    ToolCallExpectation,
    describe_validator,
    same_value,
    validator_failure,
)
from ragas_boot.runs.suites.results import AgentRun, CaseIssue, CaseResult, IssueKind, StopReason
from ragas_boot.samples import Sample, ToolCall

__all__ = [
    "DEFAULT_PASS_THRESHOLD",
    "FAILING_KINDS",
    "ScoreWeights",
    "ScoringSettings",
    "score_case",
]

DEFAULT_PASS_THRESHOLD = 0.8
"""Overall score a case needs to pass (as in the seed article)."""

FAILING_KINDS = frozenset(
    {
        IssueKind.MISSING_TOOL,
        IssueKind.FORBIDDEN_CALL,
        IssueKind.OVER_BUDGET,
        IssueKind.LATENCY,
        IssueKind.AGENT_ERROR,
    }
)
"""Issue kinds that fail a case whatever its score."""

_EPSILON = 1e-9  # 0.3 + 0.3 + 0.3 * (2/3) must reach 0.8
_WRONG_VALUE_CREDIT = 0.5


class ScoreWeights(SuiteModel):
    """Weights of the overall score (normalised over the dimensions a case checks)."""

    tool_precision: float = Field(default=0.3, ge=0.0, description="Weight of tool precision.")
    tool_recall: float = Field(default=0.3, ge=0.0, description="Weight of tool recall.")
    param_accuracy: float = Field(default=0.3, ge=0.0, description="Weight of param accuracy.")
    output: float = Field(default=0.1, ge=0.0, description="Weight of the keyword score.")

    @model_validator(mode="after")
    def _some_weight(self) -> ScoreWeights:
        if self.tool_precision + self.tool_recall + self.param_accuracy + self.output <= 0:
            raise ValueError("at least one weight must be above 0")
        return self


class ScoringSettings(SuiteModel):
    """How a suite's cases are scored."""

    weights: ScoreWeights = Field(
        default_factory=ScoreWeights, description="Weights of the overall score."
    )
    pass_threshold: float = Field(
        default=DEFAULT_PASS_THRESHOLD, ge=0.0, le=1.0, description="Overall score to pass."
    )
    value_comparison: ValueComparison = Field(
        default=ValueComparison.EXACT,
        description="EXACT JSON equality of values, or NORMALIZE ('5' == 5, case-blind text).",
    )
    failed_calls: FailedCalls = Field(
        default=FailedCalls.COUNT,
        description="COUNT failed tool calls like any; EXCLUDE_RECOVERED: leave out a failed "
        "call when a later call of the same tool succeeded.",
    )


def score_case(
    case: AgentTestCase, run: AgentRun, scoring: ScoringSettings | None = None
) -> CaseResult:
    """Score what the agent did on one case.

    Args:
        case: the case and its expectations.
        run: what the agent did (reply, latency, or its error).
        scoring: weights, pass threshold and value comparison; the defaults when omitted.

    Returns:
        The case result with every issue found as data.
    """
    scoring = scoring or ScoringSettings()
    issues: list[CaseIssue] = []
    common: dict[str, Any] = {
        "case_id": case.id,
        "description": case.description,
        "latency_ms": run.latency_ms,
        "max_latency_ms": case.max_latency_ms,
        "tool_calls": run.tool_calls,
        "max_tool_calls": case.max_tool_calls,
        "response": run.response,
        "error": run.error,
        "messages": [*case.conversation(), *run.messages],
        "turns": run.turns,
        "usage": run.usage,
    }
    if run.error is not None:
        issue = CaseIssue(
            kind=IssueKind.AGENT_ERROR, message=f"Agent failed: {run.error}", actual=run.error
        )
        return CaseResult(
            **common,
            passed=False,
            score=0.0,
            tool_precision=None,
            tool_recall=None,
            param_accuracy=None,
            output_score=None,
            issues=[issue],
            stop_reason=StopReason.ERROR,
        )

    calls = run.tool_calls
    precision: float | None = None
    recall: float | None = None
    params: float | None = None
    forced_zero = False
    if case.should_not_call_tools:
        precision, recall = (0.0, 1.0) if calls else (1.0, 1.0)
        forced_zero = bool(calls)
        if calls:
            listed = ", ".join(f"{call.name}({_json(call.arguments)})" for call in calls)
            issues.append(
                CaseIssue(
                    kind=IssueKind.FORBIDDEN_CALL,
                    message=f"Called tools when none should be called: {listed}",
                    expected=[],
                    actual=[_call_data(call) for call in calls],
                )
            )
    elif case.expected_tool_calls:
        precision, recall, params = _score_alternatives(case, run, scoring, issues)

    output = _score_output(case.expected_output_contains, run.response, issues)

    if len(calls) > case.max_tool_calls:
        issues.append(
            CaseIssue(
                kind=IssueKind.OVER_BUDGET,
                message=f"{len(calls)} tool calls, over the budget of {case.max_tool_calls}",
                expected=case.max_tool_calls,
                actual=len(calls),
            )
        )
    if case.max_latency_ms is not None and run.latency_ms > case.max_latency_ms:
        issues.append(
            CaseIssue(
                kind=IssueKind.LATENCY,
                message=(
                    f"Latency {run.latency_ms:.0f}ms exceeded budget {case.max_latency_ms:.0f}ms"
                ),
                expected=case.max_latency_ms,
                actual=run.latency_ms,
            )
        )

    weights = scoring.weights
    weighted = [
        (precision, weights.tool_precision),
        (recall, weights.tool_recall),
        (params, weights.param_accuracy),
        (output, weights.output),
    ]
    total_weight = sum(weight for value, weight in weighted if value is not None)
    if forced_zero:
        overall = 0.0
    elif total_weight > 0:
        overall = sum(value * weight for value, weight in weighted if value is not None)
        overall = min(1.0, overall / total_weight)
    else:
        overall = 1.0  # the case checks nothing that has a weight: only its budgets
    passed = overall >= scoring.pass_threshold - _EPSILON and not any(
        issue.kind in FAILING_KINDS for issue in issues
    )
    return CaseResult(
        **common,
        passed=passed,
        score=overall,
        tool_precision=precision,
        tool_recall=recall,
        param_accuracy=params,
        output_score=output,
        issues=issues,
        stop_reason=run.stop_reason,
    )


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _call_data(call: ToolCall) -> dict[str, Any]:
    return {"name": call.name, "arguments": call.arguments}


def _score_alternatives(
    case: AgentTestCase, run: AgentRun, scoring: ScoringSettings, issues: list[CaseIssue]
) -> tuple[float, float, float | None]:
    """The tool dimensions of the best set of expectations, and its issues."""
    succeeded = _call_successes(run)
    weights = scoring.weights
    best: tuple[float, tuple[float, float, float | None], list[CaseIssue]] | None = None
    for expectations in case.expectation_alternatives():
        found: list[CaseIssue] = []
        scores = _score_tools(expectations, run.tool_calls, scoring, found, succeeded)
        weighted = [
            (scores[0], weights.tool_precision),
            (scores[1], weights.tool_recall),
            (scores[2], weights.param_accuracy),
        ]
        total = sum(weight for value, weight in weighted if value is not None)
        value = sum(v * w for v, w in weighted if v is not None) / total if total else 0.0
        if best is None or value > best[0]:
            best = (value, scores, found)
    assert best is not None  # at least one alternative, by validation
    issues.extend(best[2])
    return best[1]


def _call_successes(run: AgentRun) -> list[bool | None]:
    """Per tool call, whether its result in the trace was a success, an error, or unknown."""
    if not run.tool_calls:
        return []
    trace = Sample(user_input_messages=run.messages)
    if trace.actual_tool_calls() == list(run.tool_calls):
        results = trace.actual_tool_call_results()
    else:  # calls reported apart from the trace: link by call id only
        results = Sample(
            tool_calls=run.tool_calls, user_input_messages=run.messages
        ).actual_tool_call_results()
    return [None if result is None else not result.failed for result in results]


def _score_tools(
    expectations: Sequence[ToolCallExpectation],
    calls: Sequence[ToolCall],
    scoring: ScoringSettings,
    issues: list[CaseIssue],
    succeeded: Sequence[bool | None] | None = None,
) -> tuple[float, float, float | None]:
    references = [expectation.reference_call() for expectation in expectations]
    matching = match_tool_calls(
        calls,
        references,
        mode=ToolCallMode.FLEXIBLE,
        threshold=0.0,
        comparison=scoring.value_comparison,
        succeeded=succeeded,
        failed_calls=scoring.failed_calls,
    )
    for missed in matching.missed:
        expectation = expectations[missed.position]
        issues.append(
            CaseIssue(
                kind=IssueKind.MISSING_TOOL,
                message=f"Missing expected tool call: {expectation.tool_name}"
                + (f" {_json(expectation.required_params)}" if expectation.required_params else ""),
                tool=expectation.tool_name,
                expected=expectation.required_params,
            )
        )
    expected_counts = Counter(expectation.tool_name for expectation in expectations)
    for extra in matching.extra:
        name = extra.call.name
        if name in expected_counts:
            times = expected_counts[name]
            issues.append(
                CaseIssue(
                    kind=IssueKind.EXTRA_CALL,
                    message=(
                        f"Extra call of {name}: expected {times} call{'s' * (times != 1)}, "
                        f"got {sum(1 for call in calls if call.name == name)}"
                    ),
                    tool=name,
                    expected=times,
                    actual=extra.call.arguments,
                )
            )
        else:
            issues.append(
                CaseIssue(
                    kind=IssueKind.UNEXPECTED_TOOL,
                    message=f"Unexpected tool call: {name}",
                    tool=name,
                    expected=sorted(expected_counts),
                    actual=extra.call.arguments,
                )
            )
    paired = {item.reference_index: item.actual for item in matching.correct + matching.optional}
    param_scores = []
    for index, expectation in enumerate(expectations):
        call = paired.get(index)
        if call is not None:
            param_scores.append(_score_params(expectation, call.arguments, scoring, issues))
        elif not expectation.optional:
            param_scores.append(0.0)
    params = sum(param_scores) / len(param_scores) if param_scores else None
    return matching.precision, matching.recall, params


def _score_params(
    expectation: ToolCallExpectation,
    arguments: dict[str, Any],
    scoring: ScoringSettings,
    issues: list[CaseIssue],
) -> float:
    """Mean score of the parameters the expectation names (1.0 when it names none)."""
    tool = expectation.tool_name
    names = dict.fromkeys(
        [
            *expectation.required_params,
            *expectation.forbidden_params,
            *expectation.param_validators,
        ]
    )
    scores = []
    for name in names:
        present = name in arguments
        value = arguments.get(name)
        if name in expectation.forbidden_params:
            if present:
                issues.append(
                    CaseIssue(
                        kind=IssueKind.FORBIDDEN_PARAM,
                        message=f"Forbidden param '{name}' used in {tool}",
                        tool=tool,
                        param=name,
                        actual=value,
                    )
                )
            scores.append(0.0 if present else 1.0)
            continue
        score: float | None = None
        if name in expectation.required_params:
            expected = expectation.required_params[name]
            if not present:
                score = 0.0
                issues.append(
                    CaseIssue(
                        kind=IssueKind.MISSING_PARAM,
                        message=f"Missing param '{name}' in {tool}",
                        tool=tool,
                        param=name,
                        expected=expected,
                    )
                )
            elif (
                expected is not None
                and not _compared_by_rule(expectation, name)
                and not same_value(value, expected, scoring.value_comparison)
            ):
                score = _WRONG_VALUE_CREDIT
                issues.append(
                    CaseIssue(
                        kind=IssueKind.WRONG_VALUE,
                        message=f"Wrong '{name}' in {tool}: expected {expected!r}, got {value!r}",
                        tool=tool,
                        param=name,
                        expected=expected,
                        actual=value,
                    )
                )
            else:
                score = 1.0
        validator = expectation.param_validators.get(name)
        if validator is not None and present:
            failure = validator_failure(
                validator,
                value,
                scoring.value_comparison,
                expectation.required_params.get(name),
            )
            if failure is not None:
                score = 0.0
                issues.append(
                    CaseIssue(
                        kind=IssueKind.INVALID_PARAM,
                        message=f"Param '{name}' failed validation in {tool}: {failure}",
                        tool=tool,
                        param=name,
                        expected=describe_validator(validator),
                        actual=value,
                    )
                )
            elif score is None:
                score = 1.0
        if score is not None:
            scores.append(score)
    return sum(scores) / len(scores) if scores else 1.0


def _compared_by_rule(expectation: ToolCallExpectation, name: str) -> bool:
    """Whether a ``tolerance`` or ``subset`` validator replaces the equality check."""
    validator = expectation.param_validators.get(name)
    return isinstance(validator, ParamRule) and validator.compares_with_required


def _score_output(keywords: Sequence[str], response: str, issues: list[CaseIssue]) -> float | None:
    if not keywords:
        return None
    text = response.casefold()
    missing = [keyword for keyword in keywords if keyword.casefold() not in text]
    if missing:
        issues.append(
            CaseIssue(
                kind=IssueKind.MISSING_KEYWORDS,
                message=f"Response missing keywords: {missing}",
                expected=missing,
            )
        )
    return (len(keywords) - len(missing)) / len(keywords)
