"""Tool-evaluation suites as runs: a dataset whose cases carry expectations, an agent that
produces each case's conversation, and a gate on the pass rate.

A suite (YAML or Python) lists cases: a user message, the tool calls expected (with required,
forbidden and validated parameters), keywords the answer must contain, and tool-call and
latency budgets. Any agent callable, or a chat model of ``application.yaml`` through the
built-in :class:`~ragas_boot.chat.tool_agent.OpenAIToolAgent`, is run on every case under the
runs' one concurrency bound (:func:`~ragas_boot.runs._concurrency.bounded_map`); each run is
scored (tool precision and recall with multiset matching, parameter accuracy, keywords,
budgets) and failures are grouped with recommendations. Renderers live in
:mod:`ragas_boot.reporting.suite_report`; :mod:`ragas_boot.suites` gathers the whole surface.
"""

from ragas_boot.chat.tool_agent import AgentReply, StopReason
from ragas_boot.runs.suites.agents import python_agent, run_model_agent, suite_config_path
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
    describe_agent,
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
    DEFAULT_CONCURRENCY,
    DEFAULT_MIN_PASS_RATE,
    AgentTestSuite,
    ToolSpec,
    load_suite,
    resolve_reference,
    suite_json_schema,
    validate_suite,
)

__all__ = [
    "DEFAULT_CONCURRENCY",
    "DEFAULT_MAX_LATENCY_MS",
    "DEFAULT_MAX_TOOL_CALLS",
    "DEFAULT_MIN_PASS_RATE",
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
    "ParamRule",
    "ParamValidator",
    "RangeRule",
    "ScoreWeights",
    "ScoringSettings",
    "StopReason",
    "SuiteGate",
    "SuiteResult",
    "ToolCallExpectation",
    "ToolSpec",
    "analyze_failures",
    "arun_case",
    "arun_suite",
    "as_agent_reply",
    "describe_agent",
    "load_suite",
    "python_agent",
    "resolve_reference",
    "run_case",
    "run_model_agent",
    "run_suite",
    "score_case",
    "suite_config_path",
    "suite_json_schema",
    "validate_suite",
]
