"""The public surface of ``ragas_boot``: pinned, sorted, every name importable (as httpx does)."""

from __future__ import annotations

import ragas_boot

PUBLIC = [
    "AIMessage",
    "AllJudgesFailedError",
    "ConfigError",
    "Dataset",
    "DatasetError",
    "HumanMessage",
    "JudgeError",
    "JudgeNotFoundError",
    "MetricResult",
    "MissingExtraError",
    "NoConsensusError",
    "RagasBootError",
    "RagasContainer",
    "RagasSettings",
    "RunResult",
    "Sample",
    "SampleValidationError",
    "ToolCall",
    "ToolMessage",
    "UndefinedScoreError",
    "__version__",
    "aevaluate_dataset",
    "create_container",
    "evaluate_dataset",
    "load_dataset",
    "load_settings",
    "register_metric",
]


def test_the_public_names_are_pinned_and_sorted():
    assert ragas_boot.__all__ == PUBLIC
    assert sorted(PUBLIC) == PUBLIC


def test_every_public_name_is_importable():
    namespace: dict[str, object] = {}
    exec("from ragas_boot import *", namespace)
    for name in PUBLIC:
        assert getattr(ragas_boot, name) is namespace[name]
        assert namespace[name] is not None


def test_internal_packages_export_nothing():
    """One public face per concept: these packages' modules are imported by name, and users
    import from ``ragas_boot.suites`` and ``ragas_boot.metrics``."""
    import importlib

    for name in (
        "ragas_boot.chat.embeddings",
        "ragas_boot.chat.factory",
        "ragas_boot.chat.langchain",
        "ragas_boot.chat.local",
        "ragas_boot.chat.openai",
        "ragas_boot.chat.wire",
        "ragas_boot.runs.suites",
        "ragas_boot.metrics.agent",
        "ragas_boot.metrics.embeddings",
        "ragas_boot.metrics.general",
        "ragas_boot.metrics.nlp",
        "ragas_boot.metrics.nvidia",
        "ragas_boot.metrics.response",
        "ragas_boot.metrics.retrieval",
    ):
        assert getattr(importlib.import_module(name), "__all__", []) == [], name


#: ``ragas_boot.testing``: what users need to test their own metrics, agents and configs
#: offline. The fakes of other vendors' APIs are test support (tests/support/fakes), not here.
TESTING_PUBLIC = [
    "DEFAULT_EMBEDDING_DIMENSIONS",
    "DEFAULT_MODEL",
    "DEFAULT_TEXT",
    "BatchRecord",
    "BatchTiming",
    "ChatRequest",
    "FakeOpenAIServer",
    "FaultName",
    "RecordedEmbeddingRequest",
    "RecordedRequest",
    "Reply",
    "ReplyKind",
    "ReplyLike",
    "ReplySource",
    "Rule",
    "SentenceJudge",
    "VectorSource",
    "asks_for",
    "assert_score",
    "hashed_vector",
    "minimal_instance",
]


def test_the_testing_face_is_pinned_and_importable():
    import ragas_boot.testing

    assert ragas_boot.testing.__all__ == TESTING_PUBLIC
    namespace: dict[str, object] = {}
    exec("from ragas_boot.testing import *", namespace)
    for name in TESTING_PUBLIC:
        assert getattr(ragas_boot.testing, name) is namespace[name]


#: ``ragas_boot.suites``: tool suites, datasets with expectations (a suite run is a RunResult).
SUITES_PUBLIC = [
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


def test_the_suites_face_is_pinned_and_importable():
    import ragas_boot.suites

    assert ragas_boot.suites.__all__ == SUITES_PUBLIC
    namespace: dict[str, object] = {}
    exec("from ragas_boot.suites import *", namespace)
    for name in SUITES_PUBLIC:
        assert getattr(ragas_boot.suites, name) is namespace[name]
    # one model per idea: the suites' rules and records are the samples' own
    import ragas_boot.samples

    for name in (
        "ArgumentRule",
        "ExpectedToolCall",
        "CaseExpectations",
        "AgentRun",
        "Scenario",
        "Simulation",
        "ConversationEnd",
    ):
        assert getattr(ragas_boot.suites, name) is getattr(ragas_boot.samples, name)
