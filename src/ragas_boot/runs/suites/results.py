"""Results of running a suite: per-case scores with structured issues, and the suite's totals.

Results are frozen data; rendering them (console, JSON, HTML) lives in
:mod:`ragas_boot.reporting.suite_report`. :class:`AgentReply` and :class:`StopReason` are
defined beside the built-in agent (:mod:`ragas_boot.chat.tool_agent`) and re-exported here.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from statistics import fmean
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field

from ragas_boot.chat.judge import TokenUsage
from ragas_boot.chat.tool_agent import AgentReply, StopReason
from ragas_boot.samples import Message, ToolCall

__all__ = [
    "AgentReply",
    "AgentRun",
    "CaseIssue",
    "CaseResult",
    "IssueKind",
    "StopReason",
    "SuiteGate",
    "SuiteResult",
]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class IssueKind(StrEnum):
    """What went wrong in a case (each maps to one failure group of the analysis)."""

    MISSING_TOOL = "missing_tool"
    """An expected tool was not called (as often as expected)."""
    UNEXPECTED_TOOL = "unexpected_tool"
    """A tool no expectation names was called."""
    EXTRA_CALL = "extra_call"
    """An expected tool was called more times than expected."""
    FORBIDDEN_CALL = "forbidden_call"
    """A tool was called in a case where no tool may be called."""
    OVER_BUDGET = "over_budget"
    """More tool calls than the case's ``max_tool_calls``."""
    MISSING_PARAM = "missing_param"
    """A required parameter is absent (scores 0)."""
    WRONG_VALUE = "wrong_value"
    """A required parameter has another value (partial credit 0.5)."""
    FORBIDDEN_PARAM = "forbidden_param"
    """A forbidden parameter is present (scores 0)."""
    INVALID_PARAM = "invalid_param"
    """A parameter value failed its validator (scores 0)."""
    MISSING_KEYWORDS = "missing_keywords"
    """The final answer lacks expected keywords."""
    LATENCY = "latency"
    """The run took longer than the case's ``max_latency_ms``."""
    AGENT_ERROR = "agent_error"
    """The agent raised, or returned something that is not a reply; the case is unscored."""


class CaseIssue(_Frozen):
    """One problem found in a case, as data.

    Attributes:
        kind: what went wrong.
        message: one readable line.
        tool: the tool concerned, if any.
        param: the parameter concerned, if any.
        expected: what was expected (a value, a rule, a budget, missing keywords), if any.
        actual: what the agent did (a value, a call's arguments, a count), if any.
    """

    kind: IssueKind = Field(description="What went wrong.")
    message: str = Field(description="One readable line.")
    tool: str | None = Field(default=None, description="The tool concerned, if any.")
    param: str | None = Field(default=None, description="The parameter concerned, if any.")
    expected: Any = Field(default=None, description="What was expected, if anything.")
    actual: Any = Field(default=None, description="What the agent did, if relevant.")


class AgentRun(AgentReply):
    """An agent's reply as the runner observed it: with its latency, or the error it raised.

    Attributes:
        latency_ms: wall time of the agent's run, without rate-limit waiting.
        error: ``"ErrorType: message"`` when the agent failed; then nothing else is scored.
    """

    latency_ms: float = Field(default=0.0, ge=0.0, description="Wall time of the run in ms.")
    error: str | None = Field(default=None, description="The agent's failure, if it failed.")


class CaseResult(_Frozen):
    """The outcome of one case.

    A score is ``None`` when the case does not check that dimension (no tool expectations,
    no keywords) or the agent failed; the overall score is the weighted mean of the others.

    Attributes:
        case_id: the case.
        description: the case's description.
        passed: overall ≥ the pass threshold, no expected tool missing, no forbidden call,
            within the tool-call and latency budgets, and no agent error.
        score: overall score in [0, 1] (0 for a must-not-call case that called tools).
        tool_precision: matched calls / calls made (multiset matching).
        tool_recall: matched calls / expected calls (multiset matching).
        param_accuracy: mean parameter score over the expected calls.
        output_score: share of expected keywords found in the answer.
        latency_ms: the run's latency.
        max_latency_ms: the case's latency budget.
        tool_calls: the calls the agent made.
        max_tool_calls: the case's tool-call budget.
        response: the agent's final answer.
        issues: every problem found, in the order checked.
        error: the agent's failure, if any.
        stop_reason: why the run ended.
        messages: the whole conversation: the input, then what the agent added.
        turns: model turns taken, when known.
        usage: tokens used, when known.
    """

    case_id: str = Field(description="The case.")
    description: str | None = Field(default=None, description="The case's description.")
    passed: bool = Field(description="Whether the case passed.")
    score: float = Field(ge=0.0, le=1.0, description="Overall score.")
    tool_precision: float | None = Field(description="Matched calls / calls made.")
    tool_recall: float | None = Field(description="Matched calls / expected calls.")
    param_accuracy: float | None = Field(description="Mean parameter score of expected calls.")
    output_score: float | None = Field(description="Share of expected keywords found.")
    latency_ms: float = Field(description="The run's latency in milliseconds.")
    max_latency_ms: float | None = Field(description="The case's latency budget.")
    tool_calls: list[ToolCall] = Field(description="The calls the agent made.")
    max_tool_calls: int = Field(description="The case's tool-call budget.")
    response: str = Field(description="The agent's final answer.")
    issues: list[CaseIssue] = Field(description="Every problem found.")
    error: str | None = Field(default=None, description="The agent's failure, if any.")
    stop_reason: StopReason = Field(description="Why the run ended.")
    messages: list[Message] = Field(description="The input, then what the agent added.")
    turns: int | None = Field(default=None, description="Model turns taken, when known.")
    usage: TokenUsage | None = Field(default=None, description="Tokens used, when known.")


