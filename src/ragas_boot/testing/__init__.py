"""Test helpers: a local OpenAI-compatible server with scripted answers and injected faults.

Point a config's ``base-url`` at :attr:`FakeOpenAIServer.base_url` (or an OpenAI client's
``base_url`` at :attr:`FakeOpenAIServer.url`) to test judges offline. The pytest fixture
``openai_server`` lives in :mod:`ragas_boot.testing.fixtures` (it needs pytest).
"""

from ragas_boot.testing._schema import minimal_instance
from ragas_boot.testing.server import (
    DEFAULT_MODEL,
    DEFAULT_TEXT,
    ChatRequest,
    FakeOpenAIServer,
    FaultName,
    RecordedRequest,
    Reply,
    ReplyKind,
    ReplyLike,
    ReplySource,
    Rule,
)

__all__ = [
    "DEFAULT_MODEL",
    "DEFAULT_TEXT",
    "ChatRequest",
    "FakeOpenAIServer",
    "FaultName",
    "RecordedRequest",
    "Reply",
    "ReplyKind",
    "ReplyLike",
    "ReplySource",
    "Rule",
    "minimal_instance",
]
