"""Tool-evaluation suites: run an agent on test cases, score its tool use, gate CI on it.

A suite (YAML or Python) lists cases: a user message, the tool calls expected (with required,
forbidden and validated parameters), keywords the answer must contain, and tool-call and
latency budgets. Any agent callable, or a chat model of ``application.yaml`` through the
built-in runner, is run on every case (concurrently, bounded); each run is scored (tool
precision and recall with multiset matching, parameter accuracy, keywords, budgets), failures
are grouped with recommendations, and the report goes to the console, JSON or HTML. The
``ragas-boot suite run`` command gates CI on the pass rate; :func:`pytest_cases` makes one
pytest test per case.

This package gathers the suites' public surface from where each part lives: the suite, its
cases, the runner and the results in the modules of :mod:`ragas_boot.runs.suites` (which
exports nothing itself); the built-in agent in
:mod:`ragas_boot.chat.tool_agent`; the renderers in :mod:`ragas_boot.reporting.suite_report`;
and the pytest helpers in :mod:`ragas_boot.suites.testing`.

>>> suite = load_suite("suite.yaml")  # doctest: +SKIP
>>> result = run_suite(suite)  # the suite's default agent  # doctest: +SKIP
>>> print(render_console(result, result.gate(0.9)))  # doctest: +SKIP
"""

from ragas_boot.chat.tool_agent import AgentReply, OpenAIToolAgent, StopReason
from ragas_boot.reporting.suite_report import (
    case_explanation,
    render_console,
    render_html,
    render_json,
    report_data,
)
from ragas_boot.runs.suites.analysis import (
    FailureAnalysis,
    FailureGroup,
    FailureKind,
    analyze_failures,
)
from ragas_boot.runs.suites.expectations import (
    DEFAULT_MAX_LATENCY_MS,
    DEFAULT_MAX_TOOL_CALLS,
    AgentTestCase,
    ExpectationAlternatives,
    JsonType,
    ParamRule,
    ParamValidator,
    RangeRule,
    ToolCallExpectation,
)
from ragas_boot.runs.suites.results import (
    AgentRun,
    CaseIssue,
    CaseResult,
    IssueKind,
    SuiteGate,
    SuiteResult,
)
from ragas_boot.runs.suites.runner import (
    Agent,
    arun_case,
    arun_suite,
    as_agent_reply,
    run_case,
    run_suite,
)
from ragas_boot.runs.suites.scoring import (
    DEFAULT_PASS_THRESHOLD,
    ScoreWeights,
    ScoringSettings,
    score_case,
)
from ragas_boot.runs.suites.suite import (
    AgentTestSuite,
    ToolSpec,
    load_suite,
    suite_json_schema,
    validate_suite,
)
from ragas_boot.suites.testing import SuiteCase, pytest_cases

__all__ = [
    "DEFAULT_MAX_LATENCY_MS",
    "DEFAULT_MAX_TOOL_CALLS",
    "DEFAULT_PASS_THRESHOLD",
    "Agent",
    "AgentReply",
    "AgentRun",
    "AgentTestCase",
    "AgentTestSuite",
    "CaseIssue",
    "CaseResult",
    "ExpectationAlternatives",
    "FailureAnalysis",
    "FailureGroup",
    "FailureKind",
    "IssueKind",
    "JsonType",
    "OpenAIToolAgent",
    "ParamRule",
    "ParamValidator",
    "RangeRule",
    "ScoreWeights",
    "ScoringSettings",
    "StopReason",
    "SuiteCase",
    "SuiteGate",
    "SuiteResult",
    "ToolCallExpectation",
    "ToolSpec",
    "analyze_failures",
    "arun_case",
    "arun_suite",
    "as_agent_reply",
    "case_explanation",
    "load_suite",
    "pytest_cases",
    "render_console",
    "render_html",
    "render_json",
    "report_data",
    "run_case",
    "run_suite",
    "score_case",
    "suite_json_schema",
    "validate_suite",
]
