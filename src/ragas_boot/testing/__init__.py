"""Test helpers: score assertions, and a local OpenAI-compatible server with scripted answers
and injected faults (plus fakes of the GigaChat, Anthropic and Ollama APIs, scripted alike).

``assert_score(result, at_least=0.8)`` checks a score and, when it fails, says what every judge
thought. Point a config's ``base-url`` at :attr:`FakeOpenAIServer.base_url` (or an OpenAI
client's ``base_url`` at :attr:`FakeOpenAIServer.url`) to test judges offline. The pytest
plugin offers the server as the ``ragas_openai_server`` fixture; a per-test ``openai_server``
fixture lives in :mod:`ragas_boot.testing.fixtures` (it needs pytest).
"""

from ragas_boot.testing._fake_api import ChatCall, ProviderRequest
from ragas_boot.testing._schema import minimal_instance
from ragas_boot.testing.anthropic_server import FakeAnthropicServer
from ragas_boot.testing.assertions import assert_score
from ragas_boot.testing.gigachat_server import FakeGigaChatServer, gigachat_key
from ragas_boot.testing.ollama_server import FakeOllamaServer
from ragas_boot.testing.server import (
    DEFAULT_EMBEDDING_DIMENSIONS,
    DEFAULT_MODEL,
    DEFAULT_TEXT,
    ChatRequest,
    FakeOpenAIServer,
    FaultName,
    RecordedEmbeddingRequest,
    RecordedRequest,
    Reply,
    ReplyKind,
    ReplyLike,
    ReplySource,
    Rule,
    VectorSource,
    asks_for,
    hashed_vector,
)

__all__ = [
    "DEFAULT_EMBEDDING_DIMENSIONS",
    "DEFAULT_MODEL",
    "DEFAULT_TEXT",
    "ChatCall",
    "ChatRequest",
    "FakeAnthropicServer",
    "FakeGigaChatServer",
    "FakeOllamaServer",
    "FakeOpenAIServer",
    "FaultName",
    "ProviderRequest",
    "RecordedEmbeddingRequest",
    "RecordedRequest",
    "Reply",
    "ReplyKind",
    "ReplyLike",
    "ReplySource",
    "Rule",
    "VectorSource",
    "asks_for",
    "assert_score",
    "gigachat_key",
    "hashed_vector",
    "minimal_instance",
]