def _mean(values: list[float | None]) -> float | None:
    known = [value for value in values if value is not None]
    return fmean(known) if known else None


class SuiteGate(_Frozen):
    """The CI gate's verdict on a suite run.

    Attributes:
        min_pass_rate: the pass rate required, in [0, 1].
        pass_rate: the pass rate reached, in [0, 1].
        passed: ``pass_rate >= min_pass_rate`` (compared unrounded).
    """

    min_pass_rate: float = Field(ge=0.0, le=1.0, description="Pass rate required.")
    pass_rate: float = Field(ge=0.0, le=1.0, description="Pass rate reached.")
    passed: bool = Field(description="Whether the pass rate reached the minimum.")


class SuiteResult(_Frozen):
    """The outcome of a suite run; totals and averages are computed from the cases.

    Averages of a dimension are over the cases that score it (``None`` when none does).

    Attributes:
        suite: the suite's name.
        agent: which agent ran (``weather_agent:run``, ``model gpt-4o-mini (openrouter)``).
        started_at: when the run started.
        duration_s: wall time of the whole run.
        concurrency: cases run at once, at most.
        cases: one result per case, in suite order.
    """

    suite: str = Field(description="The suite's name.")
    agent: str = Field(description="Which agent ran.")
    started_at: datetime = Field(description="When the run started.")
    duration_s: float = Field(ge=0.0, description="Wall time of the whole run.")
    concurrency: int = Field(ge=1, description="Cases run at once, at most.")
    cases: list[CaseResult] = Field(description="One result per case, in suite order.")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total(self) -> int:
        """Number of cases."""
        return len(self.cases)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> int:
        """Cases that passed."""
        return sum(1 for case in self.cases if case.passed)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def failed(self) -> int:
        """Cases that failed."""
        return self.total - self.passed

    @computed_field  # type: ignore[prop-decorator]
    @property
    def pass_rate(self) -> float:
        """Passed / total, in [0, 1] (0 for an empty run)."""
        return self.passed / self.total if self.total else 0.0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def average_score(self) -> float | None:
        """Mean overall score."""
        return _mean([case.score for case in self.cases])

    @computed_field  # type: ignore[prop-decorator]
    @property
    def average_precision(self) -> float | None:
        """Mean tool precision of the cases that score it."""
        return _mean([case.tool_precision for case in self.cases])

    @computed_field  # type: ignore[prop-decorator]
    @property
    def average_recall(self) -> float | None:
        """Mean tool recall of the cases that score it."""
        return _mean([case.tool_recall for case in self.cases])

    @computed_field  # type: ignore[prop-decorator]
    @property
    def average_param_accuracy(self) -> float | None:
        """Mean parameter accuracy of the cases that score it."""
        return _mean([case.param_accuracy for case in self.cases])

    @computed_field  # type: ignore[prop-decorator]
    @property
    def average_latency_ms(self) -> float | None:
        """Mean latency."""
        return _mean([case.latency_ms for case in self.cases])

    @property
    def failures(self) -> list[CaseResult]:
        """The cases that failed, in suite order."""
        return [case for case in self.cases if not case.passed]

    def case(self, case_id: str) -> CaseResult:
        """The result of one case.

        Raises:
            KeyError: no case has that id.
        """
        for case in self.cases:
            if case.case_id == case_id:
                return case
        raise KeyError(case_id)

    def gate(self, min_pass_rate: float) -> SuiteGate:
        """The CI gate's verdict for ``min_pass_rate`` (a fraction in [0, 1]).

        Raises:
            ValueError: ``min_pass_rate`` is outside [0, 1].
        """
        if not 0.0 <= min_pass_rate <= 1.0:
            raise ValueError(f"min_pass_rate must be within [0, 1], got {min_pass_rate!r}")
        return SuiteGate(
            min_pass_rate=min_pass_rate,
            pass_rate=self.pass_rate,
            passed=self.pass_rate >= min_pass_rate,
        )
