"""The public surface of ``ragas_boot``: pinned, sorted, every name importable (as httpx does)."""

from __future__ import annotations

import enum
import typing

import pytest
from pydantic import BaseModel

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


def _enums_of(annotation: object) -> set[type[enum.Enum]]:
    """The enums a field annotation takes, through unions, lists and nested config models."""
    found: set[type[enum.Enum]] = set()
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        found.add(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        for field in annotation.model_fields.values():
            found |= _enums_of(field.annotation)
    for argument in typing.get_args(annotation):
        found |= _enums_of(argument)
    return found


def test_every_mode_a_metric_config_takes_is_on_the_metrics_face():
    """A metric configured in Python takes its modes from where its config is imported."""
    import ragas_boot.metrics
    from ragas_boot.metrics import METRICS

    taken = {mode for cls in METRICS.values() for mode in _enums_of(cls.config_type)}
    assert {mode.__name__ for mode in taken} >= {"RougeType", "ToolCallMode", "Aggregation"}
    missing = sorted(
        f"{mode.__module__}.{mode.__name__}"
        for mode in taken
        if getattr(ragas_boot.metrics, mode.__name__, None) is not mode
        or mode.__name__ not in ragas_boot.metrics.__all__
    )
    assert not missing, missing


#: The library's own plumbing: importable from its module for the tests, on no public face.
INTERNAL = {
    "ragas_boot.chat": [
        "build_judges",
        "build_embedding_models",
        "api_base_url",
        "parse_structured",
        "output_schema",
        "format_instructions",
        "DEFAULT_PROVIDER_NAME",
        "LOCAL_PROVIDER_NAME",
    ],
    "ragas_boot.execution": [
        "call_with_retries",
        "CallTally",
        "LoopPortal",
        "ProviderGate",
        "render_gantt",
    ],
    "ragas_boot.container": ["ApplicationContainer", "CoreContainer", "CORE_BEANS", "bean_names"],
    "ragas_boot.datasets": ["default_sample_id", "sample_from_fields"],
    "ragas_boot.runs": [
        "SpooledEvaluation",
        "EvaluationSpool",
        "SpoolClosedError",
        "cohen_kappa",
        "fleiss_kappa",
        "percentile",
    ],
}


@pytest.mark.parametrize("face", sorted(INTERNAL))
def test_no_plumbing_on_a_public_face(face):
    import importlib

    module = importlib.import_module(face)
    assert not set(INTERNAL[face]) & set(module.__all__)
    namespace: dict[str, object] = {}
    exec(f"from {face} import *", namespace)
    assert not set(INTERNAL[face]) & set(namespace)


@pytest.mark.parametrize(
    ("face", "names"),
    [
        ("ragas_boot.metrics", ["render_prompt", "RougeType", "ContextPrecisionStrategy"]),
        ("ragas_boot.runs", ["open_history", "snapshot_run", "diff_runs", "estimate_run"]),
        (
            "ragas_boot.reporting",
            ["render_diff", "render_calibration_console", "render_calibration_html"],
        ),
        ("ragas_boot.container", ["unrunnable_metrics", "UnrunnableMetric"]),
        ("ragas_boot.execution", ["cap_coverage"]),
    ],
)
def test_what_the_docs_teach_is_on_its_face(face, names):
    import importlib

    assert set(names) <= set(importlib.import_module(face).__all__)
