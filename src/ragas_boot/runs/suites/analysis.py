"""Failure analysis: the failed cases grouped by kind of issue, with what to do about each.

The groups and the first three recommendations are the seed article's; the seed declared an
over-calling group but never filled it, matched issues by their wording, and left latency and
keyword failures out. Here every issue kind maps to one group (:data:`GROUP_OF`), a case is
listed once per group, and only failed cases are analysed.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from ragas_boot.runs.suites.results import CaseResult, IssueKind, SuiteResult

__all__ = [
    "GROUP_OF",
    "RECOMMENDATIONS",
    "TITLES",
    "FailureAnalysis",
    "FailureGroup",
    "FailureKind",
    "analyze_failures",
]


class FailureKind(StrEnum):
    """The failure groups, in report order."""

    PARAMETER_ERRORS = "parameter_errors"
    WRONG_TOOL = "wrong_tool"
    TOOL_NOT_CALLED = "tool_not_called"
    OVER_CALLING = "over_calling"
    LATENCY = "latency"
    MISSING_KEYWORDS = "missing_keywords"
    AGENT_ERRORS = "agent_errors"


GROUP_OF: dict[IssueKind, FailureKind] = {
    IssueKind.MISSING_PARAM: FailureKind.PARAMETER_ERRORS,
    IssueKind.WRONG_VALUE: FailureKind.PARAMETER_ERRORS,
    IssueKind.FORBIDDEN_PARAM: FailureKind.PARAMETER_ERRORS,
    IssueKind.INVALID_PARAM: FailureKind.PARAMETER_ERRORS,
    IssueKind.UNEXPECTED_TOOL: FailureKind.WRONG_TOOL,
    IssueKind.MISSING_TOOL: FailureKind.TOOL_NOT_CALLED,
    IssueKind.EXTRA_CALL: FailureKind.OVER_CALLING,
    IssueKind.FORBIDDEN_CALL: FailureKind.OVER_CALLING,
    IssueKind.OVER_BUDGET: FailureKind.OVER_CALLING,
    IssueKind.LATENCY: FailureKind.LATENCY,
    IssueKind.MISSING_KEYWORDS: FailureKind.MISSING_KEYWORDS,
    IssueKind.AGENT_ERROR: FailureKind.AGENT_ERRORS,
}
"""The failure group of each issue kind."""

TITLES: dict[FailureKind, str] = {
    FailureKind.PARAMETER_ERRORS: "Parameter errors",
    FailureKind.WRONG_TOOL: "Wrong tool called",
    FailureKind.TOOL_NOT_CALLED: "Tool not called",
    FailureKind.OVER_CALLING: "Over-calling",
    FailureKind.LATENCY: "Latency over budget",
    FailureKind.MISSING_KEYWORDS: "Missing keywords",
    FailureKind.AGENT_ERRORS: "Agent errors",
}

RECOMMENDATIONS: dict[FailureKind, str] = {
    FailureKind.PARAMETER_ERRORS: (
        "Improve tool input_schema descriptions — add examples for each param"
    ),
    FailureKind.WRONG_TOOL: ("Clarify tool descriptions — disambiguate similar tools more clearly"),
    FailureKind.TOOL_NOT_CALLED: "Add more trigger phrases in tool descriptions for missed tools",
    FailureKind.OVER_CALLING: (
        "State when no tool is needed (system prompt, tool descriptions); one call per fact"
    ),
    FailureKind.LATENCY: ("Cut sequential model turns (parallel tool calls) or use a faster model"),
    FailureKind.MISSING_KEYWORDS: (
        "Ask the agent to restate the key facts (city, figures) in its final answer"
    ),
    FailureKind.AGENT_ERRORS: (
        "Fix the agent's errors first: these cases were not scored on behaviour"
    ),
}
"""What to do about each group (the first three are the seed article's)."""


class FailureGroup(BaseModel):
    """The failed cases that share one kind of failure.

    Attributes:
        kind: the group.
        title: its name for people.
        case_ids: the affected cases, in suite order, each once.
        issue_count: how many issues of this group those cases have.
        recommendation: what to do about it.
    """

    model_config = ConfigDict(frozen=True)

    kind: FailureKind = Field(description="The group.")
    title: str = Field(description="Its name for people.")
    case_ids: list[str] = Field(description="The affected cases, in suite order.")
    issue_count: int = Field(description="Issues of this group in those cases.")
    recommendation: str = Field(description="What to do about it.")


class FailureAnalysis(BaseModel):
    """The failures of a run, grouped.

    Attributes:
        failed_case_ids: every failed case, in suite order.
        groups: the non-empty groups, in :class:`FailureKind` order.
    """

    model_config = ConfigDict(frozen=True)

    failed_case_ids: list[str] = Field(description="Every failed case, in suite order.")
    groups: list[FailureGroup] = Field(description="The non-empty groups, in report order.")

    @property
    def recommendations(self) -> list[str]:
        """One recommendation per group, in group order."""
        return [group.recommendation for group in self.groups]

    def group(self, kind: FailureKind | str) -> FailureGroup | None:
        """The group of ``kind``, if any case has a failure of that kind."""
        wanted = FailureKind(kind)
        return next((group for group in self.groups if group.kind is wanted), None)


def analyze_failures(results: SuiteResult | Iterable[CaseResult]) -> FailureAnalysis:
    """Group the failed cases by the kinds of their issues.

    A failed case appears in every group one of its issues belongs to. Issues of passing
    cases (a wrong value with partial credit in a case that still passed) are left out.

    Args:
        results: a suite result, or case results.

    Returns:
        The analysis; its ``groups`` are empty when nothing failed.
    """
    cases = results.cases if isinstance(results, SuiteResult) else list(results)
    failed = [case for case in cases if not case.passed]
    members: dict[FailureKind, dict[str, None]] = {}
    counts: dict[FailureKind, int] = {}
    for case in failed:
        for issue in case.issues:
            kind = GROUP_OF[issue.kind]
            members.setdefault(kind, {})[case.case_id] = None
            counts[kind] = counts.get(kind, 0) + 1
    groups = [
        FailureGroup(
            kind=kind,
            title=TITLES[kind],
            case_ids=list(members[kind]),
            issue_count=counts[kind],
            recommendation=RECOMMENDATIONS[kind],
        )
        for kind in FailureKind
        if kind in members
    ]
    return FailureAnalysis(failed_case_ids=[case.case_id for case in failed], groups=groups)
