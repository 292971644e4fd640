"""Tool-evaluation suites: run an agent on test cases, score them like any dataset, gate CI.

A suite (YAML or Python) lists cases: a user message, the tool calls expected (with required,
forbidden and validated parameters), keywords the answer must contain, and tool-call and
latency budgets. Each case compiles to a :class:`~ragas_boot.samples.Sample` in the samples'
one expectation vocabulary (``reference_tool_calls`` of
:class:`~ragas_boot.samples.ExpectedToolCall`\\ s, :class:`~ragas_boot.samples.ArgumentRule`\\ s,
``expectations``). Any agent callable, or a chat model of ``application.yaml`` through the
built-in runner, is run on every case (concurrently, bounded); the samples are then scored by
the one run engine with ``tool_call_accuracy`` and ``case_expectations`` (and any other
metric), so a suite run is a :class:`~ragas_boot.runs.RunResult`: every report format, the
run history, ``compare`` and the gate take it. The failure analysis groups what went wrong
with recommendations. ``ragas-boot suite run`` gates CI on the share of passing cases;
:func:`pytest_cases` makes one pytest test per case.

This package gathers the suites' public surface from where each part lives: the suite, its
cases, the runner and the agents in the modules of :mod:`ragas_boot.runs.suites` (which
exports nothing itself); the failure analysis in :mod:`ragas_boot.runs.analysis`; the built-in
agent in :mod:`ragas_boot.chat.openai.agent` and how its turns are attempted under the judges'
rules in :mod:`ragas_boot.execution.attempts`; and the pytest helpers in
:mod:`ragas_boot.suites.testing`.

>>> suite = load_suite("suite.yaml")  # doctest: +SKIP
>>> run = run_suite(suite)  # the suite's default agent  # doctest: +SKIP
>>> run.gate(min_sample_pass_rate=suite.min_pass_rate).passed  # doctest: +SKIP
"""

from ragas_boot.chat.openai.agent import AgentReply, OpenAIToolAgent, TurnPolicy
from ragas_boot.execution.attempts import ModelTurns
from ragas_boot.reporting.analysis import case_explanation
from ragas_boot.runs.analysis import (
    FailedSample,
    FailureAnalysis,
    FailureGroup,
    FailureKind,
    Finding,
    analyze_failures,
)
from ragas_boot.runs.simulation.summary import (
    ScenarioSummary,
    SimulationSummary,
    simulation_summary,
)
from ragas_boot.runs.simulation.user import UserTurn
from ragas_boot.runs.suites.expectations import (
    DEFAULT_MAX_LATENCY_MS,
    DEFAULT_MAX_TOOL_CALLS,
    AgentTestCase,
    ExpectationAlternatives,
    ToolCallExpectation,
)
from ragas_boot.runs.suites.runner import (
    Agent,
    aevaluate_cases,
    arun_agent,
    arun_case,
    arun_suite,
    as_agent_reply,
    case_sample,
    evaluate_cases,
    run_agent,
    run_case,
    run_suite,
)
from ragas_boot.runs.suites.scoring import DEFAULT_PASS_THRESHOLD, SUITE_METRICS, ScoringSettings
from ragas_boot.runs.suites.suite import (
    AgentTestSuite,
    ToolSpec,
    load_suite,
    suite_json_schema,
    validate_suite,
)
from ragas_boot.samples import (
    AgentRun,
    ArgumentRule,
    CaseExpectations,
    ConversationEnd,
    ExpectedToolCall,
    JsonType,
    RangeRule,
    Scenario,
    Simulation,
    StopReason,
)
from ragas_boot.suites.simulation import asimulate, simulate
from ragas_boot.suites.testing import SuiteCase, pytest_cases

__all__ = [
    "DEFAULT_MAX_LATENCY_MS",
    "DEFAULT_MAX_TOOL_CALLS",
    "DEFAULT_PASS_THRESHOLD",
    "SUITE_METRICS",
    "Agent",
    "AgentReply",
    "AgentRun",
    "AgentTestCase",
    "AgentTestSuite",
    "ArgumentRule",
    "CaseExpectations",
    "ConversationEnd",
    "ExpectationAlternatives",
    "ExpectedToolCall",
    "FailedSample",
    "FailureAnalysis",
    "FailureGroup",
    "FailureKind",
    "Finding",
    "JsonType",
    "ModelTurns",
    "OpenAIToolAgent",
    "RangeRule",
    "Scenario",
    "ScenarioSummary",
    "ScoringSettings",
    "Simulation",
    "SimulationSummary",
    "StopReason",
    "SuiteCase",
    "ToolCallExpectation",
    "ToolSpec",
    "TurnPolicy",
    "UserTurn",
    "aevaluate_cases",
    "analyze_failures",
    "arun_agent",
    "arun_case",
    "arun_suite",
    "as_agent_reply",
    "asimulate",
    "case_explanation",
    "case_sample",
    "evaluate_cases",
    "load_suite",
    "pytest_cases",
    "run_agent",
    "run_case",
    "run_suite",
    "simulate",
    "simulation_summary",
    "suite_json_schema",
    "validate_suite",
]
