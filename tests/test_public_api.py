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
